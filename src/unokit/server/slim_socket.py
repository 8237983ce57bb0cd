"""A welcomed game connection as a small protocol object of its own.

uvicorn's WebSocket protocol object serves a connection from its handshake to its end:
it holds the ASGI scope, a queue, an event, timers and some forty attributes in a dict,
about 2 KB before the endpoint's own objects, and the endpoint holds a task that waits
for the next message. A game connection needs none of that once it is welcomed: its
messages go to the room at once and its answers are written at once
(:mod:`unokit.server.wire`). :func:`take_over` hands the transport to a
:class:`SlimSocket`, which keeps only the ``websockets`` sans-I/O protocol of the
connection, its callbacks and its keep-alive: the uvicorn object, the ASGI scope and
the endpoint's task all go, and an idle connection costs the server a few KB
(``benchmarks/idle_connections.py``).

A :class:`SlimSocket` does what uvicorn's protocol did for a connection past its
handshake: it answers pings (``websockets`` does), sends its own pings every
``ping_interval`` and closes a connection whose pong does not come within
``ping_timeout``, answers the client's close and closes the transport, closes a
connection that sends a frame too large or text that is not UTF-8, and takes part in
the server's shutdown (it stands in uvicorn's set of connections, whose ``shutdown``
closes it with 1012). Each whole text message goes to its owner's ``take`` (a binary
one as ``None``), and the end of the connection, whatever its cause, to its owner's
``gone``, once (:class:`SocketOwner`).

A client's masked text frame, then its close, on a transport that prints:

>>> class Transport:
...     closing = False
...     def write(self, data): print("wrote", data)
...     def is_closing(self): return self.closing
...     def close(self): self.closing = True; print("closed")
>>> from websockets.protocol import Protocol, Side
>>> ws = Protocol(Side.SERVER)  # open, as a ServerProtocol is past its handshake
>>> class Owner:
...     def take(self, data): print(data)
...     def gone(self): print("gone")
>>> slim = SlimSocket(Transport(), ws, Owner(),
...                   ping_interval=None, ping_timeout=None, connections=set())
>>> slim.data_received(Frame(Opcode.TEXT, b"hi").serialize(mask=True, extensions=[]))
hi
>>> slim.data_received(Frame(Opcode.CLOSE, b"\\x03\\xe8").serialize(mask=True, extensions=[]))
wrote b'\\x88\\x02\\x03\\xe8'
closed
>>> slim.connection_lost(None)
gone
"""

from __future__ import annotations

import asyncio
import contextvars
import heapq
import logging
import math
import random
import struct
import weakref
from collections.abc import Callable, MutableSet
from typing import Any, Protocol

from starlette.websockets import WebSocketDisconnect
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN
from websockets.protocol import Protocol as WebSocketProtocol

from unokit.server.wire import DirectProtocol, SmallQueue, text_frame

LOG = logging.getLogger("unokit.server")

TIMERS = contextvars.Context()
"""The context the timers run in: an empty one. A timer made in the endpoint's task
would keep that task's context, which holds the ASGI ``send`` (and with it uvicorn's
whole object of the connection) for as long as the connection lasts."""

CLOSE_TIMEOUT = 10.0
"""Seconds a closing connection waits for the client's close before the transport is
closed (as uvicorn waits)."""


class SocketOwner(Protocol):
    """Whom a :class:`SlimSocket` serves: the game's side of the connection."""

    def take(self, data: str | None) -> None:
        """A whole message: its text, ``None`` for a binary one."""

    def gone(self) -> None:
        """The connection ended (called once)."""


