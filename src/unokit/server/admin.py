"""The operator's HTTP endpoints: ``/metrics`` and the admin API under ``/admin/``.

======================================  ==============================================
``GET /metrics``                        Prometheus's text format (setting ``metrics``;
                                        addresses: ``metrics_allow``)
``GET /admin/rooms``                    every room in memory: code, status, seats,
                                        connections
``POST /admin/rooms/{code}/close``      close the room (its match too): ``{"reason"}``
``POST /admin/rooms/{code}/kick``       take a person's seat: ``{"seat"}``
``GET /admin/bans``                     the bans
``POST /admin/bans``                    ban: ``{"kind": "address"|"name", "value",
                                        "reason"}``
``DELETE /admin/bans/{id}``             lift a ban
``GET /admin/flagged``                  the matches the anti-farming checks flagged,
                                        newest first (``?before=SEQ&limit=N``)
======================================  ==============================================

Every ``/admin/`` request needs ``Authorization: Bearer TOKEN`` (:mod:`access`); without
it the answer is 401 and nothing changes. Every admin action is logged (logger
``unokit.admin``), without the token. A closed room's players are told that an operator
closed it and why; a removed player is told that an operator removed them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from unokit.engine.errors import Reason
from unokit.i18n import N_
from unokit.server import access
from unokit.server.metrics import CONTENT_TYPE
from unokit.server.moderation import fold
from unokit.server.observe import client_address
from unokit.server.room import Room
from unokit.server.rooms import Rooms
from unokit.server.seating import RoomError
from unokit.store import StoreError
from unokit.store.bans import BAN_KINDS, add_ban, list_bans, remove_ban
from unokit.store.match_play import FLAGGED_PAGE, flagged_matches

LOG = logging.getLogger("unokit.admin")
T = TypeVar("T")

REASON_LIMIT = 200
"""The longest reason an operator may give."""

CLOSED_BY_OPERATOR = N_("an operator closed this room: {reason}")
REMOVED_BY_OPERATOR = N_("an operator removed you from this room")


def _json(data: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(data), status_code=status,
                    media_type="application/json")


def _refused(code: str, message: str, status: int) -> Response:
    return _json({"error": code, "message": message}, status)


async def metrics_endpoint(request: Request) -> Response:
    """The metrics, to the addresses ``metrics_allow`` lets in (else 403)."""
    rooms: Rooms = request.app.state.rooms
    if not access.allowed(client_address(request),
                          access.parse_networks(rooms.settings.metrics_allow)):
        return _refused("forbidden", "metrics are not served to this address", 403)
    return Response(rooms.oversight.metrics.render(), media_type=CONTENT_TYPE)


def _guarded(handler: Callable[[Request, Rooms], Awaitable[Response]]
             ) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` behind the bearer token; its bad input answered 400, a missing room
    404, a database that refused 503."""
    async def endpoint(request: Request) -> Response:
        token: str = request.app.state.admin_token
        if not token:
            return _refused("unavailable", "the admin API has no token: set "
                            "UNOKIT_ADMIN_TOKEN or start with `unokit serve`", 503)
        if not access.bearer_matches(request.headers.get("authorization"), token):
            return Response(msgspec.json.encode({"error": "unauthorized",
                                                 "message": "a bearer token is needed"}),
                            status_code=401, media_type="application/json",
                            headers={"WWW-Authenticate": "Bearer"})
        try:
            return await handler(request, request.app.state.rooms)
        except RoomError as exc:
            status = {"no_room": 404, "closing": 503}.get(exc.code, 400)
            return _refused(exc.code, exc.message, status)
        except StoreError:
            return _refused("not_stored", "the database did not take it: try again", 503)
    endpoint.__name__ = handler.__name__
    return endpoint


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > 4096:
        raise RoomError("bad_request", "a request body is at most 4 KiB")
    if not raw:
        return {}
    try:
        data = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        raise RoomError("bad_request", "the body is not JSON") from None
    if not isinstance(data, dict):
        raise RoomError("bad_request", "the body is a JSON object")
    return data


def _text(data: dict[str, Any], name: str, limit: int, default: str | None = None) -> str:
    value = data.get(name, default)
    if not isinstance(value, str) or len(value) > limit or (default is None and not value):
        raise RoomError("bad_request", f"{name}: a text of at most {limit} characters")
    return value


async def in_room(room: Room, fn: Callable[[Room], Awaitable[T]]) -> T:
    """Run ``fn`` in the room's task, between two of its messages; its result, or the
    error it raised.

    Raises:
        RoomError: ``no_room`` when the room stopped before running it.
    """
    outcome: asyncio.Future[T] = asyncio.get_running_loop().create_future()

    async def job(target: Room) -> None:
        try:
            outcome.set_result(await fn(target))
        except (RoomError, StoreError) as exc:
            outcome.set_exception(exc)
    await room.call(job)
    if not outcome.done():
        raise RoomError("no_room", "the room stopped")
    return outcome.result()


