"""Handing rooms over when a process stops cleanly (SIGTERM, a rolling restart), so
that a deploy costs the players nothing.

The rooms stop (each finishes the message it handles and tells its connections to
reconnect, :meth:`unokit.server.room.Room.stop`), their turn clocks are stored
(:mod:`unokit.store.turn_clocks`), and the store releases the leases as it closes, so
that another process takes every room at its next lease tick or at the first hello for
it, without waiting for a lease to run out. The process that takes a room over counts
the turn under way on from the seconds it had used (:func:`resume_turn_clock`), not
from the room's last action: the time the room spent between two processes is charged
to nobody.

>>> from types import SimpleNamespace as NS
>>> from unokit.server.room_clock import RoomClock
>>> room = NS(id=3, status="playing", turn_timer=30, timer_due=112.0, timer_seat=1,
...           game=NS(history=[1, 2]), clock=RoomClock(monotonic=lambda: 100.0),
...           settings=NS(timer_scale=1.0))
>>> turn_clock(room)
TurnClock(actions=2, used=18.0)
>>> room.clock = RoomClock(wall=lambda: 5000.0)
>>> resume_turn_clock(room, TurnClock(actions=2, used=18.0)), room.last_commit
(True, 4982.0)
>>> resume_turn_clock(room, TurnClock(actions=1, used=3.0))  # the match moved on
False
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from unokit.store import StoreError
from unokit.store.turn_clocks import TurnClock, save

if TYPE_CHECKING:
    from unokit.server.rooms import Rooms

LOG = logging.getLogger("unokit.rooms")


def turn_clock(room: Any) -> TurnClock | None:
    """The turn clock of ``room`` (a :class:`unokit.server.room.Room`) while its turn
    timer runs: its number of actions and the seconds of the turn used; ``None`` when no
    timer runs."""
    game = room.game
    if (room.status != "playing" or game is None or not room.turn_timer
            or room.timer_due is None or room.timer_seat < 0):
        return None
    left = (room.timer_due - room.clock.monotonic()) / room.settings.timer_scale
    used = min(float(room.turn_timer), max(0.0, room.turn_timer - left))
    return TurnClock(actions=len(game.history), used=used)


def resume_turn_clock(room: Any, clock: TurnClock | None) -> bool:
    """Count the turn of ``room`` (just restored, not started) on from ``clock``, if it
    is the turn under way (the match has as many actions as when it was stored):
    whether it was."""
    game = room.game
    if clock is None or game is None or len(game.history) != clock.actions:
        return False
    # the timer counts the turn from the room's last commit (wall time): put that as
    # many seconds back as were used, however long the room was between processes
    room.last_commit = room.clock.wall() - clock.used
    return True


async def stop_rooms(rooms: Rooms) -> None:
    """Note the turn clocks under way (:attr:`Rooms.turn_clocks`), then stop every
    room of ``rooms``."""
    for room in list(rooms.rooms.values()):
        clock = turn_clock(room)
        if clock is not None:  # noted once: a second stop would count the stop's time
            rooms.turn_clocks.setdefault(room.id, clock)
    for room in list(rooms.rooms.values()):
        await room.stop()


async def save_turn_clocks(rooms: Rooms) -> None:
    """Store the turn clocks noted by :func:`stop_rooms` (the rooms have stopped; the
    leases are still held, and released next)."""
    clocks, rooms.turn_clocks = rooms.turn_clocks, {}
    if rooms.store is None or not clocks:
        return
    try:
        kept = await save(rooms.store, clocks)
    except StoreError as exc:  # not stored: the next process counts from the last action
        LOG.warning("turn clocks not handed over", extra={"error": str(exc)[:200]})
        return
    LOG.info("turn clocks handed over", extra={"rooms": kept})
