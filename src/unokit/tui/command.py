"""The command-line side of the terminal game: ``unokit play`` and the viewer of
``unokit replay FILE --tui``. Textual is imported only when a screen opens, so the
rest of the command line starts quickly."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer

from unokit._extras import missing
from unokit.engine.errors import RecordError, RulesError
from unokit.formats.record import Record
from unokit.i18n import N_, _, current_language, localize
from unokit.tui.session import DEFAULT_DELAY, MAX_SEED, PlayConfig, config_from_options


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(_("error: {message}", message=message), err=True)
    raise typer.Exit(code)


def play_command(
    rules_text: Annotated[str | None, typer.Option(
        "--rules", help=N_("A preset name or 'official,players=3,rounds=2' (starts at once)."))
    ] = None,
    players: Annotated[int | None, typer.Option(
        min=2, max=10, help=N_("Number of players, you included (starts at once)."))] = None,
    bots: Annotated[str | None, typer.Option(
        help=N_("Bot levels of seats 1, 2, ..., comma-separated, repeated as needed "
             "(starts at once)."))] = None,
    seed: Annotated[int | None, typer.Option(
        min=0, max=MAX_SEED, help=N_("The game seed (random if not given; starts at once)."))
    ] = None,
    name: Annotated[str, typer.Option(
        help=N_("Your name at the table (control characters are shown escaped)."))] = "You",
    delay: Annotated[float, typer.Option(
        min=0.0, help=N_("Seconds a bot waits before it acts (0: at once)."))] = DEFAULT_DELAY,
    server: Annotated[str | None, typer.Option(
        help=N_("Play online on this game server (http://HOST:PORT): in the room --room, "
                "or in a new room of --rules, --players and --bots."))] = None,
    room: Annotated[str | None, typer.Option(
        help=N_("The code of the online room to join (with --server)."))] = None,
    spectate: Annotated[bool, typer.Option(
        "--spectate", help=N_("Watch the online room instead of playing."))] = False,
    token_file: Annotated[Path | None, typer.Option(
        help=N_("Where seat tokens are kept, to take the seat back (default: "
                "~/.local/share/unokit/tokens.json)."))] = None,
) -> None:
    """Play UNO against bots in the terminal; without options a setup screen opens.
    With --server, play in an online room."""
    if problem := missing("tui", "play"):
        _fail(problem)
    if server is not None:
        if seed is not None:
            _fail(_("--seed: online, the server deals (see docs/fairness.md)"))
        _play_online(server, room, spectate=spectate, token_file=token_file, name=name,
                     rules_text=rules_text, players=players, bots=bots)
        return
    if room is not None or spectate or token_file is not None:
        _fail(_("--room, --spectate and --token-file need --server URL"))
    config: PlayConfig | None = None
    if rules_text is not None or players is not None or bots is not None or seed is not None:
        try:
            config = config_from_options(rules_text, players, bots, seed, name)
        except RulesError as exc:
            _fail(localize(current_language(), exc))
        except ValueError as exc:
            _fail(f"--bots: {exc}" if "bot" in str(exc) else str(exc))
        given = len([level for level in (bots or "").split(",") if level.strip()])
        if given > len(config.levels):
            _fail(_("--bots: {given} bot levels for {opponents} opponents", given=given,
                    opponents=len(config.levels)))
    from unokit.tui.app import run_play

    run_play(config, delay=delay, name=name)


def _play_online(server: str, room: str | None, *, spectate: bool,
                 token_file: Path | None, name: str, rules_text: str | None,
                 players: int | None, bots: str | None) -> None:
    """``unokit play --server URL``: check the server and the room (or make the room),
    then open the online table."""
    from unokit.bots import BotSpecError
    from unokit.client.client import ClientError
    from unokit.tui.online_join import TokenStore, check_room, new_room_fields

    if problem := missing("server", "play --server"):
        _fail(problem)
    if spectate and room is None:
        _fail(_("--spectate needs --room CODE"))
    server = server.rstrip("/")
    if not server.startswith(("http://", "https://")):
        _fail(_("--server {server}: expected http://HOST:PORT", server=server))
    try:
        fields = new_room_fields(rules_text, players, bots) if room is None else None
        code = check_room(server, room, fields)
    except BotSpecError as exc:
        _fail(_("--bots: {reason}", reason=exc))
    except RulesError as exc:
        _fail(localize(current_language(), exc))
    except ClientError as exc:
        _fail(str(exc))
    from unokit.tui.online_screen import run_online

    problem = run_online(server, code, name="" if name == "You" else name,
                         spectate=spectate, tokens=TokenStore(token_file))
    if problem:
        _fail(problem)
    if not spectate:
        typer.echo(_("room {code}: come back with unokit play --server {server} --room {code}",
                     code=code, server=server))


def replay_tui(record: Record, file: Path, seat: int | None) -> None:
    """Check a record and open the replay viewer (``unokit replay FILE --tui``)."""
    if problem := missing("tui", "replay --tui"):
        _fail(problem)
    from unokit.tui.replay import ReplayApp, load_frames

    try:
        frames = load_frames(record)
    except RecordError as exc:
        _fail(f"{file}: {localize(current_language(), exc)}")
    players = frames[0].game.n
    if seat is not None and not 0 <= seat < players:
        _fail(_("--as {seat}: there are seats 0..{last}", seat=seat, last=players - 1))
    ReplayApp(record, frames, title=str(file), seat=seat).run()


__all__ = ["play_command", "replay_tui"]
