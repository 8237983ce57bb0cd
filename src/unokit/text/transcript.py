"""Readable transcripts: one plain English line per event, as one viewer may see it.

:func:`describe_event` first passes the event through :func:`~unokit.engine.events.redact`, so
a seat's transcript never shows cards that seat may not see: a spectator reads
"Bob draws 1 card.", Bob himself reads "Bob draws 1 card: G7.". The text is
deterministic; ``markup=True`` adds rich console markup that colours card codes.
Names are passed through :func:`~unokit.text.safe.display_name` (no control character,
a length limit) and escaped under ``markup=True``; print the lines with Rich's
``emoji=False``, so that a name like ``:smile:`` shows as typed.

>>> from unokit.engine.events import Event, EventKind
>>> names = ["Alice", "Bob", "Cara", "Dan"]
>>> drew = Event(12, EventKind.DREW, player=1, cards=(34,), amount=1, reason="turn",
...              visible_to=(1,))
>>> describe_event(drew, names=names)
'Bob draws 1 card.'
>>> describe_event(drew, viewer=1, names=names)
'Bob draws 1 card: G2.'
>>> describe_event(Event(13, EventKind.PLAYED, player=3, card=65, color=3), names=names)
'Dan plays W+4 and names blue.'
>>> describe_event(drew, viewer=EVERYONE, names=names)
'Bob draws 1 card: G2.'

The lines are English unless ``language`` is given: a gettext catalogue (as
:func:`unokit.i18n.translations` returns), for the terminal game; the transcripts of the
command line, the records and the golden files stay English.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, Literal, Protocol

from unokit.engine.cards import CODES, COLOR_OF, NO_COLOR, RANK_OF, WILD
from unokit.engine.events import Event, EventKind, redact
from unokit.text.safe import display_name, display_text

EVERYONE: Final = "everyone"
"""A viewer who sees every card (for tests, golden files and debugging)."""

Viewer = int | None | Literal["everyone"]
"""A seat, ``None`` for a spectator, or :data:`EVERYONE`."""

def N_(message: str) -> str:
    """Mark ``message`` for the catalogue (it is translated where it is shown)."""
    return message


class Language(Protocol):
    """A catalogue: what :func:`describe_event` needs of a :class:`gettext.NullTranslations`."""

    def gettext(self, message: str, /) -> str: ...  # pragma: no cover - protocol

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...  # pragma: no cover


class _English:
    """The source language: every message as it is."""

    def gettext(self, message: str, /) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        return singular if n == 1 else plural


ENGLISH: Final = _English()

COLOR_NAMES = (N_("red"), N_("yellow"), N_("green"), N_("blue"))
"""Colour names by colour number."""

_STYLES = ("bold red", "bold yellow", "bold green", "bold blue")
_WILD_STYLE = "bold magenta"

DRAW_REASONS: dict[str, str] = {
    "turn": "",
    "draw_two": N_("Draw Two"),
    "wild_draw_four": N_("Wild Draw Four"),
    "challenge_guilty": N_("guilty Wild Draw Four"),
    "challenge_innocent": N_("lost challenge"),
    "uno_penalty": N_("missed UNO call"),
    "misplay": N_("misplay"),
    "false_catch": N_("false catch"),
    "refill": N_("refill"),
    "draw_ten": N_("+10"),
    "downpour": N_("Downpour"),
    "slap": N_("last to slap"),
    "silence": N_("broke the silence"),
    "hit_two": N_("Hit 2"),
    "all_hit": N_("Wild All Hit"),
    "hit_fire": N_("Wild Hit-Fire"),
}
"""Why cards are drawn, as shown in brackets after the count (empty: nothing shown)."""


_RANK_NAMES: dict[int, str] = {
    10: N_("Skip"),
    11: N_("Reverse"),
    12: N_("Draw Two"),
    13: N_("Hit 2"),
    14: N_("Discard All"),
    15: N_("Trade Hands"),
}
"""The names of the coloured action ranks (the number ranks are their digit)."""

_WILD_NAMES = (N_("Wild"), N_("Wild Draw Four"), N_("Blank wild"), N_("Wild Swap Hands"),
               N_("Wild Shuffle Hands"), N_("Wild Downpour 1"), N_("Wild Downpour 2"),
               N_("Wild All Hit"), N_("Wild Hit-Fire"))
"""The names of the wild cards, in the order of their kinds from ``WILD``."""

# TRANSLATORS: a coloured card's name: its colour ("red") and its value ("7", "Skip").
_COLOURED_CARD = N_("{colour} {value}")


def card_name(kind: int, language: Language | None = None) -> str:
    """A card's name as players say it, in ``language`` (English by default).

    >>> from unokit.engine.cards import parse_card
    >>> [card_name(parse_card(code)) for code in ("G2", "RS", "B+2", "W", "W+4", "YDA")]
    ['green 2', 'red Skip', 'blue Draw Two', 'Wild', 'Wild Draw Four', 'yellow Discard All']
    """
    lang = ENGLISH if language is None else language
    if not 0 <= kind < len(CODES) or not CODES[kind]:
        return f"#{kind}"
    if kind >= WILD:
        return lang.gettext(_WILD_NAMES[kind - WILD])
    rank = RANK_OF[kind]
    value = lang.gettext(_RANK_NAMES[rank]) if rank in _RANK_NAMES else str(rank)
    return lang.gettext(_COLOURED_CARD).format(
        colour=lang.gettext(COLOR_NAMES[COLOR_OF[kind]]), value=value)


def seat_names(count: int, names: Sequence[str] | None = None) -> list[str]:
    """``names`` if given (padded with ``Seat N`` for missing seats), else ``Seat N``;
    each made safe to print (:func:`~unokit.text.safe.display_name`)."""
    given = [display_name(name) for name in list(names or [])[:count]]
    return given + [f"Seat {seat}" for seat in range(len(given), count)]


class _Writer:
    """Formats the parts of a line: names, cards and colours, with or without markup."""

    def __init__(self, names: Sequence[str] | None, markup: bool,
                 language: Language = ENGLISH, card_names: bool = False) -> None:
        self.names = list(names or [])
        self.markup = markup
        self.language = language
        self.card_names = card_names
        self._escape: Callable[[str], str] = _identity
        if markup:
            from rich.markup import escape

            self._escape = escape

    def _(self, message: str, /, **params: object) -> str:
        """``message`` in the writer's language, its placeholders filled."""
        text = self.language.gettext(message)
        return text.format(**params) if params else text

    def ngettext(self, singular: str, plural: str, n: int, /, **params: object) -> str:
        """The form for ``n`` in the writer's language; ``{n}`` is ``n``."""
        return self.language.ngettext(singular, plural, n).format(n=n, **params)

    def ordinal(self, number: int) -> str:
        """``2nd`` (in English; the catalogue's ``{n}th`` in another language)."""
        text = self.language.gettext("{n}th")
        return _ordinal(number) if text == "{n}th" else text.format(n=number)

    def reason(self, reason: str) -> str:
        """Why cards are drawn (:data:`DRAW_REASONS`), in the writer's language."""
        why = DRAW_REASONS.get(reason, reason.replace("_", " "))
        return self._(why) if why in DRAW_REASONS.values() and why else why

    def who(self, seat: int) -> str:
        if seat < 0:
            return self._("nobody")
        name = self.names[seat] if seat < len(self.names) else self._("Seat {seat}",
                                                                       seat=seat)
        return self._escape(display_name(name))

    def text(self, value: str) -> str:
        """Other text of the event (what a seat says), made safe and escaped."""
        return self._escape(display_text(value, 200))

    def card(self, kind: int) -> str:
        code = CODES[kind] if 0 <= kind < len(CODES) and CODES[kind] else f"#{kind}"
        if self.card_names:
            code = card_name(kind, self.language)
        if not self.markup:
            return code
        color = COLOR_OF[kind] if 0 <= kind < len(COLOR_OF) else NO_COLOR
        style = _STYLES[color] if color != NO_COLOR else _WILD_STYLE
        return f"[{style}]{self._escape(code)}[/]"

    def cards(self, kinds: Iterable[int]) -> str:
        return (", " if self.card_names else " ").join(self.card(kind) for kind in kinds)

    def color(self, color: int) -> str:
        name = self._(COLOR_NAMES[color] if 0 <= color < 4 else "no colour")
        if not self.markup or not 0 <= color < 4:
            return name
        return f"[{_STYLES[color]}]{name}[/]"

    def scores(self, values: Sequence[Any]) -> str:
        return ", ".join(f"{self.who(seat)} {value}" for seat, value in enumerate(values))


