"""The server's web application (Starlette): the HTTP API and the game's WebSocket.

======================================  ==============================================
``GET /healthz``                        the process is up
``GET /readyz``                         the database answers and every room is back
``GET /api/presets``                    the presets a room may start from
``GET /api/rooms``                      the public rooms that wait for players, a page
                                        of them (``?offset=0&limit=100``)
``POST /api/rooms``                     a new room: ``{"rules", "seats", "turn_timer",
                                        "public", "bots", "rated"}``
``POST /api/play-now``                  a room against bots, started at once:
                                        ``{"rules", "bot", "turn_timer"}``
``GET /api/rooms/{code}``               a room as everyone sees it
``GET /api/rooms/{code}/record``        the match record (with the server seed once
                                        the match is over)
``GET /api/rooms/{code}/verify``        the record's fairness checks (``unokit verify``)
``/api/guest``, ``/api/me``,             players, sessions and accounts
``/api/players/..``, ``/api/account/..``  (:mod:`unokit.server.accounts`)
``/api/challenges..``, ``/api/shop..``  challenges, coins and cosmetics
                                        (:mod:`unokit.server.rewards`)
``/api/leaderboards/{kind}``             leaderboards (:mod:`unokit.server.leaderboards`)
``GET /r/{code}``                       the invite link (the web page for a browser)
``GET /metrics``, ``/admin/...``        the operator's (:mod:`unokit.server.admin`)
``GET /``, ``/static/...``, ``/i18n/..`` the web client (docs/web.md)
``WS /ws``, ``WS /ws/{code}``            the game (docs/protocol.md); the second names
                                        the room in its path, for a proxy to route by
======================================  ==============================================

With the setting ``base_path`` (``/uno``) every path is under it (``/uno/ws``, ...).

>>> from starlette.testclient import TestClient
>>> from unokit.server.settings import Settings
>>> with TestClient(create_app(Settings(database_url="sqlite://"))) as client:
...     client.get("/healthz").json(), client.get("/api/presets").json()[0]["name"]
({'ok': True}, 'online')
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.types import ASGIApp
from starlette.websockets import WebSocket, WebSocketDisconnect

from unokit import i18n, web
from unokit.engine.errors import Reason
from unokit.formats.fairdeal import verify_record
from unokit.i18n import N_, localize, pick_language
from unokit.server import accounts, admin, inbox, leaderboards, replays, rewards
from unokit.server import protocol as P
from unokit.server.access import read_token
from unokit.server.cluster import Cluster
from unokit.server.cluster_views import SharedRoomList, with_presence
from unokit.server.fanout import SPECTATORS
from unokit.server.limits import Limits, Refused, check_origin, json_body, take_token
from unokit.server.logs import CONNECTION_ID
from unokit.server.metrics import NO_METRICS, count_rooms
from unokit.server.observe import Observe, client_address, route_patterns
from unokit.server.outage import RETRY_AFTER, RETRY_CODES
from unokit.server.ownership import Elsewhere
from unokit.server.passwords import LoginLimits, Passwords
from unokit.server.presence import ENDED
from unokit.server.published import Published
from unokit.server.room import Room
from unokit.server.roomlist import OpenRoomList
from unokit.server.rooms import Rooms
from unokit.server.seating import RoomError
from unokit.server.sessions import socket_player
from unokit.server.settings import Settings
from unokit.server.socket_front import SocketFront
from unokit.server.wire import KeepSend, detach, direct_writer, raw_send

LOG = logging.getLogger("unokit.server")

SEND_QUEUE = 2048
"""Messages a connection may have waiting to be sent; a client that falls further behind
is disconnected (it comes back and resumes from the last event it saw)."""
HELLO_TIMEOUT = 15.0
"""Seconds a new connection has to say which room it is for."""
REFUSED_LIMIT = 200
"""Refused messages in a row after which a connection is closed."""


NOTHING_WAITS: collections.deque[bytes] = collections.deque(maxlen=0)
"""The send queue of every connection that has nothing waiting (never appended to:
a connection makes its own deque for its first waiting message)."""


class Connection:
    """One WebSocket client: its viewer, its send queue, its rate limit. Slotted, and
    its send queue made on first need: thousands of idle ones are held at once
    (``benchmarks/idle_connections.py``)."""

    __slots__ = ("_sending", "_wake", "_write_now", "_writer", "ack_in_events", "burst",
                 "closed", "id", "lang", "metrics", "outbox", "player", "rate", "refusals",
                 "refused", "room", "stamp", "start_writer", "tokens", "viewer", "websocket")

    def __init__(self, websocket: WebSocket, settings: Settings) -> None:
        self.metrics = NO_METRICS
        """Where the errors sent are counted (the server's metrics)."""
        self.websocket = websocket
        self.id = CONNECTION_ID.get() or "-"
        """The connection's id, in the log lines about it."""
        self.viewer = SPECTATORS
        self.player: int | None = None
        """The player of the connection's session cookie or API token (its seat is
        theirs: docs/accounts.md)."""
        self.room: Room | None = None
        self.outbox: collections.deque[bytes] = NOTHING_WAITS
        """Messages waiting for the writer (at most :data:`SEND_QUEUE`); the shared
        empty :data:`NOTHING_WAITS` until one waits."""
        self._wake: asyncio.Future[None] | None = None
        self._write_now = direct_writer(raw_send())
        """Writes a message at once when it can (:mod:`unokit.server.wire`); else the
        writer task sends it."""
        self._sending = False
        """Whether the writer task has a message under way (later ones wait for it)."""
        self.start_writer: Callable[[], Coroutine[Any, Any, None]] | None = None
        """What the writer task runs (:meth:`writer`, then the closing): it starts when
        a message first waits, or at the close. An idle connection whose messages are
        all written at once has no task of its own."""
        self._writer: asyncio.Task[None] | None = None
        self.closed = False
        self.rate = settings.rate
        self.burst = float(settings.burst)
        self.tokens = self.burst
        self.stamp = asyncio.get_running_loop().time()
        self.refused = 0
        self.lang = pick_language(websocket.headers.get("accept-language"))
        """The language of the error texts: the hello's ``lang``, else the request's
        ``Accept-Language``."""
        self.ack_in_events = False
        """The hello's ``ack_in_events``."""

    def deliver(self, data: bytes) -> None:
        """Queue a message; a client too far behind is closed."""
        if self.closed:
            return
        self.metrics.sent(data)
        write_now = self._write_now
        if (write_now is not None and not self.outbox and not self._sending
                and write_now(data)):
            return
        if len(self.outbox) >= SEND_QUEUE:
            LOG.warning("slow client disconnected", extra={"conn": self.id})
            self.closed = True
            self.outbox = NOTHING_WAITS
        else:
            if self.outbox is NOTHING_WAITS:
                self.outbox = collections.deque()
            self.outbox.append(data)
        self._poke()

    def writer_task(self) -> asyncio.Task[None] | None:
        """The writer task, if it started."""
        return self._writer

    def _poke(self) -> None:
        if self._writer is None and self.start_writer is not None:
            self._writer = asyncio.get_running_loop().create_task(self.start_writer())
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    def close(self, data: bytes | None = None) -> None:
        """Send ``data`` (if any), then close."""
        if self.closed:
            return
        if data is not None:
            self.deliver(data)
        self.closed = True
        self._poke()

    def allow(self) -> bool:
        """Take one message from the rate limit (a token bucket)."""
        return take_token(self, asyncio.get_running_loop().time())

    async def writer(self) -> None:
        """Send queued messages until closed: every message waiting when the writer
        wakes goes out before it sleeps again."""
        send = self.websocket.send
        loop = asyncio.get_running_loop()
        while True:
            self._sending = True
            try:
                while self.outbox:
                    await send({"type": "websocket.send",
                                "text": self.outbox.popleft().decode()})
                self.outbox = NOTHING_WAITS  # drained: its own deque goes
            finally:
                self._sending = False
            if self.closed:
                return
            self._wake = loop.create_future()
            await self._wake
            self._wake = None


def _error(conn: Connection, code: str, message: object, msg_id: str | None = None) -> bytes:
    """An error for ``conn``, its text (a marked message or an error with a template) in
    the connection's language (with ``retry_after`` when it says to send it again, or
    when it is :class:`Elsewhere`, to say hello again)."""
    retry_after = (message.retry_after if isinstance(message, Elsewhere)
                   else RETRY_AFTER if code in RETRY_CODES else None)
    return P.encode(P.Error(code=code, message=localize(conn.lang, message), id=msg_id,
                            retry_after=retry_after))


async def game_socket(websocket: WebSocket) -> None:
    """The ``/ws`` endpoint: a :class:`Hello`, then messages until the client goes.
    A handshake from another site's page, or over a connection limit, is refused
    before it is accepted (an HTTP answer: 403, or 429/503 with ``Retry-After``)."""
    rooms: Rooms = websocket.app.state.rooms
    limits: Limits = websocket.app.state.limits
    address = client_address(websocket.scope)
    try:
        check_origin(websocket.headers, rooms.settings)
        limits.connect(address)
    except Refused as exc:
        await _deny(websocket, exc)
        return
    detached = False
    try:
        detached = await _game_socket(websocket, rooms, lambda: limits.disconnect(address))
    finally:
        if not detached:
            limits.disconnect(address)


async def _deny(websocket: WebSocket, exc: Refused) -> None:
    """Refuse a WebSocket handshake with the JSON error of ``exc`` (or, where the server
    cannot answer a handshake with a response, a plain refusal)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(_refused_response(exc, websocket.headers))
    else:
        await websocket.close(1008 if exc.status == 403 else 1013)


_ENDING: set[asyncio.Task[None]] = set()
"""The endings of detached connections under way (a task holds no reference to
itself)."""


async def _game_socket(websocket: WebSocket, rooms: Rooms, release: Callable[[], None]) -> bool:
    """Serve a game connection; whether it was detached (:func:`unokit.server.wire.detach`):
    then it lives on in callbacks after this returns, and its end (which calls
    ``release``) is theirs."""
    await websocket.accept()
    conn = Connection(websocket, rooms.settings)
    conn.player = await socket_player(rooms.store, websocket, rooms.settings,
                                      rooms.clock())
    conn.metrics = rooms.oversight.metrics
    conn.metrics.open_sockets += 1

    async def write_then_close() -> None:
        # a connection the room closes (a refused hello, a kick, a client too far
        # behind, too many refusals) is closed at once, not when the client next sends
        await conn.writer()
        with contextlib.suppress(Exception):
            await websocket.close(1012 if rooms.closing else 1000)

    conn.start_writer = write_then_close

    async def end() -> None:
        conn.metrics.open_sockets -= 1
        if conn.room is not None:
            conn.room.submit(inbox.Gone(conn))
        conn.close()
        writer = conn.writer_task()
        with contextlib.suppress(Exception):
            if writer is not None:
                await asyncio.wait_for(writer, 5)
        with contextlib.suppress(Exception):
            await websocket.close(1012 if rooms.closing else 1000)

    def gone() -> None:  # the end of a detached connection
        async def end_then_release() -> None:
            try:
                await end()
            finally:
                release()
        task = asyncio.get_running_loop().create_task(end_then_release())
        _ENDING.add(task)
        task.add_done_callback(_ENDING.discard)

    detached = False
    try:
        detached = await _serve(websocket, conn, rooms, gone)
    except WebSocketDisconnect:
        pass
    finally:
        if not detached:
            await end()
    return detached


def _frame(message: Mapping[str, Any]) -> str | None:
    """The text of a received frame; ``None`` for a binary frame (the protocol is text:
    JSON in text frames)."""
    text = message.get("text")
    return text if isinstance(text, str) else None


BINARY = N_("binary frames are refused: send each message as JSON in a text frame")


async def _serve(websocket: WebSocket, conn: Connection, rooms: Rooms,
                 gone: Callable[[], None]) -> bool:
    """The hello, then the connection's messages: whether it was detached (its messages
    and its end go to callbacks: ``gone`` at the end), else it returns when the
    connection ends."""
    depth = rooms.settings.max_json_depth
    try:
        message = await asyncio.wait_for(websocket.receive(), HELLO_TIMEOUT)
    except TimeoutError:
        conn.close(_error(conn, "bad_message", N_("say hello first (docs/protocol.md)")))
        return False
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    first = _frame(message)
    if first is None:
        conn.close(_error(conn, "bad_message", BINARY))
        return False
    try:
        hello = P.decode_client(first, depth)
    except P.ProtocolError as exc:
        conn.close(_error(conn, exc.code, exc))
        return False
    if not isinstance(hello, P.Hello):
        conn.close(_error(conn, "bad_message", N_("the first message is a hello")))
        return False
    if hello.lang:
        conn.lang = pick_language(hello.lang)
    conn.ack_in_events = hello.ack_in_events
    if hello.v != P.VERSION:
        conn.close(_error(conn, "version", Reason("this server speaks protocol version "
                                                  "{version}", version=P.VERSION)))
        return False
    path_code = websocket.path_params.get("code")
    if path_code is not None and path_code.strip().upper() != hello.room.strip().upper():
        conn.close(_error(conn, "bad_message", N_("the hello names another room than the "
                                                  "path (/ws/CODE)")))
        return False
    try:
        rooms.oversight.check_address(client_address(websocket))
        room = await rooms.live(hello.room)
    except Elsewhere as exc:  # another process owns it: relayed there, if in a cluster
        cluster: Cluster | None = websocket.app.state.cluster
        if cluster is None or cluster.relay is None:
            conn.close(_error(conn, exc.code, exc))
        else:
            await cluster.relay.relay_or_refuse(websocket, conn, hello, first, exc)
        return False
    except RoomError as exc:
        conn.close(_error(conn, exc.code, exc))
        return False
    conn.room = room
    room.submit(inbox.Hello(conn, hello))

    def take(data: str | None) -> None:
        if not conn.closed:
            _take(conn, room, rooms, data, depth)

    # where the server can (wire.detach), every message comes to ``take`` at once and
    # the end to ``gone``, with no task waiting; elsewhere they come through ASGI
    if detach(raw_send(), take, gone):
        # nothing reads the request again: an idle connection keeps none of it
        websocket.scope = {"type": "websocket"}
        websocket.__dict__.pop("_headers", None)
        return True
    while not conn.closed:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return False
        take(_frame(message))
    return False


def _take(conn: Connection, room: Room, rooms: Rooms, data: str | None, depth: int) -> None:
    """One message of a welcomed connection (``None``: a binary frame): checked, then
    handed to its room, or refused."""
    if data is None:
        conn.refused += 1
        conn.deliver(_error(conn, "bad_message", BINARY))
    elif not conn.allow():
        conn.refused += 1
        msg_id = P.message_id(data, depth)
        conn.deliver(_error(conn, "rate_limited", N_("too many messages: slow down"),
                            msg_id))
    else:
        try:
            parsed = P.decode_client(data, depth)
        except P.ProtocolError as exc:
            conn.refused += 1
            msg_id = P.message_id(data, depth)
            conn.deliver(_error(conn, exc.code, exc, msg_id))
        else:
            if isinstance(parsed, P.Hello):
                conn.refused += 1
                conn.deliver(_error(conn, "bad_message", N_("already said hello")))
            elif rooms.closing:
                conn.deliver(_error(conn, "closing", N_(
                    "the server is restarting: send it again after reconnecting"),
                    getattr(parsed, "id", None)))
            else:
                conn.refused = 0
                room.submit(inbox.Message(conn, parsed))
    if conn.refused >= REFUSED_LIMIT:
        conn.close(P.encode(P.Bye(reason=localize(conn.lang, N_("too many refused messages")),
                                  reconnect=False, code="flood")))


def _json(data: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(data), status_code=status,
                    media_type="application/json")


def _room_error(exc: RoomError, request: Request) -> Response:
    """The JSON error of ``exc``, its message in the request's ``Accept-Language``; a
    503 (the database does not answer, the server is restarting) says when to try again
    (``Retry-After`` and ``retry_after``)."""
    request.app.state.rooms.oversight.metrics.errors.labels(exc.code).inc()
    if isinstance(exc, Refused):
        return _refused_response(exc, request.headers)
    status = {"no_room": 404, "not_started": 409, "closing": 503, "banned": 403,
              "unavailable": 503}.get(exc.code, 400)
    lang = pick_language(request.headers.get("accept-language"))
    body: dict[str, Any] = {"error": exc.code, "message": exc.text(lang)}
    if status != 503:
        return _json(body, status)
    response = _json({**body, "retry_after": RETRY_AFTER}, status)
    response.headers["Retry-After"] = str(math.ceil(RETRY_AFTER))
    return response


def _refused_response(exc: Refused, headers: Any) -> Response:
    """The JSON error of a limit, with its status and ``Retry-After``."""
    lang = pick_language(headers.get("accept-language"))
    response = _json({"error": exc.code, "message": exc.text(lang)}, exc.status)
    if exc.retry_after:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


async def _body(request: Request) -> dict[str, Any]:
    """The JSON object of a POST (:func:`unokit.server.limits.json_body`)."""
    return await json_body(request, request.app.state.rooms.settings)


def _field(data: dict[str, Any], name: str, kind: type | tuple[type, ...],
           default: Any = None) -> Any:
    value = data.get(name, default)
    if value is not None and (not isinstance(value, kind) or (isinstance(value, bool)
                              and kind is int)):
        raise RoomError("bad_request", N_("{name}: wrong type"), name=name)
    return value


def _rules_field(data: dict[str, Any]) -> str | dict[str, Any] | None:
    rules = data.get("rules")
    if rules is not None and not isinstance(rules, str | dict):
        raise RoomError("bad_request", N_("rules: a rule string or an object"))
    return rules


async def healthz(request: Request) -> Response:
    """The process is up."""
    return _json({"ok": True})


async def readyz(request: Request) -> Response:
    """Ready when every room is back and the database answers."""
    rooms: Rooms = request.app.state.rooms
    ok = rooms.ready and not rooms.closing and rooms.store is not None
    if ok:
        assert rooms.store is not None
        try:
            ok = await asyncio.wait_for(rooms.store.ping(), 5)
        except Exception:
            ok = False
    return _json({"ready": ok, "rooms": len(rooms.rooms), "restored": rooms.restored},
                 200 if ok else 503)


async def presets(request: Request) -> Response:
    """The presets offered."""
    return _json(Rooms.presets())


def _count(request: Request, name: str, default: int, most: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 9 or int(text) > most:
        raise RoomError("bad_request", N_("{name}: a whole number from 0 to {most}"),
                        name=name, most=most)
    return int(text)


async def list_rooms(request: Request) -> Response:
    """The open rooms, newest first: a page of at most ``limit`` (``room_list_max``,
    the default too) from ``offset`` on. The header ``X-Total-Count`` says how many are
    open, and ``Link`` (``rel="next"``) where the next page is."""
    listing: OpenRoomList = request.app.state.room_list
    most = request.app.state.rooms.settings.room_list_max
    try:
        limit = _count(request, "limit", most, most)
        offset = _count(request, "offset", 0, 10**9)
    except RoomError as exc:
        return _room_error(exc, request)
    page, total = await listing.read(offset, limit)
    response = _json(page)
    response.headers["X-Total-Count"] = str(total)
    if offset + limit < total:
        response.headers["Link"] = (f'</api/rooms?offset={offset + limit}&limit={limit}>; '
                                    f'rel="next"')
    return response


async def _new_room(request: Request, create: Any) -> Room:
    """A room made by ``create()`` for the request's address, within its limits."""
    rooms: Rooms = request.app.state.rooms
    limits: Limits = request.app.state.limits
    address = client_address(request.scope)
    limits.may_create(address, len(rooms.rooms))
    room: Room = await create()
    limits.created(address, room)
    request.app.state.room_list.invalidate()
    return room


