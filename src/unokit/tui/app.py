"""The terminal game application: ``unokit play``.

Without a configuration the setup screen opens; with one the match starts at once.
The human is seat 0; the bots take the other seats.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from unokit.engine.errors import RecordError, UnoError
from unokit.formats.record import Record
from unokit.i18n import LANGUAGE_NAMES, _, current_language, next_language, set_language
from unokit.text.safe import display_name, display_names
from unokit.tui.session import DEFAULT_DELAY, PlayConfig, Session
from unokit.tui.setup_screen import SetupScreen
from unokit.tui.table_screen import TableScreen


class PlayApp(App[None]):
    """UNO against bots in the terminal.

    Args:
        config: the match to start at once; ``None`` opens the setup screen.
        session: a session already set up (tests and scenario positions); wins over
            ``config``.
        delay: seconds a bot waits before acting (0: at once, reactions included).
        name: the human's name on the setup screen.
        seed: the seed the setup screen offers (default: a random one).
    """

    TITLE = "unokit"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", _("Quit"), show=False, priority=True),
        Binding("l,f2", "next_language", _("Language"), show=False)]
    CSS = """
    .hint {
        color: $text-muted;
        height: auto;
    }
    """

    def __init__(self, config: PlayConfig | None = None, *, session: Session | None = None,
                 delay: float = DEFAULT_DELAY, name: str = "You",
                 seed: int | None = None) -> None:
        super().__init__()
        self.config = config
        if session is not None:
            session.names = display_names(session.names)
        self.session = session
        self.delay = delay
        self.player_name = display_name(name)
        self.setup_seed = seed
        self.start_error = ""

    def on_mount(self) -> None:
        if self.session is not None:
            self.push_screen(TableScreen(self.session, self.delay))
        elif self.config is not None:
            self.start_match(self.config)
        else:
            self.push_screen(SetupScreen(name=self.player_name, seed=self.setup_seed))

    # ------------------------------------------------------------------ language
    async def action_next_language(self) -> None:
        """Switch to the next language (``l`` or ``F2``) and say every screen again."""
        lang = set_language(next_language(current_language()))
        for screen in list(self.screen_stack):
            reword = getattr(screen, "reword", None)
            if callable(reword):
                await reword()
        self.notify(LANGUAGE_NAMES[lang], title=_("Language"))

    # ------------------------------------------------------------------ matches
    def start_match(self, config: PlayConfig) -> None:
        """Start a match (from the setup screen or the command line); names are made
        safe to show (:func:`unokit.text.safe.display_name`)."""
        config = replace(config, name=display_name(config.name))
        try:
            session = Session.start(config)
        except (UnoError, ValueError) as exc:
            self.start_error = str(exc)
            self.notify(str(exc), title=_("The match cannot start"), severity="error",
                        markup=False)
            if not isinstance(self.screen, SetupScreen):
                self.push_screen(SetupScreen(name=config.name, seed=config.seed))
            return
        self.session = session
        self.config = config
        table = TableScreen(session, self.delay)
        if isinstance(self.screen, SetupScreen | TableScreen):
            self.switch_screen(table)
        else:
            self.push_screen(table)

    def new_match(self) -> None:
        """Back to the setup screen for another match."""
        name = self.session.names[0] if self.session is not None else self.player_name
        setup = SetupScreen(name=name)
        if isinstance(self.screen, TableScreen):
            self.switch_screen(setup)
        else:
            self.push_screen(setup)

    # ------------------------------------------------------------------ records
    def default_record_path(self) -> str:
        """The file name the save dialog offers."""
        seed = self.session.seed if self.session is not None else 0
        return f"unokit-match-{seed}.json"

    def save_record(self, path: str) -> str:
        """Save the match record to ``path``; the message to show."""
        if self.session is None:
            return "there is no match to save"
        try:
            record = Record.from_game(self.session.game, players=self.session.names)
            record.save(path)
        except RecordError as exc:
            return "✗ " + _("cannot save: {problem}", problem=exc)
        except OSError as exc:
            return "✗ " + _("cannot write {file}: {problem}", file=path,
                            problem=exc.strerror or exc)
        return "✓ " + _("saved to {file} (replay it with: unokit replay {path} --tui)",
                        file=Path(path), path=path)


def run_play(config: PlayConfig | None = None, *, delay: float = DEFAULT_DELAY,
             name: str = "You") -> None:
    """Run the terminal game (blocks until the player quits)."""
    PlayApp(config, delay=delay, name=name).run()


__all__ = ["DEFAULT_DELAY", "PlayApp", "run_play"]
