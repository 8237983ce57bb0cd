"""Rooms' lives on the real server, on SQLite and on PostgreSQL: a match every seated
person left is closed as abandoned after ``abandon_after``, and a lobby after
``lobby_timeout``, both counted from the stored ``last_seen``, so that a restart neither
resets nor forgets the clock; a room whose clock ran out while the server was down is
ended at start and not brought back. The rooms' wall clock is a fake the tests move
(never a wait)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from sqlalchemy import Connection, select

from polling import until
from server_harness import Running, running_server, server_settings
from unokit.client import ClientError, GameClient
from unokit.client.client import ActionRefused
from unokit.server import presence as presence_module
from unokit.server import rooms as rooms_module
from unokit.server.presence import SEEN_EVERY, seen_every
from unokit.server.room import Room
from unokit.server.rooms import FINISHED_KEPT
from unokit.store import StoreError
from unokit.store.models import RoomRow

pytestmark = pytest.mark.asyncio


class Clock:
    """A wall clock that moves only when told."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


async def post(server: Running, path: str, body: Any) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.post(server.url + path, json=body)


async def get(server: Running, path: str) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.get(server.url + path)


async def play_now(server: Running) -> tuple[str, GameClient]:
    """A match of Ann against a bot, under way."""
    answer = await post(server, "/api/play-now", {"rules": "official,players=2",
                                                  "bot": "easy"})
    code = str(answer.json()["code"])
    ann = await GameClient.join(server.url, code, name="Ann")
    await ann.wait_for(lambda c: c.room.get("status") == "playing")
    return code, ann


