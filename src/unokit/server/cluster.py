"""Several server processes on one database and one Redis (the setting ``redis_url``).

Each process owns some rooms (their leases, :mod:`unokit.server.ownership`). A client may
connect to any process: one that does not own the room relays it
(:mod:`unokit.server.relay`), and the owner serves it through a
:class:`~unokit.server.fanout_redis.RemoteConnection`, which its room sees as any other
connection. :class:`Cluster` ties the parts of one process together: its
:class:`~unokit.server.fanout_redis.Bus`, its :class:`~unokit.server.fanout_redis.RedisFanOut`,
its :class:`~unokit.server.relay.Relay`, and the owner's side of the relayed clients.

The entries a process reads from its stream:

=====  ======================  ==================================================
kind   from                    what
=====  ======================  ==================================================
``h``  a relay, to the owner   a client's hello (``conn``, ``reply``: the relay's
                               stream, ``player``, ``lang``, ``data``: the hello)
``m``  a relay, to the owner   a client's message (``data``; none: a binary frame)
``g``  a relay, to the owner   the client went
``l``  a relay, to the owner   the clients it still relays (``data``: their ids,
                               comma-separated), every ``lease_renew`` seconds
``d``  the owner, to a relay   a message for one client (``conn``, ``viewer``)
``c``  the owner, to a relay   close that client, after ``data`` if any
``b``  the owner, to a relay   a message of the room: ``v<viewer>`` for each viewer
=====  ======================  ==================================================

Every entry but ``l`` names its ``room``; those of the owner carry ``seq`` (and
``first`` for a message of events).

An owner lets go of a relayed client (as of one whose connection closed) when the
relay's ``l`` no longer names it, and of every client of a relay it has not heard an
``l`` from for :data:`SILENT_RENEWALS` renewal intervals while Redis answered (that
process is gone).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from unokit.i18n import N_, pick_language
from unokit.server import inbox
from unokit.server import protocol as P
from unokit.server.cluster_views import PresenceHints
from unokit.server.fanout_redis import Bus, Fields, RedisFanOut, RemoteConnection
from unokit.server.moved import say_moved
from unokit.server.relay import ErrorBytes, Relay
from unokit.server.seating import RoomError

if TYPE_CHECKING:
    from unokit.server.room import Room
    from unokit.server.rooms import Rooms
    from unokit.server.settings import Settings

LOG = logging.getLogger("unokit.cluster")

SILENT_RENEWALS = 4
"""Renewal intervals without an ``l`` from a relay after which its clients are let go."""

Take = Callable[[Any, "Room", "Rooms", "str | None", int], None]
"""``(connection, room, rooms, text, depth)``: handle one message of a welcomed
connection (:func:`unokit.server.game_socket.take_message`)."""


class Cluster:
    """One process's part in a cluster (see the module)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.bus = Bus(settings.redis_url)
        self.fanout = RedisFanOut(self.bus)
        self.rooms: Rooms | None = None
        self.relay: Relay | None = None
        self.presence: PresenceHints | None = None
        """Who is connected to each room, for the other processes (:mod:`cluster_views
        <unokit.server.cluster_views>`)."""
        self._take: Take | None = None
        self._error: ErrorBytes | None = None
        self.remote: dict[tuple[str, str], RemoteConnection] = {}
        """(relay stream, conn id) -> a relayed client of a room of this process."""
        self._waiting: dict[RemoteConnection, list[bytes | None]] = {}
        """Messages of relayed clients whose hello is still being handled."""
        self._rooms_of: dict[RemoteConnection, Room] = {}
        self._hellos: set[asyncio.Task[None]] = set()
        self._heard: dict[str, float] = {}
        """relay stream -> when its last ``l`` came (the monotonic clock)."""
        self._sweeper: asyncio.Task[None] | None = None
        self.let_go = 0
        """Relayed clients let go because their relay no longer named them, or is gone."""

    @classmethod
    def of(cls, settings: Settings) -> Cluster | None:
        """The cluster part for ``settings`` (``None``: no ``redis_url``, one process)."""
        return cls(settings) if settings.redis_url else None

    def attach(self, rooms: Rooms, take: Take, error: ErrorBytes) -> None:
        """Serve ``rooms`` (whose fan-out is :attr:`fanout`) with the app's ``take`` and
        ``error``."""
        self.rooms = rooms
        self._take = take
        self._error = error
        self.relay = Relay(self.bus, self.settings, error)
        self.presence = PresenceHints(self.settings.redis_url, rooms)
        self.bus.on_entry = self._entry
        self.bus.on_back = self._back

    async def start(self) -> None:
        """Start reading this process's stream (the rooms are open)."""
        assert self.rooms is not None and self.rooms.store is not None
        assert self.relay is not None
        self.relay.start(self.rooms.store)
        await self.bus.start(self.rooms.store.owner.text)
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="relayed-sweep")
        assert self.presence is not None
        self.presence.start()

    async def stop(self) -> None:
        """Tell the relayed clients to reconnect, write what waits, stop."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self.relay is not None:
            await self.relay.stop()
        if self.presence is not None:
            await self.presence.stop()
        for task in list(self._hellos):
            task.cancel()
        await self.bus.stop()

    def _entry(self, fields: Fields) -> None:
        kind = fields.get(b"kind", b"").decode()
        if kind in ("d", "c", "b"):
            assert self.relay is not None
            self.relay.take(kind, fields)
        elif kind in ("h", "m", "g"):
            self._owner_entry(kind, fields)
        elif kind == "l":
            self._alive(fields.get(b"reply", b"").decode(),
                        set((fields.get(b"data") or b"").decode().split(",")))

    def _back(self) -> None:
        """Redis answers again: the relays get a new chance to be heard."""
        now = time.monotonic()
        for stream in self._heard:
            self._heard[stream] = now
        assert self.relay is not None
        self.relay.back()

    def _alive(self, stream: str, conns: set[str]) -> None:
        """The relay ``stream`` still relays ``conns``: let go of its other clients."""
        self._heard[stream] = time.monotonic()
        for key in [k for k in self.remote if k[0] == stream and k[1] not in conns]:
            self._let_go(key)

    def _let_go(self, key: tuple[str, str], *, counted: bool = True) -> None:
        """The relayed client ``key`` is gone (``counted``: found gone, not told)."""
        conn = self.remote.get(key)
        if conn is None:
            return
        self.let_go += counted
        if counted:  # a relay that only stalled reads this when it is back: its client
            say_moved(conn)  # reconnects, rather than wait for broadcasts that stopped
        self._forget(key, conn)
        room = self._rooms_of.pop(conn, None)
        if room is not None:
            room.submit(inbox.Gone(conn))

    def sweep(self, now: float) -> None:
        """Let go of the clients of every relay not heard from for
        :data:`SILENT_RENEWALS` renewal intervals before ``now`` (unless Redis is away:
        then nobody can be heard)."""
        if self.bus.away:
            return
        silent = now - SILENT_RENEWALS * self.settings.lease_renew
        for stream in {key[0] for key in self.remote}:
            heard = self._heard.setdefault(stream, now)
            if heard < silent:
                for key in [k for k in self.remote if k[0] == stream]:
                    self._let_go(key)
                del self._heard[stream]

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.lease_renew)
            self.sweep(time.monotonic())
            await self.bus.keep()

    # ------------------------------------------------------------ the owner's side
    def _owner_entry(self, kind: str, fields: Fields) -> None:
        key = (fields.get(b"reply", b"").decode(), fields.get(b"conn", b"").decode())
        data = fields.get(b"data")
        conn = self.remote.get(key)
        if kind == "h":
            if conn is not None or data is None:  # a hello written twice
                return
            self._hello(key, fields, data)
        elif kind == "m":
            if conn is None:  # not (or no longer) served here: the client reconnects
                self._stranger(key, fields)
            elif conn in self._waiting:
                self._waiting[conn].append(data)
            elif not conn.closed:
                room = self._rooms_of.get(conn)
                if room is not None and self._take is not None and self.rooms is not None:
                    self._take(conn, room, self.rooms, None if data is None
                               else data.decode(errors="replace"),
                               self.settings.max_json_depth)
        elif kind == "g" and conn is not None:
            self._let_go(key, counted=False)

    def _stranger(self, key: tuple[str, str], fields: Fields) -> None:
        conn = RemoteConnection(self.bus, self.fanout, stream=key[0], conn_id=key[1],
                                room=fields.get(b"room", b"").decode(), player=None,
                                lang="", rate=self.settings.rate, burst=self.settings.burst)
        say_moved(conn)

    def _forget(self, key: tuple[str, str], conn: RemoteConnection) -> None:
        self.remote.pop(key, None)
        self._waiting.pop(conn, None)
        conn.closed = True

    def _hello(self, key: tuple[str, str], fields: Fields, data: bytes) -> None:
        assert self.rooms is not None
        player = fields.get(b"player", b"").decode()
        conn = RemoteConnection(
            self.bus, self.fanout, stream=key[0], conn_id=key[1],
            room=fields.get(b"room", b"").decode(),
            player=int(player) if player.isdigit() else None,
            lang=pick_language(fields.get(b"lang", b"").decode()),
            rate=self.settings.rate, burst=self.settings.burst)
        if len(self.remote) >= self.settings.max_conns:
            assert self._error is not None
            conn.close(self._error(conn, "busy", N_("the server is full: try again later"),
                                   None))
            return
        self.remote[key] = conn
        self._waiting[conn] = []
        task = asyncio.create_task(self._welcome(key, conn, data))
        self._hellos.add(task)
        task.add_done_callback(self._hellos.discard)

    async def _welcome(self, key: tuple[str, str], conn: RemoteConnection,
                       data: bytes) -> None:
        """Hand the relayed hello to its room, as
        :meth:`unokit.server.game_socket.Connection.serve` does a local one (the relay
        checked the frame, the protocol version and the address)."""
        assert self.rooms is not None and self._error is not None
        try:
            hello = P.decode_client(data, self.settings.max_json_depth)
            if not isinstance(hello, P.Hello):
                raise P.ProtocolError("bad_message", N_("the first message is a hello"))
            if hello.lang:
                conn.lang = pick_language(hello.lang)
            conn.ack_in_events = hello.ack_in_events
            room = await self.rooms.live(hello.room)
        except (P.ProtocolError, RoomError) as exc:
            self._forget(key, conn)
            conn.closed = False
            conn.close(self._error(conn, exc.code, exc, None))
            return
        if conn.closed:  # the client went meanwhile
            return
        self._rooms_of[conn] = room
        room.submit(inbox.Hello(conn, hello))
        waiting = self._waiting.pop(conn, [])
        for message in waiting:
            if self._take is not None and not conn.closed:
                self._take(conn, room, self.rooms, None if message is None
                           else message.decode(errors="replace"),
                           self.settings.max_json_depth)
