"""The game's WebSocket, ``/ws`` (and ``/ws/CODE``): a client's hello, then its
messages to its room and the room's messages to it (docs/protocol.md).

A connection is checked at its handshake (its page's ``Origin``, the per-address and
server-wide limits), then has :data:`HELLO_TIMEOUT` seconds to say hello. Once the
hello has found its room, the connection is served without a task of its own: under
uvicorn it moves to a small protocol object (:mod:`unokit.server.slim_socket`) whose
callbacks hand each message to :meth:`Connection.take` and the end to
:meth:`Connection.gone`; elsewhere (Starlette's test client) the endpoint reads the
messages through ASGI until the end. The room writes to the client through
:class:`Connection`: at once where the transport takes it, else through a writer task
made on first need.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from collections.abc import Mapping
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from unokit.engine.errors import Reason
from unokit.i18n import N_, localize, pick_language
from unokit.server import inbox
from unokit.server import protocol as P
from unokit.server.cluster import Cluster
from unokit.server.fanout import SPECTATORS
from unokit.server.limits import Limits, Refused, check_origin, refused_response, take_token
from unokit.server.logs import CONNECTION_ID
from unokit.server.metrics import NO_METRICS
from unokit.server.observe import client_address
from unokit.server.outage import RETRY_AFTER, RETRY_CODES
from unokit.server.ownership import Elsewhere
from unokit.server.room import Room
from unokit.server.rooms import Rooms
from unokit.server.seating import RoomError
from unokit.server.sessions import socket_player
from unokit.server.slim_socket import SlimSocket, take_over_send
from unokit.server.wire import direct_writer, raw_send

LOG = logging.getLogger("unokit.server")

SEND_QUEUE = 2048
"""Messages a connection may have waiting to be sent; a client that falls further behind
is disconnected (it comes back and resumes from the last event it saw)."""
HELLO_TIMEOUT = 15.0
"""Seconds a new connection has to say which room it is for."""
REFUSED_LIMIT = 200
"""Refused messages in a row after which a connection is closed."""


NOTHING_WAITS: collections.deque[bytes] = collections.deque(maxlen=0)
"""The send queue of every connection that has nothing waiting (never appended to:
a connection makes its own deque for its first waiting message)."""


class Connection:
    """One WebSocket client as the server serves it: its hello (:meth:`serve`), its
    messages (:meth:`take`), what it is sent (:meth:`deliver`: its send queue), its rate
    limit, and its end (:meth:`gone`, :meth:`end`). Slotted, holding nothing of the
    request once welcomed, and its send queue and writer task made on first need:
    thousands of idle ones are held at once (``benchmarks/idle_connections.py``)."""

    __slots__ = ("_sending", "_wake", "_write_now", "_writer", "ack_in_events", "address",
                 "burst", "closed", "ended", "id", "lang", "limits", "metrics", "outbox",
                 "player", "rate", "refusals", "refused", "room", "rooms", "stamp", "tokens",
                 "viewer", "websocket")

    def __init__(self, websocket: WebSocket, rooms: Rooms, limits: Limits,
                 address: str) -> None:
        settings = rooms.settings
        self.rooms = rooms
        self.limits = limits
        self.address = address
        """Counted by :meth:`Limits.connect`, let go by :meth:`end`."""
        self.metrics = NO_METRICS
        """Where the errors sent are counted (the server's metrics)."""
        self.websocket: WebSocket | SlimSocket = websocket
        self.id = CONNECTION_ID.get() or "-"
        """The connection's id, in the log lines about it."""
        self.viewer = SPECTATORS
        self.player: int | None = None
        """The player of the connection's session cookie or API token (its seat is
        theirs: docs/accounts.md)."""
        self.room: Room | None = None
        self.outbox: collections.deque[bytes] = NOTHING_WAITS
        """Messages waiting for the writer (at most :data:`SEND_QUEUE`); the shared
        empty :data:`NOTHING_WAITS` until one waits."""
        self._wake: asyncio.Future[None] | None = None
        self._write_now = direct_writer(raw_send())
        """Writes a message at once when it can (:mod:`unokit.server.wire`); else the
        writer task sends it."""
        self._sending = False
        """Whether the writer task has a message under way (later ones wait for it)."""
        self._writer: asyncio.Task[None] | None = None
        """The writer task (:meth:`write_then_close`): it starts when a message first
        waits, or at the close. An idle connection whose messages are all written at
        once has no task of its own."""
        self.closed = False
        self.ended = False
        self.rate = settings.rate
        self.burst = float(settings.burst)
        self.tokens = self.burst
        self.stamp = asyncio.get_running_loop().time()
        self.refused = 0
        self.lang = pick_language(websocket.headers.get("accept-language"))
        """The language of the error texts: the hello's ``lang``, else the request's
        ``Accept-Language``."""
        self.ack_in_events = False
        """The hello's ``ack_in_events``."""

    def deliver(self, data: bytes) -> None:
        """Queue a message; a client too far behind is closed."""
        if self.closed:
            return
        self.metrics.sent(data)
        write_now = self._write_now
        if (write_now is not None and not self.outbox and not self._sending
                and write_now(data)):
            return
        if len(self.outbox) >= SEND_QUEUE:
            LOG.warning("slow client disconnected", extra={"conn": self.id})
            self.closed = True
            self.outbox = NOTHING_WAITS
        else:
            if self.outbox is NOTHING_WAITS:
                self.outbox = collections.deque()
            self.outbox.append(data)
        self._poke()

    def _poke(self) -> None:
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self.write_then_close())
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    def close(self, data: bytes | None = None) -> None:
        """Send ``data`` (if any), then close."""
        if self.closed:
            return
        if data is not None:
            self.deliver(data)
        self.closed = True
        self._poke()

    def allow(self) -> bool:
        """Take one message from the rate limit (a token bucket)."""
        return take_token(self, asyncio.get_running_loop().time())

    async def writer(self) -> None:
        """Send queued messages until closed: every message waiting when the writer
        wakes goes out before it sleeps again."""
        loop = asyncio.get_running_loop()
        while True:
            self._sending = True
            try:
                while self.outbox:  # (the socket may have moved: moved_to)
                    await self.websocket.send({"type": "websocket.send",
                                               "text": self.outbox.popleft().decode()})
                self.outbox = NOTHING_WAITS  # drained: its own deque goes
            finally:
                self._sending = False
            if self.closed:
                return
            self._wake = loop.create_future()
            await self._wake
            self._wake = None

    async def serve(self, websocket: WebSocket) -> bool:
        """The hello, then the connection's messages: whether the connection moved to a
        socket of its own (:mod:`unokit.server.slim_socket`: its messages and its end
        then come to :meth:`take` and :meth:`gone`), else it returns when the
        connection ends."""
        rooms, depth = self.rooms, self.rooms.settings.max_json_depth
        try:
            message = await asyncio.wait_for(websocket.receive(), HELLO_TIMEOUT)
        except TimeoutError:
            self.close(error_bytes(self, "bad_message", N_("say hello first (docs/protocol.md)")))
            return False
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        first = _frame(message)
        if first is None:
            self.close(error_bytes(self, "bad_message", BINARY))
            return False
        try:
            hello = P.decode_client(first, depth)
        except P.ProtocolError as exc:
            self.close(error_bytes(self, exc.code, exc))
            return False
        if not isinstance(hello, P.Hello):
            self.close(error_bytes(self, "bad_message", N_("the first message is a hello")))
            return False
        if hello.lang:
            self.lang = pick_language(hello.lang)
        self.ack_in_events = hello.ack_in_events
        if hello.v != P.VERSION:
            self.close(error_bytes(self, "version", Reason("this server speaks protocol version "
                                                      "{version}", version=P.VERSION)))
            return False
        path_code = websocket.path_params.get("code")
        if path_code is not None and path_code.strip().upper() != hello.room.strip().upper():
            self.close(error_bytes(self, "bad_message", N_("the hello names another room than "
                                                      "the path (/ws/CODE)")))
            return False
        try:
            rooms.oversight.check_address(client_address(websocket))
            room = await rooms.live(hello.room)
        except Elsewhere as exc:  # another process owns it: relayed there, if in a cluster
            cluster: Cluster | None = websocket.app.state.cluster
            if cluster is None or cluster.relay is None:
                self.close(error_bytes(self, exc.code, exc))
            else:
                await cluster.relay.relay_or_refuse(websocket, self, hello, first, exc)
            return False
        except RoomError as exc:
            self.close(error_bytes(self, exc.code, exc))
            return False
        self.room = room
        room.submit(inbox.Hello(self, hello))
        # where the server can (slim_socket), the connection moves to a small object of
        # its own: every message comes to ``take`` at once and the end to ``gone``, with
        # no task waiting and nothing of the request kept; elsewhere through ASGI
        slim = take_over_send(raw_send(), self)
        if slim is not None:
            self.websocket = slim
            self._write_now = slim.write_now
            return True
        while not self.closed:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return False
            self.take(_frame(message))
        return False

    def take(self, data: str | None) -> None:
        """One message of the welcomed connection (``None``: a binary one)."""
        if not self.closed and self.room is not None:
            take_message(self, self.room, self.rooms, data, self.rooms.settings.max_json_depth)

    def gone(self) -> None:
        """The connection ended (the socket's callback): :meth:`end`, in a task."""
        task = asyncio.get_running_loop().create_task(self.end())
        _ENDING.add(task)
        task.add_done_callback(_ENDING.discard)

    async def end(self) -> None:
        """The end, once: the room hears that the connection went, whatever waits to be
        written goes out (at most 5 s), the socket is closed and the limits let go of
        it."""
        if self.ended:
            return
        self.ended = True
        try:
            self.metrics.open_sockets -= 1
            if self.room is not None:
                self.room.submit(inbox.Gone(self))
            self.close()
            writer = self._writer
            with contextlib.suppress(Exception):
                if writer is not None:
                    await asyncio.wait_for(writer, 5)
            with contextlib.suppress(Exception):
                await self.websocket.close(1012 if self.rooms.closing else 1000)
        finally:
            self.limits.disconnect(self.address)

    async def write_then_close(self) -> None:
        """The writer task: :meth:`writer`, then the close. A connection the room
        closes (a refused hello, a kick, a client too far behind, too many refusals) is
        closed at once, not when the client next sends."""
        await self.writer()
        with contextlib.suppress(Exception):
            await self.websocket.close(1012 if self.rooms.closing else 1000)


