"""The server's ASGI application driven in process, without sockets: HTTP requests
whose body comes in chunks (counting how many the app read), and WebSocket sessions
that send frames and read what the app sends. Fast enough for the fuzz tests (tens of
thousands of inputs a second), and exact: nothing is buffered by a transport.

The rooms are opened by the caller (``await rooms.open()``) instead of a lifespan."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.types import ASGIApp, Message

from unokit.server.app import create_app
from unokit.server.rooms import Rooms
from unokit.server.settings import Settings

Headers = Sequence[tuple[str, str]]


@dataclass
class Answer:
    """An HTTP answer: status, headers (lower-case names), body, and how many chunks of
    the request body the app read."""

    status: int
    headers: dict[str, str]
    body: bytes
    chunks_read: int = 0

    def json(self) -> Any:
        import json
        return json.loads(self.body)


async def request(app: ASGIApp, method: str, path: str, *, headers: Headers = (),
                  body: Iterable[bytes] = (), query: bytes = b"",
                  client: tuple[str, int] = ("192.0.2.1", 50000)) -> Answer:
    """One HTTP request to ``app``; ``body`` is read chunk by chunk as the app asks."""
    chunks = list(body) or [b""]
    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1", "method": method, "scheme": "http", "path": path,
        "raw_path": path.encode("utf-8", "surrogateescape"), "query_string": query,
        "root_path": "", "client": client, "server": ("testserver", 80),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers]}
    read = 0
    answer = Answer(0, {}, b"")
    sent = asyncio.Event()  # the whole response is sent: the client may go

    async def receive() -> Message:
        nonlocal read
        if read < len(chunks):
            read += 1
            return {"type": "http.request", "body": chunks[read - 1],
                    "more_body": read < len(chunks)}
        await sent.wait()  # a client stays until its answer is whole (a stream's too)
        return {"type": "http.disconnect"}

    parts: list[bytes] = []

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            answer.status = message["status"]
            answer.headers = {k.decode("latin-1"): v.decode("latin-1")
                              for k, v in message.get("headers", [])}
        elif message["type"] == "http.response.body":
            parts.append(message.get("body", b""))
            if not message.get("more_body", False):
                sent.set()

    await app(scope, receive, send)
    answer.body = b"".join(parts)
    answer.chunks_read = read
    return answer


@dataclass
class Socket:
    """A WebSocket session with ``app``: what it sent back, and a way to send frames."""

    app: ASGIApp
    headers: Headers = ()
    client: tuple[str, int] = ("192.0.2.1", 50000)
    path: str = "/ws"
    inbox: asyncio.Queue[Message] = field(default_factory=asyncio.Queue)
    outbox: asyncio.Queue[Message] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None

    def start(self) -> None:
        scope: dict[str, Any] = {
            "type": "websocket", "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1", "scheme": "ws", "path": self.path,
            "raw_path": self.path.encode(),
            "query_string": b"", "root_path": "", "client": self.client,
            "server": ("testserver", 80), "subprotocols": [],
            "extensions": {"websocket.http.response": {}},
            "headers": [(k.lower().encode("latin-1"), v.encode("latin-1"))
                        for k, v in self.headers]}
        self.inbox.put_nowait({"type": "websocket.connect"})
        self.task = asyncio.create_task(self.app(scope, self.inbox.get, self.outbox.put))

    async def next(self, timeout: float = 10.0) -> Message:
        """The next message the app sent (accept, send, close, a denial)."""
        return await asyncio.wait_for(self.outbox.get(), timeout)

    def text(self, data: str) -> None:
        self.inbox.put_nowait({"type": "websocket.receive", "text": data})

    def binary(self, data: bytes) -> None:
        self.inbox.put_nowait({"type": "websocket.receive", "bytes": data})

    async def close(self) -> None:
        """The client goes; wait for the app's handler to end."""
        self.inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
        if self.task is not None:
            await asyncio.wait_for(self.task, 10)


@contextlib.asynccontextmanager
async def opened_app(settings: Settings) -> AsyncIterator[tuple[ASGIApp, Rooms]]:
    """The application with its rooms open; closed afterwards."""
    rooms = Rooms(settings)
    await rooms.open()
    app = create_app(settings, rooms)
    try:
        yield app, rooms
    finally:
        app.state.published.close()
        app.state.passwords.close()
        await rooms.close()
