"""``unokit arena``: bots play many seeded games against each other; a table of win rates
with 95 % intervals, mean points, decision times and ratings (see :mod:`unokit.arena`).
``unokit arena-merge``: the same table and files for parts of one run (``unokit arena
--first-game K --json PART.json``) put together.

>>> from typer.testing import CliRunner
>>> from unokit.cli import app
>>> result = CliRunner().invoke(app, ["arena", "--bots", "playfirst,random", "--games", "4"])
>>> result.exit_code, "playfirst" in result.output
(0, True)
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from unokit._extras import missing
from unokit.arena import (
    GAME_LIMIT,
    PLOT_SUFFIXES,
    ArenaError,
    ArenaResult,
    BotStats,
    Rate,
    check_arena,
    format_ranges,
    merge_files,
    plot_win_rates,
    run_arena,
)
from unokit.i18n import _

TABLE_WIDTH = 120
"""Columns of the output where it goes to a file or pipe."""


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(_("error: {message}", message=message), err=True)
    raise typer.Exit(code)


class _RateColumn(ProgressColumn):
    """Games per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("? games/s" if speed is None else f"{speed:,.0f} games/s")


def format_seconds(seconds: float) -> str:
    """A duration for the table: ``12 us``, ``3.40 ms``, ``1.25 s`` (``-`` if unknown).

    >>> format_seconds(0.0000123), format_seconds(0.0034), format_seconds(1.25)
    ('12 us', '3.40 ms', '1.25 s')
    """
    if math.isnan(seconds):
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def format_rate(rate: Rate) -> str:
    """``41.2% [40.1, 42.3]``: a win rate and its 95 % interval, in percent."""
    if not rate.games:
        return "-"
    low, high = rate.interval
    return f"{100 * rate.rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def format_mean(mean: float, low: float, high: float) -> str:
    """``130.1 ± 6.8`` (the half width of the interval; the mean alone without one)."""
    if math.isnan(mean):
        return "-"
    if math.isnan(low):
        return f"{mean:.1f}"
    return f"{mean:.1f} ± {(high - low) / 2:.1f}"


WIDE = 140
"""Console columns from which the arena prints one table; below, two that fit 80."""


def result_table(result: ArenaResult, timing: bool = True) -> Table:
    """The per-bot table: games, wins, win rate and points, and with ``timing`` the
    decision times and the rating too."""
    unit = "matches" if result.match else "rounds"
    table = Table(title=f"Arena: {result.games} {unit}, rules {result.rules.to_string()}, "
                        f"seed {result.seed}")
    table.add_column("bot", no_wrap=True)
    table.add_column("seats", justify="right")
    table.add_column("games", justify="right")
    table.add_column("wins", justify="right")
    table.add_column("win rate [95% CI]", justify="right", no_wrap=True)
    table.add_column(f"points ({result.points_better} better)", justify="right")
    if timing:
        _timing_columns(table)
    for bot in result.bots():
        row = [bot.spec, str(len(bot.entries)), f"{bot.rate.games:,}", f"{bot.rate.wins:,}",
               format_rate(bot.rate), format_mean(*bot.points)]
        table.add_row(*row, *(_timing_cells(bot) if timing else ()))
    return table


def timing_table(result: ArenaResult) -> Table:
    """Each bot's decision times and rating (the columns :func:`result_table` leaves out
    on a narrow console)."""
    table = Table(title="Decision time (calls that had to act) and rating")
    table.add_column("bot", no_wrap=True)
    _timing_columns(table)
    for bot in result.bots():
        table.add_row(bot.spec, *_timing_cells(bot))
    return table


def _timing_columns(table: Table) -> None:
    table.add_column("decisions", justify="right")
    table.add_column("median", justify="right", no_wrap=True)
    table.add_column("p90", justify="right", no_wrap=True)
    table.add_column("rating (mu ± sigma)", justify="right", no_wrap=True)


def _timing_cells(bot: BotStats) -> list[str]:
    return [f"{bot.timing.decisions:,}", format_seconds(bot.timing.quantile(0.5)),
            format_seconds(bot.timing.quantile(0.9)), f"{bot.mu:.1f} ± {bot.sigma:.1f}"]


