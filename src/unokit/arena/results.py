"""The arena's results: what each game ended with, the statistics over many games, the
JSON file and the plot (:func:`unokit.arena.run_arena` plays the games; every name here is
also importable from :mod:`unokit.arena`).

An :class:`ArenaResult` holds the outcome of every game (:class:`GameOutcome`) and each
entry's decision times (:class:`TimeStats`); every figure is computed from those. The JSON
file (:meth:`ArenaResult.write_json`) keeps them too, one compact line per game and each
entry's timing histogram, so :func:`read_result` gives back the same result and parts of
one run can be merged (:func:`unokit.arena.merge_results`).

>>> outcome = GameOutcome(0, 7, (0, 1), (1,), (0, 42), 0, 1, 1, 0, 25, "ok")
>>> outcome_row(outcome)
[0, 7, [0, 1], [1], [0, 42], 0, 1, 1, 0, 25, 'ok', '']
>>> outcome_from_row(outcome_row(outcome)) == outcome
True
>>> game_ranges([0, 1, 2, 5, 6, 9])
[(0, 2), (5, 6), (9, 9)]
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any, NamedTuple

from unokit.engine.errors import RulesError, UnoError
from unokit.engine.jsontext import MAX_FILE_BYTES, parse_json, read_limited
from unokit.engine.rules import Rules
from unokit.engine.scoring import teammates

Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95 % normal quantile (1.959964...)."""
PLOT_SUFFIXES = (".png", ".svg")
"""File types :func:`plot_win_rates` writes."""


class ArenaError(UnoError):
    """Bad arena input: an unknown bot, a number of bots that does not fit the rule set,
    a rule set that cannot be played, a bad game count or plot file; or, when reading or
    merging results, a file that is not an arena result, or parts of different runs."""


# ------------------------------------------------------------------ statistics
def spec_key(spec: str) -> str:
    """The form under which identical specs are aggregated (trimmed, lower case)."""
    return spec.strip().lower()


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

    def to_full_dict(self) -> dict[str, Any]:
        """:meth:`to_dict` and the histogram (``bins``: ``[index, count]`` pairs in order),
        everything :meth:`from_dict` needs to give these statistics back exactly.

        >>> stats = TimeStats()
        >>> stats.add(0.002, decided=True)
        >>> TimeStats.from_dict(stats.to_full_dict()).to_full_dict() == stats.to_full_dict()
        True
        """
        bins = [[index, self.bins[index]] for index in sorted(self.bins)]
        return {**self.to_dict(), "bins": bins}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TimeStats:
        """The statistics :meth:`to_full_dict` wrote.

        Raises:
            ValueError: a missing or mistyped field.
        """
        stats = cls()
        stats.calls = _count(data, "calls")
        stats.decisions = _count(data, "decisions")
        stats.call_seconds = _seconds(data, "call_seconds")
        stats.seconds = _seconds(data, "decision_seconds")
        stats.max_s = 0.0 if data.get("max_s") is None else _seconds(data, "max_s")
        bins = data.get("bins")
        if not isinstance(bins, list):
            raise ValueError("bins: a list of [index, count] pairs expected")
        for pair in bins:
            if (not isinstance(pair, list) or len(pair) != 2
                    or not all(_is_int(x) for x in pair) or pair[1] < 1):
                raise ValueError(f"bins: {pair!r} is not an [index, count] pair")
            stats.bins[pair[0]] = stats.bins.get(pair[0], 0) + pair[1]
        if sum(stats.bins.values()) != stats.decisions or stats.decisions > stats.calls:
            raise ValueError("bins: the counts do not add up to the decisions")
        return stats


