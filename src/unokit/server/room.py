"""A room: one asyncio task that owns one game, its seats and its timers.

Every message for the room goes through its inbox and is handled one at a time, so the
room needs no locks. An action is checked, applied by the engine, committed to the
database, and only then acknowledged and broadcast, each viewer getting the events as
:func:`unokit.engine.events.redact` lets it see them. A room that has been stopped (the
process was killed, say) comes back with :meth:`Room.restore`, which replays its stored
actions.

The catch grace (docs/fairness.md): when a player plays down to one card without
calling UNO, for ``catch_grace`` seconds of server time their call still counts, catches
are held, and every other action waits. Then, if the call did not come, the held catch
of the seat nearest after the caught player (in seat order) is applied and the others
are refused, whatever order they arrived in; later catches race in the order they
arrive. The actions that waited are then applied in the order they arrived. A player
may also call ahead: ``uno`` while holding two cards is remembered, and that seat's
next action, if it is a play that the engine allows with the call, is applied with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from unokit.bots.base import Bot
from unokit.engine.actions import (
    CATCH,
    NEXT_ROUND,
    PLAY,
    UNO,
    UNO_FLAG,
    action_target,
    action_type,
    format_action,
    parse_action,
)
from unokit.engine.driver import Driver
from unokit.engine.errors import ActionCodeError, IllegalActionError, Reason, UnoError
from unokit.engine.events import Event, redact
from unokit.engine.game import Game
from unokit.engine.phases import MATCH_OVER, ROUND_OVER
from unokit.engine.rules import Rules
from unokit.formats import fairdeal
from unokit.formats.record import Record
from unokit.i18n import N_, localize
from unokit.server import protocol as P
from unokit.server.answers import Answers, refusals_of
from unokit.server.bot_specs import clamp_bot_spec
from unokit.server.chat import ChatHeld, Talk
from unokit.server.fanout import SPECTATORS, FanOut
from unokit.server.lobby import CLOSED, Lobby
from unokit.server.moved import refuse_moved
from unokit.server.outage import NOT_STORED, RETRY_AFTER, RETRY_CODES, UNAVAILABLE
from unokit.server.oversight import NO_OVERSIGHT, Oversight
from unokit.server.pacing import Pacing
from unokit.server.presence import ABANDONED, ENDED, Presence
from unokit.server.seating import (
    BOT,
    EMPTY,
    HUMAN,
    Connection,
    Grace,
    Held,
    RoomError,
    Seat,
    language,
    token_hash,
)
from unokit.server.settings import TURN_TIMERS, Settings
from unokit.store import ActionData, LeaseLost, Store, StoredRoom, StoreError

LOG = logging.getLogger("unokit.room")

Item = tuple[str, Any, Any]


TRANSIENT = frozenset({"not_stored", "unavailable", "closing", "rate_limited"})
"""Error codes that say "nothing was kept, send it again": a room does not answer a
resent id with them."""



@functools.lru_cache(maxsize=1 << 16)
def _action_text(action: int) -> str:
    """The text form of an action (an action's text never changes: worked out once)."""
    return format_action(action)


@functools.lru_cache(maxsize=1 << 16)
def _seatless_text(action: int) -> str:
    """The text form of an action without its seat, as the protocol writes it."""
    return _action_text(action).split(":", 1)[1]

class Room(Lobby, Talk, Pacing, Presence):
    """One room. Create it with :meth:`create` or :meth:`restore`, :meth:`start` its
    task, and hand it messages with :meth:`submit`."""

    oversight: Oversight = NO_OVERSIGHT
    """The server's metrics, bans and word list (:meth:`Rooms._add` sets them)."""

    def __init__(self, *, room_id: int, code: str, rules: Rules, store: Store,
                 fanout: FanOut, settings: Settings, turn_timer: int, public: bool,
                 server_seed: str, commitment: str, seats: list[Seat],
                 status: str = "lobby") -> None:
        self.id = room_id
        self.code = code
        self.rules = rules
        self._rules_shown = (rules.to_dict(), rules.to_string())
        """The rule set as the room message shows it (worked out once: rules never
        change)."""
        self.store = store
        self.fanout = fanout
        self.settings = settings
        self.turn_timer = turn_timer
        self.public = public
        self.server_seed = server_seed
        self.commitment = commitment
        self.seats = seats
        self.status = status
        self.contributions: dict[int, str] = {}
        self.seed: int | None = None
        self.game: Game | None = None
        self.driver: Driver | None = None
        self.bots: dict[int, Bot] = {}
        self.conns: set[Connection] = set()
        self.answers = Answers()
        """The acks owed to each seat's occupant, for the match (refusals are kept by
        each connection: :func:`refusals_of`)."""
        self.waiters: dict[tuple[int, str], list[Connection]] = {}
        """Connections that resent an id whose action is held by a catch grace: they get
        its answer when it comes."""
        self.inbox: asyncio.Queue[Item] = asyncio.Queue()
        self.grace: Grace | None = None
        self.called_ahead: set[int] = set()
        """Seats that called UNO while holding two cards, before their play."""
        self.bot_due: float | None = None
        self.timer_due: float | None = None
        self.timer_seat = -1
        self._timer_key: tuple[int, int, str] | None = None
        self.pause_due: float | None = None
        self.task: asyncio.Task[None] | None = None
        self.closing = False
        self.last_commit = time.time()
        self.finished_at: float | None = None
        """``time.monotonic()`` when the match ended here, or when the room came back
        finished after a restart."""
        self.unloaded = False
        """Set when the finished room let go of memory (:meth:`_unload_if_idle`)."""
        self.on_unloaded: Callable[[Room], None] | None = None
        self.on_closed: Callable[[Room], None] | None = None
        """Told when the room closes (an idle lobby): its task has stopped."""
        self.lost = False
        """Set when the room found that another process owns it now (:meth:`_hand_over`)."""
        self.on_lost: Callable[[Room], None] | None = None
        """Told when the room left because another process owns it now."""
        self.absent: dict[int, float] = {}
        self.auto_start = False
        """Start the match as soon as every seat is taken ("play now")."""
        self.presence_due = False
        """Set while a room message for spectators who came or went is waiting."""
        self._chat_setup()

    # ------------------------------------------------------------ creating
    @classmethod
    async def create(cls, *, code: str, rules: Rules, store: Store, fanout: FanOut,
                     settings: Settings, turn_timer: int | None = None,
                     public: bool = True, server_seed: bytes | None = None) -> Room:
        """A new room in the lobby, stored, with every seat empty."""
        timer = settings.turn_timer if turn_timer is None else turn_timer
        if timer not in TURN_TIMERS:
            raise RoomError("bad_request", N_("the turn timer is 0 (off), 15, 30 or 60 seconds"))
        seed = fairdeal.new_server_seed() if server_seed is None else server_seed
        commitment = fairdeal.commitment(seed)
        from unokit.store import NewRoom
        room_id = await store.create_room(NewRoom(
            code=code, rules=json.dumps(rules.to_dict(), sort_keys=True), turn_timer=timer,
            public=public, server_seed=seed.hex(), commitment=commitment,
            seats=rules.players))
        return cls(room_id=room_id, code=code, rules=rules, store=store, fanout=fanout,
                   settings=settings, turn_timer=timer, public=public,
                   server_seed=seed.hex(), commitment=commitment,
                   seats=[Seat() for _ in range(rules.players)])

    @classmethod
    def restore(cls, stored: StoredRoom, *, store: Store, fanout: FanOut,
                settings: Settings) -> Room:
        """The room as it was: seats, contributions, the match replayed from its stored
        actions (timeouts and away seats counted again from their origins), and the
        answers owed to its seats' current occupants (for their actions, commands and chat
        lines).

        Raises:
            UnoError: the stored actions do not replay (the room cannot come back).
        """
        rules = Rules.from_dict(json.loads(stored.rules))
        cap = settings.bot_max_iterations  # a stored search:N above the cap is lowered
        seats = [Seat(kind=s.kind, name=s.name, token_hash=s.token_hash, host=s.host,
                      occupant=s.occupant,
                      bot=clamp_bot_spec(s.bot, max_iterations=cap) if s.kind == BOT
                      else s.bot) for s in stored.seats]
        room = cls(room_id=stored.id, code=stored.code, rules=rules, store=store,
                   fanout=fanout, settings=settings, turn_timer=stored.turn_timer,
                   public=stored.public, server_seed=stored.server_seed,
                   commitment=stored.commitment, seats=seats, status=stored.status)
        room.contributions = dict(stored.contributions)
        if stored.seed is not None:
            room._begin(stored.seed)
            game, driver = room.game, room.driver
            assert game is not None and driver is not None
            for row in stored.actions:
                if row.n != len(game.history):
                    raise UnoError(f"room {stored.code}: action {row.n} out of order")
                driver.apply(parse_action(row.action))
                if game.log[-1].seq != row.seq:
                    raise UnoError(f"room {stored.code}: action {row.n} replays to event "
                                   f"{game.log[-1].seq}, stored {row.seq}")
                room._count_origin(row.seat, row.origin)
                if row.client_id is not None and row.occupant == seats[row.seat].occupant:
                    room._remember(row.seat, row.client_id,
                                   P.encode(P.Ack(id=row.client_id, seq=row.seq)),
                                   counted=False)
            if stored.actions:
                room.last_commit = stored.actions[-1].at
            if game.phase is MATCH_OVER:
                room.status = "finished"
            elif stored.status == "abandoned":
                room.status = "abandoned"
        for answer in stored.answers:  # the host's and the lobby's commands
            room._remember(answer.seat, answer.client_id, answer.answer.encode())
        room.answers_next = stored.next_answer
        room._chat_setup(stored.chat, stored.chat_answers)
        room.last_seen = room.seen_stored = stored.last_seen
        if room.status in ENDED:
            room.finished_at = time.monotonic()
        return room

    def _begin(self, seed: int) -> None:
        self.seed = seed
        self.game = Game(self.rules, seed)
        self.driver = Driver(self.game)
        self.status = "playing"

    # ------------------------------------------------------------ the task
    def start(self) -> None:
        """Start the room's task."""
        self.task = asyncio.create_task(self._run(), name=f"room-{self.code}")

    def submit(self, kind: str, conn: Any, message: Any = None) -> None:
        """Queue a message for the room: ``("hello", conn, Hello)``, ``("msg", conn,
        message)``, ``("gone", conn, None)``. A closed room answers at once, and so
        does a room another process owns now."""
        if self.lost:
            refuse_moved(kind, conn, message)
            return
        if self.status == "closed":
            self._refuse_closed(kind, conn, message)
            return
        self.inbox.put_nowait((kind, conn, message))

    async def call(self, fn: Callable[[Room], Any]) -> None:
        """Run ``await fn(room)`` in the room's task (which must be running), between
        two messages, and return when it has run (or when the room stopped or closed
        without running it)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def job(room: Room) -> None:
            try:
                await fn(room)
            finally:
                if not done.done():
                    done.set_result(None)
        self.submit("call", done, job)
        await done

    def _refuse_closed(self, kind: str, conn: Any, message: Any) -> None:
        """Answer what came for a closed room: a hello or a message gets ``room_closed``,
        a call is let go."""
        if kind == "call" and isinstance(conn, asyncio.Future):
            if not conn.done():
                conn.set_result(None)
        elif kind in ("hello", "msg") and conn is not None:
            conn.close(P.encode(P.Error(code="room_closed", id=getattr(message, "id", None),
                                        message=localize(language(conn), CLOSED))))

    async def stop(self) -> None:
        """Finish the message being handled, then stop (the rest of the inbox is
        answered ``closing``) and tell every connection to come back."""
        self.closing = True
        self._stop_thinking()  # a bot that thinks is not waited for
        self.inbox.put_nowait(("stop", None, None))
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        while not self.inbox.empty():
            kind, conn, message = self.inbox.get_nowait()
            if kind == "call" and isinstance(conn, asyncio.Future) and not conn.done():
                conn.set_result(None)
            if kind == "msg" and conn is not None:
                conn.deliver(P.encode(P.Error(
                    code="closing", id=getattr(message, "id", None),
                    message=localize(language(conn), N_("the server is restarting: send it "
                                                        "again after reconnecting")))))
        for conn in list(self.conns):
            conn.close(P.encode(P.Bye(reason=localize(language(conn),
                                                      N_("the server is restarting")),
                                      reconnect=True)))

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        game = self.game
        if (game is not None and game.uno_open >= 0 and self.grace is None
                and self.settings.catch_grace > 0 and self.status == "playing"):
            # back after a restart with a missed call open: the grace begins again, whole
            self.grace = Grace(game.uno_open, loop.time() + self.settings.catch_grace)
        self._schedule()
        self._mark_presence(time.monotonic())
        while True:
            due = self._next_due()
            try:
                if not self.inbox.empty():  # a due never holds back a waiting message
                    item = self.inbox.get_nowait()
                elif due is None:
                    item = await self.inbox.get()
                else:
                    item = await asyncio.wait_for(self.inbox.get(),
                                                  max(0.0, due - loop.time()))
            except TimeoutError:
                item = ("due", None, None)
            if item[0] == "stop":
                return
            try:
                await self._handle(item)
            except LeaseLost:
                pass  # nothing of it was kept; the room leaves just below
            except Exception:
                LOG.exception("room failed; rebuilding it from the database",
                              extra={"room": self.code})
                await self._recover()
                self._answer_failed(item)
            if not self.store.holds(self.id):  # another process owns the room now
                self._hand_over()
                return
            if self.status == "closed":  # an idle lobby: what came meanwhile is refused
                while not self.inbox.empty():
                    self._refuse_closed(*self.inbox.get_nowait())
                return
            if self.unloaded:  # nothing waits and nobody can reach the room any more
                return
            try:
                self._schedule()
            except Exception:  # a room that cannot tell what is due would wait forever
                LOG.exception("room failed to work out what is due; rebuilding it from "
                              "the database", extra={"room": self.code})
                await self._recover()
                try:
                    self._schedule()
                except Exception:
                    LOG.exception("room still cannot work out what is due",
                                  extra={"room": self.code})
            self._mark_presence(time.monotonic())

    def check_lease(self) -> None:
        """Have the room check, between two messages, that this process still holds its
        lease (and leave if not)."""
        self.inbox.put_nowait(("lease", None, None))

    def _hand_over(self) -> None:
        """Stop serving the room: another process claimed it after this one's lease ran
        out, so every write of this one is refused. Nothing is answered as done that
        was not stored: what waits is refused, and every connection is told to
        reconnect (and send again what was not answered)."""
        self.lost = self.closing = True
        LOG.warning("room owned by another process now: leaving it",
                    extra={"room": self.code})
        while not self.inbox.empty():
            refuse_moved(*self.inbox.get_nowait())
        for conn in list(self.conns):
            self.fanout.leave(self.code, conn)
            refuse_moved("hello", conn, None)
        self.conns.clear()
        self.waiters.clear()
        if self.on_lost is not None:
            self.on_lost(self)

    def _answer_failed(self, item: Item) -> None:
        """Answer the message the room failed on: its ack if it was committed before the
        failure, else an error (nothing of it was kept); a hello that was not welcomed
        is told to come again."""
        kind, conn, message = item
        msg_id = getattr(message, "id", None)
        if kind == "hello" and conn is not None and conn not in self.conns:
            conn.close(self._unavailable(conn))
            return
        if kind != "msg" or conn is None or msg_id is None:
            return
        known = self._known(conn, msg_id)
        if known is not None:
            conn.deliver(known)
            return
        conn.deliver(P.encode(P.Error(code="not_stored", id=msg_id, message=localize(
            language(conn), N_("the room failed on this message and kept nothing of it: "
                               "send it again")))))

    async def _recover(self) -> None:
        """Rebuild the game from the database after an unexpected failure."""
        try:
            [stored] = await self.store.load_rooms(code=self.code)
            twin = Room.restore(stored, store=self.store, fanout=self.fanout,
                                settings=self.settings)
        except Exception:
            LOG.exception("room could not be rebuilt", extra={"room": self.code})
            return
        held = [] if self.grace is None else [*self.grace.catches, *self.grace.waiting]
        self._stop_thinking()
        self.seats, self.contributions = twin.seats, twin.contributions
        self.game, self.driver, self.seed = twin.game, twin.driver, twin.seed
        self.status, self.grace, self.bots = twin.status, None, {}
        self.called_ahead = set()
        self.chat_lines, self.chat_next, self.chat_at = (twin.chat_lines, twin.chat_next,
                                                         twin.chat_at)
        self.answers.update(twin.answers)
        for waiting in held:  # nothing of them was kept: say so, so that they come again
            self._error(waiting.conn, waiting.seat, waiting.msg_id, "not_stored",
                        N_("the room failed while this waited: send it again"))
        self.waiters.clear()
        self._broadcast_room()

    async def _handle(self, item: Item) -> None:
        kind, conn, message = item
        if kind == "due":
            await self._on_due()
        elif kind == "hello":
            await self._hello(conn, message)
        elif kind == "gone":
            self._gone(conn)
        elif kind == "msg":
            await self._message(conn, message)
        elif kind == "call":
            await message(self)
        elif kind == "bot":
            await self._decided(*message)

    # ------------------------------------------------------------ answers
    def _remember(self, seat: int, msg_id: str, data: bytes, *,
                  counted: bool = True) -> None:
        """Keep ``data`` as the answer to ``msg_id`` of ``seat``'s occupant for the
        match; ``counted``: it counts against the occupant's allowance (all but the
        acks of applied game actions)."""
        self.answers.keep(seat, self.seats[seat].occupant, msg_id, data, counted=counted)

    def _known(self, conn: Connection, msg_id: str) -> bytes | None:
        """What ``msg_id`` was answered with: the seat occupant's ack, else this
        connection's refusal (``None``: it is new here)."""
        seat = conn.viewer
        if seat < 0:
            return None
        known = self.answers.get(seat, self.seats[seat].occupant, msg_id)
        return known if known is not None else refusals_of(conn).get(msg_id)

    def _spent(self, seat: int) -> RoomError | None:
        """The refusal of a new command or chat line of ``seat`` (``None``: taken)."""
        return self.answers.refusal(seat, self.seats[seat].occupant)

    def _answer(self, conn: Connection | None, seat: int, msg_id: str | None,
                data: bytes, *, counted: bool = True) -> None:
        if msg_id is not None and seat >= 0:
            self._remember(seat, msg_id, data, counted=counted)
            for waiter in self.waiters.pop((seat, msg_id), []):
                waiter.deliver(data)
        if conn is not None:
            conn.deliver(data)

    def _held(self, seat: int, msg_id: str) -> bool:
        """Whether the action of ``msg_id`` waits for the end of the catch grace."""
        grace = self.grace
        return grace is not None and any(
            h.seat == seat and h.msg_id == msg_id for h in (*grace.catches, *grace.waiting))

    def _error(self, conn: Connection | None, seat: int, msg_id: str | None, code: str,
               message: object) -> None:
        """Answer ``msg_id`` with an error; ``message`` (a marked message, an engine
        :class:`Reason` or a :class:`RoomError`) is said in the connection's language."""
        text = localize(language(conn), message)
        data = P.encode(P.Error(code=code, message=text, id=msg_id,
                                retry_after=RETRY_AFTER if code in RETRY_CODES else None))
        told = self.waiters.pop((seat, msg_id), []) if msg_id else []
        if conn is not None:
            told.append(conn)
        for waiter in told:
            # a refusal (but a transient one, after which the same id may come again
            # and apply) is kept by the connection that got it, not by the room
            if code not in TRANSIENT and msg_id is not None and seat >= 0:
                refusals_of(waiter).keep(msg_id, data)
            waiter.deliver(data)

    def last_seq(self) -> int:
        """The sequence number of the last event (-1 before the match)."""
        return self.game.log[-1].seq if self.game is not None and self.game.log else -1

    # ------------------------------------------------------------ views
    def info(self) -> P.RoomInfo:
        """The room as everyone sees it."""
        viewers = self.fanout.viewers(self.code)
        return P.RoomInfo(
            code=self.code, rules=self._rules_shown[0], rules_text=self._rules_shown[1],
            status=self.status, turn_timer=self.turn_timer, commitment=self.commitment,
            catch_grace_ms=round(self.settings.catch_grace * 1000),
            invite=f"{self.settings.base_url}/r/{self.code}",
            spectators=viewers.get(SPECTATORS, 0),
            seats=[P.SeatInfo(seat=i, kind=s.kind, name=s.name, bot=s.bot, host=s.host,
                              connected=viewers.get(i, 0) > 0, away=s.away,
                              contributed=i in self.contributions)
                   for i, s in enumerate(self.seats)])

    def _broadcast_room(self) -> None:
        data = P.encode(P.RoomState(room=self.info()))
        self.fanout.publish(self.code, {v: data for v in self.fanout.viewers(self.code)})

    def _legal(self, viewer: int) -> tuple[list[str], bool]:
        game, driver = self.game, self.driver
        if (viewer < 0 or game is None or driver is None or game.phase is MATCH_OVER
                or self.status == "abandoned"):
            return [], False
        legal = [_seatless_text(a) for a in game.legal_actions(viewer)]
        return legal, viewer == driver.lead()

    def _events_message(self, events: list[Event], viewer: int,
                        public: list[dict[str, Any]] | None = None) -> bytes:
        """The events as ``viewer`` sees them, with its legal actions. ``public``: the
        events' own dicts, worked out once for every viewer that sees them whole."""
        game, driver = self.game, self.driver
        assert game is not None and driver is not None
        view = None if viewer < 0 else viewer
        legal, must = self._legal(viewer)
        shown = []
        for i, event in enumerate(events):
            seen = redact(event, view)
            shown.append(public[i] if public is not None and seen is event
                         else seen.to_dict())
        return P.encode(P.Events(events=shown, lead=driver.lead(), phase=str(game.phase),
                                 legal=legal, must=must))

    def _broadcast_events(self, events: list[Event]) -> None:
        public = [event.to_dict() for event in events]
        self.fanout.publish(self.code, {
            viewer: self._events_message(events, viewer, public)
            for viewer in self.fanout.viewers(self.code)})

    # ------------------------------------------------------------ connections
    async def _hello(self, conn: Connection, hello: P.Hello) -> None:
        if self.closing:
            conn.close(P.encode(P.Bye(reason=localize(language(conn),
                                                      N_("the server is restarting")),
                                      reconnect=True)))
            return
        token: str | None = None
        if hello.token is not None:
            wanted = token_hash(hello.token)
            seats = [i for i, s in enumerate(self.seats)
                     if s.kind == HUMAN and s.token_hash and s.token_hash == wanted]
            if not seats:
                conn.close(P.encode(P.Error(code="bad_token", message=localize(
                    language(conn), N_("no seat of this room has that token (kicked, or "
                                       "another room)")))))
                return
            viewer = seats[0]
        elif hello.spectate:
            viewer = SPECTATORS
        else:
            try:
                viewer, token = await self._join(hello)
            except RoomError as exc:
                conn.close(P.encode(P.Error(code=exc.code,
                                            message=exc.text(language(conn)))))
                return
            except StoreError:  # nothing was kept: the same hello may come again
                conn.close(self._unavailable(conn))
                return
        conn.viewer = viewer
        self.conns.add(conn)
        self.fanout.join(self.code, conn)
        conn.deliver(P.encode(P.Welcome(v=P.VERSION, room=self.info(),
                                        seat=None if viewer < 0 else viewer, token=token,
                                        last_seq=self.last_seq())))
        if self.game is not None:
            missed = [e for e in self.game.log[max(0, hello.last_seq + 1):]
                      if e.seq > hello.last_seq]
            conn.deliver(self._events_message(missed, viewer))
            if self.timer_due is not None:
                conn.deliver(self._timer_message())
        if self.status in ENDED:
            conn.deliver(self._reveal_message())
        self._send_recent_chat(conn)
        if viewer == SPECTATORS:
            self._presence_changed()
        else:
            self._broadcast_room()
        if (self.auto_start and self.status == "lobby"
                and all(s.kind != EMPTY for s in self.seats)):
            try:
                await self._start_match()
            except StoreError:  # not started: the player's next hello tries again
                self._gone(conn)
                conn.close(P.encode(P.Bye(reason=localize(language(conn), UNAVAILABLE),
                                          reconnect=True)))

    def _unavailable(self, conn: Connection) -> bytes:
        """The answer to a hello the database kept the room from taking."""
        return P.encode(P.Error(code="unavailable", retry_after=RETRY_AFTER,
                                message=localize(language(conn), UNAVAILABLE)))

    def _gone(self, conn: Connection) -> None:
        if conn in self.conns:
            self.conns.discard(conn)
            self.fanout.leave(self.code, conn)
            if conn.viewer == SPECTATORS:
                self._presence_changed()
            else:
                self._broadcast_room()

    def _presence_changed(self) -> None:
        """A spectator came or went: everyone hears of it in one room message at most
        every ``presence_interval`` seconds, so that N spectators joining cost O(N)
        messages, not O(N²). (A seat's player coming or going is told at once.)"""
        interval = self.settings.presence_interval
        if interval <= 0:
            self._broadcast_room()
            return
        if self.presence_due:
            return
        self.presence_due = True
        loop = asyncio.get_running_loop()

        async def tell(room: Room) -> None:
            room.presence_due = False
            room._broadcast_room()

        loop.call_later(interval, lambda: self.submit("call", loop.create_future(), tell))

    # ------------------------------------------------------------ messages
    async def _message(self, conn: Connection, message: P.ClientMessage) -> None:
        seat = conn.viewer
        msg_id = getattr(message, "id", None)
        if isinstance(message, P.Ping):
            conn.deliver(P.encode(P.Pong(id=message.id)))
            return
        known = None if msg_id is None else self._known(conn, msg_id)
        if known is not None:
            conn.deliver(known)
            return
        if msg_id is not None and self._held(seat, msg_id):  # resent while it waits
            self.waiters.setdefault((seat, msg_id), []).append(conn)
            return
        if isinstance(message, P.SnapshotRequest):
            self._snapshot(conn, message.id)
            return
        spent = (None if seat < 0 or isinstance(message, P.Act | P.Leave)
                 else self._spent(seat))
        if spent is not None:
            self._error(conn, seat, msg_id, spent.code, spent)
            return
        if isinstance(message, P.SendChat):
            await self._chat(conn, seat, message)
            return
        if seat < 0:
            self._error(conn, seat, msg_id, "not_seated", N_("spectators cannot act"))
            return
        self._command = None if msg_id is None else (seat, msg_id)
        self._reply_data = None
        try:
            if isinstance(message, P.Act):
                self._command = None
                await self._act(conn, seat, message)
                return
            if isinstance(message, P.Contribute):
                await self._contribute(seat, message.value)
            elif isinstance(message, P.Leave):
                await self._leave(conn, seat)
            else:
                await self._host_command(seat, message)
        except RoomError as exc:
            self._error(conn, seat, msg_id, exc.code, exc)
            return
        except StoreError:
            self._error(conn, seat, msg_id, "not_stored", NOT_STORED)
            return
        finally:
            self._command = None
        assert msg_id is not None
        data = self._reply_data or P.encode(P.Ack(id=msg_id, seq=self.last_seq()))
        self._reply_data = None
        self._answer(conn, seat, msg_id, data)

    def _snapshot(self, conn: Connection, msg_id: str) -> None:
        game = self.game
        view = None if game is None else game.observation(
            None if conn.viewer < 0 else conn.viewer).to_dict()
        legal, must = self._legal(conn.viewer)
        conn.deliver(P.encode(P.Snapshot(id=msg_id, seq=self.last_seq(), view=view,
                                         legal=legal, must=must)))

    async def _act(self, conn: Connection, seat: int, message: P.Act) -> None:
        game = self.game
        if game is None or self.status != "playing":
            self._error(conn, seat, message.id, "not_started",
                        N_("the match has not started") if self.status == "lobby"
                        else ABANDONED if self.status == "abandoned"
                        else N_("the match is over"))
            return
        try:
            action = parse_action(f"{seat}:{message.action}")
        except ActionCodeError:
            self._error(conn, seat, message.id, "bad_request",
                        N_("not an action: see docs/protocol.md for the action texts"))
            return
        if action_type(action) == NEXT_ROUND:
            empty = [i for i, s in enumerate(self.seats) if s.kind == EMPTY]
            if empty:
                self._error(conn, seat, message.id, "bad_request",
                            Reason("seat {seat} is empty: the host seats a bot or a player "
                                   "joins first", seat=empty[0]))
                return
        held = Held(conn, message.id, seat, action, "player")
        grace = self.grace
        if grace is not None:
            if (action_type(action) == CATCH and action_target(action) == grace.target
                    and seat != grace.target):
                grace.catches.append(held)
                return
            if not (action_type(action) == UNO and seat == grace.target):
                grace.waiting.append(held)
                return
        await self._try(held)

    async def _try(self, held: Held) -> bool:
        """Apply a held action and answer it (ack or error); whether it was applied."""
        if self._call_ahead(held):
            return False
        if isinstance(held, ChatHeld) and not self._silenced(held.seat):
            return await self._post_line(held)  # a chat line that costs nothing
        chat = held.text if isinstance(held, ChatHeld) else None
        try:
            seq = await self._apply(held.seat, held.action, held.origin, held.msg_id, chat)
        except IllegalActionError as exc:
            self._error(held.conn, held.seat, held.msg_id, "illegal", exc)
        except StoreError:
            self._error(held.conn, held.seat, held.msg_id, "not_stored", NOT_STORED)
        else:
            if held.msg_id is not None:  # a game action's ack is bounded by the match
                self._answer(held.conn, held.seat, held.msg_id,
                             P.encode(P.Ack(id=held.msg_id, seq=seq)),
                             counted=chat is not None)
            return True
        return False

    def _call_ahead(self, held: Held) -> bool:
        """Take a player's ``uno`` while they hold two cards as a call ahead of their
        play (acknowledged with the last event's sequence number; nothing is applied).
        Whether it was taken (or refused: the occupant's allowance is spent)."""
        game = self.game
        if (held.origin != "player" or action_type(held.action) != UNO or game is None
                or game.is_legal(held.action) or game.phase in (ROUND_OVER, MATCH_OVER)
                or len(game.hands[held.seat]) != 2):
            return False
        spent = self._spent(held.seat)
        if spent is not None:
            self._error(held.conn, held.seat, held.msg_id, spent.code, spent)
            return True
        self.called_ahead.add(held.seat)
        if held.msg_id is not None:
            self._answer(held.conn, held.seat, held.msg_id,
                         P.encode(P.Ack(id=held.msg_id, seq=self.last_seq())))
        return True

    async def _apply(self, seat: int, action: int, origin: str, client_id: str | None,
                     chat: str | None = None) -> int:
        """Apply, commit, then broadcast one action; the last event's sequence number.
        With ``chat`` (the ``say`` of a line that broke a silence), the line is committed
        with the action and sent after its events.

        Raises:
            IllegalActionError: not legal now (nothing changed).
            StoreError: not committed (the game is rolled back to the stored actions).
        """
        game, driver = self.game, self.driver
        assert game is not None and driver is not None
        if seat in self.called_ahead:
            if (action_type(action) == PLAY and not action & UNO_FLAG
                    and game.is_legal(action | UNO_FLAG)):
                action |= UNO_FLAG
            self.called_ahead.discard(seat)
        opened = game.uno_open
        events = driver.apply(action)
        seq = events[-1].seq if events else self.last_seq()
        at = time.time()
        line = None if chat is None else self._new_line(seat, chat, client_id, seq)
        try:
            await self.store.append_action(self.id, ActionData(
                len(game.history) - 1, _action_text(action), seat, origin, client_id, seq,
                at, self.seats[seat].occupant), line, finished=game.phase is MATCH_OVER)
        except StoreError:
            self._rollback()
            raise
        self.last_commit = at
        self.oversight.metrics.action(origin, time.time() - at)
        self._count_origin(seat, origin)
        self._broadcast_events(events)
        if line is not None:
            self._took_line(line)
        if origin == "player" and self._was_away.pop(seat, False):
            self._broadcast_room()
        loop = asyncio.get_running_loop()
        if game.uno_open >= 0 and game.uno_open != opened and self.settings.catch_grace > 0:
            self.grace = Grace(game.uno_open, loop.time() + self.settings.catch_grace)
        elif self.grace is not None and game.uno_open != self.grace.target:
            self.grace.until = loop.time()
        if game.phase is ROUND_OVER:
            self.pause_due = loop.time() + self.settings.round_pause
        if game.phase is MATCH_OVER:
            await self._finish()
        return seq

    _was_away: dict[int, bool]

    def _count_origin(self, seat: int, origin: str) -> None:
        if not hasattr(self, "_was_away"):
            self._was_away = {}
        spot = self.seats[seat]
        if origin == "player":
            if spot.away:
                self._was_away[seat] = True
            spot.timeouts, spot.away = 0, False
        elif origin == "timeout":
            spot.timeouts += 1
            if spot.timeouts >= 2:
                spot.away = True

    def _rollback(self) -> None:
        game = self.game
        assert game is not None and self.seed is not None
        kept = game.history[:-1]
        self._begin(self.seed)
        assert self.driver is not None
        for action in kept:
            self.driver.apply(action)

    async def _finish(self) -> None:
        """The match is over (its end was committed with its last action): reveal the
        server seed."""
        LOG.info("match finished", extra={"room": self.code, "actions": len(
            self.game.history) if self.game is not None else 0})
        self.status = "finished"
        self.finished_at = time.monotonic()
        self.timer_due = self.bot_due = self.pause_due = None
        data = self._reveal_message()
        self.fanout.publish(self.code, {v: data for v in self.fanout.viewers(self.code)})
        self._broadcast_room()

    async def _unload_if_idle(self) -> None:
        """Let the finished room go from memory if nobody is connected and no message
        waits; its rows stay, and ``GET /api/rooms/CODE`` and its record rebuild it from
        the database. Run in the room's task (through :meth:`call`): nothing can come
        between the check and the going, and the task ends after it."""
        if self.status not in ENDED or self.conns or not self.inbox.empty():
            return
        self.unloaded = True
        if self.on_unloaded is not None:
            self.on_unloaded(self)

    def _reveal_message(self) -> bytes:
        return P.encode(P.Reveal(server_seed=self.server_seed, seed=str(self.seed),
                                 contributions={str(k): v for k, v in
                                                sorted(self.contributions.items())}))

    def record(self) -> Record:
        """The match's record, with its fairness block (the server seed only once the
        match is over).

        Raises:
            RoomError: the match has not started.
        """
        if self.game is None or self.seed is None:
            raise RoomError("not_started", N_("the match has not started"))
        if self.status not in ENDED:
            raise RoomError("not_started", N_("the record is published when the match is "
                                              "over (it holds every action, private ones "
                                              "too)"))
        record = Record.from_game(self.game, [s.name or f"Seat {i}"
                                              for i, s in enumerate(self.seats)])
        record.fairness = {
            "scheme": fairdeal.SCHEME, "commitment": self.commitment,
            "contributions": {str(k): v for k, v in sorted(self.contributions.items())},
            "server_seed": self.server_seed if self.status in ENDED else None}
        return record