def games_text(result: ArenaResult) -> str:
    """Which games of the run the result holds, from how many parts, and the gaps."""
    count = f"{result.games:,} game{'s' if result.games != 1 else ''}"
    text = f"Games {format_ranges(result.game_ranges())} ({count}) of the run with seed " \
           f"{result.seed}"
    if result.parts > 1:
        text += f", from {result.parts} parts"
    gaps = result.gaps()
    if gaps:
        missing = sum(b - a + 1 for a, b in gaps)
        text += f"; not covered: {format_ranges(gaps)} ({missing:,} game" \
                f"{'s' if missing != 1 else ''} missing)"
    return text


def print_result(console: Console, result: ArenaResult, show_games: bool = False) -> None:
    """The table, then which games it covers (with ``show_games``, a part or merged parts),
    per-seat win rates, the first player's advantage and the counts."""
    if console.width >= WIDE:
        console.print(result_table(result))
    else:
        console.print(result_table(result, timing=False))
        console.print(timing_table(result))
    if show_games or result.first_game or result.parts > 1 or result.gaps():
        console.print(games_text(result), markup=False)
    seats = ", ".join(f"{seat}: {format_rate(rate)}" for seat, rate in enumerate(result.seats()))
    console.print(f"Seats: {seats}", markup=False)
    first = result.positions()[0]
    expected = result.expected_rate()
    if first.games:
        console.print(f"First to play: {format_rate(first)} (equal seats {100 * expected:.1f}%, "
                      f"advantage {100 * (first.rate - expected):+.1f} percentage points)",
                      markup=False)
    counts = result.counts()
    unit = "matches" if result.match else "rounds"
    rate = result.games / result.seconds if result.seconds > 0 else 0.0
    console.print(
        f"{counts['games']:,} games ({unit}), {counts['no_winner']} without a winner "
        f"({counts['unfinished']} unfinished, {counts['errors']} errors), "
        f"{counts['blocked_rounds']} blocked rounds in {counts['games_with_blocked_round']} "
        f"games; {result.seconds:.1f} s{' in all parts' if result.parts > 1 else ''}, "
        f"{rate:,.1f} games/s, {result.jobs} job{'s' if result.jobs != 1 else ''}",
        markup=False)
    for problem in result.problems():
        console.print(f"  game {problem['game']} (seed {problem['seed']}, bots "
                      f"{','.join(problem['bots'])}): {problem['status']}: "
                      f"{problem['message']}", markup=False)


def _check_extras(command: str, plot_path: Path | None) -> None:
    """Stop unless the arena's ratings (openskill) and, for a plot, matplotlib import."""
    problem = missing("arena", command)
    if problem is None and plot_path is not None:
        problem = missing("arena", f"{command} --plot", modules=("matplotlib",),
                          what="matplotlib")
    if problem:
        _fail(problem)


def _check_outputs(json_path: Path | None, plot_path: Path | None) -> None:
    for path, what in ((json_path, "--json"), (plot_path, "--plot")):
        if path is not None and not path.parent.is_dir():
            _fail(f"{what} {path}: no such folder {path.parent}")
    if plot_path is not None and plot_path.suffix.lower() not in PLOT_SUFFIXES:
        _fail(f"--plot {plot_path}: write a .png or .svg file")


def _output_console() -> Console:
    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:
        console.width = max(console.width, TABLE_WIDTH)
    return console


def _write_outputs(console: Console, result: ArenaResult, json_path: Path | None,
                   plot_path: Path | None) -> None:
    try:
        if json_path is not None:
            result.write_json(json_path)
            console.print(f"Results written to {json_path}", markup=False)
        if plot_path is not None:
            plot_win_rates(result, plot_path)
            console.print(f"Plot written to {plot_path}", markup=False)
    except OSError as exc:
        _fail(f"cannot write {exc.filename or 'the file'}: {exc.strerror or exc}")


