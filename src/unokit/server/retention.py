"""Retention: the rows of rooms over for long enough are deleted, by a periodic sweep.

- A match that is over (``finished``, ``abandoned``, or ``closed`` after it started) is
  kept ``keep_finished`` days after it ended (90 by default), its record with it;
- a lobby closed before its match started is kept ``keep_lobbies`` days (1 by default);
- a guest not seen for a day more than ``session_days`` (whose sessions all ran out: no
  one can be them again) is deleted with all that was theirs (docs/accounts.md);
- the challenge progress of periods that ended ``keep_finished`` days ago goes too
  (the rewards paid stay).

0 keeps them for ever. The sweep runs :data:`RETAIN_FIRST` seconds after the start and
then every :data:`RETAIN_EVERY` seconds, as a task of its own beside the rooms. It deletes
in transactions of at most :data:`unokit.store.lifecycle.DELETE_BATCH` rooms each, which
go through the store's writer between the rooms' own writes, and never touches a room the
process holds in memory.

>>> import asyncio
>>> from unokit.server.rooms import Rooms
>>> from unokit.server.settings import Settings
>>> async def demo():
...     rooms = Rooms(Settings(database_url="sqlite://", keep_finished=0, keep_lobbies=0))
...     await rooms.open()
...     deleted = await rooms.retainer.run()
...     await rooms.close()
...     return deleted
>>> asyncio.run(demo())
0
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from sqlalchemy import Connection

from unokit.store import Store, boards
from unokit.store.accounts import delete_lost_guests
from unokit.store.challenges import prune_progress
from unokit.store.lifecycle import DELETE_BATCH, Retention, delete_ended, in_batches

if TYPE_CHECKING:
    from unokit.server.rooms import Rooms

LOG = logging.getLogger("unokit.rooms")

DAY = 86400.0
RETAIN_FIRST = 60.0
"""Seconds after the start before the first retention sweep (the start stays quick)."""
RETAIN_EVERY = 3600.0
"""Seconds between two retention sweeps."""


class Retainer:
    """The retention sweep of a process's :class:`~unokit.server.rooms.Rooms`."""

    def __init__(self, rooms: Rooms, *, batch: int = DELETE_BATCH) -> None:
        self.rooms = rooms
        self.batch = batch
        """The most rooms one deleting transaction takes."""
        self.deleted = 0
        """Rooms this process deleted."""
        self._task: asyncio.Task[None] | None = None

    def retention(self, now: float) -> Retention:
        """What the settings say to delete at ``now`` (seconds since the epoch)."""
        settings = self.rooms.settings
        return Retention(
            finished_before=(now - settings.keep_finished * DAY
                             if settings.keep_finished else None),
            closed_before=(now - settings.keep_lobbies * DAY
                           if settings.keep_lobbies else None),
            keep=frozenset(room.id for room in self.rooms.rooms.values()))

    async def run(self, now: float | None = None) -> int:
        """Delete what is due at ``now`` (the rooms' clock by default); the number of
        rooms deleted."""
        store = self.rooms.store
        if store is None:
            return 0
        now = self.rooms.clock() if now is None else now
        guests = await delete_lost_guests(
            store, now - (self.rooms.settings.session_days + 1) * DAY)
        if guests:
            LOG.info("lost guests deleted", extra={"guests": guests})
        await expire_boards(store, now)
        retention = self.retention(now)
        if retention.finished_before is not None:  # progress lives as long as matches
            await prune_progress(store, retention.finished_before, batch=self.batch)
        if retention.finished_before is None and retention.closed_before is None:
            return 0
        deleted = await delete_ended(store, retention, batch=self.batch)
        self.deleted += deleted
        if deleted:
            LOG.info("old rooms deleted", extra={"rooms": deleted})
        return deleted

    def start(self) -> None:
        """Start the periodic sweep."""
        self._task = asyncio.create_task(self._forever(), name="retention")

    async def stop(self) -> None:
        """Stop the periodic sweep (a batch being deleted is committed or not, whole)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _forever(self) -> None:
        await asyncio.sleep(RETAIN_FIRST)
        while True:
            try:
                await self.run()
            except Exception:  # the database may be away: the next sweep tries again
                LOG.warning("retention sweep failed", exc_info=True)
            await asyncio.sleep(RETAIN_EVERY)


async def expire_boards(store: Store, now: float) -> int:
    """Take off the leaderboards every player whose last 7 days no longer qualify
    (:func:`unokit.store.boards.expire`, a bounded batch per transaction); how many."""
    def write(connection: Connection) -> int:
        return boards.expire(connection, now, store.rating_policy)
    return await in_batches(store, write, boards.EXPIRE_BATCH)