async def leave(room: Room, client: GameClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Close ``client`` and wait until its room has noticed that nobody seated is left."""
    left = asyncio.Event()
    note = room._note_presence

    def noted(connected: bool) -> None:
        note(connected)
        if not room.attended:
            left.set()
    monkeypatch.setattr(room, "_note_presence", noted)
    await client.close()
    await asyncio.wait_for(left.wait(), 30)


async def stored(server: Running, code: str) -> tuple[str, float | None, float | None]:
    """The room's stored status, ``last_seen`` and ``ended_at``."""
    rooms = RoomRow.__table__

    def read(connection: Connection) -> tuple[str, float | None, float | None]:
        row = connection.execute(select(rooms.c.status, rooms.c.last_seen,
                                        rooms.c.ended_at).where(rooms.c.code == code)).one()
        return row.status, row.last_seen, row.ended_at
    assert server.rooms.store is not None
    return await server.rooms.store.run(read)


# ---------------------------------------------------------------- abandoned matches
async def test_a_match_everyone_left_is_abandoned_after_abandon_after(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    async with running_server(server_settings(database_url, abandon_after=600),
                              clock=clock) as server:
        code, ann = await play_now(server)
        token = ann.token
        eve = await GameClient.join(server.url, code, spectate=True)  # does not count
        room = server.rooms.get(code)
        clock.now += 3600  # Ann stays connected, however long: nothing happens
        await server.rooms.sweep()
        assert room.status == "playing"
        assert (await stored(server, code))[1] == clock.now  # stored while she stays

        await leave(room, ann, monkeypatch)
        left = clock.now
        clock.now += 599
        await server.rooms.sweep()
        assert room.status == "playing"
        assert await stored(server, code) == ("playing", left, None)
        clock.now += 2
        await server.rooms.sweep()
        assert room.status == "abandoned"
        assert await stored(server, code) == ("abandoned", left, clock.now)
        # whoever watches is told, and gets the reveal
        await eve.wait_for(lambda c: c.room["status"] == "abandoned" and c.reveal is not None)
        assert eve.legal == []

        # Ann comes back: the match is over, her actions are refused with the reason
        again = await GameClient.join(server.url, code, token=token)
        await again.wait_for(lambda c: c.reveal is not None)
        assert again.legal == [] and again.room["status"] == "abandoned"
        with pytest.raises(ActionRefused) as refused:
            await again.act("draw")
        assert refused.value.code == "not_started"
        assert "abandoned" in str(refused.value)
        # its record and its fairness block stay
        record = (await get(server, f"/api/rooms/{code}/record")).json()
        assert record["fairness"]["server_seed"] == eve.reveal["server_seed"]
        assert (await get(server, f"/api/rooms/{code}")).json()["status"] == "abandoned"
        verified = (await get(server, f"/api/rooms/{code}/verify")).json()
        assert verified["passed"], verified  # the deal of an abandoned match checks out
        await again.close()
        await eve.close()


async def test_a_sweep_stores_the_clocks_of_every_room_due_in_one_write(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Rooms made together come due apart (each its own interval), and the rooms due at
    # one sweep are stored in one transaction, not one each: a busy server's commits
    # never queue behind thousands of small writes.
    clock = Clock()
    async with running_server(server_settings(database_url), clock=clock) as server:
        made = [await play_now(server) for _ in range(6)]
        rooms = [server.rooms.get(code) for code, _ in made]
        batches: list[list[tuple[int, float]]] = []
        singles: list[int] = []
        many, one = rooms_module.set_last_seen_many, presence_module.set_last_seen

        async def counted_many(store: Any, seen: Any) -> None:
            batches.append(list(seen))
            await many(store, seen)

        async def counted_one(store: Any, room_id: int, at: float) -> None:
            singles.append(room_id)
            await one(store, room_id, at)
        monkeypatch.setattr(rooms_module, "set_last_seen_many", counted_many)
        monkeypatch.setattr(presence_module, "set_last_seen", counted_one)
        made_at = clock.now
        intervals = sorted(seen_every(room.id) for room in rooms)
        assert len(set(intervals)) == len(rooms)  # each its own
        clock.now = made_at + intervals[2]  # three rooms are due
        await server.rooms.sweep()
        assert [sorted(at for _, at in batch) for batch in batches] == [[clock.now] * 3]
        assert sorted(room_id for room_id, _ in batches[0]) == sorted(
            room.id for room in rooms if seen_every(room.id) <= intervals[2])
        first = clock.now
        await server.rooms.sweep()  # nothing more is due
        clock.now = made_at + SEEN_EVERY  # the other three
        await server.rooms.sweep()
        assert [len(batch) for batch in batches] == [3, 3]
        assert {room_id for batch in batches for room_id, _ in batch} == {
            room.id for room in rooms}
        assert singles == []
        for code, _ in made:
            due = first if seen_every(server.rooms.get(code).id) <= intervals[2] else clock.now
            assert (await stored(server, code))[:2] == ("playing", due)
        for _, client in made:
            await client.close()


async def test_a_sweep_of_many_rooms_lets_the_rooms_messages_through_between_chunks(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Looking at thousands of rooms takes milliseconds: the sweep looks at them in
    # chunks, and whatever else the event loop has to do runs in between.
    async with running_server(server_settings(database_url)) as server:
        made = [await play_now(server) for _ in range(5)]
        monkeypatch.setattr(rooms_module, "SWEEP_CHUNK", 2)
        order: list[str] = []
        for code, _ in made:
            room = server.rooms.get(code)
            looked = room.seen_due

            def seen_due(now: float, looked: Any = looked) -> float | None:
                order.append("room")
                return looked(now)  # type: ignore[no-any-return]
            monkeypatch.setattr(room, "seen_due", seen_due)
        loop = asyncio.get_running_loop()
        sweeping = asyncio.ensure_future(server.rooms.sweep())

        def other() -> None:  # other work of the loop: once a turn, until the sweep ends
            if not sweeping.done():
                order.append("other")
                loop.call_soon(other)
        loop.call_soon(other)
        await sweeping
        looks = "".join("r" if step == "room" else "." for step in order).strip(".")
        assert looks.replace(".", "") == "rrrrr"
        assert [len(run) for run in looks.split(".") if run] == [2, 2, 1]
        for _, client in made:
            await client.close()


async def test_clocks_the_database_refused_stay_due_for_the_next_sweep(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    async with running_server(server_settings(database_url), clock=clock) as server:
        code, ann = await play_now(server)
        room = server.rooms.get(code)
        made = (await stored(server, code))[1]
        many = rooms_module.set_last_seen_many

        async def refused(store: Any, seen: Any) -> None:
            raise StoreError("the database is away")
        monkeypatch.setattr(rooms_module, "set_last_seen_many", refused)
        clock.now += SEEN_EVERY
        await server.rooms.sweep()
        assert room.seen_due(clock.now) == clock.now  # still due
        assert (await stored(server, code))[1] == made
        monkeypatch.setattr(rooms_module, "set_last_seen_many", many)
        await server.rooms.sweep()
        assert room.seen_due(clock.now) is None
        assert (await stored(server, code))[1] == clock.now
        await ann.close()


async def test_the_abandon_clock_is_stored_and_survives_restarts(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    settings = server_settings(database_url, abandon_after=600)
    async with running_server(settings, clock=clock) as server:
        code, ann = await play_now(server)
        clock.now += 100
        await leave(server.rooms.get(code), ann, monkeypatch)
        left = clock.now
        clock.now += 300
        await server.rooms.sweep()
        assert await stored(server, code) == ("playing", left, None)

    # back after a restart, the clock goes on from the time stored, not from the start
    async with running_server(settings, clock=clock) as server:
        room = server.rooms.get(code)
        assert room.status == "playing" and room.last_seen == left
        clock.now = left + 599
        await server.rooms.sweep()
        assert room.status == "playing"
        clock.now = left + 601
        await server.rooms.sweep()
        assert room.status == "abandoned"
        assert await stored(server, code) == ("abandoned", left, clock.now)
        # like a finished match, it leaves memory once it has been over a while
        await server.rooms.sweep(time.monotonic() + FINISHED_KEPT + 1)
        assert code not in server.rooms.rooms and server.rooms.unloaded == 1

    # an abandoned match is not replayed at every start: once it has been over for
    # FINISHED_KEPT seconds it stays in the database only
    clock.now += FINISHED_KEPT + 1
    async with running_server(settings, clock=clock) as server:
        assert code not in server.rooms.rooms and server.rooms.restored == 0
        shown = await get(server, f"/api/rooms/{code}")
        assert shown.status_code == 200 and shown.json()["status"] == "abandoned"


async def test_a_match_whose_clock_ran_out_while_the_server_was_down_ends_at_start(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    settings = server_settings(database_url, abandon_after=600)
    async with running_server(settings, clock=clock) as server:
        code, ann = await play_now(server)
        stays, bob = await play_now(server)  # Bob is connected when the server goes
        await leave(server.rooms.get(code), ann, monkeypatch)
        left = clock.now
        clock.now += 61
        await server.rooms.sweep()  # stored: Ann left, and Bob is there now
        assert (await stored(server, code))[1] == left
        assert (await stored(server, stays))[1] == clock.now
        bob_seen = clock.now
        clock.now += 30
        await server.rooms.sweep()  # stored at most once a minute
        assert (await stored(server, stays))[1] == bob_seen
    await bob.close()

    clock.now = bob_seen + 599  # Ann's match ran out while the server was down
    async with running_server(settings, clock=clock) as server:
        # ended when its clock ran out, and not replayed as a match under way
        assert await stored(server, code) == ("abandoned", left, left + 600)
        assert server.rooms.get(code).status == "abandoned"
        # Bob's was stored as attended a minute before the stop: it goes on
        assert server.rooms.get(stays).status == "playing"
        assert (await stored(server, stays))[0] == "playing"


# ---------------------------------------------------------------- lobbies
async def test_a_lobby_expires_by_its_stored_clock_across_a_restart(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    settings = server_settings(database_url, lobby_timeout=3600)
    async with running_server(settings, clock=clock) as server:
        answer = await post(server, "/api/rooms", {"rules": "official,players=3"})
        code = answer.json()["code"]
        ann = await GameClient.join(server.url, code, name="Ann")
        clock.now += 100
        await leave(server.rooms.get(code), ann, monkeypatch)
        left = clock.now
        await server.rooms.sweep()
        assert await stored(server, code) == ("lobby", left, None)
        clock.now += 100
        untouched = (await post(server, "/api/rooms", {"rules": "official,players=2"}))
        fresh = untouched.json()["code"]  # nobody ever came: counted from its creation

    clock.now = left + 1800
    async with running_server(settings, clock=clock) as server:
        room = server.rooms.get(code)
        assert room.status == "lobby"
        clock.now = left + 3599
        await server.rooms.sweep()
        assert room.status == "lobby"
        clock.now = left + 3601
        await server.rooms.sweep()
        assert room.status == "closed"
        assert await stored(server, code) == ("closed", left, clock.now)
        assert fresh in server.rooms.rooms  # made 100 s later than Ann left
        with pytest.raises(ClientError, match="room_closed"):
            await GameClient.join(server.url, code, name="Bob")

    clock.now = left + 100 + 3601  # the other lobby's time ran out while it was down
    async with running_server(settings, clock=clock) as server:
        assert fresh not in server.rooms.rooms
        assert (await stored(server, fresh))[0] == "closed"
        with pytest.raises(ClientError, match="room_closed"):
            await GameClient.join(server.url, fresh, name="Bob")


# ---------------------------------------------------------------- retention
async def test_the_server_runs_the_retention_sweep_by_itself(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # (server review S7: no row was ever deleted) a started server deletes the rooms
    # over for longer than the retention settings say with no one asking: its sweep
    # runs RETAIN_FIRST seconds after the start (0 here) and then periodically
    from test_store_lifecycle import NOW, codes, make_room
    from unokit.server import retention
    from unokit.store import Store
    store = Store(database_url)
    try:
        await make_room(store, "OLDFIN", "finished", ended_days=91, started=True)
        await make_room(store, "NEWFIN", "finished", ended_days=89, started=True)
    finally:
        await store.close()
    monkeypatch.setattr(retention, "RETAIN_FIRST", 0.0)
    async with running_server(server_settings(database_url), clock=lambda: NOW) as server:
        await until(lambda: server.rooms.retainer.deleted == 1, "the first sweep")
        assert server.rooms.store is not None
        assert await codes(server.rooms.store) == {"NEWFIN"}
