"""The checks a saved state passes before a game is built from it.

A state comes from outside (a file, a database, a client), so nothing in it is trusted:
:func:`read_fields` checks each field on its own (its type, its length per seat, its
range), and :func:`check_state` then checks that the fields fit together: the cards, the
seats, the counters and the phase. Every violation raises
:class:`~unokit.engine.errors.SetupError` with a message that starts with the field's
name; a state that passes plays on without a crash or a loop.

>>> from unokit import Game
>>> data = Game("official,players=3", seed=7).to_dict()
>>> data["direction"] = 0
>>> Game.from_dict(data)
Traceback (most recent call last):
...
unokit.engine.errors.SetupError: direction: expected 1 or -1, got 0
>>> data["direction"], data["active"] = 1, [False, False, False]
>>> Game.from_dict(data)
Traceback (most recent call last):
...
unokit.engine.errors.SetupError: active: 0 seats are in the round: a round needs two
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from unokit.engine.cards import CODES, DRAW_TWO, NUM_KINDS, WILD_DRAW_FOUR, parse_card
from unokit.engine.errors import SetupError, UnoError
from unokit.engine.phases import (
    CHALLENGE,
    CHOOSE_COLOR,
    DRAWN,
    EXCHANGE,
    MATCH_OVER,
    RESPOND,
    ROUND_OVER,
    SLAP,
    Phase,
)

if TYPE_CHECKING:
    from unokit.engine.game import Game

Reader = Callable[[str, Any, int], Any]
"""Checks one field's value and returns it as the game keeps it: ``(name, value, n)``,
``n`` the number of seats."""

_ROUND_OFF = (ROUND_OVER, MATCH_OVER)
_MAX_STATE_INT = 2**64
"""Counters above this are not from a game (the digits would only cost time)."""


# ------------------------------------------------------------------ one field
def short_repr(value: Any) -> str:
    """``value`` for a message: at most 40 characters, a container by its size.

    >>> short_repr("R5"), short_repr([1, 2, 3]), short_repr(10**5000)
    ("'R5'", 'a list of 3', 'an integer of 16610 bits')
    """
    if isinstance(value, list | tuple | dict):
        return f"a {type(value).__name__} of {len(value)}"
    if _is_int(value) and value.bit_length() > 128:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, str) and len(value) > 40:
        value = value[:37]
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # pragma: no cover - exotic objects
        return f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(value: Any) -> bool:
    return type(value) is int  # not a bool, not a float


def _int(low: int, high: int) -> Reader:
    """An integer ``low <= value < high``."""
    def read(name: str, value: Any, n: int) -> int:
        if not _is_int(value) or not low <= value < high:
            raise SetupError(f"{name}: expected an integer {low}..{high - 1}, "
                             f"got {short_repr(value)}")
        return int(value)
    return read


def _count(name: str, value: Any, n: int) -> int:
    if not _is_int(value) or not 0 <= value < _MAX_STATE_INT:
        raise SetupError(f"{name}: expected a count >= 0, got {short_repr(value)}")
    return int(value)


def _score(name: str, value: Any, n: int) -> int:
    if not _is_int(value) or not -_MAX_STATE_INT < value < _MAX_STATE_INT:
        raise SetupError(f"{name}: expected an integer, got {short_repr(value)}")
    return int(value)


def _bool(name: str, value: Any, n: int) -> bool:
    if type(value) is not bool:
        raise SetupError(f"{name}: expected true or false, got {short_repr(value)}")
    return value


def _seat(name: str, value: Any, n: int) -> int:
    if not _is_int(value) or not 0 <= value < n:
        raise SetupError(f"{name}: expected a seat 0..{n - 1}, got {short_repr(value)}")
    return int(value)


def _seat_or_none(name: str, value: Any, n: int) -> int:
    if not _is_int(value) or not -1 <= value < n:
        raise SetupError(f"{name}: expected a seat 0..{n - 1} or -1, got {short_repr(value)}")
    return int(value)


def _color_or_none(name: str, value: Any, n: int) -> int:
    if not _is_int(value) or not -1 <= value <= 3:
        raise SetupError(f"{name}: expected a colour 0..3 or -1, got {short_repr(value)}")
    return int(value)


def _direction(name: str, value: Any, n: int) -> int:
    if not _is_int(value) or value not in (1, -1):
        raise SetupError(f"{name}: expected 1 or -1, got {short_repr(value)}")
    return int(value)


def _phase(name: str, value: Any, n: int) -> Phase:
    try:
        return Phase(value)
    except (ValueError, TypeError):
        names = ", ".join(phase.value for phase in Phase)
        raise SetupError(f"{name}: expected one of {names}, got {short_repr(value)}") from None


_KIND_OF_CODE = {code: kind for kind, code in enumerate(CODES) if code}


def _card(name: str, value: Any) -> int:
    try:
        return parse_card(value)
    except UnoError:
        raise SetupError(f"{name}: {short_repr(value)} is not a card code") from None


def _cards(name: str, value: Any, n: int) -> list[int]:
    if not isinstance(value, list):
        raise SetupError(f"{name}: expected a list of card codes, got {short_repr(value)}")
    kinds = _KIND_OF_CODE
    try:
        return [kinds[code] for code in value]
    except (KeyError, TypeError):  # find the culprit for the message
        return [_card(f"{name}[{i}]", code) for i, code in enumerate(value)]


def _card_or_none(name: str, value: Any, n: int) -> int:
    return -1 if value is None else _card(name, value)


def _kind_or_none(name: str, value: Any, n: int) -> int:
    """A card kind as a number (``match``, ``wd4_match``), -1 for none."""
    if not _is_int(value) or not -1 <= value < NUM_KINDS:
        raise SetupError(f"{name}: expected a card number 0..{NUM_KINDS - 1} or -1, "
                         f"got {short_repr(value)}")
    return int(value)


def _pending_kind(name: str, value: Any, n: int) -> int:
    if not _is_int(value) or value not in (-1, DRAW_TWO, WILD_DRAW_FOUR):
        raise SetupError(f"{name}: expected -1, {DRAW_TWO} (Draw Two) or {WILD_DRAW_FOUR} "
                         f"(Wild Draw Four), got {short_repr(value)}")
    return int(value)


def _list(name: str, value: Any, length: int | None) -> list[Any]:
    if not isinstance(value, list):
        raise SetupError(f"{name}: expected a list, got {short_repr(value)}")
    if length is not None and len(value) != length:
        raise SetupError(f"{name}: expected {length} entries (one per seat), got {len(value)}")
    return value


def _per_seat(item: Reader) -> Reader:
    """A list of one value per seat, each read by ``item``."""
    def read(name: str, value: Any, n: int) -> list[Any]:
        values = _list(name, value, n)
        try:
            return [item(name, v, n) for v in values]
        except SetupError:  # read again, naming each entry, for the message
            return [item(f"{name}[{i}]", v, n) for i, v in enumerate(values)]
    return read


def _seat_set(name: str, value: Any, n: int) -> list[int]:
    """Seats, each at most once (``finish_order``, ``slap_left``)."""
    seats = [_seat(f"{name}[{i}]", v, n) for i, v in enumerate(_list(name, value, None))]
    if len(set(seats)) != len(seats):
        raise SetupError(f"{name}: a seat is listed twice in {seats}")
    return seats


def _counts(name: str, value: Any, n: int) -> list[int]:
    return [_count(f"{name}[{i}]", v, n) for i, v in enumerate(_list(name, value, None))]


def _positions(name: str, value: Any, n: int) -> dict[str, int]:
    """The repetition counts of a state (digest -> count)."""
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and _is_int(v) and 0 < v < _MAX_STATE_INT
            for k, v in value.items()):
        raise SetupError(f"{name}: positions must map position digests to counts above 0")
    return dict(value)


READERS: dict[str, Reader] = {
    "seed": _int(0, 2**64),
    "deck": _cards,
    "hands": _per_seat(_cards),
    "draw_pile": _cards,
    "discard": _cards,
    "color": _color_or_none,
    "direction": _direction,
    "current": _seat_or_none,
    "phase": _phase,
    "dealer": _seat,
    "drawn": _card_or_none,
    "pending": _count,
    "wd4_by": _seat_or_none,
    "wd4_guilty": _bool,
    "wd4_color": _color_or_none,
    "uno_open": _seat_or_none,
    "active": _per_seat(_bool),
    "in_match": _per_seat(_bool),
    "finish_order": _seat_set,
    "levels": _per_seat(_count),
    "idle": _count,
    "scores": _per_seat(_score),
    "round_no": _count,
    "round_wins": _per_seat(_count),
    "round_losses": _per_seat(_count),
    "round_winner": _seat_or_none,
    "round_loser": _seat_or_none,
    "round_points": _per_seat(_score),
    "match_winner": _seat_or_none,
    "seq": _count,
    "first_next": _seat_or_none,
    "final_round": _bool,
    "match": _kind_or_none,
    "pending_kind": _pending_kind,
    "wd4_match": _kind_or_none,
    "skip_from": _seat_or_none,
    "fresh": _bool,
    "exchange_from": _seat_or_none,
    "slap_left": _seat_set,
    "resume_current": _seat_or_none,
    "resume_phase": _phase,
    "silence_seat": _seat_or_none,
    "silence_color": _color_or_none,
    "launcher": _counts,
    "positions": _positions,
}
"""The reader of every state field (:data:`unokit.engine.game.STATE_FIELDS`)."""


def read_fields(data: Mapping[str, Any], names: tuple[str, ...], n: int) -> dict[str, Any]:
    """The fields ``names`` of ``data``, each checked on its own, as the game keeps them."""
    return {name: READERS[name](name, data[name], n) for name in names}


def read_rng_state(value: Any) -> int:
    """The generator's state: a 64-bit unsigned integer."""
    return int(_int(0, 2**64)("rng_state", value, 0))


