"""The limits a public server needs: per address (WebSocket handshakes, open
connections, room creation, lobbies held) and for the whole server (rooms,
connections), request bodies read up to a size, and where requests may come from
(``Origin``, and POSTs that a cross-origin page cannot forge).

Every refusal is a :class:`Refused`: a :class:`RoomError` with an HTTP status and, for
limits that pass, how many seconds to wait (``Retry-After``). docs/server.md lists the
limits and their settings.

>>> buckets = AddressBuckets(rate=1.0, burst=2, clock=lambda: 0.0)
>>> [buckets.take("10.0.0.1") for _ in range(3)], buckets.take("10.0.0.2")
([0.0, 0.0, 1.0], 0.0)
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol
from urllib.parse import urlsplit

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from unokit.i18n import N_, pick_language
from unokit.server.jsondepth import too_deep
from unokit.server.seating import RoomError
from unokit.server.settings import Settings

MAX_ADDRESSES = 65536
"""Addresses a table of buckets remembers; past that, the full buckets (which hold
nothing an address could gain from) are forgotten first, then the oldest."""

PRUNE_AT = 1024
"""Addresses in the lobby table past which it is pruned at the next creation."""

RETRY_BUSY = 30
"""Seconds a client is told to wait when the whole server is full."""


class Refused(RoomError):
    """A request or connection a limit refuses: ``code`` (``busy``, ``too_large``,
    ``bad_origin``, ``bad_request``), the HTTP ``status``, and ``retry_after`` seconds
    (0: do not retry as is)."""

    def __init__(self, code: str, status: int, message: str, /, retry_after: int = 0,
                 **params: object) -> None:
        super().__init__(code, message, **params)
        self.status = status
        self.retry_after = retry_after


class AddressBuckets:
    """A token bucket per address: ``burst`` at once, refilled at ``rate`` a second
    (``rate`` 0: no limit). At most :data:`MAX_ADDRESSES` addresses are remembered."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic,
                 max_addresses: int = MAX_ADDRESSES) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.clock = clock
        self.max_addresses = max_addresses
        self._buckets: dict[str, tuple[float, float]] = {}

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, address: str) -> float:
        """Take one token for ``address``: 0.0 if there was one, else the seconds until
        there will be."""
        if self.rate <= 0:
            return 0.0
        now = self.clock()
        tokens, stamp = self._buckets.pop(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.rate)
        if tokens < 1:
            self._buckets[address] = (tokens, now)
            return (1 - tokens) / self.rate
        self._buckets[address] = (tokens - 1, now)
        if len(self._buckets) > self.max_addresses:
            self._forget(now)
        return 0.0

    def _forget(self, now: float) -> None:
        full = [a for a, (tokens, stamp) in self._buckets.items()
                if tokens + (now - stamp) * self.rate >= self.burst]
        for address in full:
            del self._buckets[address]
        excess = len(self._buckets) - self.max_addresses * 3 // 4
        if excess > 0:  # the oldest used first: dicts keep the order of insertion
            for address in list(self._buckets)[:excess]:
                del self._buckets[address]


class TokenBucket(Protocol):
    """A connection's message rate: ``burst`` messages at once, refilled at ``rate`` a
    second; ``tokens`` left at ``stamp`` (seconds)."""

    rate: float
    burst: float
    tokens: float
    stamp: float


def take_token(bucket: TokenBucket, now: float) -> bool:
    """Take one message from ``bucket`` at ``now`` (seconds): whether there was one.

    >>> class Bucket:
    ...     rate, burst, tokens, stamp = 1.0, 2.0, 2.0, 0.0
    >>> bucket = Bucket()
    >>> [take_token(bucket, 0.0) for _ in range(3)], take_token(bucket, 1.0)
    ([True, True, False], True)
    """
    bucket.tokens = min(bucket.burst, bucket.tokens + (now - bucket.stamp) * bucket.rate)
    bucket.stamp = now
    if bucket.tokens < 1:
        return False
    bucket.tokens -= 1
    return True


class _Lobby(Protocol):
    status: str


def _wait(seconds: float) -> int:
    return max(1, math.ceil(seconds))


