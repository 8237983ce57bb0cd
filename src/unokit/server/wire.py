"""Writing a message to a client's WebSocket at once, without a task switch.

A room hands each message to a connection's ``deliver``; the ASGI way to send it is an
``await send(...)`` in a writer task per connection, which costs a task wake-up and
several layers of calls per message. Under uvicorn's WebSocket protocol (the
``websockets`` sans-I/O one, which :func:`unokit.server.transport.uvicorn_options`
chooses, without compression)
the same frame can be written at once from ``deliver``: :func:`direct_writer` gives a
function that hands the message's frame (:func:`text_frame`, the frame ``websockets``
would make) to the transport, or says that it cannot now (the transport asked the
writer to pause, the connection is closing), in which case the message goes to the
writer task as before, and every later one after it, so that the order holds. Under
any other server (Starlette's test client, another protocol) there is no direct
writer and every message goes through the writer task.

:class:`KeepSend` is the ASGI middleware that keeps a WebSocket's own ``send`` (the
server's, before any middleware wraps it) where the endpoint can find it
(:func:`raw_send`).

>>> direct_writer(None) is None
True
>>> async def send(message): pass
>>> direct_writer(send) is None  # not uvicorn's protocol: the writer task sends
True
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import OPEN

WriteNow = Callable[[bytes], bool]
"""Write one text message (UTF-8) now; ``False`` when it cannot be written now (then
nothing was written)."""

_RAW_SEND: ContextVar[Send | None] = ContextVar("unokit_raw_send", default=None)


def raw_send() -> Send | None:
    """The ``send`` the server gave the WebSocket being handled (``None`` outside
    one, or without :class:`KeepSend`)."""
    return _RAW_SEND.get()


class KeepSend:
    """ASGI middleware: keeps each WebSocket's own ``send`` for :func:`raw_send`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        with KeptSend(send):
            await self.app(scope, receive, send)


class KeptSend:
    """Within it, :func:`raw_send` gives ``send`` (the server's own ``send`` of the
    WebSocket being handled). A class, not a generator: it lasts as long as the
    connection, and a generator would keep a frame for it."""

    __slots__ = ("send", "token")

    def __init__(self, send: Send) -> None:
        self.send = send
        self.token: Token[Send | None] | None = None

    def __enter__(self) -> None:
        self.token = _RAW_SEND.set(self.send)

    def __exit__(self, *exc: object) -> None:
        if self.token is not None:
            _RAW_SEND.reset(self.token)


def text_frame(data: bytes) -> bytes:
    """A whole, unmasked WebSocket text frame of ``data`` (UTF-8), as a server sends it
    (RFC 6455, section 5.2: FIN and the text opcode, then the length in 7 bits, or 126
    and 16 bits, or 127 and 64 bits).

    >>> text_frame(b'{"type":"pong"}')
    b'\\x81\\x0f{"type":"pong"}'
    >>> text_frame(b"x" * 200)[:4], text_frame(b"x" * 70000)[:10]
    (b'\\x81~\\x00\\xc8', b'\\x81\\x7f\\x00\\x00\\x00\\x00\\x00\\x01\\x11p')
    """
    size = len(data)
    if size < 126:
        return bytes((0x81, size)) + data
    if size < 1 << 16:
        return b"\x81\x7e" + size.to_bytes(2, "big") + data
    return b"\x81\x7f" + size.to_bytes(8, "big") + data


def direct_writer(send: Send | None) -> WriteNow | None:
    """A function that writes a text message on the WebSocket whose server ``send`` this
    is, at once, when that is uvicorn's ``websockets`` sans-I/O protocol (``None``
    otherwise: send through ``send`` in a task)."""
    protocol: Any = getattr(send, "__self__", None)
    if not isinstance(protocol, WebSocketsSansIOProtocol):
        return None
    writable = protocol.writable
    frames = protocol.conn

    def write_now(data: bytes) -> bool:
        # what uvicorn's send does for a text message once the handshake is done, but
        # only when it would not wait (paused writing) nor fail (closing or closed);
        # the frame is the one websockets would make when no extension (compression)
        # was agreed and nothing else waits to be written
        if (not writable.is_set() or protocol.disconnected or protocol.close_sent
                or not protocol.handshake_complete or protocol.initial_response is not None
                or frames.state is not OPEN or frames.expect_continuation_frame
                or frames.extensions or frames.writes):
            return False
        transport = protocol.transport
        if transport.is_closing():
            return False
        transport.write(text_frame(data))
        return True

    return write_now


