"""Leaderboards as stored, on SQLite and PostgreSQL: exact ranks, pages by rank and
counts agree with a plain sort after random changes; who is eligible (sigma, matches,
3 rated matches against 2 people in 7 days, bans); entries lapse after 7 days; a
deleted player leaves the boards; weeks are keyed by their end."""

from __future__ import annotations

import random
from typing import Any

import pytest
from sqlalchemy import Connection, insert

from unokit.server.retention import expire_boards
from unokit.store import Store
from unokit.store import accounts as A
from unokit.store import boards as B
from unokit.store.bans import add_ban
from unokit.store.ratings import RATINGS, RESULTS

pytestmark = pytest.mark.asyncio


def naive(scores: dict[int, int]) -> list[int]:
    return sorted(scores, key=lambda p: (-scores[p], p))


@pytest.mark.parametrize("upper_rows", [B.UPPER_ROWS, 2])  # 2: level by level
async def test_ranks_and_pages_equal_a_plain_sort(database_url: str, upper_rows: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(B, "UPPER_ROWS", upper_rows)
    store = Store(database_url)
    try:
        rng = random.Random(7)
        scores: dict[int, int] = {}
        for step in range(12):
            batch: dict[int, int | None] = {}
            for _ in range(60):
                player = rng.randrange(1, 400)
                roll = rng.random()
                if roll < 0.15:
                    batch[player] = None
                elif roll < 0.6:
                    batch[player] = rng.choice([1500, 1501, 1499, 0, -20])  # ties
                else:
                    batch[player] = rng.randrange(-5000, 1 << 33)  # spans the levels
            for player, score in batch.items():
                if score is None:
                    scores.pop(player, None)
                else:
                    scores[player] = score

            def write(connection: Connection, batch: dict[int, int | None] = batch) -> None:
                B.set_scores(connection, "xp", batch)
            await store.run(write)
            order = naive(scores)

            def check(connection: Connection, order: list[int] = order, step: int = step
                      ) -> None:
                assert B.size(connection, "xp") == len(order)
                for rank, player in enumerate(order, start=1):
                    if rank % 7 == step % 7 or rank <= 3 or rank == len(order):
                        assert B.rank_of(connection, "xp", player) == rank
                        assert B.entry_at(connection, "xp", rank) == (
                            B.sort_key(scores[player]), player)
                assert B.entry_at(connection, "xp", len(order) + 1) is None
                assert B.entry_at(connection, "xp", 0) is None
                assert B.rank_of(connection, "xp", 10_000) is None
                start = 1 + (step * 13) % max(1, len(order))
                got = B.page(connection, "xp", start, 25)
                assert [(e.rank, e.player_id, e.score) for e in got] == [
                    (start + i, p, scores[p]) for i, p in enumerate(order[start - 1:][:25])]
                assert B.page(connection, "rating", 1, 10) == []  # another board
            await store.run(check)
    finally:
        await store.close()


async def rated_history(store: Store, player: int, others: list[int], times: list[float],
                        *, sigma: float = 3.0, matches: int = 30) -> None:
    """``player`` with a settled rating and rated matches against ``others`` (each match
    against the next one, round the list) ending at ``times``."""
    def write(connection: Connection) -> None:
        connection.execute(insert(RATINGS).values(
            player_id=player, mu=30.0, sigma=sigma, matches=matches, change=0,
            updated_at=max(times), active_until=0.0))
        for n, at in enumerate(times):
            match = player * 1000 + n
            other = others[n % len(others)]
            connection.execute(insert(RESULTS), [
                {"match_id": match, "slot": slot, "player_id": who, "bot": "", "team": slot,
                 "rank": slot, "n": n, "mu_before": 25.0, "sigma_before": 5.0,
                 "mu_after": 25.0, "sigma_after": 5.0, "ended_at": at}
                for slot, who in enumerate((player, other))])
    await store.run(write)


async def refresh(store: Store, players: list[int], now: float) -> None:
    await store.run(lambda connection: B.refresh(connection, players, now, B.Policy()))


async def ranks(store: Store, board: str, players: list[int]) -> list[int | None]:
    def read(connection: Connection) -> list[int | None]:
        return [B.rank_of(connection, board, p) for p in players]
    return await store.run(read)


DAY = 86400.0
NOW = 1_796_256_000.0  # Thursday 2026-12-03 00:00 UTC


async def test_who_is_eligible_and_for_how_long(database_url: str) -> None:
    store = Store(database_url)
    try:
        players = [await A.create_guest(store, f"{n:043d}", now=0.0) for n in range(8)]
        for n, player in enumerate(players):
            await A.claim(store, player, f"p{n}", "$argon2id$x", now=0.0)
        ok, one_foe, two_games, shaky, new, banned, *foes = players
        recent = [NOW - 3 * DAY, NOW - 2 * DAY, NOW - DAY]
        await rated_history(store, ok, foes, recent)
        await rated_history(store, one_foe, foes[:1], recent)
        await rated_history(store, two_games, foes, recent[1:])
        await rated_history(store, shaky, foes, recent, sigma=7.0)
        await rated_history(store, new, foes, recent, matches=5)
        await rated_history(store, banned, foes, recent)
        await add_ban(store, "name", "p5")
        await refresh(store, players, NOW)
        assert await ranks(store, "rating", players[:6]) == [1, None, None, None, None, None]
        # rated this week (Wednesday): on this week's rating board; no XP this week
        assert await ranks(store, "rating:2026-12-07", [ok]) == [1]
        assert await ranks(store, "xp:2026-12-07", [ok]) == [None]
        assert await ranks(store, "xp", [ok]) == [1]
        # it lapses when the oldest of its 3 matches is 7 days old
        def until(connection: Connection) -> float:
            return float(connection.execute(
                RATINGS.select().where(RATINGS.c.player_id == ok)).first().active_until)
        assert await store.run(until) == recent[0] + 7 * DAY

        def expire(connection: Connection, at: float) -> int:
            return B.expire(connection, at, B.Policy())
        assert await store.run(lambda c: expire(c, recent[0] + 7 * DAY - 1)) == 0
        assert await ranks(store, "rating", [ok]) == [1]
        assert await store.run(lambda c: expire(c, recent[0] + 7 * DAY)) == 1
        assert await ranks(store, "rating", [ok]) == [None]
        assert await store.run(until) == 0.0
        # a deleted player leaves every board
        await refresh(store, [ok], NOW)
        assert await ranks(store, "rating", [ok]) == [1]
        await A.delete_player(store, ok)

        def size(connection: Connection) -> Any:
            return B.size(connection, "rating"), B.size(connection, "xp")
        assert await store.run(size) == (0, 0)
    finally:
        await store.close()


async def test_weeks_are_keyed_by_their_end() -> None:
    assert B.week_end(NOW) == "2026-12-07"
    assert B.week_end(NOW + 4 * DAY - 1) == "2026-12-07"  # Sunday 23:59:59
    assert B.week_end(NOW + 4 * DAY) == "2026-12-14"  # Monday 00:00
    assert B.week_start("2026-12-07") == NOW - 3 * DAY


async def test_the_retention_sweep_takes_lapsed_players_off(database_url: str) -> None:
    store = Store(database_url)
    try:
        players = [await A.create_guest(store, f"{n:043d}", now=0.0) for n in range(3)]
        for n, player in enumerate(players):
            await A.claim(store, player, f"p{n}", "$argon2id$x", now=0.0)
        recent = [NOW - 3 * DAY, NOW - 2 * DAY, NOW - DAY]
        await rated_history(store, players[0], players[1:], recent)
        await refresh(store, players, NOW)
        assert await ranks(store, "rating", players[:1]) == [1]
        assert await expire_boards(store, NOW + 3 * DAY) == 0
        assert await expire_boards(store, NOW + 4 * DAY) == 1  # 7 days after the oldest
        assert await ranks(store, "rating", players[:1]) == [None]
    finally:
        await store.close()
