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

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
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
        token = _RAW_SEND.set(send)
        try:
            await self.app(scope, receive, send)
        finally:
            _RAW_SEND.reset(token)


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


class DirectProtocol(WebSocketsSansIOProtocol):
    """uvicorn's ``websockets`` sans-I/O protocol, which hands each whole text message
    to the connection's :attr:`sink` at once, in the transport's callback, when the
    endpoint has set one (:func:`direct_reader`): no queue, no task switch, no pause of
    the reading per message. Anything else (a binary frame, text that is not UTF-8, a
    message while an earlier one still waits in the queue, so that the order holds)
    goes through the ASGI queue as before."""

    sink: Callable[[str], None] | None = None

    def send_receive_event_to_app(self) -> None:
        sink = self.sink
        if (sink is None or self.curr_msg_data_type != "text" or self.close_sent
                or not self.queue.empty()):
            super().send_receive_event_to_app()
            return
        frames = self.frames
        data = frames[0] if len(frames) == 1 else b"".join(frames)
        try:
            text = data.decode()
        except UnicodeDecodeError:
            super().send_receive_event_to_app()
            return
        self.frames = []
        sink(text)


def direct_reader(send: Send | None, sink: Callable[[str], None]) -> Callable[[], None] | None:
    """Have the WebSocket whose server ``send`` this is hand each text message to
    ``sink`` at once, when it is a :class:`DirectProtocol` (``None`` otherwise: read
    through ASGI); the function that stops it."""
    protocol: Any = getattr(send, "__self__", None)
    if not isinstance(protocol, DirectProtocol):
        return None
    protocol.sink = sink

    def stop() -> None:
        protocol.sink = None

    return stop