class SmallEvent:
    """What uvicorn's protocol uses of :class:`asyncio.Event` (``set``, ``clear``,
    ``is_set``, ``wait``), holding no waiter list until something waits: an idle
    connection keeps one of these, set, for its whole life.

    >>> async def demo():
    ...     event = SmallEvent()
    ...     waiting = asyncio.ensure_future(event.wait())
    ...     await asyncio.sleep(0)
    ...     event.set()
    ...     return await waiting, event.is_set()
    >>> asyncio.run(demo())
    (True, True)
    """

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for future in waiters or ():
            if not future.done():
                future.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        if self._set:
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(future)
        try:
            await future
        finally:
            if self._waiters is not None and future in self._waiters:
                self._waiters.remove(future)
        return True


class SmallQueue:
    """What uvicorn's protocol uses of :class:`asyncio.Queue` (``put_nowait``, ``get``,
    ``empty``, ``qsize``), unbounded like it, and as small as an empty list and one
    waiter while the connection is idle (an :class:`asyncio.Queue` keeps three deques
    and an event, about 3 KB, for each connection).

    >>> async def demo():
    ...     queue = SmallQueue()
    ...     queue.put_nowait(1)
    ...     later = asyncio.ensure_future(queue.get())
    ...     first = await queue.get()
    ...     await asyncio.sleep(0)
    ...     queue.put_nowait(2)
    ...     return first, await later, queue.empty()
    >>> asyncio.run(demo())
    (1, 2, True)
    """

    __slots__ = ("_getters", "_items")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._getters: list[asyncio.Future[None]] = []

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        self._wake_next()

    def take_all(self) -> list[Any]:
        """Every item waiting, oldest first; the queue is empty after."""
        items, self._items = self._items, []
        return items

    async def get(self) -> Any:
        while not self._items:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._getters.append(future)
            try:
                await future
            except BaseException:
                if future in self._getters:
                    self._getters.remove(future)
                elif self._items:  # woken, then cancelled: the next getter takes it
                    self._wake_next()
                raise
        return self._items.pop(0)

    def _wake_next(self) -> None:
        while self._getters:
            future = self._getters.pop(0)
            if not future.done():
                future.set_result(None)
                return


class DirectProtocol(WebSocketsSansIOProtocol):
    """uvicorn's ``websockets`` sans-I/O protocol, keeping less for a connection: a
    :class:`SmallQueue` and a :class:`SmallEvent` where uvicorn makes an
    :class:`asyncio.Queue` and an :class:`asyncio.Event`, and once the handshake's
    answer is written it lets go of the parsed request and the answer (the endpoint
    reads the headers from its ASGI scope).

    A welcomed game connection leaves it for a smaller object of its own
    (:func:`unokit.server.slim_socket.take_over`), which sets :attr:`detached`: the ASGI
    application then returns without the connection closing.
    """

    detached = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = SmallQueue()  # type: ignore[assignment]
        self.writable = SmallEvent()  # type: ignore[assignment]
        self.writable.set()

    def start_keepalive(self) -> None:
        # called once the handshake's answer is written: neither is read again (the
        # parser of ``websockets`` keeps the request to the end: its headers go)
        request = getattr(self, "request", None)
        if request is not None:
            request.headers.clear()
        self.request = None  # type: ignore[assignment]
        self.response = None  # type: ignore[assignment]
        super().start_keepalive()

    async def run_asgi(self) -> None:
        # uvicorn's, except that the connection stays open when the application
        # returns after its connection was taken over
        try:
            result = await self.app(self.scope, self.receive, self.send)
        except ClientDisconnected:
            pass
        except BaseException:
            self.logger.exception("Exception in ASGI application\n")
            self.send_500_response()
        else:
            if not self.handshake_complete:
                self.logger.error("ASGI callable returned without completing handshake.")
                self.send_500_response()
            elif result is not None:
                self.logger.error("ASGI callable should return None, but returned '%s'.",
                                  result)
            elif self.detached:
                return
        if self.close_timer is None:
            self.transport.close()
