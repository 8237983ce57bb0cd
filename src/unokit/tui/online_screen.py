"""The screens of the terminal game online: the room's lobby, the table fed by the server
(:class:`OnlineTableScreen`: the local table with the turn timer, the away and the
connection state), and the application (:class:`OnlineApp`) that joins or makes a room.

The table keeps every key of the local game. An action goes to the server; a refusal
shows as the table's usual error line and changes nothing. When the connection drops
the table says "reconnecting" and comes back on its own.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, ClassVar, cast

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from unokit.client.client import ActionRefused, ClientError, create_room
from unokit.i18n import _, pgettext
from unokit.text.safe import display_name
from unokit.tui.online import OnlineSession
from unokit.tui.online_join import TokenStore, join_room
from unokit.tui.screens import EndScreen
from unokit.tui.session import (
    DEFAULT_NAME,
    HUMAN,
    Offer,
    Session,
    bot_levels,
    default_level,
)
from unokit.tui.table_screen import TableScreen

TIMERS = (0, 15, 30, 60)
"""The turn timers a room may have (seconds; 0: off)."""


class OnlineTableScreen(TableScreen):
    """The table of an online room; see the module docstring."""

    def __init__(self, session: OnlineSession) -> None:
        super().__init__(cast(Session, session), delay=0.0)
        self.online = session
        self._shown_version = -1
        self._clock: Timer | None = None

    def on_mount(self) -> None:
        super().on_mount()
        self._shown_version = self.online.version
        self._clock = self.set_interval(1.0, self._tick)

    # ------------------------------------------------------------ the server's news
    def session_changed(self) -> None:
        """The session has news: a new view closes stale dialogs and asks again; a
        change of the room, the timer or the connection only shows."""
        if not self.is_mounted:
            return
        if self.online.version != self._shown_version:
            self._shown_version = self.online.version
            self._close_round_end()
            self._after_change()
        else:
            self._refresh()

    def _close_round_end(self) -> None:
        """The server started the next round: the last round's results close."""
        screen = self.app.screen
        if (isinstance(screen, EndScreen) and not screen.summary.match_over
                and self.session.game.phase.value != "round_over"):
            self.app.pop_screen()

    def _tick(self) -> None:
        """Once a second: the turn clock counts down (and goes once it ran out)."""
        running = self.online.timer_left(asyncio.get_running_loop().time()) is not None
        if running or self._clock_shown:
            self.query_one("#status", Static).update(self._status(self.session.offer()))

    _clock_shown = False

    # ------------------------------------------------------------ actions
    def human(self, action: int) -> bool:
        """Send the player's action; a refusal shows as the error line."""
        self.error = ""
        armed, self.uno_armed = self.uno_armed, False
        self.run_worker(self._send(action, armed), group="act")
        return True

    async def _send(self, action: int, armed: bool) -> None:
        reason = await self.online.send(action)
        if reason:
            self.error = reason
            self.uno_armed = armed  # nothing changed: the UNO call stays armed
            if self.is_mounted:
                self._refresh()

    def _end_chosen(self, what: object) -> None:
        if what == "next":
            offer = self.session.offer()
            if offer.next_round is not None:  # the server may have gone on already
                self.human(offer.next_round)
        elif what in ("new", "quit"):
            self.app.exit()

    # ------------------------------------------------------------ view
    def _refresh(self) -> None:
        super()._refresh()
        online = self.online
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append("unokit", style="bold")
        title.append(" · " + _("room {code} · round {round} · {rules}", code=online.code,
                                round=online.observation().round, rules=online.rules_text))
        if online.spectating:
            title.append(" · " + _("watching"))
            box = self.query_one("#hand-box")
            box.border_title = Text(_("Watching room {code}: every hand is hidden",
                                      code=online.code))
        self.query_one("#title", Static).update(title)

    def _status(self, offer: Offer) -> Text:
        online = self.online
        text = Text()
        if online.connection == "reconnecting":
            text.append(_("⟳ Reconnecting to the server…"), style="bold #ff5f5f")
            text.append("\n")
        elif online.connection == "gone":
            text.append(_("✗ The server closed the seat: {reason} (q: quit)",
                          reason=online.gone_reason), style="bold #ff5f5f")
            text.append("\n")
        if online.saving:
            text.append(_("⟳ Saving your move: the server keeps it as soon as its database "
                          "answers"), style="bold #ffd75f")
            text.append("\n")
        if online.away(HUMAN) and not online.spectating:
            text.append(_("Away: a bot plays for you until you act."), style="bold #ffd75f")
            text.append("\n")
        clock = online.timer_left(asyncio.get_running_loop().time())
        self._clock_shown = clock is not None
        if clock is not None:
            seat, left = clock
            seconds = int(left + 0.999)
            if seat == HUMAN and not online.spectating:
                line = _("⏱ {seconds} s left for your turn", seconds=seconds)
            else:
                line = _("⏱ {name}: {seconds} s", name=online.name(seat), seconds=seconds)
            text.append(line, style="bold #ffd75f" if seat == HUMAN else "")
            text.append("\n")
        if online.spectating:
            obs = online.observation()
            if obs.current_player is not None:
                text.append(_("{name}'s turn", name=online.name(obs.current_player)),
                            style="bold")
            if self.error:
                text.append("\n✗ " + self.error, style="bold #ff5f5f")
            return text
        text.append_text(super()._status(offer))
        return text


