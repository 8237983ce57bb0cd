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
import contextlib
import math
from collections.abc import AsyncIterator
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.types import ASGIApp

from unokit import i18n, web
from unokit.formats.fairdeal import verify_record
from unokit.i18n import N_, localize, pick_language
from unokit.server import accounts, admin, leaderboards, replays, rewards
from unokit.server.access import read_token
from unokit.server.cluster import Cluster
from unokit.server.cluster_views import SharedRoomList, with_presence
from unokit.server.game_socket import error_bytes, game_socket, take_message
from unokit.server.limits import Limits, Refused, json_body, refused_response
from unokit.server.metrics import count_rooms
from unokit.server.observe import Observe, client_address, route_patterns
from unokit.server.outage import RETRY_AFTER
from unokit.server.passwords import LoginLimits, Passwords
from unokit.server.presence import ENDED
from unokit.server.published import Published
from unokit.server.room import Room
from unokit.server.roomlist import OpenRoomList
from unokit.server.rooms import Rooms
from unokit.server.seating import RoomError
from unokit.server.settings import Settings
from unokit.server.socket_front import SocketFront
from unokit.server.wire import KeepSend


def _json(data: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(data), status_code=status,
                    media_type="application/json")


def _room_error(exc: RoomError, request: Request) -> Response:
    """The JSON error of ``exc``, its message in the request's ``Accept-Language``; a
    503 (the database does not answer, the server is restarting) says when to try again
    (``Retry-After`` and ``retry_after``)."""
    request.app.state.rooms.oversight.metrics.errors.labels(exc.code).inc()
    if isinstance(exc, Refused):
        return refused_response(exc, request.headers)
    status = {"no_room": 404, "not_started": 409, "closing": 503, "banned": 403,
              "unavailable": 503}.get(exc.code, 400)
    lang = pick_language(request.headers.get("accept-language"))
    body: dict[str, Any] = {"error": exc.code, "message": exc.text(lang)}
    if status != 503:
        return _json(body, status)
    response = _json({**body, "retry_after": RETRY_AFTER}, status)
    response.headers["Retry-After"] = str(math.ceil(RETRY_AFTER))
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
        cluster.attach(shared, take_message, error_bytes)

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
