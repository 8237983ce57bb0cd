"""When a room's people were last seen, stored, and what it decides from that: a lobby
nobody comes back to is closed, a match everybody left is closed as abandoned.

The rule (docs/server.md, "Rooms"): only seated people count, not bots nor spectators.
While one of them is connected the room is *attended*. When the last one goes, the time
is noted (``last_seen``) and stored at the next sweep; while someone stays, it is stored
again at most every :data:`SEEN_EVERY` seconds, so that after a crash the stored time is
at most that old. Each room has its own interval, from half of that to all of it
(:func:`seen_every`), so that rooms made or brought back together do not all come due at
the same sweep; and the sweep stores the times of all the rooms due in one transaction
(:func:`unokit.store.lifecycle.set_last_seen_many`), so that the rooms' commits never
queue behind a write of each. Then, counting from ``last_seen``:

- a room in the lobby is closed after ``lobby_timeout`` seconds (status ``closed``);
- a match under way is closed as abandoned after ``abandon_after`` seconds (status
  ``abandoned``): no one can act in it any more, its server seed is revealed to whoever
  comes to look, and its record stays (``GET /api/rooms/CODE/record``) until the
  retention deletes it (``keep_finished``).

The clock is stored, not kept in memory: a restart neither resets nor forgets it (the
time the server was down counts too), and a room whose clock ran out while no process
served it is ended before the rooms are loaded (:func:`unokit.store.lifecycle.end_stale`),
so that it is not brought back. The clock is injectable (the room's
:class:`~unokit.server.room_clock.RoomClock`): tests move it instead of waiting.
"""

from __future__ import annotations

import logging

from unokit.i18n import N_
from unokit.server.room_base import RoomBase
from unokit.server.room_state import ENDED
from unokit.store import StoreError
from unokit.store.lifecycle import set_last_seen

__all__ = ["ABANDONED", "ENDED", "SEEN_EVERY", "Presence", "seen_every"]

LOG = logging.getLogger("unokit.room")

SEEN_EVERY = 60.0
"""Seconds between two stored ``last_seen`` of a room someone stays in (at most: what a
crash can take off the clock)."""


def seen_every(room_id: int) -> float:
    """Seconds between two stored ``last_seen`` of the room ``room_id`` while someone
    stays in it: from half of :data:`SEEN_EVERY` to all of it, spread by the room's id
    (a multiplicative hash), so that rooms made together do not store their times
    together.

    >>> [round(seen_every(room)) for room in range(1, 7)]
    [43, 55, 38, 51, 33, 46]
    >>> all(SEEN_EVERY / 2 <= seen_every(room) <= SEEN_EVERY for room in range(10_000))
    True
    """
    return SEEN_EVERY * (1 + (room_id * 2654435761 % 1024) / 1023) / 2


class Presence(RoomBase):
    """The stored presence clock of :class:`unokit.server.room.Room` (its fields are in
    the room's state: ``last_seen``, ``seen_stored``, ``attended``)."""

    def _note_presence(self, connected: bool) -> None:
        """Note whether a seated person is connected (after every message): when the
        last one goes, ``last_seen`` is now."""
        if connected:
            self.attended = True
        elif self.attended:
            self.attended = False
            self.last_seen = self.clock.wall()

    def seen_due(self, now: float) -> float | None:
        """The ``last_seen`` to store at ``now`` (by the room's wall clock), or ``None``
        if nothing is due: the time the last seated person went, not stored yet, or
        ``now`` while someone stays and the stored time is :func:`seen_every` old.
        Read by the sweep, which stores the due times of every room at once and then
        calls :meth:`seen_written`."""
        if self.status not in ("lobby", "playing") or self.closing:
            return None
        if not self.attended:
            return self.last_seen if self.last_seen > self.seen_stored else None
        return now if now - self.seen_stored >= seen_every(self.id) else None

    def seen_written(self, seen: float) -> None:
        """``seen`` was stored as the room's ``last_seen``."""
        self.seen_stored = max(self.seen_stored, seen)

    def idle_over(self, now: float) -> bool:
        """Whether nobody seated has been connected for long enough, at ``now``, for
        :meth:`_keep_time` to close the lobby or abandon the match."""
        if self.attended or self.closing:
            return False
        idle = now - self.last_seen
        return ((self.status == "lobby" and idle >= self.settings.lobby_timeout)
                or (self.status == "playing" and idle >= self.settings.abandon_after))

    async def _keep_time(self, now: float) -> None:
        """At ``now`` (by the room's wall clock): store ``last_seen`` if it is due (the
        sweep has stored it already, with every other room's), then close the lobby or
        abandon the match if nobody seated has been connected for long enough. Run by
        the sweep in the room's task; a refused write changes nothing and the next sweep
        tries again."""
        if self.status not in ("lobby", "playing") or self.closing:
            return
        try:
            seen = self.seen_due(now)
            if seen is not None:
                await set_last_seen(self.store, self.id, seen)
                self.seen_written(seen)
            if not self.idle_over(now):
                return
            if self.status == "lobby":
                await self._close_idle()
            else:
                await self._abandon()
        except StoreError as exc:
            LOG.warning("room clock not stored", extra={"room": self.code,
                                                        "error": str(exc)[:200]})

    async def _abandon(self) -> None:
        """Close the match as abandoned (stored first): nothing is due any more, and
        whoever watches gets the room and the reveal."""
        await self.store.set_status(self.id, "abandoned")
        self.status = "abandoned"
        self.finished_at = self.clock.monotonic()
        self.timer_due = self.bot_due = self.pause_due = None
        self.grace = None
        LOG.info("match abandoned", extra={"room": self.code,
                                           "idle": round(self.clock.wall() - self.last_seen)})
        data = self._reveal_message()
        self.fanout.publish(self.code, dict.fromkeys(self.fanout.viewers(self.code), data))
        self._broadcast_room()


ABANDONED = N_("the match was abandoned: no player was connected for too long")
"""What an action in an abandoned match is answered with."""
