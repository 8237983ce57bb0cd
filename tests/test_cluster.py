"""Two real ``unokit serve`` processes on one PostgreSQL and one Redis
(``UNOKIT_REDIS_URL``): a client of the process that does not own the room plays through
it (the relay, :mod:`unokit.server.relay`), beside a client of the owner.

Each client keeps every message as received; the events they hold must be the room's
events as the database replays them, as their seat sees them: each once, in order, none
missing. Then the same with Redis restarted (losing every stream) while the relay holds
events in Redis it has not read yet: the relay finds the gap and repairs it from the
database. And with the owner killed (SIGKILL): the other process takes the room over,
tells its relayed client to reconnect, and both clients resume there.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from sqlalchemy import Engine

from polling import until
from redis_kit import RedisServer, redis_url
from test_server_leases import check_replay
from test_two_processes import lease_owner
from unokit.client import GameClient
from unokit.engine.events import redact
from unokit.server import protocol as P
from unokit.server.fanout_redis import stream_of
from unokit.server.room_state import RoomState
from unokit.server.settings import Settings
from unokit.store import Store
from unokit.store.db import open_engine

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from kill_restart import Server  # noqa: E402 - the benchmark's server process, beside it

sys.path.remove(str(ROOT / "benchmarks"))

pytestmark = pytest.mark.asyncio

RULES = "official,players=2,rounds=1,hand_size=5"


@contextlib.asynccontextmanager
async def two_servers(tmp_path: Path, database_url: str, redis: str,
                      monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[Server, Server]]:
    """The owner and the relay: two ``unokit serve`` on one database and one Redis."""
    monkeypatch.setenv("UNOKIT_REDIS_URL", redis)
    monkeypatch.setenv("UNOKIT_BOT_WORKERS", "0")
    # the test clients act as fast as their answers come, past the default 20 messages
    # a second; the rate limit at the relay has a test of its own (test_cluster_parts)
    monkeypatch.setenv("UNOKIT_RATE", "10000")
    monkeypatch.setenv("UNOKIT_BURST", "10000")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = Server(tmp_path / "a", database_url)
    second = Server(tmp_path / "b", database_url)
    try:
        await asyncio.gather(first.start(), second.start())
        yield first, second
    finally:
        for server in (first, second):
            if server.proc is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(server.proc.pid, signal.SIGCONT)
        first.stop()
        second.stop()


async def new_room(base: str, **fields: Any) -> str:
    async with httpx.AsyncClient() as http:
        made = await http.post(base + "/api/rooms", json=fields)
    assert made.status_code == 201, made.text
    return str(made.json()["code"])


async def join(base: str, code: str, **options: Any) -> GameClient:
    """A client that keeps every message it receives, connected to ``/ws/CODE``."""
    client = GameClient(base, code, **options)
    client.keep_raw = True
    await client.connect()
    return client


def events_received(client: GameClient) -> list[dict[str, Any]]:
    """Every event in the messages the client received, in the order received."""
    seen: list[dict[str, Any]] = []
    for raw in client.received:
        message = P.decode_server(raw)
        if isinstance(message, P.Events):
            seen.extend(message.events)
    return seen


async def stored_events(database_url: str, code: str, seat: int) -> list[dict[str, Any]]:
    """The room's events as the database replays them, as ``seat`` sees them."""
    store = Store(database_url)
    try:
        [stored] = await store.load_rooms(code=code)
    finally:
        await store.close()
    check_replay(stored)
    settings = Settings(database_url=database_url)
    state = RoomState.restore(stored, RoomState.rules_of(stored), settings=settings,
                              now=0.0, monotonic=0.0)
    assert state.game is not None
    return [redact(event, seat).to_dict() for event in state.game.log]


async def play(clients: list[GameClient], *, actions: int | None = None,
               until_must: GameClient | None = None) -> int:
    """Play the first legal action of whichever client must act, until the match is
    over at every client (or ``actions`` were played, or ``until_must`` must act); how
    many were played."""
    changed = asyncio.Event()
    for client in clients:
        client.listeners.append(changed)
    played = 0
    try:
        while actions is None or played < actions:
            if all(c.reveal is not None for c in clients):
                break
            if until_must is not None and until_must.must:
                break
            mover = next((c for c in clients if c.must and c.reveal is None), None)
            if mover is None:
                changed.clear()
                if any(c.must for c in clients) or all(c.reveal for c in clients):
                    continue
                await asyncio.wait_for(changed.wait(), 60)
                continue
            await mover.act(mover.legal[0])
            played += 1
            assert played < 2000, "the match does not end"
    finally:
        for client in clients:
            client.listeners.remove(changed)
    return played