async def create_room(request: Request) -> Response:
    """A new room; its code and invite link."""
    rooms: Rooms = request.app.state.rooms
    try:
        rooms.oversight.check_address(client_address(request))
        data = await _body(request)
        rules = _rules_field(data)
        bots = _field(data, "bots", list, [])
        if not all(isinstance(b, str) for b in bots):
            raise RoomError("bad_request", N_("bots: a list of bot names"))
        seats, turn_timer = _field(data, "seats", int), _field(data, "turn_timer", int)
        public = _field(data, "public", bool, True)
        rated = _field(data, "rated", bool, True)
        room = await _new_room(request, lambda: rooms.create(
            rules, seats=seats, turn_timer=turn_timer, public=public, bots=bots,
            rated=rated))
    except RoomError as exc:
        return _room_error(exc, request)
    return _json({"code": room.code, "invite": room.info().invite}, 201)


async def play_now(request: Request) -> Response:
    """A room of bots around seat 0, started as soon as its player says hello."""
    rooms: Rooms = request.app.state.rooms
    try:
        rooms.oversight.check_address(client_address(request))
        data = await _body(request)
        rules = _rules_field(data)
        bot = _field(data, "bot", str, "normal")
        parsed_players = rooms_players(rules)
        turn_timer = _field(data, "turn_timer", int)
        room = await _new_room(request, lambda: rooms.create(
            rules, public=False, turn_timer=turn_timer, bots=[bot] * (parsed_players - 1)))
        room.auto_start = True
    except RoomError as exc:
        return _room_error(exc, request)
    return _json({"code": room.code, "invite": room.info().invite}, 201)


