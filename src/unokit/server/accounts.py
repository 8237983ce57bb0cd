"""The HTTP API of players and accounts (docs/accounts.md).

==========================================  ==========================================
``POST /api/guest``                         a guest and its session (the cookie), or
                                            the player the cookie names already
``GET /api/me``                             the player of the cookie (or API token):
                                            level, XP and a page of recent matches
``GET /api/players/{username}``             an account's public profile, the same way
``POST /api/account/claim``                 the guest becomes an account:
                                            ``{"username", "password"}``
``POST /api/account/login``                 sign in: ``{"username", "password"}``
``POST /api/account/logout``                end this session
``POST /api/account/logout-all``            end every session of the player
``POST /api/account/password``              ``{"password", "new_password"}``; the
                                            player's other sessions end
``POST /api/account/delete``                delete the player and all that is theirs
                                            (an account says ``{"password"}``)
``GET /api/account/export``                 everything stored of the player (JSON)
``GET/POST /api/account/tokens``            list, or make (``{"label"}``), API tokens
``DELETE /api/account/tokens/{id}``         revoke one
==========================================  ==========================================

Every POST comes from an allowed origin as ``application/json`` (a page of another site
cannot forge one); every password check goes through :mod:`unokit.server.passwords`:
its limits first, then the bounded hashing pool. A login answers the same for an unknown
username as for a wrong password, after the same work.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from unokit.i18n import N_, pick_language
from unokit.server.limits import Refused, check_origin, json_body
from unokit.server.observe import client_address
from unokit.server.passwords import PASSWORD_MAX, PASSWORD_MIN, LoginLimits, Passwords
from unokit.server.seating import RoomError
from unokit.server.sessions import (
    Identity,
    clear_session,
    identify,
    new_secret,
    player_json,
    session_of,
    set_session,
)
from unokit.server.settings import Settings
from unokit.store import Store, StoreError
from unokit.store import accounts as stored
from unokit.store import export as exported
from unokit.store.coins import wallet
from unokit.store.rating_notices import match_notices
from unokit.store.ratings import profile_rating
from unokit.store.xp import PAGE, Cursor, recent_matches

LOG = logging.getLogger("unokit.accounts")

USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{2,19}")
"""A username: 3-20 ASCII letters, digits, ``_`` and ``-``, beginning with a letter or
a digit (compared without case)."""
LABEL_MAX = 64
EXPORTS_AT_ONCE = 2
"""The exports one process streams at once (:class:`Exports`)."""
EXPORT_RETRY = 30
"""The ``Retry-After`` of an export refused as ``busy`` (seconds)."""

WRONG_LOGIN = N_("wrong username or password")
WRONG_PASSWORD = N_("wrong password")
NO_SESSION = N_("no session: make a guest (POST /api/guest) or log in")
NOT_ACCOUNT = N_("a guest has no password: claim an account first")

Handler = Callable[[Request], Awaitable[Response]]


def _json(data: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(data), status_code=status,
                    media_type="application/json")


def _error(request: Request, exc: RoomError) -> Response:
    """The JSON error of ``exc`` in the request's language, with its status (and
    ``Retry-After`` for a limit)."""
    request.app.state.rooms.oversight.metrics.errors.labels(exc.code).inc()
    lang = pick_language(request.headers.get("accept-language"))
    status = exc.status if isinstance(exc, Refused) else _STATUS.get(exc.code, 400)
    response = _json({"error": exc.code, "message": exc.text(lang)}, status)
    if isinstance(exc, Refused) and exc.retry_after:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


_STATUS = {"no_session": 401, "bad_login": 401, "forbidden": 403, "not_found": 404,
           "name_taken": 409, "not_guest": 409, "banned": 403, "unavailable": 503}


def _guarded(handler: Handler) -> Handler:
    """``handler`` with its refusals as typed JSON errors and a database that did not
    answer as 503 (nothing a client sends becomes a 500)."""
    async def guarded(request: Request) -> Response:
        try:
            return await handler(request)
        except RoomError as exc:
            return _error(request, exc)
        except StoreError:
            response = _error(request, RoomError("unavailable", N_(
                "the database did not answer: try again in a few seconds")))
            response.headers["Retry-After"] = "5"
            return response
    guarded.__name__ = handler.__name__
    guarded.__doc__ = handler.__doc__
    return guarded


# ---------------------------------------------------------------- request parts
def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.rooms.settings
    return settings


def _store(request: Request) -> Store:
    store: Store | None = request.app.state.rooms.store
    if store is None:
        raise StoreError("the store is not open")
    return store


def _passwords(request: Request) -> Passwords:
    passwords: Passwords = request.app.state.passwords
    return passwords


def _limits(request: Request) -> LoginLimits:
    limits: LoginLimits = request.app.state.login_limits
    return limits


def _now(request: Request) -> float:
    return float(_store(request).clock())


async def _body(request: Request) -> dict[str, Any]:
    """The JSON object of a POST (:func:`unokit.server.limits.json_body`)."""
    return await json_body(request, _settings(request))


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        raise RoomError("bad_request", N_("{name}: a string"), name=name)
    return value


def _password(data: dict[str, Any], name: str = "password") -> str:
    value = _text(data, name)
    if not PASSWORD_MIN <= len(value) <= PASSWORD_MAX:
        raise RoomError("bad_request", N_("{name}: {least} to {most} characters"),
                        name=name, least=PASSWORD_MIN, most=PASSWORD_MAX)
    return value


def _username(request: Request, data: dict[str, Any]) -> str:
    name = _text(data, "username").strip()
    if not USERNAME.fullmatch(name):
        raise RoomError("bad_request", N_("username: 3-20 letters, digits, _ and -, "
                                          "beginning with a letter or a digit"))
    request.app.state.rooms.oversight.check_name(name)
    return name


async def _who(request: Request, *, tokens: bool = False) -> Identity:
    """The player of the request's session (or, with ``tokens``, API token).

    Raises:
        RoomError: ``no_session`` (401).
    """
    found = await identify(_store(request), request, _settings(request),
                           now=_now(request), tokens=tokens)
    if found is None:
        raise RoomError("no_session", NO_SESSION)
    return found


async def _new_session(request: Request, response: Response, player_id: int,
                       replaces: str | None) -> None:
    """A new session for ``player_id`` (ending ``replaces``), its cookie on
    ``response``."""
    session = new_secret()
    await stored.new_session(_store(request), player_id, session, now=_now(request),
                             address=client_address(request),
                             agent=request.headers.get("user-agent", ""),
                             replaces=replaces)
    set_session(response, request, _settings(request), session)


async def _check_password(request: Request, player: stored.Player, password: str) -> None:
    """Check the password of the account ``player`` (its limits first).

    Raises:
        RoomError: ``forbidden`` (a wrong password), or a limit.
    """
    if player.username is None:
        raise RoomError("not_guest", NOT_ACCOUNT)
    address = client_address(request)
    limits = _limits(request)
    key = player.username.lower()
    limits.attempt(address)
    trusted = await _trusted(request, key, address)
    limits.may_try(key, trusted=trusted)
    hashed = await stored.password_hash(_store(request), player.id)
    if not await _passwords(request).verify(hashed, password, trusted=trusted):
        limits.failed(key, trusted=trusted)
        raise RoomError("forbidden", WRONG_PASSWORD)


async def _trusted(request: Request, key: str, address: str) -> bool:
    """Whether the account ``key`` signed in from ``address`` before: remembered by
    this process, or the address of one of its sessions (any process's)."""
    limits = _limits(request)
    if not key or limits.trusted(key, address):
        return bool(key)
    if await stored.signed_in_from(_store(request), key, address):
        limits.succeeded(key, address)
        return True
    return False


def _page(request: Request) -> tuple[Cursor | None, int]:
    text = request.query_params.get("before")
    limit_text = request.query_params.get("limit", str(PAGE))
    if not (limit_text.isascii() and limit_text.isdigit()) or not 1 <= int(limit_text) <= PAGE:
        raise RoomError("bad_request", N_("limit: a whole number from 1 to {most}"),
                        most=PAGE)
    if text is None:
        return None, int(limit_text)
    try:
        return Cursor.parse(text), int(limit_text)
    except ValueError:
        raise RoomError("bad_request", N_("before: the cursor of a page (its next)")) from None


async def _profile(request: Request, player: stored.Player) -> dict[str, Any]:
    before, limit = _page(request)
    matches, after = await recent_matches(_store(request), player.id, before=before,
                                          limit=limit)
    return {**player_json(player), **await profile_rating(_store(request), player.id),
            "matches": matches, "next": None if after is None else after.text()}


# ---------------------------------------------------------------- endpoints
async def make_guest(request: Request) -> Response:
    """A guest and its session, or (200) the player the cookie already names."""
    await _body(request)
    found = await identify(_store(request), request, _settings(request),
                           now=_now(request), tokens=False)
    if found is not None:
        return _json(player_json(found.player))
    address = client_address(request)
    request.app.state.rooms.oversight.check_address(address)
    _limits(request).guest(address)
    session = new_secret()
    player_id = await stored.create_guest(_store(request), session, now=_now(request),
                                          address=address,
                                          agent=request.headers.get("user-agent", ""))
    player = await stored.get_player(_store(request), player_id)
    assert player is not None
    response = _json(player_json(player), 201)
    set_session(response, request, _settings(request), session)
    return response


async def me(request: Request) -> Response:
    """The player of the session cookie or API token, with a page of its matches (each
    with its ``rating_notice``: why it did not count, or counted in part, for the
    player's rating, in the request's language; ``None``: in full, or unrated), its
    coins and cosmetics. A public profile has no notices."""
    who = await _who(request, tokens=True)
    held = await wallet(_store(request), who.player.id)
    found = await _profile(request, who.player)
    ids = [m["match"] for m in found["matches"]]
    notices = await _store(request).run(
        lambda connection: match_notices(connection, who.player.id, ids))
    lang = pick_language(request.headers.get("accept-language"))
    for match in found["matches"]:
        notice = notices.get(match["match"])
        match["rating_notice"] = None if notice is None else notice.as_dict(lang)
    return _json({**found, **held.json()})


async def profile(request: Request) -> Response:
    """An account's public profile (guests have none)."""
    name = request.path_params["username"]
    player = (await stored.find_player(_store(request), name.lower())
              if USERNAME.fullmatch(name) else None)
    if player is None:
        raise RoomError("not_found", N_("no such player"))
    return _json(await _profile(request, player))


async def claim(request: Request) -> Response:
    """The guest of the session becomes an account; a new session id."""
    data = await _body(request)
    who = await _who(request)
    if not who.player.guest:
        raise RoomError("not_guest", N_("this player has an account already"))
    username, password = _username(request, data), _password(data)
    address = client_address(request)
    request.app.state.rooms.oversight.check_address(address)
    _limits(request).attempt(address)
    hashed = await _passwords(request).hash(password)
    try:
        await stored.claim(_store(request), who.player.id, username, hashed,
                           now=_now(request))
    except stored.NameTaken:
        raise RoomError("name_taken", N_("that username is taken")) from None
    _limits(request).succeeded(username.lower(), address)
    player = await stored.get_player(_store(request), who.player.id)
    assert player is not None
    response = _json(player_json(player))
    await _new_session(request, response, player.id, replaces=who.session)
    return response


async def login(request: Request) -> Response:
    """Sign in; a new session (the one of the cookie, if any, ends)."""
    data = await _body(request)
    name, password = _text(data, "username").strip(), _text(data, "password")
    address = client_address(request)
    request.app.state.rooms.oversight.check_address(address)
    limits = _limits(request)
    limits.attempt(address)
    key = name.lower() if USERNAME.fullmatch(name) else ""
    trusted = await _trusted(request, key, address)
    limits.may_try(key, trusted=trusted)
    found = await stored.find_login(_store(request), key) if key else None
    right = False
    if len(password) <= PASSWORD_MAX:  # a longer one is no password: never hashed
        right = await _passwords(request).verify(
            None if found is None else found[1], password, trusted=trusted)
    if found is None or not right:
        limits.failed(key, trusted=trusted)
        raise RoomError("bad_login", WRONG_LOGIN)
    limits.succeeded(key, address)
    if _passwords(request).outdated(found[1]):  # the hashing settings changed since
        rehashed = await _passwords(request).hash(password, trusted=True)
        await stored.set_password(_store(request), found[0], rehashed)
    player = await stored.get_player(_store(request), found[0])
    if player is None:  # deleted in between
        raise RoomError("bad_login", WRONG_LOGIN)
    response = _json(player_json(player))
    await _new_session(request, response, player.id, replaces=session_of(request))
    return response


async def logout(request: Request) -> Response:
    """End the session of the cookie (if any)."""
    await _body(request)
    session = session_of(request)
    if session is not None:
        await stored.end_session(_store(request), session)
    response = _json({"ok": True})
    clear_session(response, request, _settings(request))
    return response


async def logout_all(request: Request) -> Response:
    """End every session of the player, this one too."""
    await _body(request)
    who = await _who(request)
    ended = await stored.end_sessions(_store(request), who.player.id)
    response = _json({"ended": ended})
    clear_session(response, request, _settings(request))
    return response


async def change_password(request: Request) -> Response:
    """A new password; the player's other sessions end, this one gets a new id."""
    data = await _body(request)
    who = await _who(request)
    old, new = _text(data, "password"), _password(data, "new_password")
    await _check_password(request, who.player, old)
    hashed = await _passwords(request).hash(new, trusted=True)
    assert who.session is not None
    renewed = new_secret()
    if not await stored.change_password(
            _store(request), who.player.id, hashed, who.session, renewed,
            now=_now(request), address=client_address(request),
            agent=request.headers.get("user-agent", "")):
        # the session ended while the password was hashed ("log out everywhere")
        raise RoomError("no_session", NO_SESSION)
    response = _json({"ok": True})
    set_session(response, request, _settings(request), renewed)
    return response


async def delete_account(request: Request) -> Response:
    """Delete the player and all that is theirs (an account gives its password)."""
    data = await _body(request)
    who = await _who(request)
    if not who.player.guest:
        await _check_password(request, who.player, _text(data, "password"))
    await stored.delete_player(_store(request), who.player.id)
    await request.app.state.rooms.forget_player(who.player.id)
    LOG.info("player deleted", extra={"player": who.player.id})
    response = _json({"ok": True})
    clear_session(response, request, _settings(request))
    return response


class Exports:
    """The exports this process streams now: at most ``limit`` at once, and one per
    player (each reads a page per transaction: :mod:`unokit.store.export`)."""

    def __init__(self, limit: int = EXPORTS_AT_ONCE) -> None:
        self.limit = limit
        self.players: set[int] = set()

    def begin(self, player: int) -> None:
        """Count the player's export in.

        Raises:
            Refused: ``busy`` (429, ``Retry-After``): the player's own export is under
                way, or :attr:`limit` are.
        """
        if player in self.players or len(self.players) >= self.limit:
            raise Refused("busy", 429, N_("an export is under way: try again in a "
                                          "minute"), retry_after=EXPORT_RETRY)
        self.players.add(player)

    def end(self, player: int) -> None:
        """The player's export is over (sent, cut short, or its client went away)."""
        self.players.discard(player)


async def export(request: Request) -> Response:
    """Everything stored of the player, as one JSON document to save (a session's
    only: an API token does not give away the player's addresses), streamed as its
    pages are read: the server holds one page of it at a time. A database that stops
    answering midway cuts the document short (it does not parse: ask again)."""
    who = await _who(request)
    player, store = who.player.id, _store(request)
    exports: Exports = request.app.state.exports
    exports.begin(player)
    try:
        found = await exported.head(store, player)
    except BaseException:
        exports.end(player)
        raise
    if found is None:  # deleted meanwhile
        exports.end(player)
        raise RoomError("no_session", NO_SESSION)

    async def document() -> AsyncIterator[bytes]:
        try:
            yield msgspec.json.encode(found)[:-1]  # the head's fields, the object open
            for listed in exported.LISTED:
                yield b',"' + listed.name.encode() + b'":['
                sep = b""
                async for rows in exported.pages(store, player, listed):
                    yield sep + b",".join(msgspec.json.encode(row) for row in rows)
                    sep = b","
                yield b"]"
            yield b"}"
        except StoreError:
            LOG.warning("export cut short: the database did not answer",
                        extra={"player": player})
        finally:
            exports.end(player)
    return StreamingResponse(document(), media_type="application/json", headers={
        "Content-Disposition": f'attachment; filename="unokit-player-{player}.json"',
        "Cache-Control": "no-store"})


async def tokens(request: Request) -> Response:
    """The account's API tokens (GET), or a new one (POST ``{"label"}``): the token is
    shown once, only its hash is kept."""
    if request.method == "POST":
        data = await _body(request)
        who = await _who(request)
        if who.player.guest:
            raise RoomError("not_guest", NOT_ACCOUNT)
        label = data.get("label", "")
        if not isinstance(label, str) or len(label) > LABEL_MAX or not label.isprintable():
            raise RoomError("bad_request", N_("label: at most {most} printable characters"),
                            most=LABEL_MAX)
        token = new_secret()
        try:
            token_id = await stored.create_token(_store(request), who.player.id, token,
                                                 label, now=_now(request))
        except stored.TooMany:
            raise RoomError("bad_request", N_("an account holds at most {most} API "
                                              "tokens: revoke one"),
                            most=stored.TOKENS_PER_PLAYER) from None
        return _json({"id": token_id, "label": label, "token": token}, 201)
    who = await _who(request)
    listed = await stored.list_tokens(_store(request), who.player.id)
    return _json([{"id": t.id, "label": t.label, "created_at": t.created_at,
                   "used_at": t.used_at} for t in listed])


async def revoke_token(request: Request) -> Response:
    """Revoke one of the account's API tokens."""
    check_origin(request.headers, _settings(request))
    who = await _who(request)
    text = request.path_params["id"]
    if not (text.isascii() and text.isdigit()) or len(text) > 12:
        raise RoomError("not_found", N_("no such API token"))
    if not await stored.revoke_token(_store(request), who.player.id, int(text)):
        raise RoomError("not_found", N_("no such API token"))
    return _json({"ok": True})


def routes() -> list[BaseRoute]:
    """The routes of this module."""
    return [
        Route("/api/guest", _guarded(make_guest), methods=["POST"]),
        Route("/api/me", _guarded(me), methods=["GET"]),
        Route("/api/players/{username}", _guarded(profile), methods=["GET"]),
        Route("/api/account/claim", _guarded(claim), methods=["POST"]),
        Route("/api/account/login", _guarded(login), methods=["POST"]),
        Route("/api/account/logout", _guarded(logout), methods=["POST"]),
        Route("/api/account/logout-all", _guarded(logout_all), methods=["POST"]),
        Route("/api/account/password", _guarded(change_password), methods=["POST"]),
        Route("/api/account/delete", _guarded(delete_account), methods=["POST"]),
        Route("/api/account/export", _guarded(export), methods=["GET"]),
        Route("/api/account/tokens", _guarded(tokens), methods=["GET", "POST"]),
        Route("/api/account/tokens/{id}", _guarded(revoke_token), methods=["DELETE"]),
    ]
