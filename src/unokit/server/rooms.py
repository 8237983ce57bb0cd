"""Every room of a server process: creating them, finding them, bringing them back after
a restart, sweeping their lobbies, and stopping them.

Every few seconds (:data:`SWEEP_EVERY`, less for short timeouts) :meth:`Rooms.sweep`
asks each room in the lobby to free the seats nobody has held a connection of for
``seat_timeout`` seconds and to close itself if no seated person has been connected for
``lobby_timeout`` seconds (see :mod:`unokit.server.lobby`). A closed room leaves the
list and the process; its rows stay, and a hello to it gets ``room_closed``.

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
from unokit.server.lobby import CLOSED
from unokit.server.room import Room
from unokit.server.seating import RoomError
from unokit.server.settings import Settings
from unokit.store import Store, StoreError

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
                 bot_pool: BotPool | None = None) -> None:
        self.settings = settings
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
        self.bot_pool: BotPool = bot_pool or make_pool(settings.bot_workers,
                                                       settings.bot_budget)
        """Where every room's bots decide (its workers start at the first decision)."""

    async def open(self) -> None:
        """Open the database (migrating it) and bring back every live room."""
        self.store = Store(self.settings.database_url)
        since = time.time() - FINISHED_KEPT
        for stored in await self.store.load_rooms(finished_since=since):
            try:
                room = Room.restore(stored, store=self.store, fanout=self.fanout,
                                    settings=self.settings)
            except (UnoError, ValueError) as exc:
                LOG.error("room could not be restored", extra={"room": stored.code,
                                                               "error": str(exc)[:200]})
                self.broken.append(stored.code)
                continue
            self._add(room)
            self.restored += 1
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="lobby-sweeper")
        self.ready = True
        LOG.info("rooms restored", extra={"rooms": self.restored})

    async def close(self) -> None:
        """Stop every room (finishing what each is doing), then close the database."""
        self.ready = False
        self.closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for room in list(self.rooms.values()):
            await room.stop()
        await self.bot_pool.close()
        if self.store is not None:
            await self.store.close()

    def _store(self) -> Store:
        if self.store is None:
            raise RoomError("closing", N_("the server is not ready"))
        return self.store

    async def create(self, rules: str | Mapping[str, Any] | None = None, *,
                     seats: int | None = None, turn_timer: int | None = None,
                     public: bool = True, bots: list[str] | None = None) -> Room:
        """A new room (in the lobby; seat 0 stays free for its creator, the other seats
        get ``bots`` in order).

        Raises:
            RoomError: bad rules, timer or bots.
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
                room = await Room.create(code=code, rules=parsed, store=store,
                                         fanout=self.fanout, settings=self.settings,
                                         turn_timer=turn_timer, public=public,
                                         server_seed=self.server_seeds())
            except StoreError:
                continue  # the code was taken by an older room: draw another
            break
        else:  # pragma: no cover - 32**6 codes
            raise RoomError("not_stored", N_("no free room code"))
        for seat, spec in enumerate(bots, start=1):
            await room.add_bot(spec, seat)
        self._add(room)
        LOG.info("room created", extra={"room": room.code, "rules": parsed.to_string()})
        return room

    def _add(self, room: Room) -> None:
        self.rooms[room.code] = room
        room.bot_pool = self.bot_pool
        room.on_closed = self._closed
        room.on_unloaded = self._unloaded
        room.start()

    def _closed(self, room: Room) -> None:
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
        self.closed += 1

    def _unloaded(self, room: Room) -> None:
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
        self.unloaded += 1

    async def sweep(self, now: float | None = None) -> None:
        """Have every room in the lobby free its long-abandoned seats and close itself if
        it has long been without a connected person, and every match that ended
        :data:`FINISHED_KEPT` seconds ago leave memory if nobody is connected to it, as
        of ``now`` (``time.monotonic()``; tests give a later time); return when each
        has."""
        at = time.monotonic() if now is None else now
        running = [room for room in self.rooms.values()
                   if room.task is not None and not room.task.done()]
        lobbies = [room for room in running if room.status == "lobby"]
        over = [room for room in running if room.status == "finished" and not room.conns
                and room.finished_at is not None and room.finished_at <= at - FINISHED_KEPT]
        await asyncio.gather(*(room.call(lambda r: r._sweep(at)) for room in lobbies),
                             *(room.call(lambda r: r._unload_if_idle()) for room in over))

    async def _sweep_forever(self) -> None:
        every = max(0.01, min(SWEEP_EVERY, self.settings.seat_timeout / 2,
                              self.settings.lobby_timeout / 2))
        while True:
            await asyncio.sleep(every)
            try:
                await self.sweep()
            except Exception:  # pragma: no cover - a sweep never stops the next one
                LOG.exception("lobby sweep failed")

    async def live(self, code: str) -> Room:
        """The room ``code`` if it is live here, for a hello.

        Raises:
            RoomError: ``room_closed`` for a room that was closed, else ``no_room``.
        """
        try:
            return self.get(code)
        except RoomError:
            wanted = code.strip().upper()
            status = None
            if (self.store is not None and wanted.isascii() and wanted.isalnum()
                    and len(wanted) <= 16):
                with contextlib.suppress(StoreError):
                    status = await self.store.room_status(wanted)
            if status == "closed":
                raise RoomError("room_closed", CLOSED) from None
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
            RoomError: no room has that code.
        """
        try:
            return self.get(code)
        except RoomError:
            wanted = code.strip().upper()
            if not wanted.isascii() or not wanted.isalnum() or len(wanted) > 16:
                raise
            stored = await self._store().load_rooms(code=wanted)
            if not stored:
                raise
            try:
                return Room.restore(stored[0], store=self._store(), fanout=self.fanout,
                                    settings=self.settings)
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
