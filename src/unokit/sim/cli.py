"""The ``unokit simulate`` command: many fast games, their statistics, tables and plots.

>>> from typer.testing import CliRunner
>>> import typer
>>> app = typer.Typer()
>>> _ = app.command("simulate")(simulate_command)
>>> result = CliRunner().invoke(app, ["--rules", "official,silence=twos", "--games", "10"])
>>> result.exit_code, "silence" in result.output
(2, True)
"""

from __future__ import annotations

import csv
import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from unokit._extras import missing
from unokit.engine.errors import RulesError
from unokit.engine.rules import Rules
from unokit.i18n import _, current_language, localize
from unokit.sim.policies import DEFAULT_MAX_ACTIONS, POLICIES, PolicyError, seat_policies
from unokit.sim.ray_backend import BackendError, import_ray

if TYPE_CHECKING:
    from unokit.sim.stats import Distribution, Rate, Report


class Backend(StrEnum):
    """Where the games run."""

    LOCAL = "local"
    RAY = "ray"


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(_("error: {message}", message=message), err=True)
    raise typer.Exit(code)


def _load(text: str, players: int | None, option: str) -> Rules:
    from unokit.sim.support import check_supported

    try:
        rules = Rules.load(text)
        if players is not None and players != rules.players:
            rules = rules.with_(players=players)
        check_supported(rules)
    except RulesError as exc:
        _fail(f"{option} {text!r}: {localize(current_language(), exc)}")
    return rules


def _span(dist: Distribution) -> str:
    return f"{dist.mean:.1f} / {dist.median:g} / {dist.p10:g}-{dist.p90:g}"


def _rate(value: Rate) -> str:
    return f"{value.rate:.3f} [{value.low:.3f}, {value.high:.3f}]"


def tables(reports: list[Report]) -> list[Table]:
    """The reports as rich tables, one column per rule set."""
    labels = [rep.label for rep in reports]

    def table(title: str, first: str) -> Table:
        out = Table(title=title)
        out.add_column(first, no_wrap=True)
        for label in labels:
            out.add_column(label, overflow="fold")
        return out

    run = table("Run", "")
    run.add_row("policies", *[",".join(dict.fromkeys(rep.policies)) for rep in reports])
    run.add_row("games (finished)", *[f"{rep.games:,} ({rep.finished:,})" for rep in reports])
    run.add_row("seeds", *[f"{rep.seed}..{rep.seed + rep.games - 1}" for rep in reports])
    run.add_row("time", *[f"{rep.seconds:.1f} s, {rep.jobs} job{'s' * (rep.jobs != 1)}"
                          for rep in reports])
    run.add_row("games/s", *[f"{rep.games_per_second:,.0f}" for rep in reports])
    run.add_row("actions/s", *[f"{rep.actions_per_second:,.0f}" for rep in reports])
    run.add_row("rounds per game", *[f"{rep.rounds.mean:.2f}" for rep in reports])
    run.add_row("blocked rounds", *[f"{rep.blocked_rounds:,}" for rep in reports])
    run.add_row("  by repetition", *[f"{rep.repeated_rounds:,}" for rep in reports])

    lengths = table("Game length per game: mean / median / p10-p90", "measure")
    for name in ("turns", "plays", "draws", "actions"):
        lengths.add_row(name, *[_span(rep.lengths[name]) for rep in reports])

    seats = table("Win rate by seat [95% Wilson interval]", "seat")
    for seat in range(max(rep.players for rep in reports)):
        seats.add_row(str(seat), *[_rate(rep.seats[seat]) if seat < rep.players else "-"
                                   for rep in reports])

    first = table("First player (the first turn of the first round)", "")
    first.add_row("win rate", *[_rate(rep.first_player) for rep in reports])
    first.add_row("fair share (1 / players)", *[f"{rep.expected_first:.3f}"
                                                 for rep in reports])
    first.add_row("advantage (rate x players)",
                  *[f"{rep.first_player.rate * rep.players:.3f}" for rep in reports])
    for offset in range(1, max(rep.players for rep in reports)):
        first.add_row(f"seat first+{offset} win rate",
                      *[_rate(rep.positions[offset]) if offset < rep.players else "-"
                        for rep in reports])

    points = table("Points: the winner's final score", "")
    for key in ("mean", "median", "p10", "p90", "min", "max"):
        points.add_row(key, *[f"{getattr(rep.points, key):.1f}" if key == "mean"
                              else f"{getattr(rep.points, key):g}" for rep in reports])
    return [run, lengths, seats, first, points]