class SlimSocket(asyncio.Protocol):
    """A welcomed WebSocket, past its handshake and its hello: see the module."""

    __slots__ = ("close_sent", "close_timer", "closed", "connections", "due",
                 "frames", "kind", "owner", "paused", "ping_interval", "ping_sent_at",
                 "ping_timeout", "pong_payload", "rtt", "transport", "waiters", "ws")

    def __init__(self, transport: asyncio.Transport, ws: WebSocketProtocol,
                 owner: SocketOwner, *,
                 ping_interval: float | None, ping_timeout: float | None,
                 connections: MutableSet[Any]) -> None:
        self.transport = transport
        self.ws = ws
        self.owner: SocketOwner | None = owner
        """Whom the messages and the end go to (``None`` once it ended)."""
        self.connections = connections
        """uvicorn's set of open connections: the server's shutdown closes each."""
        self.frames: list[bytes] | tuple[()] = ()
        """The parts of a message still coming (continuation frames)."""
        self.kind = Opcode.TEXT
        self.paused = False
        """Whether the transport asked us to stop writing (its buffer is full)."""
        self.waiters: list[asyncio.Future[None]] | None = None
        self.close_sent = False
        self.closed = False
        self.close_timer: asyncio.TimerHandle | None = None
        self.ping_interval = ping_interval
        self.ping_timeout = ping_timeout
        self.due = 0.0
        """When :class:`KeepAlive` next calls :meth:`keepalive_due` (the loop's time; 0:
        never): the next ping, or the deadline of the pong of the last one."""
        self.pong_payload: bytes | None = None
        self.ping_sent_at = 0.0
        self.rtt = 0.0

    def __lt__(self, other: SlimSocket) -> bool:
        """An order, any (for :class:`KeepAlive`'s heap, between equal times)."""
        return id(self) < id(other)

    # ------------------------------------------------------------ the transport's calls
    def data_received(self, data: bytes) -> None:
        # Every read goes through websockets' parser. Taking a read that is exactly one
        # whole text frame past it saved no CPU that 2,500 rooms could measure (about
        # 330 us per action either way), and such a read may also be the payload of a
        # frame whose head came in the read before.
        ws = self.ws
        ws.receive_data(data)
        for event in ws.events_received():
            if not isinstance(event, Frame):
                continue
            opcode = event.opcode
            if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
                self.kind, self.frames = opcode, [bytes(event.data)]
            elif opcode is Opcode.CONT:
                if isinstance(self.frames, list):  # (websockets refuses a lone one)
                    self.frames.append(bytes(event.data))
            elif opcode is Opcode.PONG:
                self._pong(bytes(event.data))
                continue
            elif opcode is Opcode.CLOSE:
                self._flush()
                self._close_now()
                return
            else:  # a ping: websockets has its pong ready to send
                continue
            if event.fin:
                self._message()
        self._flush()
        if ws.parser_exc is not None:  # too large, not UTF-8, a broken frame: closed
            self.close_sent = True
            self._close_now()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._stop_timers()
        self.connections.discard(self)
        self._wake()
        self._end()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        self._wake()

    # ------------------------------------------------------------ writing
    def write_now(self, data: bytes) -> bool:
        """Write one text message (UTF-8) now; ``False`` when it cannot be written now
        (paused, closing, closed): then nothing was written."""
        if self.paused or self.close_sent or self.closed or self.ws.state is not OPEN:
            return False
        transport = self.transport
        if transport.is_closing():
            return False
        transport.write(text_frame(data))
        return True

    async def send(self, message: dict[str, Any]) -> None:
        """ASGI's ``websocket.send`` of a text message, waiting while writing is paused.

        Raises:
            WebSocketDisconnect: the connection is closed or closing.
        """
        while self.paused and not self.closed:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            if self.waiters is None:
                self.waiters = []
            self.waiters.append(future)
            await future
        if not self.write_now(message["text"].encode()):
            raise WebSocketDisconnect(1006)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Send a close frame with ``code``; the transport closes when the client answers,
        or after :data:`CLOSE_TIMEOUT` seconds."""
        self.start_close(code, reason or "")

    def start_close(self, code: int, reason: str = "") -> None:
        """Send a close frame (once), and close the transport once the client answers
        or :data:`CLOSE_TIMEOUT` seconds have passed."""
        if self.close_sent or self.closed or self.transport.is_closing():
            return
        self.close_sent = True
        self._stop_timers()
        self.ws.send_close(code, reason)
        self._flush()
        self.close_timer = asyncio.get_running_loop().call_later(
            CLOSE_TIMEOUT, self.transport.close, context=TIMERS)

    def shutdown(self) -> None:
        """The server stops (uvicorn calls this on each of its connections): close with
        1012 (service restart)."""
        if not self.close_sent and not self.closed and self.ws.state is OPEN:
            self.close_sent = True
            self.ws.send_close(1012, "")
            self._flush()
        self._close_now()

    # ------------------------------------------------------------ inside
    def _message(self) -> None:
        frames, self.frames = self.frames, ()
        owner = self.owner
        if owner is None or self.close_sent:
            return
        data = frames[0] if len(frames) == 1 else b"".join(frames)
        if self.kind is not Opcode.TEXT:
            owner.take(None)
            return
        try:
            text = data.decode()
        except UnicodeDecodeError:
            self.ws.fail(1007, "invalid UTF-8")
            self.close_sent = True
            self._flush()
            self._close_now()
            return
        owner.take(text)

    def _flush(self) -> None:
        output = self.ws.data_to_send()
        if output and not self.transport.is_closing():
            self.transport.write(b"".join(output))

    def _close_now(self) -> None:
        self._stop_timers()
        self.transport.close()

    def _end(self) -> None:
        owner, self.owner = self.owner, None
        if owner is not None:
            owner.gone()

    def _wake(self) -> None:
        waiters, self.waiters = self.waiters, None
        for future in waiters or ():
            if not future.done():
                future.set_result(None)

    def _stop_timers(self) -> None:
        if self.close_timer is not None:
            self.close_timer.cancel()
        self.close_timer = None
        self.due = 0.0
        self.pong_payload = None

    # ------------------------------------------------------------ keep-alive
    def schedule_ping(self) -> None:
        """The next ping, ``ping_interval`` seconds (less the last round trip) from now."""
        if self.ping_interval:
            clock = keepalive(asyncio.get_running_loop())
            self.due = clock.time() + max(0.0, self.ping_interval - self.rtt)
            clock.at(self.due, self)

    def keepalive_due(self) -> None:
        """:attr:`due` came (:class:`KeepAlive`): ping, or close for want of a pong."""
        if self.pong_payload is not None and self.ping_timeout is not None:
            self._no_pong()
        else:
            self._ping()

    def _ping(self) -> None:
        if self.close_sent or self.closed or self.transport.is_closing():
            return
        clock = keepalive(asyncio.get_running_loop())
        self.pong_payload = struct.pack("!I", random.getrandbits(32))
        self.ping_sent_at = clock.time()
        self.ws.send_ping(self.pong_payload)
        self._flush()
        if self.ping_timeout is not None:
            self.due = self.ping_sent_at + self.ping_timeout
            clock.at(self.due, self)
        else:
            self.schedule_ping()

    def _pong(self, payload: bytes) -> None:
        if self.pong_payload is None or payload != self.pong_payload:
            return  # unasked, or an answer to an earlier ping
        self.rtt = keepalive(asyncio.get_running_loop()).time() - self.ping_sent_at
        self.pong_payload = None
        if self.ping_timeout is not None:  # the deadline goes: the next ping comes
            self.schedule_ping()

    def _no_pong(self) -> None:
        self.pong_payload = None
        if self.close_sent or self.closed or self.transport.is_closing():
            return
        self.ws.fail(1011, "keepalive ping timeout")
        self.close_sent = True
        self._flush()
        self._close_now()


class KeepAlive:
    """The pings and pong deadlines of every :class:`SlimSocket` of one event loop, on one
    timer: a heap of ``(when, socket)``. A socket's entry counts only while its
    :attr:`SlimSocket.due` is that ``when`` (a later schedule, a pong or the end leaves
    the old entry to be passed over when its time comes, as a cancelled timer of
    asyncio's stays in its heap), so a socket has at most two entries, and an idle
    connection costs an entry of 80 bytes, not a timer of the loop's. A socket that
    ended is let go when its last entry's time comes (at most ``ping_interval``
    seconds later).

    >>> loop = asyncio.new_event_loop()
    >>> class Socket:
    ...     due = 0.0
    ...     def __init__(self, name): self.name = name
    ...     def __lt__(self, other): return id(self) < id(other)
    ...     def keepalive_due(self): print(self.name, "is due")
    >>> first, later = Socket("first"), Socket("later")
    >>> now = [0.0]
    >>> clock = KeepAlive(loop, time=lambda: now[0])
    >>> first.due, later.due = 10.0, 20.0
    >>> clock.at(20.0, later); clock.at(10.0, first)  # type: ignore[arg-type]
    >>> clock.when
    10.0
    >>> later.due = 30.0  # rescheduled: its entry at 20 is passed over
    >>> clock.at(30.0, later)  # type: ignore[arg-type]
    >>> now[0] = 25.0
    >>> clock.fire()
    first is due
    >>> clock.when, len(clock.heap)
    (30.0, 1)
    >>> loop.close()
    """

    __slots__ = ("heap", "loop", "time", "timer", "when")

    def __init__(self, loop: asyncio.AbstractEventLoop,
                 time: Callable[[], float] | None = None) -> None:
        self.loop = loop
        self.time = time or loop.time
        """The clock of the keep-alive (the loop's; tests give their own)."""
        self.heap: list[tuple[float, SlimSocket]] = []
        self.timer: asyncio.TimerHandle | None = None
        self.when = math.inf
        """When the timer goes off (``inf``: no timer)."""

    def at(self, when: float, socket: SlimSocket) -> None:
        """Call ``socket.keepalive_due()`` at ``when`` (the loop's time) if its ``due``
        is still ``when`` then."""
        heapq.heappush(self.heap, (when, socket))
        if when < self.when:
            self._arm(when)

    def fire(self) -> None:
        """Every entry whose time came."""
        self.timer, self.when = None, math.inf
        now = self.time()
        heap = self.heap
        while heap and heap[0][0] <= now:
            when, socket = heapq.heappop(heap)
            if socket.due == when:
                socket.due = 0.0
                socket.keepalive_due()
        if heap and heap[0][0] < self.when:
            self._arm(heap[0][0])

    def _arm(self, when: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.when = when
        self.timer = self.loop.call_at(when, self.fire, context=TIMERS)
        # (the loop's time: where a test gives a clock of its own, it calls fire)


_KEEPALIVES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, KeepAlive] = (
    weakref.WeakKeyDictionary())


def keepalive(loop: asyncio.AbstractEventLoop) -> KeepAlive:
    """The :class:`KeepAlive` of ``loop``."""
    clock = _KEEPALIVES.get(loop)
    if clock is None:
        clock = _KEEPALIVES[loop] = KeepAlive(loop)
    return clock


def take_over_send(send: Any, owner: SocketOwner) -> SlimSocket | None:
    """:func:`take_over` of the connection whose server ``send`` (ASGI) this is, when it
    is a :class:`~unokit.server.wire.DirectProtocol`'s; ``None`` otherwise (another
    server, Starlette's test client): then it stays with ASGI.

    >>> async def send(message): pass
    >>> take_over_send(send, None) is None  # type: ignore[arg-type]
    True
    """
    protocol = getattr(send, "__self__", None)
    if not isinstance(protocol, DirectProtocol):
        return None
    return take_over(protocol, owner)


def take_over(protocol: DirectProtocol, owner: SocketOwner) -> SlimSocket | None:
    """Move the open, welcomed connection of uvicorn's ``protocol`` to a new
    :class:`SlimSocket` of ``owner``: what waits in its ASGI queue goes to the owner
    first, in order, and a message half received goes on where it was. ``None``
    (nothing moved) where the connection is not open any more or its handshake is not
    done."""
    transport = protocol.transport
    if (protocol.disconnected or protocol.close_sent or not protocol.handshake_complete
            or transport is None or transport.is_closing() or protocol.conn.state is not OPEN):
        return None
    slim = SlimSocket(transport, protocol.conn, owner,
                      ping_interval=protocol.ping_interval,
                      ping_timeout=protocol.ping_timeout,
                      connections=protocol.connections)
    slim.paused = not protocol.writable.is_set()
    slim.frames = protocol.frames
    slim.kind = Opcode.TEXT if protocol.curr_msg_data_type == "text" else Opcode.BINARY
    protocol.stop_keepalive()
    protocol.detached = True
    connections: MutableSet[Any] = protocol.connections
    connections.discard(protocol)
    connections.add(slim)
    transport.set_protocol(slim)
    queue: SmallQueue = protocol.queue  # type: ignore[assignment]
    waiting = queue.take_all()
    if protocol.read_paused:
        protocol.read_paused = False
        transport.resume_reading()
    for message in waiting:
        if message["type"] == "websocket.receive":
            if slim.owner is not None:
                slim.owner.take(message.get("text"))
        elif message["type"] == "websocket.disconnect":
            slim.closed = True
            slim._end()
    if not slim.closed:
        slim.schedule_ping()
    return slim
