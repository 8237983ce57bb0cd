"""Fan-out over several server processes through Redis Streams.

Every process reads one stream of its own, ``unokit:proc:<owner>`` (``<owner>`` is the
process's lease owner, :class:`unokit.store.leases.Owner`), with ``XREAD`` from the last
entry id it read, and writes to the others' streams with ``XADD ... MAXLEN ~``
(:data:`STREAM_MAXLEN`). :class:`Bus` does both. What goes through it:

- a process that does not own a room (the *relay*, :mod:`unokit.server.relay`) forwards
  the hello, the messages and the end of each of its clients' connections to the owner's
  stream;
- the owner serves such a client through a :class:`RemoteConnection`, which a room sees
  as any connection: what the room delivers to it goes to the relay's stream;
- :class:`RedisFanOut` (the owner's :class:`~unokit.server.fanout.FanOut`) publishes a
  room's messages to its own connections, and once per relay process to that process's
  stream, with the message of each viewer that process has connections for.

Each entry carries the room and ``seq``, the sequence number of the room's last event as
of that message (``first`` too for a message of events: its first event's). Redis is a
hint: entries may be lost (a restart, a stream trimmed past a slow reader). The relay
finds a gap in ``seq`` and repairs it from the database, which is the log.

>>> fields = entry_fields({"kind": "d", "room": "ABCDEF", "seq": 7}, b'{"type":"pong"}')
>>> sorted(fields), fields[b"seq"]
([b'data', b'kind', b'room', b'seq'], b'7')
>>> event_span(b'{"type":"events","events":[{"seq":3,"type":"draw"},{"seq":4}],"lead":0}')
(3, 4)
>>> event_span(b'{"type":"events","events":[]}'), event_span(b'{"type":"pong"}')
((None, None), (None, None))
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import msgspec
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from unokit.server.fanout import SPECTATORS, LocalFanOut, Subscriber
from unokit.server.limits import take_token

LOG = logging.getLogger("unokit.cluster")

STREAM_PREFIX = "unokit:proc:"
"""The streams of the processes: ``unokit:proc:<owner>``."""
STREAM_MAXLEN = 10_000
"""Entries a process's stream keeps at most (approximately: ``MAXLEN ~``); a reader
further behind loses the oldest and repairs from the database."""
OUTBOX_MAX = 20_000
"""Entries waiting to be written to Redis at most (while Redis is away); past it the
oldest are dropped (the relays repair what they miss)."""
BATCH = 256
"""Entries written to Redis in one round trip at most."""
READ_BLOCK_MS = 1000
"""How long one ``XREAD`` waits for an entry, in milliseconds."""
STREAM_TTL = 3600
"""Seconds a process's stream outlives the last time the process said it reads it
(:meth:`Bus.keep`): the stream of a process that is gone goes away by itself."""
RETRY_PAUSE = 0.2
"""Seconds between two tries to reach Redis while it is away."""

Fields = dict[bytes, bytes]
"""An entry as read: field names and values, as bytes."""


def stream_of(owner: str) -> str:
    """The stream of the process whose lease owner text is ``owner``."""
    return STREAM_PREFIX + owner


def entry_fields(head: Mapping[str, str | int], data: bytes | None = None) -> Fields:
    """An entry's fields: ``head`` (each value as text) and ``data`` when there is one."""
    fields = {name.encode(): str(value).encode() for name, value in head.items()}
    if data is not None:
        fields[b"data"] = data
    return fields


class _Seq(msgspec.Struct):
    seq: int


class _Span(msgspec.Struct):
    events: list[_Seq] = []


_SPAN = msgspec.json.Decoder(_Span)
EVENTS_PREFIX = b'{"type":"events"'
"""How an encoded :class:`~unokit.server.protocol.Events` message begins."""


def event_span(data: bytes) -> tuple[int | None, int | None]:
    """The first and last event sequence numbers of an encoded events message (``None``,
    ``None``: not one, or without events)."""
    if not data.startswith(EVENTS_PREFIX):
        return None, None
    events = _SPAN.decode(data).events
    if not events:
        return None, None
    return events[0].seq, events[-1].seq


