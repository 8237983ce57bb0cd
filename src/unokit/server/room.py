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
import json
import logging
from collections.abc import Awaitable, Callable
from typing import assert_never

from unokit.engine.actions import (
    CATCH,
    NEXT_ROUND,
    PLAY,
    UNO,
    UNO_FLAG,
    action_target,
    action_type,
)
from unokit.engine.errors import ActionCodeError, IllegalActionError, Reason
from unokit.engine.phases import MATCH_OVER, ROUND_OVER
from unokit.engine.rules import Rules
from unokit.formats import fairdeal
from unokit.formats.record import Record
from unokit.i18n import N_, localize
from unokit.server import inbox as I
from unokit.server import protocol as P
from unokit.server.chat import ChatHeld, Talk
from unokit.server.fanout import SPECTATORS, FanOut
from unokit.server.friends import check_contribution
from unokit.server.lobby import CLOSED, Command
from unokit.server.moved import refuse_moved, say_moved
from unokit.server.outage import NOT_STORED, RETRY_AFTER, UNAVAILABLE
from unokit.server.pacing import Pacing
from unokit.server.presence import ABANDONED, ENDED, Presence
from unokit.server.rematch import Rematch
from unokit.server.room_base import action_text, seat_action
from unokit.server.room_clock import SYSTEM_CLOCK, RoomClock
from unokit.server.room_state import RoomState
from unokit.server.seating import (
    EMPTY,
    HUMAN,
    Connection,
    Grace,
    Held,
    RoomError,
    Seat,
    check_new_token,
    language,
    token_hash,
)
from unokit.server.settings import TURN_TIMERS, Settings
from unokit.store import ActionData, AnswerData, LeaseLost, NewRoom, Store, StoredRoom, StoreError
from unokit.store.farming import play_mark
from unokit.store.seatings import facts_of

LOG = logging.getLogger("unokit.room")


