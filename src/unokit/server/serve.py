"""Running the server: uvicorn, structured logs, and a graceful shutdown.

On SIGTERM or Ctrl-C the server stops taking messages, lets every room finish the one
it is handling (its database write included), tells every client to reconnect
(:class:`unokit.server.protocol.Bye`), closes the connections, and closes the database
once every write handed to it is committed.

Before the port opens, the schema is migrated or checked (the setting ``migrate``) and
the rooms are brought back; only then is ``listening`` logged. The logs are
:mod:`unokit.server.logs`'s.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import uvicorn
from sqlalchemy.exc import SQLAlchemyError

from unokit.i18n import _
from unokit.server.access import admin_token
from unokit.server.app import create_app
from unokit.server.collector import Collections
from unokit.server.logs import JsonFormatter, setup_logging
from unokit.server.rooms import Rooms
from unokit.server.settings import Settings
from unokit.store.db import SchemaError, open_engine, prepare_schema

__all__ = ["JsonFormatter", "serve", "setup_logging"]

STARTUP_FAILURE = 3
"""The exit status of a server that could not start (uvicorn's too)."""

SWITCH_INTERVAL = 0.0005
"""Seconds between the interpreter's thread switches in the server (Python's default is
0.005)."""

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
        await super().startup(sockets)
        self.collections.start(asyncio.get_running_loop())
        if self.started:  # the database is open, the rooms are back, the port is bound
            settings = self.rooms.settings
            logging.getLogger("unokit.server").info(
                "listening", extra={"url": settings.base_url, "database": _safe_url(settings),
                                    "rooms": len(self.rooms.rooms)})
            print(_("unokit is serving the game: open {url} in a browser (Ctrl-C stops it)",
                    url=self.rooms.settings.base_url + "/"), flush=True)


def serve(settings: Settings) -> None:
    """Run the server until it is stopped."""
    setup_logging(settings.log_level, settings.log_format, access_log=settings.access_log)
    # The database writer thread hands the GIL back and forth at every call into the
    # database; with the default 5 ms switch interval each handover can wait that long
    # behind the event loop, which adds up to tens of milliseconds per commit under load.
    sys.setswitchinterval(SWITCH_INTERVAL)
    if settings.database_url.startswith("sqlite:///"):
        Path(settings.database_url.removeprefix("sqlite:///")).parent.mkdir(
            parents=True, exist_ok=True)
    log = logging.getLogger("unokit.server")
    try:
        _prepare(settings)
    except (SchemaError, OSError) as exc:
        log.error("cannot start: %s", exc)
        raise SystemExit(STARTUP_FAILURE) from None
    except SQLAlchemyError as exc:  # one line, without the URL (it may hold a password)
        log.error("cannot start: the database cannot be used: %s", type(exc).__name__)
        raise SystemExit(STARTUP_FAILURE) from None
    rooms = Rooms(settings)
    app = create_app(settings, rooms)
    server = _Server(uvicorn_config(settings, app))
    server.rooms = rooms
    server.collections = Collections()
    server.run()
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)


def uvicorn_config(settings: Settings, app: Any) -> uvicorn.Config:
    """uvicorn's settings for ``app``: our logs (not uvicorn's access lines), the
    WebSocket limits, and ``X-Forwarded-*`` believed from ``forwarded_allow_ips`` only."""
    return uvicorn.Config(app, host=settings.host, port=settings.port, log_config=None,
                          access_log=False, ws_max_size=64 * 1024, ws_ping_interval=20,
                          ws_ping_timeout=20, ws_per_message_deflate=False,
                          timeout_graceful_shutdown=10, proxy_headers=True,
                          forwarded_allow_ips=settings.forwarded_allow_ips, lifespan="on")


def _prepare(settings: Settings) -> None:
    """Before the port opens: the schema as ``settings.migrate`` says (one clear line
    when it cannot be used), and the admin token file (owner-only) when no token is
    set."""
    engine = open_engine(settings.database_url)
    try:
        prepare_schema(engine, settings.migrate)
    finally:
        engine.dispose()
    admin_token(settings.admin_token, settings.data_dir)


def _safe_url(settings: Settings) -> str:
    """The database URL without its password."""
    from sqlalchemy.engine import make_url
    return make_url(settings.database_url).render_as_string(hide_password=True)