def rooms_players(rules: Any) -> int:
    """How many seats a rule set has."""
    from unokit.server.rooms import room_rules
    return room_rules(rules).players


async def room_info(request: Request) -> Response:
    """A room as everyone sees it."""
    try:
        room = await request.app.state.rooms.find(request.path_params["code"])
    except RoomError as exc:
        return _room_error(exc, request)
    cluster = request.app.state.cluster
    return _json(await with_presence(room.info(), cluster and cluster.presence,
                                     request.app.state.rooms.rooms.get(room.code) is room))


def _record_json(room: Room) -> bytes:
    return msgspec.json.encode(room.record().to_dict())


def _verify_json(room: Room) -> bytes:
    report = verify_record(room.record(), published=room.commitment)
    return msgspec.json.encode({
        "passed": report.passed,
        "checks": [{"name": c.name, "passed": c.passed, "reason": c.reason}
                   for c in report.checks]})


async def _published(request: Request, kind: str) -> Response:
    """The record or checks of a finished match: built once, in a worker thread."""
    published: Published = request.app.state.published
    code = request.path_params["code"].strip().upper()
    try:
        key = await request.app.state.rooms.match_key(code)  # a rematch: another match
    except RoomError as exc:
        return _room_error(exc, request)
    data = published.cached(key, kind)
    if data is None:
        try:
            room = await request.app.state.rooms.find(code)
            if room.status not in ENDED:
                room.record()  # raises the error that says why there is none yet
                raise RoomError("not_started", N_("the match has not started"))
        except RoomError as exc:
            return _room_error(exc, request)
        build = _record_json if kind == "record" else _verify_json
        data = await published.get(key, kind, lambda: build(room))
    return Response(data, media_type="application/json")


