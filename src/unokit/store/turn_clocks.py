"""The turn clocks of rooms handed over (the table ``turn_clocks``, revision 0012).

A process that stops cleanly (SIGTERM, a rolling restart) writes, for each room whose
turn timer runs, how many seconds of the turn were used and at which action
(:func:`save`), then releases its leases. The process that takes the room over takes
the row (:func:`take`: read and deleted, so that it serves one handover) and counts the
turn on from there, so that the handover costs the player none of their time; a row
whose action count is no longer the match's applies no more.

Each write is fenced: it is kept only while the writer holds the room's lease.

>>> import asyncio
>>> from unokit.store import NewRoom, Store
>>> async def demo():
...     store = Store("sqlite://")
...     room = await store.create_room(NewRoom(code="ABCD", rules="{}", turn_timer=15,
...         public=True, server_seed="00" * 32, commitment="ab" * 32, seats=2))
...     kept = await save(store, {room: TurnClock(actions=7, used=4.5)})
...     clocks = await take(store, [room])
...     again = await take(store, [room])
...     await store.close()
...     return kept, clocks[room], again
>>> asyncio.run(demo())
(1, TurnClock(actions=7, used=4.5), {})
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from sqlalchemy import Connection, Table, delete, insert, select

from unokit.store.leases import LeaseLost
from unokit.store.models import TurnClockRow

if TYPE_CHECKING:
    from unokit.store.store import Store

TURN_CLOCKS: Table = TurnClockRow.__table__  # type: ignore[assignment]


class TurnClock(NamedTuple):
    """The turn under way of a room handed over: the match's number of actions, and
    the seconds of the turn already used (unscaled by ``timer_scale``)."""

    actions: int
    used: float


async def save(store: Store, clocks: dict[int, TurnClock]) -> int:
    """Write the turn clocks of rooms this store holds (room id -> clock), each in the
    fence of its room's lease; a room no longer held is left out. How many were kept."""

    def write(connection: Connection) -> int:
        kept = 0
        for room_id, clock in clocks.items():
            savepoint = connection.begin_nested()
            try:
                store.fence_room(connection, room_id)
                connection.execute(delete(TURN_CLOCKS).where(
                    TURN_CLOCKS.c.room_id == room_id))
                connection.execute(insert(TURN_CLOCKS).values(
                    room_id=room_id, actions=clock.actions, used=float(clock.used)))
            except LeaseLost:
                savepoint.rollback()
                continue
            savepoint.commit()
            kept += 1
        return kept

    return await store.run(write) if clocks else 0


async def take(store: Store, room_ids: list[int]) -> dict[int, TurnClock]:
    """The turn clocks stored for ``room_ids`` (rooms just claimed), deleted as they are
    read: a later takeover (after a crash) counts from the last action again."""
    if not room_ids:
        return {}

    def read(connection: Connection) -> dict[int, TurnClock]:
        mine = TURN_CLOCKS.c.room_id.in_(room_ids)
        rows = connection.execute(select(TURN_CLOCKS).where(mine)).all()
        if rows:
            connection.execute(delete(TURN_CLOCKS).where(mine))
        return {int(r.room_id): TurnClock(int(r.actions), float(r.used)) for r in rows}

    return await store.run(read)
