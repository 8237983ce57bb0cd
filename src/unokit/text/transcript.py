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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, Literal

from unokit.engine.cards import CODES, COLOR_OF, NO_COLOR
from unokit.engine.events import Event, EventKind, redact
from unokit.text.safe import display_name, display_text

EVERYONE: Final = "everyone"
"""A viewer who sees every card (for tests, golden files and debugging)."""

Viewer = int | None | Literal["everyone"]
"""A seat, ``None`` for a spectator, or :data:`EVERYONE`."""

COLOR_NAMES = ("red", "yellow", "green", "blue")
"""Colour names by colour number."""

_STYLES = ("bold red", "bold yellow", "bold green", "bold blue")
_WILD_STYLE = "bold magenta"

DRAW_REASONS: dict[str, str] = {
    "turn": "",
    "draw_two": "Draw Two",
    "wild_draw_four": "Wild Draw Four",
    "challenge_guilty": "guilty Wild Draw Four",
    "challenge_innocent": "lost challenge",
    "uno_penalty": "missed UNO call",
    "misplay": "misplay",
    "false_catch": "false catch",
    "refill": "refill",
    "draw_ten": "+10",
    "downpour": "Downpour",
    "slap": "last to slap",
    "silence": "broke the silence",
    "hit_two": "Hit 2",
    "all_hit": "Wild All Hit",
    "hit_fire": "Wild Hit-Fire",
}
"""Why cards are drawn, as shown in brackets after the count (empty: nothing shown)."""


def seat_names(count: int, names: Sequence[str] | None = None) -> list[str]:
    """``names`` if given (padded with ``Seat N`` for missing seats), else ``Seat N``;
    each made safe to print (:func:`~unokit.text.safe.display_name`)."""
    given = [display_name(name) for name in list(names or [])[:count]]
    return given + [f"Seat {seat}" for seat in range(len(given), count)]


class _Writer:
    """Formats the parts of a line: names, cards and colours, with or without markup."""

    def __init__(self, names: Sequence[str] | None, markup: bool) -> None:
        self.names = list(names or [])
        self.markup = markup
        self._escape: Callable[[str], str] = _identity
        if markup:
            from rich.markup import escape

            self._escape = escape

    def who(self, seat: int) -> str:
        if seat < 0:
            return "nobody"
        name = self.names[seat] if seat < len(self.names) else f"Seat {seat}"
        return self._escape(display_name(name))

    def text(self, value: str) -> str:
        """Other text of the event (what a seat says), made safe and escaped."""
        return self._escape(display_text(value, 200))

    def card(self, kind: int) -> str:
        code = CODES[kind] if 0 <= kind < len(CODES) and CODES[kind] else f"#{kind}"
        if not self.markup:
            return code
        color = COLOR_OF[kind] if 0 <= kind < len(COLOR_OF) else NO_COLOR
        style = _STYLES[color] if color != NO_COLOR else _WILD_STYLE
        return f"[{style}]{self._escape(code)}[/]"

    def cards(self, kinds: Iterable[int]) -> str:
        return " ".join(self.card(kind) for kind in kinds)

    def color(self, color: int) -> str:
        name = COLOR_NAMES[color] if 0 <= color < 4 else "no colour"
        if not self.markup or not 0 <= color < 4:
            return name
        return f"[{_STYLES[color]}]{name}[/]"

    def scores(self, values: Sequence[Any]) -> str:
        return ", ".join(f"{self.who(seat)} {value}" for seat, value in enumerate(values))


def _identity(text: str) -> str:
    return text


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


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
) -> str:
    """One line describing ``event`` as ``viewer`` may see it.

    Args:
        event: the event.
        viewer: a seat, ``None`` for a spectator (public information only), or
            :data:`EVERYONE` to show every card.
        names: a name for each seat (default ``Seat 0``, ``Seat 1``, ...).
        markup: add rich console markup (coloured card codes); names are escaped.
    """
    if viewer != EVERYONE:
        event = redact(event, viewer if isinstance(viewer, int) else None)
    w = _Writer(names, markup)
    handler = _HANDLERS.get(event.kind)
    if handler is None:
        return f"{event.kind.value} (event {event.seq})."
    return handler(event, w)


def transcript(
    events: Iterable[Event],
    viewer: Viewer = None,
    names: Sequence[str] | None = None,
    *,
    markup: bool = False,
) -> list[str]:
    """:func:`describe_event` for every event, in order."""
    return [describe_event(event, viewer, names, markup=markup) for event in events]


# ------------------------------------------------------------------ handlers
def _round_started(e: Event, w: _Writer) -> str:
    return f"Round {e.amount}: {w.who(e.player)} deals."


def _dealer_draw(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} draws {w.card(e.card)} to choose the dealer."


def _dealt(e: Event, w: _Writer) -> str:
    text = f"{w.who(e.player)} is dealt {_count(e.amount, 'card')}"
    return f"{text}: {w.cards(e.cards)}." if e.cards else f"{text}."


def _start_card(e: Event, w: _Writer) -> str:
    return f"The start card is {w.card(e.card)}."


def _put_back(e: Event, w: _Writer) -> str:
    return f"The start card {w.card(e.card)} goes back and the draw pile is reshuffled."


def _reshuffled(e: Event, w: _Writer) -> str:
    return (f"The discard pile is shuffled into a new draw pile of "
            f"{_count(e.amount, 'card')}.")


