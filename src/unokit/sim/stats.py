"""Statistics of simulated games: distributions, win rates with Wilson intervals.

>>> low, high = wilson(50, 100)
>>> round(low, 3), round(high, 3)
(0.404, 0.596)
>>> d = describe([1, 2, 3, 4, 100])
>>> d.mean, d.median, round(d.p10, 2), round(d.p90, 2), d.above
(22.0, 3.0, 1.4, 61.6, 0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from unokit.sim.runner import SimResult

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""

LENGTHS = ("turns", "plays", "draws", "actions")
"""The measures of a game's length."""


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``(0, 1)`` for no trials)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return low, high


@dataclass
class Distribution:
    """A summary of integer values, with a histogram (``edges`` has one more entry than
    ``counts``; values above the last edge are counted in ``above``)."""

    count: int
    mean: float
    median: float
    p10: float
    p90: float
    min: int
    max: int
    std: float
    edges: list[float] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    above: int = 0


def describe(values: Sequence[int] | npt.NDArray[np.int64], bins: int = 40) -> Distribution:
    """Mean, median, 10th and 90th percentiles, range and a histogram of ``values``
    (up to the 99th percentile, ``bins`` bins at most, whole-number wide)."""
    data = np.asarray(values, dtype=np.int64)
    if data.size == 0:
        return Distribution(0, math.nan, math.nan, math.nan, math.nan, 0, 0, math.nan)
    p10, median, p90, p99 = np.percentile(data, [10, 50, 90, 99])
    low, high = int(data.min()), math.ceil(p99)
    width = max(1, math.ceil((high - low + 1) / bins))
    edges = np.arange(low, high + width + 1, width, dtype=np.float64)
    counts, _ = np.histogram(data, bins=edges)
    return Distribution(
        count=int(data.size), mean=float(data.mean()), median=float(median), p10=float(p10),
        p90=float(p90), min=low, max=int(data.max()), std=float(data.std()),
        edges=[float(e) for e in edges], counts=[int(c) for c in counts],
        above=int((data > edges[-1]).sum()),
    )


@dataclass
class Rate:
    """A proportion with its 95% Wilson interval."""

    wins: int
    games: int
    rate: float
    low: float
    high: float


def rate(wins: int, games: int) -> Rate:
    """``wins / games`` with its interval."""
    low, high = wilson(wins, games)
    return Rate(wins, games, wins / games if games else math.nan, low, high)


@dataclass
class Report:
    """Everything the ``simulate`` command reports about one rule set."""

    label: str
    rules: str
    policies: list[str]
    players: int
    games: int
    finished: int
    seed: int
    seconds: float
    jobs: int
    games_per_second: float
    actions_per_second: float
    lengths: dict[str, Distribution]
    seats: list[Rate]
    """Match wins by seat."""
    first_player: Rate
    """Wins of the seat that had the first turn of the first round."""
    expected_first: float
    """What ``first_player.rate`` would be without an advantage: 1 / players."""
    positions: list[Rate]
    """Wins by seat counted clockwise from the first player (0: the first player)."""
    points: Distribution
    """The winner's final score."""
    rounds: Distribution
    blocked_rounds: int
    repeated_rounds: int = 0
    """Of the blocked rounds, those blocked because a position came back a third time."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data: a figure without a value (a win rate when no game finished, a
        mean of no points) is ``None``, never NaN, which JSON does not have."""
        data: dict[str, Any] = _no_nan(asdict(self))
        return data


def _no_nan(value: Any) -> Any:
    """``value`` with every NaN or infinite float, at any depth, replaced by ``None``."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {key: _no_nan(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_no_nan(item) for item in value]
    return value


def report(result: SimResult, label: str | None = None) -> Report:
    """The statistics of a run."""
    n = result.rules.players
    winner = result.columns["winner"]
    done = winner >= 0
    finished = int(done.sum())
    first = result.columns["first"]
    won = winner[done]
    seats = [rate(int((won == seat).sum()), finished) for seat in range(n)]
    offsets = (won - first[done]) % n
    positions = [rate(int((offsets == k).sum()), finished) for k in range(n)]
    return Report(
        label=label or result.rules.to_string(),
        rules=result.rules.to_string(),
        policies=list(result.policies),
        players=n,
        games=result.games,
        finished=finished,
        seed=result.seed,
        seconds=result.seconds,
        jobs=result.jobs,
        games_per_second=result.games_per_second(),
        actions_per_second=result.actions_total / result.seconds if result.seconds else 0.0,
        lengths={name: describe(result.columns[name]) for name in LENGTHS},
        seats=seats,
        first_player=positions[0],
        expected_first=1 / n,
        positions=positions,
        points=describe(result.columns["points"][done]),
        rounds=describe(result.columns["rounds"]),
        blocked_rounds=int(result.columns["blocked"].sum()),
        repeated_rounds=int(result.columns["repeated"].sum()),
    )


CSV_HEADER = ("label", "section", "key", "value", "low", "high")


def csv_rows(reports: Sequence[Report]) -> list[tuple[Any, ...]]:
    """The reports as rows of ``CSV_HEADER``: one statistic per row."""
    rows: list[tuple[Any, ...]] = []
    for rep in reports:
        def add(section: str, key: str, value: Any, low: Any = "", high: Any = "",
                label: str = rep.label) -> None:
            rows.append((label, section, key, value, low, high))

        add("run", "rules", rep.rules)
        add("run", "policies", ",".join(rep.policies))
        add("run", "games", rep.games)
        add("run", "finished", rep.finished)
        add("run", "seed", rep.seed)
        add("run", "seconds", round(rep.seconds, 3))
        add("run", "games_per_second", round(rep.games_per_second, 1))
        for name, dist in rep.lengths.items():
            for key in ("mean", "median", "p10", "p90", "min", "max"):
                add(f"length.{name}", key, getattr(dist, key))
        for seat, seat_rate in enumerate(rep.seats):
            add("win_rate.seat", str(seat), seat_rate.rate, seat_rate.low, seat_rate.high)
        for offset, pos in enumerate(rep.positions):
            add("win_rate.position", str(offset), pos.rate, pos.low, pos.high)
        fp = rep.first_player
        add("first_player", "win_rate", fp.rate, fp.low, fp.high)
        add("first_player", "expected", rep.expected_first)
        for key in ("mean", "median", "p10", "p90", "min", "max"):
            add("points", key, getattr(rep.points, key))
        add("rounds", "mean", rep.rounds.mean)
        add("rounds", "blocked", rep.blocked_rounds)
        add("rounds", "blocked_by_repetition", rep.repeated_rounds)
    return rows


__all__ = ["CSV_HEADER", "LENGTHS", "Distribution", "Rate", "Report", "csv_rows", "describe",
           "rate", "report", "wilson"]