class Room(Rematch, Talk, Pacing, Presence):
    """One room. Create it with :meth:`create` or :meth:`restore`, :meth:`start` its
    task, and hand it messages with :meth:`submit`. Its parts share one base,
    :class:`~unokit.server.room_base.RoomBase`, and one state,
    :class:`~unokit.server.room_state.RoomState`."""

    # ------------------------------------------------------------ creating
    @classmethod
    async def create(cls, *, code: str, rules: Rules, store: Store, fanout: FanOut,
                     settings: Settings, turn_timer: int | None = None,
                     public: bool = True, server_seed: bytes | None = None,
                     clock: RoomClock = SYSTEM_CLOCK, rated: bool = True) -> Room:
        """A new room in the lobby, stored, with every seat empty."""
        timer = settings.turn_timer if turn_timer is None else turn_timer
        if timer not in TURN_TIMERS:
            raise RoomError("bad_request", N_("the turn timer is 0 (off), 15, 30 or 60 seconds"))
        seed = fairdeal.new_server_seed() if server_seed is None else server_seed
        commitment = fairdeal.commitment(seed)
        room_id = await store.create_room(NewRoom(
            code=code, rules=json.dumps(rules.to_dict(), sort_keys=True), turn_timer=timer,
            public=public, server_seed=seed.hex(), commitment=commitment,
            seats=rules.players, rated=rated))
        state = RoomState.new([Seat() for _ in range(rules.players)], turn_timer=timer,
                              now=clock.wall())
        return cls(room_id=room_id, code=code, rules=rules, store=store, fanout=fanout,
                   settings=settings, public=public, server_seed=seed.hex(),
                   commitment=commitment, state=state, clock=clock)

    @classmethod
    def restore(cls, stored: StoredRoom, *, store: Store, fanout: FanOut,
                settings: Settings, clock: RoomClock = SYSTEM_CLOCK) -> Room:
        """The room as it was (:meth:`RoomState.restore`).

        Raises:
            UnoError: the stored actions do not replay (the room cannot come back).
        """
        rules = RoomState.rules_of(stored)
        state = RoomState.restore(stored, rules, settings=settings, now=clock.wall(),
                                  monotonic=clock.monotonic())
        return cls(room_id=stored.id, code=stored.code, rules=rules, store=store,
                   fanout=fanout, settings=settings, public=stored.public,
                   server_seed=stored.server_seed, commitment=stored.commitment,
                   state=state, clock=clock)

    # ------------------------------------------------------------ the task
    def start(self) -> None:
        """Start the room's task."""
        self.task = asyncio.create_task(self._run(), name=f"room-{self.code}")

    def submit(self, item: I.Item) -> None:
        """Queue an item for the room (:mod:`unokit.server.inbox`): a hello, a message,
        a connection gone. A closed room answers at once, and so does a room another
        process owns now."""
        if self.lost:
            refuse_moved(item)
            return
        if self.status == "closed":
            self._refuse_closed(item)
            return
        self.inbox.put_nowait(item)

    async def call(self, fn: Callable[[Room], Awaitable[object]]) -> None:
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
        self.submit(I.Call(done, job))
        await done

    def _refuse_closed(self, item: I.Item) -> None:
        """Answer what came for a closed room: a hello or a message gets ``room_closed``,
        a call is let go."""
        match item:
            case I.Call():
                item.let_go()
            case I.Hello(conn=conn) | I.Message(conn=conn):
                conn.close(P.encode(P.Error(code="room_closed", id=I.message_id(item),
                                            message=localize(language(conn), CLOSED))))

    async def stop(self) -> None:
        """Finish the message being handled, then stop (the rest of the inbox is
        answered ``closing``) and tell every connection to come back."""
        self.closing = True
        self._stop_thinking()  # a bot that thinks is not waited for
        self.inbox.put_nowait(I.Stop())
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        while not self.inbox.empty():
            match self.inbox.get_nowait():
                case I.Call() as call:
                    call.let_go()
                case I.Message(conn=conn) as item:
                    conn.deliver(P.encode(P.Error(
                        code="closing", id=I.message_id(item),
                        message=localize(language(conn), N_(
                            "the server is restarting: send it again after reconnecting")))))
        for conn in list(self.conns):
            conn.close(P.encode(P.Bye(reason=localize(language(conn),
                                                      N_("the server is restarting")),
                                      reconnect=True, code="restarting")))

    async def _run(self) -> None:
        clock = self.clock
        game = self.game
        if (game is not None and game.uno_open >= 0 and self.grace is None
                and self.settings.catch_grace > 0 and self.status == "playing"):
            # back after a restart with a missed call open: the grace begins again, whole
            self.grace = Grace(game.uno_open, clock.monotonic() + self.settings.catch_grace)
        self._schedule()
        self._mark_presence(clock.monotonic())
        while True:
            due = self._due()
            item: I.Item
            try:
                if not self.inbox.empty():  # a due never holds back a waiting message
                    item = self.inbox.get_nowait()
                elif due is None:
                    item = await self.inbox.get()
                else:
                    item = await self.inbox.get(max(0.0, due - clock.monotonic()))
            except TimeoutError:
                item = I.Due()
            if isinstance(item, I.Stop):
                return
            if (isinstance(item, I.Hello | I.Call) or (isinstance(item, I.Message)
                                                       and not isinstance(item.message, P.Ping))
                    ) and not await self._ours():
                refuse_moved(item)  # what this process knows of the room may be old
                self._hand_over()
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
                    self._refuse_closed(self.inbox.get_nowait())
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
            self._mark_presence(clock.monotonic())

    async def _ours(self) -> bool:
        """Whether this process still holds the room, asked before a message is
        answered: sure while the lease lasts a while yet (no database round trip); past
        that (this process's loop stalled beyond the lease, or its renewals fail) the
        database is asked, so that no refusal or welcome is made of an old copy of a
        room that another process took over and changed. A database that cannot be
        asked leaves the room as it is (its writes are fenced all the same)."""
        store = self.store
        if store.lease_left(self.id) > store.lease / 4:
            return True
        now = self.clock.monotonic()
        if now < self.unasked_until:
            return True
        try:
            return await store.confirm_lease(self.id)
        except StoreError:  # away: not asked again for each message while it is
            self.unasked_until = now + store.lease / 4
            return True

    def check_lease(self) -> None:
        """Have the room check, between two messages, that this process still holds its
        lease (and leave if not)."""
        self.inbox.put_nowait(I.CheckLease())

    def _hand_over(self) -> None:
        """Stop serving the room: another process claimed it after this one's lease ran
        out, so every write of this one is refused. Nothing is answered as done that
        was not stored: what waits is refused, and every connection is told to
        reconnect (and send again what was not answered)."""
        self.lost = self.closing = True
        LOG.warning("room owned by another process now: leaving it",
                    extra={"room": self.code})
        while not self.inbox.empty():
            refuse_moved(self.inbox.get_nowait())
        for conn in list(self.conns):
            self.fanout.leave(self.code, conn)
            say_moved(conn)
        self.conns.clear()
        self.waiters.clear()
        if self.on_lost is not None:
            self.on_lost(self)

    def _answer_failed(self, item: I.Item) -> None:
        """Answer the message the room failed on: its ack if it was committed before the
        failure, else an error (nothing of it was kept); a hello that was not welcomed
        is told to come again."""
        match item:
            case I.Hello(conn=conn) if conn not in self.conns:
                conn.close(self._unavailable(conn))
            case I.Message(conn=conn):
                msg_id = I.message_id(item)
                if msg_id is None:
                    return
                known = self._known(conn, msg_id)
                if known is not None:
                    conn.deliver(known)
                    return
                conn.deliver(P.encode(P.Error(code="not_stored", id=msg_id, message=localize(
                    language(conn), N_("the room failed on this message and kept nothing "
                                       "of it: send it again")))))

    async def _recover(self) -> None:
        """Rebuild the room's state from the database after an unexpected failure and
        swap it in whole (:meth:`RoomState.carry_over` names what it keeps)."""
        try:
            [stored] = await self.store.load_rooms(code=self.code)
            rebuilt = RoomState.restore(stored, self.rules, settings=self.settings,
                                        now=self.clock.wall(),
                                        monotonic=self.clock.monotonic())
        except Exception:
            LOG.exception("room could not be rebuilt", extra={"room": self.code})
            return
        held = [] if self.grace is None else [*self.grace.catches, *self.grace.waiting]
        self._stop_thinking()
        rebuilt.carry_over(self.state)
        self.state = rebuilt
        for waiting in held:  # nothing of them was kept: say so, so that they come again
            self._error(waiting.conn, waiting.seat, waiting.msg_id, "not_stored",
                        N_("the room failed while this waited: send it again"))
        self.waiters.clear()
        self._broadcast_room()

    async def _handle(self, item: I.Item) -> None:
        self._tell_presence()  # when due, also while messages keep the room busy
        match item:
            case I.Due():
                await self._on_due()
            case I.Hello(conn=conn, hello=hello):
                await self._hello(conn, hello)
            case I.Gone(conn=conn):
                self._gone(conn)
            case I.Message(conn=conn, message=message):
                await self._message(conn, message)
            case I.Call(job=job):
                await job(self)
            case I.BotDecided(thinking=thinking, decision=decision):
                await self._decided(thinking, decision)
            case I.CheckLease() | I.Stop():
                pass  # the lease is checked after every item; a stop never gets here
            case _:  # mypy checks that every kind of item is handled
                assert_never(item)

    # ------------------------------------------------------------ connections
    async def _hello(self, conn: Connection, hello: P.Hello) -> None:
        if self.closing:
            conn.close(P.encode(P.Bye(reason=localize(language(conn),
                                                      N_("the server is restarting")),
                                      reconnect=True, code="restarting")))
            return
        token: str | None = None
        held = hello.token
        if held is None and hello.new_token and not hello.spectate:
            try:
                check_new_token(hello.new_token)
            except RoomError as exc:
                conn.close(P.encode(P.Error(code=exc.code, message=exc.text(language(conn)))))
                return
            wanted = token_hash(hello.new_token)
            if any(s.kind == HUMAN and s.token_hash == wanted for s in self.seats):
                held = token = hello.new_token  # the same join again: its answer was lost
        if held is not None:
            wanted = token_hash(held)
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
                if hello.contribution:
                    check_contribution(hello.contribution)
                viewer, token = await self._join(hello, getattr(conn, "player", None))
                if hello.contribution:
                    await self._hello_contribution(viewer, hello.contribution)
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
            since = (-1 if hello.commitment and hello.commitment != self.commitment
                     else hello.last_seq)  # a match before a rematch: all of this one
            missed = [e for e in self.game.log[max(0, since + 1):] if e.seq > since]
            conn.deliver(self._events_message(missed, viewer))
            if self.timer_due is not None:
                conn.deliver(self._timer_message())
            if self.pause_due is not None:
                conn.deliver(self._countdown_message())
        if self.status in ENDED:
            conn.deliver(self._reveal_message(viewer))
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
                                          reconnect=True, code="unavailable")))

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
        if self.presence_due is None:  # told when it is due (:meth:`_tell_presence`)
            self.presence_due = self.clock.monotonic() + interval

    def _tell_presence(self) -> None:
        """Send the room message of spectators who came or went, if it is due."""
        due = self.presence_due
        if due is not None and self.clock.monotonic() >= due:
            self.presence_due = None
            self._broadcast_room()

    def _due(self) -> float | None:
        """The next instant (the room's monotonic clock) the room's task has something
        to do: a game's timer (:meth:`_next_due`) or the spectators' room message."""
        dues = [d for d in (self._next_due(), self.presence_due) if d is not None]
        return min(dues) if dues else None

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
        if isinstance(message, P.Act):
            await self._act(conn, seat, message)
            return
        command = None if msg_id is None else Command(seat, msg_id)
        answer: AnswerData | None
        try:
            if isinstance(message, P.Contribute):
                answer = await self._contribute(seat, message.value, command)
            elif isinstance(message, P.Rename):
                answer = await self._rename(seat, message.name, command)
            elif isinstance(message, P.Rematch):
                answer = await self._rematch(seat, command)
            elif isinstance(message, P.Leave):
                answer = await self._leave(conn, seat, command)
            else:
                answer = await self._host_command(seat, message, command)
        except RoomError as exc:
            self._error(conn, seat, msg_id, exc.code, exc)
            return
        except StoreError:
            self._error(conn, seat, msg_id, "not_stored", NOT_STORED)
            return
        assert msg_id is not None
        data = (P.encode(P.Ack(id=msg_id, seq=self.last_seq())) if answer is None
                else answer.answer.encode())
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
            action = seat_action(seat, message.action)
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
        # the ack may ride in the events message (not with a chat line: it comes after it)
        acked = held.conn if chat is None and held.msg_id is not None else None
        try:
            seq, told = await self._apply(held.seat, held.action, held.origin,
                                          held.msg_id, chat, acked)
        except IllegalActionError as exc:
            self._error(held.conn, held.seat, held.msg_id, "illegal", exc)
        except StoreError:
            self._error(held.conn, held.seat, held.msg_id, "not_stored", NOT_STORED)
        else:
            if held.msg_id is not None:  # a game action's ack is bounded by the match
                self._answer(None if told else held.conn, held.seat, held.msg_id,
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
                     chat: str | None = None,
                     acked: Connection | None = None) -> tuple[int, bool]:
        """Apply, commit, then broadcast one action; the last event's sequence number, and
        whether ``acked`` (the connection that sent it, as ``client_id``) got its ack in
        the events message (:meth:`RoomBase._broadcast_events`). With ``chat`` (the
        ``say`` of a line that broke a silence), the line is committed with the action
        and sent after its events.

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
        self.play_marks.append(play_mark(game, action, origin))
        events = driver.apply(action)
        seq = events[-1].seq if events else self.last_seq()
        at = self.clock.wall()
        started = self.clock.monotonic()
        line = None if chat is None else self._new_line(seat, chat, client_id, seq)
        try:
            shown = await self.store.append_action(self.id, ActionData(
                len(game.history) - 1, action_text(action), seat, origin, client_id, seq,
                at, self.seats[seat].occupant), line, finished=game.phase is MATCH_OVER,
                facts=facts_of(self.rules, game.log) if game.phase is MATCH_OVER else None,
                marks=self.play_marks if game.phase is MATCH_OVER else None)
            self.ratings = shown or self.ratings
        except StoreError:
            self._rollback()
            raise
        self.last_commit = at
        self.oversight.metrics.action(origin, self.clock.monotonic() - started)
        self.state.count_origin(seat, origin)
        told = self._broadcast_events(events, None if acked is None or client_id is None
                                      else (acked, P.Ack(id=client_id, seq=seq)))
        if line is not None:
            self._took_line(line)
        if origin == "player" and self.was_away.pop(seat, False):
            self._broadcast_room()
        now = self.clock.monotonic()
        if game.uno_open >= 0 and game.uno_open != opened and self.settings.catch_grace > 0:
            self.grace = Grace(game.uno_open, now + self.settings.catch_grace)
        elif self.grace is not None and game.uno_open != self.grace.target:
            self.grace.until = now
        if game.phase is ROUND_OVER:
            self.pause_due = now + self.settings.round_pause
        if game.phase is MATCH_OVER:
            await self._finish()
        return seq, told

    def _rollback(self) -> None:
        game = self.game
        assert game is not None and self.seed is not None
        kept = game.history[:-1]
        marks = self.play_marks[:len(kept)]
        self._begin(self.seed)
        assert self.driver is not None
        for action in kept:
            self.driver.apply(action)
        self.play_marks = marks

    async def _finish(self) -> None:
        """The match is over (its end was committed with its last action): reveal the
        server seed."""
        LOG.info("match finished", extra={"room": self.code, "actions": len(
            self.game.history) if self.game is not None else 0})
        self.status = "finished"
        self.finished_at = self.clock.monotonic()
        self.timer_due = self.bot_due = self.pause_due = None
        self.fanout.publish(self.code, self._reveal_messages())
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
