"""The peer of ``idle_connections.py``: the least a Python WebSocket server on this
event loop holds for an idle connection. uvloop's TCP server and the ``websockets``
sans-I/O protocol (the one uvicorn runs for unokit), and nothing else: no ASGI, no
application. It answers the handshake, answers any text message with a welcome, and
answers pings (the protocol does); it never pings itself.

    python benchmarks/_bare_ws_server.py PORT

It prints ``ready`` once it listens.
"""

from __future__ import annotations

import asyncio
import sys

WELCOME = b'{"type":"welcome"}'


class Bare(asyncio.Protocol):
    """One connection: the handshake, then a welcome for each text message."""

    __slots__ = ("transport", "ws")

    def __init__(self) -> None:
        from websockets.server import ServerProtocol

        self.ws = ServerProtocol(max_size=2**20)
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        from websockets.frames import Frame, Opcode
        from websockets.http11 import Request

        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Request):
                self.ws.send_response(self.ws.accept(event))
            elif isinstance(event, Frame) and event.opcode == Opcode.TEXT:
                self.ws.send_text(WELCOME)
        assert self.transport is not None
        for chunk in self.ws.data_to_send():
            if chunk:
                self.transport.write(chunk)


async def serve(port: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Bare, "127.0.0.1", port, backlog=4096)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    import uvloop

    uvloop.run(serve(int(sys.argv[1])))
