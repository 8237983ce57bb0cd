"""The ``unokit`` command line.

========================================  ===========================================
``unokit rules [PRESET]``                 the presets and every rule key
``unokit scenario FILE_OR_DIR...``        run rule scenario files (exit 1 on a failure)
``unokit replay FILE [--as SEAT]``        check a game record and print its transcript
``unokit selfplay --rules R --seed S``    bots play one seeded match
``unokit soak --games N --seed S``        random games under random rule sets, checked
                                          after every action (exit 1 on a failure)
``unokit arena --bots B,... --games N``   bots play many games: win rates with 95%
                                          intervals, points, decision times, ratings
``unokit arena-merge PART.json...``       parts of one arena run (``--first-game K``)
                                          merged into the result of all their games
``unokit play [--rules R] [--seed S]``    play against bots in the terminal
``unokit replay FILE --tui``              step through a record in a terminal viewer
``unokit verify FILE``                    check that a record's deal was provably fair
                                          (exit 1 if a check fails)
``unokit simulate --rules R --games N``   fast simulated games: lengths, win rates by
                                          seat, first-player advantage, points, plots
``unokit serve``                          the game server (HTTP API, WebSocket game)
``unokit backup FILE``                    an online backup of the server's SQLite database
``unokit bot --server URL --room CODE``   a bot as a remote player in a server's room
``unokit --version``                      the version
========================================  ===========================================

Errors in what the user gave (a rule set, a record, an option) print one line
``error: ...`` on stderr and exit with status 2. Text read from files (player names,
scenario names) is printed through :func:`unokit.text.safe.display_text`: one line, no
control characters, no Rich markup or emoji codes, a length limit.

>>> from typer.testing import CliRunner
>>> result = CliRunner().invoke(app, ["--version"])
>>> result.output.startswith("unokit ")
True
"""

from __future__ import annotations

import contextlib
import inspect
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from unokit.arena import MAX_ACTIONS_MATCH
from unokit.arena.cli import arena_command, arena_merge_command
from unokit.bots import BOTS, BotError, make_bot, play
from unokit.client.command import bot_command
from unokit.client.standing import standing_command
from unokit.engine.errors import RecordError, RulesError, UnoError
from unokit.engine.game import Game
from unokit.engine.rules import KEYS, PRESET_MEANINGS, PRESETS, KeySpec, Rules, format_value
from unokit.engine.scoring import partner
from unokit.formats.fairdeal import verify_record
from unokit.formats.record import Record, events_digest, replay_steps
from unokit.i18n import (
    LANGUAGES,
    N_,
    _,
    current_language,
    language_from_env,
    localize,
    ngettext,
    pick_language,
    set_language,
)
from unokit.server.backup_command import backup_command
from unokit.server.command import serve_command
from unokit.server.ops_command import admin_app, migrate_command
from unokit.sim.cli import simulate_command
from unokit.testing.scenario import ScenarioResult, run_file, scenario_files
from unokit.testing.soak import seed_range
from unokit.text.safe import display_name, display_text
from unokit.text.transcript import EVERYONE, Viewer, describe_event, seat_names
from unokit.tui.command import play_command, replay_tui

NAMES = ("Alice", "Bob", "Cara", "Dan", "Eve", "Finn", "Gina", "Hugo", "Iris", "Jack")
"""The names ``selfplay`` gives to seats 0-9."""

SEED_MAX = 2**64 - 1
"""The largest game seed (as the engine and records take them)."""


def _one_line(text: str) -> str:
    return display_text(" ".join(text.split()))


def _plain_flags(params: list[Any]) -> list[Any]:
    """The parameters, flags without a type in the help (``--tui`` rather than
    ``--tui <bool>``)."""
    for param in params:
        if getattr(param, "is_flag", False):
            param.metavar = ""
    return params


@contextlib.contextmanager
def _translated_help(objects: Sequence[Any]) -> Iterator[None]:
    """The help texts of ``objects`` (commands, options, arguments) in the current
    language while a help screen is made: Typer reads them when the module is imported,
    so they are kept in English (marked with ``N_``) and translated only here."""
    saved = [(obj, obj.help) for obj in objects if getattr(obj, "help", None)]
    for obj, text in saved:
        obj.help = _(text)
    try:
        yield
    finally:
        for obj, text in saved:
            obj.help = text