def check_events(client: GameClient, expected: list[dict[str, Any]]) -> None:
    seen = events_received(client)
    seqs = [event["seq"] for event in seen]
    assert len(seqs) == len(set(seqs)), "an event came twice"
    assert seqs == sorted(seqs), "events came out of order"
    assert seen == expected, "an event is missing or differs from the database's"


async def test_a_client_of_the_other_process_plays_a_match_through_redis(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async with two_servers(tmp_path, postgres_url, redis_url(), monkeypatch) as (a, b):
        engine: Engine = open_engine(postgres_url)
        try:
            code = await new_room(a.url, rules=RULES)
            assert a.proc is not None and f"/{a.proc.pid}/" in lease_owner(engine, code)
            ann = await join(a.url, code, name="Ann")
            bob = await join(b.url, code, name="Bob")  # relayed: b does not own the room
            assert ann.seat == 0 and bob.seat == 1
            await until(lambda: all(s["connected"] for s in ann.room["seats"]),
                        "the owner sees the relayed client connected")
            await ann.start()
            assert await play([ann, bob]) > 0
            assert ann.reveal == bob.reveal
            check_events(ann, await stored_events(postgres_url, code, 0))
            check_events(bob, await stored_events(postgres_url, code, 1))
            # the room stayed with its owner: the relay took nothing over
            assert f"/{a.proc.pid}/" in lease_owner(engine, code)
            await ann.close()
            await bob.close()
        finally:
            engine.dispose()


async def test_redis_restarted_mid_match_loses_no_event_and_play_goes_on(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = RedisServer(tmp_path / "redis")
    cache.start()
    engine: Engine = open_engine(postgres_url)
    check = redis.Redis.from_url(cache.url)
    try:
        async with two_servers(tmp_path, postgres_url, cache.url, monkeypatch) as (a, b):
            code = await new_room(a.url, rules=RULES)
            relay_stream = stream_of(lease_owner(engine, await new_room(b.url)))
            ann = await join(a.url, code, name="Ann")
            bob = await join(b.url, code, name="Bob")
            await ann.start()
            await play([ann, bob], actions=2)
            await play([ann, bob], until_must=ann)
            assert ann.reveal is None
            before = bob.last_seq

            # the relay stops; Redis restarts (the relay's connection to it is gone)
            assert b.proc is not None
            os.kill(b.proc.pid, signal.SIGSTOP)
            cache.stop()
            cache.start()
            # the owner's events for the relay wait in Redis, where nobody reads them ...
            await ann.act(ann.legal[0])
            await until(lambda: check.xlen(relay_stream) > 0,
                        "the owner wrote the relay's entries to Redis")
            # ... and are lost: Redis restarts empty again, then the relay goes on
            cache.stop()
            cache.start()
            assert check.exists(relay_stream) == 0
            os.kill(b.proc.pid, signal.SIGCONT)

            await bob.wait_for(lambda c: c.last_seq >= ann.last_seq)
            assert bob.last_seq > before
            await play([ann, bob])
            check_events(ann, await stored_events(postgres_url, code, 0))
            check_events(bob, await stored_events(postgres_url, code, 1))
            # the relay keeps its stream alive: once it stops, the stream goes by itself
            await until(lambda: 0 < check.ttl(relay_stream) <= 3600,
                        "the relay's stream has a time to live")
            await ann.close()
            await bob.close()
    finally:
        check.close()
        cache.stop()
        engine.dispose()


async def test_the_owner_killed_its_room_resumes_on_the_relay_for_both_clients(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNOKIT_LEASE", "4")
    monkeypatch.setenv("UNOKIT_LEASE_RENEW", "0.5")
    engine: Engine = open_engine(postgres_url)
    try:
        async with two_servers(tmp_path, postgres_url, redis_url(), monkeypatch) as (a, b):
            code = await new_room(a.url, rules=RULES)
            ann = await join(a.url, code, name="Ann")
            bob = await join(b.url, code, name="Bob")  # relayed by b
            await ann.start()
            await play([ann, bob], actions=4)
            owner = lease_owner(engine, code)

            a.kill()  # SIGKILL: b takes the room over, and tells its client to come back
            await until(lambda: lease_owner(engine, code) not in (owner, ""),
                        "the other process took the room over")
            assert b.proc is not None and f"/{b.proc.pid}/" in lease_owner(engine, code)
            await bob.wait_for(lambda c: c.closed.is_set())
            assert bob.bye is not None and bob.bye.get("reconnect", True) is True
            await bob.reconnect()  # the same process: it owns the room now
            await ann.wait_for(lambda c: c.closed.is_set())
            ann.base = b.url  # its process is gone: any other will do
            await ann.reconnect()
            await play([ann, bob])
            check_events(ann, await stored_events(postgres_url, code, 0))
            check_events(bob, await stored_events(postgres_url, code, 1))
            await ann.close()
            await bob.close()
    finally:
        engine.dispose()
