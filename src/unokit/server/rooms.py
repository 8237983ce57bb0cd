"""Every room of a server process: creating them, finding them, bringing them back after
a restart, sweeping their lobbies, and stopping them.

Every few seconds (:data:`SWEEP_EVERY`, less for short timeouts) :meth:`Rooms.sweep`
asks each room in the lobby to free the seats nobody has held a connection of for
``seat_timeout`` seconds (see :mod:`unokit.server.lobby`), and each room in the lobby or
playing to close itself if no seated person has been connected for ``lobby_timeout``
seconds, or its match as abandoned after ``abandon_after`` seconds, counted from the
time stored (see :mod:`unokit.server.presence`). A closed room leaves the list and the
process; its rows stay (until the retention, :mod:`unokit.server.retention`), and a
hello to it gets ``room_closed``. At start, the rooms whose clock ran out while no
process served them are ended before the others are loaded.

A process serves only the rooms whose lease it holds (:mod:`unokit.server.ownership`):
a second process on the same database leaves the first one's rooms alone, and takes
over those whose lease ran out.

>>> import asyncio
>>> from unokit.server.settings import Settings
>>> async def demo():
...     rooms = Rooms(Settings(database_url="sqlite://", bot_delay=0))
...     await rooms.open()
...     room = await rooms.create("official,players=2", bots=["normal"])
...     listed = [r["code"] for r in rooms.open_rooms()]
...     await rooms.close()
...     return room.status, [s.kind for s in room.seats], listed == [room.code]
>>> asyncio.run(demo())
('lobby', ['empty', 'bot'], True)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from unokit.engine.errors import RulesError, UnoError
from unokit.engine.rules import PRESET_MEANINGS, PRESETS, Rules
from unokit.formats import fairdeal
from unokit.i18n import N_
from unokit.server.bot_pool import BotPool, make_pool
from unokit.server.bot_specs import check_bot_spec
from unokit.server.fanout import FanOut, LocalFanOut
from unokit.server.handover import save_turn_clocks, stop_rooms
from unokit.server.lobby import CLOSED
from unokit.server.moderation import load_words
from unokit.server.outage import open_store, reading, writing
from unokit.server.oversight import Oversight
from unokit.server.ownership import Ownership
from unokit.server.presence import ENDED
from unokit.server.retention import Retainer
from unokit.server.room import Room
from unokit.server.room_clock import RoomClock
from unokit.server.seating import RoomError
from unokit.server.settings import Settings, rating_policy
from unokit.store import Store, StoreConflict, StoredRoom, StoreError
from unokit.store.bans import list_bans
from unokit.store.leases import Clock
from unokit.store.lifecycle import end_stale, set_last_seen_many
from unokit.store.turn_clocks import TurnClock

LOG = logging.getLogger("unokit.rooms")

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Room codes use these (no 0/O, 1/I)."""
CODE_LENGTH = 6
FINISHED_KEPT = 600.0
"""Seconds a finished match stays in memory after it ended, or after a restart (its last
events, its reveal and its record), for the players whose connection dropped as it
ended; then, once nobody is connected to it, the sweep lets it go (its rows stay)."""

SWEEP_EVERY = 5.0
"""Seconds between two sweeps of the lobbies (at most: half the shorter timeout if that
is less)."""

SWEEP_CHUNK = 250
"""Rooms a sweep looks at between two turns of the event loop: with thousands of rooms,
looking at all of them at once would hold every room's messages for milliseconds."""

OFFERED = ["online", *[name for name in PRESETS if name != "online"]]
"""The presets a new room may start from, the seeds' online game first."""


def new_code() -> str:
    """A random room code."""
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def room_rules(rules: str | Mapping[str, Any] | None, seats: int | None = None) -> Rules:
    """The rule set of a new room: a compact rule string or a mapping (a preset plus
    overrides), with ``seats`` players if given.

    Raises:
        RoomError: the rules are not a valid rule set (naming the keys).
    """
    try:
        if rules is None:
            parsed = Rules.preset("online")
        elif isinstance(rules, str):
            parsed = Rules.from_string(rules)
        elif isinstance(rules, Mapping):
            parsed = Rules.from_dict(dict(rules))
        else:
            raise RoomError("bad_request", N_("rules: a rule string or an object"))
        if seats is not None:
            parsed = Rules.from_dict({**parsed.to_dict(), "players": seats})
    except RulesError as exc:
        if len(str(exc)) > 300:
            raise RoomError("bad_request", str(exc)[:300]) from None
        raise RoomError("bad_request", exc.template, **exc.params) from None
    return parsed


