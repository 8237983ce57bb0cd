"""Dialogs of the terminal game: the colour picker, choices (targets, cards to give,
catches, every legal action), the challenge prompt, the round and match end, saving a
record, quitting and the key help."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from unokit.engine.cards import parse_card
from unokit.i18n import N_, _, pgettext
from unokit.tui.faces import COLOR_WORDS, SYMBOLS, card_text

DIALOG_CSS = """
{name} {{
    align: center middle;
}}
{name} > #dialog {{
    width: auto;
    max-width: 96%;
    min-width: 40;
    height: auto;
    max-height: 96%;
    border: round $accent;
    background: $surface;
    padding: 0 1;
}}
{name} #title {{
    text-style: bold;
    width: auto;
    margin-bottom: 1;
}}
{name} .buttons {{
    height: auto;
    width: auto;
    margin-top: 1;
}}
{name} Button {{
    margin: 0 1 0 0;
}}
"""


def dialog_css(name: str) -> str:
    """The common CSS of a dialog class."""
    return DIALOG_CSS.format(name=name)


class Decision(ModalScreen[object]):
    """A dialog that asks the human something about the current position; the table
    closes it if the position changes before the answer."""


class ColorPicker(Decision):
    """Pick a colour: buttons, the keys ``r y g b`` or ``1-4``; ``escape`` cancels."""

    DEFAULT_CSS = dialog_css("ColorPicker") + """
    ColorPicker .c0 { color: #ff5f5f; }
    ColorPicker .c1 { color: #ffd75f; }
    ColorPicker .c2 { color: #5fd75f; }
    ColorPicker .c3 { color: #5fafff; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(key, f"pick({c})", show=False) for c, key in enumerate("rygb")),
        *(Binding(str(c + 1), f"pick({c})", show=False) for c in range(4)),
        Binding("escape", "cancel", _("Cancel")),
    ]

    def __init__(self, colors: Sequence[int], title: str = "") -> None:
        super().__init__()
        self.choices = [c for c in colors if 0 <= c < 4]
        self.title_text = title or _("Name a colour")

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self.title_text), id="title")
            with Horizontal(classes="buttons"):
                for color in self.choices:
                    word = COLOR_WORDS[color]
                    label = f"{SYMBOLS[color]} {_(word).capitalize()} ({word[0]})"
                    yield Button(label, id=f"color-{word}", classes=f"c{color}",
                                 action=f"screen.pick({color})", compact=True)
            yield Static(_("escape: cancel"), classes="hint")

    def action_pick(self, color: int) -> None:
        if color in self.choices:
            self.dismiss(color)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoiceScreen(Decision):
    """Pick one of several options (arrow keys and enter, a click, or the keys 1-9);
    ``escape`` cancels. The result is the value of the option."""

    DEFAULT_CSS = dialog_css("ChoiceScreen") + """
    ChoiceScreen OptionList {
        width: auto;
        min-width: 36;
        max-height: 16;
        height: auto;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"pick({n - 1})", show=False) for n in range(1, 10)),
        Binding("escape", "cancel", _("Cancel")),
    ]

    def __init__(self, title: str, options: Sequence[tuple[Text | str, int]]) -> None:
        super().__init__()
        self.title_text = title
        self.options = list(options)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self.title_text), id="title")
            items = []
            for index, (label, _value) in enumerate(self.options):
                prompt = Text(f"{index + 1}. " if index < 9 else "   ")
                prompt.append_text(label if isinstance(label, Text) else Text(label))
                items.append(Option(prompt, id=f"choice-{index}"))
            yield OptionList(*items, id="choices")
            yield Static(_("↑↓ enter, 1-9 or a click; escape: cancel"), classes="hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_pick(event.option_index)

    def action_pick(self, index: int) -> None:
        if 0 <= index < len(self.options):
            self.dismiss(self.options[index][1])

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChallengePrompt(Decision):
    """A Wild Draw Four was played on the human: challenge (``x``) or accept (``d``);
    where cards may answer the penalty, ``escape`` goes back to the hand."""

    DEFAULT_CSS = dialog_css("ChallengePrompt") + """
    ChallengePrompt #about { width: 60; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "answer('challenge')", _("Challenge")),
        Binding("c", "answer('challenge')", show=False),
        Binding("d", "answer('accept')", _("Accept")),
        Binding("a", "answer('accept')", show=False),
        Binding("escape", "back", _("Back")),
    ]

    def __init__(self, about: Text, accept_label: str, can_answer: bool) -> None:
        super().__init__()
        self.about = about
        self.accept_label = accept_label
        self.can_answer = can_answer

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(_("Wild Draw Four!"), id="title")
            yield Static(self.about, id="about")
            with Horizontal(classes="buttons"):
                yield Button(_("Challenge (x)"), id="challenge", variant="warning",
                             action="screen.answer('challenge')", compact=True)
                yield Button(f"{self.accept_label} (d)", id="accept", variant="primary",
                             action="screen.answer('accept')", compact=True)
                if self.can_answer:
                    yield Button(_("Answer with a card (esc)"), id="back",
                                 action="screen.back", compact=True)

    def action_answer(self, what: str) -> None:
        self.dismiss(what)

    def action_back(self) -> None:
        if self.can_answer:
            self.dismiss(None)


@dataclass(frozen=True)
class SeatResult:
    """One row of the round end screen."""

    name: str
    level: str
    hand: tuple[str, ...]
    points: int
    total: int
    note: str = ""
    partner: bool = False
    """The seat of your partner (teams of two)."""


@dataclass(frozen=True)
class RoundSummary:
    """What the round and match end screens show."""

    round_no: int
    headline: str
    rows: tuple[SeatResult, ...]
    match_over: bool
    match_line: str = ""


