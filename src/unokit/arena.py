"""The arena: bots play many seeded games against each other, and the statistics of how
they did.

``run_arena(["playfirst", "random"], "official", games=1000, seed=1)`` plays 1000 games
of two seats and returns an :class:`ArenaResult`.

- **Seats.** The number of bot specs is the number of seats. Game ``i`` rotates the list
  by ``i``: entry ``e`` sits at seat ``(e + i) mod n`` (:func:`seating`), so over ``n``
  consecutive games every entry sits in every seat once.
- **Games.** A game is one round (the rule set with ``rounds = 1``), or a whole match with
  ``match=True``. Game ``i`` is ``Game(rules, seed + i)``; the bot at seat ``s`` is created
  afresh for each game with the seed :func:`bot_seed` ``(seed, i, s)``. A game's outcome
  therefore depends on nothing but its index, and the games are merged in game order, so
  every count, interval and rating is the same for any number of ``jobs`` (only the
  decision times differ from run to run).
- **Winner.** The match winner as the engine decides it (with ``rounds = 1``, the winner of
  the round); with teams, both partners win. A blocked round (nobody can play or draw) is
  won by the lowest hand, as the rules say; such rounds are counted and reported. A game
  still running after ``max_actions`` actions, or one in which a bot failed (returned no
  action on its turn, an illegal action, or raised), has no winner: it counts in no win
  rate and no rating, and is reported.
- **Points.** A seat's points in a game are its match total at the end as the engine keeps
  it: under ``standard`` scoring with one round, the winner's round points (the cards left
  in the other hands) and 0 for the others; under ``penalty`` scoring each seat's own
  penalty (lower is better, see :attr:`ArenaResult.points_better`).
- **Entries and bots.** Specs may repeat (``hard,random,random,random``). Every position
  in the list is an *entry* with its own per-seat detail and rating; identical specs are
  aggregated into one *bot*: games and wins add up over its entries (so a bot with three
  entries plays three seat-games per game).
- **Statistics.** Win rates carry a Wilson score interval (95 %), mean points a normal
  95 % interval (:func:`mean_interval`). Every ``choose`` call of a bot is timed with
  :func:`time.perf_counter`; the *decisions* are the calls on which the bot had to act
  (:func:`~unokit.bots.base.must_act`), and their median and 90th percentile come from a
  histogram with 1 % wide bins (the maximum is exact). Ratings are openskill
  Plackett-Luce ratings, updated game by game in game order, each entry a player of its
  own: winners first, everyone else tied behind; a bot's rating is the mean over its
  entries.

>>> result = run_arena(["playfirst", "random"], "official", games=4, seed=3)
>>> result.games, len(result.outcomes), result.players
(4, 4, 2)
>>> [o.entries for o in result.outcomes][:3]
[(0, 1), (1, 0), (0, 1)]
>>> wilson_interval(50, 100)
(0.403831..., 0.596168...)
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import multiprocessing
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any, NamedTuple

from unokit.bots.base import Bot, must_act, play
from unokit.errors import RulesError, UnoError
from unokit.events import EventKind
from unokit.game import Game
from unokit.observation import Observation
from unokit.rng import MASK64, SplitMix64
from unokit.rules import Rules
from unokit.scoring import teammates

Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95 % normal quantile (1.959964...)."""

MAX_ACTIONS_ROUND = 50_000
"""Default limit of actions in a one-round game; a game still running then has no winner."""

MAX_ACTIONS_MATCH = 1_000_000
"""Default limit of actions in a whole match (``match=True``)."""

PLOT_SUFFIXES = (".png", ".svg")
"""File types :func:`plot_win_rates` writes."""


class ArenaError(UnoError):
    """Bad arena input: an unknown bot, a number of bots that does not fit the rule set,
    a rule set that cannot be played, a bad game count or plot file."""


# ------------------------------------------------------------------ statistics
def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default); ``(0.0, 1.0)`` without
    trials.

    >>> [round(x, 4) for x in wilson_interval(0, 10)]
    [0.0, 0.2775]
    >>> [round(x, 4) for x in wilson_interval(10, 10)]
    [0.7225, 1.0]
    """
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes in {trials} trials")
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return (low, high)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean and its normal 95 % interval, ``mean +- z * s /
    sqrt(n)`` with the sample standard deviation ``s``. With fewer than two values the
    bounds are NaN (and the mean too without values).

    >>> mean_interval([1, 2, 3, 4])
    (2.5, 1.234..., 3.765...)
    """
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = math.fsum(values) / n
    if n < 2:
        return (mean, math.nan, math.nan)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(variance / n)
    return (mean, mean - half, mean + half)


