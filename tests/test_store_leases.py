"""One owner per room, in the store, on SQLite and PostgreSQL: two stores on one database
are two processes. A room is held by the store that made or claimed it; no other store
writes for it (every write is fenced with the lease's owner and token in its own
statement or transaction); a lease that ran out (by an injected clock) is taken over,
and then every write of the old owner is refused, queued ones included, and nothing of
them is stored; a released lease is claimed at once, and so is the lease of a dead
process of this machine. Migration 0006 gives the rooms already there free leases."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import Connection, inspect, select, text, update

from store_kit import LeaseClock, migrate_to, new_room
from unokit.store import (
    ActionData,
    AnswerData,
    ChatData,
    LeaseLost,
    SeatData,
    Store,
    StoredRoom,
)
from unokit.store.db import HEAD, current_revision, open_engine
from unokit.store.leases import LEASES, Owner
from unokit.store.lifecycle import set_last_seen_many

pytestmark = pytest.mark.asyncio

LEASE = 15.0


def action(n: int, client_id: str | None = None) -> ActionData:
    return ActionData(n, "0:draw", 0, "player", client_id, 10 + n, 1.0 + n)


def line(n: int) -> ChatData:
    return ChatData(n, 0, "Ann", f"line {n}", 1_700_000_000_000 + n, f"c{n}", -1)


def answer(n: int) -> AnswerData:
    return AnswerData(n, 0, f"h{n}", f'{{"type":"ack","id":"h{n}","seq":-1}}', 2.0)


def writes(room_id: int, n: int) -> dict[str, Callable[[Store], Awaitable[None]]]:
    """Every write the server makes for a room, the ``n``-th action and chat line."""
    return {
        "append_action": lambda s: s.append_action(room_id, action(n)),
        "append_action with chat": lambda s: s.append_action(room_id, action(n), line(n)),
        "append_chat": lambda s: s.append_chat(room_id, line(n)),
        "set_seat": lambda s: s.set_seat(room_id, SeatData(1, "bot", "easy bot", "easy"),
                                         answer=answer(n)),
        "set_seats": lambda s: s.set_seats(room_id, [SeatData(0, "empty")],
                                           drop_contributions=(0,)),
        "add_contribution": lambda s: s.add_contribution(room_id, 2, "v" * 16),
        "start_match": lambda s: s.start_match(room_id, 99, answer=answer(n)),
        "set_timer": lambda s: s.set_timer(room_id, 60, answer=answer(n)),
        "set_status": lambda s: s.set_status(room_id, "closed"),
    }


def shape(room: StoredRoom) -> Any:
    """Everything stored of a room."""
    return (room.status, room.turn_timer, room.seed, room.seats, room.contributions,
            room.actions, room.chat, room.answers)


@contextlib.asynccontextmanager
async def two_stores(database_url: str) -> AsyncIterator[tuple[LeaseClock, Store, Store]]:
    """Two stores on one database (two processes) with one lease clock; closed after."""
    clock = LeaseClock()
    first = Store(database_url, lease=LEASE, lease_clock=clock)
    second = Store(database_url, lease=LEASE, lease_clock=clock)
    try:
        yield clock, first, second
    finally:
        await first.close()
        await second.close()


async def lease_row(store: Store, room_id: int) -> tuple[str, int, float]:
    def read(connection: Connection) -> tuple[str, int, float]:
        row = connection.execute(select(LEASES.c.owner, LEASES.c.token, LEASES.c.lease_until)
                                 .where(LEASES.c.room_id == room_id)).one()
        return str(row[0]), int(row[1]), float(row[2])
    return await store.run(read)


async def test_a_room_is_held_by_its_maker_and_no_other_store_writes_for_it(
        database_url: str) -> None:
    clock = LeaseClock()
    first = Store(database_url, lease=LEASE, lease_clock=clock)
    second = Store(database_url, lease=LEASE, lease_clock=clock)
    try:
        room_id = await first.create_room(new_room("MINE"))
        await first.set_seat(room_id, SeatData(0, "human", "Ann", "", "f" * 64, True))
        await first.add_contribution(room_id, 0, "a" * 16)
        assert first.holds(room_id) and not second.holds(room_id)
        assert await lease_row(first, room_id) == (first.owner.text, 1, clock() + LEASE)
        assert await second.claim_rooms() == ([], 1)  # another live process holds it
        [before] = await first.load_rooms()
        for name, write in writes(room_id, 0).items():
            with pytest.raises(LeaseLost):
                await write(second)
            [after] = await first.load_rooms()
            assert shape(after) == shape(before), name
        # the owner's own writes all go through
        for n, name in enumerate(writes(room_id, 0)):
            await writes(room_id, n)[name](first)
        [done] = await first.load_rooms(ids=[room_id])
        assert done.status == "closed" and [a.n for a in done.actions] == [0, 1]
        assert [c.n for c in done.chat] == [1, 2]
    finally:
        await first.close()
        await second.close()


async def test_a_lease_that_ran_out_is_taken_over_and_the_old_owner_is_refused(
        database_url: str) -> None:
    clock = LeaseClock()
    old = Store(database_url, lease=LEASE, lease_clock=clock)
    new = Store(database_url, lease=LEASE, lease_clock=clock)
    try:
        room_id = await old.create_room(new_room("TAKE"))
        await old.append_action(room_id, action(0, "a0"))
        clock.advance(LEASE - 1)
        assert await new.claim_rooms() == ([], 1)  # not yet
        clock.advance(1)
        assert await new.claim_rooms() == ([room_id], 0)
        assert await lease_row(new, room_id) == (new.owner.text, 2, clock() + LEASE)
        [before] = await new.load_rooms()
        for name, write in writes(room_id, 1).items():
            with pytest.raises(LeaseLost):
                await write(old)
            [after] = await new.load_rooms()
            assert shape(after) == shape(before), name
        assert not old.holds(room_id) and new.holds(room_id)
        await new.append_action(room_id, action(1, "b1"))
        [stored] = await new.load_rooms()
        assert [(a.n, a.client_id) for a in stored.actions] == [(0, "a0"), (1, "b1")]
    finally:
        await old.close()
        await new.close()


async def test_renewing_keeps_a_lease_and_finds_the_ones_lost(database_url: str) -> None:
    async with two_stores(database_url) as (clock, first, second):
        kept = await first.create_room(new_room("KEPT"))
        taken = await first.create_room(new_room("TAKEN"))
        clock.advance(LEASE - 1)
        assert await first.renew_leases() == []
        clock.advance(LEASE - 1)  # past the first lease, within the renewed one
        assert await second.claim_rooms() == ([], 2)
        # the owner stalls past its renewed lease: the other store takes one room
        clock.advance(2)
        assert await second.claim_rooms(code="TAKEN") == ([taken], 0)
        assert await first.renew_leases() == [taken]  # found lost, and no longer written
        assert first.holds(kept) and not first.holds(taken)
        assert await second.claim_rooms() == ([], 1)  # the renewal kept the other one
        with pytest.raises(LeaseLost):
            await first.append_action(taken, action(0))
        await first.append_action(kept, action(0))


async def test_a_released_lease_is_claimed_at_once_and_close_releases_them_all(
        database_url: str) -> None:
    clock = LeaseClock()
    first = Store(database_url, lease=LEASE, lease_clock=clock)
    second = Store(database_url, lease=LEASE, lease_clock=clock)
    try:
        one = await first.create_room(new_room("ONE"))
        two = await first.create_room(new_room("TWO"))
        await first.release_rooms([one])
        assert not first.holds(one)
        assert await second.claim_rooms() == ([one], 1)
        with pytest.raises(LeaseLost):
            await first.append_action(one, action(0))
        await first.close()  # a clean stop releases the rest
        assert await second.claim_rooms() == ([two], 0)
        assert [await lease_row(second, r) for r in (one, two)] == [
            (second.owner.text, 2, clock() + LEASE)] * 2
    finally:
        await first.close()
        await second.close()


async def test_a_stalled_owners_queued_writes_are_refused_after_a_takeover(
        database_url: str) -> None:
    # The old owner's writer is held up (a process stopped, a slow disk) with writes for
    # two rooms queued; meanwhile its lease runs out and another store takes one room
    # over and writes its next action. Then the queued writes run, in one batch: the
    # taken room's are refused and nothing of them is stored, the other room's go in.
    clock = LeaseClock()
    old = Store(database_url, lease=LEASE, lease_clock=clock)
    new = Store(database_url, lease=LEASE, lease_clock=clock)
    gate = threading.Event()
    try:
        taken = await old.create_room(new_room("STALL"))
        kept = await old.create_room(new_room("KEEP"))
        await old.append_action(taken, action(0, "a0"))
        entered = threading.Event()

        def stall(_: Connection) -> bool:
            entered.set()
            return gate.wait(30)
        held = asyncio.ensure_future(old.run(stall))
        await asyncio.to_thread(entered.wait, 30)  # the writer is held up now
        queued = [asyncio.ensure_future(old.append_action(taken, action(1, "a1"))),
                  asyncio.ensure_future(old.append_action(kept, action(0, "k0"))),
                  asyncio.ensure_future(old.append_chat(taken, line(0))),
                  asyncio.ensure_future(old.set_status(taken, "closed"))]
        await asyncio.sleep(0)  # yields once (no time): every write is queued behind it
        clock.advance(LEASE)
        assert await new.claim_rooms(code="STALL") == ([taken], 0)
        await new.append_action(taken, action(1, "b1"))
        gate.set()
        assert await held
        outcomes = await asyncio.gather(*queued, return_exceptions=True)
        assert [type(o).__name__ for o in outcomes] == ["LeaseLost", "NoneType",
                                                        "LeaseLost", "LeaseLost"]
        stored = {r.code: r for r in await new.load_rooms()}
        assert [(a.n, a.client_id) for a in stored["STALL"].actions] == [(0, "a0"),
                                                                         (1, "b1")]
        assert stored["STALL"].chat == [] and stored["STALL"].status == "lobby"
        assert [a.client_id for a in stored["KEEP"].actions] == ["k0"]
    finally:
        gate.set()
        await old.close()
        await new.close()


async def test_the_batched_clock_writes_are_fenced_room_by_room(database_url: str) -> None:
    # The sweep stores many rooms' ``last_seen`` in one statement run once a room; each
    # run is fenced in the statement: a room another store took over keeps its time
    # (the old owner still has its token, as a stalled process would), the rest change.
    async with two_stores(database_url) as (clock, old, new):
        kept = await old.create_room(new_room("KEEP"))
        taken = await old.create_room(new_room("TAKE"))
        before = {r.code: r.last_seen for r in await old.load_rooms()}
        clock.advance(LEASE)
        assert await new.claim_rooms(code="TAKE") == ([taken], 0)
        assert old.token(taken) == 1 and new.token(taken) == 2
        await set_last_seen_many(old, [(kept, 5.0), (taken, 6.0)])
        seen = {r.code: r.last_seen for r in await old.load_rooms()}
        assert seen == {"KEEP": 5.0, "TAKE": before["TAKE"]}
        await set_last_seen_many(new, [(kept, 7.0), (taken, 8.0)])  # holds only TAKE
        seen = {r.code: r.last_seen for r in await new.load_rooms()}
        assert seen == {"KEEP": 5.0, "TAKE": 8.0}


async def test_the_rooms_of_a_dead_process_of_this_machine_are_claimed_at_once(
        database_url: str) -> None:
    store = Store(database_url, lease=LEASE)  # the database's own clock
    claimer = Store(database_url, lease=LEASE)
    try:
        dead_room = await store.create_room(new_room("DEAD"))
        live_room = await store.create_room(new_room("LIVE"))
        foreign_room = await store.create_room(new_room("FAR"))
        ended = subprocess.Popen([sys.executable, "-c", "pass"])
        ended.wait()
        me = Owner.here()
        owners = {dead_room: Owner(me.host, me.namespace, ended.pid, "x").text,
                  live_room: Owner(me.host, me.namespace, 1, "x").text,  # init runs
                  foreign_room: Owner("another-machine", me.namespace, ended.pid, "x").text}

        def hand_over(connection: Connection) -> None:
            for room_id, owner in owners.items():
                connection.execute(update(LEASES).where(LEASES.c.room_id == room_id)
                                   .values(owner=owner))
        await store.run(hand_over)
        assert await claimer.claim_rooms() == ([dead_room], 2)
        assert (await lease_row(claimer, dead_room))[:2] == (claimer.owner.text, 2)
    finally:
        await store.close()
        await claimer.close()


async def test_0006_gives_the_rooms_of_a_database_of_0005_free_leases(
        database_url: str) -> None:
    migrate_to(database_url, "0005")
    engine = open_engine(database_url)
    with engine.begin() as connection:
        assert "room_leases" not in inspect(connection).get_table_names()
        connection.execute(text(
            "INSERT INTO rooms (id, code, rules, status, turn_timer, public, server_seed, "
            "commitment, seed, created_at) VALUES (7, 'OLD', '{}', 'playing', 0, true, "
            "'00', 'ab', '12', 1.5)"))
    engine.dispose()
    store = Store(database_url, lease=LEASE)  # migrates to the newest revision
    try:
        assert current_revision(store.engine) == HEAD
        assert await lease_row(store, 7) == ("", 0, 0.0)
        with pytest.raises(LeaseLost):  # nobody holds it yet
            await store.append_action(7, action(0))
        assert await store.claim_rooms() == ([7], 0)
        await store.append_action(7, action(0))
        [old] = await store.load_rooms()
        assert (old.code, [a.n for a in old.actions]) == ("OLD", [0])
    finally:
        await store.close()
    migrate_to(database_url, "0005", down=True)
    engine = open_engine(database_url)
    with engine.connect() as connection:
        assert "room_leases" not in inspect(connection).get_table_names()
        assert connection.execute(text("SELECT code FROM rooms")).scalars().all() == ["OLD"]
    engine.dispose()
