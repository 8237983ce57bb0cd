"""Joining an online room from the terminal: the checks ``unokit play --server URL``
makes before its screen opens (:func:`check_room`, :func:`new_room_fields`), the hello
(:func:`join_room`), and the file of seat tokens (:class:`TokenStore`, by default
``$XDG_DATA_HOME/unokit/tokens.json``) that lets the same command take the seat back.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from unokit.client.client import ClientError, GameClient
from unokit.engine.rules import Rules
from unokit.i18n import _, current_language
from unokit.tui.session import parse_levels


def default_token_file() -> Path:
    """Where seat tokens are kept: ``$XDG_DATA_HOME/unokit/tokens.json`` (by default
    ``~/.local/share/unokit/tokens.json``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "unokit" / "tokens.json"


class TokenStore:
    """Seat tokens by server and room, in a JSON file (written with mode 0600).

    >>> import tempfile
    >>> store = TokenStore(Path(tempfile.mkdtemp()) / "tokens.json")
    >>> store.put("http://h:1/", "ABCDEF", "tok", 2)
    >>> store.get("http://h:1", "abcdef")
    'tok'
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_token_file()

    @staticmethod
    def key(server: str, room: str) -> str:
        """The key of a room of a server."""
        return f"{server.rstrip('/')} {room.upper()}"

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, server: str, room: str) -> str | None:
        """The token kept for ``room`` of ``server``, if any."""
        entry = self._read().get(self.key(server, room))
        token = entry.get("token") if isinstance(entry, dict) else None
        return token if isinstance(token, str) else None

    def put(self, server: str, room: str, token: str, seat: int | None) -> None:
        """Keep ``token`` for ``room`` of ``server`` (a write that fails is ignored: the
        game goes on, only coming back by running the command again is lost)."""
        data = self._read()
        data[self.key(server, room)] = {"token": token, "seat": seat}
        self._write(data)

    def forget(self, server: str, room: str) -> None:
        """Drop the token of ``room`` (the server no longer knows it)."""
        data = self._read()
        if data.pop(self.key(server, room), None) is not None:
            self._write(data)

    def _write(self, data: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp = self.path.with_suffix(".tmp")
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=1, sort_keys=True)
            os.replace(temp, self.path)


async def join_room(server: str, room: str, *, name: str = "", spectate: bool = False,
                    tokens: TokenStore | None = None) -> GameClient:
    """Join ``room`` of ``server``: with the kept token when there is one (taking the seat
    back), else as a new player (or a spectator); the new token is kept.

    Raises:
        ClientError: the server cannot be reached or refused the hello (``no_room``,
            ``room_full``, ...).
    """
    token = None if spectate or tokens is None else tokens.get(server, room)
    if token is not None:
        try:
            client = await GameClient.join(server, room, name=name, token=token,
                                         lang=current_language())
        except ClientError as exc:
            if not str(exc).startswith("bad_token"):
                raise
            assert tokens is not None
            tokens.forget(server, room)
        else:
            return client
    client = await GameClient.join(server, room, name=name, spectate=spectate,
                                     lang=current_language())
    if tokens is not None and client.token is not None and client.seat is not None:
        tokens.put(server, room, client.token, client.seat)
    return client


def new_room_fields(rules_text: str | None, players: int | None,
                    bots: str | None) -> dict[str, Any]:
    """The fields of ``POST /api/rooms`` for ``unokit play --server URL`` without a room:
    the rule set, and the bots of seats 1, 2, ... when ``bots`` names them.

    >>> new_room_fields("official", 3, "easy")
    {'rules': 'official,players=3', 'bots': ['easy', 'easy']}

    Raises:
        RulesError: a bad rule set.
        BotSpecError: an unknown bot.
    """
    rules = Rules.load(rules_text or "official")
    if players is not None and players != rules.players:
        rules = rules.with_(players=players)
    fields: dict[str, Any] = {"rules": rules.to_string()}
    if bots is not None and bots.strip():
        fields["bots"] = list(parse_levels(bots, rules.players - 1))
    return fields


def check_room(server: str, room: str | None, create: dict[str, Any] | None = None) -> str:
    """Before the screen opens: the code of ``room`` if ``server`` has it, or of a new
    room made with ``create`` (``POST /api/rooms``).

    Raises:
        ClientError: the server cannot be reached, has no such room, or refused to make
            one.
    """
    import httpx

    base = server.rstrip("/")
    try:
        with httpx.Client(timeout=30) as http:
            if room is None:
                answer = http.post(base + "/api/rooms", json=create or {})
            else:
                answer = http.get(f"{base}/api/rooms/{room}")
    except httpx.HTTPError as exc:
        raise ClientError(_("cannot reach {server}: {reason}", server=base,
                            reason=exc)) from None
    try:
        data = answer.json()
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    if answer.status_code == 404 and room is not None:
        raise ClientError(_("no room {code} on {server}", code=room, server=base))
    if answer.status_code >= 400:
        raise ClientError(f"{data.get('error', answer.status_code)}: "
                          f"{data.get('message', answer.reason_phrase)}")
    code = data.get("code", room)
    if not isinstance(code, str):
        raise ClientError(_("{server} did not answer with a room", server=base))
    return code


__all__ = [
    "TokenStore",
    "check_room",
    "default_token_file",
    "join_room",
    "new_room_fields",
]
