"""The widgets of the table: the hand, the opponents, the table centre and the buttons."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.app import ComposeResult, RenderResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Static
from textual.widgets.button import ButtonVariant

from unokit.i18n import N_, _, ngettext, pgettext
from unokit.tui.faces import FACE_WIDTH, card_text, cards_text, color_text, face_style

CELL = FACE_WIDTH + 1
"""Cells from one card of the hand to the next (the face and a gap)."""

KEY_LABELS = "1234567890"

TALL = 32
"""Terminal lines from which the hand shows tall card faces."""
"""The number keys that pick the first ten cards."""


class KeyButton(Button, can_focus=False):
    """A one-line button that never takes the focus, so the table keys always work."""

    DEFAULT_CSS = """
    KeyButton {
        min-width: 4;
        margin: 0 1 0 0;
    }
    """

    def __init__(self, label: str, action: str, *, id: str | None = None,
                 variant: ButtonVariant = "default") -> None:
        super().__init__(label, id=id, action=action, compact=True, variant=variant)


class HandView(Widget):
    """The human's hand: card faces in rows, each with a line under it that shows
    whether it may be played now (``•``; such cards are also bright, the others dark),
    its number key, the cursor (``▲``) and a selection (``✓``)."""

    DEFAULT_CSS = """
    HandView {
        height: auto;
        width: 1fr;
    }
    """

    class Clicked(Message):
        """A card was clicked."""

        def __init__(self, index: int) -> None:
            self.index = index
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cards: list[int] = []
        self.marked: set[int] = set()
        self.cursor = 0
        self.selected: list[int] = []

    # ------------------------------------------------------------------ state
    def set_hand(self, cards: Sequence[int], marked: set[int]) -> None:
        """Show ``cards``; ``marked`` are the kinds that may be played (highlighted)."""
        cards = list(cards)
        if cards != self.cards:
            self.selected = []
        self.cards = cards
        self.marked = set(marked)
        self.cursor = max(0, min(self.cursor, len(cards) - 1))
        self.refresh(layout=True)

    def move(self, step: int) -> None:
        """Move the cursor ``step`` cards (wrapping around)."""
        if self.cards:
            self.cursor = (self.cursor + step) % len(self.cards)
            self.refresh()

    def move_row(self, step: int) -> None:
        """Move the cursor a row up (-1) or down (+1)."""
        columns = self.columns()
        target = self.cursor + step * columns
        if 0 <= target < len(self.cards):
            self.cursor = target
            self.refresh()

    def toggle(self, index: int) -> None:
        """Select or unselect the card at ``index`` (multi-play)."""
        if not 0 <= index < len(self.cards):
            return
        if index in self.selected:
            self.selected.remove(index)
        else:
            self.selected.append(index)
        self.refresh()

    def selected_cards(self) -> list[int]:
        """The selected cards, in the order they were selected."""
        return [self.cards[i] for i in self.selected if i < len(self.cards)]

    def card_at_cursor(self) -> int | None:
        """The card under the cursor."""
        return self.cards[self.cursor] if self.cards else None

    # ------------------------------------------------------------------ layout
    def columns(self, width: int | None = None) -> int:
        """Cards per row."""
        width = self.content_region.width if width is None else width
        return max(1, (width + 1) // CELL)

    def face_lines(self) -> int:
        """Lines of a card face: 3 in a tall terminal (32 lines or more), else 1."""
        return 3 if self.app.size.height >= TALL else 1

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        rows = -(-len(self.cards) // self.columns(width)) if self.cards else 1
        return (self.face_lines() + 1) * rows

    def render(self) -> RenderResult:
        if not self.cards:
            return Text("(no cards)", style="dim")
        columns = self.columns()
        out = Text(no_wrap=True, overflow="crop")
        for start in range(0, len(self.cards), columns):
            if start:
                out.append("\n")
            indexes = range(start, min(start + columns, len(self.cards)))
            tall = self.face_lines() == 3
            if tall:
                self._blank_line(out, indexes)
            for i in indexes:
                out.append_text(card_text(self.cards[i], self.cards[i] in self.marked, True))
                out.append(" ")
            out.append("\n")
            if tall:
                self._blank_line(out, indexes)
            for i in indexes:
                key = KEY_LABELS[i] if i < len(KEY_LABELS) else " "
                cursor = "▲" if i == self.cursor else " "
                chosen = "✓" if i in self.selected else " "
                play = "•" if self.cards[i] in self.marked else " "
                cell = f" {play}{key} {cursor}{chosen}"
                out.append(cell, style="bold reverse" if i == self.cursor else "dim")
                out.append(" ")
        return out

    def _blank_line(self, out: Text, indexes: range) -> None:
        """The top or bottom edge of tall card faces."""
        for i in indexes:
            card = self.cards[i]
            out.append(" " * FACE_WIDTH, style=face_style(card, card in self.marked))
            out.append(" ")
        out.append("\n")

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        column = offset.x // CELL
        if offset.x % CELL == CELL - 1 or column >= self.columns():
            return  # the gap between two cards
        index = (offset.y // (self.face_lines() + 1)) * self.columns() + column
        if 0 <= index < len(self.cards):
            self.cursor = index
            self.refresh()
            self.post_message(self.Clicked(index))


class OpponentRow(Horizontal):
    """One opponent: name, level, cards, UNO state, score, and a catch button."""

    DEFAULT_CSS = """
    OpponentRow {
        height: 1;
        width: 1fr;
    }
    OpponentRow > .who {
        width: 1fr;
        height: 1;
    }
    OpponentRow > KeyButton {
        display: none;
        margin: 0;
    }
    OpponentRow > KeyButton.-shown {
        display: block;
    }
    """

    def __init__(self, seat: int) -> None:
        super().__init__(id=f"opponent-{seat}")
        self.seat = seat

    def compose(self) -> ComposeResult:
        yield Static("", classes="who")
        yield KeyButton("catch", f"screen.catch({self.seat})", id=f"catch-{self.seat}",
                        variant="warning")

    def show(self, text: Text, catchable: bool) -> None:
        """Update the row; ``catchable``: a catch of this seat is legal now."""
        self.query_one(".who", Static).update(text)
        self.query_one(KeyButton).set_class(catchable, "-shown")


class OpponentList(Vertical):
    """The opponents, one row each."""

    DEFAULT_CSS = """
    OpponentList {
        height: auto;
    }
    """

    def __init__(self, seats: Sequence[int], *, id: str | None = None) -> None:
        super().__init__(*(OpponentRow(seat) for seat in seats), id=id)


LEVEL_WORDS = (N_("easy"), N_("normal"), N_("hard"), "you")
"""The bot levels (and the human's ``you``) as the table shows them, translated."""


def level_word(level: str) -> str:
    """A bot level, or ``you`` for the human's seat, in the current language.

    >>> level_word("normal"), level_word("you")
    ('normal', 'you')
    """
    return pgettext("the tag beside your own seat's name", "you") if level == "you" else _(level)


def opponent_text(*, name: str, level: str, cards: int, score: int, turn: bool,
                  uno_open: bool, active: bool, in_match: bool, partner: bool,
                  place: int, catchable: bool = False) -> Text:
    """The text of an opponent's row. ``catchable``: the row's catch button is shown
    beside it, so the text leaves the score out and shortens the name to keep the card
    count and the missed call readable in the narrowest layout (80 columns).

    >>> opponent_text(name="Jack", level="normal", cards=1, score=12, turn=False,
    ...               uno_open=True, active=True, in_match=True, partner=False, place=0,
    ...               catchable=True).plain
    '  Jack (normal)   1 card  no UNO!'
    """
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("▶ " if turn else "  ", style="bold #ffd75f")
    who = f"{name} ({level_word(level)})"
    width = 14 if catchable else 16
    text.append(f"{who[:width]:<{width}}", style="bold" if turn else "")
    if not in_match:
        text.append(" " + _("eliminated").ljust(16), style="dim")
    elif not active:
        out = (_("out, {place}.", place=place) if place
               else pgettext("a player who has gone out of the round", "out"))
        text.append((" " + out).ljust(17), style="dim")
    else:
        # every form as wide as the widest, so that the columns after it line up
        widest = max(len(ngettext("card", "cards", k)) for k in (1, 2, 5))
        text.append(f" {cards:>2} " + ngettext("card", "cards", cards).ljust(widest))
        if cards == 1:
            missed = _("no UNO!")
            called = pgettext("the badge of a player who called UNO", "UNO!")
            text.append(" " + (missed if uno_open else called.ljust(7)),
                        style="bold #ff5f5f" if uno_open else "bold #5fd75f")
        elif partner:
            text.append(" " + _("partner"), style="#5fafff")
        else:
            text.append(" " * 8)
    if not catchable:
        # TRANSLATORS: a score in the narrow opponent row: as short as it can be.
        text.append(" " + ngettext("{n}p", "{n}p", score).rjust(4), style="dim")
    return text


def table_text(*, top: int, color: int, direction: int, pile: int, pile_word: str,
               round_no: int, dealer: str, pending: int, pending_for: str,
               partner: str = "", partner_hand: Sequence[int] | None = None) -> Text:
    """The centre of the table: the top card, colour, direction, piles and penalty, and
    the partner's hand where the rules show it."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(pgettext("the top card of the discard pile, as a label", "Top") + " ")
    if top >= 0:
        text.append_text(card_text(top, True, True))
    else:
        text.append(_("none"))
    text.append("   " + _("colour") + " ")
    text.append_text(color_text(color))
    text.append("\n")
    text.append("↻ " + _("clockwise") if direction == 1 else "↺ " + _("counter-clockwise"),
                style="bold")
    text.append(f"  ·  {pile_word.lower()} {pile}\n" + _("Round {n}", n=round_no) + "  ·  "
                + _("dealer {who}", who=dealer))
    if pending:
        text.append("\n")
        waiting = (_("Penalty waiting: +{n} for {who}", n=pending, who=pending_for)
                   if pending_for else _("Penalty waiting for you: +{n}", n=pending))
        text.append(waiting, style="bold #ff5f5f")
    if partner_hand is not None:
        text.append("\n" + _("{who}'s hand: ", who=partner))
        text.append_text(cards_text(partner_hand))
    return text


__all__ = [
    "CELL",
    "KEY_LABELS",
    "HandView",
    "KeyButton",
    "OpponentList",
    "OpponentRow",
    "opponent_text",
    "table_text",
]