async def room_record(request: Request) -> Response:
    """The room's match record (once the match is over)."""
    return await _published(request, "record")


async def room_replay(request: Request) -> Response:
    """The finished match step by step, as one seat saw it or with every hand
    (``?seat=N|all``, :mod:`unokit.server.replays`); 409 while the match goes on."""
    view = replays.parse_view(request.query_params.get("seat", "all"))
    code = request.path_params["code"].strip().upper()
    published: Published = request.app.state.replays
    kind = f"replay:{'all' if view is None else view}"
    try:
        key = await request.app.state.rooms.match_key(code)  # a rematch: another match
    except RoomError as exc:
        return _room_error(exc, request)
    data = None if view is ... else published.cached(key, kind)
    if data is None:
        try:
            room = await request.app.state.rooms.find(code)
            if room.status not in ENDED:
                room.record()  # raises the error that says why there is none yet
                raise RoomError("not_started", N_("the match has not started"))
            if view is ... or (view is not None and view >= len(room.seats)):
                raise RoomError("bad_request", N_("seat: a seat of the match, or all"))
        except RoomError as exc:
            return _room_error(exc, request)
        seat = view
        data = await published.get(key, kind, lambda: msgspec.json.encode(
            {"code": code, **replays.replay_view(room.record(), seat)}))
    return Response(data, media_type="application/json")