# ------------------------------------------------------------ fields together
def check_state(game: Game) -> None:
    """Whether the fields of ``game`` (each already read) fit together.

    Raises:
        SetupError: naming the first field that does not fit.
    """
    check_deck(game)
    check_cards_in_play(game)
    check_counters(game)
    check_seats(game)
    check_turn(game)
    check_phase(game)
    check_results(game)


def _code_count(count: int, kind: int) -> str:
    return f"{count} {CODES[kind]}"


def check_deck(game: Game) -> None:
    """``deck`` is in canonical order and holds only cards of the rules' deck, each at
    most as often as that deck does (a state may hold fewer cards, as a position set up
    with :meth:`~unokit.Game.from_setup` does)."""
    deck = game.deck
    full = game.rules.deck_cards()
    if deck == full:
        return
    if deck != sorted(deck):
        raise SetupError("deck: the cards are not in canonical order")
    allowed = Counter(full)
    for kind, count in Counter(deck).items():
        if kind not in allowed:
            raise SetupError(f"deck: {CODES[kind]} is not a card of the rules' deck "
                             f"({game.rules.deck})")
        if count > allowed[kind]:
            raise SetupError(f"deck: {_code_count(count, kind)}, but the rules' deck has "
                             f"{allowed[kind]}")


def check_cards_in_play(game: Game) -> None:
    """The hands, the draw pile and the discard pile hold every card of ``deck``, each
    exactly once."""
    cards = game.draw_pile + game.discard
    for hand in game.hands:
        cards += hand
    cards.sort()
    if cards == game.deck:  # both in canonical order
        return
    deck, held = Counter(game.deck), Counter(cards)
    total = len(cards)
    if total != len(game.deck):
        raise SetupError(f"deck: {len(game.deck)} cards, but the hands, draw_pile and "
                         f"discard hold {total}")
    kind = min(k for k in held.keys() | deck.keys() if held[k] != deck[k])
    raise SetupError(f"deck: {_code_count(deck[kind], kind)}, but the hands, draw_pile "
                     f"and discard hold {held[kind]}")


