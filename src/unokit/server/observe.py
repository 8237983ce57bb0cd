"""What the server sees of each request at its edge: the client's address, a request id,
an access log line and the HTTP metrics.

:class:`Observe` is an ASGI middleware around the whole application. Each HTTP request
gets an id (the client's own ``X-Request-Id`` when it is a short token, as a reverse
proxy sets it; else a new one), sent back in the ``X-Request-Id`` header and put in
every log line written while the request is handled (:data:`logs.REQUEST_ID`). Each
WebSocket gets a connection id the same way (:data:`logs.CONNECTION_ID`). When the
answer is sent, one access line goes to the logger ``unokit.access`` (method, path
without its query, status, milliseconds, request id) and the request is counted by its
route's pattern (never by its path, which holds room codes).

The client's address is :func:`client_address`: the peer of the connection, or the
address a trusted reverse proxy forwarded (uvicorn rewrites the peer from
``X-Forwarded-For`` for the proxies in ``forwarded_allow_ips``).

>>> client_address({"client": ("203.0.113.9", 50000)})
'203.0.113.9'
>>> client_address({})
'unknown'
>>> request_id_of({"headers": [(b"x-request-id", b"abc-123")]})
'abc-123'
>>> len(request_id_of({"headers": [(b"x-request-id", b"no spaces allowed")]}))
16
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import Iterable
from typing import Any

from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from unokit.server.logs import CONNECTION_ID, REQUEST_ID
from unokit.server.metrics import Metrics

ACCESS = logging.getLogger("unokit.access")

_GOOD_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def client_address(scope: Any) -> str:
    """The client's IP address (a request, a WebSocket or an ASGI scope): the peer, or,
    behind a trusted proxy, the address it forwarded; ``unknown`` when there is none."""
    client: Any = scope.get("client") if isinstance(scope, dict) else scope.client
    if not client:
        return "unknown"
    host = client[0] if isinstance(client, tuple | list) else client.host
    return str(host) if host else "unknown"


def request_id_of(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            text = bytes(value).decode("latin-1")
            if _GOOD_ID.fullmatch(text):
                return text
            break
    return secrets.token_hex(8)


def route_patterns(routes: Iterable[BaseRoute], prefix: str = "") -> dict[int, str]:
    """The path pattern of each endpoint (by ``id``), e.g. ``/api/rooms/{code}``."""
    out: dict[int, str] = {}
    for route in routes:
        if isinstance(route, Route | WebSocketRoute):
            out.setdefault(id(route.endpoint), prefix + route.path)
        elif isinstance(route, Mount):
            if route.routes:
                out.update(route_patterns(route.routes, prefix + route.path))
            else:
                out[id(route.app)] = prefix + route.path + "/{path}"
    return out


class Observe:
    """The ASGI middleware of the module: ids, access lines, HTTP metrics."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics, patterns: dict[int, str]) -> None:
        self.app = app
        self.metrics = metrics
        self.patterns = patterns

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            token = CONNECTION_ID.set(request_id_of(scope))
            try:
                await self.app(scope, receive, send)
            finally:
                CONNECTION_ID.reset(token)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_of(scope)
        token = REQUEST_ID.set(request_id)
        started = time.perf_counter()
        status = 500
        header = (b"x-request-id", request_id.encode())

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", ()), header]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            endpoint = scope.get("endpoint")
            route = (self.patterns.get(id(endpoint), "other") if endpoint is not None
                     else "unmatched")
            self.metrics.request(route, status, seconds)
            ACCESS.info("request", extra={
                "method": scope.get("method", ""), "path": scope.get("path", "")[:200],
                "status": status, "ms": round(seconds * 1000, 1),
                "client": client_address(scope)})
            REQUEST_ID.reset(token)