class TimeStats:
    """Durations of ``choose`` calls, mergeable across processes: counts, totals, the exact
    maximum and a histogram with bins 1 % wide for the median and the 90th percentile.

    >>> stats = TimeStats()
    >>> for ms in (1, 2, 3, 4, 100):
    ...     stats.add(ms / 1000, decided=True)
    >>> stats.decisions, round(stats.quantile(0.5) * 1000, 1), stats.max_s
    (5, 3.0, 0.1)
    """

    BASE = 1e-7
    RATIO = 1.01

    __slots__ = ("bins", "call_seconds", "calls", "decisions", "max_s", "seconds")

    def __init__(self) -> None:
        self.calls = 0
        """Every ``choose`` call, in turn or out of turn."""
        self.call_seconds = 0.0
        self.decisions = 0
        """Calls on which the bot had to act."""
        self.seconds = 0.0
        """Seconds spent on those decisions."""
        self.max_s = 0.0
        self.bins: dict[int, int] = {}

    def add(self, seconds: float, decided: bool) -> None:
        """Count one call."""
        self.calls += 1
        self.call_seconds += seconds
        if not decided:
            return
        self.decisions += 1
        self.seconds += seconds
        self.max_s = max(self.max_s, seconds)
        index = 0 if seconds <= self.BASE else int(math.log(seconds / self.BASE, self.RATIO))
        self.bins[index] = self.bins.get(index, 0) + 1

    def merge(self, other: TimeStats) -> None:
        """Add another's counts to these."""
        self.calls += other.calls
        self.call_seconds += other.call_seconds
        self.decisions += other.decisions
        self.seconds += other.seconds
        self.max_s = max(self.max_s, other.max_s)
        for index, count in other.bins.items():
            self.bins[index] = self.bins.get(index, 0) + count

    def quantile(self, q: float) -> float:
        """The ``q`` quantile of the decision times (to 1 %; NaN without decisions)."""
        if not self.decisions:
            return math.nan
        rank = max(1, math.ceil(q * self.decisions))
        seen = 0
        for index in sorted(self.bins):
            seen += self.bins[index]
            if seen >= rank:
                if index == 0:
                    return min(self.BASE, self.max_s)
                return min(self.BASE * math.pow(self.RATIO, index + 0.5), self.max_s)
        return self.max_s

    def to_dict(self) -> dict[str, Any]:
        """Counts and times in seconds (``None`` where there were no decisions)."""
        return {
            "decisions": self.decisions,
            "calls": self.calls,
            "decision_seconds": self.seconds,
            "call_seconds": self.call_seconds,
            "mean_s": _num(self.seconds / self.decisions if self.decisions else math.nan),
            "median_s": _num(self.quantile(0.5)),
            "p90_s": _num(self.quantile(0.9)),
            "max_s": _num(self.max_s if self.decisions else math.nan),
        }


def _num(value: float) -> float | None:
    """A float for JSON: ``None`` for NaN or an infinity."""
    return None if math.isnan(value) or math.isinf(value) else value


# ----------------------------------------------------------------------- seeds
def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index``: ``seed + index`` (modulo 2**64)."""
    return (seed + index) % 2**64


def bot_seed(seed: int, index: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in game ``index`` (a 63-bit number drawn from a
    SplitMix64 seeded with the game seed and the seat).

    >>> bot_seed(1, 0, 0) == bot_seed(1, 0, 0) != bot_seed(1, 0, 1)
    True
    """
    mixed = game_seed(seed, index) ^ (((seat + 1) * 0xD1B54A32D192ED03) & MASK64)
    return SplitMix64(mixed).next_u64() >> 1


def seating(entries: int, index: int) -> tuple[int, ...]:
    """The entry at each seat in game ``index``: the list rotated by ``index``, entry ``e``
    at seat ``(e + index) mod n``.

    >>> seating(4, 0), seating(4, 1)
    ((0, 1, 2, 3), (3, 0, 1, 2))
    """
    shift = index % entries
    return tuple((seat - shift) % entries for seat in range(entries))


