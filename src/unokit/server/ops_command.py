"""``unokit migrate`` and ``unokit admin``: the operator's commands (their packages load
only when they run).

``unokit migrate`` brings the database to this unokit's schema, under the migration lock
(servers and other ``migrate`` runs started at once wait for it); ``--check`` changes
nothing and says where the schema stands. Exit status: 0 current (or migrated), 1 behind
(``--check``), 3 a schema this unokit does not know or a database it cannot reach.

``unokit admin`` calls a running server's admin API (``--server URL``, the token from
``UNOKIT_ADMIN_TOKEN`` or the file ``admin-token`` of the data directory).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from unokit._extras import missing
from unokit.i18n import N_, _

UNREACHABLE = 3
"""The exit status when the database or the server cannot be used."""


def _fail(message: str, code: int) -> NoReturn:
    typer.echo(_("error: {message}", message=" ".join(message.split())), err=True)
    raise typer.Exit(code)


def _settings(database_url: str | None, data_dir: str | None) -> Any:
    need = missing("server", "migrate")
    if need is not None:
        _fail(need, 2)
    from unokit.server.settings import Settings, SettingsError
    env = dict(os.environ)
    env.update({f"UNOKIT_{k.upper()}": v for k, v in
                (("database_url", database_url), ("data_dir", data_dir)) if v is not None})
    try:
        return Settings.from_env(env)
    except SettingsError as exc:
        _fail(str(exc), 2)


def migrate_command(
    database_url: Annotated[str | None, typer.Option(
        "--database-url", help=N_("SQLAlchemy URL (UNOKIT_DATABASE_URL; SQLite in the "
                                  "data directory)"))] = None,
    data_dir: Annotated[str | None, typer.Option(
        "--data-dir", help=N_("where the SQLite database lives (UNOKIT_DATA_DIR)"))] = None,
    check: Annotated[bool, typer.Option(
        "--check", help=N_("change nothing: exit 1 if the schema is behind"))] = False,
) -> None:
    """Bring the server's database to this unokit's schema (back it up first)."""
    settings = _settings(database_url, data_dir)
    from sqlalchemy.exc import SQLAlchemyError

    from unokit.store.db import HEAD, SchemaError, migrate, open_engine, schema_state
    if settings.database_url.startswith("sqlite:///"):
        Path(settings.database_url.removeprefix("sqlite:///")).parent.mkdir(
            parents=True, exist_ok=True)
    engine = open_engine(settings.database_url)
    try:
        if check:
            state, revision = schema_state(engine)
            if state == "current":
                typer.echo(_("the schema is current ({revision})", revision=HEAD))
                return
            if state == "unknown":
                _fail(_("the schema is at {revision}, which this unokit does not know (it "
                        "knows up to {head}): run a newer unokit", revision=revision,
                        head=HEAD), UNREACHABLE)
            _fail(_("the schema is behind ({revision}; this unokit needs {head}): run "
                    "unokit migrate", revision=revision or "empty", head=HEAD), 1)
        before = schema_state(engine)[1]
        migrate(engine)
        typer.echo(_("the schema is current ({revision}; it was {before})", revision=HEAD,
                     before=before or "empty"))
    except SchemaError as exc:
        _fail(str(exc), UNREACHABLE)
    except SQLAlchemyError as exc:
        _fail(_("the database cannot be used: {error}", error=type(exc).__name__),
              UNREACHABLE)
    finally:
        engine.dispose()


admin_app = typer.Typer(help=N_("Run a server: list and close rooms, remove players, "
                                "ban addresses and names."), no_args_is_help=True)

Server = Annotated[str, typer.Option("--server", envvar="UNOKIT_SERVER",
                                     help=N_("the server's address (UNOKIT_SERVER)"))]
TokenFile = Annotated[Path | None, typer.Option(
    "--token-file", help=N_("the file of the admin token (else UNOKIT_ADMIN_TOKEN, else "
                            "DATA_DIR/admin-token)"))]


def _token(token_file: Path | None) -> str:
    if token_file is None:
        token = os.environ.get("UNOKIT_ADMIN_TOKEN", "")
        if token:
            return token
        token_file = Path(os.environ.get("UNOKIT_DATA_DIR", "unokit-data")) / "admin-token"
    try:
        return token_file.read_text().strip()
    except OSError:
        _fail(_("no admin token: set UNOKIT_ADMIN_TOKEN or give --token-file"), 2)


def call(server: str, token: str, method: str, path: str,
         body: dict[str, Any] | None = None) -> Any:
    """One admin API call; its JSON answer.

    Raises:
        typer.Exit: the server refused it or cannot be reached (its message printed).
    """
    import httpx
    try:
        response = httpx.request(method, server.rstrip("/") + path, json=body, timeout=10,
                                 headers={"Authorization": f"Bearer {token}"})
    except httpx.HTTPError as exc:
        _fail(_("the server cannot be reached: {error}", error=type(exc).__name__),
              UNREACHABLE)
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.status_code >= 400:
        message = data.get("message") if isinstance(data, dict) else None
        _fail(f"{response.status_code} {message or response.reason_phrase}", 1)
    return data


@admin_app.command("rooms")
def rooms_command(server: Server = "http://127.0.0.1:8000",
                  token_file: TokenFile = None) -> None:
    """List the rooms: code, status, players, connections."""
    for room in call(server, _token(token_file), "GET", "/admin/rooms"):
        players = ", ".join(f"{s['seat']}:{s['name'] or s['kind']}"
                            + ("*" if s["connected"] else "") for s in room["seats"])
        typer.echo(f"{room['code']}  {room['status']:<8}  {room['connections']:>3} conn  "
                   f"{players}")


@admin_app.command("close")
def close_command(code: str, reason: Annotated[str, typer.Option(
        help=N_("why (the players are told)"))] = "",
                  server: Server = "http://127.0.0.1:8000",
                  token_file: TokenFile = None) -> None:
    """Close a room (its match too); its players are told why."""
    call(server, _token(token_file), "POST", f"/admin/rooms/{code}/close",
         {"reason": reason})
    typer.echo(_("closed {code}", code=code))


@admin_app.command("kick")
def kick_command(code: str, seat: int, server: Server = "http://127.0.0.1:8000",
                 token_file: TokenFile = None) -> None:
    """Take a player's seat (a bot plays it if the match is under way)."""
    call(server, _token(token_file), "POST", f"/admin/rooms/{code}/kick", {"seat": seat})
    typer.echo(_("removed seat {seat} of {code}", seat=seat, code=code))


