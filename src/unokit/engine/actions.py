"""Actions as integers: who does what, with a text form that round-trips.

An action is one ``int`` packing the acting seat, the action type and its arguments,
so that legal-action lists are cheap to build and compare. Text forms:

========================  ==================================================
``0:R5``                  seat 0 plays R5
``0:W+4>B``               plays a Wild Draw Four and names blue
``0:R7@2``                plays a 7 and names seat 2 (seven swap, WSW, RTH)
``0:R5!``                 plays R5 and calls UNO with it
``1:draw``                draws (or accepts a pending penalty, or presses)
``1:pass``                keeps the drawn card
``1:challenge``           challenges a Wild Draw Four
``2:uno``                 calls UNO on its own
``2:catch 0``             catches seat 0 for a missed UNO call
``1:color B``             names the colour (phase ``choose_color``)
``0:next``                starts the next round
========================  ==================================================

>>> a = play(0, parse_card("W+4"), color=3)
>>> format_action(a)
'0:W+4>B'
>>> parse_action("0:W+4>B") == a
True
>>> describe(parse_action("2:catch 0"))
ActionParts(player=2, type='catch', card=None, color=None, target=0, uno=False, give=None, extra=())
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

from unokit.engine.cards import COLOR_LETTERS, card_code, parse_card, parse_color
from unokit.engine.errors import ActionCodeError, CardCodeError

Action: TypeAlias = int
"""An action: an ``int`` packing its seat, type and arguments; build it with the
constructors here (:func:`play`, :func:`draw`, ...), read it with the accessors
(:func:`action_player`, :func:`action_card`, ...), write it as text with
:func:`format_action`."""
Seat: TypeAlias = int
"""A seat at the table: 0 .. players - 1."""

# Action types.
PLAY = 0
DRAW = 1
PASS = 2
CHALLENGE = 3
UNO = 4
CATCH = 5
COLOR = 6
NEXT_ROUND = 7
SLAP = 8
SAY = 9
GIVE = 10

TYPE_NAMES = ("play", "draw", "pass", "challenge", "uno", "catch", "color", "next", "slap",
              "say", "give")
_SIMPLE = {"draw": DRAW, "pass": PASS, "challenge": CHALLENGE, "uno": UNO, "next": NEXT_ROUND,
           "slap": SLAP, "say": SAY}

NO_CARD = 127
"""The card field of an action that plays or gives no card."""
NO_COLOR_ARG = 7
"""The colour field of an action that names no colour (a non-wild play; a wild whose
colour the rules choose, ``wild_color = "next_in_circle"``)."""
NO_TARGET = 15
"""The target field of an action that names no seat."""
_NONE_CARD, _NONE_COLOR, _NONE_TARGET = NO_CARD, NO_COLOR_ARG, NO_TARGET

# Bit layout: player 0-3, type 4-7, card 8-14, colour 15-17, target 18-21, uno 22,
# give 23-29 (card + 1, 0 = none), extra cards 30-32 (how many), their colours 33-46
# (two bits each, in order; multi-play cards share the first card's number).
_CARD_SHIFT = 8
_COLOR_SHIFT = 15
_TARGET_SHIFT = 18
UNO_FLAG = 1 << 22
_GIVE_SHIFT = 23
_EXTRA_SHIFT = 30
_EXTRA_COLORS_SHIFT = 33
MAX_EXTRA = 7
_MAX_BITS = 47
_EMPTY = (
    (_NONE_CARD << _CARD_SHIFT) | (_NONE_COLOR << _COLOR_SHIFT) | (_NONE_TARGET << _TARGET_SHIFT)
)
_EMPTY_ARGS = _EMPTY


def _pack(player: int, kind: int, card: int = _NONE_CARD, color: int = _NONE_COLOR,
          target: int = _NONE_TARGET, uno: bool = False) -> int:
    return (player | (kind << 4) | (card << _CARD_SHIFT) | (color << _COLOR_SHIFT)
            | (target << _TARGET_SHIFT) | (UNO_FLAG if uno else 0))


def play(player: int, card: int, color: int | None = None, target: int | None = None,
         uno: bool = False, give: int | None = None, extra: tuple[int, ...] = ()) -> int:
    """Play ``card``; ``color`` for a wild, ``target`` for a card that names a player (or
    the player a 5 exchanges with), ``uno`` to call UNO with the play, ``give`` the card a
    5 hands over, ``extra`` more cards of the same number played with it (multi-play)."""
    action = _pack(player, PLAY, card, _NONE_COLOR if color is None else color,
                   _NONE_TARGET if target is None else target, uno)
    if give is not None:
        action |= (give + 1) << _GIVE_SHIFT
    if extra:
        if len(extra) > MAX_EXTRA:
            raise ActionCodeError(f"at most {MAX_EXTRA + 1} cards may be played at once")
        action |= len(extra) << _EXTRA_SHIFT
        for index, other in enumerate(extra):
            if other >= 64 or other % 16 != card % 16:
                raise ActionCodeError("cards played together must share one number")
            action |= (other // 16) << (_EXTRA_COLORS_SHIFT + 2 * index)
    return action


def give_back(player: int, card: int) -> int:
    """Give ``card`` back in phase ``exchange``."""
    return _pack(player, GIVE, card)


def slap(player: int) -> int:
    """Slap the table (``uno_slap``)."""
    return _pack(player, SLAP)


def say(player: int) -> int:
    """Say something (``silence``)."""
    return _pack(player, SAY)


def draw(player: int) -> int:
    """Draw, or accept the pending penalty."""
    return _pack(player, DRAW)


def pass_turn(player: int) -> int:
    """Keep the drawn card and end the turn."""
    return _pack(player, PASS)


def challenge(player: int) -> int:
    """Challenge a Wild Draw Four."""
    return _pack(player, CHALLENGE)


def call_uno(player: int) -> int:
    """Call UNO on its own."""
    return _pack(player, UNO)


def catch(player: int, target: int) -> int:
    """Catch ``target`` for a missed UNO call."""
    return _pack(player, CATCH, target=target)


def choose_color(player: int, color: int) -> int:
    """Name the colour of a start-card wild."""
    return _pack(player, COLOR, color=color)


def next_round(player: int) -> int:
    """Start the next round of the match."""
    return _pack(player, NEXT_ROUND)


class ActionParts(NamedTuple):
    """An action taken apart; ``None`` where an argument is absent."""

    player: int
    type: str
    card: int | None
    color: int | None
    target: int | None
    uno: bool
    give: int | None = None
    extra: tuple[int, ...] = ()


def action_extra(action: int) -> tuple[int, ...]:
    """The cards played together with the first one (multi-play), in order."""
    count = (action >> _EXTRA_SHIFT) & 7
    if not count:
        return ()
    rank = ((action >> _CARD_SHIFT) & 127) % 16
    colors = action >> _EXTRA_COLORS_SHIFT
    return tuple(((colors >> (2 * i)) & 3) * 16 + rank for i in range(count))


def action_give(action: int) -> int:
    """The card a 5 hands over (-1 when none)."""
    return ((action >> _GIVE_SHIFT) & 127) - 1


def describe(action: int) -> ActionParts:
    """The parts of an action."""
    card = (action >> _CARD_SHIFT) & 127
    color = (action >> _COLOR_SHIFT) & 7
    target = (action >> _TARGET_SHIFT) & 15
    give = action_give(action)
    return ActionParts(
        action & 15,
        TYPE_NAMES[(action >> 4) & 15] if (action >> 4) & 15 < len(TYPE_NAMES) else "?",
        None if card == _NONE_CARD else card,
        None if color == _NONE_COLOR else color,
        None if target == _NONE_TARGET else target,
        bool(action & UNO_FLAG),
        None if give < 0 else give,
        action_extra(action),
    )


def action_player(action: int) -> int:
    """The seat that takes the action."""
    return action & 15


def action_type(action: int) -> int:
    """The type constant (``PLAY``, ``DRAW``, ...) of an action."""
    return (action >> 4) & 15


def action_card(action: int) -> int:
    """The card of a play (:data:`NO_CARD` when none)."""
    return (action >> _CARD_SHIFT) & 127


def action_color(action: int) -> int:
    """The colour argument (:data:`NO_COLOR_ARG` when none)."""
    return (action >> _COLOR_SHIFT) & 7


def action_target(action: int) -> int:
    """The target seat (:data:`NO_TARGET` when none)."""
    return (action >> _TARGET_SHIFT) & 15


def action_uno(action: int) -> bool:
    """Whether a play calls UNO with it."""
    return bool(action & UNO_FLAG)


def action_extra_count(action: int) -> int:
    """How many cards are played together with the first one (multi-play)."""
    return (action >> _EXTRA_SHIFT) & 7


MAX_SEATS = 10
"""The most seats a game has (the text form writes a seat as one digit)."""

BARE: dict[int, tuple[int, int]] = {
    _pack(player, kind): (player, kind)
    for player in range(MAX_SEATS)
    for kind in (DRAW, PASS, CHALLENGE, UNO, NEXT_ROUND, SLAP, SAY)
}
"""Each action without arguments (``draw``, ``pass``, ``challenge``, ``uno``, ``next``,
``slap``, ``say``) of every seat: its seat and type. A table for the engine's hot path,
where a lookup is cheaper than decoding the bits."""


def is_valid_encoding(action: object) -> bool:
    """Whether an object is an int that :func:`format_action` can write."""
    if not isinstance(action, int) or isinstance(action, bool) or action < 0:
        return False
    if action >> _MAX_BITS:
        return False
    try:
        format_action(action)
    except ActionCodeError:
        return False
    return True


def format_action(action: int) -> str:
    """The text form of an action; :func:`parse_action` reads it back."""
    if (not isinstance(action, int) or isinstance(action, bool) or action < 0
            or action >> _MAX_BITS):
        raise ActionCodeError(f"{action!r} does not encode an action")
    parts = describe(action)
    if parts.player > 9 or (parts.target is not None and parts.target > 9):
        raise ActionCodeError(f"{action} names a seat above 9")
    head = f"{parts.player}:"
    kind = action_type(action)
    args = action & ~(15 | (15 << 4) | UNO_FLAG)
    unused_high = action >> _EXTRA_COLORS_SHIFT >> (2 * len(parts.extra))
    try:
        if kind == PLAY and parts.card is not None and not unused_high:
            if parts.extra and (parts.card >= 64 or parts.card % 16 > 9):
                raise ActionCodeError(f"{action}: only number cards are played together")
            if parts.card < 64 and parts.color is not None:
                raise ActionCodeError(f"{action}: only a wild takes a colour")
            text = ",".join(card_code(c) for c in (parts.card, *parts.extra))
            if parts.color is not None:
                text += ">" + COLOR_LETTERS[parts.color]
            if parts.target is not None:
                text += f"@{parts.target}"
            if parts.give is not None:
                text += "/" + card_code(parts.give)
            return head + text + ("!" if parts.uno else "")
        if parts.uno:
            raise ActionCodeError(f"{action} has an UNO flag on a {parts.type}")
        if action >> _GIVE_SHIFT:
            raise ActionCodeError(f"{action} has play arguments on a {parts.type}")
        if kind in (DRAW, PASS, CHALLENGE, UNO, NEXT_ROUND, SLAP, SAY) and args == _EMPTY_ARGS:
            return head + parts.type
        if (kind == GIVE and parts.card is not None and parts.color is None
                and parts.target is None):
            return f"{head}give {card_code(parts.card)}"
        no_card = parts.card is None
        if kind == CATCH and parts.target is not None and no_card and parts.color is None:
            return f"{head}catch {parts.target}"
        if kind == COLOR and parts.color is not None and no_card and parts.target is None:
            return f"{head}color {COLOR_LETTERS[parts.color]}"
    except (CardCodeError, IndexError):
        pass
    raise ActionCodeError(f"{action} does not encode an action")


def _is_seat(text: str) -> bool:
    """Whether ``text`` is a seat number 0-9 in ASCII digits."""
    return text.isascii() and text.isdigit() and len(text) <= 2 and int(text) <= 9


def parse_action(text: str) -> int:
    """The action of a text form such as ``"0:W+4>B"`` or ``"2:catch 0"``.

    Raises:
        ActionCodeError: the text is not an action.
    """
    if not isinstance(text, str):
        raise ActionCodeError(f"expected text, got {text!r}")
    seat, sep, body = text.strip().partition(":")
    if not sep or not _is_seat(seat):
        raise ActionCodeError(f"{text!r}: expected SEAT:ACTION, e.g. '0:R5'")
    player = int(seat)
    body = body.strip()
    try:
        if body in _SIMPLE:
            return _pack(player, _SIMPLE[body])
        if body.startswith("catch "):
            target = body[6:].strip()
            if _is_seat(target):
                return catch(player, int(target))
            raise ActionCodeError(f"{text!r}: catch needs a seat number")
        if body.startswith("color "):
            return choose_color(player, parse_color(body[6:].strip()))
        if body.startswith("say"):
            return say(player)
        if body.startswith("give "):
            return give_back(player, parse_card(body[5:].strip()))
        uno = body.endswith("!")
        body = body.removesuffix("!")
        given: int | None = None
        if "/" in body:
            body, _, given_code = body.partition("/")
            given = parse_card(given_code)
        seat_to: int | None = None
        if "@" in body:
            body, _, seat_text = body.partition("@")
            if not _is_seat(seat_text):
                raise ActionCodeError(f"{text!r}: bad target seat {seat_text!r}")
            seat_to = int(seat_text)
        color: int | None = None
        if ">" in body:
            body, _, letter = body.partition(">")
            color = parse_color(letter)
        cards = [parse_card(code) for code in body.split(",")]
        return play(player, cards[0], color=color, target=seat_to, uno=uno, give=given,
                    extra=tuple(cards[1:]))
    except CardCodeError as exc:
        raise ActionCodeError(f"{text!r}: {exc}") from None
