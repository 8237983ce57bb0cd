"""Load on the game server: N rooms of 4 seats, every seat a real WebSocket client.

The script starts ``unokit serve`` (SQLite in a temporary data directory unless
``--database-url`` is given; ``--url`` measures a server already running), then worker
processes that each open their share of the rooms: each room is created over the HTTP
API, four clients join it and the host starts the match. Once every room of every worker
is seated, the workers start playing together: the seat to move plays a simple policy
(the first legal action, calling UNO with the play). The clients are the ``websockets``
library's sans-I/O protocol on plain asyncio transports (``benchmarks/_load_client.py``),
so that the load generator costs little next to what it measures. ``--client unokit``
plays the same policy with the project's own client, ``unokit.client.GameClient``
(``benchmarks/_load_unokit.py``), which costs the load generator several times more CPU
and so fits fewer rooms on one machine: it checks that both measure the same server.

The figure is the latency from sending an action to the moment the last of the room's
four clients has received its broadcast (the database commit on the way included), as
percentiles over every action after the warm-up. The server's CPU over the steady part
(after the warm-up) is also given per action.

With ``--bot-rooms N`` the run also holds N "play now" rooms of one client and three
server bots (``--bot-level``, default ``search``), which decide in the server's bot
workers (``UNOKIT_BOT_WORKERS``, ``UNOKIT_BOT_BUDGET``); their client's latencies, from
its action to its broadcast, are given on a line of their own.

Paced (default): each room plays about one action per second, as people do.
Unpaced (``--unpaced``): every room plays as fast as it can (the server's per-connection
rate limit is lifted for it); the figure that matters is the most actions per second.
The load clients run 10 steps nicer than the server (``--nice``): on one machine they
compete with the server for its cores, and a client that runs while the server waits
delays every room the server holds. Niced, they yield to it as clients on other machines
would, and their own delays still count (an action's time ends when the client has read
the last broadcast). ``--pin`` puts the server on the first CPU and the load clients on
the others, and the server's bot workers there too (``UNOKIT_BOT_CPUS``).

    python benchmarks/server_load.py --rooms 1000 --seconds 60
    python benchmarks/server_load.py --rooms 200 --seconds 30 --unpaced
    python benchmarks/server_load.py --rooms 0 --bot-rooms 500 --seconds 60

``--min-actions N`` (and ``--min-bot-actions N``) play on past ``--seconds`` until that
many actions were measured (at most ``--max-seconds``): a run that must measure
something whatever the machine's load (the tests) asks for a count, not a time.

``--processes N`` starts N server processes on one PostgreSQL (``--database-url``)
and shares the load workers out among them, each worker's rooms made on, and played
through, one process (their owner); ``--redis-url`` gives the servers a Redis (the
cluster's fan-out and presence, ``UNOKIT_REDIS_URL``). The CPU and memory figures are
then those of all the server processes together. Side by side, on one database::

    python benchmarks/server_load.py --rooms 1000 --database-url $PG
    python benchmarks/server_load.py --rooms 1000 --database-url $PG --redis-url $R
    python benchmarks/server_load.py --rooms 1000 --database-url $PG --redis-url $R --processes 2

An unpaced run plays matches to 100,000 points by default, so that no room's match ends
within the run: a room whose match is over stops, and the load would fall with it.

It prints the settings, actions, errors, p50/p90/p99/max latency, actions per second,
and the server's CPU time and peak memory (resident set), all measured in this run.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


CPUS = frozenset(os.sched_getaffinity(0))
"""The CPUs this run may use."""
SETUP_CONCURRENCY = 20
"""Rooms a worker seats at once before the run."""
PACED_RULES = "official,players=4"
"""The rooms' rule set in a paced run."""
UNPACED_RULES = "official,players=4,target_score=100000"
"""The rooms' rule set in an unpaced run: a match this long outlasts the run, so that
every room plays until the end (a room whose match is over stops, and the load falls)."""


