"""The open-room list (``GET /api/rooms``), in pages and cheap to serve.

The list of public rooms in the lobby is built at most once per ``room_list_ttl``
seconds (and again after a room is created here), not at every request: the web lobby
polls it from every open browser. A page is a slice of it (``offset``, ``limit`` up to
``room_list_max``); each room of the page is checked again as it is served, so a room
that filled up or started meanwhile is left out.

>>> class Seat:
...     def __init__(self, kind): self.kind = kind
>>> class Rules:
...     def to_string(self): return "official"
>>> class Room:
...     def __init__(self, code, free):
...         self.code, self.public, self.status, self.turn_timer = code, True, "lobby", 0
...         self.rules, self.seats = Rules(), [Seat("human")] + [Seat("empty")] * free
>>> rooms = {c: Room(c, 1) for c in ("AAAAAA", "BBBBBB", "CCCCCC")}
>>> listing = OpenRoomList(lambda: rooms.values(), "http://uno.example", ttl=1.0,
...                       clock=lambda: 0.0)
>>> page, total = listing.page(0, 2)
>>> [r["code"] for r in page], total
(['CCCCCC', 'BBBBBB'], 3)
>>> rooms["AAAAAA"].status = "playing"
>>> listing.page(2, 2)
([], 3)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol


class _Seat(Protocol):
    kind: str


class _Rules(Protocol):
    def to_string(self) -> str: ...


class ListedRoom(Protocol):
    """What the list reads of a room."""

    code: str
    public: bool
    status: str
    turn_timer: int

    @property
    def rules(self) -> _Rules: ...

    @property
    def seats(self) -> list[Any]: ...


def _free(room: ListedRoom) -> int:
    return [seat.kind for seat in room.seats].count("empty")


def _is_open(room: ListedRoom) -> bool:
    return room.public and room.status == "lobby" and _free(room) > 0


class OpenRoomList:
    """The open rooms, newest first, rebuilt at most once per ``ttl`` seconds."""

    def __init__(self, rooms: Callable[[], Iterable[ListedRoom]], base_url: str, *,
                 ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._rooms = rooms
        self._base = base_url
        self.ttl = ttl
        self.clock = clock
        self._built_at: float | None = None
        self._entries: list[tuple[ListedRoom, dict[str, Any]]] = []
        self._rules: dict[str, str] = {}
        """Each listed room's rule string (writing one out takes a fraction of a
        millisecond, too long to do for thousands of rooms at every build)."""
        self.builds = 0
        """How many times the list was built (for tests and metrics)."""

    def invalidate(self) -> None:
        """Build the list again at the next request (a room was created)."""
        self._built_at = None

    def _snapshot(self) -> list[tuple[ListedRoom, dict[str, Any]]]:
        now = self.clock()
        if self._built_at is None or now - self._built_at >= self.ttl or self.ttl <= 0:
            listed = [room for room in reversed(list(self._rooms())) if _is_open(room)]
            known = self._rules
            self._rules = {room.code: known.get(room.code) or room.rules.to_string()
                           for room in listed}
            self._entries = [
                (room, {"code": room.code, "rules": self._rules[room.code],
                        "seats": len(room.seats), "free": 0, "turn_timer": room.turn_timer,
                        "invite": f"{self._base}/r/{room.code}"})
                for room in listed]
            self._built_at = self.clock()  # the time to the next build counts from now
            self.builds += 1
        return self._entries

    def page(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """The open rooms from ``offset`` on, at most ``limit`` of them, and how many
        the whole list holds (when it was built)."""
        entries = self._snapshot()
        out = []
        for room, entry in entries[offset:offset + limit]:
            if _is_open(room):
                out.append({**entry, "free": _free(room)})
        return out, len(entries)

    async def read(self, offset: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """:meth:`page`, for the request handler (a list of several processes reads
        the database first: :class:`unokit.server.cluster_views.SharedRoomList`)."""
        return self.page(offset, limit)