# ------------------------------------------------------------------------ bots
def spec_key(spec: str) -> str:
    """The form under which identical specs are aggregated (trimmed, lower case)."""
    return spec.strip().lower()


def _split_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``(name, options)`` through the registry's ``parse_bot_spec`` where it has one."""
    from unokit import bots as registry

    parse = getattr(registry, "parse_bot_spec", None)
    if parse is None:
        return spec.strip(), {}
    parsed = parse(spec)
    if isinstance(parsed, tuple) and len(parsed) == 2 and isinstance(parsed[0], str):
        return parsed[0], dict(parsed[1] or {})
    name = getattr(parsed, "name", None)
    if isinstance(name, str):
        return name, dict(getattr(parsed, "options", None) or {})
    return spec.strip(), {}


@functools.lru_cache(maxsize=8)
def _takes_rules(factory: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "rules" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def create_bot(spec: str, seed: int = 0, rules: Rules | None = None) -> Bot:
    """A bot from the registry (:func:`unokit.bots.make_bot`) by spec, with ``rules=``
    where the registry takes it.

    Raises:
        ArenaError: the registry knows no such bot, or refuses its options.
    """
    from unokit import bots as registry

    make: Callable[..., Bot] = registry.make_bot
    try:
        name, options = _split_spec(spec)
        if rules is not None and _takes_rules(make):
            options["rules"] = rules
        return make(name, seed, **options)
    except (ValueError, TypeError, KeyError) as exc:
        message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        raise ArenaError(f"bot {spec.strip()!r}: {message}") from None


class _TimedBot:
    """A bot whose ``choose`` calls are timed into a :class:`TimeStats`."""

    def __init__(self, bot: Bot, stats: TimeStats) -> None:
        self.bot = bot
        self.name = bot.name
        self.stats = stats

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        start = time.perf_counter()
        action = self.bot.choose(observation, legal_actions)
        spent = time.perf_counter() - start
        self.stats.add(spent, must_act(observation))
        return action


# ----------------------------------------------------------------------- rules
_PLAYERS_ITEM = re.compile(r"(?:^|,)\s*players\s*=")


def _sets_players(source: str | Mapping[str, Any] | Rules) -> bool:
    if isinstance(source, Rules):
        return True
    if isinstance(source, Mapping):
        return "players" in source
    text = source.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return False
        return isinstance(data, dict) and "players" in data
    return bool(_PLAYERS_ITEM.search(text))


def arena_rules(source: str | Mapping[str, Any] | Rules, bots: int, match: bool = False
                ) -> Rules:
    """The rule set the arena plays: ``source`` with ``players`` set to the number of bots
    (an error where ``source`` sets ``players`` to another number; a :class:`Rules` always
    sets it) and, unless ``match``, ``rounds = 1``.

    >>> arena_rules("official", 3).to_string()
    'official,players=3,rounds=1'

    Raises:
        ArenaError: fewer than two bots, a mismatch of players, or an invalid rule set.
    """
    if bots < 2:
        raise ArenaError(f"give at least 2 bots (one per seat), not {bots}")
    try:
        rules = Rules.load(source)
    except RulesError as exc:
        raise ArenaError(str(exc)) from None
    if rules.players != bots and _sets_players(source):
        raise ArenaError(f"{bots} bots for {rules.players} players: the rule set sets "
                         f"players={rules.players}; give one bot per seat")
    changes: dict[str, Any] = {}
    if rules.players != bots:
        changes["players"] = bots
    if not match and rules.rounds != 1:
        changes["rounds"] = 1
    if changes:
        try:
            rules = rules.with_(**changes)
        except RulesError as exc:
            raise ArenaError(f"{bots} bots: {exc}") from None
    return rules


# ----------------------------------------------------------------------- games
class GameOutcome(NamedTuple):
    """How one arena game went."""

    game: int
    """The game's number (0-based)."""
    seed: int
    entries: tuple[int, ...]
    """The entry at each seat."""
    winners: tuple[int, ...]
    """The winning seats (two partners with teams; none if the game had no winner)."""
    points: tuple[int, ...]
    """Each seat's points (see the module docstring)."""
    first: int
    """The seat that acted first (-1 if none did)."""
    direction: int
    """The direction of play at the first action (1 clockwise, -1 counter-clockwise)."""
    rounds: int
    blocked: int
    """Rounds that ended blocked."""
    actions: int
    status: str
    """``ok``, ``unfinished`` (still running at the action limit) or ``error``."""
    message: str = ""


def play_game(specs: Sequence[str], rules: Rules, seed: int, index: int, *,
              max_actions: int = MAX_ACTIONS_ROUND,
              timers: Sequence[TimeStats] | None = None) -> GameOutcome:
    """Play game ``index`` of an arena started with ``seed`` (``rules`` as
    :func:`arena_rules` gives them), timing each entry's calls into ``timers``."""
    n = len(specs)
    entries = seating(n, index)
    this_seed = game_seed(seed, index)
    timers = timers if timers is not None else [TimeStats() for _ in range(n)]
    game: Game | None = None
    first, direction, actions, blocked = -1, 1, 0, 0
    status, message = "ok", ""
    try:
        bots = [_TimedBot(create_bot(specs[entries[seat]], bot_seed(seed, index, seat), rules),
                          timers[entries[seat]]) for seat in range(n)]
        game = Game(rules, this_seed)
        first = -1 if game.current_player is None else game.current_player
        direction = game.direction
        for step in play(game, bots, max_actions=max_actions + 1):
            blocked += sum(1 for e in step.events
                           if e.kind is EventKind.ROUND_ENDED and e.data.get("blocked"))
            if step.action is None:
                continue
            actions += 1
            if actions >= max_actions and not game.is_over():
                status, message = "unfinished", f"still running after {max_actions} actions"
                break
    except Exception as exc:  # a failing bot or engine is reported, not fatal
        status = "error"
        message = f"{type(exc).__name__}: {exc}"
        if game is not None and actions:
            message += f" (after {actions} actions)"
    winners: tuple[int, ...] = ()
    points: tuple[int, ...] = (0,) * n
    rounds = 0
    if game is not None:
        rounds = game.round_no
        points = tuple(game.scores)
        if status == "ok" and game.is_over() and game.match_winner >= 0:
            winners = tuple(sorted(teammates(rules, game.match_winner)))
    return GameOutcome(index, this_seed, entries, winners, points, first, direction, rounds,
                       blocked, actions, status, message)


@dataclass(frozen=True)
class _Chunk:
    specs: tuple[str, ...]
    rules: Rules
    seed: int
    start: int
    stop: int
    max_actions: int


def _run_chunk(chunk: _Chunk) -> tuple[int, list[GameOutcome], list[TimeStats]]:
    timers = [TimeStats() for _ in chunk.specs]
    outcomes = [play_game(chunk.specs, chunk.rules, chunk.seed, index,
                          max_actions=chunk.max_actions, timers=timers)
                for index in range(chunk.start, chunk.stop)]
    return chunk.start, outcomes, timers


def _chunks(games: int, jobs: int) -> list[tuple[int, int]]:
    size = max(1, min(200, math.ceil(games / (jobs * 16))))
    return [(start, min(start + size, games)) for start in range(0, games, size)]


def check_arena(bot_specs: Sequence[str], rules: str | Mapping[str, Any] | Rules,
                match: bool = False) -> Rules:
    """The rule set :func:`run_arena` would play, after making each distinct bot once.

    Raises:
        ArenaError: an empty or unknown bot spec, or rules that do not fit (see
            :func:`arena_rules`).
    """
    specs = [s.strip() for s in bot_specs]
    if any(not s for s in specs):
        raise ArenaError("a bot spec is empty")
    played = arena_rules(rules, len(specs), match)
    for spec in dict.fromkeys(specs):
        create_bot(spec, 0, played)
    return played


def run_arena(bot_specs: Sequence[str], rules: str | Mapping[str, Any] | Rules, games: int,
              seed: int = 0, jobs: int = 1, match: bool = False,
              progress: Callable[[int], None] | None = None, *,
              max_actions: int | None = None) -> ArenaResult:
    """Play ``games`` games between ``bot_specs`` (one per seat; see the module docstring)
    under ``rules`` (a rule set, or what :meth:`Rules.load` reads, ``players`` set by the
    number of bots as :func:`arena_rules` says). ``jobs`` > 1 plays chunks of games in
    that many processes (started fresh, so the bots must be in the registry as the package
    defines it). ``progress`` hears how many more games have finished.

    Raises:
        ArenaError: bad input (see :func:`arena_rules` and :func:`create_bot`).
    """
    specs = tuple(s.strip() for s in bot_specs)
    if games < 1:
        raise ArenaError(f"play at least 1 game, not {games}")
    if not 0 <= seed < 2**64:
        raise ArenaError(f"the seed must be in 0..2**64-1, not {seed}")
    played = check_arena(specs, rules, match)
    limit = max_actions or (MAX_ACTIONS_MATCH if match else MAX_ACTIONS_ROUND)
    jobs = max(1, min(jobs, games))
    timers = [TimeStats() for _ in specs]
    by_start: dict[int, list[GameOutcome]] = {}
    start_time = time.perf_counter()
    if jobs == 1:
        for index in range(games):
            outcome = play_game(specs, played, seed, index, max_actions=limit, timers=timers)
            by_start[index] = [outcome]
            if progress is not None:
                progress(1)
    else:
        tasks = [_Chunk(specs, played, seed, a, b, limit) for a, b in _chunks(games, jobs)]
        context = multiprocessing.get_context("spawn")  # no fork of a threaded parent
        with context.Pool(jobs) as pool:
            for start, outcomes, chunk_timers in pool.imap_unordered(_run_chunk, tasks):
                by_start[start] = outcomes
                for total, part in zip(timers, chunk_timers, strict=True):
                    total.merge(part)
                if progress is not None:
                    progress(len(outcomes))
    outcomes = [o for start in sorted(by_start) for o in by_start[start]]
    seconds = time.perf_counter() - start_time
    return ArenaResult(list(specs), played, games, seed, jobs, match, limit, seconds, outcomes,
                       timers)


# --------------------------------------------------------------------- results
@dataclass(frozen=True)
class Rate:
    """Wins out of games, with the Wilson 95 % interval."""

    games: int
    wins: int

    @property
    def rate(self) -> float:
        """``wins / games`` (NaN without games)."""
        return self.wins / self.games if self.games else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson 95 % interval."""
        return wilson_interval(self.wins, self.games)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        low, high = self.interval
        return {"games": self.games, "wins": self.wins, "win_rate": _num(self.rate),
                "ci95": [low, high]}


@dataclass
class EntryStats:
    """One position of the bot list: its games by seat, points and rating."""

    entry: int
    spec: str
    seat_games: list[int]
    seat_wins: list[int]
    points: list[int] = field(default_factory=list)
    mu: float = math.nan
    sigma: float = math.nan

    @property
    def rate(self) -> Rate:
        """Wins over all seats."""
        return Rate(sum(self.seat_games), sum(self.seat_wins))


@dataclass
class BotStats:
    """One distinct spec, aggregated over its entries."""

    spec: str
    entries: list[int]
    rate: Rate
    points: tuple[float, float, float]
    """``(mean, low, high)`` points per seat-game."""
    timing: TimeStats
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``, a conservative rating."""
        return self.mu - 3 * self.sigma


@dataclass
class ArenaResult:
    """What :func:`run_arena` played and everything measured."""

    specs: list[str]
    rules: Rules
    """The rule set played (with ``players`` and, for single rounds, ``rounds = 1``)."""
    games: int
    seed: int
    jobs: int
    match: bool
    max_actions: int
    seconds: float
    outcomes: list[GameOutcome]
    """One per game, in game order."""
    timing: list[TimeStats]
    """Per entry."""
    _entries: list[EntryStats] | None = field(default=None, repr=False)

    @property
    def players(self) -> int:
        """The number of seats."""
        return len(self.specs)

    @property
    def points_better(self) -> str:
        """``higher`` or ``lower``: which points are better under the rule set's scoring."""
        return "lower" if self.rules.scoring in ("penalty", "elimination") else "higher"

    def decided(self) -> list[GameOutcome]:
        """The games with a winner."""
        return [o for o in self.outcomes if o.winners]

    def entries(self) -> list[EntryStats]:
        """Per-entry statistics and ratings (computed once)."""
        if self._entries is None:
            n = self.players
            stats = [EntryStats(e, spec_key(s), [0] * n, [0] * n)
                     for e, s in enumerate(self.specs)]
            for outcome in self.decided():
                for seat, entry in enumerate(outcome.entries):
                    stats[entry].seat_games[seat] += 1
                    stats[entry].seat_wins[seat] += seat in outcome.winners
                    stats[entry].points.append(outcome.points[seat])
            for entry, (mu, sigma) in enumerate(self._ratings()):
                stats[entry].mu, stats[entry].sigma = mu, sigma
            self._entries = stats
        return self._entries

    def _ratings(self) -> list[tuple[float, float]]:
        from openskill.models import PlackettLuce

        model = PlackettLuce()
        ratings = [model.rating(name=str(e)) for e in range(self.players)]
        for outcome in self.decided():
            teams = [[ratings[entry]] for entry in outcome.entries]
            ranks = [0.0 if seat in outcome.winners else 1.0 for seat in range(self.players)]
            new = model.rate(teams, ranks=ranks)
            for seat, entry in enumerate(outcome.entries):
                ratings[entry] = new[seat][0]
        return [(float(r.mu), float(r.sigma)) for r in ratings]

    def bots(self) -> list[BotStats]:
        """Per distinct spec, in the order of first appearance."""
        out: list[BotStats] = []
        entries = self.entries()
        for key in dict.fromkeys(e.spec for e in entries):
            mine = [e for e in entries if e.spec == key]
            timing = TimeStats()
            for e in mine:
                timing.merge(self.timing[e.entry])
            points = [p for e in mine for p in e.points]
            out.append(BotStats(
                key, [e.entry for e in mine],
                Rate(sum(e.rate.games for e in mine), sum(e.rate.wins for e in mine)),
                mean_interval(points), timing,
                math.fsum(e.mu for e in mine) / len(mine),
                math.fsum(e.sigma for e in mine) / len(mine)))
        return out

    def expected_rate(self) -> float:
        """A seat's win rate if every seat were equal (team size over seats)."""
        return len(teammates(self.rules, 0)) / self.players

    def seats(self) -> list[Rate]:
        """Win rate of each seat, whoever sat there."""
        decided = self.decided()
        return [Rate(len(decided), sum(seat in o.winners for o in decided))
                for seat in range(self.players)]

    def positions(self) -> list[Rate]:
        """Win rate by position in the turn order of the first action (0 = the seat that
        played first, 1 = the next one in the direction of play, ...)."""
        counts = [0] * self.players
        decided = [o for o in self.decided() if o.first >= 0]
        for o in decided:
            for seat in o.winners:
                counts[((seat - o.first) * o.direction) % self.players] += 1
        return [Rate(len(decided), c) for c in counts]

    def counts(self) -> dict[str, int]:
        """Games by outcome, blocked rounds, rounds and actions."""
        return {
            "games": len(self.outcomes),
            "decided": len(self.decided()),
            "no_winner": sum(not o.winners for o in self.outcomes),
            "unfinished": sum(o.status == "unfinished" for o in self.outcomes),
            "errors": sum(o.status == "error" for o in self.outcomes),
            "blocked_rounds": sum(o.blocked for o in self.outcomes),
            "games_with_blocked_round": sum(o.blocked > 0 for o in self.outcomes),
            "rounds": sum(o.rounds for o in self.outcomes),
            "actions": sum(o.actions for o in self.outcomes),
        }

    def problems(self, limit: int = 10) -> list[dict[str, Any]]:
        """The first ``limit`` games that ended in an error or unfinished."""
        bad = [o for o in self.outcomes if o.status != "ok"][:limit]
        return [{"game": o.game, "seed": o.seed, "status": o.status, "message": o.message,
                 "bots": [self.specs[e] for e in o.entries]} for o in bad]

    def to_dict(self) -> dict[str, Any]:
        """Everything, JSON-ready: inputs, counts, per-bot, per-entry, per-seat and
        per-position results and the first player's advantage."""
        first = self.positions()[0]
        expected = self.expected_rate()
        bots = []
        for bot in self.bots():
            mean, low, high = bot.points
            bots.append({
                "bot": bot.spec, "entries": bot.entries, **bot.rate.to_dict(),
                "mean_points": _num(mean), "mean_points_ci95": [_num(low), _num(high)],
                "decision_time": bot.timing.to_dict(),
                "rating": {"mu": bot.mu, "sigma": bot.sigma, "ordinal": bot.ordinal},
            })
        entries = []
        for e in self.entries():
            mean, low, high = mean_interval(e.points)
            entries.append({
                "entry": e.entry, "bot": e.spec, **e.rate.to_dict(),
                "by_seat": [{"seat": s, **Rate(e.seat_games[s], e.seat_wins[s]).to_dict()}
                            for s in range(self.players)],
                "mean_points": _num(mean), "mean_points_ci95": [_num(low), _num(high)],
                "decision_time": self.timing[e.entry].to_dict(),
                "rating": {"mu": e.mu, "sigma": e.sigma, "ordinal": e.mu - 3 * e.sigma},
            })
        return {
            "inputs": {
                "bots": list(self.specs), "rules": self.rules.to_dict(),
                "rules_string": self.rules.to_string(), "players": self.players,
                "games": self.games, "seed": self.seed, "jobs": self.jobs, "match": self.match,
                "max_actions": self.max_actions,
            },
            "seconds": self.seconds,
            "games_per_second": self.games / self.seconds if self.seconds > 0 else None,
            "counts": self.counts(),
            "points_better": self.points_better,
            "expected_win_rate": expected,
            "bots": bots,
            "entries": entries,
            "seats": [{"seat": s, **rate.to_dict()} for s, rate in enumerate(self.seats())],
            "positions": [{"position": p, **rate.to_dict()}
                          for p, rate in enumerate(self.positions())],
            "first_seat_advantage": {
                "meaning": "win rate of the seat that plays first, minus the win rate of "
                           "equal seats",
                **first.to_dict(),
                "expected": expected,
                "advantage": _num(first.rate - expected),
                "advantage_ci95": [first.interval[0] - expected, first.interval[1] - expected],
            },
            "problems": self.problems(),
        }

    def write_json(self, path: str | Path) -> None:
        """Write :meth:`to_dict` to ``path``."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")


# ------------------------------------------------------------------------ plot
def plot_win_rates(result: ArenaResult, path: str | Path) -> None:
    """Draw each bot's win rate with its 95 % interval as error bars, and the rate of
    equal seats as a line, into a ``.png`` or ``.svg`` file (matplotlib, Agg backend).

    Raises:
        ArenaError: another file type.
    """
    target = Path(path)
    if target.suffix.lower() not in PLOT_SUFFIXES:
        raise ArenaError(f"--plot {path}: write a .png or .svg file")
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    bots = result.bots()
    labels = [f"{b.spec} x{len(b.entries)}" if len(b.entries) > 1 else b.spec for b in bots]
    rates = [0.0 if math.isnan(b.rate.rate) else b.rate.rate for b in bots]
    below = [max(0.0, r - b.rate.interval[0]) for r, b in zip(rates, bots, strict=True)]
    above = [max(0.0, b.rate.interval[1] - r) for r, b in zip(rates, bots, strict=True)]
    figure = Figure(figsize=(max(4.0, 1.2 * len(bots) + 2), 4.0))
    axes = figure.add_subplot()
    positions = list(range(len(bots)))
    axes.bar(positions, rates, yerr=[below, above], capsize=6, color="#4c72b0",
             ecolor="black")
    axes.axhline(result.expected_rate(), color="grey", linestyle="--", linewidth=1,
                 label="equal seats")
    axes.set_xticks(positions, labels)
    axes.set_ylabel("win rate (95% CI)")
    axes.set_ylim(0, min(1.0, max(r + a for r, a in zip(rates, above, strict=True)) * 1.15
                         + 0.02))
    unit = "matches" if result.match else "rounds"
    axes.set_title(f"{result.games} {unit}, {result.rules.to_string()}", fontsize=9)
    axes.legend(loc="upper right", fontsize=8)
    figure.tight_layout()
    figure.savefig(target)


__all__ = [
    "MAX_ACTIONS_MATCH",
    "MAX_ACTIONS_ROUND",
    "ArenaError",
    "ArenaResult",
    "BotStats",
    "EntryStats",
    "GameOutcome",
    "Rate",
    "TimeStats",
    "arena_rules",
    "bot_seed",
    "check_arena",
    "create_bot",
    "game_seed",
    "mean_interval",
    "play_game",
    "plot_win_rates",
    "run_arena",
    "seating",
    "spec_key",
    "wilson_interval",
]