class _Command(typer.core.TyperCommand):
    """A command whose flags show no type in the help, and whose help is in the
    current language."""

    def get_params(self, ctx: Any) -> Any:
        return _plain_flags(super().get_params(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _translated_help([self, *self.get_params(ctx)]):
            super().format_help(ctx, formatter)


class _Group(TyperGroup):
    """The ``unokit`` group: a usage error is one line ``error: ...`` on stderr with
    status 2, as the commands' own errors are; flags show no type in the help. The
    messages and help screens are in the terminal's language (``UNOKIT_LANG``, else
    ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``) or the one ``--lang`` names."""

    def get_params(self, ctx: Any) -> Any:
        return _plain_flags(super().get_params(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _translated_help([self, *self.get_params(ctx), *self.commands.values()]):
            super().format_help(ctx, formatter)

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        before = current_language()
        set_language(language_from_env())
        try:
            return self._main(args, prog_name, complete_var, standalone_mode,
                              windows_expand_args, **extra)
        finally:
            set_language(before)

    def _main(self, args: Sequence[str] | None, prog_name: str | None,
              complete_var: str | None, standalone_mode: bool, windows_expand_args: bool,
              **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        except typer.TyperException as exc:  # click's usage errors (bad or missing options)
            typer.echo(_("error: {message}", message=_one_line(exc.format_message())),
                       err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo(_("error: {message}", message=_("aborted")), err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="unokit",
    cls=_Group,
    help=N_("UNO: rule sets and scenarios, game records, the terminal game, bots and "
            "their arena, and the fast simulator."),
    add_completion=False,
    invoke_without_command=True,
    pretty_exceptions_enable=False,
)


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True, emoji=False)


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(_("error: {message}", message=_one_line(message)), err=True)
    raise typer.Exit(code)


def _version_callback(value: bool) -> None:
    if value:
        from unokit._version import __version__
        typer.echo(f"unokit {__version__}")
        raise typer.Exit()


def _lang_callback(value: str | None) -> None:
    if value is None:
        return
    if pick_language(value) != value.strip().lower().replace("_", "-").split("-")[0]:
        _fail(_("--lang {value}: one of {languages}", value=value,
                languages=", ".join(LANGUAGES)))
    set_language(value)


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version_callback, is_eager=True,
                     help=N_("Print the version and exit.")),
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option("--lang", callback=_lang_callback, is_eager=True, metavar="LANG",
                     help=N_("The language of the messages: en, ru, ka or da (the "
                             "terminal's language, LANG, by default).")),
    ] = None,
) -> None:
    """UNO engine tools."""
    if ctx.invoked_subcommand is None:  # no command: the help, as a usage error
        typer.echo(ctx.get_help())
        raise typer.Exit(2)


# ---------------------------------------------------------------------- rules
MAP_COUNTS = (0, 1000)
"""The range of each count (or point value) in a map key such as ``extra_cards``."""


def describe_values(spec: KeySpec) -> str:
    """The values a key takes, for the ``rules`` table."""
    if spec.kind == "bool":
        return "true | false"
    if spec.kind == "choice":
        return " | ".join(spec.choices)
    if spec.kind == "cards":
        low, high = MAP_COUNTS
        if spec.name == "extra_cards":
            return f"{{code:count}}, count {low}..{high}, codes " + ", ".join(spec.choices)
        return f"{{code:points}}, points {low}..{high}"
    low, high = spec.choices
    span = f"{low}..{'' if high is None else high}"
    return span + (" or none" if spec.kind == "optional_int" else "")


@app.command("rules", cls=_Command, help=N_(
    "List the presets and every rule key, or the values of one preset or rule set."))
def rules_command(
    preset: Annotated[str | None, typer.Argument(
        help=N_("Show the values of this preset or rule set (e.g. 'official,players=3')."))
    ] = None,
) -> None:
    """List the presets and every rule key, or the values of one preset or rule set."""
    console = _console()
    if preset is None:
        table = Table(title=_("Presets"))
        table.add_column("preset", no_wrap=True)
        table.add_column("meaning")
        table.add_column("changes to official", overflow="fold")
        for name, overrides in PRESETS.items():
            changes = ", ".join(f"{k}={format_value(v)}" for k, v in overrides.items())
            table.add_row(name, _(PRESET_MEANINGS.get(name, "")), changes or "-")
        console.print(table)
        keys = Table(title=_("Rule keys (defaults of the official preset)"))
        for column in ("key", "default", "values"):
            keys.add_column(column, no_wrap=column == "key", overflow="fold")
        keys.add_column("section", justify="right")
        keys.add_column("meaning")
        for spec in KEYS:
            keys.add_row(spec.name, format_value(spec.default), describe_values(spec),
                         str(spec.section), spec.meaning)
        console.print(keys)
        console.print(_("A rule set is a preset plus overrides, e.g. {example} or {other}.",
                        example="'official,players=3,target_score=200'",
                        other="'official,extra_cards={WC:4}'"), markup=False)
        return
    if preset in PRESETS:
        rules = Rules.preset(preset)
        title = _("Preset {preset}: {meaning}", preset=preset,
                  meaning=_(PRESET_MEANINGS.get(preset, "")))
    else:
        try:
            rules = Rules.load(preset)
        except RulesError as exc:
            _fail(_("{problem}; presets: {presets}", problem=localize(current_language(), exc),
                    presets=", ".join(PRESETS)))
        title = _("Rule set {rules}", rules=rules.to_string())
    table = Table(title=title)
    table.add_column("key", no_wrap=True)
    table.add_column("value")
    table.add_column("official")
    table.add_column("meaning")
    for spec in KEYS:
        value = getattr(rules, spec.name)
        changed = _differs(value, spec.default)
        table.add_row(spec.name, format_value(value) + (" *" if changed else ""),
                      format_value(spec.default), _(spec.meaning))
    console.print(table)
    console.print(_("* differs from the official rules."), markup=False)


def _differs(value: Any, default: Any) -> bool:
    return format_value(value) != format_value(default)


# ------------------------------------------------------------------- scenario
def scenario_line(result: ScenarioResult) -> str:
    """``PASS name`` or ``FAIL name: message``, on one line whatever the file holds.

    >>> scenario_line(ScenarioResult("evil\\nPASS forged line", True))
    'PASS evil\\\\nPASS forged line'
    """
    name = display_name(result.name, 120)
    if result.passed:
        return f"PASS {name}"
    return f"FAIL {name}: {_one_line(result.message)}"


@app.command("scenario", cls=_Command, help=N_(
    "Run rule scenario files: one PASS or FAIL line each; exit 1 if any fails."))
def scenario_command(
    paths: Annotated[list[Path], typer.Argument(help=N_("Scenario files or folders of them."))],
) -> None:
    """Run rule scenario files: one PASS or FAIL line each; exit 1 if any fails."""
    failed = 0
    count = 0
    for path in scenario_files(paths):
        count += 1
        try:
            result = run_file(path)
        except Exception as exc:  # a broken file must be a FAIL line, never a traceback
            result = ScenarioResult(path.stem, False, f"{type(exc).__name__}: {exc}")
        typer.echo(scenario_line(result))
        failed += not result.passed
    if count == 0:
        typer.echo("FAIL no scenario files found")
        raise typer.Exit(1)
    if failed:
        raise typer.Exit(1)


# --------------------------------------------------------------------- replay
def _check_seat(seat: int | None, players: int) -> None:
    if seat is not None and not 0 <= seat < players:
        _fail(_("--as {seat}: there are seats 0..{last}", seat=seat, last=players - 1))


@app.command("replay", cls=_Command, help=N_(
    "Check a game record and print its transcript (a spectator's view by default)."))
def replay_command(
    file: Annotated[Path, typer.Argument(help=N_("A game record (JSON)."))],
    seat: Annotated[int | None, typer.Option("--as", help=N_("Show this seat's view."))
                    ] = None,
    markup: Annotated[bool, typer.Option(
        "--color/--no-color", help=N_("Colour card codes (on a terminal)."))] = True,
    tui: Annotated[bool, typer.Option(
        "--tui", help=N_("Step through it in a terminal viewer (the same view)."))] = False,
    codes: Annotated[bool, typer.Option(
        "--codes", help=N_("Give the cards' codes (G2, W+4) instead of their names."))
    ] = False,
) -> None:
    """Check a game record and print its transcript (a spectator's view by default)."""
    try:
        record = Record.load(file)
    except RecordError as exc:
        _fail(localize(current_language(), exc))
    if tui:
        replay_tui(record, file, seat)
        return
    try:
        names = seat_names(len(record.players), record.players)
        viewer: Viewer = seat
        lines: list[str] = []
        game: Game | None = None
        for step in replay_steps(record):
            if game is None:
                game = step.game
                _check_seat(seat, game.n)
            lines.extend(describe_event(e, viewer, names, markup=markup, card_names=not codes)
                         for e in step.events)
    except RecordError as exc:
        _fail(f"{file}: {localize(current_language(), exc)}")
    console = _console()
    rules_text = game.rules.to_string() if game is not None else "?"
    head = ngettext("{file}: {n} action, rules {rules}, seed {seed}",
                    "{file}: {n} actions, rules {rules}, seed {seed}", len(record.actions),
                    file=display_text(file), rules=rules_text, seed=record.seed)
    console.print(head, markup=False)
    console.print(_("Players: {players}", players=", ".join(
        f"{i} {n}" for i, n in enumerate(names))), markup=False)
    for line in lines:
        console.print(line, markup=markup)
    console.print(_("Replay OK: events digest {digest}... matches.",
                    digest=record.events_sha256[:16]), markup=False)


# --------------------------------------------------------------------- verify
def parse_contribution(text: str) -> tuple[int, str]:
    """``SEAT:VALUE`` from the command line as ``(seat, value)``.

    >>> parse_contribution("2:my-value")
    (2, 'my-value')
    """
    seat, colon, value = text.partition(":")
    if not colon or not seat.strip().isdigit() or len(seat.strip()) > 3:
        _fail(_("--contribution {text}: expected SEAT:VALUE, e.g. 2:my-value", text=repr(text)))
    return int(seat), value


@app.command("verify", cls=_Command, help=N_(
    "Check that a record's deal was provably fair: the server seed matches the "
    "commitment, the seed follows from it and the contributions, and the record replays "
    "from that seed. One line per check; exit 1 if any fails."))
def verify_command(
    file: Annotated[Path, typer.Argument(
        help=N_("A game record (JSON) with a fairness block."))],
    published: Annotated[str | None, typer.Option(
        "--commitment", help=N_("The commitment the server published before the match."))
    ] = None,
    contributed: Annotated[list[str] | None, typer.Option(
        "--contribution", help=N_("SEAT:VALUE that you contributed (may be repeated)."))
    ] = None,
) -> None:
    """Check that a record's deal was provably fair: the server seed matches the
    commitment, the seed follows from it and the contributions, and the record replays
    from that seed. One line per check; exit 1 if any fails."""
    mine: dict[int, str] | None = None
    if contributed:
        mine = dict(parse_contribution(text) for text in contributed)
    try:
        record = Record.load(file)
        report = verify_record(record, published=published, mine=mine)
    except RecordError as exc:
        _fail(localize(current_language(), exc))
    for check in report.checks:
        typer.echo(f"ok  {check.name}" if check.passed
                   else f"FAIL {check.name}: {_one_line(check.reason)}")
    if not report.passed:
        failed = report.failed()
        typer.echo(ngettext("Not verified: {failed} of {n} check failed.",
                            "Not verified: {failed} of {n} checks failed.",
                            len(report.checks), failed=len(failed)))
        raise typer.Exit(1)
    count = len((record.fairness or {}).get("contributions", {}))
    typer.echo(ngettext("Verified: seed {seed} followed from the committed server seed and "
                        "{n} contribution.",
                        "Verified: seed {seed} followed from the committed server seed and "
                        "{n} contributions.", count, seed=record.seed))


# ------------------------------------------------------------------- selfplay
def load_rules(text: str, players: int | None = None) -> Rules:
    """Rules from the command line: a preset name, the compact string or a JSON object,
    with ``players`` overriding the rule set's number of players.

    Raises:
        RulesError: naming the offending keys.
    """
    rules = Rules.load(text)
    if players is not None and players != rules.players:
        rules = rules.with_(players=players)
    return rules


def winner_line(game: Game, names: Sequence[str]) -> str:
    """``Winner: Bob after 3 rounds``; under teams the team: ``Winner: Bob and Dan (team
    1) after 3 rounds``; ``Winner: none`` while the match goes on.

    >>> game = Game("pairs,rounds=1", 1)
    >>> for _ in play(game, [make_bot("playfirst", seat) for seat in range(4)]):
    ...     pass
    >>> winner_line(game, ["Ann", "Bob", "Cid", "Dan"])
    'Winner: ... and ... (team ...) after 1 round'
    """
    rounds = ngettext("after {n} round", "after {n} rounds", game.round_no)
    winner = game.match_winner
    if winner < 0 or not game.is_over():
        return _("Winner: none {rounds}", rounds=rounds)
    mate = partner(game.rules, winner)
    if mate < 0:
        return _("Winner: {who} {rounds}", who=names[winner], rounds=rounds)
    low, high = sorted((winner, mate))
    return _("Winner: {who} and {mate} (team {team}) {rounds}", who=names[low],
             mate=names[high], team=low, rounds=rounds)


@app.command("selfplay", cls=_Command)
def selfplay_command(
    rules_text: Annotated[str, typer.Option(
        "--rules", help="A preset name, 'official,players=3,rounds=2' or a JSON object.")
    ] = "official",
    players: Annotated[int | None, typer.Option(help="Number of players (overrides the rules).")
                       ] = None,
    seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="The game seed.")] = 0,
    save: Annotated[Path | None, typer.Option(help="Save the game record to this file.")
                    ] = None,
    delay: Annotated[float, typer.Option(min=0.0, help="Seconds to wait after each action.")
                     ] = 0.0,
    bots: Annotated[str, typer.Option(
        help=f"Bots by seat, comma-separated, repeated as needed: {', '.join(sorted(BOTS))}.")
    ] = "playfirst",
    show_all: Annotated[bool, typer.Option("--open", help="Show every card.")] = False,
    markup: Annotated[bool, typer.Option(
        "--color/--no-color", help="Colour card codes (on a terminal).")] = True,
    max_actions: Annotated[int, typer.Option(
        "--max-actions", min=1, help="Stop the match, unfinished, after this many actions.")
    ] = MAX_ACTIONS_MATCH,
) -> None:
    """Bots play one seeded match; the transcript scrolls by, then the final scores."""
    try:
        rules = load_rules(rules_text, players)
    except RulesError as exc:
        _fail(localize(current_language(), exc))
    kinds = [name.strip() for name in bots.split(",") if name.strip()]
    if not kinds:
        _fail(_("--bots: give at least one bot name"))
    if len(kinds) > rules.players:
        _fail(_("--bots: {bots} bots for {players} players", bots=len(kinds),
                players=rules.players))
    try:
        seats = [make_bot(kinds[seat % len(kinds)], seed * 16 + seat, rules=rules)
                 for seat in range(rules.players)]
    except ValueError as exc:
        _fail(f"--bots: {exc}")
    try:
        game = Game(rules, seed)
    except UnoError as exc:
        _fail(str(exc))
    names = list(NAMES[: rules.players])
    viewer: Viewer = EVERYONE if show_all else None
    console = _console()
    console.print(_("Rules: {rules}", rules=rules.to_string()), markup=False)
    console.print(_("Seed: {seed}", seed=seed), markup=False)
    console.print(_("Players: {players}", players=", ".join(
        f"{names[i]} ({display_name(bot.name)})" for i, bot in enumerate(seats))),
        markup=False)
    actions = 0
    try:
        for step in play(game, seats, max_actions=max_actions + 1):
            for event in step.events:
                console.print(describe_event(event, viewer, names, markup=markup),
                              markup=markup)
            if step.action is not None:
                actions += 1
                if actions >= max_actions:
                    break
                if delay:
                    time.sleep(delay)
    except BotError as exc:
        _fail(str(exc), code=1)
    if not game.is_over():
        console.print(ngettext("Stopped after {n} action (--max-actions {limit}): the match "
                               "is not over.", "Stopped after {n} actions (--max-actions "
                               "{limit}): the match is not over.", actions, limit=max_actions),
                      markup=False)
    console.print(_("Final scores: {scores}", scores=", ".join(
        f"{names[i]} {score}" for i, score in enumerate(game.scores))), markup=False)
    console.print(winner_line(game, names), markup=False)
    if save is not None:
        record = Record.from_game(game, players=names)
        try:
            record.save(save)
        except OSError as exc:
            _fail(_("cannot write {file}: {problem}", file=save, problem=exc.strerror or exc))
        console.print(_("Record saved to {file} (events digest {digest}...)", file=save,
                        digest=events_digest(game.log)[:16]), markup=False)


