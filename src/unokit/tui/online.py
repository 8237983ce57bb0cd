"""The terminal game in an online room: ``unokit play --server URL [--room CODE]``.

An :class:`OnlineSession` gives the table (:class:`unokit.tui.table_screen.TableScreen`)
what the local :class:`unokit.tui.session.Session` gives it, fed by a game server
through :class:`unokit.client.client.GameClient`: the names and levels of the seats, the
seat's view and legal actions, the log from the seat's view, the scores and the end of
each round. The server plays the bots, keeps the turn timer and decides every action;
the session only shows what it is sent and sends what the player chooses.

The table always shows its player at seat 0. Online, the player's seat is any seat of
the room, so the session turns the room around: seat ``s`` of the room is seat
``(s - me) % n`` at the table (the order of play stays the same). Every view, event and
action text crosses that turn in both directions:

>>> turn = Turn(me=2, n=3)
>>> turn.local(2), turn.local(0), turn.remote(1)
(0, 1, 0)
>>> turn.local_text("catch 0"), turn.remote_text("R7@1")
('catch 1', 'R7@0')

Joining a room, and the file of seat tokens that takes a seat back, are in
:mod:`unokit.tui.online_join`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from rich.text import Text

from unokit.client.client import ActionRefused, ClientError, GameClient
from unokit.client.remote_bot import observation_from_view
from unokit.engine import actions as A
from unokit.engine.cards import COLOR_LETTERS, parse_card
from unokit.engine.errors import ActionCodeError, UnoError
from unokit.engine.events import Event, EventKind
from unokit.engine.game import Phase
from unokit.engine.observation import Observation
from unokit.engine.rules import Rules
from unokit.i18n import _, current_language, pgettext
from unokit.text.safe import display_name
from unokit.text.transcript import describe_event
from unokit.tui.faces import decorate
from unokit.tui.online_join import TokenStore
from unokit.tui.session import DEFAULT_NAME, HUMAN, Move, Offer, as_you, make_offer, shown_name

_TARGET = re.compile(r"(@|^catch )(\d)")

RECONNECT_FIRST = 0.2
"""Seconds before the second try to reconnect; each further try waits twice as long."""
RECONNECT_MAX = 5.0
"""The longest wait between two tries to reconnect."""
RATE_PAUSE = 0.2
"""Seconds to wait after the server answered ``rate_limited``."""


class Turn:
    """Seat numbers of the room (remote) and of the table (local: the player at 0)."""

    def __init__(self, me: int, n: int) -> None:
        self.me = me
        self.n = n

    def local(self, seat: int) -> int:
        """The table's seat of the room's ``seat`` (negative values stay as they are)."""
        return (seat - self.me) % self.n if 0 <= seat < self.n else seat

    def remote(self, seat: int) -> int:
        """The room's seat of the table's ``seat``."""
        return (seat + self.me) % self.n if 0 <= seat < self.n else seat

    def by_seat(self, values: Sequence[Any]) -> list[Any]:
        """A per-seat list of the room in the table's order."""
        values = list(values)
        if len(values) != self.n:
            return values
        return values[self.me:] + values[:self.me]

    def local_text(self, text: str) -> str:
        """An action text of the room with its seat numbers turned to the table's."""
        return _TARGET.sub(lambda m: m.group(1) + str(self.local(int(m.group(2)))), text)

    def remote_text(self, text: str) -> str:
        """An action text of the table with its seat numbers turned to the room's."""
        return _TARGET.sub(lambda m: m.group(1) + str(self.remote(int(m.group(2)))), text)

    def event(self, event: Event) -> Event:
        """An event of the room in the table's seats."""
        data = event.data
        if event.kind in (EventKind.ROUND_ENDED, EventKind.MATCH_ENDED) \
                and isinstance(data, dict):
            data = dict(data)
            for key in ("points", "scores", "hands"):
                if isinstance(data.get(key), list):
                    data[key] = self.by_seat(data[key])
            if isinstance(data.get("finish_order"), list):
                data["finish_order"] = [self.local(s) for s in data["finish_order"]]
        return event._replace(
            player=self.local(event.player), target=self.local(event.target),
            visible_to=None if event.visible_to is None
            else tuple(self.local(s) for s in event.visible_to), data=data)

    def observation(self, obs: Observation) -> Observation:
        """A view of the room in the table's seats."""
        def seat(value: int | None) -> int | None:
            return None if value is None else self.local(value)

        return replace(
            obs, seat=HUMAN if obs.seat is not None and obs.seat >= 0 else obs.seat,
            current_player=seat(obs.current_player),
            hand_sizes=tuple(self.by_seat(obs.hand_sizes)),
            scores=tuple(self.by_seat(obs.scores)), dealer=self.local(obs.dealer),
            uno_open=seat(obs.uno_open), active=tuple(self.by_seat(obs.active)),
            in_match=tuple(self.by_seat(obs.in_match)),
            finish_order=tuple(self.local(s) for s in obs.finish_order),
            levels=tuple(self.by_seat(obs.levels)), round_winner=seat(obs.round_winner),
            match_winner=seat(obs.match_winner),
            slap_left=tuple(self.local(s) for s in obs.slap_left))


