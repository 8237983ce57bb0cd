"""Running the server: uvicorn, structured logs, and a graceful shutdown.

On SIGTERM or Ctrl-C the server stops taking messages, lets every room finish the one
it is handling (its database write included), tells every client to reconnect
(:class:`unokit.server.protocol.Bye`), closes the connections, and closes the database
once every write handed to it is committed.

>>> record = logging.LogRecord("unokit.room", logging.INFO, "", 0, "room created", (), None)
>>> record.room = "ABCDEF"
>>> sorted(json.loads(JsonFormatter().format(record)))
['level', 'logger', 'msg', 'room', 'time']
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import uvicorn

from unokit.i18n import _
from unokit.server.app import create_app
from unokit.server.collector import Collections
from unokit.server.rooms import Rooms
from unokit.server.settings import Settings
from unokit.server.transport import uvicorn_options

SWITCH_INTERVAL = 0.0005
"""Seconds between the interpreter's thread switches in the server (Python's default is
0.005)."""

_PLAIN = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and any extra fields.
    Log lines never hold cards: rooms log codes, counts and kinds of actions only."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(), "logger": record.name,
            "msg": record.getMessage()}
        for key, value in vars(record).items():
            if key not in _PLAIN and not key.startswith("_"):
                out[key] = value if isinstance(value, str | int | float | bool) else str(value)
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def setup_logging(level: str) -> None:
    """Structured logs on stderr at ``level`` (uvicorn's own logs too)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    logging.getLogger("uvicorn.access").setLevel("WARNING")


class _Server(uvicorn.Server):
    """uvicorn, with the rooms told to stop before the connections are closed."""

    rooms: Rooms
    collections: Collections

    async def shutdown(self, sockets: list[Any] | None = None) -> None:
        logging.getLogger("unokit.server").info("shutting down")
        self.collections.uninstall()
        self.rooms.closing = True
        for room in list(self.rooms.rooms.values()):
            await room.stop()
        await asyncio.sleep(0)
        await super().shutdown(sockets)

    async def startup(self, sockets: list[Any] | None = None) -> None:
        # uvicorn opens the rooms (the lifespan: the database, waited for, and every
        # room restored) before it binds the port: "listening" means ready
        await super().startup(sockets)
        self.collections.start(asyncio.get_running_loop())
        if self.started:
            settings = self.rooms.settings
            logging.getLogger("unokit.server").info(
                "listening", extra={"url": settings.base_url, "database": _safe_url(settings),
                                    "rooms": len(self.rooms.rooms)})
            print(_("unokit is serving the game: open {url} in a browser (Ctrl-C stops it)",
                    url=self.rooms.settings.base_url + "/"), flush=True)


def serve(settings: Settings) -> None:
    """Run the server until it is stopped."""
    setup_logging(settings.log_level)
    # The database writer thread hands the GIL back and forth at every call into the
    # database; with the default 5 ms switch interval each handover can wait that long
    # behind the event loop, which adds up to tens of milliseconds per commit under load.
    sys.setswitchinterval(SWITCH_INTERVAL)
    if settings.database_url.startswith("sqlite:///"):
        Path(settings.database_url.removeprefix("sqlite:///")).parent.mkdir(
            mode=0o700, parents=True, exist_ok=True)  # owner-only: docs/deploy.md
    rooms = Rooms(settings)
    app = create_app(settings, rooms)
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_config=None,
                            access_log=False, ws_ping_interval=20,
                            ws_ping_timeout=20, ws_per_message_deflate=False,
                            timeout_graceful_shutdown=10,
                            lifespan="on", **uvicorn_options(settings))
    server = _Server(config)
    server.rooms = rooms
    server.collections = Collections()
    server.run()


def _safe_url(settings: Settings) -> str:
    """The database URL without its password."""
    from sqlalchemy.engine import make_url
    return make_url(settings.database_url).render_as_string(hide_password=True)
