"""The cost of relaying a client through Redis: the round trip of a game action from a
client of the room's owner process, and from a client of another process that relays it
(:mod:`unokit.server.relay`).

What it does
    Starts two ``unokit serve`` processes on one PostgreSQL and one Redis (no bot delay,
    no pause between rounds, a short catch grace; ``UNOKIT_REDIS_URL``), makes
    ``--rooms`` two-seat rooms on the first (their owner), seats one client on the owner
    and one on the relay in each, and plays every room to its end, again and again,
    until each side has made ``--actions`` actions. Each action's round trip (sent, then
    its ack received) is timed on the client.

What it reports
    The round trip's median and 99th percentile for the owner's clients and the relay's,
    the difference (the relay's cost per action: two Redis stream hops and the relay's
    work), and actions per second over the run.

Run it (a PostgreSQL and a Redis of your own, as the test scripts start them)::

    export UNOKIT_TEST_POSTGRES_URL="$(scripts/pg_test_server.sh start)"
    export UNOKIT_TEST_REDIS_URL="$(scripts/redis_test_server.sh start)"
    PYTHONPATH=src python benchmarks/relay_cost.py --rooms 4 --actions 400
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import psycopg

from kill_restart import Server
from unokit.client import GameClient

RULES = "official,players=2,rounds=1"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def play_room(owner: Server, relay: Server, wanted: int,
                    times: dict[str, list[float]]) -> None:
    """Play matches in one room until each side made ``wanted`` actions."""
    while min(len(times["owner"]), len(times["relay"])) < wanted:
        async with httpx.AsyncClient() as http:
            made = await http.post(owner.url + "/api/rooms", json={"rules": RULES})
        code = made.json()["code"]
        ann = await GameClient.join(owner.url, code, name="Ann")
        bob = await GameClient.join(relay.url, code, name="Bob")
        changed = asyncio.Event()
        for client in (ann, bob):
            client.listeners.append(changed)
        await ann.start()
        sides = {id(ann): "owner", id(bob): "relay"}
        while ann.reveal is None or bob.reveal is None:
            mover = next((c for c in (ann, bob) if c.must and c.reveal is None), None)
            if mover is None:
                changed.clear()
                if not any(c.must for c in (ann, bob)):
                    await asyncio.wait_for(changed.wait(), 60)
                continue
            began = time.perf_counter()
            await mover.act(mover.legal[0])
            times[sides[id(mover)]].append(time.perf_counter() - began)
        await ann.close()
        await bob.close()


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=4)
    parser.add_argument("--actions", type=int, default=400,
                        help="actions per side (owner's clients, relay's clients)")
    args = parser.parse_args()
    server = os.environ.get("UNOKIT_TEST_POSTGRES_URL", "")
    cache = os.environ.get("UNOKIT_TEST_REDIS_URL", "")
    if not server or not cache:
        print("set UNOKIT_TEST_POSTGRES_URL and UNOKIT_TEST_REDIS_URL (see above)")
        return 2
    name = f"unokit_relay_{uuid.uuid4().hex[:12]}"
    plain = server.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = server.rsplit("/", 1)[0] + "/" + name
    os.environ["UNOKIT_REDIS_URL"] = cache
    os.environ["UNOKIT_BOT_WORKERS"] = "0"
    folder = Path(tempfile.mkdtemp(prefix="unokit-relay-"))
    (folder / "a").mkdir()
    (folder / "b").mkdir()
    owner, relay = Server(folder / "a", url), Server(folder / "b", url)
    times: dict[str, list[float]] = {"owner": [], "relay": []}
    try:
        await asyncio.gather(owner.start(), relay.start())
        began = time.perf_counter()
        per_room = -(-args.actions // args.rooms)
        rooms: list[dict[str, list[float]]] = [{"owner": [], "relay": []}
                                               for _ in range(args.rooms)]
        await asyncio.gather(*(play_room(owner, relay, per_room, r) for r in rooms))
        took = time.perf_counter() - began
        for r in rooms:
            times["owner"] += r["owner"]
            times["relay"] += r["relay"]
    finally:
        owner.stop()
        relay.stop()
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    total = len(times["owner"]) + len(times["relay"])
    print(f"{args.rooms} rooms, {total} actions in {took:.1f} s: {total / took:.0f} actions/s")
    for side in ("owner", "relay"):
        values = [t * 1000 for t in times[side]]
        print(f"{side:5}: {len(values)} actions, round trip p50 "
              f"{statistics.median(values):.2f} ms, p99 {percentile(values, 0.99):.2f} ms")
    o = [t * 1000 for t in times["owner"]]
    r = [t * 1000 for t in times["relay"]]
    print(f"relay's cost per action: p50 {statistics.median(r) - statistics.median(o):+.2f} "
          f"ms, p99 {percentile(r, 0.99) - percentile(o, 0.99):+.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