def describe(room: Room) -> dict[str, Any]:
    """A room as an operator sees it (no tokens, no cards)."""
    return {"code": room.code, "status": room.status, "public": room.public,
            "connections": len(room.conns),
            "spectators": sum(1 for c in room.conns if c.viewer < 0),
            "seats": [{"seat": i, "kind": s.kind, "name": s.name, "bot": s.bot,
                       "connected": any(c.viewer == i for c in room.conns)}
                      for i, s in enumerate(room.seats)]}


async def admin_rooms(request: Request, rooms: Rooms) -> Response:
    """Every room in memory."""
    return _json([describe(room) for room in list(rooms.rooms.values())])


async def admin_close(request: Request, rooms: Rooms) -> Response:
    """Close a room; its players are told why."""
    data = await _body(request)
    reason = _text(data, "reason", REASON_LIMIT, "")
    room = rooms.get(request.path_params["code"])

    async def close(target: Room) -> None:
        await target.close_room(Reason(CLOSED_BY_OPERATOR, reason=reason or "-"))
    await in_room(room, close)
    LOG.info("admin closed room", extra={"room": room.code, "reason": reason})
    return _json({"closed": room.code})


async def admin_kick(request: Request, rooms: Rooms) -> Response:
    """Take a person's seat (a bot plays it if the match is under way)."""
    data = await _body(request)
    seat = data.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise RoomError("bad_request", "seat: a seat number")
    room = rooms.get(request.path_params["code"])

    async def kick(target: Room) -> None:
        await target.remove_person(seat, REMOVED_BY_OPERATOR)
    await in_room(room, kick)
    LOG.info("admin removed a player", extra={"room": room.code, "seat": seat})
    return _json({"room": room.code, "seat": seat})


async def admin_bans(request: Request, rooms: Rooms) -> Response:
    """The bans."""
    return _json([b._asdict() for b in await list_bans(_store(rooms))])


async def admin_ban(request: Request, rooms: Rooms) -> Response:
    """Ban an address or a name: from now on refused at hello, a name also when a
    player takes a seat, an address also when it creates a room."""
    data = await _body(request)
    kind = data.get("kind")
    if kind not in BAN_KINDS:
        raise RoomError("bad_request", "kind: address or name")
    value = _text(data, "value", 64).strip()
    if kind == "address":
        try:
            access.parse_networks(value)
        except ValueError:
            raise RoomError("bad_request", "value: an IP address") from None
    else:
        value = fold(value).strip()
    if not value:
        raise RoomError("bad_request", "value: a text of at most 64 characters")
    ban = await add_ban(_store(rooms), str(kind), value, _text(data, "reason", REASON_LIMIT, ""))
    await _reload(rooms)
    LOG.info("admin banned", extra={"ban": ban.id, "kind": kind, "reason": ban.reason})
    return _json(ban._asdict(), 201)


async def admin_unban(request: Request, rooms: Rooms) -> Response:
    """Lift a ban."""
    try:
        ban_id = int(request.path_params["id"])
    except ValueError:
        raise RoomError("bad_request", "a ban's number") from None
    if not await remove_ban(_store(rooms), ban_id):
        return _refused("no_ban", "no ban has that number", 404)
    await _reload(rooms)
    LOG.info("admin lifted a ban", extra={"ban": ban_id})
    return _json({"lifted": ban_id})


async def admin_flagged(request: Request, rooms: Rooms) -> Response:
    """The flagged matches (:func:`unokit.store.match_play.flagged_matches`), a page
    at a time: ``{"matches": [...], "before": next page's SEQ or null}``."""
    try:
        before = (None if "before" not in request.query_params
                  else int(request.query_params["before"]))
        limit = int(request.query_params.get("limit", FLAGGED_PAGE))
    except ValueError:
        raise RoomError("bad_request", "before and limit: whole numbers") from None
    if not 1 <= limit <= FLAGGED_PAGE or (before is not None and not 0 < before < 2**62):
        raise RoomError("bad_request", f"limit: 1 to {FLAGGED_PAGE}; before: a match's seq")
    page, after = await _store(rooms).run(
        lambda connection: flagged_matches(connection, before, limit))
    return _json({"matches": page, "before": after})


def _store(rooms: Rooms) -> Any:
    if rooms.store is None:
        raise RoomError("closing", "the server is not ready")
    return rooms.store


async def _reload(rooms: Rooms) -> None:
    rooms.oversight.set_bans((b.kind, b.value) for b in await list_bans(_store(rooms)))


def routes(metrics: bool) -> list[BaseRoute]:
    """The operator's routes (``/metrics`` only with ``metrics``)."""
    return [
        *([Route("/metrics", metrics_endpoint)] if metrics else []),
        Route("/admin/rooms", _guarded(admin_rooms)),
        Route("/admin/rooms/{code}/close", _guarded(admin_close), methods=["POST"]),
        Route("/admin/rooms/{code}/kick", _guarded(admin_kick), methods=["POST"]),
        Route("/admin/bans", _guarded(admin_bans), methods=["GET"]),
        Route("/admin/bans", _guarded(admin_ban), methods=["POST"]),
        Route("/admin/bans/{id}", _guarded(admin_unban), methods=["DELETE"]),
        Route("/admin/flagged", _guarded(admin_flagged), methods=["GET"]),
    ]