class LobbyScreen(Screen[None]):
    """The room before the match: its code and invite link, the seats, and the host's
    keys (``b`` add a bot, ``l`` its level, ``r`` remove a bot, ``t`` the turn timer,
    ``s`` start)."""

    DEFAULT_CSS = """
    LobbyScreen { align: center middle; }
    LobbyScreen > #lobby {
        width: auto; min-width: 50; max-width: 96%; height: auto;
        border: round $accent; padding: 0 1;
    }
    LobbyScreen #lobby-title { text-style: bold; margin-bottom: 1; }
    LobbyScreen #lobby-error { color: #ff5f5f; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "add_bot", "Add a bot"),
        Binding("l", "level", "Bot level"),
        Binding("r", "remove_bot", "Remove a bot"),
        Binding("t", "timer", "Timer"),
        Binding("s,enter", "start", "Start"),
        Binding("q", "quit_room", "Quit"),
    ]

    def __init__(self, session: OnlineSession) -> None:
        super().__init__()
        self.online = session
        self.levels = bot_levels()
        self.level = default_level()
        """The level of the next bot ``b`` seats."""
        self.error = ""
        self.timer_asked: int | None = None
        """The turn timer last asked for and not yet seen in the room: ``t`` pressed
        again before the room answers goes on from it."""

    def compose(self) -> ComposeResult:
        with Vertical(id="lobby"):
            yield Static("", id="lobby-title")
            yield Static("", id="seats")
            yield Static("", id="lobby-error")
            yield Static("", id="keys", classes="hint")

    def on_mount(self) -> None:
        self._show_room()

    def session_changed(self) -> None:
        """Show the room as it is now."""
        if self.timer_asked == int(self.online.room.get("turn_timer") or 0):
            self.timer_asked = None
        if self.is_mounted:
            self._show_room()

    def _show_room(self) -> None:
        online = self.online
        room = online.room
        title = Text()
        title.append(_("Room {code}", code=online.code), style="bold")
        title.append(" · " + online.rules_text)
        if online.invite:
            title.append("\n" + _("Invite link: {link}", link=online.invite))
        title.append("\n" + _("Join from a terminal: unokit play --server {server} --room "
                              "{code}", server=online.client.base, code=online.code))
        self.query_one("#lobby-title", Static).update(title)
        seats = Text()
        for remote, seat in enumerate(room.get("seats", [])):
            kind = seat.get("kind")
            name = display_name(seat.get("name") or "")
            if kind == "empty":
                what = pgettext("a seat that nobody has taken", "free")
            elif kind == "bot":
                what = _("bot ({level})", level=seat.get("bot") or "")
            else:
                what = name + (" · " + _("host") if seat.get("host") else "")
                if remote == online.client.seat:
                    what += " · " + pgettext("the tag beside your own seat's name", "you")
            seats.append(_("Seat {n}: {what}", n=remote, what=what) + "\n")
        timer = int(room.get("turn_timer") or 0)
        seats.append(_("Turn timer: {seconds} s", seconds=timer) if timer
                     else _("Turn timer: off"))
        if online.connection == "reconnecting":
            seats.append("\n" + _("⟳ Reconnecting to the server…"), style="bold #ff5f5f")
        elif online.connection == "gone":
            seats.append("\n" + _("✗ The server closed the seat: {reason} (q: quit)",
                                   reason=online.gone_reason), style="bold #ff5f5f")
        self.query_one("#seats", Static).update(seats)
        self.query_one("#lobby-error", Static).update(Text("✗ " + self.error)
                                                      if self.error else "")
        if online.spectating:
            keys = _("Watching: the match starts when the host starts it. q: quit")
        elif online.is_host:
            keys = _("b: add a {level} bot · l: bot level · r: remove a bot · t: timer · "
                     "s: start · q: quit", level=self.level)
        else:
            keys = _("Waiting for the host to start the match. q: quit")
        self.query_one("#keys", Static).update(keys)

    def _host(self, command: str, *args: Any) -> None:
        async def run() -> None:
            self.error = await self.online.host(command, *args)
            if self.error and command == "set_timer":
                self.timer_asked = None
            self.session_changed()

        self.run_worker(run(), group="host")

    def action_add_bot(self) -> None:
        self._host("add_bot", self.level)

    def action_level(self) -> None:
        index = self.levels.index(self.level) if self.level in self.levels else -1
        self.level = self.levels[(index + 1) % len(self.levels)]
        self.session_changed()

    def action_remove_bot(self) -> None:
        seats = self.online.room.get("seats", [])
        bots = [i for i, seat in enumerate(seats) if seat.get("kind") == "bot"]
        if not bots:
            self.error = _("there is no bot to remove")
            self.session_changed()
            return
        self._host("remove_bot", bots[-1])

    def action_timer(self) -> None:
        now = (self.timer_asked if self.timer_asked is not None
               else int(self.online.room.get("turn_timer") or 0))
        following = TIMERS[(TIMERS.index(now) + 1) % len(TIMERS)] if now in TIMERS else 0
        self.timer_asked = following
        self._host("set_timer", following)

    def action_start(self) -> None:
        self._host("start")

    def action_quit_room(self) -> None:
        self.app.exit()


class OnlineApp(App[None]):
    """The terminal game in an online room.

    Args:
        server: the server's base URL.
        room: the room's code; ``None`` makes a new room (``create``: its fields, as
            ``POST /api/rooms`` takes them) with the player as its host.
        name: the player's name in the room ("" : the server's "Player N").
        spectate: watch instead of playing.
        tokens: where seat tokens are kept (``None``: nowhere).
    """

    TITLE = "unokit"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]
    CSS = """
    .hint {
        color: $text-muted;
        height: auto;
    }
    """

    def __init__(self, server: str, room: str | None = None, *, name: str = "",
                 spectate: bool = False, tokens: TokenStore | None = None,
                 create: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.server = server
        self.room_code = room
        self.player_name = name
        self.spectate = spectate
        self.tokens = tokens
        self.create = dict(create or {})
        self.session: OnlineSession | None = None
        self.table: OnlineTableScreen | None = None
        self.lobby: LobbyScreen | None = None
        self.start_error = ""
        """Why the room could not be joined (the app then exits)."""
        self.opened = asyncio.Event()
        """Set once the room is joined (:attr:`session`) or could not be
        (:attr:`start_error`)."""

    def on_mount(self) -> None:
        self.run_worker(self._open(), group="session", exit_on_error=False)

    async def _open(self) -> None:
        try:
            code = self.room_code
            if code is None:
                made = await create_room(self.server, **self.create)
                code = str(made["code"])
                self.room_code = code
            client = await join_room(self.server, code, name=self.player_name,
                                     spectate=self.spectate, tokens=self.tokens)
        except (ClientError, ActionRefused) as exc:
            self.start_error = str(exc)
        except Exception as exc:  # the server went away in the middle of the hello
            self.start_error = _("cannot join {code} on {server}: {reason}",
                                 code=self.room_code, server=self.server,
                                 reason=str(exc) or type(exc).__name__)
        else:
            you = display_name(self.player_name) if self.player_name else DEFAULT_NAME
            session = OnlineSession(client, tokens=self.tokens, you=you)
            self.session = session
            session.on_change = self._changed  # the first change shows the lobby or table
            self.opened.set()
            await session.follow()
            return
        self.opened.set()
        self.exit()

    def _changed(self) -> None:
        self._show()
        for screen in (self.table, self.lobby):
            if screen is not None:
                screen.session_changed()

    def _show(self) -> None:
        session = self.session
        if session is None:
            return
        if session.started and self.table is None:
            self.table = OnlineTableScreen(session)
            if self.lobby is not None:
                self.switch_screen(self.table)
                self.lobby = None
            else:
                self.push_screen(self.table)
        elif not session.started and self.table is None and self.lobby is None:
            self.lobby = LobbyScreen(session)
            self.push_screen(self.lobby)

    async def on_unmount(self) -> None:
        if self.session is not None:
            await self.session.client.close()

    # ------------------------------------------------------------ records
    def default_record_path(self) -> str:
        """The file name the save dialog offers."""
        return f"unokit-room-{self.room_code or 'match'}.json"

    def save_record(self, path: str) -> str:
        """Save the match record (fetched from the server at the end) to ``path``."""
        text = self.session.record_text if self.session is not None else None
        if not text:
            return _("✗ the server has not sent the record yet")
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as exc:
            return _("✗ cannot write {path}: {reason}", path=path,
                     reason=exc.strerror or exc)
        return _("✓ saved to {path} (replay it with: unokit replay {path} --tui)",
                 path=path)

    def new_match(self) -> None:
        """Online, a new match is a new room: the game ends here."""
        self.exit()


def run_online(server: str, room: str | None = None, *, name: str = "",
               spectate: bool = False, tokens: TokenStore | None = None,
               create: dict[str, Any] | None = None) -> str:
    """Run the terminal game in an online room (blocks until the player quits); why
    the room could not be joined, or ``""``."""
    app = OnlineApp(server, room, name=name, spectate=spectate, tokens=tokens,
                    create=create)
    app.run()
    return app.start_error


__all__ = ["LobbyScreen", "OnlineApp", "OnlineTableScreen", "run_online"]
