"""The parts of a room: seats, held messages, the catch grace, and the room's errors.

>>> check_name("  Ann ", 0), check_name("", 2)
('Ann', 'Player 3')
>>> len(token_hash("secret"))
64
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from unokit.engine.errors import UnoError
from unokit.server.fanout import Subscriber
from unokit.store import SeatData

EMPTY, HUMAN, BOT = "empty", "human", "bot"
ANSWERS_KEPT = 4096
"""Answers to client action ids a room remembers (committed actions' acks are also
rebuilt from the database after a restart)."""
NAME_LIMIT = 32


def token_hash(token: str) -> str:
    """The stored form of a seat token."""
    return hashlib.sha256(token.encode()).hexdigest()


def check_name(name: str, seat: int) -> str:
    """A player's name: printable, 1-32 characters (``Player N`` when empty).

    Raises:
        RoomError: a name with control characters or too long.
    """
    name = name.strip()
    if not name:
        return f"Player {seat + 1}"
    if len(name) > NAME_LIMIT or not name.isprintable():
        raise RoomError("bad_request", f"a name is 1-{NAME_LIMIT} printable characters")
    return name


class RoomError(UnoError):
    """A message the room refuses: ``code`` (see :class:`protocol.Error`) and why."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


class Connection(Subscriber):
    """What a room needs of a client connection: its viewer, a way to queue messages,
    and a way to close it."""

    viewer: int

    def deliver(self, data: bytes) -> None:  # pragma: no cover - protocol
        """Queue ``data``."""
        raise NotImplementedError

    def close(self, data: bytes | None = None) -> None:  # pragma: no cover - protocol
        """Send ``data`` (if any) and close."""
        raise NotImplementedError


@dataclass
class Seat:
    """One seat of a room."""

    kind: str = EMPTY
    name: str = ""
    bot: str = ""
    token_hash: str = ""
    host: bool = False
    away: bool = False
    """Played by a bot until the player acts again."""
    timeouts: int = 0
    """Timeouts in a row."""

    def data(self, seat: int) -> SeatData:
        """The stored form."""
        return SeatData(seat, self.kind, self.name, self.bot, self.token_hash, self.host)


@dataclass
class Held:
    """A message waiting for the end of a catch grace."""

    conn: Connection | None
    msg_id: str | None
    seat: int
    action: int
    origin: str


@dataclass
class Grace:
    """A catch grace under way: ``target`` may still call until ``until``."""

    target: int
    until: float
    catches: list[Held] = field(default_factory=list)
    waiting: list[Held] = field(default_factory=list)
