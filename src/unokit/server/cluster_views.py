"""What every process of a cluster shows alike: the open-room list from the database,
and who is connected to a room (presence) from a hint in Redis.

One process alone keeps its rooms in memory and shows them from there. Several processes
on one database (``redis_url`` set, :mod:`unokit.server.cluster`) each hold only the
rooms they own, so what a client reads must come from shared state instead:

- **the open-room list** (``GET /api/rooms``) is read from the database
  (:func:`read_open_rooms`: the public rooms in the lobby with a free seat, newest
  first, at most :data:`LISTED_MAX`) at most once per ``room_list_ttl`` seconds by
  :class:`SharedRoomList`; a room this process owns is checked against its live state
  as the page is served, as :class:`~unokit.server.roomlist.OpenRoomList` does;
- **room lookup** (``GET /api/rooms/CODE``, the invite page) already reads a room that
  is not in memory from the database (:meth:`Rooms.find
  <unokit.server.rooms.Rooms.find>`); a hello for it is relayed to its owner
  (:mod:`unokit.server.relay`);
- **presence** (who is connected to each seat, how many watch) is known by the room's
  owner only, which counts the clients it relays as its own. Every
  :data:`PRESENCE_EVERY` seconds the owner writes the counts of each room whose counts
  changed to Redis (:class:`PresenceHints`, key ``unokit:presence:CODE``, kept for
  :data:`PRESENCE_TTL` seconds, written again every :data:`PRESENCE_REFRESH`), and
  another process shows a room it does not own with them (:func:`with_presence`).
  Redis is a hint: without it a room read elsewhere shows nobody connected, and
  nothing else changes;
- **the leaderboards** are read from the database by every process
  (:mod:`unokit.server.leaderboards`).

The counts are written as ``viewer:count`` pairs, comma-separated (a seat's number, or
``-1`` for the spectators):

>>> encode_viewers({0: 1, 1: 2, -1: 3})
'-1:3,0:1,1:2'
>>> decode_viewers(b'-1:3,0:1,1:2')
{-1: 3, 0: 1, 1: 2}
>>> decode_viewers(b'junk'), decode_viewers(b'')
({}, {})
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
from redis import asyncio as aioredis
from redis.exceptions import RedisError
from sqlalchemy import Connection, select

from unokit.engine.rules import Rules
from unokit.server import protocol as P
from unokit.server.fanout import SPECTATORS
from unokit.server.outage import reading
from unokit.server.roomlist import ListedRoom, OpenRoomList
from unokit.server.seating import RoomError
from unokit.store.models import RoomRow, SeatRow

if TYPE_CHECKING:
    from unokit.server.rooms import Rooms

LOG = logging.getLogger("unokit.cluster")

LISTED_MAX = 5000
"""The most rooms one read of the open-room list takes from the database (the newest)."""
PRESENCE_EVERY = 1.0
"""Seconds between two writes of the changed presence counts of an owner's rooms."""
PRESENCE_REFRESH = 10.0
"""Seconds after which an owner writes every room's counts again (unchanged or not)."""
PRESENCE_TTL = 30.0
"""Seconds a room's counts stay in Redis unless written again (an owner that died
leaves them no longer)."""
PREFIX = "unokit:presence:"


def presence_key(code: str) -> str:
    """The Redis key of a room's presence counts."""
    return PREFIX + code


def encode_viewers(viewers: dict[int, int]) -> str:
    """``{viewer: count}`` as stored (see the module)."""
    return ",".join(f"{viewer}:{count}" for viewer, count in sorted(viewers.items())
                    if count > 0)


def decode_viewers(data: bytes | None) -> dict[int, int]:
    """The stored counts (``{}`` for none, or for anything not written by
    :func:`encode_viewers`)."""
    out: dict[int, int] = {}
    for pair in (data or b"").decode(errors="replace").split(","):
        viewer, _, count = pair.partition(":")
        try:
            out[int(viewer)] = int(count)
        except ValueError:
            continue
    return out


# ---------------------------------------------------------------- the open-room list
@dataclass
class _Seat:
    kind: str


@dataclass
class StoredListing:
    """A room of the list as the database has it (:class:`ListedRoom`)."""

    code: str
    rules_json: str
    turn_timer: int
    created_at: float
    seats: list[Any] = field(default_factory=list)
    public: bool = True
    status: str = "lobby"

    @property
    def rules(self) -> Rules:
        """The room's rules (read from their JSON when the list is built)."""
        return Rules.from_dict(json.loads(self.rules_json))


def read_open_rooms(connection: Connection, limit: int = LISTED_MAX
                    ) -> list[StoredListing]:
    """The public rooms in the lobby with a free seat, the newest ``limit`` of them,
    oldest first (the order :class:`OpenRoomList` reads its source in)."""
    rows = connection.execute(
        select(RoomRow.id, RoomRow.code, RoomRow.rules, RoomRow.turn_timer,
               RoomRow.created_at)
        .where(RoomRow.status == "lobby", RoomRow.public.is_(True))
        .order_by(RoomRow.created_at.desc(), RoomRow.id.desc()).limit(limit)).all()
    listed = {row.id: StoredListing(row.code, row.rules, row.turn_timer, row.created_at)
              for row in rows}
    if listed:
        for seat in connection.execute(
                select(SeatRow.room_id, SeatRow.kind)
                .where(SeatRow.room_id.in_(list(listed)))
                .order_by(SeatRow.room_id, SeatRow.seat)):
            listed[seat.room_id].seats.append(_Seat(seat.kind))
    return [room for room in reversed(listed.values())
            if any(seat.kind == "empty" for seat in room.seats)]


