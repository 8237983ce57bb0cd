"""The relay: a client of a room that another process owns, served through Redis.

A process that gets a hello for a room another live process owns (its lease says so)
keeps the client's WebSocket and relays: it forwards the hello, every message and the
end of the connection to the owner's stream (:class:`~unokit.server.fanout_redis.Bus`),
and sends the client what the owner sends back, each entry tagged with the room and
``seq`` (:mod:`unokit.server.fanout_redis`).

Redis is a hint and the database is the log. For each client the relay knows the last
event it sent (first the hello's ``last_seq``); a message whose first event comes after
a gap, or Redis coming back after it was away (entries may be lost), makes it read the
room from the database, replay it (:meth:`RoomState.restore
<unokit.server.room_state.RoomState.restore>`, in a thread) and send each client the
events it missed, as that client's viewer sees them; later entries wait meanwhile, and
events already sent are left out of them. So every client gets each event once, in
order.

Every :data:`OWNER_CHECK` lease renewals the relay reads the owners of its rooms: a
client whose room moved to another process is told ``bye`` (``reconnect: true``) and
resumes wherever it reconnects.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
from sqlalchemy import select

from unokit.engine.events import redact
from unokit.engine.phases import MATCH_OVER
from unokit.i18n import N_, localize
from unokit.server import protocol as P
from unokit.server.fanout import SPECTATORS
from unokit.server.fanout_redis import Bus, Fields, entry_fields, stream_of
from unokit.server.moved import MOVED
from unokit.server.room_base import seatless_text, table_facts
from unokit.server.room_state import RoomState
from unokit.server.seating import RoomError, language
from unokit.store import Store, StoredRoom, StoreError
from unokit.store.leases import LEASES
from unokit.store.models import RoomRow

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

    from unokit.server.settings import Settings

LOG = logging.getLogger("unokit.cluster")

HELLO_TIMEOUT = 15.0
"""Seconds the relay waits for the owner's answer to a hello; then the client is told to
try again (``unavailable``)."""
AWAY = N_("the server process that runs this room cannot be reached now: send it again "
          "in a moment")
"""The refusal of a message the relay could not forward (Redis is away)."""

REFUSED_LIMIT = 200
"""Messages refused in a row (over the rate) after which the relay closes a client, as
:data:`unokit.server.game_socket.REFUSED_LIMIT` for a local one."""
UNANSWERED = 256
"""Unanswered message ids kept per client (the oldest go first)."""
ANSWERS = (b'{"type":"ack"', b'{"type":"error"', b'{"type":"snapshot"',
           b'{"type":"pong"')
"""How the messages that answer a client's message by its id begin."""

ErrorBytes = Callable[[Any, str, object, str | None], bytes]
"""``(connection, code, message, id)``: an error message for that connection."""


@dataclass(eq=False)
class Relayed:
    """One client of this process in a room another process owns."""

    conn: Any
    """The client's connection (:class:`unokit.server.game_socket.Connection`)."""
    conn_id: str
    code: str
    owner: str
    """The owner's lease owner text (its stream is named after it)."""
    delivered: int
    """The sequence number of the last event sent to the client."""
    viewer: int = SPECTATORS
    joined: bool = False
    """Whether the owner answered the hello (messages for the whole room come only
    after)."""
    pending: collections.deque[tuple[str, bytes | None, int | None, int | None]] = field(
        default_factory=collections.deque)
    """Entries that came while the room was repaired: (kind, data, first, last)."""
    unanswered: dict[str, None] = field(default_factory=dict)
    """Ids of the client's messages forwarded and not answered yet (oldest first, at
    most :data:`UNANSWERED`): if Redis was away meanwhile, they may be lost, and the
    client is told to send them again."""


