"""The bans an operator keeps (``unokit admin ban``): addresses and names the server
refuses, one row each in the table ``bans``, written and read through a :class:`Store`.

>>> import asyncio
>>> from unokit.store import Store
>>> async def demo():
...     store = Store("sqlite://")
...     ban = await add_ban(store, "address", "203.0.113.9", "spam")
...     listed = [(b.kind, b.value) for b in await list_bans(store)]
...     gone = await remove_ban(store, ban.id)
...     await store.close()
...     return listed, gone
>>> asyncio.run(demo())
([('address', '203.0.113.9')], True)
"""

from __future__ import annotations

import time
from typing import NamedTuple

from sqlalchemy import Connection, Table, delete, insert, select

from unokit.store import boards
from unokit.store.models import BanRow
from unokit.store.store import Store

BANS: Table = BanRow.__table__  # type: ignore[assignment]

BAN_KINDS = ("address", "name")


class Ban(NamedTuple):
    """One ban as stored."""

    id: int
    kind: str
    value: str
    reason: str
    created_at: float


async def add_ban(store: Store, kind: str, value: str, reason: str = "") -> Ban:
    """Store a ban of ``value`` (an address or a folded name); the ban."""
    at = time.time()

    def write(connection: Connection) -> int:
        result = connection.execute(insert(BANS).values(
            kind=kind, value=value, reason=reason, created_at=at))
        if kind == "name":  # off the leaderboards at once
            boards.drop_name(connection, value, at)
        return int(result.inserted_primary_key[0])  # type: ignore[index]
    return Ban(await store.run(write), kind, value, reason, at)


async def remove_ban(store: Store, ban_id: int) -> bool:
    """Remove the ban ``ban_id``; whether there was one."""
    def write(connection: Connection) -> bool:
        return connection.execute(delete(BANS).where(BANS.c.id == ban_id)).rowcount > 0
    return await store.run(write)


async def list_bans(store: Store) -> list[Ban]:
    """Every ban, oldest first."""
    def read(connection: Connection) -> list[Ban]:
        return [Ban(row.id, row.kind, row.value, row.reason, row.created_at)
                for row in connection.execute(select(BANS).order_by(BANS.c.id))]
    return await store.run(read)