def check_counters(game: Game) -> None:
    """Levels within the hand size, totals that only a going-out bonus makes negative,
    a round number within ``rounds`` and a pending penalty the deck could ask."""
    rules = game.rules
    for seat, level in enumerate(game.levels):
        if not 1 <= level <= rules.hand_size:
            raise SetupError(f"levels[{seat}]: expected 1..{rules.hand_size} "
                             f"(the hand size), got {level}")
    if not rules.going_out_bonus:  # only a bonus takes points off
        for name in ("scores", "round_points"):
            values = getattr(game, name)
            for seat, value in enumerate(values):
                if value < 0:
                    raise SetupError(f"{name}[{seat}]: {value} is negative, and these "
                                     "rules have no going_out_bonus")
    if game.round_no < 1:
        raise SetupError("round_no: expected 1 or more (a game that has started)")
    if rules.rounds is not None and game.round_no > rules.rounds:
        raise SetupError(f"round_no: {game.round_no} is past the rules' {rules.rounds} rounds")
    if game.pending > 4 * len(game.deck):
        raise SetupError(f"pending: {game.pending} cards is more than the deck can ask")


def check_seats(game: Game) -> None:
    """Seats in the round are in the match, and enough of them play on."""
    playing = sum(game.active)
    if game.phase not in _ROUND_OFF:
        if playing < 2:
            raise SetupError(f"active: {playing} seats are in the round: a round needs two")
        for seat in range(game.n):
            if game.active[seat] and not game.in_match[seat]:
                raise SetupError(f"active[{seat}]: the seat is in the round but not in "
                                 "the match (in_match)")
    elif game.phase is ROUND_OVER and sum(game.in_match) < 2:
        raise SetupError("in_match: fewer than two seats are in a match that goes on")
    if game.first_next >= 0 and not game.in_match[game.first_next]:
        raise SetupError(f"first_next: seat {game.first_next} is not in the match")