class Bus:
    """This process's stream (read in a task) and its writes to the others' streams
    (in order, from one task; kept while Redis is away, up to :data:`OUTBOX_MAX`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.me = ""
        """This process's stream (set by :meth:`start`)."""
        self.on_entry: Callable[[Fields], None] = lambda fields: None
        """Told each entry read from this process's stream, in order."""
        self.on_back: Callable[[], None] = lambda: None
        """Told when Redis answers again after it was away (entries may be lost)."""
        self.away = False
        """Whether the last read or write found Redis away."""
        self.sent = 0
        self.received = 0
        self.dropped = 0
        """Entries dropped unsent (the outbox overflowed while Redis was away)."""
        self._outbox: collections.deque[tuple[str, Fields, Callable[[], None] | None]] = (
            collections.deque())
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        no_retry = Retry(NoBackoff(), 0)  # every error is seen: a restart loses entries
        self._writer = aioredis.Redis.from_url(url, socket_connect_timeout=2,
                                               socket_timeout=5, retry=no_retry)
        self._reader = aioredis.Redis.from_url(url, socket_connect_timeout=2,
                                               socket_timeout=READ_BLOCK_MS / 1000 + 5,
                                               retry=no_retry)

    async def start(self, owner: str) -> None:
        """Read the stream of ``owner`` (this process) and start writing."""
        self.me = stream_of(owner)
        self._tasks = [asyncio.create_task(self._read_forever(), name="redis-read"),
                       asyncio.create_task(self._write_forever(), name="redis-write")]

    async def stop(self, flush: float = 2.0) -> None:
        """Write what waits (for ``flush`` seconds at most), then stop."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(flush):
                while self._outbox and not self.away:
                    self._wake.set()
                    await asyncio.sleep(0.01)  # the writer task empties the outbox
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for client in (self._writer, self._reader):
            with contextlib.suppress(Exception):
                await client.aclose()

    async def keep(self) -> None:
        """Say that this process still reads its stream (its time to live starts again;
        called every few seconds)."""
        with contextlib.suppress(RedisError, OSError):  # away: the next call says it
            await self._writer.expire(self.me, STREAM_TTL)

    def send(self, stream: str, fields: Fields,
             on_fail: Callable[[], None] | None = None) -> None:
        """Queue an entry for ``stream``, in order after every entry queued before.
        ``on_fail``: told (instead of a retry) if Redis is away when it is written."""
        if len(self._outbox) >= OUTBOX_MAX:
            _, _, failed = self._outbox.popleft()
            self.dropped += 1
            if failed is not None:
                failed()
        self._outbox.append((stream, fields, on_fail))
        self._wake.set()

    async def _write_forever(self) -> None:
        outbox = self._outbox
        while True:
            await self._wake.wait()
            self._wake.clear()
            while outbox:
                batch = [outbox[i] for i in range(min(BATCH, len(outbox)))]
                try:
                    async with self._writer.pipeline(transaction=False) as pipe:
                        for stream, fields, _ in batch:
                            pipe.xadd(stream, fields,  # type: ignore[arg-type]
                                      maxlen=STREAM_MAXLEN, approximate=True)
                        await pipe.execute()
                except (RedisError, OSError) as exc:
                    self._went_away("write", exc)
                    # what has a way to say it failed says so; the rest is tried again
                    kept = [item for item in batch if item[2] is None]
                    for _, _, failed in batch:
                        if failed is not None:
                            failed()
                    for _ in batch:
                        outbox.popleft()
                    outbox.extendleft(reversed(kept))
                    await asyncio.sleep(RETRY_PAUSE)  # Redis is away: try again soon
                    continue
                for _ in batch:
                    outbox.popleft()
                self.sent += len(batch)

    async def _read_forever(self) -> None:
        last = b"0-0"
        while True:
            try:
                answer = await self._reader.xread({self.me: last}, count=BATCH,
                                                  block=READ_BLOCK_MS)
            except (RedisError, OSError) as exc:
                self._went_away("read", exc)
                await asyncio.sleep(RETRY_PAUSE)  # Redis is away: try again soon
                continue
            if self.away:
                self.away = False
                LOG.warning("Redis is back")
                self._wake.set()
                self.on_back()
            streams: Any = answer or []  # RESP2: [[stream, [(id, fields)]]]
            for _, entries in streams:
                for entry_id, fields in entries:
                    last = entry_id
                    self.received += 1
                    try:
                        self.on_entry(fields)
                    except Exception:  # pragma: no cover - one entry never stops the rest
                        LOG.exception("a Redis entry could not be handled")

    def _went_away(self, what: str, exc: Exception) -> None:
        if not self.away:
            LOG.warning("Redis is away", extra={"during": what, "error": str(exc)[:200]})
        self.away = True


class RemoteConnection:
    """A client of another process (the relay), as the owner's rooms see it: what a room
    delivers goes to the relay's stream, tagged with the connection's id there."""

    def __init__(self, bus: Bus, fanout: RedisFanOut, *, stream: str, conn_id: str,
                 room: str, player: int | None, lang: str, rate: float,
                 burst: int) -> None:
        self.bus = bus
        self.fanout = fanout
        self.stream = stream
        """The relay process's stream."""
        self.conn_id = conn_id
        self.room = room
        self.viewer = SPECTATORS
        self.player = player
        self.lang = lang
        self.ack_in_events = False
        self.closed = False
        self.refused = 0
        self.rate = rate
        self.burst = float(burst)
        self.tokens = self.burst
        self.stamp = time.monotonic()

    def _head(self, kind: str, data: bytes | None) -> dict[str, str | int]:
        head: dict[str, str | int] = {"kind": kind, "conn": self.conn_id, "room": self.room,
                                      "viewer": self.viewer}
        first, last = (None, None) if data is None else event_span(data)
        head["seq"] = self.fanout.note_seq(self.room, last)
        if first is not None:
            head["first"] = first
        return head

    def deliver(self, data: bytes) -> None:
        """Send ``data`` to the client through the relay."""
        if not self.closed:
            self.bus.send(self.stream, entry_fields(self._head("d", data), data))

    def close(self, data: bytes | None = None) -> None:
        """Send ``data`` (if any), then have the relay close the client's connection."""
        if self.closed:
            return
        self.closed = True
        self.bus.send(self.stream, entry_fields(self._head("c", data), data))

    def allow(self) -> bool:
        """Take one message from the rate limit (a token bucket, as a local
        connection's)."""
        return take_token(self, time.monotonic())


