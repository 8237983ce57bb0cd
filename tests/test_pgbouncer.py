"""The server behind PgBouncer in transaction pooling (``?pool_mode=transaction``: no
prepared statements, no startup options, no session state), and the server when
PostgreSQL ends the owner's connections mid-match (``pg_terminate_backend``), directly
and through PgBouncer.

Every client keeps every message as received; the events each holds must be the
room's events as the database replays them, as its seat sees them: an acknowledged
action the database lost, or one stored twice, would show there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

import dbs
from pgbouncer_kit import PgBouncer
from server_harness import running_server, server_settings
from test_cluster import check_events, join, new_room, play, stored_events
from unokit.client import GameClient

pytestmark = pytest.mark.asyncio

RULES = "official,players=2,rounds=1,hand_size=7"
# fifteen cards each: the three endings of the connections all come before anyone
# can go out (at most 14 actions are played by then)
LONG_RULES = "official,players=2,rounds=1,hand_size=15"


@pytest.fixture
def bouncer() -> Iterator[PgBouncer]:
    pooler = PgBouncer(dbs.server_url())
    try:
        yield pooler
    finally:
        pooler.stop()


async def a_match(url: str, database_url: str,
                  rules: str = RULES) -> tuple[str, GameClient, GameClient]:
    """A room of two clients, started."""
    code = await new_room(url, rules=rules)
    ann = await join(url, code, name="Ann")
    bob = await join(url, code, name="Bob")
    await ann.start()
    return code, ann, bob


async def check_match(database_url: str, code: str, ann: GameClient,
                      bob: GameClient) -> None:
    check_events(ann, await stored_events(database_url, code, 0))
    check_events(bob, await stored_events(database_url, code, 1))
    await ann.close()
    await bob.close()


async def test_matches_play_through_pgbouncer_in_transaction_pooling(
        postgres_url: str, bouncer: PgBouncer) -> None:
    pooled = bouncer.url_for(postgres_url)
    assert make_url(pooled).port != make_url(postgres_url).port
    # db_wait: a server the pooler refuses (a startup option) fails, not waits for ever
    async with running_server(server_settings(pooled, db_wait=60)) as server:
        matches = [await a_match(server.url, postgres_url) for _ in range(4)]
        # four matches at once: the store's transactions go through whichever of
        # PgBouncer's server connections is free
        played = await asyncio.gather(*(play([ann, bob]) for _, ann, bob in matches))
        assert all(n > 0 for n in played)
        for code, ann, bob in matches:
            await check_match(postgres_url, code, ann, bob)
        assert server.rooms.store is not None and server.rooms.store.commits > 0


def terminate_backends(database_url: str) -> int:
    """End every connection to the database of ``database_url`` (PostgreSQL's
    ``pg_terminate_backend``): how many were ended."""
    with psycopg.connect(dbs._conninfo(dbs.server_url()), autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
            "AND pid <> pg_backend_pid()", (make_url(database_url).database,)).fetchall()
    return sum(1 for (ended,) in rows if ended)


@pytest.mark.parametrize("route", ["direct", "pgbouncer"])
async def test_the_owners_connections_ended_mid_match_lose_no_acked_action(
        route: str, postgres_url: str, tmp_path: Path) -> None:
    pooler = PgBouncer(dbs.server_url()) if route == "pgbouncer" else None
    url = postgres_url if pooler is None else pooler.url_for(postgres_url)
    try:
        async with running_server(server_settings(url, db_wait=60)) as server:
            store = server.rooms.store
            assert store is not None
            code, ann, bob = await a_match(server.url, postgres_url, LONG_RULES)
            await play([ann, bob], actions=6)
            for _ in range(3):  # mid-match, three times, play going on between
                assert ann.reveal is None, "the match ended before the connections did"
                assert terminate_backends(postgres_url) >= 1, \
                    "the server held no connection to end"
                await play([ann, bob], actions=4)
            await play([ann, bob])  # play goes on to the end
            assert ann.reveal is not None and ann.reveal == bob.reveal
            if pooler is None:  # the store found its connection dead and wrote again
                assert store.reconnects >= 1
            await check_match(postgres_url, code, ann, bob)
    finally:
        if pooler is not None:
            pooler.stop()