def _num(value: float) -> float | None:
    """A float for JSON: ``None`` for NaN or an infinity."""
    return None if math.isnan(value) or math.isinf(value) else value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _count(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{key}: a count expected, not {value!r}")
    return value


def _seconds(data: Mapping[str, Any], key: str) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise ValueError(f"{key}: a number of seconds expected, not {value!r}")
    return float(value)


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


OUTCOME_FIELDS = GameOutcome._fields
"""The order of the values in a JSON outcome row (:func:`outcome_row`)."""

OUTCOME_STATUSES = ("ok", "unfinished", "error")


def outcome_row(outcome: GameOutcome) -> list[Any]:
    """The outcome as a JSON row: its fields in :data:`OUTCOME_FIELDS` order, the tuples
    as lists."""
    return [list(value) if isinstance(value, tuple) else value for value in outcome]


def outcome_from_row(row: Any, players: int | None = None) -> GameOutcome:
    """The outcome an :func:`outcome_row` holds (``players``: the number of seats it must
    have).

    Raises:
        ValueError: not such a row.
    """
    if not isinstance(row, list) or len(row) != len(OUTCOME_FIELDS):
        raise ValueError(f"a list of {len(OUTCOME_FIELDS)} values "
                         f"({', '.join(OUTCOME_FIELDS)}) expected")
    values: dict[str, Any] = dict(zip(OUTCOME_FIELDS, row, strict=True))
    for name in ("entries", "winners", "points"):
        value = values[name]
        if not isinstance(value, list) or not all(_is_int(x) for x in value):
            raise ValueError(f"{name}: a list of integers expected, not {value!r}")
        values[name] = tuple(value)
    for name in ("game", "seed", "first", "direction", "rounds", "blocked", "actions"):
        if not _is_int(values[name]):
            raise ValueError(f"{name}: an integer expected, not {values[name]!r}")
    if values["status"] not in OUTCOME_STATUSES or not isinstance(values["message"], str):
        raise ValueError(f"status {values['status']!r}, message {values['message']!r}")
    n = len(values["entries"]) if players is None else players
    if (len(values["entries"]) != n or len(values["points"]) != n
            or sorted(values["entries"]) != list(range(n))
            or not all(0 <= seat < n for seat in values["winners"])):
        raise ValueError(f"entries, winners or points do not fit {n} seats")
    return GameOutcome(**values)


def game_ranges(games: Iterable[int]) -> list[tuple[int, int]]:
    """The runs of consecutive game numbers, as ``(first, last)`` pairs in order."""
    ranges: list[tuple[int, int]] = []
    for game in sorted(games):
        if ranges and game == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], game)
        else:
            ranges.append((game, game))
    return ranges


