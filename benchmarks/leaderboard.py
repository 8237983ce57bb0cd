"""Leaderboard reads at scale: the top page, a page by rank number, a player's exact
rank, and how fresh a rank is after a match.

Fills a database with ``--players`` accounts on the ``rating`` board (ratings drawn
around 1500, so that many players tie), with the board's counts
(:mod:`unokit.store.boards`), reads PostgreSQL's indexes once (warm, as a running
server's are), then times, each ``--samples`` times:

- **top page**: the first 50 entries (:func:`unokit.store.boards.page` at rank 1);
- **page by rank**: 50 entries from a random rank;
- **exact rank**: a random player's rank (:func:`unokit.store.boards.rank_of`);
- **fresh after a match**: a match end moves four random players (a transaction like
  the one that stores a match's end, :func:`unokit.store.boards.set_scores`), then
  their ranks are read: the time from the start of that write to ranks that include it.

A few ranks are checked against ``count(*)`` (slow, not timed).

    python benchmarks/leaderboard.py                                    # SQLite, a temp file
    python benchmarks/leaderboard.py --url postgresql+psycopg://u@h/db  # an empty database
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, func, insert, select, text

from unokit.store import Store
from unokit.store import boards as B
from unokit.store.models import BoardCountRow, BoardEntryRow, PlayerRow

BOARD = "rating"
PAGE = 50
CHUNK = 20_000


async def migrate(url: str) -> None:
    """Bring the database to the newest schema, as the server does."""
    await Store(url).close()


def fill(engine: Engine, players: int, rng: random.Random) -> dict[int, int]:
    """Insert the players, their entries and the counts straight (not timed)."""
    scores = {p: round(rng.gauss(1500, 300)) for p in range(1, players + 1)}
    counts: Counter[tuple[int, int]] = Counter()
    if engine.dialect.name == "postgresql":
        copy_fill(engine, scores)
    with engine.begin() as connection:
        for first in range(1, players + 1 if engine.dialect.name == "sqlite" else 1, CHUNK):
            ids = range(first, min(players, first + CHUNK - 1) + 1)
            connection.execute(insert(PlayerRow.__table__), [
                {"id": i, "username": f"p{i}", "username_key": f"p{i}", "password_hash": "",
                 "created_at": 0.0, "seen_at": 0.0, "xp": 0} for i in ids])
            connection.execute(insert(BoardEntryRow.__table__), [
                {"board": BOARD, "player_id": i, "sort_key": B.sort_key(scores[i]),
                 "name": f"p{i}"} for i in ids])
        for score in scores.values():
            key = B.sort_key(score)
            for level in range(B.LEVELS):
                counts[(level, key >> (B.SHIFT * level))] += 1
        rows = [{"board": BOARD, "level": level, "key": key, "n": n}
                for (level, key), n in sorted(counts.items())]
        for first in range(0, len(rows), CHUNK):
            connection.execute(insert(BoardCountRow.__table__), rows[first:first + CHUNK])
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").execute(
                text("VACUUM ANALYZE"))
        with engine.connect() as connection:  # warm: each index read once, as a
            connection.execute(text("SET enable_seqscan = off"))  # running server's are
            for column in ("player_id", "sort_key"):
                connection.execute(text(f"SELECT sum({column}) FROM board_entries "
                                        f"WHERE board = '{BOARD}' AND {column} > 0"))
    else:
        with engine.begin() as connection:
            connection.execute(text("ANALYZE"))
    return scores


def copy_fill(engine: Engine, scores: dict[int, int]) -> None:
    """The players and entries through PostgreSQL's COPY (much faster than INSERTs)."""
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        with cursor.copy("COPY players (id, username, username_key, password_hash, "  # type: ignore[attr-defined]
                         "created_at, seen_at, xp) FROM STDIN") as copy:
            for i in scores:
                copy.write_row((i, f"p{i}", f"p{i}", "", 0.0, 0.0, 0))
        with cursor.copy("COPY board_entries (board, player_id, sort_key, name) "  # type: ignore[attr-defined]
                         "FROM STDIN") as copy:
            for i, score in scores.items():
                copy.write_row((BOARD, i, B.sort_key(score), f"p{i}"))
        raw.commit()
    finally:
        raw.close()


def timed(samples: int, fn: Callable[[], object]) -> list[float]:
    out = []
    for _ in range(samples):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def line(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"{name:<22} p50 {statistics.median(ordered):7.3f} ms   p99 {p99:7.3f} ms"


def measure(url: str, players: int, samples: int) -> None:
    rng = random.Random(1)
    asyncio.run(migrate(url))
    engine = create_engine(url)  # no statement timeout: the fill takes long
    try:
        started = time.perf_counter()
        scores = fill(engine, players, rng)
        print(f"{engine.dialect.name}: {players:,} players filled in "
              f"{time.perf_counter() - started:.0f} s")
        with engine.connect() as connection:
            def top() -> object:
                return B.page(connection, BOARD, 1, PAGE)

            def by_rank() -> object:
                return B.page(connection, BOARD, rng.randrange(1, players + 1), PAGE)

            def rank() -> object:
                return B.rank_of(connection, BOARD, rng.randrange(1, players + 1))
            results = [line("top page", timed(samples, top)),
                       line("page by rank", timed(samples, by_rank)),
                       line("exact rank", timed(samples, rank))]
            connection.rollback()
            fresh = timed(max(1, samples // 4), lambda: match_end(engine, scores, rng))
            results.append(line("fresh after a match", fresh))
            check(connection, scores, rng)
        for text_line in results:
            print(text_line)
    finally:
        engine.dispose()


def match_end(engine: Engine, scores: dict[int, int], rng: random.Random) -> None:
    """Four players move, committed; then their ranks are read and checked."""
    moved = {rng.randrange(1, len(scores) + 1): 0 for _ in range(4)}
    for player in moved:
        moved[player] = scores[player] + rng.randrange(-30, 31)
        scores[player] = moved[player]
    with engine.begin() as connection:
        B.set_scores(connection, BOARD, dict(moved))
    with engine.connect() as connection:
        for player, score in moved.items():
            found = B.rank_of(connection, BOARD, player)
            assert found is not None and B.entry_at(connection, BOARD, found) == (
                B.sort_key(score), player)


def check(connection: Connection, scores: dict[int, int], rng: random.Random) -> None:
    """A few ranks against a plain count (not timed)."""
    entries = BoardEntryRow.__table__
    for _ in range(3):
        player = rng.randrange(1, len(scores) + 1)
        key = B.sort_key(scores[player])
        plain = connection.execute(select(func.count()).select_from(entries).where(
            entries.c.board == BOARD, (entries.c.sort_key < key) | (
                (entries.c.sort_key == key) & (entries.c.player_id < player)))).scalar()
        assert B.rank_of(connection, BOARD, player) == int(plain or 0) + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="an empty database (default: a temporary SQLite file)")
    parser.add_argument("--players", type=int, default=1_000_000)
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    if args.url:
        measure(args.url, args.players, args.samples)
        return
    with tempfile.TemporaryDirectory() as folder:
        measure(f"sqlite:///{Path(folder) / 'leaderboard.db'}", args.players, args.samples)


if __name__ == "__main__":
    main()