class SharedRoomList(OpenRoomList):
    """The open rooms of every process, read from the database at most once per
    ``ttl`` seconds (see the module); this process's own rooms are read live."""

    def __init__(self, rooms: Rooms, base_url: str, *, ttl: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(self._merged, base_url, ttl=ttl, clock=clock)
        self._owner = rooms
        self._stored: list[StoredListing] = []
        self._read_at: float | None = None
        self._reading: asyncio.Task[None] | None = None
        self.reads = 0
        """Reads of the database (for tests)."""

    def invalidate(self) -> None:
        """Read the database again at the next request (a room was created here)."""
        super().invalidate()
        self._read_at = None

    def _merged(self) -> Iterable[ListedRoom]:
        """The stored rooms (this process's own as they are now), then the rooms made
        here since the last read."""
        local = self._owner.rooms
        stored = [local.get(room.code, room) for room in self._stored]
        known = {room.code for room in self._stored}
        return [*stored, *(room for code, room in local.items() if code not in known)]

    async def _read(self) -> None:
        store = self._owner.store
        if store is None:
            return
        try:
            self._stored = await reading(self._owner.settings, store.run(read_open_rooms))
            self.reads += 1
        except RoomError as exc:  # the database is away: the last list is served
            LOG.warning("open-room list not read", extra={"error": str(exc)[:200]})
        self._read_at = self.clock()
        super().invalidate()

    async def read(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """See :meth:`OpenRoomList.read`: one read of the database at a time, shared by
        the requests that wait for it."""
        now = self.clock()
        if self._read_at is None or now - self._read_at >= self.ttl or self.ttl <= 0:
            if self._reading is None or self._reading.done():
                self._reading = asyncio.create_task(self._read())
            await asyncio.shield(self._reading)
        return self.page(offset, limit)


# ---------------------------------------------------------------- presence
class PresenceHints:
    """An owner's presence counts in Redis, and another process's reads of them."""

    def __init__(self, url: str, rooms: Rooms, *, every: float = PRESENCE_EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.redis = aioredis.Redis.from_url(url, socket_connect_timeout=2,
                                             socket_timeout=5)
        self.rooms = rooms
        self.every = every
        self.clock = clock
        self._told: dict[str, str] = {}
        """Room code -> the counts last written for it."""
        self._refreshed = 0.0
        self._task: asyncio.Task[None] | None = None
        self.writes = 0
        """Keys written (for tests)."""

    def start(self) -> None:
        """Write the counts every :attr:`every` seconds, until :meth:`stop`."""
        self._task = asyncio.create_task(self._forever(), name="presence-hints")

    async def stop(self) -> None:
        """Stop writing, remove what this process wrote (best effort), close."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(RedisError, OSError):
            if self._told:
                await self.redis.delete(*(presence_key(c) for c in self._told))
        self._told.clear()
        await self.redis.aclose()

    async def _forever(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.publish()
            except (RedisError, OSError) as exc:
                self._told.clear()  # Redis may have lost them: all are written again
                LOG.warning("presence not written", extra={"error": str(exc)[:200]})

    async def publish(self) -> int:
        """Write the counts of this process's rooms that changed since they were last
        written (all of them every :data:`PRESENCE_REFRESH` seconds) and delete those of
        the rooms it no longer holds; how many keys it wrote or deleted."""
        now = self.clock()
        refresh = now - self._refreshed >= PRESENCE_REFRESH
        pipe = self.redis.pipeline(transaction=False)
        written: dict[str, str] = {}
        for code, room in list(self.rooms.rooms.items()):
            value = encode_viewers(room.fanout.viewers(code))
            if refresh or self._told.get(code) != value:
                pipe.set(presence_key(code), value, ex=round(PRESENCE_TTL))
                written[code] = value
        gone = [code for code in self._told if code not in self.rooms.rooms]
        if gone:
            pipe.delete(*(presence_key(code) for code in gone))
        if not written and not gone:
            return 0
        await pipe.execute()
        for code in gone:
            del self._told[code]
        self._told.update(written)
        if refresh:
            self._refreshed = now
        self.writes += len(written)
        return len(written) + len(gone)

    async def viewers(self, code: str) -> dict[int, int]:
        """The counts an owner wrote for ``code`` (``{}``: none, or Redis is away)."""
        try:
            stored = await self.redis.get(presence_key(code))
        except (RedisError, OSError):
            return {}
        return decode_viewers(stored.encode() if isinstance(stored, str) else stored)


async def with_presence(info: P.RoomInfo, hints: PresenceHints | None,
                        local: bool) -> P.RoomInfo:
    """``info`` of a room, its seats' ``connected`` and its ``spectators`` from the
    owner's counts when this process does not hold the room (``local`` false)."""
    if local or hints is None:
        return info
    viewers = await hints.viewers(info.code)
    seats = [msgspec.structs.replace(seat, connected=viewers.get(seat.seat, 0) > 0)
             for seat in info.seats]
    return msgspec.structs.replace(info, seats=seats,
                                   spectators=viewers.get(SPECTATORS, 0))