def format_ranges(ranges: Sequence[tuple[int, int]]) -> str:
    """``0-3, 8-11, 14``: the ranges for people.

    >>> format_ranges([(0, 3), (8, 11), (14, 14)])
    '0-3, 8-11, 14'
    """
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)



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
    """What :func:`~unokit.arena.run_arena` played and everything measured (or what
    :func:`read_result` read, or :func:`~unokit.arena.merge_results` put together)."""

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
    first_game: int = 0
    """The number of the first game played (games ``first_game .. first_game + games - 1``
    for one run; the lowest game number for merged parts)."""
    parts: int = 1
    """How many arena runs the result puts together (1 for one run)."""
    _entries: list[EntryStats] | None = field(default=None, repr=False)

    @property
    def players(self) -> int:
        """The number of seats."""
        return len(self.specs)

    def game_ranges(self) -> list[tuple[int, int]]:
        """The runs of consecutive game numbers played, ``(first, last)``."""
        return game_ranges(o.game for o in self.outcomes)

    def gaps(self) -> list[tuple[int, int]]:
        """The games between the first and the last one that the result lacks."""
        ranges = self.game_ranges()
        return [(a[1] + 1, b[0] - 1) for a, b in itertools.pairwise(ranges)]

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
                "decision_time": self.timing[e.entry].to_full_dict(),
                "rating": {"mu": e.mu, "sigma": e.sigma, "ordinal": e.mu - 3 * e.sigma},
            })
        return {
            "inputs": {
                "bots": list(self.specs), "rules": self.rules.to_dict(),
                "rules_string": self.rules.to_string(), "players": self.players,
                "games": self.games, "seed": self.seed, "jobs": self.jobs, "match": self.match,
                "max_actions": self.max_actions, "first_game": self.first_game,
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
            "parts": self.parts,
            "game_ranges": [{"first": a, "last": b} for a, b in self.game_ranges()],
            "outcome_fields": list(OUTCOME_FIELDS),
            "outcomes": [outcome_row(o) for o in self.outcomes],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text: indented objects, a list of plain values (or of
        such lists, as the timing bins) on one line, and one line per game outcome."""
        return _dumps(self.to_dict(), "") + "\n"

    def write_json(self, path: str | Path) -> None:
        """Write :meth:`to_json` to ``path``."""
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def from_dict(cls, data: Any) -> ArenaResult:
        """The result a :meth:`to_dict` (an arena JSON file) holds: its inputs, outcomes
        and timings, everything else computed again from those.

        Raises:
            ValueError: not an arena result, one without outcomes, or a malformed one.
        """
        if not isinstance(data, dict) or not isinstance(data.get("inputs"), dict):
            raise ValueError("not an arena result (no inputs)")
        if "outcomes" not in data:
            raise ValueError("no game outcomes in it (written by an older version of "
                             "unokit arena?); play those games again to merge them")
        if data.get("outcome_fields") != list(OUTCOME_FIELDS):
            raise ValueError(f"outcome_fields: {', '.join(OUTCOME_FIELDS)} expected")
        inputs = data["inputs"]
        specs = inputs.get("bots")
        if (not isinstance(specs, list) or len(specs) < 2
                or not all(isinstance(s, str) and s for s in specs)):
            raise ValueError("inputs.bots: a list of at least 2 bot specs expected")
        for key in ("seed", "games", "jobs", "max_actions", "first_game"):
            value = inputs.get(key)
            if (not _is_int(value) or value < (0 if key in ("seed", "first_game") else 1)
                    or value >= 2**64):
                raise ValueError(f"inputs.{key}: {value!r} is not a valid number")
        if not isinstance(inputs.get("match"), bool):
            raise ValueError(f"inputs.match: {inputs.get('match')!r} is not true or false")
        if not isinstance(inputs.get("rules"), dict):
            raise ValueError("inputs.rules: a rule set object expected")
        try:
            rules = Rules.from_dict(inputs["rules"])
        except RulesError as exc:
            raise ValueError(f"inputs.rules: {exc}") from None
        if rules.players != len(specs):
            raise ValueError(f"inputs.rules: {rules.players} players for {len(specs)} bots")
        entries = data.get("entries")
        if not isinstance(entries, list) or len(entries) != len(specs):
            raise ValueError(f"entries: a list of {len(specs)} entries expected")
        timing = []
        for number, entry in enumerate(entries):
            try:
                timing.append(TimeStats.from_dict(entry["decision_time"]))
            except (TypeError, KeyError, ValueError) as exc:
                raise ValueError(f"entries[{number}].decision_time: {exc}") from None
        rows = data["outcomes"]
        if not isinstance(rows, list) or len(rows) != inputs["games"]:
            raise ValueError(f"outcomes: a list of {inputs['games']} games expected")
        outcomes = []
        for number, row in enumerate(rows):
            try:
                outcomes.append(outcome_from_row(row, len(specs)))
            except ValueError as exc:
                raise ValueError(f"outcomes[{number}]: {exc}") from None
        outcomes.sort(key=lambda o: o.game)
        if len({o.game for o in outcomes}) != len(outcomes):
            raise ValueError("outcomes: a game appears twice")
        if outcomes[0].game != inputs["first_game"]:
            raise ValueError(f"inputs.first_game is {inputs['first_game']}, the first "
                             f"outcome is game {outcomes[0].game}")
        seconds, parts = data.get("seconds"), data.get("parts", 1)
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            raise ValueError(f"seconds: {seconds!r} is not a duration")
        if not _is_int(parts) or parts < 1:
            raise ValueError(f"parts: {parts!r} is not a number of parts")
        return cls(list(specs), rules, len(outcomes), inputs["seed"], inputs["jobs"],
                   inputs["match"], inputs["max_actions"], float(seconds), outcomes, timing,
                   first_game=outcomes[0].game, parts=parts)


def _dumps(value: Any, indent: str, rows: bool = False) -> str:
    """``value`` as JSON: objects indented by two spaces a level, lists without objects on
    one line, except that with ``rows`` each item of the list is a line of its own, written
    without spaces."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(key)}: {_dumps(item, inner, key == 'outcomes')}"
                 for key, item in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and value and (rows or any(isinstance(v, dict) for v in value)):
        items = [inner + (json.dumps(item, separators=(",", ":")) if rows
                          else _dumps(item, inner)) for item in value]
        return "[\n" + ",\n".join(items) + f"\n{indent}]"
    if isinstance(value, list):
        return "[" + ", ".join(_dumps(item, inner) for item in value) + "]"
    return json.dumps(value)


def read_result(path: str | Path) -> ArenaResult:
    """The :class:`ArenaResult` an arena JSON file (``unokit arena --json``) holds.

    Raises:
        ArenaError: no such file, not JSON, not an arena result, one written without game
            outcomes (by an older version), or a malformed one; the message names the file.
    """
    raw = read_limited(path, ArenaError, MAX_FILE_BYTES, what="an arena JSON file")
    data = parse_json(raw, lambda message: ArenaError(
        f"{path}: {message.replace('not valid JSON', 'not JSON', 1)}"))
    try:
        return ArenaResult.from_dict(data)
    except ValueError as exc:
        raise ArenaError(f"{path}: {exc}") from None


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
    "OUTCOME_FIELDS",
    "PLOT_SUFFIXES",
    "Z95",
    "ArenaError",
    "ArenaResult",
    "BotStats",
    "EntryStats",
    "GameOutcome",
    "Rate",
    "TimeStats",
    "format_ranges",
    "game_ranges",
    "mean_interval",
    "outcome_from_row",
    "outcome_row",
    "plot_win_rates",
    "read_result",
    "spec_key",
    "wilson_interval",
]
