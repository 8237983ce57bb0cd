"""Driving a real :class:`unokit.server.room.Room` over a real :class:`Store` without a
network or a room task: each message is handled to its end (committed, answered) before
the call returns, so tests need no waiting at all.

>>> conn = Conn(1)
>>> conn.deliver(b'{"type":"ack","id":"a","seq":3}')
>>> conn.answers("a")
[b'{"type":"ack","id":"a","seq":3}']
"""

from __future__ import annotations

from typing import Any

import msgspec
from sqlalchemy import text

from unokit.engine.rules import Rules
from unokit.server import inbox
from unokit.server import protocol as P
from unokit.server.fanout import LocalFanOut
from unokit.server.room import Room
from unokit.server.settings import Settings
from unokit.store import Store

RULES = {"preset": "official", "players": 2, "hand_size": 4, "rounds": 1}
"""Two seats, short rounds: a match a test plays quickly."""


class Conn:
    """A client connection: what the room sent it, in order."""

    lang = "en"

    def __init__(self, viewer: int = -1) -> None:
        self.viewer = viewer
        self.sent: list[bytes] = []
        self.closed = False

    def deliver(self, data: bytes) -> None:
        self.sent.append(data)

    def close(self, data: bytes | None = None) -> None:
        if data is not None:
            self.sent.append(data)
        self.closed = True

    def answers(self, msg_id: str) -> list[bytes]:
        """Every ack or error this connection got for ``msg_id``, in order."""
        found = []
        for data in self.sent:
            message = msgspec.json.decode(data)
            if message.get("type") in ("ack", "error") and message.get("id") == msg_id:
                found.append(data)
        return found

    def welcome(self) -> dict[str, Any]:
        """The welcome this connection got."""
        return next(m for m in map(msgspec.json.decode, self.sent)
                    if m.get("type") == "welcome")


def settings() -> Settings:
    """No catch grace, no timers, no pause: nothing in the room waits for a clock."""
    return Settings(database_url="sqlite://", catch_grace=0.0, bot_delay=0.0,
                    round_pause=0.0, log_level="warning")


class Table:
    """One room on a store, handled message by message (see the module docstring)."""

    def __init__(self, store: Store, room: Room) -> None:
        self.store = store
        self.room = room

    @classmethod
    async def open(cls, store: Store, code: str = "ONCE",
                   rules: dict[str, Any] | None = None) -> Table:
        room = await Room.create(code=code, rules=Rules.from_dict(rules or RULES),
                                 store=store, fanout=LocalFanOut(), settings=settings(),
                                 server_seed=bytes(32))  # the same deal every time
        return cls(store, room)

    async def handle(self, kind: str, conn: Conn, message: Any = None) -> None:
        """Hand the room a ``hello``, a ``msg`` or a ``gone`` of ``conn``, handled to its
        end."""
        item: inbox.Item = (inbox.Hello(conn, message) if kind == "hello"
                            else inbox.Message(conn, message) if kind == "msg"
                            else inbox.Gone(conn))
        await self.room._handle(item)

    async def join(self, name: str, seat: int | None = None) -> tuple[Conn, str]:
        """A new player in ``seat`` (or the first free one): the connection and token."""
        conn = Conn()
        await self.handle("hello", conn, P.Hello(room=self.room.code, name=name, seat=seat))
        token = conn.welcome()["token"]
        return conn, token

    async def back(self, token: str) -> Conn:
        """A new connection of the seat of ``token``."""
        conn = Conn()
        await self.handle("hello", conn, P.Hello(room=self.room.code, token=token))
        return conn

    async def send(self, conn: Conn, message: Any) -> bytes:
        """Send ``message`` on ``conn``; the answer it got."""
        before = len(conn.sent)
        await self.handle("msg", conn, message)
        mine = [d for d in conn.sent[before:]
                if msgspec.json.decode(d).get("id") == message.id
                and msgspec.json.decode(d).get("type") in ("ack", "error")]
        assert len(mine) == 1, (message, conn.sent[before:])
        return mine[0]

    async def restart(self) -> None:
        """The process went away: a new room object comes back from the database (the
        old one's connections are gone with it)."""
        [stored] = await self.store.load_rooms(code=self.room.code)
        self.room = Room.restore(stored, store=self.store, fanout=LocalFanOut(),
                                 settings=settings())

    async def count(self, sql: str) -> list[tuple[Any, ...]]:
        """The rows of ``sql`` (a read of the store's database)."""
        def read(connection: Any) -> list[tuple[Any, ...]]:
            return [tuple(row) for row in connection.execute(text(sql))]
        return await self.store.run(read)


def kind(data: bytes) -> str:
    """``ack`` or the code of an error."""
    message = msgspec.json.decode(data)
    return "ack" if message["type"] == "ack" else str(message["code"])
