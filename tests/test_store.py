"""The server's store on SQLite and PostgreSQL: the migrated schema matches the models,
writes share commits and stay in order, one failing write fails only its caller, rooms
load back whole, and close() finishes what was handed in."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import Connection, inspect

from store_kit import new_room
from unokit.store import ActionData, SeatData, Store, StoreConflict, StoreError
from unokit.store.db import HEAD, current_revision
from unokit.store.models import Base

pytestmark = pytest.mark.asyncio



def action(n: int, seat: int = 0, client_id: str | None = None) -> ActionData:
    return ActionData(n, f"{seat}:draw", seat, "player", client_id, 10 + n, 1.0 + n)


async def test_migrations_make_the_schema_of_the_models(database_url: str) -> None:
    store = Store(database_url)
    try:
        assert current_revision(store.engine) == HEAD

        def columns(connection: Connection) -> dict[str, set[str]]:
            found = inspect(connection)
            return {t: {c["name"] for c in found.get_columns(t)}
                    for t in found.get_table_names() if t != "alembic_version"}
        in_database = await store.run(columns)
        in_models = {name: {c.name for c in table.columns}
                     for name, table in Base.metadata.tables.items()}
        assert in_database == in_models

        def nullable(connection: Connection) -> dict[tuple[str, str], bool]:
            found = inspect(connection)
            return {(t, c["name"]): bool(c["nullable"]) for t in in_models
                    for c in found.get_columns(t)}
        stored = await store.run(nullable)
        for name, table in Base.metadata.tables.items():
            for column in table.columns:
                if not column.primary_key:
                    assert stored[(name, column.name)] == column.nullable, (name, column.name)
    finally:
        await store.close()
    # a second open finds the schema in place and migrates nothing
    again = Store(database_url)
    assert current_revision(again.engine) == HEAD
    await again.close()


async def test_writes_share_commits_and_stay_in_order(database_url: str) -> None:
    store = Store(database_url)
    try:
        rooms = [await store.create_room(new_room(f"R{i}")) for i in range(4)]
        before_commits, before_writes = store.commits, store.writes
        per_room = 60

        async def write_room(room_id: int) -> None:
            # each room awaits its own writes one by one, as a room task does, while the
            # other rooms write at the same time
            for n in range(per_room):
                await store.append_action(room_id, action(n, client_id=f"c{n}"))
        await asyncio.gather(*(write_room(r) for r in rooms))
        writes = store.writes - before_writes
        commits = store.commits - before_commits
        assert writes == per_room * len(rooms)
        assert commits < writes
        loaded = {r.id: r for r in await store.load_rooms()}
        for room_id in rooms:
            assert [a.n for a in loaded[room_id].actions] == list(range(per_room))
            assert loaded[room_id].actions[5] == action(5, client_id="c5")
    finally:
        await store.close()


async def test_many_waiting_writes_go_in_few_commits(database_url: str) -> None:
    store = Store(database_url)
    try:
        room_id = await store.create_room(new_room("MANY"))
        before = store.commits
        await asyncio.gather(*(store.append_action(room_id, action(n)) for n in range(200)))
        assert store.commits - before < 200
        [loaded] = await store.load_rooms()
        assert [a.n for a in loaded.actions] == list(range(200))
    finally:
        await store.close()


async def test_a_failing_write_fails_only_its_caller(database_url: str) -> None:
    store = Store(database_url)
    try:
        room_id = await store.create_room(new_room("FAIL"))
        await store.append_action(room_id, action(0))
        # action 0 again: the primary key refuses it; the others in the batch commit
        results = await asyncio.gather(
            store.append_action(room_id, action(1)),
            store.append_action(room_id, action(0)),
            store.append_action(room_id, action(2)),
            store.set_seat(room_id, SeatData(1, "bot", "easy bot", "easy")),
            return_exceptions=True)
        # a broken key is a conflict (a StoreError that says trying again cannot help)
        assert [type(r) for r in results] == [type(None), StoreConflict, type(None),
                                              type(None)]
        # the code of a room is unique
        with pytest.raises(StoreError):
            await store.create_room(new_room("FAIL"))
        [loaded] = await store.load_rooms()
        assert [a.n for a in loaded.actions] == [0, 1, 2]
        assert loaded.seats[1] == SeatData(1, "bot", "easy bot", "easy")
    finally:
        await store.close()


async def test_load_rooms_brings_rooms_back_whole(database_url: str) -> None:
    store = Store(database_url)
    try:
        first = await store.create_room(new_room("ONE", seats=4))
        second = await store.create_room(new_room("TWO", seats=2))
        done = await store.create_room(new_room("OLD", seats=2))
        await store.set_seat(first, SeatData(0, "human", "Ann", "", "f" * 64, True))
        await store.set_seat(first, SeatData(2, "bot", "hard bot", "hard"))
        await store.add_contribution(first, 0, "ann-value")
        await store.start_match(first, 12345678901234567890)
        await store.set_timer(second, 30)
        for n in range(5):
            await store.append_action(first, action(n, seat=n % 4))
        await store.set_status(done, "finished")
        loaded = {r.code: r for r in await store.load_rooms()}
        assert set(loaded) == {"ONE", "TWO"}
        one = loaded["ONE"]
        assert one.status == "playing" and one.seed == 12345678901234567890
        assert [s.seat for s in one.seats] == [0, 1, 2, 3]
        assert one.seats[0] == SeatData(0, "human", "Ann", "", "f" * 64, True)
        assert one.seats[1] == SeatData(1, "empty")
        assert one.seats[2].bot == "hard"
        assert one.contributions == {0: "ann-value"}
        assert [a.n for a in one.actions] == list(range(5))
        assert [a.seat for a in one.actions] == [0, 1, 2, 3, 0]
        assert loaded["TWO"].turn_timer == 30 and loaded["TWO"].seed is None
        [old] = await store.load_rooms(code="OLD")
        assert old.status == "finished"
        await store.delete_room(second)
        assert [r.code for r in await store.load_rooms()] == ["ONE"]
        assert await store.ping()
    finally:
        await store.close()


async def test_close_finishes_pending_writes(database_url: str) -> None:
    store = Store(database_url)
    room_id = await store.create_room(new_room("CLOSE"))
    pending: list[Any] = [asyncio.ensure_future(store.append_action(room_id, action(n)))
                          for n in range(50)]
    await asyncio.sleep(0)  # yields once (no time), so that every write is handed to the writer
    await store.close()
    await asyncio.gather(*pending)
    with pytest.raises(StoreError, match="closed"):
        await store.append_action(room_id, action(50))
    reopened = Store(database_url)
    try:
        [loaded] = await reopened.load_rooms()
        assert [a.n for a in loaded.actions] == list(range(50))
    finally:
        await reopened.close()
