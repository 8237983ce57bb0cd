"""Two processes' writes that lock the same rows in opposite orders: PostgreSQL breaks
the deadlock by rolling one back, and the store tries that write again."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from sqlalchemy import Connection, Table, update

import dbs
from unokit.store import Store
from unokit.store import accounts as A
from unokit.store.models import PlayerRow
from unokit.store.store import _transient

PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]


@pytest.mark.asyncio
async def test_a_deadlocks_victim_is_tried_again(tmp_path: Path) -> None:
    with dbs.database("postgresql", tmp_path) as url:
        first, second = Store(url), Store(url)
        try:
            ann = await A.create_guest(first, "a" * 43, now=0.0)
            bob = await A.create_guest(first, "b" * 43, now=0.0)
            both_locked = threading.Barrier(2, timeout=60)
            tries: list[int] = []

            def crossing(mine: int, theirs: int) -> object:
                def write(connection: Connection) -> int:
                    tries.append(mine)
                    connection.execute(update(PLAYERS).where(PLAYERS.c.id == mine)
                                       .values(created_at=PLAYERS.c.created_at + 1))
                    if tries.count(mine) == 1:  # the first try: meet the other one
                        both_locked.wait()
                    connection.execute(update(PLAYERS).where(PLAYERS.c.id == theirs)
                                       .values(created_at=PLAYERS.c.created_at + 1))
                    return mine
                return write

            done = await asyncio.gather(first.run(crossing(ann, bob)),  # type: ignore[arg-type]
                                        second.run(crossing(bob, ann)))  # type: ignore[arg-type]
            assert done == [ann, bob]
            assert first.deadlocks + second.deadlocks == 1
            assert sorted(tries) == sorted([ann, bob, ann if first.deadlocks else bob])
            # both writes are in: each row moved twice
            created = await first.run(lambda c: sorted(
                c.execute(PLAYERS.select().with_only_columns(PLAYERS.c.created_at)).scalars()))
            assert created == [2.0, 2.0]
        finally:
            await first.close()
            await second.close()


def test_only_deadlocks_and_serialization_failures_are_tried_again() -> None:
    class Driver(Exception):
        def __init__(self, sqlstate: str) -> None:
            self.sqlstate = sqlstate

    class Wrapped(Exception):
        def __init__(self, orig: Exception) -> None:
            self.orig = orig

    assert _transient(Wrapped(Driver("40P01"))) and _transient(Driver("40001"))
    assert not _transient(Wrapped(Driver("23505")))  # a broken unique key is final
    assert not _transient(RuntimeError("no"))