def _played(e: Event, w: _Writer) -> str:
    text = f"{w.who(e.player)} plays {w.card(e.card)}"
    if e.cards:
        text += " with " + w.cards(e.cards)
    if e.color >= 0:
        text += f" and names {w.color(e.color)}"
    if e.target >= 0:
        text += f", choosing {w.who(e.target)}"
    return text + "."


def _drew(e: Event, w: _Writer) -> str:
    why = DRAW_REASONS.get(e.reason, e.reason.replace("_", " "))
    if e.amount == 0:
        text = f"{w.who(e.player)} draws no card (nothing left to draw"
        return text + (f"; {why})." if why else ").")
    text = f"{w.who(e.player)} draws {_count(e.amount, 'card')}"
    if why:
        text += f" ({why})"
    return f"{text}: {w.cards(e.cards)}." if e.cards else f"{text}."


def _passed(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} keeps the drawn card."


def _skipped(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} is skipped."


def _reversed(e: Event, w: _Writer) -> str:
    way = "clockwise" if e.amount >= 0 else "counter-clockwise"
    return f"Play reverses: now {way}."


def _color_chosen(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} names {w.color(e.color)}."


def _uno_called(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} calls UNO!"


def _caught(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} catches {w.who(e.target)}, who did not call UNO!"


def _false_catch(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} tries to catch {w.who(e.target)}, who cannot be caught."


def _misplayed(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} tries to play {w.card(e.card)}, which does not match."


def _challenged(e: Event, w: _Writer) -> str:
    verdict = "guilty!" if e.reason == "guilty" else "innocent."
    return (f"{w.who(e.player)} challenges {w.who(e.target)}'s Wild Draw Four: "
            f"{w.who(e.target)} is {verdict}")


def _hand_shown(e: Event, w: _Writer) -> str:
    text = f"{w.who(e.target)} shows the hand to {w.who(e.player)}"
    if e.cards:
        return f"{text}: {w.cards(e.cards)}."
    return f"{text} ({_count(e.amount, 'card')})."


def _took_back(e: Event, w: _Writer) -> str:
    return (f"{w.who(e.player)} takes {w.card(e.card)} back; the colour is "
            f"{w.color(e.color)} again.")


def _went_out(e: Event, w: _Writer) -> str:
    if e.amount > 1:
        return f"{w.who(e.player)} goes out, {_ordinal(e.amount)}."
    return f"{w.who(e.player)} goes out!"


def _refilled(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} empties the hand and goes on at level {e.amount}."


def _round_ended(e: Event, w: _Writer) -> str:
    data = e.data if isinstance(e.data, dict) else {}
    number = data.get("round", "?")
    points = list(data.get("points", []))
    scores = list(data.get("scores", []))
    winner = e.player
    if data.get("blocked"):
        text = f"Round {number} is blocked: {w.who(winner)} has the lowest hand and wins"
    else:
        text = f"Round {number} ends: {w.who(winner)} wins"
    won = points[winner] if 0 <= winner < len(points) else 0
    others = [p for seat, p in enumerate(points) if seat != winner and p not in (0, won)]
    if won > 0 and not others:
        text += f" {_count(won, 'point')}"
    elif any(points):
        text += f". Points: {w.scores(points)}"
    if e.target >= 0:
        text += f"; {w.who(e.target)} loses the round"
    return text + (f". Scores: {w.scores(scores)}." if scores else ".")


def _match_ended(e: Event, w: _Writer) -> str:
    data = e.data if isinstance(e.data, dict) else {}
    scores = list(data.get("scores", []))
    text = f"The match is over: {w.who(e.player)} wins"
    return text + (f". Final scores: {w.scores(scores)}." if scores else ".")


def _eliminated(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} reaches the target score and is out of the match."


def _hands_swapped(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} and {w.who(e.target)} swap hands."


def _hands_rotated(e: Event, w: _Writer) -> str:
    return "Every hand passes to the next player."


def _hands_shuffled(e: Event, w: _Writer) -> str:
    return "All hands are gathered, shuffled and dealt out again."


def _gave(e: Event, w: _Writer) -> str:
    text = f"{w.who(e.player)} gives {w.who(e.target)} a card"
    return f"{text}: {w.cards(e.cards)}." if e.cards else f"{text}."


def _slap_started(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} called UNO: everyone slaps the table!"


def _slapped(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} slaps."


def _said(e: Event, w: _Writer) -> str:
    if not e.reason:
        return f"{w.who(e.player)} speaks."
    return f"{w.who(e.player)} says {w.text(repr(e.reason))}."


def _silence(e: Event, w: _Writer) -> str:
    if e.amount == 0:
        return "The silence ends."
    return f"Silence ({e.reason})! Nobody may speak."


def _pressed(e: Event, w: _Writer) -> str:
    why = DRAW_REASONS.get(e.reason, e.reason.replace("_", " "))
    times = _count(e.target, "time") if e.target > 0 else "once"
    text = f"{w.who(e.player)} presses the launcher {times}" + (f" ({why})" if why else "")
    if not e.amount:
        return text + ": nothing comes out."
    out = f": {_count(e.amount, 'card')} come out"
    return text + (f"{out}: {w.cards(e.cards)}." if e.cards else out + ".")


def _discarded(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} discards {w.cards(e.cards)} with it."


def _repeated(e: Event, w: _Writer) -> str:
    return (f"The same position has come back {_count(e.amount, 'time')}: the round "
            "cannot be sure to end and is blocked.")


def _penalty(e: Event, w: _Writer) -> str:
    return f"{w.who(e.player)} faces {_count(e.amount, 'card')} to draw."


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
    "EVERYONE",
    "Viewer",
    "describe_event",
    "seat_names",
    "transcript",
]
