"""The server's garbage collection: a rare, logged pause instead of frequent random ones.

CPython frees most objects by reference counting; its cyclic collector finds the rest,
in three generations, whenever enough objects have been allocated. A busy server keeps
a great many objects alive (every connection's ASGI call chain, every room's game and
event log), and the collector scans the young ones again and again: measured at 1,000
rooms, 4,000 connections and 1,000 actions a second, young collections stopped every
room for up to 60 ms several times a second (p99 latency 50-80 ms), and with them off
the p99 was 20 ms. Cycles are rare in play itself: in steady play a collection found
nothing to free; connections being set up and torn down leave a few dozen each.

So ``unokit serve`` runs the collector itself (:class:`Collections`):

- CPython's automatic collections are off.
- Once a second the server looks at how many objects the collector tracks beyond the
  last collection; it collects the whole heap when :data:`SWEEP_AFTER` more have
  accumulated, or :data:`SWEEP_EVERY` seconds after the last collection, whichever
  comes first. That pause is the long one (about a second at 4,000 connections); each is
  logged with its length.

>>> import gc
>>> was = gc.isenabled()
>>> schedule = Collections()
>>> schedule.install()
>>> gc.isenabled()
False
>>> schedule.uninstall()
>>> gc.isenabled() == was
True
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

LOG = logging.getLogger("unokit.server")

CHECK_EVERY = 1.0
"""Seconds between looks at the number of objects tracked."""
SWEEP_EVERY = 3600.0
"""The most seconds between two collections."""
SWEEP_AFTER = 2_000_000
"""Tracked objects beyond those of the last collection that start the next one."""


class Collections:
    """The server's schedule of garbage collections (see the module docstring)."""

    def __init__(self, every: float = SWEEP_EVERY, after: int = SWEEP_AFTER,
                 check: float = CHECK_EVERY,
                 on_sweep: Callable[[int], None] | None = None) -> None:
        self.every = every
        self.after = after
        self.check = check
        self._was_enabled: bool | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._last = 0.0
        self.sweeps = 0
        """Collections run so far."""
        self.on_sweep = on_sweep
        """Called after each collection with the number of objects freed."""

    def install(self) -> None:
        """Turn CPython's automatic collections off."""
        if self._was_enabled is None:
            self._was_enabled = gc.isenabled()
            gc.disable()

    def uninstall(self) -> None:
        """Stop the schedule, and turn automatic collections back on if they were on."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._was_enabled is not None:
            if self._was_enabled:
                gc.enable()
            self._was_enabled = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Install, and run the schedule on ``loop``."""
        self.install()
        self._last = time.monotonic()
        self._handle = loop.call_later(self.check, self._tick, loop)

    def due(self) -> bool:
        """Whether a collection is due now."""
        return (time.monotonic() - self._last >= self.every
                or gc.get_count()[0] >= self.after)

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.due():
            self.sweep()
        self._handle = loop.call_later(self.check, self._tick, loop)

    def sweep(self) -> int:
        """Collect the whole heap now; the number of objects freed."""
        began = time.perf_counter()
        found = gc.collect()
        self.sweeps += 1
        self._last = time.monotonic()
        LOG.info("garbage collection", extra={
            "ms": round((time.perf_counter() - began) * 1000, 1), "collected": found})
        if self.on_sweep is not None:
            self.on_sweep(found)
        return found