def error_bytes(conn: Connection, code: str, message: object, msg_id: str | None = None) -> bytes:
    """An error for ``conn``, its text (a marked message or an error with a template) in
    the connection's language (with ``retry_after`` when it says to send it again, or
    when it is :class:`Elsewhere`, to say hello again)."""
    retry_after = (message.retry_after if isinstance(message, Elsewhere)
                   else RETRY_AFTER if code in RETRY_CODES else None)
    return P.encode(P.Error(code=code, message=localize(conn.lang, message), id=msg_id,
                            retry_after=retry_after))


async def game_socket(websocket: WebSocket) -> None:
    """The ``/ws`` endpoint: a :class:`Hello`, then messages until the client goes.
    A handshake from another site's page, or over a connection limit, is refused
    before it is accepted (an HTTP answer: 403, or 429/503 with ``Retry-After``)."""
    rooms: Rooms = websocket.app.state.rooms
    limits: Limits = websocket.app.state.limits
    address = client_address(websocket.scope)
    try:
        check_origin(websocket.headers, rooms.settings)
        limits.connect(address)
    except Refused as exc:
        await _deny(websocket, exc)
        return
    await websocket.accept()
    conn = Connection(websocket, rooms, limits, address)
    conn.player = await socket_player(rooms.store, websocket, rooms.settings,
                                      rooms.clock())
    conn.metrics = rooms.oversight.metrics
    conn.metrics.open_sockets += 1
    moved = False
    try:
        moved = await conn.serve(websocket)
    except WebSocketDisconnect:
        pass
    finally:
        if not moved:
            await conn.end()


