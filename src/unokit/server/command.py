"""``unokit serve``: the command (its packages load only when it runs)."""

from __future__ import annotations

from typing import Annotated

import typer

from unokit._extras import missing
from unokit.i18n import N_

DataDir = Annotated[str | None, typer.Option("--data-dir", help=N_("where the SQLite database "
                                             "lives (UNOKIT_DATA_DIR; ./unokit-data)"))]


def serve_command(
    host: Annotated[str | None, typer.Option(help=N_("address to listen on (UNOKIT_HOST; "
                                             "127.0.0.1)"))] = None,
    port: Annotated[int | None, typer.Option(help=N_("port (UNOKIT_PORT; 8000)"))] = None,
    database_url: Annotated[str | None, typer.Option(
        "--database-url", help=N_("SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db "
        "(UNOKIT_DATABASE_URL; SQLite in the data directory)"))] = None,
    data_dir: DataDir = None,
    log_level: Annotated[str | None, typer.Option(
        "--log-level", help=N_("debug, info, warning or error (UNOKIT_LOG_LEVEL)"))] = None,
    turn_timer: Annotated[int | None, typer.Option(
        "--turn-timer", help=N_("a new room's turn timer: 0 (off), 15, 30 or 60 s "
        "(UNOKIT_TURN_TIMER)"))] = None,
    catch_grace: Annotated[float | None, typer.Option(
        "--catch-grace", help=N_("seconds a late UNO call still counts before a catch "
        "(UNOKIT_CATCH_GRACE; 1.0)"))] = None,
    bot_delay: Annotated[float | None, typer.Option(
        "--bot-delay", help=N_("seconds a bot waits before acting (UNOKIT_BOT_DELAY; 0.8)"))]
    = None,
    round_pause: Annotated[float | None, typer.Option(
        "--round-pause", help=N_("seconds between rounds (UNOKIT_ROUND_PAUSE; 10)"))] = None,
    public_url: Annotated[str | None, typer.Option(
        "--public-url", help=N_("the address invite links start with (UNOKIT_PUBLIC_URL)"))]
    = None,
    seat_timeout: Annotated[float | None, typer.Option(
        "--seat-timeout", help=N_("seconds a lobby seat stays taken while its player is "
        "not connected (UNOKIT_SEAT_TIMEOUT; 120)"))] = None,
    lobby_timeout: Annotated[float | None, typer.Option(
        "--lobby-timeout", help=N_("seconds a lobby stays open with no player connected "
        "(UNOKIT_LOBBY_TIMEOUT; 3600)"))] = None,
    abandon_after: Annotated[float | None, typer.Option(
        "--abandon-after", help=N_("seconds a match goes on with no player connected "
        "before it is closed as abandoned (UNOKIT_ABANDON_AFTER; 600)"))] = None,
    keep_finished: Annotated[float | None, typer.Option(
        "--keep-finished", help=N_("days the rows of a match that is over are kept; 0: "
        "for ever (UNOKIT_KEEP_FINISHED; 90)"))] = None,
    keep_lobbies: Annotated[float | None, typer.Option(
        "--keep-lobbies", help=N_("days the rows of a lobby closed before its match "
        "are kept; 0: for ever (UNOKIT_KEEP_LOBBIES; 1)"))] = None,
    log_format: Annotated[str | None, typer.Option(
        "--log-format", help=N_("json, text or auto (UNOKIT_LOG_FORMAT; auto: text at a "
        "terminal)"))] = None,
    migrate: Annotated[str | None, typer.Option(
        "--migrate", help=N_("auto, check or off: what to do with the database schema at "
        "start (UNOKIT_MIGRATE; auto)"))] = None,
    base_path: Annotated[str | None, typer.Option(
        "--base-path", help=N_("the path the server is reached under, e.g. /uno "
        "(UNOKIT_BASE_PATH)"))] = None,
) -> None:
    """Run the game server: the HTTP API and the WebSocket game on 127.0.0.1:8000, with
    SQLite in ./unokit-data unless told otherwise. Ctrl-C stops it gracefully."""
    need = missing("server", "serve")
    if need is not None:
        raise typer.BadParameter(need)
    import os

    from unokit.server.serve import serve
    from unokit.server.settings import Settings, SettingsError
    flags = {"host": host, "port": port, "database_url": database_url, "data_dir": data_dir,
             "log_level": log_level, "turn_timer": turn_timer, "catch_grace": catch_grace,
             "bot_delay": bot_delay, "round_pause": round_pause, "public_url": public_url,
             "seat_timeout": seat_timeout, "lobby_timeout": lobby_timeout,
             "abandon_after": abandon_after, "keep_finished": keep_finished,
             "keep_lobbies": keep_lobbies, "log_format": log_format, "migrate": migrate,
             "base_path": base_path}
    env = dict(os.environ)
    env.update({f"UNOKIT_{name.upper()}": str(value) for name, value in flags.items()
                if value is not None})
    try:
        settings = Settings.from_env(env)
    except SettingsError as exc:
        raise typer.BadParameter(str(exc)) from None
    serve(settings)