def arena_command(
    bots: Annotated[str, typer.Option(
        help="Bot specs by seat, comma-separated (one per seat; repeats allowed, e.g. "
             "'playfirst,random,random'). Their number sets the number of players.")],
    rules_text: Annotated[str, typer.Option(
        "--rules", help="A preset name, 'official,target_score=200' or a JSON object; if it "
                        "sets players, that must be the number of bots.")] = "official",
    games: Annotated[int, typer.Option(min=1, help="How many games to play.")] = 1000,
    seed: Annotated[int, typer.Option(
        min=0, max=2**64 - 1, help="Seed of the first game; game i has seed + i.")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Processes to play the games in.")] = 1,
    match: Annotated[bool, typer.Option(
        "--match", help="A game is a whole match (default: one round).")] = False,
    json_path: Annotated[Path | None, typer.Option(
        "--json", help="Write every result to this JSON file.")] = None,
    plot_path: Annotated[Path | None, typer.Option(
        "--plot", help="Draw the win rates with their intervals (.png or .svg).")] = None,
    max_actions: Annotated[int | None, typer.Option(
        "--max-actions", min=1,
        help="Actions after which a game has no winner (default 50000 a round, 1000000 a "
             "match).")] = None,
    first_game: Annotated[int, typer.Option(
        "--first-game", help="Play games K .. K+games-1 of the run with this seed, as a whole "
                             "run plays them (a part for unokit arena-merge).")] = 0,
) -> None:
    """Bots play many seeded games against each other, seats rotating; win rates with 95%
    intervals, mean points, decision times and ratings. Exit 1 if a game failed."""
    _check_extras("arena", plot_path)
    specs = [spec.strip() for spec in bots.split(",")]
    if not any(specs):
        _fail(_("--bots: give one bot name per seat"))
    if any(not spec for spec in specs):
        _fail(f"--bots {bots!r}: an empty bot name")
    if first_game < 0:
        _fail(_("--first-game {first}: the first game must be 0 or more", first=first_game))
    _check_outputs(json_path, plot_path)
    try:
        check_arena(specs, rules_text, match)
        if first_game + games > GAME_LIMIT:
            raise ArenaError(f"--first-game {first_game} --games {games}: game numbers stop "
                             f"at 2**64-1")
    except ArenaError as exc:
        _fail(str(exc))
    progress = Progress(
        TextColumn("arena"), BarColumn(), MofNCompleteColumn(), _RateColumn(),
        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
        console=Console(stderr=True), transient=False,
    )
    try:
        with progress:
            task = progress.add_task("arena", total=games)
            result = run_arena(specs, rules_text, games, seed, jobs=jobs, match=match,
                               progress=lambda done: progress.update(task, advance=done),
                               max_actions=max_actions, first_game=first_game)
    except ArenaError as exc:
        _fail(str(exc))
    console = _output_console()
    print_result(console, result)
    _write_outputs(console, result, json_path, plot_path)
    if result.counts()["errors"]:
        raise typer.Exit(1)


def arena_merge_command(
    parts: Annotated[list[Path], typer.Argument(
        help="Arena JSON files of one run (unokit arena --first-game K --json PART.json), "
             "in any order.", show_default=False)],
    json_path: Annotated[Path | None, typer.Option(
        "--json", help="Write the merged results to this JSON file.")] = None,
    plot_path: Annotated[Path | None, typer.Option(
        "--plot", help="Draw the win rates with their intervals (.png or .svg).")] = None,
) -> None:
    """Merge parts of one arena run (same bots, rules, seed, match and max actions; no game
    twice) into the table and files of one run of all their games. Exit 2 if the files do
    not merge, 1 if a game failed."""
    _check_extras("arena-merge", plot_path)
    _check_outputs(json_path, plot_path)
    try:
        result = merge_files(parts)
    except ArenaError as exc:
        _fail(str(exc))
    console = _output_console()
    print_result(console, result, show_games=True)
    _write_outputs(console, result, json_path, plot_path)
    if result.counts()["errors"]:
        raise typer.Exit(1)


__all__ = ["arena_command", "arena_merge_command", "format_mean", "format_rate",
           "format_seconds", "games_text", "print_result", "result_table"]
