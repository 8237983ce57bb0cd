"""Database outages under play, on a PostgreSQL cluster of the test's own: stopped for
8 s mid-match, and frozen with ``SIGSTOP`` for 5 s. Two players play all along, each
sending its actions through :class:`GameClient` (which sends a ``not_stored`` action
again with its id). Expected: 0 acknowledged actions lost or doubled, every message
answered (actions, a new player's hello, HTTP), and play going again within 2 s of the
database's return."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import websockets
from sqlalchemy import create_engine, text

from pg_cluster import Cluster
from polling import until
from server_harness import Running, running_server, server_settings
from unokit.client.client import GameClient
from unokit.server import protocol as P

pytestmark = [pytest.mark.asyncio, pytest.mark.xdist_group("pg_outage")]

RULES = "official,players=2,target_score=100000"
BACK_WITHIN = 2.0
"""Seconds after the database's return within which play goes again."""


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    made = Cluster()
    try:
        yield made
    finally:
        made.remove()


@dataclass
class Table:
    """Two players who play the first legal action whenever it is their turn."""

    clients: list[GameClient]
    acks: list[tuple[float, str, int]] = field(default_factory=list)
    """(time.monotonic(), id, seq) of every acknowledged action."""
    refused: list[str] = field(default_factory=list)
    """Ids answered not_stored (each time)."""
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def play(self, client: GameClient, name: str) -> None:
        n = 0
        client.on_saving = lambda msg_id, tries: self.refused.append(msg_id)
        while not self.stop.is_set():
            await client.wait_for(lambda c: c.must or self.stop.is_set(), timeout=120)
            if self.stop.is_set():
                return
            choice = next((a for a in client.legal if a.endswith("!")), client.legal[0])
            n += 1
            msg_id = f"{name}-{n}"
            try:
                seq = await client.act(choice, msg_id=msg_id)
            except Exception:  # refused for the state (not for the outage): look again
                await client.snapshot()
                continue
            self.acks.append((time.monotonic(), msg_id, seq))

    async def wait_acks(self, count: int, timeout: float = 60) -> None:
        await until(lambda: len(self.acks) >= count, f"{count} acks", timeout=timeout)


async def _table(server: Running) -> tuple[Table, list[asyncio.Task[None]]]:
    async with httpx.AsyncClient() as http:
        code = (await http.post(server.url + "/api/rooms", json={"rules": RULES})).json()[
            "code"]
    ann = await GameClient.join(server.url, code, name="Ann")
    bob = await GameClient.join(server.url, code, name="Bob")
    await ann.start()
    table = Table([ann, bob])
    tasks = [asyncio.create_task(table.play(ann, "ann")),
             asyncio.create_task(table.play(bob, "bob"))]
    return table, tasks


async def _lobby(server: Running) -> str:
    async with httpx.AsyncClient() as http:
        made = await http.post(server.url + "/api/rooms", json={"rules": "official"})
    return str(made.json()["code"])


async def _hello(server: Running, **hello: Any) -> dict[str, Any]:
    url = server.url.replace("http://", "ws://") + "/ws"
    async with websockets.connect(url) as ws:
        await ws.send(P.encode(P.Hello(**hello)).decode())
        answer: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
        return answer


async def _finish(server: Running, cluster: Cluster, table: Table,
                  tasks: list[asyncio.Task[None]], back: float) -> None:
    """Play goes on within :data:`BACK_WITHIN` of ``back``; then stop and check that no
    acknowledged action was lost or doubled, and that every action was answered."""
    await table.wait_acks(len([a for a in table.acks if a[0] < back]) + 1)
    first = min(at for at, _, _ in table.acks if at >= back)
    assert first - back <= BACK_WITHIN, f"play went on {first - back:.2f} s after the return"
    print(f"play went on {first - back:.2f} s after the database's return; "
          f"{len(table.refused)} not_stored answers, {len(table.acks)} actions acked")
    await table.wait_acks(len(table.acks) + 6)  # and goes on
    table.stop.set()
    for client in table.clients:
        client._changed.set()
    await asyncio.wait_for(asyncio.gather(*tasks), 60)  # every action answered
    for client in table.clients:
        assert not client.saving and not client.errors
        await client.close()
    engine = create_engine(cluster.url)
    try:
        with engine.connect() as connection:
            stored = [row.client_id for row in connection.execute(text(
                "SELECT client_id FROM actions WHERE client_id IS NOT NULL"))]
    finally:
        engine.dispose()
    acked = [msg_id for _, msg_id, _ in table.acks]
    assert sorted(set(acked) - set(stored)) == []  # 0 acknowledged actions lost
    assert len(stored) == len(set(stored))  # none applied twice