@admin_app.command("ban")
def ban_command(kind: Annotated[str, typer.Argument(help=N_("address or name"))],
                value: str,
                reason: Annotated[str, typer.Option(help=N_("why (for operators)"))] = "",
                server: Server = "http://127.0.0.1:8000",
                token_file: TokenFile = None) -> None:
    """Ban an address or a name."""
    ban = call(server, _token(token_file), "POST", "/admin/bans",
               {"kind": kind, "value": value, "reason": reason})
    typer.echo(_("ban {id}: {kind} {value}", id=ban["id"], kind=ban["kind"],
                 value=ban["value"]))


@admin_app.command("bans")
def bans_command(server: Server = "http://127.0.0.1:8000",
                 token_file: TokenFile = None) -> None:
    """List the bans."""
    for ban in call(server, _token(token_file), "GET", "/admin/bans"):
        typer.echo(json.dumps(ban, ensure_ascii=False))


@admin_app.command("unban")
def unban_command(ban_id: int, server: Server = "http://127.0.0.1:8000",
                  token_file: TokenFile = None) -> None:
    """Lift a ban (its number from ``unokit admin bans``)."""
    call(server, _token(token_file), "DELETE", f"/admin/bans/{ban_id}")
    typer.echo(_("lifted ban {id}", id=ban_id))


@admin_app.command("flagged")
def flagged_command(before: Annotated[int | None, typer.Option(
        help=N_("list the matches flagged before this one (its seq)"))] = None,
                    server: Server = "http://127.0.0.1:8000",
                    token_file: TokenFile = None) -> None:
    """List the matches the anti-farming checks flagged, newest first: each seat's
    player, place and the checks that voided its rating."""
    query = "" if before is None else f"?before={before}"
    answer = call(server, _token(token_file), "GET", f"/admin/flagged{query}")
    for match in answer["matches"]:
        seats = ", ".join(
            f"{s['seat']}:{s['name'] or s['bot'] or s['player'] or '-'} #{s['place']}"
            + (f" ({'+'.join(s['reasons'])})" if s["reasons"] else "")
            for s in match["seats"])
        typer.echo(f"{match['seq']}  {match['code'] or match['match']}  {seats}")
    if answer["before"] is not None:
        typer.echo(_("more: --before {seq}", seq=answer["before"]))
