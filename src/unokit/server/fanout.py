"""Fan-out: how a room's messages reach the connections that watch it.

A room publishes one encoded message per viewer (a seat number, or :data:`SPECTATORS`);
the fan-out hands each to every connection of that viewer. :class:`LocalFanOut` does it
within one process; another implementation (Redis, say) can spread rooms over several
server processes behind the same interface.

>>> class Conn:
...     def __init__(self, viewer): self.viewer, self.got = viewer, []
...     def deliver(self, data): self.got.append(data)
>>> hub = LocalFanOut()
>>> a, b = Conn(0), Conn(SPECTATORS)
>>> hub.join("ROOM", a); hub.join("ROOM", b)
>>> hub.publish("ROOM", {0: b"for seat 0", SPECTATORS: b"for watchers"})
>>> a.got, b.got
([b'for seat 0'], [b'for watchers'])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

SPECTATORS = -1
"""The viewer of everyone who watches without a seat."""


class Subscriber(Protocol):
    """A connection as the fan-out sees it."""

    viewer: int

    def deliver(self, data: bytes) -> None:
        """Queue ``data`` for sending; never blocks."""
        ...


class FanOut(Protocol):
    """The one interface rooms publish through."""

    def join(self, room: str, subscriber: Subscriber) -> None:
        """Start delivering ``room``'s messages for its viewer to ``subscriber``."""
        ...

    def leave(self, room: str, subscriber: Subscriber) -> None:
        """Stop delivering to ``subscriber``."""
        ...

    def publish(self, room: str, messages: Mapping[int, bytes]) -> None:
        """Deliver ``messages[viewer]`` to every subscriber of that viewer."""
        ...

    def viewers(self, room: str) -> dict[int, int]:
        """How many subscribers each viewer of ``room`` has."""
        ...


class LocalFanOut:
    """Fan-out within this process."""

    def __init__(self) -> None:
        self._rooms: dict[str, dict[int, set[Subscriber]]] = {}

    def join(self, room: str, subscriber: Subscriber) -> None:
        """See :class:`FanOut`."""
        self._rooms.setdefault(room, {}).setdefault(subscriber.viewer, set()).add(subscriber)

    def leave(self, room: str, subscriber: Subscriber) -> None:
        """See :class:`FanOut`."""
        viewers = self._rooms.get(room)
        if viewers is None:
            return
        group = viewers.get(subscriber.viewer)
        if group is not None:
            group.discard(subscriber)
            if not group:
                del viewers[subscriber.viewer]
        if not viewers:
            del self._rooms[room]

    def publish(self, room: str, messages: Mapping[int, bytes]) -> None:
        """See :class:`FanOut`."""
        viewers = self._rooms.get(room)
        if not viewers:
            return
        for viewer, group in list(viewers.items()):
            data = messages.get(viewer)
            if data is None:
                continue
            for subscriber in list(group):
                subscriber.deliver(data)

    def viewers(self, room: str) -> dict[int, int]:
        """See :class:`FanOut`."""
        return {viewer: len(group) for viewer, group in self._rooms.get(room, {}).items()}
