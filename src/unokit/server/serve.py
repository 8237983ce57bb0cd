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
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvicorn
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from unokit.i18n import _
from unokit.server.access import admin_token
from unokit.server.app import create_app
from unokit.server.cluster import Cluster
from unokit.server.collector import Collections
from unokit.server.handover import stop_rooms
from unokit.server.logs import JsonFormatter, setup_logging
from unokit.server.outage import FIRST_PAUSE, LONGEST_PAUSE
from unokit.server.rooms import Rooms
from unokit.server.settings import Settings
from unokit.server.transport import uvicorn_options
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
        await stop_rooms(self.rooms)  # the turn clocks noted, stored as the rooms close
        await asyncio.sleep(0)
        await super().shutdown(sockets)

    async def startup(self, sockets: list[Any] | None = None) -> None:
        # uvicorn opens the rooms (the lifespan: the database, waited for, and every
        # room restored) before it binds the port: "listening" means ready
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
            mode=0o700, parents=True, exist_ok=True)  # owner-only: docs/deploy.md
    log = logging.getLogger("unokit.server")
    try:
        _prepare(settings)
    except (SchemaError, OSError) as exc:
        log.error("cannot start: %s", exc)
        raise SystemExit(STARTUP_FAILURE) from None
    except SQLAlchemyError as exc:  # one line, without the URL (it may hold a password)
        log.error("cannot start: the database cannot be used: %s", type(exc).__name__)
        raise SystemExit(STARTUP_FAILURE) from None
    cluster = Cluster.of(settings)  # several processes share a Redis
    rooms = Rooms(settings, fanout=None if cluster is None else cluster.fanout)
    app = create_app(settings, rooms, cluster)
    server = _Server(uvicorn_config(settings, app))
    server.rooms = rooms
    server.collections = Collections()
    server.run()
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)


def uvicorn_config(settings: Settings, app: Any) -> uvicorn.Config:
    """uvicorn's settings for ``app``: our logs (not uvicorn's access lines), the
    WebSocket protocol, pings and limits (:func:`unokit.server.transport.uvicorn_options`),
    and ``X-Forwarded-*`` believed from ``forwarded_allow_ips`` only."""
    return uvicorn.Config(app, host=settings.host, port=settings.port, log_config=None,
                          access_log=False,
                          timeout_graceful_shutdown=10, proxy_headers=True,
                          forwarded_allow_ips=settings.forwarded_allow_ips, lifespan="on",
                          **uvicorn_options(settings))


def _prepare(settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
             clock: Callable[[], float] = time.monotonic) -> None:
    """Before the port opens: wait for the database (trying again after
    :data:`unokit.server.outage.FIRST_PAUSE`, doubling up to ``LONGEST_PAUSE``, for at
    most ``settings.db_wait`` seconds, 0: for ever; "waiting for the database" is logged
    once), then the schema as ``settings.migrate`` says (one clear line when it cannot be
    used), and the admin token file (owner-only) when no token is set.

    Raises:
        SchemaError: the schema cannot be used.
        OperationalError: the database did not answer within ``settings.db_wait``.
    """
    log = logging.getLogger("unokit.server")
    start, pause, waited = clock(), FIRST_PAUSE, False
    while True:
        engine = open_engine(settings.database_url,
                             connect_timeout=settings.db_connect_timeout,
                             statement_timeout=settings.db_statement_timeout)
        try:
            prepare_schema(engine, settings.migrate)
            break
        except OperationalError as exc:
            elapsed = clock() - start
            if settings.db_wait and elapsed >= settings.db_wait:
                raise
            if not waited:
                log.warning("waiting for the database", extra={"error": type(exc).__name__})
                waited = True
            sleep(min(pause, settings.db_wait - elapsed) if settings.db_wait else pause)
            pause = min(LONGEST_PAUSE, pause * 2)
        finally:
            engine.dispose()
    if waited:
        log.info("database ready", extra={"waited": round(clock() - start, 1)})
    admin_token(settings.admin_token, settings.data_dir)


def _safe_url(settings: Settings) -> str:
    """The database URL without its password."""
    from sqlalchemy.engine import make_url
    return make_url(settings.database_url).render_as_string(hide_password=True)
