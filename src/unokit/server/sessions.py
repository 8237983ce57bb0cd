"""Who a request or a WebSocket comes from: a session cookie (a browser) or an API
token (``Authorization: Bearer``, for ``unokit play --server`` and ``unokit bot``).

A session is a row of the table ``sessions`` named by the SHA-256 of a random id (32
bytes, URL-safe base64); the id travels in the cookie :data:`COOKIE`, ``HttpOnly;
SameSite=Lax``, ``Secure`` when the request came over TLS (or through a trusted proxy
that says so: ``forwarded_allow_ips``), with the path of the setting ``base_path``.
An id of the wrong form is never looked up.

>>> looks_like_secret("x" * 43), looks_like_secret("x" * 42), looks_like_secret("x;y" * 20)
(True, False, False)
>>> from unokit.server.settings import Settings
>>> cookie_header(Settings(database_url="sqlite://", base_path="/uno"), "abc",
...               secure=True, max_age=60)
'unokit_session=abc; Path=/uno; Max-Age=60; HttpOnly; SameSite=Lax; Secure'
"""

from __future__ import annotations

import logging
import re
import secrets
from dataclasses import dataclass
from typing import Any

from starlette.requests import HTTPConnection
from starlette.responses import Response

from unokit.server.settings import Settings
from unokit.store import Store, StoreError
from unokit.store.accounts import Player, session_player, token_player
from unokit.store.xp import progress

LOG = logging.getLogger("unokit.accounts")

COOKIE = "unokit_session"
"""The name of the session cookie."""
DAY = 86400.0
_SECRET = re.compile(r"[A-Za-z0-9_-]{43,64}")


def new_secret() -> str:
    """A new random session id or API token (256 bits, 43 characters)."""
    return secrets.token_urlsafe(32)


def looks_like_secret(text: str) -> bool:
    """Whether ``text`` has the form of a session id or API token."""
    return bool(_SECRET.fullmatch(text))


def is_secure(connection: HTTPConnection) -> bool:
    """Whether the request came over TLS (``https``/``wss``, as uvicorn sets the scheme
    from a trusted proxy's ``X-Forwarded-Proto``)."""
    return str(connection.scope.get("scheme", "http")) in ("https", "wss")


def cookie_header(settings: Settings, value: str, *, secure: bool, max_age: int) -> str:
    """The ``Set-Cookie`` value of the session cookie (``max_age`` 0: remove it)."""
    parts = [f"{COOKIE}={value}", f"Path={settings.base_path or '/'}",
             f"Max-Age={max_age}", "HttpOnly", "SameSite=Lax"]
    if secure:
        parts.append("Secure")
    return "; ".join(parts)


def set_session(response: Response, connection: HTTPConnection, settings: Settings,
                session: str) -> None:
    """Give ``response`` the cookie of ``session``."""
    response.headers.append("set-cookie", cookie_header(
        settings, session, secure=is_secure(connection),
        max_age=int(settings.session_days * DAY)))


def clear_session(response: Response, connection: HTTPConnection,
                  settings: Settings) -> None:
    """Make ``response`` remove the session cookie."""
    response.headers.append("set-cookie", cookie_header(
        settings, "", secure=is_secure(connection), max_age=0))


def session_of(connection: HTTPConnection) -> str | None:
    """The session id of the cookie, if it has the right form."""
    value = connection.cookies.get(COOKIE)
    return value if value is not None and looks_like_secret(value) else None


def bearer_of(connection: HTTPConnection) -> str | None:
    """The API token of ``Authorization: Bearer``, if it has the right form."""
    header = connection.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not looks_like_secret(token):
        return None
    return token


@dataclass(frozen=True)
class Identity:
    """Who a request comes from: the player, and the session (``None``: an API
    token)."""

    player: Player
    session: str | None


async def identify(store: Store, connection: HTTPConnection, settings: Settings, *,
                   now: float, tokens: bool = True) -> Identity | None:
    """The player of the request's session cookie or (with ``tokens``) API token;
    ``None``: neither names one.

    Raises:
        StoreError: the database did not answer.
    """
    session = session_of(connection)
    if session is not None:
        player = await session_player(store, session, now=now,
                                      idle=settings.session_days * DAY)
        if player is not None:
            return Identity(player, session)
    token = bearer_of(connection) if tokens else None
    if token is not None:
        player = await token_player(store, token, now=now)
        if player is not None:
            return Identity(player, None)
    return None


async def socket_player(store: Store | None, connection: HTTPConnection,
                        settings: Settings, now: float) -> int | None:
    """The player id a WebSocket comes with (``None``: none, or the database did not
    answer: the connection plays without one, as before accounts)."""
    if store is None or (session_of(connection) is None and bearer_of(connection) is None):
        return None
    try:
        found = await identify(store, connection, settings, now=now)
    except StoreError as exc:
        LOG.warning("session not looked up", extra={"error": str(exc)[:200]})
        return None
    return None if found is None else found.player.id


def player_json(player: Player) -> dict[str, Any]:
    """A player as the API shows it to itself."""
    return {"id": player.id, "username": player.username, "guest": player.guest,
            "created_at": player.created_at, **progress(player.xp)}
