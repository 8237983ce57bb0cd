"""The game's WebSocket endpoint reached at once, in front of Starlette's middleware
and router.

Each layer an ASGI call goes through keeps a frame for as long as the call lasts, and a
game WebSocket lasts as long as the player stays: Starlette's error and exception
middleware, the router, the route and the session wrapper, and the application's own
middleware (:class:`unokit.server.wire.KeepSend`, :class:`unokit.server.observe.Observe`)
cost an idle connection some 4 KB (``benchmarks/idle_connections.py``).
:class:`SocketFront` takes a WebSocket to ``/ws`` or ``/ws/CODE`` (under the base path)
straight to its endpoint, doing what those layers do for it (the connection's id in
the logs, the server's own ``send`` kept for :mod:`unokit.server.wire`, the path's
code); everything else goes on through Starlette as before.

>>> route_code("/ws", "")
''
>>> route_code("/uno/ws/AB12CD", "/uno"), route_code("/ws/a/b", ""), route_code("/api", "")
('AB12CD', None, None)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette._utils import get_route_path
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from unokit.server.logs import CONNECTION_ID
from unokit.server.observe import request_id_of
from unokit.server.wire import KeptSend

Endpoint = Callable[[WebSocket], Awaitable[None]]


def route_code(path: str, base_path: str) -> str | None:
    """The room code of a game WebSocket's path (``""`` for plain ``/ws``), or
    ``None`` when the path is not the game's."""
    if base_path:
        if not path.startswith(base_path + "/"):
            return None
        path = path[len(base_path):]
    if path == "/ws":
        return ""
    if path.startswith("/ws/"):
        code = path[4:]
        if code and "/" not in code:
            return code
    return None


class SocketFront:
    """ASGI: the game's WebSockets to ``endpoint`` at once, the rest to ``app``."""

    def __init__(self, app: ASGIApp, endpoint: Endpoint, base_path: str) -> None:
        self.app = app
        self.endpoint = endpoint
        self.base_path = base_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        code = route_code(get_route_path(scope), self.base_path)
        if code is None:
            await self.app(scope, receive, send)
            return
        scope["path_params"] = {"code": code} if code else {}
        token = CONNECTION_ID.set(request_id_of(scope))
        try:
            with KeptSend(send):
                await self.endpoint(WebSocket(scope, receive, send))
        finally:
            CONNECTION_ID.reset(token)