async def _deny(websocket: WebSocket, exc: Refused) -> None:
    """Refuse a WebSocket handshake with the JSON error of ``exc`` (or, where the server
    cannot answer a handshake with a response, a plain refusal)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(refused_response(exc, websocket.headers))
    else:
        await websocket.close(1008 if exc.status == 403 else 1013)


_ENDING: set[asyncio.Task[None]] = set()
"""The ends of connections under way that no endpoint awaits (a task holds no
reference to itself)."""


def _frame(message: Mapping[str, Any]) -> str | None:
    """The text of a received frame; ``None`` for a binary frame (the protocol is text:
    JSON in text frames)."""
    text = message.get("text")
    return text if isinstance(text, str) else None


BINARY = N_("binary frames are refused: send each message as JSON in a text frame")


def take_message(conn: Connection, room: Room, rooms: Rooms, data: str | None, depth: int) -> None:
    """One message of a welcomed connection (``None``: a binary frame): checked, then
    handed to its room, or refused."""
    if data is None:
        conn.refused += 1
        conn.deliver(error_bytes(conn, "bad_message", BINARY))
    elif not conn.allow():
        conn.refused += 1
        msg_id = P.message_id(data, depth)
        conn.deliver(error_bytes(conn, "rate_limited", N_("too many messages: slow down"),
                            msg_id))
    else:
        try:
            parsed = P.decode_client(data, depth)
        except P.ProtocolError as exc:
            conn.refused += 1
            msg_id = P.message_id(data, depth)
            conn.deliver(error_bytes(conn, exc.code, exc, msg_id))
        else:
            if isinstance(parsed, P.Hello):
                conn.refused += 1
                conn.deliver(error_bytes(conn, "bad_message", N_("already said hello")))
            elif rooms.closing:
                conn.deliver(error_bytes(conn, "closing", N_(
                    "the server is restarting: send it again after reconnecting"),
                    getattr(parsed, "id", None)))
            else:
                conn.refused = 0
                room.submit(inbox.Message(conn, parsed))
    if conn.refused >= REFUSED_LIMIT:
        conn.close(P.encode(P.Bye(reason=localize(conn.lang, N_("too many refused messages")),
                                  reconnect=False, code="flood")))


