"""Two real ``unokit serve`` processes on one PostgreSQL and one Redis show the same rooms,
presence, leaderboards: what they read is the database (and Redis's presence hints), not
one process's memory (:mod:`unokit.server.cluster_views`). Each process's ``/metrics``
names it, as its room leases do.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Connection

from polling import until_read
from redis_kit import redis_url
from test_cluster import join, new_room, play, two_servers
from test_two_processes import lease_owner
from unokit.store import Store
from unokit.store import accounts as A
from unokit.store import boards as B
from unokit.store.db import open_engine

pytestmark = pytest.mark.asyncio

RULES = "official,players=2,rounds=1,hand_size=5"


async def get(url: str) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.get(url)


def listed(response: httpx.Response) -> dict[str, dict[str, Any]]:
    assert response.status_code == 200, response.text
    return {room["code"]: room for room in response.json()}


def connected(response: httpx.Response) -> list[bool]:
    assert response.status_code == 200, response.text
    return [bool(seat.get("connected")) for seat in response.json()["seats"]]


async def test_a_room_of_one_process_is_listed_found_joined_and_seen_from_the_other(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = open_engine(postgres_url)
    try:
        async with two_servers(tmp_path, postgres_url, redis_url(), monkeypatch) as (a, b):
            code = await new_room(a.url, rules=RULES)
            assert a.proc is not None and f"/{a.proc.pid}/" in lease_owner(engine, code)
            # listed on B (read from the database), with its free seats
            await until_read(lambda: _has(b.url, code), "B lists A's room")
            entry = listed(await get(b.url + "/api/rooms"))[code]
            assert entry["free"] == 2 and entry["seats"] == 2
            assert entry["invite"].endswith(f"/r/{code}")
            # found on B
            found = await get(f"{b.url}/api/rooms/{code}")
            assert found.status_code == 200 and found.json()["status"] == "lobby"
            assert connected(found) == [False, False]

            ann = await join(a.url, code, name="Ann")  # at the owner
            # present on A: seen as present from B (the owner's hint in Redis)
            await until_read(lambda: _connected(b.url, code, [True, False]),
                             "B sees Ann connected on A")
            await until_read(lambda: _free(b.url, code, 1), "B lists one free seat")

            bob = await join(b.url, code, name="Bob")  # joined from B: relayed to A
            assert (ann.seat, bob.seat) == (0, 1)
            for server in (a, b):
                await until_read(lambda s=server: _connected(s.url, code, [True, True]),
                                 f"{server.url} sees both connected")
                # full: listed nowhere any more
                await until_read(lambda s=server: _has(s.url, code, False),
                                 f"{server.url} no longer lists the full room")
            await ann.start()
            assert await play([ann, bob]) > 0
            assert ann.reveal == bob.reveal
            await bob.close()
            await until_read(lambda: _connected(b.url, code, [True, False]),
                             "B sees Bob gone")
            await ann.close()
            await until_read(lambda: _connected(b.url, code, [False, False]),
                             "B sees Ann gone")
    finally:
        engine.dispose()


async def _has(base: str, code: str, expected: bool = True) -> bool:
    return (code in listed(await get(base + "/api/rooms"))) == expected


async def _free(base: str, code: str, expected: int) -> bool:
    return listed(await get(base + "/api/rooms"))[code]["free"] == expected


async def _connected(base: str, code: str, expected: list[bool]) -> bool:
    return connected(await get(f"{base}/api/rooms/{code}")) == expected


async def test_the_leaderboards_are_the_same_from_both_processes(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async with two_servers(tmp_path, postgres_url, redis_url(), monkeypatch) as (a, b):
        store = Store(postgres_url)
        try:
            players = [await A.create_guest(store, f"{n:043d}", now=0.0) for n in range(3)]
            for n, player in enumerate(players):
                await A.claim(store, player, f"p{n}", "$argon2id$x", now=0.0)

            def put(connection: Connection) -> None:
                B.set_scores(connection, "xp", dict(zip(players, (40, 90, 70), strict=True)))
            await store.run(put)
            pages = [(await get(f"{s.url}/api/leaderboards/xp")).json() for s in (a, b)]
            assert pages[0] == pages[1]
            assert [(e["rank"], e["player"], e["score"]) for e in pages[0]["entries"]] == [
                (1, "p1", 90), (2, "p2", 70), (3, "p0", 40)]

            def change(connection: Connection) -> None:
                B.set_scores(connection, "xp", {players[0]: 100})
            await store.run(change)
            pages = [(await get(f"{s.url}/api/leaderboards/xp?limit=1")).json()
                     for s in (b, a)]
            assert pages[0] == pages[1] and pages[0]["entries"][0]["player"] == "p0"
        finally:
            await store.close()


async def test_each_process_names_itself_in_its_metrics(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = open_engine(postgres_url)
    try:
        async with two_servers(tmp_path, postgres_url, redis_url(), monkeypatch) as (a, b):
            names = []
            for server in (a, b):
                text = (await get(server.url + "/metrics")).text
                found = re.findall(r'^unokit_process_info\{process="([^"]+)"\} 1\.0$', text,
                                   re.MULTILINE)
                assert len(found) == 1, text[:2000]
                assert server.proc is not None and f"/{server.proc.pid}/" in found[0]
                names.append(found[0])
                # the name is the one its room leases give it
                code = await new_room(server.url)
                assert lease_owner(engine, code) == found[0]
            assert names[0] != names[1]
    finally:
        engine.dispose()