async def room_verify(request: Request) -> Response:
    """The checks of ``unokit verify`` on the room's record (all pass only once the
    match is over and its server seed is revealed)."""
    return await _published(request, "verify")


_HTTP_CODES = {404: ("not_found", N_("no such page")),
               405: ("bad_method", N_("that method is not allowed here"))}


async def _http_error(request: Request, exc: Exception) -> Response:
    """A typed JSON error for a path or method the server does not have."""
    assert isinstance(exc, HTTPException)
    code, message = _HTTP_CODES.get(exc.status_code, ("bad_request", N_("a bad request")))
    lang = pick_language(request.headers.get("accept-language"))
    response = _json({"error": code, "message": localize(lang, message)}, exc.status_code)
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


class GameApp(Starlette):
    """Starlette, with the game's WebSockets taken to their endpoint in front of its
    middleware and router (:mod:`unokit.server.socket_front`)."""

    def __init__(self, *args: Any, socket_base: str = "", **kwargs: Any) -> None:
        self.socket_base = socket_base
        super().__init__(*args, **kwargs)

    def build_middleware_stack(self) -> ASGIApp:
        return SocketFront(super().build_middleware_stack(), game_socket, self.socket_base)


def create_app(settings: Settings, rooms: Rooms | None = None,
               cluster: Cluster | None = None) -> Starlette:
    """The application: open the rooms on startup, stop them on shutdown. ``cluster``:
    this process's part among several (``rooms`` given with it publish through its
    fan-out); without ``rooms`` it is made from ``settings``."""
    if rooms is None and cluster is None:
        cluster = Cluster.of(settings)
    shared = rooms or Rooms(settings, fanout=None if cluster is None else cluster.fanout)
    if cluster is not None:
        cluster.attach(shared, _take, _error)

    metrics = shared.oversight.metrics

    def live() -> tuple[dict[str, int], dict[str, int]]:
        statuses, kinds = count_rooms(list(shared.rooms.values()))
        kinds["pending"] = max(0, metrics.open_sockets - sum(kinds.values()))
        return statuses, kinds
    metrics.watch(live)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.admin_token = read_token(settings.admin_token, settings.data_dir)
        lag = asyncio.create_task(metrics.measure_lag(), name="loop-lag")
        await shared.open()
        if shared.store is not None:
            metrics.identify(shared.store.owner.text)
        if cluster is not None:
            await cluster.start()
        try:
            yield
        finally:
            lag.cancel()
            await shared.close()
            if cluster is not None:
                await cluster.stop()
            app.state.passwords.close()

    routes: list[BaseRoute] = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/api/presets", presets),
        Route("/api/rooms", list_rooms, methods=["GET"]),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/play-now", play_now, methods=["POST"]),
        Route("/api/rooms/{code}", room_info),
        Route("/api/rooms/{code}/record", room_record),
        Route("/api/rooms/{code}/verify", room_verify),
        Route("/api/rooms/{code}/replay", room_replay),
        *accounts.routes(),
        *rewards.routes(),
        *leaderboards.routes(),
        *web.routes(room_info, i18n.LANGUAGES, i18n.catalogue, i18n.plural_rule,
                    settings.base_path),
        WebSocketRoute("/ws", game_socket),
        WebSocketRoute("/ws/{code}", game_socket),
        *admin.routes(settings.metrics),
    ]
    if settings.base_path:
        routes = [Mount(settings.base_path, routes=routes)]
    app = GameApp(socket_base=settings.base_path, routes=routes, lifespan=lifespan, middleware=[
        Middleware(KeepSend),
        Middleware(Observe, metrics=metrics, patterns=route_patterns(routes))],
        exception_handlers={HTTPException: _http_error})
    app.state.rooms = shared
    app.state.cluster = cluster
    app.state.admin_token = ""
    app.state.limits = Limits(settings)
    app.state.room_list = OpenRoomList(lambda: shared.rooms.values(), settings.base_url,
                                       ttl=settings.room_list_ttl) if cluster is None else (
        SharedRoomList(shared, settings.base_url, ttl=settings.room_list_ttl))
    app.state.published = Published()
    app.state.replays = Published(kept=replays.KEPT)
    app.state.passwords = Passwords.of(settings)
    app.state.login_limits = LoginLimits(settings)
    app.state.exports = accounts.Exports()
    return app