def event_from_dict(data: dict[str, Any]) -> Event:
    """The :class:`Event` of its :meth:`~unokit.engine.events.Event.to_dict`.

    >>> event_from_dict({"seq": 6, "kind": "played", "player": 0, "card": "G9"}).card
    41
    """
    color = data.get("color")
    visible = data.get("visible_to")
    return Event(
        seq=int(data["seq"]), kind=EventKind(data["kind"]), player=int(data.get("player", -1)),
        target=int(data.get("target", -1)),
        card=parse_card(data["card"]) if "card" in data else -1,
        color=COLOR_LETTERS.index(color) if isinstance(color, str) else -1,
        cards=tuple(parse_card(c) for c in data.get("cards", ())),
        amount=int(data.get("amount", 0)), reason=str(data.get("reason", "")),
        visible_to=None if visible is None else tuple(int(s) for s in visible),
        data=data.get("data"))


class RemoteGame:
    """The game as the table reads it (``session.game``), from the server's view of the
    seat, the events and the room; seats are the table's."""

    def __init__(self, session: OnlineSession) -> None:
        self._s = session

    @property
    def _obs(self) -> Observation:
        return self._s.observation()

    @property
    def n(self) -> int:
        return self._s.turn.n

    @property
    def rules(self) -> Rules:
        return self._s.rules

    @property
    def log(self) -> list[Event]:
        return self._s.log

    @property
    def phase(self) -> Phase:
        return Phase(self._obs.phase)

    @property
    def current_player(self) -> int | None:
        return self._obs.current_player

    @property
    def round_no(self) -> int:
        return self._obs.round

    @property
    def color(self) -> int:
        return self._obs.color

    @property
    def pending(self) -> int:
        return self._obs.pending_draw

    @property
    def scores(self) -> list[int]:
        return list(self._obs.scores)

    @property
    def finish_order(self) -> list[int]:
        return list(self._obs.finish_order)

    @property
    def in_match(self) -> list[bool]:
        return list(self._obs.in_match)

    @property
    def round_winner(self) -> int | None:
        return self._obs.round_winner

    @property
    def match_winner(self) -> int | None:
        return self._obs.match_winner

    @property
    def round_points(self) -> list[int]:
        ended = self._last(EventKind.ROUND_ENDED)
        if ended is not None and isinstance(ended.data, dict):
            return list(ended.data.get("points", [0] * self.n))
        return [0] * self.n

    @property
    def hands(self) -> list[list[int]]:
        """The player's hand, and for the others as many unknown cards as they hold."""
        obs = self._obs
        return [list(obs.hand) if seat == HUMAN else [-1] * size
                for seat, size in enumerate(obs.hand_sizes)]

    @property
    def wd4_by(self) -> int:
        """Who played the Wild Draw Four now open to a challenge."""
        played = self._last(EventKind.PLAYED)
        return played.player if played is not None else -1

    @property
    def wd4_color(self) -> int:
        return -1  # the colour before the Wild Draw Four: not in the seat's view

    @property
    def exchange_from(self) -> int:
        """Who played the card that asks for one back (phase ``exchange``)."""
        played = self._last(EventKind.PLAYED)
        return played.player if played is not None else -1

    def is_over(self) -> bool:
        return self._obs.phase == Phase.MATCH_OVER.value

    def _last(self, kind: EventKind) -> Event | None:
        return next((e for e in reversed(self._s.log) if e.kind is kind), None)


_EMPTY_VIEW = Observation(
    seat=HUMAN, phase="play", current_player=None, direction=1, top=-1, color=-1, hand=(),
    hand_sizes=(), draw_pile_size=0, discard=(), scores=(), dealer=-1, round=0,
    pending_draw=0, uno_open=None, drawn_card=None, partner_hand=None, active=(),
    in_match=(), finish_order=(), levels=(), round_winner=None, match_winner=None)