class Rooms:
    """The rooms of this process, their store and their fan-out."""

    def __init__(self, settings: Settings, *, fanout: FanOut | None = None,
                 lease_clock: Clock | None = None,
                 bot_pool: BotPool | None = None) -> None:
        self.settings = settings
        self.lease_clock = lease_clock
        """The clock of the rooms' leases (tests); ``None``: the database's."""
        self.ownership = Ownership(self)
        self.fanout: FanOut = fanout or LocalFanOut()
        self.store: Store | None = None
        self.rooms: dict[str, Room] = {}
        self.ready = False
        self.closing = False
        """Set when the server begins to shut down: new messages are refused."""
        self.restored = 0
        self.broken: list[str] = []
        self.server_seeds: Callable[[], bytes] = fairdeal.new_server_seed
        """Where new rooms' secret server seeds come from (tests give fixed ones)."""
        self.closed = 0
        """Idle lobbies closed by this process."""
        self.unloaded = 0
        """Finished rooms this process let go from memory."""
        self._sweeper: asyncio.Task[None] | None = None
        self.clock: Callable[[], float] = time.time
        """The wall clock of the rooms' stored times (seconds since the epoch; tests give
        their own)."""
        self.turn_clocks: dict[int, TurnClock] = {}
        """The turn clocks noted as the rooms stop, stored before the leases are released
        (:mod:`unokit.server.handover`)."""
        self.retainer = Retainer(self)
        """Deletes the rows of rooms over for longer than the retention settings."""

        self.oversight = Oversight(words=load_words(settings.word_list))
        """The metrics, bans and word list every room of this process shares."""
        self.bot_pool: BotPool = bot_pool or make_pool(settings.bot_workers,
                                                       settings.bot_budget,
                                                       settings.bot_cpus)
        """Where every room's bots decide (its workers start at the first decision)."""

    async def open(self) -> None:
        """Open the database (migrating it; waiting for it, see
        :func:`unokit.server.outage.open_store`), end the rooms whose stored clock ran out
        while no process served them, and bring back every live room that no other live
        process holds."""
        self.store = await open_store(self.settings, lease_clock=self.lease_clock)
        self.store.rating_policy = rating_policy(self.settings)
        self.store.clock = self.clock
        self.oversight.set_bans((b.kind, b.value) for b in await list_bans(self.store))
        now = self.clock()
        abandoned, closed = await end_stale(
            self.store, now=now, abandon_after=self.settings.abandon_after,
            lobby_timeout=self.settings.lobby_timeout)
        if abandoned or closed:
            LOG.info("rooms ended while the server was away",
                     extra={"abandoned": abandoned, "closed": closed})
        await self.ownership.restore(now - FINISHED_KEPT)
        self.ownership.start()
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="lobby-sweeper")
        self.retainer.start()
        self.ready = True
        LOG.info("rooms restored", extra={"rooms": self.restored,
                                          "elsewhere": self.ownership.elsewhere})

    async def close(self) -> None:
        """Stop every room (finishing what each is doing), then close the database."""
        self.ready = False
        self.closing = True
        await self.retainer.stop()
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        await self.ownership.stop()
        await stop_rooms(self)
        await save_turn_clocks(self)
        await self.bot_pool.close()
        if self.store is not None:
            await self.store.close()

    def _store(self) -> Store:
        if self.store is None:
            raise RoomError("closing", N_("the server is not ready"))
        return self.store

    async def create(self, rules: str | Mapping[str, Any] | None = None, *,
                     seats: int | None = None, turn_timer: int | None = None,
                     public: bool = True, bots: list[str] | None = None,
                     rated: bool = True) -> Room:
        """A new room (in the lobby; seat 0 stays free for its creator, the other seats
        get ``bots`` in order).

        Raises:
            RoomError: bad rules, timer or bots; ``unavailable``, the database does not
                answer.
        """
        parsed = room_rules(rules, seats)
        bots = list(bots or [])
        if len(bots) > parsed.players - 1:
            raise RoomError("bad_request", N_("{bots} bots for {seats} seats"), bots=len(bots),
                            seats=parsed.players)
        cap = self.settings.bot_max_iterations  # every spec checked before the room is made
        bots = [check_bot_spec(spec, max_iterations=cap) for spec in bots]
        store = self._store()
        for _ in range(8):
            code = new_code()
            if code in self.rooms:
                continue
            try:
                room = await writing(self.settings, Room.create(
                    code=code, rules=parsed, store=store, fanout=self.fanout,
                    settings=self.settings, turn_timer=turn_timer, public=public,
                    server_seed=self.server_seeds(), clock=self.room_clock(), rated=rated))
            except StoreConflict:
                continue  # the code was taken by an older room: draw another
            break
        else:  # pragma: no cover - 32**6 codes
            raise RoomError("not_stored", N_("no free room code"))
        for seat, spec in enumerate(bots, start=1):
            await writing(self.settings, room.add_bot(spec, seat))
        self.add(room)
        LOG.info("room created", extra={"room": room.code, "rules": parsed.to_string()})
        return room

    def room_clock(self) -> RoomClock:
        """The clock the rooms get: :attr:`clock` for wall time, the machine's monotonic
        clock for their timers."""
        return RoomClock(wall=self.clock)

    def add(self, room: Room) -> None:
        """Serve ``room`` (this process holds its lease): keep it and start its task."""
        self.rooms[room.code] = room
        room.clock = self.room_clock()
        if not room.last_seen:  # new: seen as it is made
            room.last_seen = room.seen_stored = self.clock()
        room.bot_pool = self.bot_pool
        room.on_closed = self._closed
        room.on_unloaded = self._unloaded
        room.on_lost = self.ownership.room_lost
        room.oversight = self.oversight
        room.start()

    async def forget_player(self, player: int) -> None:
        """The player was deleted: every room of this process that holds a seat of
        theirs forgets them (:meth:`RoomBase.forget_player`). A room that another
        process serves forgets them when it next comes back from the database; what
        it writes of the seat meanwhile names nobody
        (:func:`unokit.store.erasure.known_players`)."""
        held = [room for room in list(self.rooms.values())
                if any(seat.player == player for seat in room.seats)]
        await asyncio.gather(*(room.call(lambda r: r.forget_player(player))
                               for room in held))

    def forget(self, room: Room) -> None:
        """Let ``room`` go from this process (its task has stopped or is stopping)."""
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]

    def _closed(self, room: Room) -> None:
        self.forget(room)
        self.ownership.release(room)
        self.closed += 1

    def _unloaded(self, room: Room) -> None:
        self.forget(room)
        self.ownership.release(room)
        self.unloaded += 1

    async def sweep(self, now: float | None = None, *, wall: float | None = None) -> None:
        """Have every room in the lobby free its long-abandoned seats, every room store
        when its people were last seen and close itself (a lobby) or its match (as
        abandoned) if nobody seated has been connected for long enough
        (:mod:`unokit.server.presence`), and every match that ended
        :data:`FINISHED_KEPT` seconds ago leave memory if nobody is connected to it;
        ``now`` is ``time.monotonic()`` for the seats' clocks and ``wall`` the rooms'
        :attr:`clock` for the stored ones (tests give later times); return when each
        room has."""
        at = time.monotonic() if now is None else now
        seen = self.clock() if wall is None else wall
        due: list[tuple[Room, float]] = []
        live: list[Room] = []
        over: list[Room] = []
        for n, room in enumerate(list(self.rooms.values())):
            if n and n % SWEEP_CHUNK == 0:
                await asyncio.sleep(0)  # the rooms' messages go first; each call checks again
            if room.task is None or room.task.done():
                continue
            status = room.status
            if status == "lobby" or status == "playing":
                stored_at = room.seen_due(seen)
                if stored_at is not None:
                    due.append((room, stored_at))
                if status == "lobby" or room.idle_over(seen):
                    live.append(room)
            elif (status in ENDED and not room.conns and room.finished_at is not None
                  and room.finished_at <= at - FINISHED_KEPT):
                over.append(room)
        await self._store_seen(due)

        async def keep(room: Room) -> None:
            if room.status == "lobby":
                await room._sweep(at)
            await room._keep_time(seen)
        await asyncio.gather(*(room.call(keep) for room in live),
                             *(room.call(lambda r: r._unload_if_idle()) for room in over))

    async def _store_seen(self, due: list[tuple[Room, float]]) -> None:
        """Store the ``last_seen`` that each room of ``due`` has due (:meth:`Presence.
        seen_due`), all in one transaction. If the database refuses, they stay due, and
        the next sweep tries all of them again (a room that the sweep calls, a lobby or
        one to close, tries its own first)."""
        if not due or self.store is None:
            return
        try:
            await set_last_seen_many(self.store, [(room.id, at) for room, at in due])
        except StoreError as exc:
            LOG.warning("rooms' clocks not stored", extra={"rooms": len(due),
                                                           "error": str(exc)[:200]})
            return
        for room, at in due:
            room.seen_written(at)

    async def _sweep_forever(self) -> None:
        every = max(0.01, min(SWEEP_EVERY, self.settings.seat_timeout / 2,
                              self.settings.lobby_timeout / 2,
                              self.settings.abandon_after / 2))
        while True:
            await asyncio.sleep(every)
            try:
                await self.sweep()
            except Exception:  # pragma: no cover - a sweep never stops the next one
                LOG.exception("lobby sweep failed")

    async def live(self, code: str) -> Room:
        """The room ``code`` if it is live here, for a hello; a live room whose lease
        is free or ran out is taken over (:meth:`Ownership.adopt`).

        Raises:
            RoomError: ``room_closed`` for a room that was closed, ``elsewhere`` for a
                room another live process serves, ``unavailable`` when the database does
                not answer, else ``no_room``.
        """
        try:
            return self.get(code)
        except RoomError:
            wanted = code.strip().upper()
            status = None
            if (self.store is not None and wanted.isascii() and wanted.isalnum()
                    and len(wanted) <= 16):
                status = await reading(self.settings, self.store.room_status(wanted))
            if status == "closed":
                raise RoomError("room_closed", CLOSED) from None
            if status in ("lobby", "playing") and not self.closing:
                room = None
                with contextlib.suppress(StoreError):
                    room = await self.ownership.adopt(wanted)
                if room is not None:
                    return room
            raise

    def get(self, code: str) -> Room:
        """The room ``code`` (codes are read in capitals).

        Raises:
            RoomError: no such room here.
        """
        room = self.rooms.get(code.strip().upper())
        if room is None:
            raise RoomError("no_room", N_("no room has that code"))
        return room

    async def find(self, code: str) -> Room:
        """The room ``code``, live or over: a finished room no longer in memory is
        rebuilt from the database (without a task) to show its record.

        Raises:
            RoomError: no room has that code; ``unavailable``, the database does not
                answer.
        """
        try:
            return self.get(code)
        except RoomError:
            wanted = code.strip().upper()
            kept = wanted.replace("-", "")  # a match kept by a rematch: CODE-N
            if not wanted.isascii() or not kept.isalnum() or len(wanted) > 16:
                raise
            stored = await reading(self.settings, self._store().load_rooms(code=wanted))
            if not stored:
                raise
            # the replay of a long match takes a while: in a thread, not on the loop
            return await asyncio.to_thread(self._rebuilt, stored[0])

    async def match_key(self, code: str) -> str:
        """``CODE#COMMITMENT``: what names the match the room ``code`` holds now, for
        caches of finished matches (a rematch gives the code a new match).

        Raises:
            RoomError: ``unavailable``, the database does not answer.
        """
        wanted = code.strip().upper()
        live = self.rooms.get(wanted)
        if live is not None:
            return f"{wanted}#{live.commitment}"
        return f"{wanted}#{await reading(self.settings, self._store().room_commitment(wanted))}"

    def _rebuilt(self, stored: StoredRoom) -> Room:
        """A room over, rebuilt from its rows (without a task), for :meth:`find`.

        Raises:
            RoomError: ``no_room``: its actions do not replay.
        """
        try:
            return Room.restore(stored, store=self._store(), fanout=self.fanout,
                                settings=self.settings, clock=self.room_clock())
        except (UnoError, ValueError):
            raise RoomError("no_room", N_("that room cannot be rebuilt")) from None

    def open_rooms(self) -> list[dict[str, Any]]:
        """The public rooms that wait for players, newest first."""
        out = []
        for room in reversed(list(self.rooms.values())):
            if not room.public or room.status != "lobby":
                continue
            free = sum(1 for s in room.seats if s.kind == "empty")
            if not free:
                continue
            out.append({"code": room.code, "rules": room.rules.to_string(),
                        "seats": len(room.seats), "free": free,
                        "turn_timer": room.turn_timer, "invite": room.info().invite})
        return out

    @staticmethod
    def presets() -> list[dict[str, str]]:
        """The presets offered for a new room, the seeds' online game first."""
        return [{"name": name, "meaning": PRESET_MEANINGS[name]} for name in OFFERED]
