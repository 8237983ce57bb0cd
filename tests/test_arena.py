"""The arena (``unokit.arena`` and ``unokit arena``): its statistics on known inputs, seat
rotation and seeding, results that do not depend on the number of jobs, the JSON and the
plot, and the command line's output and errors."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena_json import without_times
from unokit import bots as registry
from unokit.arena import (
    ArenaError,
    ArenaResult,
    Rate,
    TimeStats,
    arena_rules,
    bot_seed,
    create_bot,
    mean_interval,
    play_game,
    plot_win_rates,
    run_arena,
    seating,
    wilson_interval,
)
from unokit.bots import BOTS, SeededBot
from unokit.cli import app
from unokit.engine.observation import Observation
from unokit.engine.rules import Rules

runner = CliRunner()


# ------------------------------------------------------------------ statistics
def test_wilson_interval_known_values() -> None:
    # Hand-computed with z = 1.959964: for 50/100, centre 0.5 and half width
    # z / (1 + z^2/100) * sqrt(0.25/100 + z^2/40000) = 0.0961685.
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038315, abs=1e-6)
    assert high == pytest.approx(0.5961685, abs=1e-6)
    # 0/10: centre (z^2/20) / (1 + z^2/10) = 0.1387664 = half width, so [0, 0.2775328].
    assert wilson_interval(0, 10) == (0.0, pytest.approx(0.2775328, abs=1e-6))
    assert wilson_interval(10, 10) == (pytest.approx(0.7224672, abs=1e-6), 1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_wilson_interval_is_symmetric_and_shrinks() -> None:
    low, high = wilson_interval(30, 100)
    other_low, other_high = wilson_interval(70, 100)
    assert low == pytest.approx(1 - other_high) and high == pytest.approx(1 - other_low)
    assert wilson_interval(3000, 10000)[1] - wilson_interval(3000, 10000)[0] < high - low


def test_mean_interval_known_values() -> None:
    # [1, 2, 3, 4]: mean 2.5, s = sqrt(5/3) = 1.2909944, half width z * s / 2 = 1.2651512.
    mean, low, high = mean_interval([1, 2, 3, 4])
    assert mean == 2.5
    assert low == pytest.approx(1.2348488, abs=1e-6)
    assert high == pytest.approx(3.7651512, abs=1e-6)
    assert mean_interval([7, 7, 7]) == (7.0, 7.0, 7.0)
    single = mean_interval([5])
    assert single[0] == 5 and math.isnan(single[1]) and math.isnan(single[2])
    assert all(math.isnan(x) for x in mean_interval([]))


def test_time_stats_quantiles_and_merge() -> None:
    first, second = TimeStats(), TimeStats()
    for ms in range(1, 51):
        first.add(ms / 1000, decided=True)
    for ms in range(51, 101):
        second.add(ms / 1000, decided=True)
    second.add(5.0, decided=False)  # an out-of-turn call: counted, not a decision
    first.merge(second)
    assert first.decisions == 100 and first.calls == 101
    assert first.quantile(0.5) == pytest.approx(0.050, rel=0.011)
    assert first.quantile(0.9) == pytest.approx(0.090, rel=0.011)
    assert first.max_s == 0.1
    assert first.seconds == pytest.approx(5.05)
    assert math.isnan(TimeStats().quantile(0.5))
    assert TimeStats().to_dict()["median_s"] is None


def test_rate() -> None:
    rate = Rate(100, 50)
    assert rate.rate == 0.5
    assert rate.to_dict()["ci95"] == list(wilson_interval(50, 100))
    assert math.isnan(Rate(0, 0).rate)


# --------------------------------------------------------------- seats, seeds
def test_seating_rotates_every_entry_through_every_seat() -> None:
    n = 4
    seen = Counter((entry, seat) for index in range(n)
                   for seat, entry in enumerate(seating(n, index)))
    assert seen == Counter({(e, s): 1 for e in range(n) for s in range(n)})
    assert seating(3, 0) == (0, 1, 2)
    assert seating(3, 1) == (2, 0, 1)
    assert seating(3, 4) == seating(3, 1)


def test_bot_seeds_differ_by_game_and_seat() -> None:
    seeds = {bot_seed(1, index, seat) for index in range(50) for seat in range(4)}
    assert len(seeds) == 200
    assert all(0 <= s < 2**63 for s in seeds)
    assert bot_seed(9, 3, 2) == bot_seed(9, 3, 2)


def test_arena_rotates_seats_and_counts_every_game() -> None:
    result = run_arena(["playfirst", "random", "random"], "official", games=12, seed=4)
    assert [o.entries for o in result.outcomes] == [seating(3, i) for i in range(12)]
    assert [o.seed for o in result.outcomes] == [4 + i for i in range(12)]
    for entry in result.entries():
        assert entry.seat_games == [4, 4, 4]
    decided = result.decided()
    assert len(decided) == 12
    assert sum(e.rate.wins for e in result.entries()) == 12
    assert sum(rate.wins for rate in result.seats()) == 12
    assert sum(rate.wins for rate in result.positions()) == 12
    bots = result.bots()
    assert [b.spec for b in bots] == ["playfirst", "random"]
    assert [b.rate.games for b in bots] == [12, 24]
    assert bots[1].entries == [1, 2]


def test_points_are_the_engine_scores() -> None:
    result = run_arena(["playfirst", "random"], "official", games=6, seed=2)
    for outcome in result.outcomes:
        (winner,) = outcome.winners
        assert outcome.points[winner] > 0
        assert all(p == 0 for seat, p in enumerate(outcome.points) if seat != winner)
    penalty = run_arena(["playfirst", "random"], "official,scoring=penalty", games=2, seed=2)
    assert penalty.points_better == "lower"
    assert result.points_better == "higher"


def test_stronger_bot_wins_more_and_rates_higher() -> None:
    result = run_arena(["playfirst", "random"], "official", games=40, seed=1)
    strong, weak = result.bots()
    assert strong.rate.rate > weak.rate.rate
    assert strong.mu > weak.mu
    assert strong.timing.decisions > 0 and strong.timing.quantile(0.5) > 0


def test_teams_win_together() -> None:
    result = run_arena(["playfirst", "random", "playfirst", "random"], "pairs", games=4, seed=3)
    assert result.expected_rate() == 0.5
    for outcome in result.decided():
        assert len(outcome.winners) == 2
        first, second = outcome.winners
        assert second == first + 2


def test_whole_matches() -> None:
    result = run_arena(["playfirst", "random"], "official,target_score=100", games=3, seed=1,
                       match=True)
    assert result.rules.rounds is None
    assert result.counts()["rounds"] >= 3
    assert len(result.decided()) == 3


def test_results_do_not_depend_on_jobs() -> None:
    specs = ["playfirst", "random", "random"]
    one = run_arena(specs, "official", games=18, seed=11, jobs=1)
    done: list[int] = []
    two = run_arena(specs, "official", games=18, seed=11, jobs=2, progress=done.append)
    assert sum(done) == 18
    assert one.outcomes == two.outcomes
    assert [(e.mu, e.sigma) for e in one.entries()] == [(e.mu, e.sigma) for e in two.entries()]
    assert without_times(one.to_dict()) == without_times(two.to_dict())
    assert sum(t.decisions for t in one.timing) == sum(t.decisions for t in two.timing)


# ------------------------------------------------------- rules and bot specs
def test_arena_rules_players_from_bots() -> None:
    assert arena_rules("official", 3).players == 3
    assert arena_rules("official", 3).rounds == 1
    assert arena_rules("official,rounds=5", 2, match=True).rounds == 5
    assert arena_rules("official,players=3", 3).players == 3
    assert arena_rules('{"preset": "official", "target_score": 200}', 2).players == 2
    for rules in ("official,players=3", '{"players": 3}', {"players": 3},
                  Rules.preset("official", players=3)):
        with pytest.raises(ArenaError, match="2 bots for 3 players"):
            arena_rules(rules, 2)
    with pytest.raises(ArenaError, match="at least 2 bots"):
        arena_rules("official", 1)
    with pytest.raises(ArenaError, match="pairs need"):
        arena_rules("pairs", 3)
    with pytest.raises(ArenaError, match="invalid rule set"):
        arena_rules("official,nonsense=1", 2)


def test_unknown_bot_and_bad_input() -> None:
    with pytest.raises(ArenaError, match="unknown bot 'nosuchbot'"):
        run_arena(["playfirst", "nosuchbot"], "official", games=2)
    with pytest.raises(ArenaError, match="empty"):
        run_arena(["playfirst", " "], "official", games=2)
    with pytest.raises(ArenaError, match="at least 1 game"):
        run_arena(["playfirst", "random"], "official", games=0)


def test_create_bot_passes_rules_and_spec_options(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int, dict[str, Any]]] = []

    def make_bot(name: str, seed: int = 0, *, rules: Rules | None = None,
                 **options: Any) -> SeededBot:
        calls.append((name, seed, {"rules": rules, **options}))
        return BOTS["random"](seed)

    def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
        name, _, style = spec.partition(":")
        return name, ({"style": style} if style else {})

    monkeypatch.setattr(registry, "make_bot", make_bot)
    monkeypatch.setattr(registry, "parse_bot_spec", parse_bot_spec, raising=False)
    rules = Rules.preset("official", players=2)
    create_bot("hard:aggressive", 7, rules)
    assert calls == [("hard", 7, {"rules": rules, "style": "aggressive"})]


def test_create_bot_without_rules_parameter(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def make_bot(name: str, seed: int = 0) -> SeededBot:
        seen.append(name)
        return BOTS["random"](seed)

    monkeypatch.setattr(registry, "make_bot", make_bot)
    monkeypatch.delattr(registry, "parse_bot_spec", raising=False)
    assert create_bot("random", 1, Rules.preset("official", players=2)).name == "random"
    assert seen == ["random"]


class _BrokenBot(SeededBot):
    name = "broken"

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        raise RuntimeError("broken on purpose")


def test_failing_bot_and_unfinished_games_have_no_winner(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, "broken", _BrokenBot)
    rules = arena_rules("official", 2)
    outcome = play_game(["broken", "random"], rules, seed=1, index=0)
    assert outcome.status == "error" and outcome.winners == ()
    assert "broken on purpose" in outcome.message
    result = run_arena(["playfirst", "random"], "official", games=3, seed=1, max_actions=5)
    counts = result.counts()
    assert counts["unfinished"] == 3 and counts["no_winner"] == 3 and counts["decided"] == 0
    assert all(r.games == 0 for r in result.seats())
    assert result.problems()[0]["status"] == "unfinished"
    assert result.to_dict()["bots"][0]["win_rate"] is None


# -------------------------------------------------------------- JSON and plot
@pytest.fixture(scope="module")
def small() -> ArenaResult:
    return run_arena(["playfirst", "random", "random"], "official", games=9, seed=5)


def test_json_content(small: ArenaResult, tmp_path: Path) -> None:
    path = tmp_path / "arena.json"
    small.write_json(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["inputs"] == {
        "bots": ["playfirst", "random", "random"], "rules": {"preset": "official",
                                                             "players": 3, "rounds": 1},
        "rules_string": "official,players=3,rounds=1", "players": 3, "games": 9, "seed": 5,
        "jobs": 1, "match": False, "max_actions": 50_000, "first_game": 0,
    }
    assert data["counts"]["games"] == 9 and data["counts"]["decided"] == 9
    assert [b["bot"] for b in data["bots"]] == ["playfirst", "random"]
    bot = data["bots"][0]
    assert set(bot) >= {"games", "wins", "win_rate", "ci95", "mean_points", "mean_points_ci95",
                        "decision_time", "rating"}
    assert set(bot["decision_time"]) >= {"decisions", "median_s", "p90_s", "max_s"}
    assert len(data["entries"]) == 3 and len(data["entries"][0]["by_seat"]) == 3
    assert [s["seat"] for s in data["seats"]] == [0, 1, 2]
    assert sum(s["wins"] for s in data["seats"]) == 9
    advantage = data["first_seat_advantage"]
    assert advantage["expected"] == pytest.approx(1 / 3)
    assert advantage["advantage"] == pytest.approx(advantage["win_rate"] - 1 / 3)
    assert data["problems"] == []


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_files(small: ArenaResult, tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"arena{suffix}"
    plot_win_rates(small, path)
    content = path.read_bytes()
    assert len(content) > 1000
    assert content.startswith(b"\x89PNG") if suffix == ".png" else b"<svg" in content


def test_plot_refuses_other_types(small: ArenaResult, tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match=r"\.png or \.svg"):
        plot_win_rates(small, tmp_path / "arena.pdf")


# ----------------------------------------------------------------------- CLI
def test_cli_prints_the_table_and_writes_files(tmp_path: Path) -> None:
    out = tmp_path / "arena.json"
    plot = tmp_path / "arena.svg"
    result = runner.invoke(app, ["arena", "--bots", "playfirst,random,random", "--games", "6",
                                 "--seed", "3", "--json", str(out), "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    assert "Arena: 6 rounds" in result.stdout
    assert "win rate [95% CI]" in result.stdout
    for text in ("playfirst", "random", "Seats: 0:", "First to play:", "without a winner"):
        assert text in result.stdout
    assert json.loads(out.read_text(encoding="utf-8"))["inputs"]["games"] == 6
    assert plot.stat().st_size > 1000


@pytest.mark.parametrize(("args", "message"), [
    (["--bots", "playfirst,nosuchbot"], "unknown bot 'nosuchbot'"),
    (["--bots", "playfirst,random", "--rules", "official,players=3"], "2 bots for 3 players"),
    (["--bots", "playfirst"], "at least 2 bots"),
    (["--bots", "playfirst,,random"], "empty bot name"),
    (["--bots", "playfirst,random", "--rules", "official,bogus=1"], "bogus"),
    (["--bots", "playfirst,random", "--plot", "arena.pdf"], ".png or .svg"),
    (["--bots", "playfirst,random", "--json", "/no/such/folder/a.json"], "no such folder"),
])
def test_cli_errors_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["arena", "--games", "2", *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_cli_exit_1_when_a_game_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, "broken", _BrokenBot)
    result = runner.invoke(app, ["arena", "--bots", "broken,random", "--games", "2"])
    assert result.exit_code == 1
    assert "2 errors" in result.stdout and "broken on purpose" in result.stdout
