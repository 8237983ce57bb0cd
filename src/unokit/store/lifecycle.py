"""The stored side of rooms' lives and of retention: when a seated person was last seen
(:func:`set_last_seen`, :func:`set_last_seen_many`), rooms that outlived their clocks
while no process served them (:func:`end_stale`), and the deletion of old rooms in
bounded batches (:func:`delete_ended`).

Every function goes through the store's writer (:meth:`Store.run`), one short
transaction at a time, so that a room's commit never waits long behind them: a deletion
of many rooms is many transactions of at most ``batch`` rooms each, and other rooms'
writes go in between.

>>> import asyncio
>>> from unokit.store import NewRoom, Store
>>> async def demo():
...     store = Store("sqlite://")
...     room = await store.create_room(NewRoom(code="ABCD", rules="{}", turn_timer=0,
...         public=True, server_seed="00" * 32, commitment="ab" * 32, seats=2))
...     await set_last_seen(store, room, 100.0)
...     ended = await end_stale(store, now=1e12, abandon_after=600, lobby_timeout=3600)
...     deleted = await delete_ended(store, Retention(finished_before=None,
...                                                   closed_before=1e13))
...     left = await store.load_rooms(code="ABCD")
...     await store.close()
...     return ended, deleted, left
>>> asyncio.run(demo())
((0, 1), 1, [])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import (
    ColumnElement,
    Connection,
    Table,
    and_,
    bindparam,
    delete,
    exists,
    false,
    func,
    or_,
    select,
    update,
)

from unokit.store.leases import LEASES, now_sql
from unokit.store.models import Base, RoomRow
from unokit.store.store import Store

ROOMS: Table = RoomRow.__table__  # type: ignore[assignment]

DELETE_BATCH = 10
"""The most rooms one deleting transaction takes (with all their rows)."""

ENDED = ("finished", "abandoned")
"""The statuses of a match that is over: its record stays until ``keep_finished``."""


async def set_last_seen(store: Store, room_id: int, at: float) -> None:
    """Store that a seated person of the room was connected at ``at`` (seconds since the
    epoch)."""
    def write(connection: Connection) -> None:
        store._fence(connection, room_id)
        connection.execute(update(ROOMS).where(ROOMS.c.id == room_id).values(last_seen=at))
    await store.run(write)


async def set_last_seen_many(store: Store, seen: Sequence[tuple[int, float]]) -> None:
    """:func:`set_last_seen` of many rooms (``(room id, at)`` pairs) in one transaction:
    one statement run once a room (``executemany``), each run fenced in the statement
    itself by its room's lease, so that a sweep that finds many rooms due costs the
    writer one short transaction, not one each (the rooms' commits wait behind it). A
    room this store no longer holds keeps the time it had.

    >>> import asyncio
    >>> from unokit.store import NewRoom, Store
    >>> async def demo():
    ...     store = Store("sqlite://")
    ...     rooms = [await store.create_room(NewRoom(code=code, rules="{}", turn_timer=0,
    ...         public=True, server_seed="00" * 32, commitment="ab" * 32, seats=2))
    ...         for code in ("ABCD", "EFGH")]
    ...     await set_last_seen_many(store, [(rooms[0], 100.0), (rooms[1], 200.0)])
    ...     seen = [room.last_seen for room in await store.load_rooms()]
    ...     await store.close()
    ...     return seen
    >>> asyncio.run(demo())
    [100.0, 200.0]
    """
    rows = [{"b_room": room_id, "b_at": at, "b_token": token, "b_owner": store.owner.text}
            for room_id, at in seen if (token := store.token(room_id)) is not None]
    if not rows:
        return

    def write(connection: Connection) -> None:
        held = select(LEASES.c.room_id).where(
            LEASES.c.room_id == bindparam("b_room"), LEASES.c.owner == bindparam("b_owner"),
            LEASES.c.token == bindparam("b_token"))
        if connection.dialect.name == "postgresql":
            held = held.with_for_update(read=True)
        connection.execute(update(ROOMS).where(ROOMS.c.id == bindparam("b_room"),
                                               exists(held))
                           .values(last_seen=bindparam("b_at")), rows)
    await store.run(write)


async def end_stale(store: Store, *, now: float, abandon_after: float,
                    lobby_timeout: float) -> tuple[int, int]:
    """End the rooms whose stored clock ran out before ``now`` while no process served
    them: a match under way whose seated people were last seen ``abandon_after`` seconds
    before becomes ``abandoned``, a lobby last seen ``lobby_timeout`` seconds before
    ``closed``, each ended when its clock ran out (``ended_at``); the numbers of each.
    Run at start, before the rooms are loaded, so that they are not replayed. A room
    whose lease another process holds is left to that process."""
    def write(connection: Connection) -> tuple[int, int]:
        seen = _last_seen()
        free = _not_held(connection, store)
        abandoned = connection.execute(
            update(ROOMS).where(ROOMS.c.status == "playing", seen < now - abandon_after, free)
            .values(status="abandoned", ended_at=seen + abandon_after))
        closed = connection.execute(
            update(ROOMS).where(ROOMS.c.status == "lobby", seen < now - lobby_timeout, free)
            .values(status="closed", ended_at=seen + lobby_timeout))
        return abandoned.rowcount, closed.rowcount
    return await store.run(write)


def _not_held(connection: Connection, store: Store) -> ColumnElement[bool]:
    """The rooms whose lease no other process holds now (by the leases' clock)."""
    held = select(LEASES.c.room_id).where(
        LEASES.c.room_id == ROOMS.c.id, LEASES.c.owner.not_in(("", store.owner.text)),
        LEASES.c.lease_until > now_sql(connection, store.lease_clock))
    return ~exists(held)


def _last_seen() -> ColumnElement[float]:
    return func.coalesce(ROOMS.c.last_seen, ROOMS.c.created_at)


@dataclass(frozen=True)
class Retention:
    """Which ended rooms to delete (times in seconds since the epoch; ``None``: keep
    them all).

    - ``finished_before``: matches over (``finished`` or ``abandoned``, or ``closed``
      after they started) that ended before it;
    - ``closed_before``: lobbies closed before their match started, closed before it.
    """

    finished_before: float | None
    closed_before: float | None
    keep: frozenset[int] = frozenset()
    """Room ids never deleted (the rooms the process holds in memory)."""

    def where(self) -> ColumnElement[bool]:
        """The rooms to delete, as a condition on ``rooms``."""
        wanted: ColumnElement[bool] = false()
        if self.finished_before is not None:
            wanted = or_(wanted, and_(
                or_(ROOMS.c.status.in_(ENDED),
                    and_(ROOMS.c.status == "closed", ROOMS.c.started_at.is_not(None))),
                ROOMS.c.ended_at < self.finished_before))
        if self.closed_before is not None:
            wanted = or_(wanted, and_(ROOMS.c.status == "closed",
                                      ROOMS.c.started_at.is_(None),
                                      ROOMS.c.ended_at < self.closed_before))
        if self.keep:
            wanted = and_(wanted, ROOMS.c.id.not_in(sorted(self.keep)))
        return wanted


def _children() -> list[Table]:
    """Every table with rows of a room (``room_id``), children before parents."""
    return [table for table in reversed(Base.metadata.sorted_tables)
            if table is not ROOMS and "room_id" in table.c]


async def delete_ended(store: Store, retention: Retention, *,
                       batch: int = DELETE_BATCH) -> int:
    """Delete the rooms ``retention`` names and all their rows, at most ``batch`` rooms
    per transaction; the number of rooms deleted."""
    where = retention.where()

    def write(connection: Connection) -> int:
        ids = list(connection.execute(
            select(ROOMS.c.id).where(where, _not_held(connection, store)).limit(batch))
            .scalars())
        if ids:
            for table in _children():
                connection.execute(delete(table).where(table.c.room_id.in_(ids)))
            connection.execute(delete(ROOMS).where(ROOMS.c.id.in_(ids)))
        return len(ids)

    return await in_batches(store, write, batch)


async def in_batches(store: Store, write: Callable[[Connection], int], batch: int) -> int:
    """Run ``write`` (one transaction that deletes at most ``batch`` of something and
    says how many) again until it deletes fewer than ``batch``; the total deleted."""
    total = 0
    while True:
        deleted = await store.run(write)
        total += deleted
        if deleted < batch:
            return total
