"""The one clock of a room: wall time for what is stored or shown as a date, monotonic
time for its timers and deadlines. :class:`unokit.server.rooms.Rooms` gives every room
one (its wall clock is ``Rooms.clock``); tests give their own instead of waiting.

>>> clock = RoomClock(wall=lambda: 1_000.0, monotonic=lambda: 5.0)
>>> clock.wall(), clock.monotonic()
(1000.0, 5.0)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class RoomClock:
    """A room's two clocks."""

    wall: Callable[[], float] = time.time
    """Seconds since the epoch: stored times (actions, chat lines, ``last_seen``)."""
    monotonic: Callable[[], float] = time.monotonic
    """Seconds that never go back: the room's timers, deadlines and rate counts (the
    event loop's clock by default, which the room's task waits on)."""


SYSTEM_CLOCK = RoomClock()
"""The machine's clocks."""
