"""Load on the game server: N rooms of 4 seats, every seat a real WebSocket client.

The script starts ``unokit serve`` (SQLite in a temporary data directory unless
``--database-url`` is given), then worker processes that each open their share of the
rooms: each room is created over the HTTP API, four clients join it, the host starts the
match, and the seat to move plays a simple policy (the first legal action, calling UNO
with the play). The figure is the latency from sending an action to the moment the last
of the room's four clients has received its broadcast (the database commit on the way
included), as percentiles over every action after the warm-up.

Paced (default): each room plays about one action per second, as people do.
Unpaced (``--unpaced``): every room plays as fast as it can (the server's per-connection
rate limit is lifted for it); the figure that matters is the most actions per second.

    python benchmarks/server_load.py --rooms 1000 --seconds 60
    python benchmarks/server_load.py --rooms 200 --seconds 30 --unpaced

It prints the settings, actions, errors, p50/p90/p99/max latency, actions per second,
and the server's CPU time and peak memory (resident set), all measured in this run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# ---------------------------------------------------------------- worker (one process)
async def run_room(url: str, rules: str, paced: bool, until: float, warmup_end: float,
                   latencies: list[float], counters: dict[str, int], rng: random.Random
                   ) -> None:
    import httpx

    from unokit.client import ActionRefused, GameClient
    from unokit.server import protocol as P

    async with httpx.AsyncClient(timeout=120) as http:
        response = await http.post(url + "/api/rooms", json={"rules": rules})
        code = response.json()["code"]
    clients = [await GameClient.join(url, code, name=f"p{i}") for i in range(4)]
    changed = asyncio.Event()
    for client in clients:
        client.listeners.append(changed)

    async def until_(condition: Any) -> None:
        async with asyncio.timeout(120):
            while not condition():
                changed.clear()
                await changed.wait()
    await clients[0].command(P.Start)
    counters["rooms"] += 1
    next_at = time.perf_counter() + rng.random()
    try:
        while time.perf_counter() < until:
            await until_(lambda: any(c.must or c.reveal is not None for c in clients))
            if any(c.reveal is not None for c in clients):
                counters["matches"] += 1
                break
            actor = next(c for c in clients if c.must)
            if paced:
                delay = next_at - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                next_at = max(next_at + 1.0, time.perf_counter())
            legal = actor.legal
            choice = next((a for a in legal if a.endswith("!")), legal[0])
            start = time.perf_counter()
            try:
                seq = await actor.act(choice)
            except ActionRefused as exc:
                counters["refused"] += 1
                if exc.code == "rate_limited":  # the same turn: try again a little later
                    await asyncio.sleep(0.05)
                else:
                    actor.must = False
                continue
            await until_(lambda seq=seq: all(c.last_seq >= seq for c in clients))
            took = time.perf_counter() - start
            counters["actions"] += 1
            if start >= warmup_end:
                latencies.append(took)
    except (TimeoutError, OSError) as exc:
        counters["errors"] += 1
        counters.setdefault("error_kinds", 0)
        print(f"room {code}: {type(exc).__name__}", file=sys.stderr)
    finally:
        for client in clients:
            counters["errors"] += len(client.errors)
            await client.close()


async def worker_main(url: str, rooms: int, rules: str, paced: bool, seconds: float,
                      warmup: float, seed: int) -> dict[str, Any]:
    start = time.perf_counter()
    ramp = min(20.0, rooms * 0.01)
    until = start + ramp + seconds
    warmup_end = start + ramp + warmup
    latencies: list[float] = []
    counters = {"rooms": 0, "actions": 0, "errors": 0, "refused": 0, "matches": 0}
    rng = random.Random(seed)
    tasks = []
    for _ in range(rooms):
        tasks.append(asyncio.create_task(run_room(url, rules, paced, until, warmup_end,
                                                  latencies, counters, rng)))
        await asyncio.sleep(ramp / max(1, rooms))
    results = await asyncio.gather(*tasks, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    for failure in failures[:5]:
        print(f"worker: {type(failure).__name__}: {failure}", file=sys.stderr)
    counters["errors"] += len(failures)
    measured = max(1e-9, time.perf_counter() - warmup_end)
    return {"latencies": latencies, "counters": counters, "measured_s": measured,
            "cpu_s": time.process_time()}


# ---------------------------------------------------------------- the run
def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--unpaced", action="store_true")
    parser.add_argument("--rules", default="official,players=4")
    parser.add_argument("--database-url", default="")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worker", nargs=3, metavar=("URL", "ROOMS", "OUT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_fd_limit()
    if args.worker:
        url, rooms, path = args.worker[0], int(args.worker[1]), args.worker[2]
        out = asyncio.run(worker_main(url, rooms, args.rules, not args.unpaced, args.seconds,
                                      args.warmup, args.seed))
        Path(path).write_text(json.dumps(out))  # a file: a pipe could fill and block
        return 0

    import httpx
    import psutil

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="unokit-load-") as data:
        command = [sys.executable, "-m", "unokit.cli", "serve", "--port", str(port),
                   "--data-dir", data, "--log-level", "warning"]
        if args.database_url:
            command += ["--database-url", args.database_url]
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        server_env = dict(env)
        if args.unpaced:  # every seat plays as fast as it can: lift the per-connection limit
            server_env.update(UNOKIT_RATE="100000", UNOKIT_BURST="100000")
        server = subprocess.Popen(command, env=server_env)
        try:
            deadline = time.time() + 60
            while True:
                try:
                    if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.time() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not become ready")
                time.sleep(0.1)
            proc = psutil.Process(server.pid)
            cpu_before = proc.cpu_times()
            share = [args.rooms // args.workers + (i < args.rooms % args.workers)
                     for i in range(args.workers)]
            workers = [subprocess.Popen(
                [sys.executable, __file__, "--worker", url, str(n), f"{data}/worker{i}.json",
                 "--rules", args.rules,
                 "--seconds", str(args.seconds), "--warmup", str(args.warmup),
                 "--seed", str(args.seed * 100 + i)] + (["--unpaced"] if args.unpaced else []),
                env=env) for i, n in enumerate(share) if n]
            peak = 0
            while any(w.poll() is None for w in workers):
                peak = max(peak, proc.memory_info().rss)
                time.sleep(0.5)
            cpu_after = proc.cpu_times()
            outs = [json.loads(path.read_text()) for path in sorted(Path(data).glob(
                "worker*.json"))]
        finally:
            server.terminate()
            server.wait(30)
    latencies = [x for o in outs for x in o.get("latencies", [])]
    totals: dict[str, int] = {}
    for o in outs:
        for key, value in o.get("counters", {}).items():
            totals[key] = totals.get(key, 0) + value
    measured = max((o.get("measured_s", 0.0) for o in outs), default=1.0)
    cpu = (cpu_after.user + cpu_after.system) - (cpu_before.user + cpu_before.system)
    client_cpu = sum(o.get("cpu_s", 0.0) for o in outs)
    ms = [x * 1000 for x in latencies]
    print(f"server_load: {'unpaced' if args.unpaced else 'paced, ~1 action/s per room'}; "
          f"{args.rooms} rooms x 4 seats = {4 * args.rooms} WebSocket connections in "
          f"{len(workers)} client processes; rules {args.rules}; "
          f"database {'SQLite (WAL, synchronous=FULL)' if not args.database_url else 'URL'}; "
          f"{args.seconds:.0f} s after {args.warmup:.0f} s warm-up; {os.cpu_count()} cores")
    print(f"rooms started {totals.get('rooms', 0)}, matches ended {totals.get('matches', 0)}, "
          f"actions {totals.get('actions', 0)} ({len(ms)} measured), "
          f"errors {totals.get('errors', 0)}, refused {totals.get('refused', 0)}")
    print(f"latency action -> last broadcast (ms): p50 {percentile(ms, 0.50):.1f}  "
          f"p90 {percentile(ms, 0.90):.1f}  p99 {percentile(ms, 0.99):.1f}  "
          f"max {max(ms, default=float('nan')):.1f}")
    print(f"throughput {len(ms) / measured:.0f} actions/s (measured part); server CPU "
          f"{cpu:.1f} s ({cpu / (measured + args.warmup) * 100:.0f}% of one core over the "
          f"run), peak memory {peak / 2**20:.0f} MiB; client processes' CPU {client_cpu:.1f} s")
    return 1 if totals.get("errors", 0) else 0


if __name__ == "__main__":
    sys.exit(main())
