"""How uvicorn is set up for the server: frame size, WebSocket pings, idle and
request-head timeouts, and a bound on concurrent connections.

uvicorn closes an idle keep-alive connection after ``timeout_keep_alive`` seconds, but
it has no limit on how long a client may take to send a request head: a client that
sends half a head and waits would hold its connection forever (a "slowloris"). The
HTTP protocols here are uvicorn's own, with a timer from the first byte of each
request (and from the connection's start) to the end of its head: a connection whose
head has not come whole within ``head_timeout`` seconds is closed.

>>> from unokit.server.settings import Settings
>>> options = uvicorn_options(Settings(database_url="sqlite://", head_timeout=3))
>>> options["http"].head_timeout, options["ws_max_size"], options["timeout_keep_alive"]
(3.0, 65536, 5.0)
>>> options["ws_ping_interval"], options["ws_ping_timeout"]
(60.0, 30.0)
>>> no_pings = Settings(database_url="sqlite://", ws_ping_interval=0)
>>> uvicorn_options(no_pings)["ws_ping_interval"] is None  # 0: uvicorn sends no pings
True
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from unokit.server.settings import Settings
from unokit.server.wire import DirectProtocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools is in the lock
    HttpToolsProtocol = None  # type: ignore[assignment,misc]

CONCURRENCY_SPARE = 1000
"""Connections and tasks uvicorn takes beyond ``max_conns`` WebSocket connections (for
HTTP requests) before it answers 503 by itself."""


class _HeadTimer:
    """The head timer of a connection (mixed into an HTTP protocol of uvicorn)."""

    head_timeout: float = 10.0
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    _head_timer: asyncio.TimerHandle | None = None

    def _arm_head(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_timeout, self._head_expired)

    def _disarm_head(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_expired(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()


class H11HeadTimeout(_HeadTimer, H11Protocol):
    """uvicorn's h11 protocol with a request-head timeout."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        cycle = getattr(self, "cycle", None)
        if cycle is None or cycle.response_complete:  # a new request begins
            self._arm_head()
        super().data_received(data)

    def handle_events(self) -> None:
        scope = getattr(self, "scope", None)
        super().handle_events()
        if getattr(self, "scope", None) is not scope:  # a whole head came
            self._disarm_head()

    def handle_websocket_upgrade(self, event: Any) -> None:
        self._disarm_head()
        super().handle_websocket_upgrade(event)


if HttpToolsProtocol is not None:
    class HttpToolsHeadTimeout(_HeadTimer, HttpToolsProtocol):
        """uvicorn's httptools protocol with a request-head timeout."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm_head()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_head()
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm_head()

        def on_headers_complete(self) -> None:
            self._disarm_head()
            super().on_headers_complete()


def head_timeout_protocol(seconds: float, *, h11: bool = False) -> type[asyncio.Protocol]:
    """An HTTP protocol class for uvicorn whose connections close when a request head
    takes longer than ``seconds`` (httptools, else h11)."""
    base: type[Any] = H11HeadTimeout if h11 or HttpToolsProtocol is None else HttpToolsHeadTimeout
    return type(base.__name__, (base,), {"head_timeout": float(seconds)})


def uvicorn_options(settings: Settings, *, h11: bool = False) -> dict[str, Any]:
    """The ``uvicorn.Config`` options that carry the limits of ``settings``, its
    WebSocket pings (``ws_ping_interval``, 0: none; ``ws_ping_timeout``), and the
    WebSocket protocol: ``websockets``'s sans-I/O one without compression, which
    :mod:`unokit.server.wire` reads and writes at once (:class:`DirectProtocol`)."""
    return {"http": head_timeout_protocol(settings.head_timeout, h11=h11),
            "ws": DirectProtocol, "ws_per_message_deflate": False,
            "ws_max_size": settings.max_frame,
            "ws_ping_interval": settings.ws_ping_interval or None,
            "ws_ping_timeout": settings.ws_ping_timeout,
            "timeout_keep_alive": settings.idle_timeout,
            "limit_concurrency": settings.max_conns + CONCURRENCY_SPARE}
