"""One stall in detail: the owner of a room stops (SIGSTOP) with a match's last action
sent to it; another process takes the room over, the player's client reconnects to it
and sends that action again, and the match ends there (XP, ratings and the players'
matches written); when the first process goes on, its write of that same action is
refused, and no row of the match or of its players changes."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, select

from polling import until
from redis_kit import redis_url
from test_cluster import join, new_room, stored_events, two_servers
from test_two_processes import lease_owner
from unokit.client import ClientError, GameClient
from unokit.store.db import open_engine
from unokit.store.models import (
    ActionRow,
    CoinLineRow,
    PlayerMatchRow,
    RatingResultRow,
    RatingRow,
    RoomRow,
    WalletRow,
    XpLineRow,
)

pytestmark = pytest.mark.asyncio


async def account(url: str, name: str) -> str:
    """A new account's API token."""
    async with httpx.AsyncClient(base_url=url) as http:
        assert (await http.post("/api/guest", json={})).status_code == 201
        claimed = await http.post("/api/account/claim",
                                  json={"username": name, "password": "a long password"})
        assert claimed.status_code in (200, 201), claimed.text
        made = await http.post("/api/account/tokens", json={"label": "test"})
    return str(made.json()["token"])


def match_rows(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row a match writes for its room and its players."""
    tables = {"actions": ActionRow, "player_matches": PlayerMatchRow,
              "xp_lines": XpLineRow, "rating_results": RatingResultRow,
              "ratings": RatingRow, "wallets": WalletRow, "coin_lines": CoinLineRow,
              "rooms": RoomRow}
    out = {}
    with engine.connect() as connection:
        for name, model in tables.items():
            table = model.__table__
            out[name] = sorted(tuple(row) for row in connection.execute(select(table)))
    return out


async def final_play(client: GameClient) -> str | None:
    """A card that ends the match: the one card left in the hand, when it can be played
    (a hand of one card is not always the deal's: a player who drew holds more)."""
    view = await client.snapshot()
    if view is None or len(view["hand"]) != 1:
        return None
    card = view["hand"][0]
    plays = [a for a in client.legal if a == card or a.startswith(card + ">")]
    return plays[0] if plays else None


async def test_a_stalled_owner_that_comes_back_writes_nothing_twice(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNOKIT_LEASE", "2")
    monkeypatch.setenv("UNOKIT_LEASE_RENEW", "0.25")
    monkeypatch.setenv("UNOKIT_HASH_MEMORY_KIB", "8")
    monkeypatch.setenv("UNOKIT_GUEST_RATE", "0")
    engine = open_engine(postgres_url)
    try:
        async with two_servers(tmp_path, postgres_url, redis_url(), monkeypatch) as (a, b):
            assert a.proc is not None
            tokens = [await account(a.url, "Stalled0"), await account(a.url, "Stalled1")]
            code = await new_room(a.url, rules="official,players=2,rounds=1,hand_size=1")
            ann = await join(a.url, code, name="Ann", api_token=tokens[0])
            bob = await join(a.url, code, name="Bob", api_token=tokens[1])
            await ann.start()
            # play until whoever must act holds a card to end the match with
            while True:
                await until(lambda: ann.must or bob.must, "a player must act")
                mover = ann if ann.must else bob
                last = await final_play(mover)
                if last is not None:
                    break
                await mover.act(mover.legal[0])
            owner = lease_owner(engine, code)

            # the owner stops with the last action on its way to it
            os.kill(a.proc.pid, signal.SIGSTOP)
            stopped = asyncio.ensure_future(mover.act(last, msg_id="the-last-action"))
            await until(lambda: lease_owner(engine, code) not in (owner, ""),
                        "the other process took the room over")
            again = GameClient(b.url, code, token=mover.token)
            again.last_seq = mover.last_seq
            await again.connect()
            await again.act(last, msg_id="the-last-action")
            await again.wait_for(lambda c: c.reveal is not None)
            ended = match_rows(engine)
            assert ended["player_matches"] and ended["xp_lines"], "the match paid"

            # the first goes on: the action waiting for it is refused, nothing written
            os.kill(a.proc.pid, signal.SIGCONT)
            log = tmp_path / "a" / "server.log"
            await until(lambda: b"write refused" in log.read_bytes()
                        or b"room owned by another process now" in log.read_bytes(),
                        "the first process found the room gone")
            # the first process lets the room go: its connections are told to go
            await mover.wait_for(lambda c: c.bye is not None or c.closed.is_set())
            await mover.close()  # the action it never answered fails here
            with pytest.raises(ClientError):  # refused or never answered, never acked
                await stopped
            assert match_rows(engine) == ended, "a row changed after the stall"
            with engine.connect() as connection:
                ids = [r.client_id for r in connection.execute(select(ActionRow))]
            assert ids.count("the-last-action") == 1
            assert await stored_events(postgres_url, code, 0)  # the match replays
            for client in (ann, bob, again):
                await client.close()
    finally:
        engine.dispose()
