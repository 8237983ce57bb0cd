"""Messages written at once on uvicorn's WebSocket (:mod:`unokit.server.wire`): the frame
is the one ``websockets`` makes, a message goes out before ``deliver`` returns, and
while the transport asks the writer to pause, messages wait in order behind one
another. A welcomed connection is detached: its messages and its end come to callbacks,
with no task of its own."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode

from server_harness import Running, running_server, server_settings
from unokit.server.wire import DirectProtocol, text_frame

async_test = pytest.mark.asyncio


@given(st.sampled_from([0, 1, 125, 126, 127, 300, 65535, 65536, 70000]),
       st.binary(min_size=0, max_size=8))
def test_a_text_frame_is_the_one_websockets_makes(size: int, start: bytes) -> None:
    data = (start + b"x" * size)[:size] if size else start
    assert text_frame(data) == Frame(Opcode.TEXT, data).serialize(mask=False,
                                                                 extensions=[])


@asynccontextmanager
async def watched_room() -> AsyncIterator[tuple[Running, ClientConnection, Any, Any]]:
    """A server, a spectator's WebSocket, the room's connection object of it and
    uvicorn's protocol object of it."""
    async with running_server(server_settings("sqlite://")) as server:
        async with httpx.AsyncClient() as http:
            made = await http.post(server.url + "/api/rooms",
                                   json={"rules": "official,players=2"})
        code = made.json()["code"]
        url = server.url.replace("http://", "ws://") + "/ws"
        async with connect(url, origin=server.url) as ws:  # type: ignore[arg-type]
            await ws.send(json.dumps({"type": "hello", "room": code, "spectate": True}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            [conn] = server.rooms.rooms[code].conns
            [protocol] = [p for p in server.server.server_state.connections
                          if isinstance(p, WebSocketsSansIOProtocol)]
            yield server, ws, conn, protocol


async def marks(ws: ClientConnection, count: int) -> list[int]:
    """The next ``count`` test marks the client receives, in order (other messages of
    the room are passed over)."""
    got: list[int] = []
    while len(got) < count:
        message = json.loads(await ws.recv())
        if message.get("type") == "mark":
            got.append(message["n"])
    return got


def mark(n: int) -> bytes:
    return json.dumps({"type": "mark", "n": n}).encode()


@async_test
async def test_a_message_is_written_before_deliver_returns() -> None:
    async with watched_room() as (_, ws, conn, _protocol):
        conn.deliver(mark(1))
        assert not conn.outbox  # written, not left for the writer task
        assert await marks(ws, 1) == [1]


@async_test
async def test_while_writing_is_paused_messages_wait_in_order() -> None:
    async with watched_room() as (_, ws, conn, protocol):
        conn.deliver(mark(1))
        protocol.pause_writing()  # what the transport does when its buffer is full
        conn.deliver(mark(2))
        conn.deliver(mark(3))
        assert list(conn.outbox) == [mark(2), mark(3)]
        protocol.resume_writing()
        conn.deliver(mark(4))  # the writer has not sent 2 and 3 yet: 4 waits behind
        assert list(conn.outbox) == [mark(2), mark(3), mark(4)]
        assert await marks(ws, 4) == [1, 2, 3, 4]
        conn.deliver(mark(5))  # all sent: written at once again
        assert not conn.outbox
        assert await marks(ws, 1) == [5]


async def pongs(ws: ClientConnection, count: int) -> list[str]:
    """The ids of the next ``count`` pongs (other messages passed over)."""
    got: list[str] = []
    while len(got) < count:
        message = json.loads(await ws.recv())
        if message.get("type") == "pong":
            got.append(message["id"])
    return got


@async_test
async def test_a_text_message_reaches_the_room_without_the_asgi_queue() -> None:
    async with watched_room() as (_, ws, _conn, protocol):
        assert isinstance(protocol, DirectProtocol) and protocol.sink is not None
        for n in range(30):  # a burst, answered in order
            await ws.send(json.dumps({"type": "ping", "id": f"p{n}"}))
        assert await pongs(ws, 30) == [f"p{n}" for n in range(30)]
        assert protocol.queue.empty()
        await ws.send(b"\x00")  # a binary frame is refused, and reading goes on
        while (message := json.loads(await ws.recv()))["type"] != "error":
            pass
        assert message["code"] == "bad_message"
        await ws.send(json.dumps({"type": "ping", "id": "after"}))
        assert await pongs(ws, 1) == ["after"]


async def settled(condition: Callable[[], bool]) -> bool:
    """Whether ``condition`` holds once the server (in this event loop) has had its
    turns: it is checked after each turn of the loop, at most 1,000."""
    for _ in range(1000):
        if condition():
            return True
        await asyncio.sleep(0)
    return condition()


@async_test
async def test_a_welcomed_connection_is_detached_and_holds_no_task() -> None:
    async with watched_room() as (server, ws, _conn, protocol):
        assert protocol.detached and protocol.sink is not None
        # the ASGI application returned: no task of the server waits for the socket
        assert await settled(lambda: not server.server.server_state.tasks)
        assert not protocol.transport.is_closing()
        await ws.send(json.dumps({"type": "ping", "id": "p1"}))
        assert await pongs(ws, 1) == ["p1"]


@async_test
async def test_the_end_of_a_detached_connection_reaches_the_room_and_the_limits() -> None:
    async with watched_room() as (server, ws, conn, _protocol):
        code = next(iter(server.rooms.rooms))
        limits = server.server.config.app.state.limits
        assert limits.total_conns == 1
        await ws.close()
        assert await settled(lambda: not server.rooms.rooms[code].conns
                             and limits.total_conns == 0 and not limits.conns)
        assert conn.closed


@async_test
async def test_a_server_closed_detached_connection_ends_with_its_close() -> None:
    async with watched_room() as (server, ws, conn, _protocol):
        code = next(iter(server.rooms.rooms))
        conn.close(mark(1))  # as a kick does: the last message, then the close
        assert await marks(ws, 1) == [1]
        with pytest.raises(ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 1000
        limits = server.server.config.app.state.limits
        assert await settled(lambda: not server.rooms.rooms[code].conns
                             and limits.total_conns == 0)


@async_test
async def test_what_waits_in_the_asgi_queue_goes_first_when_detached() -> None:
    async with watched_room() as (_, _ws, _conn, protocol):
        sink, gone = protocol.sink, protocol.gone
        got: list[str | None] = []
        ended: list[bool] = []
        # as if p1, a binary frame and the end had been queued before the detach
        protocol.queue.forward = None
        for message in ({"type": "websocket.receive", "text": "p1"},
                        {"type": "websocket.receive", "bytes": b"\x00"},
                        {"type": "websocket.disconnect", "code": 1000}):
            protocol.queue.put_nowait(message)
        protocol.detach(got.append, lambda: ended.append(True))
        assert got == ["p1", None] and ended == [True]
        assert protocol.queue.empty()
        protocol.queue.put_nowait({"type": "websocket.disconnect", "code": 1000})
        assert ended == [True]  # the end comes once
        protocol.sink, protocol.gone = sink, gone