def simulate_command(
    rules_text: Annotated[str, typer.Option(
        "--rules", help="A preset name, 'official,players=3,rounds=1' or a JSON object.")
    ] = "official",
    players: Annotated[int | None, typer.Option(
        min=2, max=10, help="Number of players (overrides the rules).")] = None,
    games: Annotated[int, typer.Option(min=1, help="How many games to play.")] = 10_000,
    policy: Annotated[str, typer.Option(
        help=f"Policy of every seat, or by seat comma-separated: {', '.join(POLICIES)}.")
    ] = "random",
    seed: Annotated[int, typer.Option(
        min=0, max=2**64 - 1, help="Seed of the first game; game i has seed + i.")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Processes to play the games in.")] = 1,
    vs: Annotated[str | None, typer.Option(
        "--vs", help="A second rule set, played with the same seeds, shown side by side.")
    ] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the statistics "
                                                   "here as JSON.")] = None,
    csv_path: Annotated[Path | None, typer.Option("--csv", help="Write the statistics "
                                                  "here as CSV.")] = None,
    plot_dir: Annotated[Path | None, typer.Option("--plot", help="Write PNG and SVG plots "
                                                  "into this folder.")] = None,
    chunk: Annotated[int | None, typer.Option(min=1, help="Games per chunk of work.")
                     ] = None,
    max_actions: Annotated[int, typer.Option(
        "--max-actions", min=1, help="A game not over after this many actions stops "
        "unfinished.")] = DEFAULT_MAX_ACTIONS,
    backend: Annotated[Backend, typer.Option(
        help="Where the games run: local (--jobs processes on this machine) or ray (Ray "
        "tasks on a local Ray instance with --jobs CPUs, or on the cluster at "
        "--ray-address).")] = Backend.LOCAL,
    ray_address: Annotated[str | None, typer.Option(
        "--ray-address", help="With --backend ray: the Ray cluster to run on (HOST:PORT, "
        "ray://HOST:PORT or auto) instead of a local Ray instance.")] = None,
) -> None:
    """Simulate many games with the compiled simulator and report game lengths, win rates
    by seat, the first player's advantage and points (rule sets of the presets official,
    classic_ru, stacking, seven_o, jump_in, party, h2o, pairs and online; others are
    refused, naming the keys)."""
    if problem := missing("sim", "simulate"):
        _fail(problem)
    if plot_dir is not None and (problem := missing("sim", "simulate --plot",
                                                    modules=("matplotlib",),
                                                    what="matplotlib")):
        _fail(problem)
    if ray_address is not None and backend is not Backend.RAY:
        _fail(_("--ray-address needs --backend ray"))
    if backend is Backend.RAY:
        try:
            import_ray()
        except BackendError as exc:
            _fail(f"--backend ray: {exc}")
    sets = [_load(rules_text, players, "--rules")]
    if vs is not None:
        sets.append(_load(vs, players, "--vs"))
    try:
        seat_policies(policy, max(r.players for r in sets))
    except PolicyError as exc:
        _fail(f"--policy: {exc}")
    given = len([name for name in policy.split(",") if name.strip()])
    seats = min(r.players for r in sets)
    if given > seats:
        _fail(_("--policy: {given} policies for {seats} seats", given=given, seats=seats))
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from unokit.sim.runner import simulate
    from unokit.sim.stats import CSV_HEADER, csv_rows, report

    console = Console(highlight=False, soft_wrap=True)
    labels = [r.to_string() for r in sets]
    if len(set(labels)) < len(labels):
        labels = [f"{index + 1}: {label}" for index, label in enumerate(labels)]
    reports: list[Report] = []
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), TimeRemainingColumn(),
                        console=Console(stderr=True), transient=False)
    with progress:
        for rules, label in zip(sets, labels, strict=True):
            task = progress.add_task(f"simulate {label}", total=games)

            def advance(count: int, task: TaskID = task) -> None:
                progress.update(task, advance=count)

            try:
                result = simulate(rules, games, seed, policy, jobs=jobs, chunk=chunk,
                                  max_actions=max_actions, on_chunk=advance,
                                  backend=backend.value, address=ray_address)
            except BackendError as exc:
                progress.stop()
                _fail(f"--backend ray: {exc}", code=1)
            reports.append(report(result, label))
    for out in tables(reports):
        console.print(out)
    unfinished = sum(rep.games - rep.finished for rep in reports)
    if unfinished:
        console.print(f"{unfinished} game(s) stopped unfinished after {max_actions:,} "
                      "actions; they count in the lengths, not in the win rates.",
                      markup=False)
    written: list[Path] = []
    try:
        if json_path is not None:
            json_path.parent.mkdir(parents=True, exist_ok=True)
            data = {"reports": [rep.to_dict() for rep in reports]}
            json_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
            written.append(json_path)
        if csv_path is not None:
            csv_path.parent.mkdir(parents=True, exist_ok=True)
            with csv_path.open("w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(CSV_HEADER)
                writer.writerows(csv_rows(reports))
            written.append(csv_path)
        if plot_dir is not None:
            from unokit.sim.plots import all_plots

            written += all_plots(reports, plot_dir)
    except OSError as exc:
        _fail(f"cannot write {exc.filename}: {exc.strerror or exc}")
    for path in written:
        console.print(f"wrote {path}", markup=False)


__all__ = ["Backend", "simulate_command", "tables"]