def machine_times() -> tuple[float, float]:
    """(all, stolen) CPU time of the machine so far, in clock ticks (Linux's
    ``/proc/stat``; zeros elsewhere). Stolen time is what a virtual machine's host gave
    to others while this machine wanted to run."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return 0.0, 0.0
    values = [float(v) for v in fields]
    return sum(values[:8]), values[7] if len(values) > 7 else 0.0


def children_cpu(proc: Any) -> float:
    """CPU seconds of a process's children so far (the server's bot workers)."""
    import psutil
    total = 0.0
    for child in proc.children(recursive=True) if proc is not None else []:
        try:
            times = child.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


class Processes:
    """The server processes of a run, measured as one: their CPU times and resident
    memory summed (and their bot workers' CPU, through :func:`children_cpu`)."""

    def __init__(self, procs: list[Any]) -> None:
        self.procs = procs
        self.pid = procs[0].pid

    def cpu_times(self) -> Any:
        times = [p.cpu_times() for p in self.procs]
        return argparse.Namespace(user=sum(t.user for t in times),
                                  system=sum(t.system for t in times))

    def memory_info(self) -> Any:
        return argparse.Namespace(rss=sum(p.memory_info().rss for p in self.procs))

    def children(self, recursive: bool = False) -> list[Any]:
        return [c for p in self.procs for c in p.children(recursive=recursive)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# ---------------------------------------------------------------- worker (one process)
async def worker_main(url: str, rooms: int, fields: dict[str, Any], paced: bool,
                      seconds: float, warmup: float, seed: int,
                      client: str = "sansio", bot_rooms: int = 0,
                      bot: str = "search", min_actions: int = 0, min_bot_actions: int = 0,
                      max_seconds: float = math.inf) -> dict[str, Any]:
    """Seat every room of this worker, say ``ready`` on stdout, wait for ``go`` on stdin,
    then play ``warmup`` + ``seconds``; ``fields``: each room's (``POST /api/rooms``);
    ``client``: ``sansio`` (``_load_client.py``) or
    ``unokit`` (``_load_unokit.py``); ``bot_rooms``: rooms of one client and server bots
    ``bot`` ("play now"), whose latencies are kept apart; ``min_actions``,
    ``min_bot_actions``: play on until that many latencies of each were measured, for at
    most ``max_seconds`` after the warm-up (``_load_goal.py``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import httpx

    import _load_client
    import _load_unokit
    from _load_goal import Goal
    # the server closes a keep-alive connection idle for 5 s (uvicorn's default), and a
    # request sent on it as it closes fails: the pool lets such connections go after 1 s
    http = httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=20,
                                                              keepalive_expiry=1.0))
    latencies: list[float] = []
    bot_latencies: list[float] = []
    counters = {"rooms": 0, "actions": 0, "errors": 0, "refused": 0, "matches": 0,
                "bot_rooms": 0}
    rng = random.Random(seed)
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def seated() -> _load_client.LoadRoom | _load_unokit.UnokitRoom:
        async with gate:
            if client == "unokit":
                return await _load_unokit.open_room(url, fields, paced, latencies, counters)
            return await _load_client.open_room(http, url, fields, paced, latencies,
                                                counters)
    async def with_bots() -> _load_client.LoadRoom:
        async with gate:
            return await _load_client.open_bot_room(http, url, fields, bot, paced,
                                                    bot_latencies, counters)
    results = await asyncio.gather(*(seated() for _ in range(rooms)),
                                   *(with_bots() for _ in range(bot_rooms)),
                                   return_exceptions=True)
    await http.aclose()
    failures = [r for r in results if isinstance(r, BaseException)]
    for failure in failures[:5]:
        print(f"worker: {type(failure).__name__}: {failure}", file=sys.stderr)
    counters["errors"] += len(failures)
    ready = [r for r in results if not isinstance(r, BaseException)]
    # The seated rooms live to the end: frozen out of the collector's reach, so that
    # its full collections (hundreds of milliseconds over 10,000 connections, a pause
    # of the load client that its latencies would count as the server's) stay small.
    gc.collect()
    gc.freeze()
    cpu_setup = time.process_time()
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    start = time.perf_counter()
    warmup_end = start + warmup
    goal = Goal(warmup_end + seconds, latencies, bot_latencies, actions=min_actions,
                bot_actions=min_bot_actions, deadline=warmup_end + max(seconds, max_seconds))
    await asyncio.gather(*(room.play(goal, warmup_end, rng) for room in ready))
    if goal.missed:
        counters["errors"] += 1
        print(f"worker: measured {len(latencies)} of {min_actions} actions and "
              f"{len(bot_latencies)} of {min_bot_actions} bot-room actions within "
              f"{max_seconds:g} s", file=sys.stderr)
    measured = max(1e-9, (goal.ended or time.perf_counter()) - warmup_end)
    return {"latencies": latencies, "bot_latencies": bot_latencies, "counters": counters,
            "measured_s": measured,
            "cpu_s": time.process_time() - cpu_setup}


# ---------------------------------------------------------------- the run
def part(total: int, share: int, whole: int) -> int:
    """A worker's part of ``total`` actions to measure, for ``share`` of ``whole`` rooms
    (rounded up: the parts add up to at least ``total``).

    >>> part(10, 2, 3), part(10, 1, 3), part(10, 0, 0)
    (7, 4, 0)
    """
    return -(-total * share // whole) if whole else 0


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
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--unpaced", action="store_true")
    parser.add_argument("--rules", default="",
                        help=f"the rooms' rule set (default: {PACED_RULES} paced, "
                             f"{UNPACED_RULES} unpaced)")
    parser.add_argument("--turn-timer", type=int, default=0, choices=(0, 15, 30, 60),
                        help="each room's turn timer in seconds (0: off); the paced clients "
                             "act within it")
    parser.add_argument("--database-url", default="")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--url", default="",
                        help="measure a server already running there (its process id with "
                             "--server-pid, for its CPU and memory)")
    parser.add_argument("--server-pid", type=int, default=0)
    parser.add_argument("--processes", type=int, default=1, metavar="N",
                        help="N server processes on one PostgreSQL (--database-url), each "
                             "owning the rooms made on it; the load workers share them out")
    parser.add_argument("--redis-url", default="", metavar="URL",
                        help="the servers' Redis (UNOKIT_REDIS_URL: the cluster's fan-out "
                             "and presence), to measure what it costs per action")
    parser.add_argument("--pin", action="store_true",
                        help="the server on the first CPU, the load clients and the bot workers "
                             "on the others (so that neither takes the server's core)")
    parser.add_argument("--client", choices=("sansio", "unokit"), default="sansio",
                        help="the load clients: the cheap sans-I/O ones (default) or the "
                             "project's own unokit.client.GameClient (heavier: fewer rooms)")
    parser.add_argument("--nice", type=int, default=10, metavar="N",
                        help="run the load clients N steps nicer than the server (default "
                             "10; 0: as the server), so that the load generator yields the "
                             "CPU to the server it measures")
    parser.add_argument("--profile", default="", metavar="FILE",
                        help="sample the server with py-spy over the steady part (folded "
                             "stacks of the thread holding the GIL, into FILE)")
    parser.add_argument("--cprofile", default="", metavar="FILE",
                        help="profile the server's event loop with cProfile over the steady "
                             "part (pstats's format, into FILE; benchmarks/_cprofile_server.py)")
    parser.add_argument("--bot-rooms", type=int, default=0, metavar="N",
                        help="also N rooms of one client and server bots (play now), whose "
                             "client latencies are given apart")
    parser.add_argument("--bot-level", default="search", metavar="SPEC",
                        help="the server bots of those rooms (default search)")
    parser.add_argument("--min-actions", type=int, default=0, metavar="N",
                        help="play on past --seconds until N client-room actions were "
                             "measured (a condition instead of a time: the tests use it)")
    parser.add_argument("--min-bot-actions", type=int, default=0, metavar="N",
                        help="... and N actions of the bot rooms' clients")
    parser.add_argument("--max-seconds", type=float, default=300.0, metavar="S",
                        help="the longest a run plays after the warm-up for those counts "
                             "(then it ends with an error; default 300)")
    parser.add_argument("--worker", nargs=3, metavar=("URL", "ROOMS", "OUT"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--worker-bot-rooms", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.rules = args.rules or (UNPACED_RULES if args.unpaced else PACED_RULES)
    raise_fd_limit()
    if args.processes < 1:
        parser.error("--processes is at least 1")
    if args.processes > 1 and not args.database_url.startswith("postgresql"):
        parser.error("--processes above 1 needs a PostgreSQL --database-url")
    if args.processes > 1 and (args.url or args.cprofile or args.pin):
        parser.error("--processes above 1 goes without --url, --cprofile and --pin")
    args.workers = max(args.workers, args.processes)
    if args.profile and not shutil.which("py-spy"):
        parser.error("--profile needs py-spy on the PATH")
    if args.worker:
        url, rooms, path = args.worker[0], int(args.worker[1]), args.worker[2]
        import uvloop
        fields: dict[str, Any] = {"rules": args.rules, "turn_timer": args.turn_timer}
        out = uvloop.run(worker_main(url, rooms, fields, not args.unpaced, args.seconds,
                                      args.warmup, args.seed, args.client,
                                      args.worker_bot_rooms, args.bot_level,
                                      args.min_actions, args.min_bot_actions,
                                      args.max_seconds))
        Path(path).write_text(json.dumps(out))  # a file: a pipe could fill and block
        return 0

    import httpx
    import psutil

    # EXTRA_PYTHONPATH: more import paths for the server and the load processes (a
    # probe's sitecustomize, say), after the project's own
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("EXTRA_PYTHONPATH")])])}
    with tempfile.TemporaryDirectory(prefix="unokit-load-") as data:
        servers: list[subprocess.Popen[bytes]] = []
        urls: list[str] = []
        if args.url:
            urls = [args.url.rstrip("/")]
        # every simulated client comes from this machine: lift the per-address limits
        server_env = {**env, "UNOKIT_HANDSHAKE_RATE": "0", "UNOKIT_CONNS_PER_ADDRESS": "0",
                      "UNOKIT_ROOM_RATE": "0", "UNOKIT_LOBBIES_PER_ADDRESS": "0"}
        if args.unpaced:  # every seat plays as fast as it can: lift the rate limit
            server_env.update(UNOKIT_RATE="100000", UNOKIT_BURST="100000")
        if args.redis_url:
            server_env["UNOKIT_REDIS_URL"] = args.redis_url
        if args.pin and len(CPUS) > 1:  # the bot workers beside the clients, not the server
            server_env["UNOKIT_BOT_CPUS"] = ",".join(map(str, sorted(CPUS - {min(CPUS)})))
        for index in range(0 if args.url else args.processes):
            port = free_port()
            urls.append(f"http://127.0.0.1:{port}")
            folder = Path(data) / f"server{index}"
            folder.mkdir()
            command = [sys.executable, "-m", "unokit.cli", "serve", "--port", str(port),
                       "--data-dir", str(folder), "--log-level", "warning"]
            if args.cprofile:
                command[1:3] = [str(ROOT / "benchmarks" / "_cprofile_server.py"),
                                str(Path(args.cprofile).resolve())]
            if args.database_url:
                command += ["--database-url", args.database_url]
            servers.append(subprocess.Popen(command, env=server_env))
            if args.pin:
                os.sched_setaffinity(servers[-1].pid, {min(CPUS)})
        server = servers[0] if servers else None
        try:
            deadline = time.time() + 60
            for url in urls:
                while True:
                    try:
                        if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                            break
                    except httpx.HTTPError:
                        pass
                    if time.time() > deadline or any(s.poll() is not None for s in servers):
                        raise SystemExit("a server did not become ready")
                    time.sleep(0.1)
            pids = [s.pid for s in servers] or ([args.server_pid] if args.server_pid else [])
            proc = Processes([psutil.Process(pid) for pid in pids]) if pids else None
            share = [args.rooms // args.workers + (i < args.rooms % args.workers)
                     for i in range(args.workers)]
            bot_share = [args.bot_rooms // args.workers + (i < args.bot_rooms % args.workers)
                         for i in range(args.workers)]
            workers = [subprocess.Popen(
                [sys.executable, __file__, "--worker", urls[i % len(urls)], str(n),
                 f"{data}/worker{i}.json",
                 "--rules", args.rules, "--turn-timer", str(args.turn_timer),
                 "--seconds", str(args.seconds), "--warmup", str(args.warmup),
                 "--seed", str(args.seed * 100 + i), "--client", args.client,
                 "--worker-bot-rooms", str(bot_share[i]), "--bot-level", args.bot_level,
                 "--min-actions", str(part(args.min_actions, n, args.rooms)),
                 "--min-bot-actions", str(part(args.min_bot_actions, bot_share[i],
                                               args.bot_rooms)),
                 "--max-seconds", str(args.max_seconds)]
                + (["--unpaced"] if args.unpaced else []),
                env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                preexec_fn=(lambda: os.nice(args.nice)) if args.nice else None)
                for i, n in enumerate(share) if n or bot_share[i]]
            if args.pin:
                for worker in workers:
                    os.sched_setaffinity(worker.pid, CPUS - {min(CPUS)} or CPUS)
            for worker in workers:  # every room is seated and its match started
                assert worker.stdout is not None
                if worker.stdout.readline().strip() != "ready":
                    raise SystemExit("a load worker failed while seating its rooms")
            cpu_before = proc.cpu_times() if proc else None
            bots_before = children_cpu(proc)
            for worker in workers:
                assert worker.stdin is not None
                worker.stdin.write("go\n")
                worker.stdin.close()
            go = time.time()
            peak = 0
            # the steady part: after the warm-up, until the workers stop
            steady_from, steady_to = go + args.warmup, go + args.warmup + args.seconds - 0.5
            steady: list[Any] = []
            spy: subprocess.Popen[bytes] | None = None
            while any(w.poll() is None for w in workers):
                if proc is not None:
                    peak = max(peak, proc.memory_info().rss)
                    if len(steady) < 2 and time.time() >= (steady_to if steady
                                                           else steady_from):
                        steady.append((time.time(), proc.cpu_times(), machine_times()))
                        if args.cprofile and server is not None:
                            server.send_signal(signal.SIGUSR1 if len(steady) == 1
                                               else signal.SIGUSR2)
                        if args.profile and len(steady) == 1:
                            spy = subprocess.Popen(
                                ["py-spy", "record", "-p", str(proc.pid), "--gil",
                                 "--threads", "-r", "200", "--format", "raw",
                                 "-d", str(max(1, int(steady_to - time.time()))),
                                 "-o", args.profile], stdout=subprocess.DEVNULL)
                time.sleep(0.1)
            if spy is not None:
                spy.wait(60)
            cpu_after = proc.cpu_times() if proc else None
            bots_cpu = children_cpu(proc) - bots_before
            outs = [json.loads(path.read_text()) for path in sorted(Path(data).glob(
                "worker*.json"))]
        finally:
            for each in servers:
                each.terminate()
            for each in servers:
                each.wait(30)
    latencies = [x for o in outs for x in o.get("latencies", [])]
    totals: dict[str, int] = {}
    for o in outs:
        for key, value in o.get("counters", {}).items():
            totals[key] = totals.get(key, 0) + value
    measured = max((o.get("measured_s", 0.0) for o in outs), default=1.0)
    cpu = ((cpu_after.user + cpu_after.system) - (cpu_before.user + cpu_before.system)
           if cpu_after is not None and cpu_before is not None else float("nan"))
    system = (cpu_after.system - cpu_before.system
              if cpu_after is not None and cpu_before is not None else float("nan"))
    client_cpu = sum(o.get("cpu_s", 0.0) for o in outs)
    steady_line = ""
    if len(steady) == 2 and latencies:
        (t0, c0, m0), (t1, c1, m1) = steady
        used = (c1.user + c1.system) - (c0.user + c0.system)
        rate = len(latencies) / measured
        stolen = (m1[1] - m0[1]) / max(1e-9, m1[0] - m0[0]) * 100
        steady_line = (f"steady part: server CPU {used / (t1 - t0) * 100:.0f}% of one core, "
                       f"{used / max(1e-9, rate * (t1 - t0)) * 1e6:.0f} us per action; "
                       f"CPU stolen by the virtual machine's host {stolen:.0f}%")
    ms = [x * 1000 for x in latencies]
    print(f"server_load: {'unpaced' if args.unpaced else 'paced, ~1 action/s per room'}; "
          f"{args.rooms} rooms x 4 seats = {4 * args.rooms} WebSocket connections in "
          f"{len(workers)} client processes"
          f"{' of unokit.client' if args.client == 'unokit' else ''}"
          f"{f' (nice {args.nice})' if args.nice else ''}{', pinned' if args.pin else ''}; "
          f"rules {args.rules}"
          f"{f', turn timer {args.turn_timer} s' if args.turn_timer else ''}; "
          f"database {'SQLite (WAL, synchronous=FULL)' if not args.database_url else 'URL'}"
          f"{'' if len(urls) == 1 else f', {len(urls)} server processes'}"
          f"{', Redis' if args.redis_url else ''}; "
          f"{args.seconds:.0f} s after {args.warmup:.0f} s warm-up; {os.cpu_count()} cores")
    print(f"rooms started {totals.get('rooms', 0)}, matches ended {totals.get('matches', 0)}, "
          f"actions {totals.get('actions', 0)} ({len(ms)} measured), "
          f"errors {totals.get('errors', 0)}, refused {totals.get('refused', 0)}")
    print(f"latency action -> last broadcast (ms): p50 {percentile(ms, 0.50):.1f}  "
          f"p90 {percentile(ms, 0.90):.1f}  p99 {percentile(ms, 0.99):.1f}  "
          f"max {max(ms, default=float('nan')):.1f}")
    share = cpu / max(1e-9, measured + args.warmup) * 100
    print(f"throughput {len(ms) / measured:.0f} actions/s (measured part); server CPU "
          f"{cpu:.1f} s, {system:.1f} s of it in the kernel ({share:.0f}% of one core over "
          f"the play), peak memory {peak / 2**20:.0f} MiB; client processes' CPU "
          f"{client_cpu:.1f} s")
    if steady_line:
        print(steady_line)
    if args.bot_rooms:
        bot_ms = [x * 1000 for o in outs for x in o.get("bot_latencies", [])]
        print(f"bot rooms (1 client + {args.bot_level} bots) started "
              f"{totals.get('bot_rooms', 0)}, client actions measured {len(bot_ms)}; "
              f"their latency action -> broadcast (ms): p50 {percentile(bot_ms, 0.50):.1f}  "
              f"p90 {percentile(bot_ms, 0.90):.1f}  p99 {percentile(bot_ms, 0.99):.1f}  "
              f"max {max(bot_ms, default=float('nan')):.1f}; the server's bot workers' "
              f"CPU {bots_cpu:.1f} s")
    if args.unpaced and totals.get("matches", 0):
        print(f"note: {totals['matches']} rooms ended their match during the run, and the "
              f"load fell as they did: choose a higher target_score in --rules")
    return 1 if totals.get("errors", 0) else 0


if __name__ == "__main__":
    sys.exit(main())
