"""When the database is away: what clients are told, and how the server waits for it.

During an outage nothing is kept, so nothing may be acknowledged: an action is answered
``not_stored`` and a hello or an HTTP request that needs the database ``unavailable``
(HTTP 503), each with ``retry_after`` (:data:`RETRY_AFTER` seconds), in the client's
language. Clients send the same message again (with the same id) after that long.

At start the server opens the database with :func:`open_store`, which tries again with
a growing pause until the database answers, logging "waiting for the database" once and
"database ready" when it does.

>>> import asyncio
>>> from unokit.server.settings import Settings
>>> async def demo():
...     store = await open_store(Settings(database_url="sqlite://"))
...     ok = await store.ping()
...     await store.close()
...     return ok
>>> asyncio.run(demo())
True
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from unokit.i18n import N_
from unokit.server.seating import RoomError
from unokit.server.settings import Settings
from unokit.store import Store, StoreConflict, StoreError
from unokit.store.db import SchemaError
from unokit.store.leases import Clock

LOG = logging.getLogger("unokit.server")
T = TypeVar("T")

RETRY_AFTER = 1.0
"""Seconds a client waits before it sends a message refused for an outage again."""
RETRY_CODES = frozenset({"not_stored", "unavailable", "closing"})
"""The error codes that come with ``retry_after``: nothing was kept, send it again."""
NOT_STORED = N_("the database did not keep this, so nothing changed: it is sent again "
                "in a moment")
"""What a player is told when their action (or command, or chat line) was not kept."""
UNAVAILABLE = N_("the database is not answering: try again in a moment")
"""What a hello or an HTTP request is told when the database does not answer."""

FIRST_PAUSE = 0.25
"""Seconds :func:`open_store` waits after its first failed try (doubled after each)."""
LONGEST_PAUSE = 5.0
"""The longest pause between two tries of :func:`open_store`."""


def unavailable() -> RoomError:
    """The error of a request that needs the database while it does not answer."""
    return RoomError("unavailable", UNAVAILABLE)


async def reading(settings: Settings, read: Awaitable[T]) -> T:
    """Await ``read`` (a query that changes nothing), bounded by the database's connect
    and statement timeouts.

    Raises:
        RoomError: ``unavailable``, the database failed or took too long.
    """
    bound = settings.db_connect_timeout + settings.db_statement_timeout
    try:
        return await asyncio.wait_for(read, bound)
    except (StoreError, TimeoutError):
        raise unavailable() from None


async def writing(settings: Settings, write: Awaitable[T]) -> T:
    """Await ``write`` (a new room, say), bounded as :func:`reading`: a request is
    answered within the bound even if the database hangs (the write may still land;
    nothing refers to it then).

    Raises:
        StoreConflict: a unique key was taken (try again with another).
        RoomError: ``unavailable``, the database failed or took too long.
    """
    bound = settings.db_connect_timeout + settings.db_statement_timeout
    try:
        return await asyncio.wait_for(write, bound)
    except StoreConflict:
        raise
    except (StoreError, TimeoutError):
        raise unavailable() from None


async def open_store(settings: Settings, *,
                     sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                     clock: Callable[[], float] = time.monotonic,
                     lease_clock: Clock | None = None) -> Store:
    """The store of ``settings``, once the database answers (migrated): tries again
    after :data:`FIRST_PAUSE`, doubling up to :data:`LONGEST_PAUSE`, for at most
    ``settings.db_wait`` seconds (0: for ever). Opening runs in a thread: the event loop
    stays free. ``lease_clock``: the clock of the rooms' leases (the database's
    otherwise).

    Raises:
        StoreError: the database did not answer within ``settings.db_wait``.
    """
    start = clock()
    pause = FIRST_PAUSE
    waited = False
    while True:
        try:
            store = await asyncio.to_thread(
                Store, settings.database_url, connect_timeout=settings.db_connect_timeout,
                statement_timeout=settings.db_statement_timeout, lease=settings.lease,
                lease_clock=lease_clock, schema=settings.migrate)
        except SchemaError:  # no wait mends a schema: the operator must
            raise
        except Exception as exc:
            elapsed = clock() - start
            if settings.db_wait and elapsed >= settings.db_wait:
                LOG.error("the database did not answer", extra={
                    "error": type(exc).__name__, "waited": round(elapsed, 1)})
                raise StoreError(f"the database did not answer within {settings.db_wait:g} "
                                 f"s: {type(exc).__name__}") from exc
            if not waited:
                LOG.warning("waiting for the database", extra={"error": type(exc).__name__})
                waited = True
            await sleep(min(pause, settings.db_wait - elapsed) if settings.db_wait else pause)
            pause = min(LONGEST_PAUSE, pause * 2)
            continue
        LOG.info("database ready", extra={"waited": round(clock() - start, 1)})
        return store