def missed_events(stored: StoredRoom, settings: Settings,
                  wanted: list[tuple[int, int]]) -> tuple[list[bytes | None], int]:
    """The room's events after ``after`` as ``viewer`` sees them, for each
    ``(viewer, after)`` of ``wanted`` (an events message, or ``None``: nothing missed),
    and the room's last event sequence number, from the stored room (its actions
    replayed). CPU work: run it in a thread.

    Raises:
        UnoError: the stored actions do not replay.
    """
    rules = RoomState.rules_of(stored)
    state = RoomState.restore(stored, rules, settings=settings, now=time.time(),
                              monotonic=time.monotonic())
    game, driver = state.game, state.driver
    if game is None or driver is None:
        return [None for _ in wanted], -1
    last = game.log[-1].seq if game.log else -1
    over = game.phase is MATCH_OVER or state.status == "abandoned"
    out: list[bytes | None] = []
    for viewer, after in wanted:
        events = [e for e in game.log[max(0, after + 1):] if e.seq > after]
        if not events:
            out.append(None)
            continue
        view = None if viewer < 0 else viewer
        legal = ([] if view is None or over
                 else [seatless_text(a) for a in game.legal_actions(view)])
        facts = table_facts(game)
        out.append(P.encode(P.Events(
            events=[redact(e, view).to_dict() for e in events], lead=driver.lead(),
            phase=str(game.phase), legal=legal, must=bool(legal) and view == driver.lead(),
            pile=facts["pile"], pending=facts["pending"], uno_open=facts["uno_open"])))
    return out, last


_EVENTS = msgspec.json.Decoder(P.Events)


def after_only(data: bytes, delivered: int) -> bytes | None:
    """An events message without its events up to ``delivered`` (already sent): the
    rest of it; only its ack when no event is left (``None``: nothing to send).

    >>> m = P.encode(P.Events(events=[{"seq": 4}, {"seq": 5}], ack=P.Ack(id="a", seq=5)))
    >>> after_only(m, 4)
    b'{"type":"events","events":[{"seq":5}],"ack":{"type":"ack","id":"a","seq":5}}'
    >>> after_only(m, 5), after_only(P.encode(P.Events(events=[{"seq": 4}])), 4)
    (b'{"type":"ack","id":"a","seq":5}', None)
    """
    message = _EVENTS.decode(data)
    events = [e for e in message.events if e["seq"] > delivered]
    if events:
        return P.encode(msgspec.structs.replace(message, events=events))
    return None if message.ack is None else P.encode(message.ack)


