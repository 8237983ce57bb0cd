"""The arena's statistics on hand-made inputs: the intervals against values worked out by
hand, the seeds and the seat rotation, :class:`ArenaResult` aggregated from synthetic
game outcomes (wins, points, seats, positions, games without a winner, teams), strict
JSON, the plot, and the command line's checks of its input and its ``--jobs``."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena_json import without_times
from unokit.arena import (
    ArenaError,
    ArenaResult,
    GameOutcome,
    Rate,
    TimeStats,
    arena_rules,
    bot_seed,
    check_arena,
    create_bot,
    game_seed,
    mean_interval,
    plot_win_rates,
    run_arena,
    seating,
    spec_key,
    wilson_interval,
)
from unokit.arena.cli import format_mean, format_rate, format_seconds, print_result
from unokit.cli import app

runner = CliRunner()
Z = 1.959963984540054


# ------------------------------------------------------------------ intervals
def _wilson_by_quadratic(k: int, n: int, z: float) -> tuple[float, float]:
    """The Wilson bounds as the roots of (k/n - p)^2 = z^2 p (1 - p) / n in p."""
    phat = k / n
    a = 1 + z * z / n
    b = -(2 * phat + z * z / n)
    c = phat * phat
    root = math.sqrt(b * b - 4 * a * c)
    return ((-b - root) / (2 * a), (-b + root) / (2 * a))


def test_wilson_with_z_1_gives_round_numbers() -> None:
    # 1 of 4, z = 1: centre (0.25 + 1/8) / 1.25 = 0.3, half 0.8 * sqrt(3/64 + 1/64) = 0.2.
    low, high = wilson_interval(1, 4, z=1.0)
    assert low == pytest.approx(0.1, abs=1e-12) and high == pytest.approx(0.5, abs=1e-12)


def test_wilson_one_of_four_at_95_percent() -> None:
    # centre (0.25 + z^2/8) / (1 + z^2/4) = 0.3724727, half 0.3268854.
    low, high = wilson_interval(1, 4)
    assert low == pytest.approx(0.0455873, abs=1e-6)
    assert high == pytest.approx(0.6993582, abs=1e-6)


@pytest.mark.parametrize(("k", "n"), [(1, 2), (3, 7), (17, 40), (99, 100), (1, 1000)])
def test_wilson_bounds_are_the_roots_of_the_score_equation(k: int, n: int) -> None:
    low, high = wilson_interval(k, n)
    expected_low, expected_high = _wilson_by_quadratic(k, n, Z)
    assert low == pytest.approx(expected_low, abs=1e-9)
    assert high == pytest.approx(expected_high, abs=1e-9)
    assert low < k / n < high


def test_wilson_edges_all_and_nothing() -> None:
    # All successes: the upper bound is exactly 1, the lower one the root below it.
    low, high = wilson_interval(3, 3)
    assert high == 1.0
    assert low == pytest.approx(_wilson_by_quadratic(3, 3, Z)[0], abs=1e-9)
    assert low == pytest.approx(0.4385030, abs=1e-6)
    low, high = wilson_interval(0, 3)
    assert low == 0.0 and high == pytest.approx(1 - 0.4385030, abs=1e-6)
    assert wilson_interval(0, -2) == (0.0, 1.0)
    with pytest.raises(ValueError, match="-1 successes"):
        wilson_interval(-1, 5)


def test_wilson_grows_with_successes_and_narrows_with_z() -> None:
    bounds = [wilson_interval(k, 20) for k in range(21)]
    assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in itertools.pairwise(bounds))
    wide, narrow = wilson_interval(7, 20), wilson_interval(7, 20, z=1.0)
    assert wide[0] < narrow[0] < 0.35 < narrow[1] < wide[1]


def test_mean_interval_by_hand() -> None:
    # mean 5, sample variance 32/7, half width z * sqrt(32/7 / 8) = 1.4815935.
    mean, low, high = mean_interval([2, 4, 4, 4, 5, 5, 7, 9])
    assert mean == 5.0
    assert low == pytest.approx(5 - 1.4815935, abs=1e-6)
    assert high == pytest.approx(5 + 1.4815935, abs=1e-6)
    # [1.5, -0.5] with z = 1: mean 0.5, s = sqrt(2), half width sqrt(2) / sqrt(2) = 1.
    assert mean_interval([1.5, -0.5], z=1.0) == pytest.approx((0.5, -0.5, 1.5))
    assert mean_interval((0, 0)) == (0.0, 0.0, 0.0)


# ---------------------------------------------------------------- time stats
def test_time_stats_count_only_decisions_in_the_quantiles() -> None:
    stats = TimeStats()
    stats.add(0.0, decided=True)  # at or below the first bin
    stats.add(0.002, decided=True)
    stats.add(0.004, decided=True)
    stats.add(9.0, decided=False)
    assert (stats.calls, stats.decisions) == (4, 3)
    assert stats.max_s == 0.004 and stats.seconds == pytest.approx(0.006)
    assert stats.call_seconds == pytest.approx(9.006)
    assert 0.0 < stats.quantile(0.0) <= TimeStats.BASE  # the first bin holds the zero time
    assert stats.quantile(0.5) == pytest.approx(0.002, rel=0.011)
    assert stats.quantile(1.0) == pytest.approx(0.004, rel=0.011)
    data = stats.to_dict()
    assert data["decisions"] == 3 and data["calls"] == 4
    assert data["mean_s"] == pytest.approx(0.002)
    assert data["max_s"] == 0.004
    empty = TimeStats()
    stats.merge(empty)
    assert stats.to_dict() == data


# ---------------------------------------------------------------- seeds, seats
def test_game_seeds_wrap_at_two_to_the_64() -> None:
    assert game_seed(10, 5) == 15
    assert game_seed(2**64 - 1, 1) == 0
    assert game_seed(2**64 - 1, 3) == 2


def test_bot_seeds_are_63_bit_and_follow_the_game_seed() -> None:
    assert bot_seed(0, 5, 1) == bot_seed(5, 0, 1)  # both are game seed 5
    assert bot_seed(0, 0, 0) != bot_seed(1, 0, 0)
    assert bot_seed(2**64 - 1, 1, 2) == bot_seed(0, 0, 2)
    seeds = [bot_seed(7, 0, seat) for seat in range(10)]
    assert len(set(seeds)) == 10 and all(0 <= s < 2**63 for s in seeds)


@pytest.mark.parametrize("n", [2, 3, 5, 10])
def test_seating_puts_entry_e_at_seat_e_plus_i(n: int) -> None:
    for index in range(2 * n + 1):
        seats = seating(n, index)
        assert sorted(seats) == list(range(n))
        for entry in range(n):
            assert seats[(entry + index) % n] == entry


def test_specs_are_aggregated_trimmed_and_in_lower_case() -> None:
    assert spec_key("  PlayFirst ") == "playfirst"


# ------------------------------------------------------- synthetic results
def _outcome(game: int, entries: tuple[int, ...], winners: tuple[int, ...],
             points: tuple[int, ...], first: int = 0, direction: int = 1,
             status: str = "ok", blocked: int = 0, message: str = "") -> GameOutcome:
    return GameOutcome(game, 100 + game, entries, winners, points, first, direction, 1,
                       blocked, 10 + game, status, message)


def _result(specs: list[str], rules: Any, outcomes: list[GameOutcome]) -> ArenaResult:
    return ArenaResult(specs, rules, len(outcomes), 100, 1, False, 50_000, 2.0, outcomes,
                       [TimeStats() for _ in specs])


@pytest.fixture
def synthetic() -> ArenaResult:
    """Six games of three entries: four decided (one blocked, one played
    counter-clockwise), one error and one unfinished game."""
    outcomes = [
        _outcome(0, (0, 1, 2), (0,), (30, 0, 0), first=0),
        _outcome(1, (2, 0, 1), (2,), (0, 0, 12), first=1),
        _outcome(2, (1, 2, 0), (1,), (0, 50, 0), first=2, direction=-1, blocked=1),
        _outcome(3, (0, 1, 2), (), (0, 0, 0), status="error", message="boom"),
        _outcome(4, (2, 0, 1), (), (0, 0, 0), first=-1, status="unfinished",
                 message="still running"),
        _outcome(5, (1, 2, 0), (2,), (0, 0, 8), first=0),
    ]
    return _result(["alpha", "beta", "BETA"], arena_rules("official", 3), outcomes)


def test_entries_count_seats_wins_and_points(synthetic: ArenaResult) -> None:
    alpha, beta, upper = synthetic.entries()
    assert (alpha.seat_games, alpha.seat_wins, alpha.points) == ([1, 1, 2], [1, 0, 1],
                                                                 [30, 0, 0, 8])
    assert (beta.seat_games, beta.seat_wins, beta.points) == ([2, 1, 1], [0, 0, 1],
                                                              [0, 12, 0, 0])
    assert (upper.seat_games, upper.seat_wins, upper.points) == ([1, 2, 1], [0, 1, 0],
                                                                 [0, 0, 50, 0])
    assert [e.rate for e in (alpha, beta, upper)] == [Rate(4, 2), Rate(4, 1), Rate(4, 1)]
    assert upper.spec == "beta"


def test_bots_add_up_identical_specs(synthetic: ArenaResult) -> None:
    alpha, beta = synthetic.bots()
    assert (alpha.spec, alpha.entries, alpha.rate) == ("alpha", [0], Rate(4, 2))
    assert (beta.spec, beta.entries, beta.rate) == ("beta", [1, 2], Rate(8, 2))
    assert alpha.points == mean_interval([30, 0, 0, 8])
    assert beta.points[0] == pytest.approx(62 / 8)
    assert alpha.ordinal == pytest.approx(alpha.mu - 3 * alpha.sigma)
    # Two wins of four rate above one win of four; beta's mu is its entries' mean.
    entries = synthetic.entries()
    assert entries[0].mu > entries[1].mu and entries[0].mu > entries[2].mu
    assert beta.mu == pytest.approx((entries[1].mu + entries[2].mu) / 2)


def test_seats_positions_and_counts(synthetic: ArenaResult) -> None:
    assert synthetic.seats() == [Rate(4, 1), Rate(4, 1), Rate(4, 2)]
    # Winner's position after the first player in the direction of play:
    # game 0: 0 -> 0; game 1: 2 after 1 -> 1; game 2: 1 after 2 counter-clockwise -> 1;
    # game 5: 2 after 0 -> 2.
    assert synthetic.positions() == [Rate(4, 1), Rate(4, 2), Rate(4, 1)]
    assert synthetic.counts() == {
        "games": 6, "decided": 4, "no_winner": 2, "unfinished": 1, "errors": 1,
        "blocked_rounds": 1, "games_with_blocked_round": 1, "rounds": 6,
        "actions": sum(10 + g for g in range(6)),
    }
    assert synthetic.problems() == [
        {"game": 3, "seed": 103, "status": "error", "message": "boom",
         "bots": ["alpha", "beta", "BETA"]},
        {"game": 4, "seed": 104, "status": "unfinished", "message": "still running",
         "bots": ["BETA", "alpha", "beta"]},
    ]
    assert synthetic.problems(limit=1)[0]["game"] == 3


def test_first_seat_advantage_in_the_dict(synthetic: ArenaResult) -> None:
    data = synthetic.to_dict()
    advantage = data["first_seat_advantage"]
    assert advantage["games"] == 4 and advantage["wins"] == 1
    assert advantage["expected"] == pytest.approx(1 / 3)
    assert advantage["advantage"] == pytest.approx(0.25 - 1 / 3)
    low, high = wilson_interval(1, 4)
    assert advantage["advantage_ci95"] == pytest.approx([low - 1 / 3, high - 1 / 3])
    assert data["games_per_second"] == 3.0
    assert [p["wins"] for p in data["positions"]] == [1, 2, 1]
    assert [e["by_seat"][2]["wins"] for e in data["entries"]] == [1, 1, 0]


def test_ratings_move_only_with_decided_games() -> None:
    rules = arena_rules("official", 3)
    undecided = _result(["a", "b", "c"], rules,
                        [_outcome(0, (0, 1, 2), (), (0, 0, 0), status="error")])
    assert [(e.mu, e.sigma) for e in undecided.entries()] == [(25.0, 25 / 3)] * 3
    one = _result(["a", "b", "c"], rules, [_outcome(0, (0, 1, 2), (1,), (0, 9, 0))])
    a, b, c = one.entries()
    assert b.mu > 25 > a.mu and a.mu == pytest.approx(c.mu)  # the losers tie
    assert all(e.sigma < 25 / 3 for e in (a, b, c))


def test_partners_win_together_in_synthetic_games() -> None:
    rules = arena_rules("pairs", 4)
    result = _result(["x", "y", "x", "y"], rules, [
        _outcome(0, (0, 1, 2, 3), (0, 2), (40, 0, 40, 0)),
        _outcome(1, (3, 0, 1, 2), (1, 3), (0, 25, 0, 25), first=1),
    ])
    assert result.expected_rate() == 0.5
    x, y = result.bots()
    assert x.rate == Rate(4, 4) and y.rate == Rate(4, 0)
    assert result.seats() == [Rate(2, 1), Rate(2, 1), Rate(2, 1), Rate(2, 1)]
    assert result.positions() == [Rate(2, 2), Rate(2, 0), Rate(2, 2), Rate(2, 0)]


def test_which_points_are_better() -> None:
    for scoring, better in (("standard", "higher"), ("penalty", "lower"),
                            ("elimination", "lower"), ("lazy,rounds=3", "higher")):
        rules = arena_rules(f"official,scoring={scoring}", 3)
        assert _result(["a", "b", "c"], rules, []).points_better == better


# ---------------------------------------------------------------- JSON
def _strict(text: str) -> Any:
    def refuse(token: str) -> Any:
        raise AssertionError(f"{token} in the JSON")

    return json.loads(text, parse_constant=refuse)


def test_json_is_strict_and_round_trips(synthetic: ArenaResult, tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    synthetic.write_json(path)
    data = _strict(path.read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(synthetic.to_dict()))
    assert set(data) == {"inputs", "seconds", "games_per_second", "counts", "points_better",
                         "expected_win_rate", "bots", "entries", "seats", "positions",
                         "first_seat_advantage", "problems", "parts", "game_ranges",
                         "outcome_fields", "outcomes"}
    assert data["inputs"]["bots"] == ["alpha", "beta", "BETA"]
    assert [b["bot"] for b in data["bots"]] == ["alpha", "beta"]
    assert data["bots"][1]["games"] == 8 and data["bots"][1]["entries"] == [1, 2]
    assert data["bots"][0]["decision_time"]["median_s"] is None  # no decisions timed
    assert len(data["problems"]) == 2


def test_json_without_any_decided_game_has_no_nan(tmp_path: Path) -> None:
    result = _result(["a", "b"], arena_rules("official", 2),
                     [_outcome(0, (0, 1), (), (0, 0), status="unfinished")])
    path = tmp_path / "none.json"
    result.write_json(path)
    data = _strict(path.read_text(encoding="utf-8"))
    assert data["bots"][0]["win_rate"] is None
    assert data["bots"][0]["mean_points"] is None
    assert data["bots"][0]["mean_points_ci95"] == [None, None]
    assert data["first_seat_advantage"]["advantage"] is None
    assert data["seats"][0]["ci95"] == [0.0, 1.0]


# ---------------------------------------------------------------- plot
@pytest.mark.parametrize(("name", "magic"), [("rates.PNG", b"\x89PNG"), ("rates.svg", b"<svg")])
def test_plot_of_a_synthetic_result(synthetic: ArenaResult, tmp_path: Path, name: str,
                                    magic: bytes) -> None:
    path = tmp_path / name
    plot_win_rates(synthetic, path)
    content = path.read_bytes()
    assert len(content) > 1000 and magic in content[:400]


def test_plot_without_decided_games(tmp_path: Path) -> None:
    result = _result(["a", "b"], arena_rules("official", 2),
                     [_outcome(0, (0, 1), (), (0, 0), status="error")])
    path = tmp_path / "empty.png"
    plot_win_rates(result, path)
    assert path.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ArenaError, match=r"\.png or \.svg"):
        plot_win_rates(result, tmp_path / "rates")


# ---------------------------------------------------------------- printing
def test_formats() -> None:
    assert format_rate(Rate(0, 0)) == "-"
    low, high = wilson_interval(1, 4)
    assert format_rate(Rate(4, 1)) == f"25.0% [{100 * low:.1f}, {100 * high:.1f}]"
    assert format_rate(Rate(4, 1)) == "25.0% [4.6, 69.9]"
    assert format_mean(math.nan, math.nan, math.nan) == "-"
    assert format_mean(3.0, math.nan, math.nan) == "3.0"
    assert format_mean(5.0, 3.5, 6.5) == "5.0 ± 1.5"
    assert format_seconds(math.nan) == "-"
    assert format_seconds(0.0009994) == "999 us"
    assert format_seconds(0.001) == "1.00 ms"
    assert format_seconds(1.0) == "1.00 s"


def test_printed_summary_of_a_synthetic_result(synthetic: ArenaResult) -> None:
    from rich.console import Console

    console = Console(width=160, record=True, highlight=False)
    print_result(console, synthetic)
    text = console.export_text()
    assert "Arena: 6 rounds" in text and "seed 100" in text
    assert "Seats: 0: 25.0% [4.6, 69.9], 1: 25.0% [4.6, 69.9], 2: 50.0%" in text
    assert "First to play: 25.0% [4.6, 69.9] (equal seats 33.3%, advantage -8.3 " in text
    assert "6 games (rounds), 2 without a winner (1 unfinished, 1 errors), 1 blocked rounds " \
           "in 1 games" in text
    assert "game 3 (seed 103, bots alpha,beta,BETA): error: boom" in text
    assert "game 4 (seed 104, bots BETA,alpha,beta): unfinished: still running" in text


# ---------------------------------------------------------------- inputs
def test_bad_input_to_the_library() -> None:
    with pytest.raises(ArenaError, match=r"seed must be in 0\.\.2"):
        run_arena(["playfirst", "random"], "official", games=1, seed=-1)
    with pytest.raises(ArenaError, match=r"seed must be in 0\.\.2"):
        run_arena(["playfirst", "random"], "official", games=1, seed=2**64)
    with pytest.raises(ArenaError, match="takes no options"):
        create_bot("random:fast")
    with pytest.raises(ArenaError, match="3 bots for 4 players"):
        check_arena(["random"] * 3, "official,players=4")
    with pytest.raises(ArenaError, match="pairs need 4, 6, 8 or 10 players"):
        check_arena(["random"] * 3, "pairs")
    assert check_arena(["random"] * 4, "pairs").players == 4
    assert arena_rules("official", 2, match=True).rounds is None


def test_the_largest_seed_wraps_to_zero() -> None:
    result = run_arena(["playfirst", "random"], "official", games=2, seed=2**64 - 1)
    assert [o.seed for o in result.outcomes] == [2**64 - 1, 0]
    assert result.counts()["decided"] == 2


@pytest.mark.parametrize(("args", "message"), [
    (["--games", "0"], "--games"),
    (["--seed", "-1"], "--seed"),
    (["--seed", str(2**64)], "--seed"),
    (["--jobs", "0"], "--jobs"),
    (["--max-actions", "0"], "--max-actions"),
    (["--bots", "playfirst,random,random", "--rules", "official,players=4"],
     "3 bots for 4 players"),
    (["--bots", "playfirst,random,random", "--rules", "pairs"], "pairs need 4, 6, 8 or 10"),
    (["--bots", "playfirst,random:fast"], "takes no options"),
    (["--bots", " , "], "one bot name per seat"),
    (["--plot", "rates.pdf"], ".png or .svg"),
])
def test_cli_refuses_bad_input(args: list[str], message: str) -> None:
    base = ["arena", "--bots", "playfirst,random", "--games", "2"]
    result = runner.invoke(app, base + args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_cli_jobs_2_writes_the_same_results_as_jobs_1(tmp_path: Path) -> None:
    outputs = []
    for jobs in (1, 2):
        path = tmp_path / f"jobs{jobs}.json"
        result = runner.invoke(app, ["arena", "--bots", "playfirst,random,random", "--games",
                                     "5", "--seed", "21", "--jobs", str(jobs), "--json",
                                     str(path)])
        assert result.exit_code == 0, result.output
        assert f"{jobs} job" in result.stdout
        data = _strict(path.read_text(encoding="utf-8"))
        assert data["inputs"]["jobs"] == jobs
        outputs.append(data)
    one, two = outputs
    assert without_times(one) == without_times(two)
    assert one["counts"]["games"] == 5 and sum(s["wins"] for s in one["seats"]) == 5
    decisions = [sum(e["decision_time"]["decisions"] for e in d["entries"]) for d in outputs]
    assert decisions[0] == decisions[1] > 0


@pytest.mark.parametrize("width", [80, 120])
def test_a_narrow_console_gets_two_whole_tables(synthetic: ArenaResult, width: int) -> None:
    from rich.console import Console

    console = Console(width=width, record=True, highlight=False)
    print_result(console, synthetic)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text  # no heading or cell cut short
    results, timing = text.split("Decision time (calls that had to act) and rating")
    assert "win rate [95% CI]" in results and "points (higher better)" in results
    assert "median" not in results and "rating (mu ± sigma)" in timing
    for name in ("alpha", "beta"):  # one row a bot ("BETA" is beta)
        assert name in results and name in timing


def test_a_wide_console_gets_one_table(synthetic: ArenaResult) -> None:
    from rich.console import Console

    console = Console(width=160, record=True, highlight=False)
    print_result(console, synthetic)
    text = console.export_text()
    assert "Decision time (calls" not in text
    header = next(line for line in text.splitlines() if "win rate [95% CI]" in line)
    assert "median" in header and "rating (mu ± sigma)" in header