class Limits:
    """The per-address and server-wide limits of one server process."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.handshakes = AddressBuckets(settings.handshake_rate, settings.handshake_burst,
                                         clock)
        self.creations = AddressBuckets(settings.room_rate, settings.room_burst, clock)
        self.conns: dict[str, int] = {}
        """Open WebSocket connections by address."""
        self.total_conns = 0
        self.lobbies: dict[str, list[_Lobby]] = {}
        """The rooms each address created that may still be in the lobby."""

    # ------------------------------------------------------------ connections
    def connect(self, address: str) -> None:
        """Count a new WebSocket connection of ``address`` (undo with
        :meth:`disconnect`).

        Raises:
            Refused: ``busy``: the server holds :attr:`Settings.max_conns` connections
                (503), or the address made too many handshakes or holds
                :attr:`Settings.conns_per_address` connections (429).
        """
        s = self.settings
        if self.total_conns >= s.max_conns:
            raise Refused("busy", 503, N_("the server is full: try again later"),
                          retry_after=RETRY_BUSY)
        held = self.conns.get(address, 0)
        if s.conns_per_address and held >= s.conns_per_address:
            raise Refused("busy", 429, N_("your address holds {limit} connections: close "
                                          "one first"),
                          retry_after=RETRY_BUSY, limit=s.conns_per_address)
        wait = self.handshakes.take(address)
        if wait:
            raise Refused("busy", 429, N_("too many connections from your address: try "
                                          "again in {seconds} s"),
                          retry_after=_wait(wait), seconds=_wait(wait))
        self.conns[address] = held + 1
        self.total_conns += 1

    def disconnect(self, address: str) -> None:
        """A connection counted by :meth:`connect` has gone."""
        held = self.conns.get(address, 0) - 1
        if held > 0:
            self.conns[address] = held
        else:
            self.conns.pop(address, None)
        self.total_conns = max(0, self.total_conns - 1)

    # ------------------------------------------------------------ rooms
    def may_create(self, address: str, rooms_held: int) -> None:
        """Whether ``address`` may create a room now, the server holding ``rooms_held``
        rooms; takes one from the address's creation bucket.

        Raises:
            Refused: ``busy``: the server holds :attr:`Settings.max_rooms` rooms (503),
                or the address creates too fast or holds too many lobbies (429).
        """
        s = self.settings
        if rooms_held >= s.max_rooms:
            raise Refused("busy", 503, N_("the server has no room for more rooms: try again "
                                          "later"), retry_after=RETRY_BUSY)
        if s.lobbies_per_address:
            held = [room for room in self.lobbies.get(address, ()) if room.status == "lobby"]
            if held:
                self.lobbies[address] = held
            else:
                self.lobbies.pop(address, None)
            if len(held) >= s.lobbies_per_address:
                raise Refused("busy", 429, N_("your address has {limit} rooms waiting for "
                                              "players: start or leave one first"),
                              retry_after=RETRY_BUSY, limit=s.lobbies_per_address)
        wait = self.creations.take(address)
        if wait:
            raise Refused("busy", 429, N_("too many new rooms from your address: try again "
                                          "in {seconds} s"),
                          retry_after=_wait(wait), seconds=_wait(wait))

    def created(self, address: str, room: _Lobby) -> None:
        """``address`` created ``room`` (it counts while it is in the lobby)."""
        if self.settings.lobbies_per_address:
            self.lobbies.setdefault(address, []).append(room)
            if len(self.lobbies) > PRUNE_AT:
                self.prune()

    def prune(self) -> None:
        """Forget the rooms that left the lobby, and the addresses left with none (so
        that the table holds only addresses with lobbies, and no closed room)."""
        for address in list(self.lobbies):
            held = [room for room in self.lobbies[address] if room.status == "lobby"]
            if held:
                self.lobbies[address] = held
            else:
                del self.lobbies[address]


# ---------------------------------------------------------------- requests
async def read_body(request: Request, limit: int, timeout: float = 10.0) -> bytes:
    """The request's body, read while it comes and refused as soon as it passes
    ``limit`` bytes (or when its ``Content-Length`` says it will), or when it has not
    come whole within ``timeout`` seconds (a body sent a byte at a time).

    Raises:
        Refused: ``too_large`` (413), ``bad_request`` for a bad ``Content-Length``
            (400) or a body too slow (408).
    """
    try:
        async with asyncio.timeout(timeout):
            return await _read_body(request, limit)
    except TimeoutError:
        raise Refused("bad_request", 408, N_("the request body came too slowly")) from None


async def _read_body(request: Request, limit: int) -> bytes:
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()) or len(length) > 18:
            raise Refused("bad_request", 400, N_("Content-Length is not a number"))
        if int(length) > limit:
            raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(limit: int) -> Refused:
    return Refused("too_large", 413, N_("a request body is at most {limit} bytes"),
                   limit=limit)


def own_origins(settings: Settings, host: str | None) -> set[str]:
    """The origins that are this server's own: its :attr:`Settings.base_url`, the
    ``Host`` the request names (over http and https), and the allowed ones.

    >>> sorted(own_origins(Settings(database_url="sqlite://"), "uno.example"))
    ['http://127.0.0.1:8000', 'http://uno.example', 'https://uno.example']
    """
    parts = urlsplit(settings.base_url)
    origins = {f"{parts.scheme}://{parts.netloc}".lower()}
    if host:
        origins |= {f"http://{host.lower()}", f"https://{host.lower()}"}
    origins |= {origin.lower() for origin in settings.origins()}
    return origins


def check_origin(headers: Mapping[str, str], settings: Settings) -> None:
    """Refuse a request whose ``Origin`` is another site's. Requests without an
    ``Origin`` (programs, not browsers) pass.

    Raises:
        Refused: ``bad_origin`` (403).
    """
    origin = headers.get("origin")
    if origin is None or "*" in settings.origins():
        return
    if origin.rstrip("/").lower() not in own_origins(settings, headers.get("host")):
        raise Refused("bad_origin", 403, N_("requests from other sites' pages are refused "
                                            "(the server's allowed_origins setting)"))


def check_post(headers: Mapping[str, str], settings: Settings) -> None:
    """A POST must come from an allowed origin and say ``Content-Type:
    application/json``, which a cross-origin page cannot send without the server's
    consent (a form or a ``text/plain`` request is refused).

    Raises:
        Refused: ``bad_origin`` (403), or ``bad_request`` (415) for another type.
    """
    check_origin(headers, settings)
    media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise Refused("bad_request", 415, N_("send the body as Content-Type: "
                                             "application/json"))


async def json_body(request: Request, settings: Settings) -> dict[str, Any]:
    """The JSON object of a POST: from an allowed origin, as ``application/json``, at
    most ``max_body`` bytes (read no further), nested at most ``max_json_depth`` deep;
    an empty body is ``{}``.

    Raises:
        RoomError: ``bad_request`` (not JSON, not an object, too deep), ``bad_origin``
            or ``too_large`` (:func:`check_post`, :func:`read_body`).
    """
    check_post(request.headers, settings)
    raw = await read_body(request, settings.max_body, settings.head_timeout)
    if not raw:
        return {}
    if too_deep(raw, settings.max_json_depth):
        raise RoomError("bad_request", N_("JSON nests at most {limit} levels deep"),
                        limit=settings.max_json_depth)
    try:
        data = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        raise RoomError("bad_request", N_("the body is not JSON")) from None
    if not isinstance(data, dict):
        raise RoomError("bad_request", N_("the body is a JSON object"))
    return data


def refused_response(exc: Refused, headers: Mapping[str, str]) -> Response:
    """The JSON error of a limit, with its status and ``Retry-After``, its message in
    the language of ``headers``' ``Accept-Language``.

    >>> answer = refused_response(Refused("busy", 429, N_("slow down"), retry_after=3), {})
    >>> answer.status_code, answer.headers["Retry-After"], answer.body
    (429, '3', b'{"error":"busy","message":"slow down"}')
    """
    lang = pick_language(headers.get("accept-language"))
    response = Response(msgspec.json.encode({"error": exc.code, "message": exc.text(lang)}),
                        status_code=exc.status, media_type="application/json")
    if exc.retry_after:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response