# ----------------------------------------------------------------------- soak
@app.command("soak", cls=_Command)
def soak_command(
    games: Annotated[int, typer.Option(min=1, help="How many games to play.")] = 1000,
    seed: Annotated[int, typer.Option(
        min=0, max=2**64 - 1, help="Seed of the first game; game i has seed + i.")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Processes to play the games in.")] = 1,
    max_steps: Annotated[int, typer.Option(
        "--max-steps", min=1, help="Actions after which a match that goes on is a failure.")
    ] = 50_000,
    rules_text: Annotated[str | None, typer.Option(
        "--rules", help="Play every game under this rule set instead of random ones.")
    ] = None,
) -> None:
    """Play random games under random rule sets, checking invariants after every action.

    Every failure names the seed and rule set that reproduce it; exit 1 on any failure.
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from unokit.testing.soak import GameResult, run_soak

    fixed: Rules | None = None
    if rules_text is not None:
        try:
            fixed = Rules.load(rules_text)
        except RulesError as exc:
            _fail(localize(current_language(), exc))
    console = _console()
    failed = 0
    progress = Progress(
        TextColumn("soak"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[failed]} failed"), TimeElapsedColumn(), TimeRemainingColumn(),
        console=Console(stderr=True), transient=False,
    )

    def advance(result: GameResult) -> None:
        nonlocal failed
        failed += bool(result.failures)
        progress.update(task, advance=1, failed=failed)

    with progress:
        task = progress.add_task("soak", total=games, failed=0)
        report = run_soak(games, seed, jobs=jobs, max_steps=max_steps, rules=fixed,
                          on_result=advance)
    for failure in report.failures:
        console.print(failure.line(), markup=False)
        console.print(f"  reproduce: {failure.command()}", markup=False)
    where = f"rules {fixed.to_string()}" if fixed is not None else "random rule sets"
    console.print(
        f"Soak: {report.games} game{'s' if report.games != 1 else ''} ({where}; "
        f"seeds {seed_range(seed, games)}; "
        f"{jobs} job{'s' if jobs != 1 else ''}), {report.actions} actions, "
        f"{report.ended} matches ended, {report.seconds:.1f} s, "
        f"{report.games_per_second():.1f} games/s", markup=False)
    kinds = report.by_kind()
    summary = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    console.print(f"Failures: {len(report.failures)}" + (f" ({summary})" if summary else ""),
                  markup=False)
    if report.failures:
        raise typer.Exit(1)


def _help(command: Any) -> str:
    """A command's docstring with each paragraph on one line, for the help screens to
    wrap (Typer keeps a docstring's line breaks)."""
    doc = inspect.cleandoc(command.__doc__ or "")
    return "\n\n".join(" ".join(part.split()) for part in doc.split("\n\n"))


HELP = {
    "play": N_("Play UNO against bots in the terminal; without options a setup screen "
               "opens. With --server, play in an online room."),
    "serve": N_("Run the game server: the HTTP API and the WebSocket game on "
                "127.0.0.1:8000, with SQLite in ./unokit-data unless told otherwise. Ctrl-C "
                "stops it gracefully."),
    "bot": N_("Seat a unokit bot in a room of a unokit server as a remote player, and play "
              "until the match ends."),
}
"""The help of the commands defined elsewhere, in English, for the catalogue (the
others' help is their docstring)."""

for _name, _command in (("arena", arena_command), ("arena-merge", arena_merge_command),
                        ("play", play_command), ("simulate", simulate_command),
                        ("serve", serve_command), ("bot", bot_command),
                        ("backup", backup_command), ("migrate", migrate_command),
                        ("standing", standing_command)):
    app.command(_name, help=HELP.get(_name) or _help(_command), cls=_Command)(_command)
app.add_typer(admin_app, name="admin")


def main() -> None:
    """Run the command line (the ``unokit`` console script), in the terminal's language
    (``UNOKIT_LANG``, else ``LANG`` and the other locale variables)."""
    set_language(language_from_env())
    app()


if __name__ == "__main__":
    main()
