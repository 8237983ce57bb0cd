"""The parts of a room: seats, held messages, the catch grace, and the room's errors.

>>> check_name("  Ann ", 0), check_name("", 2)
('Ann', 'Player 3')
>>> len(token_hash("secret"))
64
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Protocol

from unokit.engine.errors import UnoError
from unokit.i18n import DEFAULT, N_, render
from unokit.server.fanout import Subscriber
from unokit.store import SeatData
from unokit.store.erasure import default_name

EMPTY, HUMAN, BOT = "empty", "human", "bot"
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
        return default_name(seat)
    if len(name) > NAME_LIMIT or not name.isprintable():
        raise RoomError("bad_request", N_("a name is 1-{limit} printable characters"),
                        limit=NAME_LIMIT)
    return name


NEW_TOKEN_CHARACTERS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def check_new_token(token: str) -> str:
    """A seat token a client made for a seat it asks for (``Hello.new_token``): 22-64
    URL-safe characters (at least 128 bits when random).

    >>> check_new_token("Zq3" * 8)
    'Zq3Zq3Zq3Zq3Zq3Zq3Zq3Zq3'
    >>> check_new_token("short")
    Traceback (most recent call last):
    ...
    unokit.server.seating.RoomError: bad_request: a new seat token is 22-64 URL-safe characters

    Raises:
        RoomError: ``bad_request``, for a token too short, too long, or with other
            characters.
    """
    if not 22 <= len(token) <= 64 or not NEW_TOKEN_CHARACTERS.issuperset(token):
        raise RoomError("bad_request", N_("a new seat token is 22-64 URL-safe characters"))
    return token


def language(conn: object) -> str:
    """The language of a connection's error texts (English for none, or for a
    connection that names none)."""
    lang = getattr(conn, "lang", DEFAULT)
    return lang if isinstance(lang, str) and lang else DEFAULT


class RoomError(UnoError):
    """A message the room refuses: ``code`` (see :class:`protocol.Error`) and why:
    ``message`` in English (for the logs), and the ``template`` with its ``params`` to
    say it in the client's language (:meth:`text`).

    >>> err = RoomError("room_full", "seat {seat} is not free", seat=2)
    >>> err.message, err.text("ru")
    ('seat 2 is not free', 'место 2 занято')
    """

    def __init__(self, code: str, message: str, /, **params: object) -> None:
        self.code = code
        self.template = message
        self.params = params
        self.message = message.format(**params) if params else message
        super().__init__(f"{code}: {self.message}")

    def text(self, lang: str) -> str:
        """Why, in ``lang`` (English where the catalogue lacks the message)."""
        return render(lang, self.template, self.params)


class Connection(Subscriber, Protocol):
    """What a room needs of a client connection: its viewer, its language (of the error
    texts), a way to queue messages, and a way to close it (a structural type: the
    server's WebSocket connection is one, and so is any class with these)."""

    viewer: int
    lang: str = DEFAULT
    ack_in_events: bool = False
    """Whether the ack of this connection's game action may come inside the ``events``
    message of its events (the hello asked for it)."""

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
    occupant: int = 0
    """Who holds the seat: one more each time someone new takes it (answers are kept per
    occupant, so that a new holder never gets an earlier one's)."""
    player: int | None = None
    """The player (guest or account) of a person's seat, when they came with a session
    or an API token (docs/accounts.md)."""

    def data(self, seat: int) -> SeatData:
        """The stored form."""
        return SeatData(seat, self.kind, self.name, self.bot, self.token_hash, self.host,
                        self.occupant, self.player)


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