def check_turn(game: Game) -> None:
    """Whose turn it is: nobody's between rounds and while a slap is on, otherwise a
    seat in the round."""
    phase, current = game.phase, game.current
    if phase in _ROUND_OFF or phase is SLAP:
        if current != -1:
            raise SetupError(f"current: expected -1 in phase {phase.value}, got {current}")
        return
    if current < 0:
        raise SetupError(f"current: phase {phase.value} needs a current player")
    if not game.active[current]:
        raise SetupError(f"current: seat {current} is not in the round (active)")


def check_phase(game: Game) -> None:
    """The fields the phase relies on. A slap checks the phase it returns to."""
    phase, current = game.phase, game.current
    if phase is SLAP:
        _check_slap(game)
        phase, current = game.resume_phase, game.resume_current
    if phase is DRAWN and game.drawn not in game.hands[current]:
        drawn = CODES[game.drawn] if game.drawn >= 0 else "none"
        raise SetupError(f"drawn: phase drawn needs the drawn card in seat {current}'s "
                         f"hand, got {drawn}")
    if phase is CHOOSE_COLOR and not game.discard:
        raise SetupError("discard: phase choose_color needs a card on the discard pile")
    if phase is RESPOND and (game.pending < 1 or game.pending_kind < 0):
        raise SetupError("pending: phase respond needs a pending penalty (pending, "
                         "pending_kind)")
    if phase is CHALLENGE:
        _check_challenge(game, current)
    if phase is EXCHANGE:
        giver = game.exchange_from
        if giver < 0 or giver == current or not game.active[giver]:
            raise SetupError(f"exchange_from: phase exchange needs the seat that gave a "
                             f"card, another seat in the round, got {giver}")
        if not game.hands[current]:
            raise SetupError(f"hands[{current}]: phase exchange needs a card to give back")


def _check_slap(game: Game) -> None:
    left = game.slap_left
    if len(left) < 2 or not all(game.active[seat] for seat in left):
        raise SetupError(f"slap_left: phase slap needs two or more seats in the round "
                         f"still to slap, got {left}")
    resume, seat = game.resume_phase, game.resume_current
    if resume in _ROUND_OFF or resume is SLAP:
        raise SetupError(f"resume_phase: a slap cannot return to phase {resume.value}")
    if seat < 0 or not game.active[seat]:
        raise SetupError(f"resume_current: a slap must return to a seat in the round, "
                         f"got {seat}")


def _check_challenge(game: Game, current: int) -> None:
    if game.pending < 4 or game.pending_kind != WILD_DRAW_FOUR:
        raise SetupError("pending: phase challenge needs a pending Wild Draw Four "
                         "(pending, pending_kind)")
    if game.wd4_by < 0 or game.wd4_by == current:
        raise SetupError(f"wd4_by: phase challenge needs the seat that played the Wild "
                         f"Draw Four, another seat, got {game.wd4_by}")
    if not game.discard or game.discard[-1] != WILD_DRAW_FOUR:
        raise SetupError("discard: phase challenge needs the Wild Draw Four on top")


def check_results(game: Game) -> None:
    """A finished round has a winner (and, with lazy scoring, a loser); a finished
    match, and only that, has a match winner."""
    phase = game.phase
    if (phase is MATCH_OVER) != (game.match_winner >= 0):
        raise SetupError(f"match_winner: {game.match_winner} does not fit phase "
                         f"{phase.value} (a seat exactly when the match is over)")
    if phase in _ROUND_OFF:
        if game.round_winner < 0:
            raise SetupError(f"round_winner: phase {phase.value} needs the round's winner")
        if game.rules.scoring == "lazy" and game.round_loser < 0:
            raise SetupError(f"round_loser: phase {phase.value} needs the round's loser "
                             "(lazy scoring)")