def _identity(text: str) -> str:
    return text


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        number % 10, "th")
    return f"{number}{suffix}"


def describe_event(
    event: Event,
    viewer: Viewer = None,
    names: Sequence[str] | None = None,
    *,
    markup: bool = False,
    language: Language = ENGLISH,
    card_names: bool = False,
) -> str:
    """One line describing ``event`` as ``viewer`` may see it.

    Args:
        event: the event.
        viewer: a seat, ``None`` for a spectator (public information only), or
            :data:`EVERYONE` to show every card.
        names: a name for each seat (default ``Seat 0``, ``Seat 1``, ...).
        markup: add rich console markup (coloured card codes); names are escaped.
        language: the catalogue of the line's language (English by default).
        card_names: name the cards (:func:`card_name`, "green 2, Wild Draw Four")
            instead of giving their codes ("G2 W+4").

    >>> from unokit.engine.events import Event, EventKind
    >>> describe_event(Event(13, EventKind.PLAYED, player=0, card=65, color=3),
    ...                names=["Ann"], card_names=True)
    'Ann plays Wild Draw Four and names blue.'
    """
    if viewer != EVERYONE:
        event = redact(event, viewer if isinstance(viewer, int) else None)
    w = _Writer(names, markup, language, card_names)
    handler = _HANDLERS.get(event.kind)
    if handler is None:
        return w._("{kind} (event {seq}).", kind=event.kind.value, seq=event.seq)
    return handler(event, w)


