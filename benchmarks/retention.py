"""How long the retention's deleting transactions hold the store's writer.

Fills a database with ``--rooms`` finished matches (``--actions`` actions, 4 seats and 5
chat lines each) that ended long ago, then deletes them as the server's retention sweep
does (:func:`unokit.store.lifecycle.delete_ended`, ``--batch`` rooms per transaction),
timing each transaction in the writer. Every room's write waits at most one such
transaction, so its time is the pause the sweep can add to a commit.

    python benchmarks/retention.py --rooms 10000                        # SQLite, a temp file
    python benchmarks/retention.py --url postgresql+psycopg://u@h/db    # an empty database
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import Connection, insert

from unokit.store import Store
from unokit.store.lifecycle import DELETE_BATCH, Retention, delete_ended
from unokit.store.models import ActionRow, ChatRow, RoomRow, SeatRow


def fill(store: Store, rooms: int, actions: int) -> None:
    """Insert the finished rooms straight through the engine (not timed)."""
    with store.engine.begin() as connection:
        for first in range(0, rooms, 500):
            ids = range(first + 1, min(rooms, first + 500) + 1)
            connection.execute(insert(RoomRow.__table__), [
                {"id": i, "code": f"R{i}", "rules": "{}", "status": "finished",
                 "turn_timer": 0, "public": True, "server_seed": "00" * 32,
                 "commitment": "ab" * 32, "seed": "7", "created_at": 1.0,
                 "started_at": 1.0, "ended_at": 2.0, "last_seen": 2.0} for i in ids])
            connection.execute(insert(SeatRow.__table__), [
                {"room_id": i, "seat": s, "kind": "human", "name": f"P{s}", "bot": "",
                 "token_hash": "ff" * 32, "host": s == 0} for i in ids for s in range(4)])
            connection.execute(insert(ActionRow.__table__), [
                {"room_id": i, "n": n, "action": f"{n % 4}:draw", "seat": n % 4,
                 "origin": "player", "client_id": f"c{n}", "seq": n, "at": 1.5}
                for i in ids for n in range(actions)])
            connection.execute(insert(ChatRow.__table__), [
                {"room_id": i, "n": n, "seat": 0, "name": "P0", "text": "good game",
                 "at": 1, "client_id": None, "seq": n} for i in ids for n in range(5)])


async def measure(url: str, rooms: int, actions: int, batch: int) -> None:
    store = Store(url)
    try:
        fill(store, rooms, actions)
        times: list[float] = []
        original = store.run

        async def timed(fn):  # type: ignore[no-untyped-def]
            def inner(connection: Connection):  # type: ignore[no-untyped-def]
                start = time.perf_counter()
                try:
                    return fn(connection)
                finally:
                    times.append(time.perf_counter() - start)
            return await original(inner)
        store.run = timed  # type: ignore[method-assign]
        start = time.perf_counter()
        deleted = await delete_ended(store, Retention(finished_before=10.0,
                                                      closed_before=None), batch=batch)
        total = time.perf_counter() - start
    finally:
        await store.close()
    ms = sorted(t * 1000 for t in times)
    print(f"{deleted} rooms ({actions} actions each) deleted in {len(ms)} transactions of "
          f"at most {batch} rooms, {total:.2f} s in all")
    print(f"per transaction: p50 {statistics.median(ms):.1f} ms, "
          f"p99 {ms[min(len(ms) - 1, int(len(ms) * 0.99))]:.1f} ms, max {ms[-1]:.1f} ms "
          "(without the commit's sync)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=10_000)
    parser.add_argument("--actions", type=int, default=150)
    parser.add_argument("--batch", type=int, default=DELETE_BATCH)
    parser.add_argument("--url", default="")
    args = parser.parse_args()
    if args.url:
        asyncio.run(measure(args.url, args.rooms, args.actions, args.batch))
        return
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'unokit.db'}"
        asyncio.run(measure(url, args.rooms, args.actions, args.batch))


if __name__ == "__main__":
    main()
