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
from unokit.i18n import N_, _
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
) -> None:
    """Play UNO against bots in the terminal; without options a setup screen opens."""
    if problem := missing("tui", "play"):
        _fail(problem)
    config: PlayConfig | None = None
    if rules_text is not None or players is not None or bots is not None or seed is not None:
        try:
            config = config_from_options(rules_text, players, bots, seed, name)
        except RulesError as exc:
            _fail(str(exc))
        except ValueError as exc:
            _fail(f"--bots: {exc}" if "bot" in str(exc) else str(exc))
        given = len([level for level in (bots or "").split(",") if level.strip()])
        if given > len(config.levels):
            _fail(_("--bots: {given} bot levels for {opponents} opponents", given=given,
                    opponents=len(config.levels)))
    from unokit.tui.app import run_play

    run_play(config, delay=delay, name=name)


def replay_tui(record: Record, file: Path, seat: int | None) -> None:
    """Check a record and open the replay viewer (``unokit replay FILE --tui``)."""
    if problem := missing("tui", "replay --tui"):
        _fail(problem)
    from unokit.tui.replay import ReplayApp, load_frames

    try:
        frames = load_frames(record)
    except RecordError as exc:
        _fail(f"{file}: {exc}")
    players = frames[0].game.n
    if seat is not None and not 0 <= seat < players:
        _fail(_("--as {seat}: there are seats 0..{last}", seat=seat, last=players - 1))
    ReplayApp(record, frames, title=str(file), seat=seat).run()


__all__ = ["play_command", "replay_tui"]