def transcript(
    events: Iterable[Event],
    viewer: Viewer = None,
    names: Sequence[str] | None = None,
    *,
    markup: bool = False,
    language: Language = ENGLISH,
) -> list[str]:
    """:func:`describe_event` for every event, in order."""
    return [describe_event(event, viewer, names, markup=markup, language=language)
            for event in events]


# ------------------------------------------------------------------ handlers
def _round_started(e: Event, w: _Writer) -> str:
    return w._("Round {n}: {who} deals.", n=e.amount, who=w.who(e.player))


def _dealer_draw(e: Event, w: _Writer) -> str:
    return w._("{who} draws {card} to choose the dealer.", who=w.who(e.player),
               card=w.card(e.card))


def _dealt(e: Event, w: _Writer) -> str:
    if e.cards:
        return w.ngettext("{who} is dealt {n} card: {cards}.",
                          "{who} is dealt {n} cards: {cards}.", e.amount,
                          who=w.who(e.player), cards=w.cards(e.cards))
    return w.ngettext("{who} is dealt {n} card.", "{who} is dealt {n} cards.", e.amount,
                      who=w.who(e.player))


def _start_card(e: Event, w: _Writer) -> str:
    return w._("The start card is {card}.", card=w.card(e.card))


def _put_back(e: Event, w: _Writer) -> str:
    return w._("The start card {card} goes back and the draw pile is reshuffled.",
               card=w.card(e.card))


def _reshuffled(e: Event, w: _Writer) -> str:
    return w.ngettext("The discard pile is shuffled into a new draw pile of {n} card.",
                      "The discard pile is shuffled into a new draw pile of {n} cards.",
                      e.amount)


def _played(e: Event, w: _Writer) -> str:
    text = w._("{who} plays {card}", who=w.who(e.player), card=w.card(e.card))
    if e.cards:
        text += w._(" with {cards}", cards=w.cards(e.cards))
    if e.color >= 0:
        text += w._(" and names {color}", color=w.color(e.color))
    if e.target >= 0:
        text += w._(", choosing {who}", who=w.who(e.target))
    return text + "."


def _drew(e: Event, w: _Writer) -> str:
    why = w.reason(e.reason)
    who = w.who(e.player)
    if e.amount == 0:
        if why:
            return w._("{who} draws no card (nothing left to draw; {why}).", who=who, why=why)
        return w._("{who} draws no card (nothing left to draw).", who=who)
    text = w.ngettext("{who} draws {n} card", "{who} draws {n} cards", e.amount, who=who)
    if why:
        text += f" ({why})"
    return f"{text}: {w.cards(e.cards)}." if e.cards else f"{text}."


def _passed(e: Event, w: _Writer) -> str:
    return w._("{who} keeps the drawn card.", who=w.who(e.player))


def _skipped(e: Event, w: _Writer) -> str:
    return w._("{who} is skipped.", who=w.who(e.player))