class OnlineSession:
    """A seat (or a spectator) of an online room, as the table reads a session; see the
    module docstring. :meth:`follow` keeps it up to date; :meth:`send` plays."""

    def __init__(self, client: GameClient, *, tokens: TokenStore | None = None,
                 you: str = DEFAULT_NAME) -> None:
        self.client = client
        self.you = you
        """The player's name at the table (``You``: the log speaks to the player)."""
        self.tokens = tokens
        self.spectating = client.seat is None
        n = len(client.room.get("seats", [])) or 2
        self.turn = Turn(client.seat or 0, n)
        self.rules = Rules.from_dict(client.room["rules"])
        self.rules_text = str(client.room.get("rules_text") or self.rules.to_string())
        self.code = str(client.room.get("code", client.room_code))
        self.invite = str(client.room.get("invite", ""))
        self.game = RemoteGame(self)
        self.names: list[str] = []
        self.levels: list[str] = []
        self.lines: list[Text] = []
        """The log as the player reads it, one line per event."""
        self.log: list[Event] = []
        """The room's events as this seat may see them, in the table's seats."""
        self.problems: list[str] = []
        self.spoke: set[int] = set()
        self.connection = "connected"
        """``connected``, ``reconnecting`` or ``gone`` (the server will not take the
        seat back: :attr:`gone_reason` says why)."""
        self.gone_reason = ""
        self.record_text: str | None = None
        """The match record (JSON), fetched once the match is over."""
        self.view: Observation | None = None
        self.room: dict[str, Any] = {}
        """The room as last read (``client.room`` once the session has shown it)."""
        self.must = False
        """The game waits for this seat (as of :attr:`view`)."""
        self.lead = -1
        """The room's seat the game waits for (as of :attr:`view`)."""
        self._legal_texts: list[str] = []
        self._version = 0
        self._seen = 0
        self._changed = asyncio.Event()
        self._listener = asyncio.Event()
        client.listeners.append(self._listener)
        self.on_change: Callable[[], None] | None = None
        self._read_room()
        self._read_new_events()

    # ------------------------------------------------------------ what the table reads
    @property
    def version(self) -> int:
        """Changes with every new view (the table asks once per version)."""
        return self._version

    @property
    def current(self) -> bool:
        """The view is as new as the last event received."""
        return self._seen_seq == self.client.last_seq

    @property
    def seed(self) -> str:
        """The room's code (the match seed is revealed only at the end)."""
        return self.code

    @property
    def started(self) -> bool:
        """The match has started (there is a view of it)."""
        return self.view is not None

    @property
    def status(self) -> str:
        """The room's status: ``lobby``, ``playing`` or ``finished``."""
        return str(self.room.get("status", "lobby"))

    @property
    def is_host(self) -> bool:
        seat = self.client.seat
        seats = self.room.get("seats", [])
        return seat is not None and seat < len(seats) and bool(seats[seat].get("host"))

    def observation(self) -> Observation:
        """What the player sees (seats turned to the table's)."""
        return self.view if self.view is not None else replace(
            _EMPTY_VIEW, hand_sizes=(0,) * self.turn.n, scores=(0,) * self.turn.n,
            active=(True,) * self.turn.n, in_match=(True,) * self.turn.n,
            levels=(0,) * self.turn.n)

    def legal(self) -> list[int]:
        """The player's legal actions now (in the table's seats)."""
        out = []
        for text in self._legal_texts:
            with contextlib.suppress(ActionCodeError):
                out.append(A.parse_action(f"{HUMAN}:{self.turn.local_text(text)}"))
        return out

    def offer(self) -> Offer:
        return make_offer(self.legal())

    def phase(self) -> Phase:
        return self.game.phase

    def next_move(self) -> Move | None:
        """Never a move: the server plays the bots."""
        return None

    def wait_for(self, move: Move, delay: float) -> float:
        return 0.0

    def name(self, seat: int | None) -> str:
        """A seat's name (a seat of the table)."""
        if seat is None or not 0 <= seat < len(self.names):
            return _("nobody")
        if seat == HUMAN and not self.spectating:
            return shown_name(self.names[seat])
        return self.names[seat]

    def shown_names(self) -> list[str]:
        """Every seat's name as the table shows it (the default ``You`` in the current
        language)."""
        return [self.name(seat) for seat in range(len(self.names))]

    def _speaks_to_you(self) -> bool:
        """Whether the log says the player's lines in the second person (English, with
        the default name)."""
        return not self.spectating and self.you == DEFAULT_NAME and current_language() == "en"

    def remote_name(self, seat: int) -> str:
        """The name of the room's ``seat``."""
        return self.name(self.turn.local(seat))

    def named(self, text: str) -> str:
        """A server message with the room's seat numbers (``seat 2``) given as names."""
        text = re.sub(r"\bseat (\d)\b", lambda m: self.remote_name(int(m.group(1))), text)
        return as_you(text) if self._speaks_to_you() else text

    def timer_left(self, now: float) -> tuple[int, float] | None:
        """The turn clock: (the table's seat, seconds left), if one runs."""
        timer = self._timer_seen
        if not timer or not timer.get("ms") or self._timer_at is None \
                or timer.get("seat") != self.lead:
            return None  # no clock, or the turn it timed has passed
        left = timer["ms"] / 1000 - (now - self._timer_at)
        return (self.turn.local(int(timer["seat"])), left) if left > 0 else None

    _timer_at: float | None = None
    _timer_seen: dict[str, Any] | None = None

    def away(self, seat: int) -> bool:
        """Whether a bot plays for the table's ``seat`` until its player acts again."""
        seats = self.room.get("seats", [])
        remote = self.turn.remote(seat)
        return remote < len(seats) and bool(seats[remote].get("away"))

    # ------------------------------------------------------------ actions
    def remote_text(self, action: int) -> str:
        """The room's action text of the table's ``action``."""
        return self.turn.remote_text(A.format_action(action).split(":", 1)[1])

    @property
    def saving(self) -> bool:
        """An action or command of the player was not kept yet (a database outage): the
        client sends it again with its id until the server keeps it."""
        return bool(self.client.saving)

    async def send(self, action: int) -> str:
        """Send the player's ``action``; ``""`` when the server took it, else the
        reason it was refused (with names for seat numbers)."""
        if self.spectating:
            return _("you are watching: spectators do not play")
        if self.connection != "connected":
            return _("not sent: the connection to the server is down")
        try:
            await self.client.act(self.remote_text(action))
        except ActionRefused as exc:
            return self.named(exc.message or exc.code)
        except (ClientError, TimeoutError):
            return _("the action was not answered: the connection is down")
        return ""

    async def host(self, command: str, *args: Any) -> str:
        """A host command (``start``, ``add_bot``, ``remove_bot``, ``set_timer``);
        ``""`` when taken, else the reason it was refused."""
        try:
            await getattr(self.client, command)(*args)
        except ActionRefused as exc:
            return self.named(exc.message or exc.code)
        except (ClientError, TimeoutError):
            return _("the command was not answered: the connection is down")
        return ""

    # ------------------------------------------------------------ following the room
    async def wait(self, condition: Callable[[], bool], timeout: float = 60.0) -> None:
        """Wait until ``condition()`` holds (checked after every change)."""
        async with asyncio.timeout(timeout):
            while not condition():
                self._changed.clear()
                await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()
        if self.on_change is not None:
            self.on_change()

    async def follow(self) -> None:
        """Keep the session up to date until the connection is gone for good: new views
        after new events, the room, the timer, and reconnecting after a drop."""
        client = self.client
        await self._refresh_view()
        self._notify()
        while self.connection != "gone":
            await self._listener.wait()
            self._listener.clear()
            if client.closed.is_set():
                await self._reconnect()
                continue
            changed = self._read_room()
            if client.timer is not self._timer_seen:
                self._timer_seen = client.timer
                self._timer_at = asyncio.get_running_loop().time()
                changed = True
            if client.last_seq != self._seen_seq or client.legal != self._seen_legal:
                await self._refresh_view()
                changed = True
            if client.reveal is not None and self.record_text is None:
                await self._fetch_record()
            if self.saving != self._seen_saving:  # "saving" shows, or goes
                self._seen_saving = self.saving
                changed = True
            if changed:
                self._notify()

    _seen_seq = -2
    _seen_saving = False
    _seen_legal: list[str] | None = None

    async def _refresh_view(self) -> None:
        """Ask for the seat's view until it is as new as the last event seen."""
        client = self.client
        while True:
            seq = client.last_seq
            view = await self._snapshot()
            if client.closed.is_set():
                return  # the follower reconnects, then asks again
            legal = list(client.legal)
            if view is not None:
                self.view = self.turn.observation(observation_from_view(view))
            self._read_new_events()
            if client.last_seq == seq:
                break
        self._seen_seq, self._seen_legal = client.last_seq, list(client.legal)
        self._legal_texts = [] if self.spectating or self.view is None else legal
        self.must, self.lead = client.must and not self.spectating, client.lead
        self._version += 1

    async def _snapshot(self) -> dict[str, Any] | None:
        """The server's view of the seat, or ``None`` (before the match, or the
        connection dropped before the answer)."""
        client = self.client
        asked = asyncio.ensure_future(client.snapshot())
        closed = asyncio.ensure_future(client.closed.wait())
        done, _pending = await asyncio.wait({asked, closed},
                                            return_when=asyncio.FIRST_COMPLETED)
        closed.cancel()
        if asked not in done:
            asked.cancel()
            return None
        try:
            return asked.result()
        except ActionRefused as exc:
            if exc.code == "rate_limited":
                await asyncio.sleep(RATE_PAUSE)  # the server wants fewer messages
                return await self._snapshot()
            return None
        except (ClientError, TimeoutError):
            return None

    async def _reconnect(self) -> None:
        client = self.client
        bye = client.bye
        if bye is not None and not bye.get("reconnect", True):
            self._gone(str(bye.get("reason", "")))
            return
        self.connection = "reconnecting"
        self._notify()
        delay = RECONNECT_FIRST
        while True:
            try:
                await client.reconnect()
            except ClientError as exc:
                if str(exc).startswith(("bad_token", "no_room", "room_closed", "room_full",
                                        "version")):
                    if self.tokens is not None and str(exc).startswith("bad_token"):
                        self.tokens.forget(client.base, self.code)
                    self._gone(str(exc))
                    return
            except Exception:  # a drop in the middle of the hello: try again
                pass
            else:
                break
            await asyncio.sleep(delay)  # the backoff between two tries
            delay = min(delay * 2, RECONNECT_MAX)
        self.connection = "connected"
        self._listener.set()
        await self._refresh_view()
        self._notify()

    def _gone(self, reason: str) -> None:
        self.connection = "gone"
        self.gone_reason = reason
        self._notify()

    async def _fetch_record(self) -> None:
        import httpx

        self.record_text = ""
        try:
            async with httpx.AsyncClient(timeout=30) as http:
                answer = await http.get(
                    f"{self.client.base.rstrip('/')}/api/rooms/{self.code}/record")
            if answer.status_code == 200:
                self.record_text = answer.text
        except httpx.HTTPError:
            pass

    def _read_room(self) -> bool:
        """The room, its names and levels; whether they changed."""
        changed = self.client.room != self.room
        self.room = dict(self.client.room)
        seats = self.room.get("seats", [])
        names, levels = [], []
        for remote, seat in enumerate(seats):
            kind = seat.get("kind")
            name = display_name(seat.get("name") or _("Seat {n}", n=remote))
            if remote == self.client.seat:
                level = "you"
            elif kind == "bot":
                level = _("bot")  # its name says which: "normal bot"
            elif kind == "empty":
                name, level = _("(empty)"), pgettext("a seat that nobody has taken", "free")
            elif seat.get("away"):
                level = _("away")
            elif not seat.get("connected"):
                level = _("offline")
            else:
                level = _("online")
            names.append(name)
            levels.append(level)
        names, levels = self.turn.by_seat(names), self.turn.by_seat(levels)
        if not self.spectating and names:
            names[HUMAN] = self.you
        if names == self.names and levels == self.levels:
            return changed
        self.names, self.levels = names, levels
        return True

    def _read_new_events(self) -> None:
        events = self.client.events
        second_person = self._speaks_to_you()
        viewer = None if self.spectating else HUMAN
        names = self.shown_names()
        for data in events[self._seen:]:
            try:
                event = self.turn.event(event_from_dict(data))
                line = describe_event(event, viewer, names, markup=True)
            except (KeyError, TypeError, ValueError, UnoError):
                # an event of a newer server: say so, and go on with the others
                self.lines.append(Text(_("(event {seq}: {kind}, not known to this "
                                         "version)", seq=data.get("seq", "?"),
                                         kind=data.get("kind", "?")), style="dim"))
                continue
            self.log.append(event)
            if second_person:
                line = as_you(line)
            self.lines.append(decorate(line))
        self._seen = len(events)


__all__ = [
    "OnlineSession",
    "RemoteGame",
    "Turn",
    "event_from_dict",
]
