"""The load generator's clients: many WebSocket connections in one process, cheaply.

``benchmarks/server_load.py`` runs this in several worker processes. A load generator
must not be what it measures, so each connection here is the ``websockets`` library's
sans-I/O protocol (the RFC 6455 handshake and framing, masking included) on a plain
asyncio transport: a received frame is handled in the transport's callback, with no task
per connection and no task switch per message. The messages are the server's protocol,
encoded with its own models and decoded by msgspec into the few fields the policy reads.

A room's four seats live in one process. The seat to move plays the first legal action
(the one that calls UNO with the play, if any). The latency of an action runs from the
moment it is written to the socket to the moment the last of the room's four clients has
the events of its sequence number.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from typing import Any

import httpx
import msgspec
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from _load_goal import Goal
from unokit.server import protocol as P


class _Seq(msgspec.Struct):
    seq: int


class _Ack(msgspec.Struct):
    id: str
    seq: int


class _Message(msgspec.Struct):
    """The fields of a server message the load policy reads (others are skipped)."""

    type: str
    id: str | None = None
    seq: int = -1
    code: str = ""
    seat: int | None = None
    events: list[_Seq] = []
    legal: list[str] = []
    must: bool = False
    ack: _Ack | None = None
    """The ack that rides in an ``events`` message (the hello asks for it)."""


_decode = msgspec.json.Decoder(_Message).decode


class Seat(asyncio.Protocol):
    """One WebSocket connection of one seat."""

    def __init__(self, uri: str, room: LoadRoom, index: int) -> None:
        self.ws = ClientProtocol(parse_uri(uri), max_size=2**22)
        self.room = room
        self.index = index
        self.transport: asyncio.Transport | None = None
        self.open = asyncio.get_running_loop().create_future()
        self.welcome = asyncio.get_running_loop().create_future()
        self.seat: int | None = None
        self.last_seq = -1
        self.legal: list[str] = []
        self.must = False
        self.closed = False
        self.parts: list[bytes] = []

    # ------------------------------------------------------------ transport callbacks
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is no subclass
        self.ws.send_request(self.ws.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Response):
                if event.status_code == 101 and not self.open.done():
                    self.open.set_result(None)
                elif not self.open.done():
                    self.open.set_exception(OSError(f"handshake: {event.status_code}"))
            elif isinstance(event, Frame):
                self._frame(event)
        self._flush()  # pongs, close answers

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.open.done():
            self.open.set_exception(exc or OSError("connection lost"))
        if not self.welcome.done():
            self.welcome.set_exception(exc or OSError("connection lost"))
        self.room.lost(self)

    # ------------------------------------------------------------ messages
    def _frame(self, frame: Frame) -> None:
        if frame.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
            self.parts.append(frame.data)
            if frame.fin:
                data = b"".join(self.parts)
                self.parts.clear()
                self._message(_decode(data))

    def _message(self, message: _Message) -> None:
        kind = message.type
        if kind == "events":
            if message.events:
                self.last_seq = max(self.last_seq, message.events[-1].seq)
            self.legal, self.must = message.legal, message.must
            self.room.changed()
            if message.ack is not None:
                self.room.acked(self, message.ack.id, message.ack.seq)
        elif kind == "ack":
            self.room.acked(self, message.id or "", message.seq)
        elif kind == "error":
            self.room.refused(self, message.id, message.code)
        elif kind == "welcome":
            self.seat = message.seat
            if not self.welcome.done():
                self.welcome.set_result(None)
        elif kind == "reveal":
            self.room.ended()
        elif kind == "bye":
            self.room.refused(self, None, "bye")

    def send(self, message: Any) -> None:
        if self.closed:
            return
        self.ws.send_text(P.encode(message))
        self._flush()

    def _flush(self) -> None:
        if self.transport is None:
            return
        for data in self.ws.data_to_send():
            if data:
                self.transport.write(data)
            elif self.transport.can_write_eof():
                self.transport.write_eof()

    def close(self) -> None:
        if self.transport is not None and not self.closed:
            self.ws.send_close(1000)
            self._flush()
            self.transport.close()


class LoadRoom:
    """One room of four seats playing the simple policy, paced or not."""

    def __init__(self, code: str, paced: bool, latencies: list[float],
                 counters: dict[str, int]) -> None:
        self.code = code
        self.paced = paced
        self.goal: Goal | None = None
        self.warmup_end = self.next_at = 0.0
        self.latencies = latencies
        self.counters = counters
        self.seats: list[Seat] = []
        self.loop = asyncio.get_running_loop()
        self.over = self.loop.create_future()
        self.ids = 0
        self.pending: tuple[Seat, str, float] | None = None
        self.pending_seq = -1
        self.began = False
        self.started = self.loop.create_future()
        self.finished = False
        self.waiting = False

    def begin(self, goal: Goal, warmup_end: float, rng: random.Random) -> None:
        """Start playing (the first action within a second), until ``goal`` is reached;
        the latencies of actions sent after ``warmup_end`` count."""
        self.goal, self.warmup_end = goal, warmup_end
        self.next_at = time.perf_counter() + (rng.random() if self.paced else 0.0)
        self.began = True
        self.step()

    async def play(self, goal: Goal, warmup_end: float, rng: random.Random) -> None:
        """:meth:`begin`, then wait until the room has finished."""
        self.begin(goal, warmup_end, rng)
        await self.over

    # ------------------------------------------------------------ driving
    def step(self) -> None:
        """Play the next action if nothing is on the way."""
        self.waiting = False
        if self.finished or self.pending is not None or not self.began:
            return
        now = time.perf_counter()
        if self.goal is None or self.goal.reached(now):
            self.finish()
            return
        actor = next((s for s in self.seats if s.must and s.legal), None)
        if actor is None:
            return  # a message still to come says who moves
        if self.paced and self.next_at > now:
            self.waiting = True
            self.loop.call_later(self.next_at - now, self.step)
            return
        self.next_at = max(self.next_at + 1.0, now) if self.paced else now
        legal = actor.legal
        choice = next((a for a in legal if a.endswith("!")), legal[0])
        self.ids += 1
        msg_id = f"{self.code}-{self.ids}"
        self.pending, self.pending_seq = (actor, msg_id, time.perf_counter()), -1
        actor.send(P.Act(id=msg_id, action=choice))

    def changed(self) -> None:
        if self.pending is not None:
            self._check()
        elif not self.waiting:
            self.step()

    def welcomed(self) -> None:
        """A room that starts at its player's hello ("play now") has begun."""
        if not self.started.done():
            self.started.set_result(None)

    def acked(self, seat: Seat, msg_id: str, seq: int) -> None:
        if self.pending is not None and self.pending[1] == msg_id:
            self.pending_seq = seq
            self._check()
        elif msg_id == "start" and not self.started.done():
            self.started.set_result(None)
            self.step()

    def _check(self) -> None:
        assert self.pending is not None
        seq = self.pending_seq
        if seq < 0 or any(s.last_seq < seq for s in self.seats):
            return
        _, _, start = self.pending
        self.pending = None
        self.counters["actions"] += 1
        if start >= self.warmup_end:
            self.latencies.append(time.perf_counter() - start)
        self.step()

    def refused(self, seat: Seat, msg_id: str | None, code: str) -> None:
        self.counters["refused"] += 1
        if code == "bye" or msg_id is None:
            self.counters["errors"] += 1
            print(f"room {self.code}: {code}", file=sys.stderr)
            self.finish()
            return
        if self.pending is not None and self.pending[1] == msg_id:
            self.pending = None
            if code == "rate_limited":  # the same turn: try again a little later
                self.loop.call_later(0.05, self.step)
            else:
                seat.must = False
                self.step()

    def ended(self) -> None:
        if not self.finished:
            self.counters["matches"] += 1
            self.finish()

    def lost(self, seat: Seat) -> None:
        if not self.finished:
            self.counters["errors"] += 1
            print(f"room {self.code}: connection lost", file=sys.stderr)
            self.finish()

    def finish(self) -> None:
        if self.finished:
            return
        self.finished = True
        for seat in self.seats:
            seat.close()
        if not self.over.done():
            self.over.set_result(None)
        if not self.started.done():
            self.started.set_exception(OSError(f"room {self.code} ended before it began"))


