"""The server's garbage collection: no long pause in the middle of play.

CPython frees most objects by reference counting; its cyclic collector finds the rest,
in three generations. The young two are cheap (they scan only recent objects). A full
collection scans every tracked object, and CPython starts one whenever enough objects
have lived into the oldest generation. A server with thousands of connections tracks
about a million objects (each connection's ASGI call chain, each room's game and event
log), and a full collection of them stops every room for hundreds of milliseconds: a
player would see the table freeze.

So the server runs full collections itself, on a schedule (:data:`FULL_EVERY`), and
never because of an allocation count. The young generations keep their defaults.
Cyclic garbage that reaches the oldest generation waits for the next scheduled
collection: at most that many minutes of it.

>>> import gc
>>> before = gc.get_threshold()
>>> schedule = FullCollections(every=600.0)
>>> schedule.install()
>>> gc.get_threshold()[2] == NEVER
True
>>> schedule.uninstall()
>>> gc.get_threshold() == before
True
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

LOG = logging.getLogger("unokit.server")

FULL_EVERY = 600.0
"""Seconds between the server's full collections."""
NEVER = 2**31 - 1
"""A third threshold no count of young collections reaches."""


class FullCollections:
    """Full collections every ``every`` seconds, from the event loop, and none else."""

    def __init__(self, every: float = FULL_EVERY) -> None:
        self.every = every
        self._saved: tuple[int, int, int] | None = None
        self._handle: asyncio.TimerHandle | None = None
        self.runs = 0
        """Full collections run so far."""

    def install(self) -> None:
        """Stop CPython's own full collections (the young ones stay as they are)."""
        if self._saved is None:
            self._saved = gc.get_threshold()
            gc.set_threshold(self._saved[0], self._saved[1], NEVER)

    def uninstall(self) -> None:
        """Put the thresholds back and stop the schedule."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Install, and run a full collection every :attr:`every` seconds on ``loop``."""
        self.install()
        self._handle = loop.call_later(self.every, self._collect, loop)

    def _collect(self, loop: asyncio.AbstractEventLoop) -> None:
        began = time.perf_counter()
        found = gc.collect()
        self.runs += 1
        LOG.info("full garbage collection", extra={
            "ms": round((time.perf_counter() - began) * 1000, 1), "collected": found})
        self._handle = loop.call_later(self.every, self._collect, loop)
