"""The parts of :mod:`unokit.server.cluster_views` one at a time: the open rooms as the
database has them (SQLite and PostgreSQL), the list that merges them with this process's
live rooms, and the presence hints in Redis (the tests' server, and one that is away)."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from dataclasses import dataclass, field
from typing import Any

import pytest

from redis_kit import free_port, redis_url
from store_kit import new_room
from unokit.server import protocol as P
from unokit.server.cluster_views import (
    PRESENCE_REFRESH,
    PresenceHints,
    SharedRoomList,
    presence_key,
    read_open_rooms,
    with_presence,
)
from unokit.server.settings import Settings
from unokit.store import SeatData, Store

pytestmark = pytest.mark.asyncio


async def stored_rooms(store: Store) -> dict[str, int]:
    """Five rooms, made one second apart: open, private, full, playing, open."""
    ticks = itertools.count(1000)
    store.clock = lambda: float(next(ticks))
    ids = {}
    for code, public in [("OPEN1", True), ("HIDDEN", False), ("FULL", True),
                         ("PLAYS", True), ("OPEN2", True)]:
        ids[code] = await store.create_room(dataclasses.replace(new_room(code, seats=2),
                                                                public=public))
    await store.set_seats(ids["FULL"], [SeatData(0, "human", "Ann"), SeatData(1, "bot")])
    await store.set_seat(ids["OPEN2"], SeatData(0, "human", "Bob"))
    await store.set_status(ids["PLAYS"], "playing")
    return ids


async def test_the_open_rooms_are_read_from_the_database(database_url: str) -> None:
    store = Store(database_url)
    try:
        await stored_rooms(store)
        found = await store.run(read_open_rooms)
        assert [room.code for room in found] == ["OPEN1", "OPEN2"]  # oldest first
        assert [[seat.kind for seat in room.seats] for room in found] == [
            ["empty", "empty"], ["human", "empty"]]
        assert found[0].rules.to_string().startswith("official")
        newest = await store.run(lambda c: read_open_rooms(c, limit=1))
        assert [room.code for room in newest] == ["OPEN2"]
    finally:
        await store.close()


@dataclass
class Seat:
    kind: str


class Rules:
    def to_string(self) -> str:
        return "official"


@dataclass
class LiveRoom:
    """A room of this process, as the list reads it."""

    code: str
    seats: list[Seat] = field(default_factory=lambda: [Seat("human"), Seat("empty")])
    public: bool = True
    status: str = "lobby"
    turn_timer: int = 0
    rules: Rules = field(default_factory=Rules)


@dataclass
class Owner:
    """What :class:`SharedRoomList` reads of :class:`unokit.server.rooms.Rooms`."""

    store: Store
    settings: Settings
    rooms: dict[str, Any] = field(default_factory=dict)


async def test_the_list_reads_the_database_once_per_ttl_and_shows_its_own_rooms_live(
        tmp_path: Any) -> None:
    store = Store(f"sqlite:///{tmp_path / 'list.db'}")
    try:
        await stored_rooms(store)
        now = [0.0]
        owner = Owner(store, Settings(data_dir=str(tmp_path)))
        listing = SharedRoomList(owner, "http://uno.example",  # type: ignore[arg-type]
                                 ttl=5.0, clock=lambda: now[0])
        pages = await asyncio.gather(*(listing.read(0, 10) for _ in range(5)))
        assert listing.reads == 1  # the waiting requests shared one read
        assert all([r["code"] for r in page[0]] == ["OPEN2", "OPEN1"] for page in pages)
        assert pages[0][0][0]["invite"] == "http://uno.example/r/OPEN2"

        # OPEN1 is this process's: its live state counts (it filled up), and a room
        # made here since the read is listed first, once the list is read again
        owner.rooms["OPEN1"] = LiveRoom("OPEN1", seats=[Seat("human"), Seat("bot")])
        owner.rooms["MINE"] = LiveRoom("MINE")
        now[0] = 1.0
        page, total = await listing.read(0, 10)
        assert listing.reads == 1 and [r["code"] for r in page] == ["OPEN2", "OPEN1"]
        now[0] = 6.0  # the ttl ran out: read again
        page, total = await listing.read(0, 10)
        assert listing.reads == 2 and [r["code"] for r in page] == ["MINE", "OPEN2"]
        assert total == 2 and page[0]["free"] == 1
        # a room of this process that fills up leaves the page at once
        owner.rooms["MINE"].seats[1] = Seat("human")
        now[0] = 7.0
        page, total = await listing.read(0, 10)
        assert listing.reads == 2 and [r["code"] for r in page] == ["OPEN2"]
        listing.invalidate()  # a room was made here: read at the next request
        await listing.read(0, 1)
        assert listing.reads == 3
    finally:
        await store.close()


async def test_the_list_is_served_from_the_last_read_while_the_database_is_away(
        tmp_path: Any) -> None:
    store = Store(f"sqlite:///{tmp_path / 'list.db'}")
    await stored_rooms(store)
    owner = Owner(store, Settings(data_dir=str(tmp_path)))
    listing = SharedRoomList(owner, "", ttl=0.0)  # type: ignore[arg-type]
    assert len((await listing.read(0, 10))[0]) == 2
    await store.close()  # every read now fails
    page, _ = await listing.read(0, 10)
    assert [r["code"] for r in page] == ["OPEN2", "OPEN1"] and listing.reads == 1


class Viewers:
    def __init__(self) -> None:
        self.counts: dict[str, dict[int, int]] = {}

    def viewers(self, code: str) -> dict[int, int]:
        return dict(self.counts.get(code, {}))


@dataclass
class Room:
    fanout: Viewers


@dataclass
class Rooms:
    rooms: dict[str, Room]


def info(code: str) -> P.RoomInfo:
    return P.RoomInfo(code=code, rules={}, rules_text="", status="lobby",
                      seats=[P.SeatInfo(seat=0, kind="human", connected=True),
                             P.SeatInfo(seat=1, kind="empty")],
                      turn_timer=0, commitment="", catch_grace_ms=0, spectators=4)


async def test_an_owner_writes_its_rooms_presence_when_it_changes_and_others_read_it() -> None:
    fanout = Viewers()
    codes = [f"PRES{n}{free_port()}" for n in range(2)]
    rooms = Rooms({code: Room(fanout) for code in codes})
    now = [0.0]
    hints = PresenceHints(redis_url(), rooms, clock=lambda: now[0])  # type: ignore[arg-type]
    try:
        fanout.counts[codes[0]] = {0: 1, -1: 2}
        assert await hints.publish() == 2  # the first time: every room
        assert await hints.publish() == 0  # nothing changed
        assert await hints.viewers(codes[0]) == {0: 1, -1: 2}
        shown = await with_presence(info(codes[0]), hints, local=False)
        assert [s.connected for s in shown.seats] == [True, False] and shown.spectators == 2
        # this process's own room shows its own counts
        assert await with_presence(info(codes[0]), hints, local=True) == info(codes[0])

        fanout.counts[codes[0]] = {1: 1}
        assert await hints.publish() == 1
        shown = await with_presence(info(codes[0]), hints, local=False)
        assert [s.connected for s in shown.seats] == [False, True] and shown.spectators == 0

        now[0] = PRESENCE_REFRESH  # every room is written again, to keep its key alive
        assert await hints.publish() == 2
        assert 0 < await hints.redis.ttl(presence_key(codes[1])) <= 30

        del rooms.rooms[codes[0]]  # no longer this process's
        assert await hints.publish() == 1
        assert await hints.redis.exists(presence_key(codes[0])) == 0
        assert await hints.viewers(codes[0]) == {}
    finally:
        await hints.stop()
    check = PresenceHints(redis_url(), Rooms({}))
    try:
        assert await check.redis.exists(*(presence_key(c) for c in codes)) == 0  # stop
    finally:
        await check.stop()


async def test_without_redis_a_room_of_another_process_shows_nobody_connected() -> None:
    away = PresenceHints(f"redis://127.0.0.1:{free_port()}/0", Rooms({}))
    try:
        assert await away.viewers("ABCDEF") == {}
        shown = await with_presence(info("ABCDEF"), away, local=False)
        assert [s.connected for s in shown.seats] == [False, False] and shown.spectators == 0
    finally:
        await away.stop()