def _reversed(e: Event, w: _Writer) -> str:
    if e.amount >= 0:
        return w._("Play reverses: now clockwise.")
    return w._("Play reverses: now counter-clockwise.")


def _color_chosen(e: Event, w: _Writer) -> str:
    return w._("{who} names {color}.", who=w.who(e.player), color=w.color(e.color))


def _uno_called(e: Event, w: _Writer) -> str:
    return w._("{who} calls UNO!", who=w.who(e.player))


def _caught(e: Event, w: _Writer) -> str:
    return w._("{who} catches {target}, who did not call UNO!", who=w.who(e.player),
               target=w.who(e.target))


def _false_catch(e: Event, w: _Writer) -> str:
    return w._("{who} tries to catch {target}, who cannot be caught.", who=w.who(e.player),
               target=w.who(e.target))


def _misplayed(e: Event, w: _Writer) -> str:
    return w._("{who} tries to play {card}, which does not match.", who=w.who(e.player),
               card=w.card(e.card))


def _challenged(e: Event, w: _Writer) -> str:
    if e.reason == "guilty":
        return w._("{who} challenges {target}'s Wild Draw Four: {target} is guilty!",
                   who=w.who(e.player), target=w.who(e.target))
    return w._("{who} challenges {target}'s Wild Draw Four: {target} is innocent.",
               who=w.who(e.player), target=w.who(e.target))


def _hand_shown(e: Event, w: _Writer) -> str:
    if e.cards:
        return w._("{target} shows the hand to {who}: {cards}.", target=w.who(e.target),
                   who=w.who(e.player), cards=w.cards(e.cards))
    return w.ngettext("{target} shows the hand to {who} ({n} card).",
                      "{target} shows the hand to {who} ({n} cards).", e.amount,
                      target=w.who(e.target), who=w.who(e.player))


def _took_back(e: Event, w: _Writer) -> str:
    return w._("{who} takes {card} back; the colour is {color} again.", who=w.who(e.player),
               card=w.card(e.card), color=w.color(e.color))


def _went_out(e: Event, w: _Writer) -> str:
    if e.amount > 1:
        return w._("{who} goes out, {place}.", who=w.who(e.player),
                   place=w.ordinal(e.amount))
    return w._("{who} goes out!", who=w.who(e.player))


def _refilled(e: Event, w: _Writer) -> str:
    return w._("{who} empties the hand and goes on at level {level}.", who=w.who(e.player),
               level=e.amount)


def _round_ended(e: Event, w: _Writer) -> str:
    data = e.data if isinstance(e.data, dict) else {}
    number = data.get("round", "?")
    points = list(data.get("points", []))
    scores = list(data.get("scores", []))
    winner = e.player
    if data.get("blocked"):
        text = w._("Round {n} is blocked: {who} has the lowest hand and wins", n=number,
                   who=w.who(winner))
    else:
        text = w._("Round {n} ends: {who} wins", n=number, who=w.who(winner))
    won = points[winner] if 0 <= winner < len(points) else 0
    others = [p for seat, p in enumerate(points) if seat != winner and p not in (0, won)]
    if won > 0 and not others:
        text += w.ngettext(" {n} point", " {n} points", won)
    elif any(points):
        text += w._(". Points: {points}", points=w.scores(points))
    if e.target >= 0:
        text += w._("; {who} loses the round", who=w.who(e.target))
    return text + (w._(". Scores: {scores}.", scores=w.scores(scores)) if scores else ".")


def _match_ended(e: Event, w: _Writer) -> str:
    data = e.data if isinstance(e.data, dict) else {}
    scores = list(data.get("scores", []))
    text = w._("The match is over: {who} wins", who=w.who(e.player))
    return text + (w._(". Final scores: {scores}.", scores=w.scores(scores)) if scores
                   else ".")


def _eliminated(e: Event, w: _Writer) -> str:
    return w._("{who} reaches the target score and is out of the match.",
               who=w.who(e.player))


def _hands_swapped(e: Event, w: _Writer) -> str:
    return w._("{who} and {target} swap hands.", who=w.who(e.player), target=w.who(e.target))


def _hands_rotated(e: Event, w: _Writer) -> str:
    return w._("Every hand passes to the next player.")


def _hands_shuffled(e: Event, w: _Writer) -> str:
    return w._("All hands are gathered, shuffled and dealt out again.")


