"""What a room's inbox holds: one small frozen dataclass per kind of item, handled one at
a time by the room's task (:meth:`unokit.server.room.Room.submit` queues them).

>>> isinstance(Due(), Item), Stop() == Stop()
(True, True)
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from unokit.server import protocol as P
from unokit.server.bot_pool import Decision
from unokit.server.room_state import Thinking
from unokit.server.seating import Connection

if TYPE_CHECKING:  # the room runs the job: a type only, the room imports this module
    from unokit.server.room import Room


@dataclass(frozen=True, slots=True)
class Hello:
    """A connection's first message: it joins, takes back its seat, or watches."""

    conn: Connection
    hello: P.Hello


@dataclass(frozen=True, slots=True)
class Message:
    """A message of a welcomed connection."""

    conn: Connection
    message: P.ClientMessage


@dataclass(frozen=True, slots=True)
class Gone:
    """A connection closed."""

    conn: Connection


@dataclass(frozen=True, slots=True)
class Call:
    """Code to run in the room's task (:meth:`unokit.server.room.Room.call`); ``done`` is
    set when it has run, or when the room let it go."""

    done: asyncio.Future[None]
    job: Callable[[Room], Awaitable[None]]

    def let_go(self) -> None:
        """Tell the caller the job will not run."""
        if not self.done.done():
            self.done.set_result(None)


@dataclass(frozen=True, slots=True)
class BotDecided:
    """A bot decision came back from the pool."""

    thinking: Thinking
    decision: Decision


@dataclass(frozen=True, slots=True)
class CheckLease:
    """Check, between two messages, that this process still holds the room's lease."""


@dataclass(frozen=True, slots=True)
class Due:
    """The time of the room's next timer came (made by the task, never queued)."""


@dataclass(frozen=True, slots=True)
class Stop:
    """Stop the room's task after the message being handled."""


Item = Hello | Message | Gone | Call | BotDecided | CheckLease | Due | Stop
"""An item of a room's inbox."""


def message_id(item: Item) -> str | None:
    """The client id of a message item (``None``: another kind, or no id)."""
    if isinstance(item, Message):
        msg_id = getattr(item.message, "id", None)
        return msg_id if isinstance(msg_id, str) else None
    return None


class Inbox:
    """A room's queue of items, for one consumer (the room's task): what
    ``asyncio.Queue`` does for it, with less work per item, and with a timeout of
    its own in :meth:`get` (no task made per wait, as ``asyncio.wait_for`` makes).
    An item is never lost: it stays in the queue until :meth:`get` or
    :meth:`get_nowait` takes it, whatever happens to a wait.

    >>> async def demo():
    ...     inbox = Inbox()
    ...     inbox.put_nowait(Stop())
    ...     first = await inbox.get()
    ...     try:
    ...         await inbox.get(timeout=0.01)
    ...     except TimeoutError:
    ...         return first, inbox.empty()
    >>> asyncio.run(demo())
    (Stop(), True)
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: collections.deque[Item] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Item) -> None:
        """Queue ``item`` (and wake the task that waits for one)."""
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def empty(self) -> bool:
        """Whether no item waits."""
        return not self._items

    def get_nowait(self) -> Item:
        """The first item (the inbox must not be empty).

        Raises:
            IndexError: it was.
        """
        return self._items.popleft()

    async def get(self, timeout: float | None = None) -> Item:
        """The first item, once there is one.

        Raises:
            TimeoutError: none came within ``timeout`` seconds (if given).
        """
        if self._items:
            return self._items.popleft()
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = (None if timeout is None else
                 loop.call_later(timeout, _wake, waiter))
        try:
            await waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()
        if not self._items:
            raise TimeoutError
        return self._items.popleft()


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
