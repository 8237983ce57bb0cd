"""Messages written at once on uvicorn's WebSocket (:mod:`unokit.server.wire`): the frame
is the one ``websockets`` makes, a message goes out before ``deliver`` returns, and
while the transport asks the writer to pause, messages wait in order behind one
another. A welcomed connection leaves uvicorn's protocol for a small one of its own
(:mod:`unokit.server.slim_socket`): its messages and its end come to callbacks, with no
task of its own."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, Side

from polling import until
from server_harness import Running, running_server, server_settings
from unokit.server.slim_socket import SlimSocket, keepalive, take_over
from unokit.server.wire import SmallEvent, SmallQueue, text_frame

async_test = pytest.mark.asyncio


@given(st.sampled_from([0, 1, 125, 126, 127, 300, 65535, 65536, 70000]),
       st.binary(min_size=0, max_size=8))
def test_a_text_frame_is_the_one_websockets_makes(size: int, start: bytes) -> None:
    data = (start + b"x" * size)[:size] if size else start
    assert text_frame(data) == Frame(Opcode.TEXT, data).serialize(mask=False,
                                                                 extensions=[])


@asynccontextmanager
async def watched_room() -> AsyncIterator[tuple[Running, ClientConnection, Any, Any]]:
    """A server, a spectator's WebSocket, the room's connection object of it and the
    protocol object that serves it since its welcome (:mod:`unokit.server.slim_socket`)."""
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
                          if isinstance(p, SlimSocket)]
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
        assert protocol.owner is not None
        for n in range(30):  # a burst, answered in order
            await ws.send(json.dumps({"type": "ping", "id": f"p{n}"}))
        assert await pongs(ws, 30) == [f"p{n}" for n in range(30)]
        await ws.send(b"\x00")  # a binary frame is refused, and reading goes on
        while (message := json.loads(await ws.recv()))["type"] != "error":
            pass
        assert message["code"] == "bad_message"
        await ws.send(json.dumps({"type": "ping", "id": "after"}))
        assert await pongs(ws, 1) == ["after"]


@async_test
async def test_a_welcomed_connection_leaves_uvicorns_protocol_and_holds_no_task() -> None:
    async with watched_room() as (server, ws, conn, protocol):
        connections = server.server.server_state.connections
        assert not [p for p in connections if isinstance(p, WebSocketsSansIOProtocol)]
        assert protocol.transport.get_protocol() is protocol and conn.websocket is protocol
        # the ASGI application returned: no task of the server waits for the socket
        await asyncio.gather(*server.server.server_state.tasks)  # the endpoint returned
        assert not server.server.server_state.tasks
        assert not protocol.transport.is_closing()
        await ws.send(json.dumps({"type": "ping", "id": "p1"}))
        assert await pongs(ws, 1) == ["p1"]


@async_test
async def test_messages_sent_with_the_hello_come_in_order() -> None:
    async with running_server(server_settings("sqlite://")) as server:
        async with httpx.AsyncClient() as http:
            made = await http.post(server.url + "/api/rooms",
                                   json={"rules": "official,players=2"})
        url = server.url.replace("http://", "ws://") + "/ws"
        async with connect(url, origin=server.url) as ws:  # type: ignore[arg-type]
            # no wait for the welcome: some pings come while the room is looked up
            await ws.send(json.dumps({"type": "hello", "room": made.json()["code"],
                                      "spectate": True}))
            for n in range(20):
                await ws.send(json.dumps({"type": "ping", "id": f"p{n}"}))
            assert await pongs(ws, 20) == [f"p{n}" for n in range(20)]


@async_test
async def test_the_end_of_a_connection_reaches_the_room_and_the_limits() -> None:
    async with watched_room() as (server, ws, conn, _protocol):
        code = next(iter(server.rooms.rooms))
        limits = server.server.config.app.state.limits
        assert limits.total_conns == 1
        await ws.close()
        await until(lambda: not server.rooms.rooms[code].conns
                    and limits.total_conns == 0 and not limits.conns, "the end counted")
        assert conn.closed and not server.server.server_state.connections


@async_test
async def test_a_connection_the_server_closes_ends_with_its_close() -> None:
    async with watched_room() as (server, ws, conn, _protocol):
        code = next(iter(server.rooms.rooms))
        conn.close(mark(1))  # as a kick does: the last message, then the close
        assert await marks(ws, 1) == [1]
        with pytest.raises(ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 1000
        limits = server.server.config.app.state.limits
        await until(lambda: not server.rooms.rooms[code].conns
                    and limits.total_conns == 0, "the end counted")


@async_test
async def test_a_frame_too_large_closes_the_connection() -> None:
    async with watched_room() as (server, ws, _conn, _protocol):
        await ws.send("x" * (server.rooms.settings.max_frame + 1))
        with pytest.raises(ConnectionClosed):
            while True:
                await ws.recv()
        assert ws.close_code == 1009


@async_test
async def test_text_that_is_not_utf8_closes_the_connection() -> None:
    async with watched_room() as (_server, ws, _conn, protocol):
        # a text frame of bytes that are not UTF-8, as a broken client would send it
        protocol.data_received(Frame(Opcode.TEXT, b"\xff\xfe").serialize(
            mask=True, extensions=[]))
        with pytest.raises(ConnectionClosed):
            while True:
                await ws.recv()
        assert ws.close_code == 1007


def _masked(payload: bytes, mask: bytes, first: int = 0x81) -> bytes:
    """A client's frame of ``payload`` masked with ``mask`` (7- or 16-bit length)."""
    size = len(payload)
    head = bytes([first, 0x80 | size]) if size < 126 else (
        bytes([first, 0x80 | 126]) + size.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _socket() -> tuple[SlimSocket, Owner, list[bytes]]:
    written: list[bytes] = []
    transport = SimpleNamespace(write=written.append, is_closing=lambda: False,
                                close=lambda: written.append(b"<closed>"))
    owner = Owner()
    slim = SlimSocket(transport, Protocol(Side.SERVER), owner,  # type: ignore[arg-type]
                      ping_interval=None, ping_timeout=None, connections=set())
    return slim, owner, written


@given(st.lists(st.text(max_size=300), min_size=1, max_size=6),
       st.lists(st.integers(min_value=1, max_value=40), max_size=8))
def test_frames_cut_anywhere_come_out_whole_and_in_order(texts: list[str],
                                                         cuts: list[int]) -> None:
    """Whatever reads the frames arrive in (whole, several at once, cut anywhere), the
    messages are the texts sent, in order."""
    slim, owner, _ = _socket()
    stream = b"".join(_masked(t.encode(), bytes([i + 1, 7, 0, 255]))
                      for i, t in enumerate(texts))
    at = 0
    for cut in [*cuts, len(stream)]:
        slim.data_received(stream[at:at + cut])
        at += cut
        if at >= len(stream):
            break
    if at < len(stream):
        slim.data_received(stream[at:])
    assert owner.got == texts


def test_a_frame_that_hides_another_after_a_cut_head_is_not_read_as_one() -> None:
    """A read that is exactly a whole text frame, but comes after the head of another
    frame (its payload still to come), is that frame's payload, not a frame of its own
    (see ``SlimSocket.data_received``)."""
    slim, owner, written = _socket()
    inner = _masked(b"hello", b"\x00\x00\x00\x00")  # a whole frame, as bytes
    outer = _masked(inner, b"\x00\x00\x00\x00")  # ... sent as another's payload
    slim.data_received(outer[:6])  # the outer frame's head and mask, no payload yet
    slim.data_received(outer[6:])  # exactly the inner frame's bytes
    assert "hello" not in owner.got
    # the outer payload is not UTF-8 (0x81 cannot start a character): closed with 1007
    assert owner.got == []
    assert written[0][0] == 0x88 and written[0][2:4] == (1007).to_bytes(2, "big"), written


def test_reads_that_are_not_a_whole_plain_text_frame_go_to_websockets() -> None:
    slim, owner, written = _socket()
    slim.data_received(_masked("é".encode() * 100, b"abcd"))  # 16-bit length
    assert owner.got == ["é" * 100]
    slim.data_received(_masked(b"part", b"abcd", first=0x01))  # no FIN
    slim.data_received(_masked(b"-end", b"abcd", first=0x80))  # its continuation
    assert owner.got[-1] == "part-end"
    slim.data_received(_masked(b"\x00", b"abcd", first=0x82))  # binary: None
    assert owner.got[-1] is None
    # unmasked: websockets refuses it (1002, a protocol error)
    slim.data_received(b"\x81\x02hi")
    assert written[0][0] == 0x88 and written[0][2:4] == (1002).to_bytes(2, "big"), written


class FakeTransport:
    """What :func:`take_over` uses of a transport, recorded."""

    def __init__(self) -> None:
        self.protocol: Any = None
        self.resumed = 0

    def is_closing(self) -> bool:
        return False

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol

    def resume_reading(self) -> None:
        self.resumed += 1


class Owner:
    """A socket's owner that keeps what it is given (its end as ``"gone"``)."""

    def __init__(self) -> None:
        self.got: list[str | None] = []

    def take(self, data: str | None) -> None:
        self.got.append(data)

    def gone(self) -> None:
        self.got.append("gone")


class Uvicorns(SimpleNamespace):
    """What :func:`take_over` reads of uvicorn's protocol object; hashable, as uvicorn's
    set of connections needs."""

    __hash__ = object.__hash__


def test_what_waits_in_the_asgi_queue_goes_first_after_the_take_over() -> None:
    transport = FakeTransport()
    queue = SmallQueue()
    for message in ({"type": "websocket.receive", "text": "p1"},
                    {"type": "websocket.receive", "bytes": b"\x00"},
                    {"type": "websocket.receive", "text": "p2"}):
        queue.put_nowait(message)
    stopped: list[bool] = []
    writable = SmallEvent()  # not set: the transport had paused the writing
    uvicorns = Uvicorns(
        disconnected=False, close_sent=False, handshake_complete=True,
        transport=transport, conn=Protocol(Side.SERVER), ping_interval=None,
        ping_timeout=None, writable=writable, frames=[b"half"],
        curr_msg_data_type="text", queue=queue, read_paused=True, detached=False,
        stop_keepalive=lambda: stopped.append(True))
    uvicorns.connections = {uvicorns}
    owner = Owner()
    got = owner.got
    slim = take_over(uvicorns, owner)  # type: ignore[arg-type]
    assert slim is not None and transport.protocol is slim
    assert got == ["p1", None, "p2"] and queue.empty() and transport.resumed == 1
    assert uvicorns.connections == {slim} and uvicorns.detached and stopped == [True]
    assert slim.paused and slim.frames == [b"half"]  # a message half received goes on
    slim.connection_lost(None)
    slim.connection_lost(None)
    assert got[-1] == "gone" and got.count("gone") == 1  # the end comes once


class WrittenTransport(FakeTransport):
    """A transport that keeps what is written, and whether it was closed."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


def client_frame(opcode: Opcode, data: bytes) -> bytes:
    return Frame(opcode, data).serialize(mask=True, extensions=[])


@async_test
async def test_a_socket_pings_when_due_and_closes_when_no_pong_comes() -> None:
    now = [1000.0]
    clock = keepalive(asyncio.get_running_loop())
    clock.time = lambda: now[0]
    transport = WrittenTransport()
    owner = Owner()
    slim = SlimSocket(transport, Protocol(Side.SERVER), owner, ping_interval=60.0,
                      ping_timeout=20.0, connections=set())
    slim.schedule_ping()
    assert slim.due == 1060.0
    now[0] = 1059.0
    clock.fire()  # not yet
    assert transport.written == []
    now[0] = 1060.0
    clock.fire()
    [ping] = transport.written
    assert ping[0] == 0x89 and slim.pong_payload is not None  # a ping, its pong awaited
    assert slim.due == 1080.0
    now[0] = 1061.0
    slim.data_received(client_frame(Opcode.PONG, slim.pong_payload))
    assert slim.pong_payload is None and slim.due == 1061.0 + 59.0  # less the round trip
    now[0] = 1080.0
    clock.fire()  # the old deadline is passed over
    assert len(transport.written) == 1 and not transport.closed
    now[0] = 1120.0
    clock.fire()
    assert len(transport.written) == 2 and transport.written[1][0] == 0x89
    now[0] = 1140.0
    clock.fire()  # no pong: closed with 1011
    assert transport.closed and transport.written[-1][:4] == b"\x88\x18\x03\xf3"
    slim.connection_lost(None)
    assert owner.got == ["gone"] and slim.due == 0.0
    if clock.timer is not None:
        clock.timer.cancel()
    clock.time = asyncio.get_running_loop().time