async def open_room(http: httpx.AsyncClient, url: str, fields: dict[str, Any], paced: bool,
                    latencies: list[float], counters: dict[str, int]) -> LoadRoom:
    """Create a room over the HTTP API (``http``: one client for every room of the
    process), seat four clients and start its match; :meth:`LoadRoom.begin` then plays
    it."""
    response = await http.post(url + "/api/rooms", json=fields)
    code = response.json()["code"]
    loop = asyncio.get_running_loop()
    room = LoadRoom(code, paced, latencies, counters)
    uri = url.replace("http://", "ws://") + "/ws"
    host, port = url.removeprefix("http://").split(":")
    for index in range(4):
        seat = Seat(uri, room, index)
        await loop.create_connection(lambda seat=seat: seat, host, int(port))
        await asyncio.wait_for(seat.open, 120)
        seat.send(P.Hello(room=code, name=f"p{index}", ack_in_events=True))
        await asyncio.wait_for(seat.welcome, 120)
        room.seats.append(seat)
    room.seats[0].send(P.Start(id="start"))
    await asyncio.wait_for(room.started, 120)
    counters["rooms"] += 1
    return room


async def open_bot_room(http: httpx.AsyncClient, url: str, fields: dict[str, Any], bot: str,
                        paced: bool, latencies: list[float],
                        counters: dict[str, int]) -> LoadRoom:
    """A "play now" room: one client in seat 0 and server bots ``bot`` in the others (the
    match starts at the client's hello); :meth:`LoadRoom.begin` then plays the client's
    turns, and its latencies are the client's."""
    response = await http.post(url + "/api/play-now", json={
        "rules": fields["rules"], "bot": bot, "turn_timer": fields.get("turn_timer", 0)})
    code = response.json()["code"]
    loop = asyncio.get_running_loop()
    room = LoadRoom(code, paced, latencies, counters)
    uri = url.replace("http://", "ws://") + "/ws"
    host, port = url.removeprefix("http://").split(":")
    seat = Seat(uri, room, 0)
    await loop.create_connection(lambda: seat, host, int(port))
    await asyncio.wait_for(seat.open, 120)
    seat.send(P.Hello(room=code, name="p0", ack_in_events=True))
    await asyncio.wait_for(seat.welcome, 120)
    room.seats.append(seat)
    room.welcomed()
    counters["bot_rooms"] = counters.get("bot_rooms", 0) + 1
    return room