class Relay:
    """This process's clients of rooms that other processes own."""

    def __init__(self, bus: Bus, settings: Settings, error: ErrorBytes) -> None:
        self.bus = bus
        self.settings = settings
        self.error = error
        self.store: Store | None = None
        self.clients: dict[str, Relayed] = {}
        """conn id -> client."""
        self.by_room: dict[str, set[Relayed]] = {}
        self.repairing: set[str] = set()
        """Rooms being repaired from the database now."""
        self.repairs = 0
        """Repairs made (a gap found, or Redis back)."""
        self.repaired_events = 0
        """Events sent from the database by repairs."""
        self._ids = itertools.count()
        self._tasks: set[asyncio.Task[None]] = set()
        self._watch: asyncio.Task[None] | None = None

    def start(self, store: Store) -> None:
        """Start watching the owners of the rooms relayed."""
        self.store = store
        self._watch = asyncio.create_task(self._watch_owners(), name="relay-owners")

    async def stop(self) -> None:
        """Stop; every client is told to reconnect."""
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        for task in list(self._tasks):
            task.cancel()
        for client in list(self.clients.values()):
            client.conn.close(P.encode(P.Bye(reason=localize(
                language(client.conn), N_("the server is restarting")), reconnect=True,
                code="restarting")))

    # ------------------------------------------------------------ the client's side
    async def owner_of(self, code: str) -> str:
        """The lease owner of the room ``code`` ("" for none)."""
        assert self.store is not None

        def read(connection: Any) -> str:
            owner = connection.execute(
                select(LEASES.c.owner).join(RoomRow, RoomRow.id == LEASES.c.room_id)
                .where(RoomRow.code == code)).scalar()
            return str(owner or "")
        return await self.store.run(read)

    async def relay_or_refuse(self, websocket: WebSocket, conn: Any, hello: P.Hello,
                              text: str, refusal: RoomError) -> None:
        """Relay ``conn`` to the owner of its room; when the room has none (its lease
        was just released) or the database does not answer, answer ``refusal``."""
        code = hello.room.strip().upper()
        owner = ""
        if code.isascii() and code.isalnum() and len(code) <= 16:
            with contextlib.suppress(StoreError):
                owner = await self.owner_of(code)
        if not owner or self.store is None or owner == self.store.owner.text:
            conn.close(self.error(conn, refusal.code, refusal, None))
            return
        await self.serve(websocket, conn, hello, text, owner)

    async def serve(self, websocket: WebSocket, conn: Any, hello: P.Hello, text: str,
                    owner: str) -> None:
        """Relay the connection ``conn`` (its hello ``hello``, received as ``text``) to
        the room's owner ``owner`` until the client or the owner ends it."""
        code = hello.room.strip().upper()
        client = Relayed(conn=conn, conn_id=f"{next(self._ids)}", code=code, owner=owner,
                         delivered=hello.last_seq)
        self.clients[client.conn_id] = client
        self.by_room.setdefault(code, set()).add(client)
        stream = stream_of(owner)
        head = {"kind": "h", "conn": client.conn_id, "reply": self.bus.me, "room": code,
                "player": "" if conn.player is None else conn.player, "lang": conn.lang}
        self.bus.send(stream, entry_fields(head, text.encode()),
                      on_fail=lambda: conn.close(self.error(conn, "unavailable", AWAY, None)))
        timeout = asyncio.get_running_loop().call_later(HELLO_TIMEOUT, self._no_answer,
                                                        client)
        try:
            while not conn.closed:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                self._forward(client, stream, message.get("text"))
        finally:
            timeout.cancel()
            self._drop(client)
            self.bus.send(stream, entry_fields({"kind": "g", "conn": client.conn_id,
                                                "reply": self.bus.me, "room": code}))

    def _no_answer(self, client: Relayed) -> None:
        if not client.joined and not client.conn.closed:
            client.conn.close(self.error(client.conn, "unavailable", AWAY, None))

    def _forward(self, client: Relayed, stream: str, text: Any) -> None:
        """Forward one frame of the client (a text, else ``None``: a binary frame, which
        the owner refuses) unless it is over the connection's rate (refused here, so
        that a flood stops at the relay)."""
        conn = client.conn
        data = text.encode() if isinstance(text, str) else None
        if not conn.allow():
            msg_id = None if data is None else P.message_id(data)
            conn.deliver(self.error(conn, "rate_limited", N_("too many messages: slow down"),
                                    msg_id))
            conn.refused += 1
            if conn.refused >= REFUSED_LIMIT:  # as the owner would: the flood ends here
                conn.close(P.encode(P.Bye(reason=localize(
                    language(conn), N_("too many refused messages")), reconnect=False,
                    code="flood")))
            return
        conn.refused = 0

        msg_id = None if data is None else P.message_id(data)
        if msg_id:
            client.unanswered.pop(msg_id, None)
            client.unanswered[msg_id] = None
            if len(client.unanswered) > UNANSWERED:
                del client.unanswered[next(iter(client.unanswered))]

        def failed() -> None:
            if msg_id:
                client.unanswered.pop(msg_id, None)
                conn.deliver(self.error(conn, "unavailable", AWAY, msg_id))
        self.bus.send(stream, entry_fields({"kind": "m", "conn": client.conn_id,
                                            "reply": self.bus.me, "room": client.code},
                                           data), on_fail=failed)

    def _drop(self, client: Relayed) -> None:
        self.clients.pop(client.conn_id, None)
        room = self.by_room.get(client.code)
        if room is not None:
            room.discard(client)
            if not room:
                del self.by_room[client.code]

    # ------------------------------------------------------------ the owner's answers
    def take(self, kind: str, fields: Fields) -> None:
        """An entry of the owner for this process's clients: ``d`` (a message for one
        client), ``c`` (close it, after a last message), ``b`` (a message of the room
        for each viewer)."""
        code = fields.get(b"room", b"").decode()
        first = _number(fields.get(b"first"))
        last = _number(fields.get(b"seq"))
        if kind == "b":
            for client in list(self.by_room.get(code, ())):
                data = fields.get(b"v%d" % client.viewer)
                if client.joined and data is not None:
                    self._take(client, "d", data, first, last)
            return
        one = self.clients.get(fields.get(b"conn", b"").decode())
        if one is None:
            return
        client = one
        if not client.joined:
            client.joined = True
        viewer = _number(fields.get(b"viewer"))
        if viewer is not None:
            client.viewer = viewer
        self._take(client, kind, fields.get(b"data"), first, last)

    def _take(self, client: Relayed, kind: str, data: bytes | None, first: int | None,
              last: int | None) -> None:
        if client.code in self.repairing:
            client.pending.append((kind, data, first, last))
            return
        if kind == "c":
            client.conn.close(data)
            return
        assert data is not None
        if client.unanswered:
            self._answered(client, data)
        if first is None or last is None:
            client.conn.deliver(data)
            return
        if first > client.delivered + 1:  # events were lost on the way: repair
            client.pending.append((kind, data, first, last))
            self.repair(client.code)
            return
        if first <= client.delivered:  # some (or all) were sent already
            trimmed = after_only(data, client.delivered)
            if trimmed is not None:
                client.conn.deliver(trimmed)
        else:
            client.conn.deliver(data)
        client.delivered = max(client.delivered, last)

    @staticmethod
    def _answered(client: Relayed, data: bytes) -> None:
        """Forget the id that ``data`` answers (an ack, an error, a snapshot, or an
        events message with an ack)."""
        msg_id = None
        if data.startswith(ANSWERS):
            msg_id = P.message_id(data)
        elif b'"ack":' in data and data.startswith(b'{"type":"events"'):
            ack = _EVENTS.decode(data).ack
            msg_id = None if ack is None else ack.id
        if msg_id:
            client.unanswered.pop(msg_id, None)

    def back(self) -> None:
        """Redis answers again after it was away: what it lost is repaired, in every room
        relayed: the events from the database, and each client is told to send again the
        messages still unanswered (``unavailable``; the owner answers a message it had
        already applied with the same answer, and applies it once)."""
        for client in list(self.clients.values()):
            waiting, client.unanswered = client.unanswered, {}
            for msg_id in waiting:
                client.conn.deliver(self.error(client.conn, "unavailable", AWAY, msg_id))
        for code in list(self.by_room):
            self.repair(code)

    def repair(self, code: str) -> None:
        """Send every client of the room ``code`` the events it missed, from the
        database (in a task; the room's entries wait until it is done)."""
        if code in self.repairing or self.store is None:
            return
        self.repairing.add(code)
        task = asyncio.create_task(self._repair(code), name=f"relay-repair-{code}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _repair(self, code: str) -> None:
        assert self.store is not None
        clients = [c for c in self.by_room.get(code, ()) if c.joined]
        try:
            try:
                [stored] = await self.store.load_rooms(code=code)
                wanted = [(c.viewer, c.delivered) for c in clients]
                messages, _ = await asyncio.to_thread(missed_events, stored, self.settings,
                                                      wanted)
            except Exception as exc:  # the client resumes from the database itself
                LOG.warning("relay could not repair a room: its clients reconnect",
                            extra={"room": code, "error": str(exc)[:200]})
                for client in clients:
                    client.pending.clear()
                    client.conn.close(P.encode(P.Bye(reason=localize(
                        language(client.conn), MOVED), reconnect=True, code="moved")))
                return
            self.repairs += 1
            for client, data in zip(clients, messages, strict=True):
                if data is not None and not client.conn.closed:
                    last = _EVENTS.decode(data).events[-1]["seq"]
                    self.repaired_events += last - client.delivered
                    client.conn.deliver(data)
                    client.delivered = last
        finally:
            self.repairing.discard(code)
        for client in list(self.by_room.get(code, ())):
            waiting, client.pending = client.pending, collections.deque()
            while waiting:
                self._take(client, *waiting.popleft())
                if code in self.repairing:  # another gap: the rest waits for that repair
                    client.pending.extend(waiting)
                    break

    async def _watch_owners(self) -> None:
        while True:
            await asyncio.sleep(self.settings.lease_renew)
            self.say_alive()
            try:
                await self.check_owners()
            except Exception as exc:  # the database is away: look again next time
                LOG.warning("relay: owners not checked", extra={"error": str(exc)[:200]})

    def say_alive(self) -> None:
        """Tell each owner which of its clients this process still relays (an entry
        ``l``): the owner lets go of the others (their ``g`` was lost), and of every
        client of a relay it has not heard from for a while (that process is gone)."""
        ids: dict[str, list[str]] = {}
        for client in self.clients.values():
            ids.setdefault(client.owner, []).append(client.conn_id)
        for owner, conns in ids.items():
            self.bus.send(stream_of(owner), entry_fields(
                {"kind": "l", "reply": self.bus.me}, ",".join(conns).encode()))

    async def check_owners(self) -> None:
        """Tell ``bye`` (``reconnect: true``) to the clients whose room has another
        owner now (it moved, or its owner stopped)."""
        for code in list(self.by_room):
            owner = await self.owner_of(code)
            for client in list(self.by_room.get(code, ())):
                if client.owner != owner:
                    client.conn.close(P.encode(P.Bye(
                        reason=localize(language(client.conn), MOVED), reconnect=True,
                        code="moved")))


def _number(value: bytes | None) -> int | None:
    return None if value is None else int(value)
