"""A read-only replay viewer for game records: ``unokit replay FILE --tui``.

It steps through a record action by action (``→``/``←``, ``home``/``end``, ``space``
plays it on its own). It opens in a spectator's view (no hand shown), or in one seat's
view with ``seat``; ``v`` switches between that view and every hand. The log shows the
events up to the step from the same view. Player names are shown through
:func:`unokit.text.safe.display_name`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.timer import Timer
from textual.widgets import RichLog, Static

from unokit.engine.actions import action_player, format_action
from unokit.engine.events import Event
from unokit.engine.game import Game
from unokit.engine.scoring import partner
from unokit.formats.record import Record, replay_steps
from unokit.i18n import (
    N_,
    _,
    current_language,
    next_language,
    ngettext,
    pgettext,
    set_language,
    translations,
)
from unokit.text.safe import display_text
from unokit.text.transcript import EVERYONE, Viewer, describe_event, seat_names
from unokit.tui.faces import action_label, card_text, cards_text, color_text, decorate

LOG_LINES = 400
"""Events the log shows at most (the latest ones up to the step)."""


@dataclass(frozen=True)
class Frame:
    """The game after one step of a record."""

    action: int | None
    events: tuple[Event, ...]
    game: Game


def load_frames(record: Record) -> list[Frame]:
    """Every step of a record: the set-up, then one frame per action.

    Raises:
        RecordError: the record is broken (the message names the action).
    """
    return [Frame(step.action, tuple(step.events), step.game.copy())
            for step in replay_steps(record)]


def seat_block(game: Game, names: Sequence[str], viewer: Viewer) -> Text:
    """The table as ``viewer`` sees it: piles, colour, direction, every seat's cards
    (all of them for :data:`~unokit.text.transcript.EVERYONE`, else the viewer's own)."""
    seat = viewer if isinstance(viewer, int) else None
    obs = game.observation(seat if seat is not None else 0)
    text = Text()
    text.append(pgettext("the top card of the discard pile, as a label", "Top") + " ")
    if obs.top >= 0:
        text.append_text(card_text(obs.top))
    text.append("  " + _("colour") + " ")
    text.append_text(color_text(obs.color))
    text.append("  " + ("↻ " + _("clockwise") if obs.direction == 1
                        else "↺ " + _("counter-clockwise")))
    text.append("\n" + _("Draw pile") + f" {obs.draw_pile_size}  ·  "
                + _("round {n}", n=obs.round) + "  ·  " + _("phase {phase}", phase=obs.phase))
    if obs.pending_draw:
        text.append("\n" + _("Penalty waiting: +{n}", n=obs.pending_draw),
                    style="bold #ff5f5f")
    text.append("\n")
    for index, hand in enumerate(game.hands):
        name = names[index] if index < len(names) else _("Seat {seat}", seat=index)
        mark = "▶ " if obs.current_player == index else "  "
        text.append(f"\n{mark}{name}", style="bold" if mark.strip() else "")
        text.append("  " + ngettext("{n} card", "{n} cards", len(hand)) + "  "
                    + ngettext("{n} pt", "{n} pts", obs.scores[index]), style="dim")
        visible = viewer == EVERYONE or index == seat
        if visible and hand:
            text.append("\n    ")
            text.append_text(cards_text(sorted(hand)))
        elif (seat is not None and obs.partner_hand and index == partner(game.rules, seat)):
            text.append("\n    ")  # a partner's hand, where the rules show it
            text.append_text(cards_text(obs.partner_hand))
    return text


KEYS = N_("←/→ step · home/end · space: auto-play · v: all cards / this view · q: quit")
"""The key line of the viewer."""


class ReplayApp(App[None]):
    """Step through a game record; see the module docstring."""

    TITLE = "unokit replay"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #title {
        height: 1;
        background: $primary-darken-2;
        padding: 0 1;
    }
    #step {
        height: auto;
        padding: 0 1;
    }
    #main {
        height: 1fr;
    }
    #table-box {
        width: 1fr;
        min-width: 40;
        height: 1fr;
        padding: 0 1;
    }
    #log {
        width: 1fr;
        height: 1fr;
        border: round $panel;
    }
    #keys {
        height: 1;
        color: $text-muted;
        padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n,l", "step(1)", _("Next")),
        Binding("left,p,h", "step(-1)", _("Previous")),
        Binding("pagedown", "step(10)", "+10", show=False),
        Binding("pageup", "step(-10)", "-10", show=False),
        Binding("home,g", "go(0)", _("First"), show=False),
        Binding("end,G", "go(-1)", _("Last"), show=False),
        Binding("space,a", "auto", _("Auto-play")),
        Binding("v", "view", _("View")),
        Binding("q,escape", "quit", _("Quit")),
        Binding("f2", "next_language", _("Language"), show=False),
    ]

    def __init__(self, record: Record, frames: Sequence[Frame], *, title: str = "",
                 seat: int | None = None, delay: float = 0.6) -> None:
        super().__init__()
        if not frames:
            raise ValueError("a replay needs at least the set-up step")
        self.record = record
        self.frames = list(frames)
        self.names = seat_names(frames[0].game.n, record.players)
        self.file_title = display_text(title, 200)
        self.seat = seat
        """The seat whose view is shown (``None``: a spectator's view)."""
        self.show_all = False
        """Whether every hand is shown instead (``v`` toggles)."""
        self.index = 0
        self.delay = delay
        self._auto: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="title")
        yield Static("", id="step")
        with Horizontal(id="main"):
            with VerticalScroll(id="table-box"):
                yield Static("", id="table")
            log = RichLog(id="log", wrap=True, min_width=20)
            log.border_title = _("Log")
            yield log
        yield Static(_(KEYS), id="keys")

    def on_mount(self) -> None:
        self.show()

    @property
    def viewer(self) -> Viewer:
        """Whose view is shown."""
        return EVERYONE if self.show_all else self.seat

    def show(self) -> None:
        """Draw the current step."""
        frame = self.frames[self.index]
        game = frame.game
        if self.show_all:
            view = _("all cards")
        elif self.seat is None:
            view = _("spectator's view")
        else:
            view = _("{who}'s view", who=self.seat_name(self.seat))
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append("unokit replay", style="bold")
        title.append(f" · {self.file_title} · " + _("seed {seed}", seed=self.record.seed)
                     + f" · {view}")
        self.query_one("#title", Static).update(title)
        step = Text(_("Step {n}/{last}: ", n=self.index, last=len(self.frames) - 1))
        if frame.action is None:
            step.append(_("the deal"))
        else:
            step.append(f"{format_action(frame.action)}  ", style="bold")
            step.append(f"{self.seat_name(action_player(frame.action))}: "
                        f"{action_label(frame.action, self.names)}")
        if self._auto is not None:
            step.append("  ▶ auto", style="bold #5fd75f")
        self.query_one("#step", Static).update(step)
        self.query_one("#table", Static).update(seat_block(game, self.names, self.viewer))
        log = self.query_one("#log", RichLog)
        log.clear()
        language = translations(current_language())
        events = [e for f in self.frames[: self.index + 1] for e in f.events][-LOG_LINES:]
        for event in events:
            log.write(decorate(describe_event(event, self.viewer, self.names, markup=True,
                                              language=language)))
        log.scroll_end(animate=False)

    def seat_name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else _("Seat {seat}",
                                                                       seat=seat)

    def action_next_language(self) -> None:
        """Switch to the next language (F2) and draw the step again."""
        set_language(next_language(current_language()))
        self.query_one("#keys", Static).update(_(KEYS))
        self.query_one("#log", RichLog).border_title = _("Log")
        self.show()

    def action_step(self, step: int) -> None:
        self.index = max(0, min(len(self.frames) - 1, self.index + step))
        if self.index == len(self.frames) - 1 and self._auto is not None:
            self._stop_auto()
        self.show()

    def action_go(self, index: int) -> None:
        self.index = index if index >= 0 else len(self.frames) - 1
        self.show()

    def action_view(self) -> None:
        self.show_all = not self.show_all
        self.show()

    def action_auto(self) -> None:
        if self._auto is not None:
            self._stop_auto()
        else:
            self._auto = self.set_interval(self.delay, lambda: self.action_step(1))
        self.show()

    def _stop_auto(self) -> None:
        if self._auto is not None:
            self._auto.stop()
            self._auto = None


def run_replay(record: Record, *, title: str = "", seat: int | None = None) -> None:
    """Open the replay viewer (blocks until it is closed).

    Raises:
        RecordError: the record is broken.
    """
    frames = load_frames(record)
    ReplayApp(record, frames, title=title, seat=seat).run()


__all__ = ["Frame", "ReplayApp", "load_frames", "run_replay", "seat_block"]
