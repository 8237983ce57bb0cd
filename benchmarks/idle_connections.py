"""Idle WebSocket connections on one server process, and what each one costs it.

The script starts ``unokit serve`` (SQLite in a temporary data directory; the
per-address limits lifted, since every connection comes from this machine), makes
``--rooms`` rooms, and measures the server's resident memory (RSS). Then it opens
``--connections`` WebSocket connections, each of which says hello as a spectator of one
of the rooms (round robin) and waits for its welcome, and stays open without a word.
Once every connection is welcomed and the server has been quiet for ``--settle``
seconds, the server's RSS is read again: the difference, divided by the number of
connections, is the memory one idle connection holds (its socket's buffers in the
server's process, its WebSocket and its place in its room). The server's CPU over the
idle seconds (its pings, ``UNOKIT_WS_PING_INTERVAL``) is given too.

The clients are the ``websockets`` library's sans-I/O protocol on plain asyncio
transports, as in ``benchmarks/_load_client.py``: one process holds them all. They run
``--nice`` steps nicer than the server.

Then the same connections are measured the same way on a peer in the same run
(``benchmarks/_bare_ws_server.py``: uvloop's TCP server and the ``websockets``
sans-I/O protocol alone, the least a Python server of this kind holds for a
connection), and the ratio of the two is given (``--no-peer`` leaves it out).

    python benchmarks/idle_connections.py --connections 10000 --rooms 100

Prints one JSON object; the target is at most 10 KB (10,240 bytes) a connection.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET = 10 * 1024
"""The most bytes an idle connection may cost the server."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def raise_fd_limit(wanted: int) -> None:
    """Raise this process's open-file limit (its children inherit it) to ``wanted``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    if min(wanted, hard) < wanted:
        raise SystemExit(f"the open-file limit is {hard}: {wanted} are needed "
                         f"(ulimit -n)")


class Idle(asyncio.Protocol):
    """One idle connection: handshake, hello as a spectator, then only pongs."""

    def __init__(self, uri: str, room: str) -> None:
        from websockets.client import ClientProtocol
        from websockets.uri import parse_uri

        self.ws = ClientProtocol(parse_uri(uri), max_size=2**20)
        self.room = room
        self.transport: asyncio.Transport | None = None
        self.welcome = asyncio.get_running_loop().create_future()
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.ws.send_request(self.ws.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        from websockets.frames import Frame, Opcode
        from websockets.http11 import Response

        from unokit.server import protocol as P

        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Response):
                if event.status_code != 101:
                    self._fail(OSError(f"handshake: {event.status_code}"))
                    continue
                self.ws.send_text(P.encode(P.Hello(room=self.room, spectate=True)))
            elif isinstance(event, Frame) and event.opcode == Opcode.TEXT:
                if b'"welcome"' in event.data[:40] and not self.welcome.done():
                    self.welcome.set_result(None)
                elif event.data.startswith(b'{"type":"error"'):
                    self._fail(OSError(event.data[:200].decode(errors="replace")))
        self._flush()  # pongs, the hello

    def _fail(self, exc: Exception) -> None:
        if not self.welcome.done():
            self.welcome.set_exception(exc)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._fail(exc or OSError("connection lost"))

    def _flush(self) -> None:
        if self.transport is None:
            return
        for data in self.ws.data_to_send():
            if data:
                self.transport.write(data)


async def open_idle(host: str, port: int, rooms: list[str], count: int,
                    batch: int) -> list[Idle]:
    """``count`` welcomed idle connections, ``batch`` handshakes at a time."""
    loop = asyncio.get_running_loop()
    uri = f"ws://{host}:{port}/ws"
    held: list[Idle] = []
    for start in range(0, count, batch):
        made = []
        for n in range(start, min(count, start + batch)):
            _, protocol = await loop.create_connection(
                lambda n=n: Idle(uri, rooms[n % len(rooms)]), host, port)
            made.append(protocol)
        await asyncio.gather(*(p.welcome for p in made))
        held.extend(made)
    return held


def rss(pid: int) -> int:
    import psutil
    return int(psutil.Process(pid).memory_info().rss)


def cpu(pid: int) -> float:
    import psutil
    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


async def make_rooms(port: int, count: int) -> list[str]:
    """``count`` rooms on the unokit server at ``port``: their codes."""
    import httpx

    base = f"http://127.0.0.1:{port}"
    # a new HTTP connection for each room: the server closes idle ones (idle_timeout)
    async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(
            max_keepalive_connections=0)) as http:
        rooms = []
        for _ in range(count):
            made = await http.post(base + "/api/rooms", json={"rules": "official"})
            made.raise_for_status()
            rooms.append(made.json()["code"])
    return rooms


async def run(args: argparse.Namespace, port: int, pid: int,
              bare: bool = False) -> dict[str, Any]:
    """Open the idle connections on the server at ``port`` (process ``pid``) and
    measure; ``bare``: the peer (no rooms to make, any hello is welcomed)."""
    rooms = ["BARE"] if bare else await make_rooms(port, args.rooms)
    # a few connections first, so that what every connection shares is counted before
    warm = await open_idle("127.0.0.1", port, rooms, min(100, args.connections),
                           args.batch)
    for protocol in warm:
        assert protocol.transport is not None
        protocol.transport.close()
    await asyncio.sleep(args.settle)
    before = rss(pid)
    started = time.monotonic()
    held = await open_idle("127.0.0.1", port, rooms, args.connections, args.batch)
    opened = time.monotonic() - started
    await asyncio.sleep(args.settle)
    gc.collect()
    cpu_before, idle_from = cpu(pid), time.monotonic()
    await asyncio.sleep(args.idle)
    idle_cpu = (cpu(pid) - cpu_before) / (time.monotonic() - idle_from)
    after = rss(pid)
    lost = sum(p.closed for p in held)
    for protocol in held:
        assert protocol.transport is not None
        protocol.transport.close()
    per = (after - before) / args.connections
    return {"connections": args.connections, "rooms": args.rooms, "lost": lost,
            "open_seconds": round(opened, 1), "rss_before_mib": round(before / 2**20, 1),
            "rss_after_mib": round(after / 2**20, 1), "bytes_per_connection": round(per),
            "target_bytes": TARGET, "within_target": per <= TARGET and lost == 0,
            "idle_server_cpu": round(idle_cpu, 4),
            "ping_interval": float(os.environ.get("UNOKIT_WS_PING_INTERVAL", "60")),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=10_000)
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--batch", type=int, default=200,
                        help="handshakes under way at once")
    parser.add_argument("--settle", type=float, default=3.0,
                        help="seconds of quiet before each memory reading")
    parser.add_argument("--idle", type=float, default=10.0,
                        help="seconds over which the idle server's CPU is measured")
    parser.add_argument("--nice", type=int, default=10,
                        help="how much nicer than the server the clients run")
    parser.add_argument("--no-peer", action="store_true",
                        help="measure unokit only, not the bare server beside it")
    args = parser.parse_args()
    raise_fd_limit(args.connections + 1000)
    result = measure_unokit(args)
    if not args.no_peer:
        peer = measure_bare(args)
        result["peer_bytes_per_connection"] = peer["bytes_per_connection"]
        result["peer_lost"] = peer["lost"]
        result["ratio_to_peer"] = round(result["bytes_per_connection"]
                                        / max(1, peer["bytes_per_connection"]), 2)
    print(json.dumps(result))
    return 0 if result["within_target"] else 1


def measure_unokit(args: argparse.Namespace) -> dict[str, Any]:
    """The idle connections on ``unokit serve`` (SQLite, the limits lifted)."""
    import httpx

    port = free_port()
    with tempfile.TemporaryDirectory(prefix="unokit-idle-") as data:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"),
               "UNOKIT_HANDSHAKE_RATE": "0", "UNOKIT_CONNS_PER_ADDRESS": "0",
               "UNOKIT_ROOM_RATE": "0", "UNOKIT_LOBBIES_PER_ADDRESS": "0",
               "UNOKIT_MAX_CONNS": str(args.connections + 500), "UNOKIT_BOT_WORKERS": "0"}
        server = subprocess.Popen(
            [sys.executable, "-m", "unokit.cli", "serve", "--port", str(port), "--data-dir",
             data, "--log-level", "warning"], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 600  # a loaded machine starts it slowly
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/readyz",
                                 timeout=10).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(f"the server did not become ready (exit status "
                                     f"{server.poll()})")
                time.sleep(0.1)
            return asyncio.run(clients(args, port, server.pid, bare=False))
        finally:
            server.terminate()
            server.wait(60)


def measure_bare(args: argparse.Namespace) -> dict[str, Any]:
    """The same idle connections on the bare server (``_bare_ws_server.py``)."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "benchmarks" / "_bare_ws_server.py"), str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert server.stdout is not None
        if server.stdout.readline().strip() != "ready":
            raise SystemExit(f"the bare server did not start (exit status {server.poll()})")
        return asyncio.run(clients(args, port, server.pid, bare=True))
    finally:
        server.terminate()
        server.wait(60)


async def clients(args: argparse.Namespace, port: int, pid: int,
                  bare: bool) -> dict[str, Any]:
    """:func:`run` in a process ``--nice`` steps nicer than the server (the clients
    yield to it); the niceness is set once and kept for the peer's run too."""
    if not getattr(args, "_niced", False):
        os.nice(args.nice)
        args._niced = True
    return await run(args, port, pid, bare=bare)


if __name__ == "__main__":
    sys.exit(main())