def results_text(summary: RoundSummary) -> Text:
    """The table of points: every seat's cards left, round points and total."""
    width = max(len(row.name) + len(row.level) + 3 for row in summary.rows)
    width = min(max(width, 12), 24)
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{_('seat'):<{width}} {_('round'):>6} {_('total'):>6}  {_('cards left')}\n",
                style="bold")
    for row in summary.rows:
        level = _("partner") if row.partner else row.level
        who = (row.name if row.level == "you" else f"{row.name} ({level})")[:width]
        text.append(f"{who:<{width}} {row.points:>6} {row.total:>6}  ")
        if row.hand:
            for index, code in enumerate(row.hand):
                if index:
                    text.append(" ")
                text.append_text(card_text(parse_card(code)))
        else:
            text.append(row.note or "-", style="dim")
        text.append("\n")
    text.rstrip()
    return text


class EndScreen(ModalScreen[str]):
    """The end of a round (``enter``: next round) or of the match (``s``: save the
    record, ``n``: new match, ``q``: quit)."""

    DEFAULT_CSS = dialog_css("EndScreen") + """
    EndScreen #results { width: auto; height: auto; }
    EndScreen #match-line { text-style: bold; margin-top: 1; }
    EndScreen #saved { height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose('next')", _("Next round"), show=False),
        Binding("space", "choose('next')", show=False),
        Binding("n", "choose('new')", show=False),
        Binding("s", "choose('save')", show=False),
        Binding("q", "choose('quit')", show=False),
    ]

    def __init__(self, summary: RoundSummary) -> None:
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        summary = self.summary
        title = (_("Match over") if summary.match_over
                 else _("Round {n} over", n=summary.round_no))
        with Vertical(id="dialog"):
            yield Static(Text(f"{title}: {summary.headline}"), id="title")
            yield Static(results_text(summary), id="results")
            if summary.match_line:
                yield Static(Text(summary.match_line), id="match-line")
            yield Static("", id="saved")
            with Horizontal(classes="buttons"):
                if summary.match_over:
                    yield Button(_("Save record (s)"), id="save", action="screen.choose('save')",
                                 compact=True)
                    yield Button(_("New match (n)"), id="new", action="screen.choose('new')",
                                 compact=True)
                    yield Button(_("Quit (q)"), id="quit", action="screen.choose('quit')",
                                 compact=True, variant="error")
                else:
                    yield Button(_("Next round (enter)"), id="next", variant="primary",
                                 action="screen.choose('next')", compact=True)

    def action_choose(self, what: str) -> None:
        if self.summary.match_over:
            if what == "save":
                self.app.push_screen(SaveDialog(self.default_path()), self._saved)
            elif what in ("new", "quit"):
                self.dismiss(what)
        elif what == "next":
            self.dismiss(what)

    def default_path(self) -> str:
        saver = getattr(self.app, "default_record_path", None)
        return str(saver()) if callable(saver) else "unokit-match.json"

    def _saved(self, path: str | None) -> None:
        if path is None:
            return
        saver = getattr(self.app, "save_record", None)
        message = saver(path) if callable(saver) else _("saving is not available here")
        self.query_one("#saved", Static).update(Text(message))


class SaveDialog(ModalScreen[str | None]):
    """Ask for the file to save the match record to (``enter`` saves)."""

    DEFAULT_CSS = dialog_css("SaveDialog") + """
    SaveDialog Input { width: 60; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", _("Cancel"))]

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(_("Save the match record to:"), id="title")
            yield Input(self.path, id="path")
            yield Static(_("enter: save · escape: cancel"), classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path = event.value.strip()
        self.dismiss(path or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmQuit(ModalScreen[bool]):
    """Leave the match? ``y`` / ``n``."""

    DEFAULT_CSS = dialog_css("ConfirmQuit")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", _("Yes")),
        Binding("q", "answer(True)", show=False),
        Binding("n", "answer(False)", _("No")),
        Binding("escape", "answer(False)", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(_("Leave the match?"), id="title")
            with Horizontal(classes="buttons"):
                yield Button(_("Quit (y)"), id="yes", variant="error",
                             action="screen.answer(True)", compact=True)
                yield Button(_("Stay (n)"), id="no", action="screen.answer(False)",
                             compact=True)

    def action_answer(self, quit_now: bool) -> None:
        self.dismiss(quit_now)


HELP = N_("""\
←→ ↑↓    move in the hand        d    draw / accept / press (Attack)
enter    play (the selection)    p    keep the drawn card
1-9, 0   play card 1-10          u    UNO: call it, or arm it
space    select (multi-play)     c    catch a missed UNO call
click    play a card             x    challenge a Wild Draw Four
a        every legal action      s    slap (UNO slap)
?        this help               y    say something (silence)
q        quit                    esc  close a dialog
l, F2    switch the language

Bright cards marked • may be played now, also out of turn (jump-in).
With cards selected (space), a click selects more and enter plays them.
Colours: ♥ red, ★ yellow, ♣ green, ♦ blue; ✦ wild.""")


class HelpScreen(ModalScreen[None]):
    """The keys."""

    DEFAULT_CSS = dialog_css("HelpScreen") + """
    HelpScreen #help { width: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q,enter", "close", _("Close"))]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(pgettext("the keyboard keys: the help screen's title", "Keys"), id="title")
            yield Static(_(HELP), id="help")

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = [
    "HELP",
    "ChallengePrompt",
    "ChoiceScreen",
    "ColorPicker",
    "ConfirmQuit",
    "Decision",
    "EndScreen",
    "HelpScreen",
    "RoundSummary",
    "SaveDialog",
    "SeatResult",
    "dialog_css",
    "results_text",
]
