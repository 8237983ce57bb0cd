"""One owner per room, for the rooms of a process: claiming them at start, renewing
their leases, letting go of the rooms another process took over, and taking over the
rooms whose lease ran out.

Every room has a lease in the database (:mod:`unokit.store.leases`). A process serves
only the rooms it holds:

- at start it brings back the rooms whose lease is free (released by a process that
  stopped cleanly), ran out, or belongs to a process of this machine that is gone (one
  killed with SIGKILL): the rooms of another live process stay where they are;
- every ``lease_renew`` seconds (:meth:`Ownership.tick`) it renews its leases, drops the
  rooms it found lost, and takes over the rooms in the lobby or in play whose lease ran
  out (their bots and timers need a process to drive them);
- a ``hello`` for a room in the lobby or in play that it does not hold takes the room
  over if its lease is free or ran out (:meth:`Ownership.adopt`), and is refused with
  ``elsewhere`` if another live process holds it;
- a room whose write is refused (:class:`unokit.store.LeaseLost`) stops serving: its
  connections are told to reconnect, and it leaves this process's memory.

>>> import asyncio
>>> from unokit.server.rooms import Rooms
>>> from unokit.server.settings import Settings
>>> async def demo():
...     rooms = Rooms(Settings(database_url="sqlite://", bot_delay=0))
...     await rooms.open()
...     room = await rooms.create("official,players=2")
...     lost = await rooms.store.renew_leases()  # what a tick does first
...     await rooms.close()
...     return rooms.store.holds(room.id), lost
>>> asyncio.run(demo())
(False, [])
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from unokit.engine.errors import UnoError
from unokit.i18n import N_
from unokit.server.handover import resume_turn_clock
from unokit.server.room import Room
from unokit.server.seating import RoomError
from unokit.store import StoreError
from unokit.store.turn_clocks import take as take_turn_clocks

if TYPE_CHECKING:
    from unokit.server.rooms import Rooms

LOG = logging.getLogger("unokit.rooms")

ELSEWHERE = N_("another server process serves this room now: try again in a few seconds "
               "(or at the address that serves it)")


class Elsewhere(RoomError):
    """``elsewhere``: another live process holds the room. ``retry_after``: the seconds
    to wait before the next hello, the lease's length (:attr:`Settings.lease`): if that
    process is gone, its lease has run out by then and the room can be taken over.

    >>> err = Elsewhere(15.0)
    >>> err.code, err.retry_after
    ('elsewhere', 15.0)
    """

    def __init__(self, retry_after: float) -> None:
        super().__init__("elsewhere", ELSEWHERE)
        self.retry_after = retry_after


class Ownership:
    """The leases of the rooms of one :class:`unokit.server.rooms.Rooms`."""

    def __init__(self, rooms: Rooms) -> None:
        self.rooms = rooms
        self.adopted = 0
        """Rooms this process took over after the process that held them was gone."""
        self.lost = 0
        """Rooms another process took over from this one."""
        self.elsewhere = 0
        """Live rooms another process held when this one started."""
        self._adopting = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._releases: set[asyncio.Task[None]] = set()

    async def restore(self, finished_since: float) -> None:
        """At start: claim and bring back every room in the lobby or in play (and every
        one finished at or after ``finished_since``) that no live process holds."""
        store = self.rooms.store
        assert store is not None
        async with self._adopting:
            claimed, self.elsewhere = await store.claim_rooms(finished_since=finished_since)
            self.rooms.restored += len(await self._bring_back(claimed))

    def start(self) -> None:
        """Start renewing this process's leases every ``lease_renew`` seconds."""
        self._task = asyncio.create_task(self._forever(), name="room-leases")

    async def stop(self) -> None:
        """Stop renewing (the store releases the leases as it closes)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for task in list(self._releases):
            with contextlib.suppress(Exception):
                await task

    async def _forever(self) -> None:
        while True:
            await asyncio.sleep(self.rooms.settings.lease_renew)
            try:
                await self.tick()
            except StoreError as exc:  # the database is away: try again next time
                LOG.warning("leases not renewed", extra={"error": str(exc)[:200]})
            except Exception:  # pragma: no cover - a tick never stops the next one
                LOG.exception("lease renewal failed")

    async def tick(self) -> None:
        """Renew this process's leases, drop the rooms found lost, and take over the
        rooms in the lobby or in play whose lease ran out."""
        store = self.rooms.store
        assert store is not None
        lost = set(await store.renew_leases())
        if lost:
            for room in [r for r in self.rooms.rooms.values() if r.id in lost]:
                if room.task is None or room.task.done():
                    self.rooms.forget(room)
                else:
                    room.check_lease()  # the room sees it lost its lease and goes
        async with self._adopting:
            claimed, _ = await store.claim_rooms()
            back = await self._bring_back(claimed)
        if back:
            self.adopted += len(back)
            LOG.info("rooms taken over", extra={"rooms": len(back)})

    async def adopt(self, code: str) -> Room | None:
        """The room ``code`` taken over for a hello, if no live process holds it and it
        is in the lobby or in play; ``None`` if it is neither (a finished match is
        served where it ended, or by a process that starts while it is recent).

        Raises:
            Elsewhere: another live process holds it.
        """
        store = self.rooms.store
        assert store is not None
        async with self._adopting:
            here = self.rooms.rooms.get(code)
            if here is not None:
                return here
            claimed, busy = await store.claim_rooms(code=code)
            if busy:
                raise Elsewhere(self.rooms.settings.lease)
            back = await self._bring_back(claimed)
        if not back:
            return None
        self.adopted += 1
        LOG.info("room taken over", extra={"room": code})
        return back[0]

    async def _bring_back(self, claimed: list[int]) -> list[Room]:
        """Rebuild and start the rooms just claimed. A room that cannot come back stays
        held (so that no process tries it again and again) and is named in
        ``Rooms.broken``."""
        store = self.rooms.store
        assert store is not None
        if not claimed:
            return []
        back = []
        clocks = await take_turn_clocks(store, claimed)
        for stored in await store.load_rooms(ids=claimed):
            if stored.code in self.rooms.rooms:  # pragma: no cover - claims skip ours
                continue
            try:
                room = Room.restore(stored, store=store, fanout=self.rooms.fanout,
                                    settings=self.rooms.settings,
                                    clock=self.rooms.room_clock())
            except (UnoError, ValueError) as exc:
                LOG.error("room could not be restored", extra={"room": stored.code,
                                                               "error": str(exc)[:200]})
                self.rooms.broken.append(stored.code)
                continue
            resume_turn_clock(room, clocks.get(room.id))  # handed over: none charged
            self.rooms.add(room)
            back.append(room)
        return back

    def room_lost(self, room: Room) -> None:
        """``room`` found that another process owns it now and left."""
        self.lost += 1
        self.rooms.forget(room)

    def release(self, room: Room) -> None:
        """Release the lease of ``room``, which this process let go of (closed, or a
        finished match that left memory), without waiting."""
        store = self.rooms.store
        if store is None or not store.holds(room.id):
            return

        async def release() -> None:
            with contextlib.suppress(StoreError):  # not released: the lease runs out
                await store.release_rooms([room.id])
        task = asyncio.create_task(release())
        self._releases.add(task)
        task.add_done_callback(self._releases.discard)