async def test_the_database_stopped_mid_match(cluster: Cluster) -> None:
    settings = server_settings(cluster.url, db_connect_timeout=2, db_statement_timeout=2)
    async with running_server(settings) as server:
        table, tasks = await _table(server)
        lobby = await _lobby(server)
        await table.wait_acks(10)
        before = len(table.acks)
        await asyncio.to_thread(cluster.stop)
        stopped = time.monotonic()
        # during the outage: a new player's hello and the HTTP API are answered
        hello = await _hello(server, room=lobby, name="Zoe")
        assert hello["code"] == "unavailable" and hello["retry_after"] > 0, hello
        async with httpx.AsyncClient(timeout=30) as http:
            made = await http.post(server.url + "/api/rooms", json={})
            found = await http.get(server.url + "/api/rooms/QQQQQQ")
        assert (made.status_code, found.status_code) == (503, 503)
        assert made.headers["Retry-After"] == "1"
        # the outage lasts 8 s: its length is what is tested (several actions fall in it),
        # so this is the scenario's own time, not a wait for something to happen
        await asyncio.sleep(max(0.0, 8.0 - (time.monotonic() - stopped)))
        refused_during = len(table.refused)
        await asyncio.to_thread(cluster.start)
        back = time.monotonic()
        # several actions were tried during the outage, and none acknowledged
        assert refused_during >= 3, table.refused
        assert len([a for a in table.acks if stopped <= a[0] < back]) == 0
        assert len(table.acks) >= before
        await _finish(server, cluster, table, tasks, back)
        # the new player is seated once the database is back
        zoe = await GameClient.join(server.url, lobby, name="Zoe")
        assert zoe.seat == 0
        await zoe.close()


async def test_the_database_hangs_mid_match(cluster: Cluster) -> None:
    settings = server_settings(cluster.url, db_connect_timeout=2, db_statement_timeout=2)
    async with running_server(settings) as server:
        table, tasks = await _table(server)
        lobby = await _lobby(server)
        watcher = await GameClient.join(server.url, lobby, spectate=True)
        watcher.keep_raw = True
        await table.wait_acks(10)
        cluster.freeze()
        try:
            frozen = time.monotonic()
            # a room that does not write answers its pings all along
            for n in range(3):
                await watcher.send_raw(P.encode(P.Ping(id=f"p{n}")).decode())
                pong = f'"id":"p{n}"'.encode()
                await watcher.wait_for(lambda c, pong=pong: any(
                    b'"pong"' in raw and pong in raw for raw in c.received), timeout=5)
            async with httpx.AsyncClient(timeout=30) as http:
                found = await http.get(server.url + "/api/rooms/QQQQQQ")
            assert found.status_code == 503  # bounded by the timeouts, not by the hang
            # the database stays frozen 5 s: the length of the hang is the scenario (that
            # nothing is acked without a commit over that long), not a wait for an event
            await asyncio.sleep(max(0.0, 5.0 - (time.monotonic() - frozen)))
            hung = [a for a in table.acks if a[0] > frozen + 0.5]
            assert hung == []  # the writing room waits: nothing acked without a commit
        finally:
            cluster.thaw()
        back = time.monotonic()
        await _finish(server, cluster, table, tasks, back)
        await watcher.close()


async def test_the_first_write_after_a_database_restart_succeeds(cluster: Cluster) -> None:
    from store_kit import new_room
    from unokit.store import Store
    store = Store(cluster.url)
    try:
        await store.create_room(new_room("BEFORE"))
        await asyncio.to_thread(cluster.stop)  # an idle server's database restarts
        await asyncio.to_thread(cluster.start)
        await store.create_room(new_room("AFTER"))  # no error: the dead connection is
        assert store.reconnects == 1  # replaced and the write tried again
        assert await store.room_status("AFTER") == "lobby"
    finally:
        await store.close()