def _gave(e: Event, w: _Writer) -> str:
    if e.cards:
        return w._("{who} gives {target} a card: {cards}.", who=w.who(e.player),
                   target=w.who(e.target), cards=w.cards(e.cards))
    return w._("{who} gives {target} a card.", who=w.who(e.player), target=w.who(e.target))


def _slap_started(e: Event, w: _Writer) -> str:
    return w._("{who} called UNO: everyone slaps the table!", who=w.who(e.player))


def _slapped(e: Event, w: _Writer) -> str:
    return w._("{who} slaps.", who=w.who(e.player))


def _said(e: Event, w: _Writer) -> str:
    if not e.reason:
        return w._("{who} speaks.", who=w.who(e.player))
    return w._("{who} says {words}.", who=w.who(e.player), words=w.text(repr(e.reason)))


def _silence(e: Event, w: _Writer) -> str:
    if e.amount == 0:
        return w._("The silence ends.")
    return w._("Silence ({why})! Nobody may speak.", why=e.reason)


def _pressed(e: Event, w: _Writer) -> str:
    why = w.reason(e.reason)
    who = w.who(e.player)
    if e.target > 0:
        text = w.ngettext("{who} presses the launcher {n} time",
                          "{who} presses the launcher {n} times", e.target, who=who)
    else:
        text = w._("{who} presses the launcher once", who=who)
    text += f" ({why})" if why else ""
    if not e.amount:
        return text + w._(": nothing comes out.")
    out = w.ngettext(": {n} card come out", ": {n} cards come out", e.amount)
    return text + (f"{out}: {w.cards(e.cards)}." if e.cards else out + ".")


def _discarded(e: Event, w: _Writer) -> str:
    return w._("{who} discards {cards} with it.", who=w.who(e.player), cards=w.cards(e.cards))


def _repeated(e: Event, w: _Writer) -> str:
    return w.ngettext("The same position has come back {n} time: the round cannot be sure "
                      "to end and is blocked.",
                      "The same position has come back {n} times: the round cannot be sure "
                      "to end and is blocked.", e.amount)


def _penalty(e: Event, w: _Writer) -> str:
    return w.ngettext("{who} faces {n} card to draw.", "{who} faces {n} cards to draw.",
                      e.amount, who=w.who(e.player))


_HANDLERS: dict[EventKind, Callable[[Event, _Writer], str]] = {
    EventKind.ROUND_STARTED: _round_started,
    EventKind.DEALER_DRAW: _dealer_draw,
    EventKind.DEALT: _dealt,
    EventKind.START_CARD: _start_card,
    EventKind.PUT_BACK: _put_back,
    EventKind.RESHUFFLED: _reshuffled,
    EventKind.PLAYED: _played,
    EventKind.DREW: _drew,
    EventKind.PASSED: _passed,
    EventKind.SKIPPED: _skipped,
    EventKind.REVERSED: _reversed,
    EventKind.COLOR_CHOSEN: _color_chosen,
    EventKind.UNO_CALLED: _uno_called,
    EventKind.CAUGHT: _caught,
    EventKind.FALSE_CATCH: _false_catch,
    EventKind.MISPLAYED: _misplayed,
    EventKind.CHALLENGED: _challenged,
    EventKind.HAND_SHOWN: _hand_shown,
    EventKind.TOOK_BACK: _took_back,
    EventKind.WENT_OUT: _went_out,
    EventKind.REFILLED: _refilled,
    EventKind.ROUND_ENDED: _round_ended,
    EventKind.MATCH_ENDED: _match_ended,
    EventKind.ELIMINATED: _eliminated,
    EventKind.HANDS_SWAPPED: _hands_swapped,
    EventKind.HANDS_ROTATED: _hands_rotated,
    EventKind.HANDS_SHUFFLED: _hands_shuffled,
    EventKind.GAVE: _gave,
    EventKind.SLAP_STARTED: _slap_started,
    EventKind.SLAPPED: _slapped,
    EventKind.SAID: _said,
    EventKind.SILENCE: _silence,
    EventKind.PENALTY: _penalty,
    EventKind.PRESSED: _pressed,
    EventKind.DISCARDED: _discarded,
    EventKind.REPEATED: _repeated,
}


__all__ = [
    "COLOR_NAMES",
    "DRAW_REASONS",
    "ENGLISH",
    "EVERYONE",
    "Language",
    "Viewer",
    "describe_event",
    "seat_names",
    "transcript",
]
