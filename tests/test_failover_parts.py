"""Parts of failover, without processes.

An owner that lets go of the clients of a relay it no longer hears from (the relay
stalled, or died) tells that relay to close them with ``bye`` (``reconnect: true``): a
relay that only stalled reads it when it is back, and its clients reconnect and resume,
rather than wait for the owner's broadcasts, which stopped when it let them go.

An owner stopped inside a transaction does not keep its rooms from being taken over.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

import dbs
from store_kit import LeaseClock, new_room
from test_cluster_parts import Bus, Room, remote
from unokit.server.cluster import SILENT_RENEWALS, Cluster
from unokit.server.settings import Settings
from unokit.store import Store
from unokit.store.leases import fence


def closes(bus: Bus) -> list[tuple[str, str, dict[str, Any]]]:
    """The ``c`` entries sent: (stream, conn id, the message before the close)."""
    out = []
    for stream, fields in bus.sent:
        if fields.get("kind", fields.get(b"kind")) in ("c", b"c"):
            data = fields.get("data", fields.get(b"data"))
            conn = fields.get("conn", fields.get(b"conn"))
            out.append((stream, str(conn.decode() if isinstance(conn, bytes) else conn),
                        json.loads(data) if data else {}))
    return out


def test_clients_of_a_silent_relay_are_told_to_reconnect_when_let_go() -> None:
    settings = Settings(database_url="sqlite://", redis_url="redis://127.0.0.1:9/0",
                        lease=4, lease_renew=1)
    cluster = Cluster(settings)  # nothing is connected until it starts
    bus = Bus()
    room = Room()
    for stream, conn_id in (("s:b", "1"), ("s:b", "2"), ("s:c", "1")):
        conn = remote(bus, cluster.fanout, stream, 0)
        conn.conn_id = conn_id
        cluster.remote[stream, conn_id] = conn
        cluster._rooms_of[conn] = room  # type: ignore[assignment]
    # the client that said it went (g) is not told anything more
    cluster._entry({b"kind": b"g", b"reply": b"s:b", b"conn": b"2", b"room": b"R"})
    assert closes(bus) == []
    now = time.monotonic()
    cluster.sweep(now)
    cluster._heard["s:c"] = now + SILENT_RENEWALS * settings.lease_renew + 1  # s:c speaks
    cluster.sweep(now + SILENT_RENEWALS * settings.lease_renew + 1)  # s:b is silent
    assert set(cluster.remote) == {("s:c", "1")}
    [(stream, conn_id, bye)] = closes(bus)
    assert (stream, conn_id) == ("s:b", "1")
    assert bye["type"] == "bye" and bye.get("reconnect", True) is True  # its default


async def claimed_once_free(store: Store, limit: float = 60.0) -> list[int]:
    """Claim again and again until a room is claimed (or ``limit`` seconds passed)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        claimed, _ = await store.claim_rooms()
        if claimed:
            return claimed
        await asyncio.sleep(0.05)  # polling the condition: the lock held by another
    return []


@pytest.mark.asyncio
async def test_an_owner_stopped_inside_a_transaction_holds_its_lease_lock_briefly(
        tmp_path: Path) -> None:
    """An owner stopped (SIGSTOP) in the middle of a write holds its lease row's lock
    (``FOR SHARE``), which a claim skips; PostgreSQL ends that idle transaction after
    the statement timeout, so the room is taken over rather than held for as long as the
    owner is stopped."""
    with dbs.database("postgresql", tmp_path) as url:
        clock = LeaseClock()
        # the second store makes the schema first: a migration of many statements on a
        # busy machine may sit idle between two of them past the first's short timeout
        second = Store(url, lease=15, lease_clock=clock)
        first = Store(url, lease=15, lease_clock=clock, statement_timeout=1.0)
        stuck = first.engine.connect()
        try:
            room_id = await first.create_room(new_room("STOP"))
            fence(stuck, first.owner.text, room_id, 1)  # a write begun, then stopped
            clock.advance(16)  # its lease ran out
            assert await second.claim_rooms() == ([], 1)  # the row is locked: skipped
            assert await claimed_once_free(second) == [room_id]
        finally:
            with contextlib.suppress(Exception):  # PostgreSQL ended it
                stuck.close()
            await first.close()
            await second.close()


@pytest.mark.asyncio
async def test_a_write_no_timeout_ends_is_ended_once_its_lease_ran_out_a_lease_ago(
        tmp_path: Path) -> None:
    """An owner stopped halfway through sending a statement keeps its backend waiting
    to read the rest, which neither the statement timeout nor the idle-in-transaction
    timeout ends (the failover benchmark met one held 75 s). Here: a transaction
    holding the lease row with both timeouts off. Once the lease ran out a whole lease
    ago, a claim ends that backend, and the room is claimed; the stopped write is
    refused when its owner goes on."""
    with dbs.database("postgresql", tmp_path) as url:
        clock = LeaseClock()
        first = Store(url, lease=15, lease_clock=clock)
        second = Store(url, lease=15, lease_clock=clock)
        untimed = create_engine(url)  # the server's timeouts: none of the store's
        stuck = untimed.connect()
        try:
            stuck.execute(text("SET statement_timeout = 0; "
                               "SET idle_in_transaction_session_timeout = 0"))
            room_id = await first.create_room(new_room("HANG"))
            fence(stuck, first.owner.text, room_id, 1)  # a write begun, never ended
            clock.advance(16)  # the lease ran out: the row is still held, and skipped
            assert await second.claim_rooms() == ([], 1)
            clock.advance(15)  # a whole lease later: the holder is ended
            assert await claimed_once_free(second, limit=20) == [room_id]
            with pytest.raises(Exception):  # noqa: B017 - the driver's own error
                stuck.execute(text("SELECT 1"))
        finally:
            with contextlib.suppress(Exception):
                stuck.close()
            untimed.dispose()
            await first.close()
            await second.close()
