"""A real unokit server on a free loopback port, inside the test's event loop, for the
server tests (uvicorn, the app, the store on the given database)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import uvicorn

from unokit.server.app import create_app
from unokit.server.rooms import Rooms
from unokit.server.settings import Settings
from unokit.server.transport import uvicorn_options
from unokit.store.leases import Clock


@dataclass
class Running:
    """A started server: its base URL and its rooms."""

    url: str
    rooms: Rooms
    server: uvicorn.Server


def server_settings(database_url: str, **changes: Any) -> Settings:
    """Settings for tests: no bot delay, no pause between rounds, a short catch grace,
    bots deciding in a thread (tests/test_server_bot_pool.py runs worker processes)."""
    values: dict[str, Any] = {"database_url": database_url, "bot_delay": 0.0,
                              "round_pause": 0.0, "catch_grace": 0.05, "rate": 1000.0,
                              "burst": 1000, "log_level": "warning",
                              # every test client comes from 127.0.0.1: the per-address
                              # limits have tests of their own (test_server_limits.py)
                              "handshake_rate": 0, "conns_per_address": 0, "room_rate": 0,
                              "lobbies_per_address": 0, "bot_workers": 0}
    values.update(changes)
    return Settings(**values)


@contextlib.asynccontextmanager
async def running_server(settings: Settings, seeds: list[bytes] | None = None, *,
                         clock: Callable[[], float] | None = None,
                         lease_clock: Clock | None = None) -> AsyncIterator[Running]:
    """Start the server on 127.0.0.1 and a free port; stop it gracefully afterwards.
    ``seeds``: the server seeds of the rooms created, in order (random otherwise);
    ``clock``: the rooms' wall clock (``time.time`` otherwise); ``lease_clock``: the
    clock of the rooms' leases (the database's otherwise)."""
    rooms = Rooms(settings, lease_clock=lease_clock)
    if clock is not None:
        rooms.clock = clock
    if seeds is not None:
        queue = list(seeds)
        rooms.server_seeds = lambda: queue.pop(0)
    app = create_app(settings, rooms)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None,
                            access_log=False, lifespan="on", **uvicorn_options(settings))
    server = uvicorn.Server(config)
    started = asyncio.Event()
    original = server.startup

    async def startup(sockets: Any = None) -> None:
        await original(sockets)
        started.set()

    server.startup = startup  # type: ignore[method-assign]
    task = asyncio.create_task(server.serve())
    waiter = asyncio.create_task(started.wait())
    done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        waiter.cancel()
        task.result()
        raise RuntimeError("the server did not start")
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Running(f"http://127.0.0.1:{port}", rooms, server)
    finally:
        server.should_exit = True
        await task