class RedisFanOut(LocalFanOut):
    """The fan-out of a process among several: its own connections as
    :class:`LocalFanOut`, and once per relay process one entry per message, holding the
    message of each viewer that process has clients for."""

    def __init__(self, bus: Bus) -> None:
        super().__init__()
        self.bus = bus
        self._remote: dict[str, dict[str, dict[int, int]]] = {}
        """room -> relay stream -> viewer -> how many of its clients see as that viewer."""
        self._seq: dict[str, int] = {}
        """room -> the last event sequence number published (rooms with remote clients)."""

    def note_seq(self, room: str, last: int | None) -> int:
        """Note the last event of a message of ``room`` (if it has one); the room's last
        event sequence number as published."""
        if last is not None and last > self._seq.get(room, -1):
            self._seq[room] = last
        return self._seq.get(room, -1)

    def join(self, room: str, subscriber: Subscriber) -> None:
        """See :class:`~unokit.server.fanout.FanOut`."""
        if not isinstance(subscriber, RemoteConnection):
            super().join(room, subscriber)
            return
        viewers = self._remote.setdefault(room, {}).setdefault(subscriber.stream, {})
        viewers[subscriber.viewer] = viewers.get(subscriber.viewer, 0) + 1

    def leave(self, room: str, subscriber: Subscriber) -> None:
        """See :class:`~unokit.server.fanout.FanOut`."""
        if not isinstance(subscriber, RemoteConnection):
            super().leave(room, subscriber)
            return
        streams = self._remote.get(room, {})
        viewers = streams.get(subscriber.stream, {})
        if viewers.get(subscriber.viewer, 0) > 1:
            viewers[subscriber.viewer] -= 1
        else:
            viewers.pop(subscriber.viewer, None)
        if not viewers:
            streams.pop(subscriber.stream, None)
        if not streams:
            self._remote.pop(room, None)
            self._seq.pop(room, None)

    def publish(self, room: str, messages: Mapping[int, bytes]) -> None:
        """See :class:`~unokit.server.fanout.FanOut`."""
        super().publish(room, messages)
        streams = self._remote.get(room)
        if not streams:
            return
        first = last = None
        for data in messages.values():  # every viewer's message has the same events
            first, last = event_span(data)
            break
        head: dict[str, str | int] = {"kind": "b", "room": room,
                                      "seq": self.note_seq(room, last)}
        if first is not None:
            head["first"] = first
        for stream, viewers in streams.items():
            fields = entry_fields(head)
            for viewer in viewers:
                message = messages.get(viewer)
                if message is not None:
                    fields[b"v%d" % viewer] = message
            if len(fields) > len(head):
                self.bus.send(stream, fields)

    def viewers(self, room: str) -> dict[int, int]:
        """See :class:`~unokit.server.fanout.FanOut`: this process's connections and the
        relays' clients together."""
        counts = super().viewers(room)
        for viewers in self._remote.get(room, {}).values():
            for viewer, count in viewers.items():
                counts[viewer] = counts.get(viewer, 0) + count
        return counts
