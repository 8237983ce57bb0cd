"""The simulator around its kernel: what it refuses, its statistics, plots and command.

The games themselves are checked against the engine in ``test_sim_parity.py``.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from unokit.cli import app
from unokit.engine.errors import RulesError
from unokit.engine.rules import Rules
from unokit.sim import check_supported
from unokit.sim.policies import seat_policies
from unokit.sim.runner import COLUMNS, SimResult, Simulator, simulate
from unokit.sim.stats import csv_rows, describe, rate, report, wilson
from unokit.sim.support import SUPPORTED_PRESETS, unsupported

runner = CliRunner()


def run(*args: str | Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["simulate", *[str(a) for a in args]],
                         env={"COLUMNS": "200"})


# ------------------------------------------------------------------ support
@pytest.mark.parametrize("preset", SUPPORTED_PRESETS)
@pytest.mark.parametrize("players", [2, 5, 10])
def test_supported_presets(preset: str, players: int) -> None:
    if Rules.preset(preset).teams == "pairs":
        players = max(4, players + players % 2)  # pairs need an even table of 4 or more
    check_supported(Rules.preset(preset, players=players))


@pytest.mark.parametrize(("text", "keys"), [
    ("attack,uno_slap=true", {"uno_slap"}),
    ("attack,players=3,first_card=number_only,extra_cards={WSW:1}", {"extra_cards"}),
    ("official,extra_cards={WC:4}", {"extra_cards"}),
    ("h2o,extra_cards={WD1:1}", {"extra_cards"}),
    ("official,misplay_penalty=2,false_catch_penalty=1", {"false_catch_penalty"}),
    ("official,scoring=elimination", {"scoring"}),
    ("official,play_to_last=true,progressive_refill=true", {"play_to_last"}),
    ("official,five_exchange=true,multi_play=same_number", {"five_exchange", "multi_play"}),
    ("official,uno_slap=true,silence=twos,wild_color=next_in_circle",
     {"uno_slap", "silence"}),
])
def test_unsupported_rules_are_refused_by_name(text: str, keys: set[str]) -> None:
    rules = Rules.load(text)
    with pytest.raises(RulesError) as info:
        check_supported(rules)
    assert set(info.value.keys) == keys
    for key in keys:
        assert key in str(info.value)
    assert set(unsupported(rules)) == keys


def test_inert_keys_are_accepted() -> None:
    # Rules refuses these keys (they have no effect here); the simulator's declaration
    # accepts them all the same.
    check_supported(Rules(blank_card_effect="draw_ten", launcher_max_burst=3,
                          silence_penalty=5))


def test_simulator_refuses_too() -> None:
    with pytest.raises(RulesError, match="uno_slap"):
        Simulator(Rules.load("attack,players=4,uno_slap=true"))
    with pytest.raises(ValueError, match="unknown policy"):
        Simulator(Rules.preset("official"), "clever")


def test_seat_policies() -> None:
    assert seat_policies("random", 3) == ["random"] * 3
    assert seat_policies(["playfirst", "random"], 3) == ["playfirst", "random", "playfirst"]
    with pytest.raises(ValueError):
        seat_policies(" , ", 2)


# ------------------------------------------------------------------ runs
def test_runs_are_reproducible_whatever_the_chunks_and_jobs() -> None:
    rules = Rules.preset("classic_ru", players=3, rounds=1)
    one = simulate(rules, 300, seed=11, policies="random", chunk=300)
    chunked = simulate(rules, 300, seed=11, policies="random", chunk=7)
    jobs = simulate(rules, 300, seed=11, policies="random", jobs=2, chunk=50)
    assert np.array_equal(one.digests, chunked.digests)
    assert np.array_equal(one.digests, jobs.digests)
    for name in COLUMNS:
        assert np.array_equal(one.columns[name], jobs.columns[name])
    later = simulate(rules, 100, seed=211, policies="random")
    assert np.array_equal(later.digests, one.digests[200:])


def test_progress_callback_counts_every_game() -> None:
    seen: list[int] = []
    simulate(Rules.preset("official", players=4, rounds=1), 250, policies="playfirst",
             chunk=100, on_chunk=seen.append)
    assert seen == [100, 100, 50]


def test_bad_counts() -> None:
    with pytest.raises(ValueError):
        simulate(Rules.preset("official"), 0)
    with pytest.raises(ValueError):
        simulate(Rules.preset("official"), 5, jobs=0)


# ------------------------------------------------------------------ statistics
def test_wilson_known_values() -> None:
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.27753, abs=1e-5)
    low, high = wilson(10, 10)
    assert low == pytest.approx(0.72247, abs=1e-5) and high == 1.0
    low, high = wilson(81, 263)  # Wilson (1927)-style textbook example
    assert low == pytest.approx(0.2553, abs=1e-4) and high == pytest.approx(0.3662, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_describe_known_values() -> None:
    d = describe(list(range(1, 101)))
    assert (d.count, d.mean, d.median, d.min, d.max) == (100, 50.5, 50.5, 1, 100)
    assert d.p10 == pytest.approx(10.9) and d.p90 == pytest.approx(90.1)
    assert sum(d.counts) + d.above == 100
    assert len(d.edges) == len(d.counts) + 1 and len(d.counts) <= 40
    assert d.edges == sorted(d.edges)
    empty = describe([])
    assert empty.count == 0 and math.isnan(empty.mean)
    skewed = describe([1] * 99 + [1000])
    assert skewed.median == 1 and skewed.above == 1


def _fake_result() -> SimResult:
    """Four games of three players: seat 0 wins twice, seat 2 once, one unfinished."""
    columns = {name: np.zeros(4, dtype=np.int64) for name in COLUMNS}
    columns["winner"][:] = [0, 2, 0, -1]
    columns["first"][:] = [0, 1, 2, 0]
    columns["points"][:] = [10, 20, 30, 0]
    columns["turns"][:] = [5, 6, 7, 100]
    columns["actions"][:] = [6, 7, 8, 120]
    columns["rounds"][:] = [1, 1, 1, 1]
    columns["blocked"][:] = [0, 1, 2, 0]
    columns["repeated"][:] = [0, 0, 1, 0]
    return SimResult(rules=Rules.preset("official", players=3, rounds=1),
                     policies=["random"] * 3, seed=0, games=4, seconds=2.0, jobs=1,
                     columns=columns, digests=np.zeros(4, dtype=np.uint64))


def test_report_on_known_results() -> None:
    rep = report(_fake_result(), "fake")
    assert rep.finished == 3
    assert [s.wins for s in rep.seats] == [2, 0, 1]
    assert rep.seats[0].rate == pytest.approx(2 / 3)
    assert rep.seats[0].low == pytest.approx(wilson(2, 3)[0])
    # Winner minus first player, clockwise: 0, (2-1)=1, (0-2)%3=1.
    assert [p.wins for p in rep.positions] == [1, 2, 0]
    assert rep.first_player.wins == 1 and rep.expected_first == pytest.approx(1 / 3)
    assert rep.points.mean == pytest.approx(20.0)  # finished games only
    assert rep.lengths["turns"].max == 100  # unfinished games count in the lengths
    assert rep.blocked_rounds == 3 and rep.repeated_rounds == 1
    assert rep.games_per_second == 2.0 and rep.actions_per_second == pytest.approx(70.5)
    data = rep.to_dict()
    assert json.loads(json.dumps(data))["seats"][0]["wins"] == 2
    rows = csv_rows([rep])
    assert ("fake", "win_rate.seat", "0", rep.seats[0].rate, rep.seats[0].low,
            rep.seats[0].high) in rows
    assert ("fake", "rounds", "blocked_by_repetition", 1, "", "") in rows
    assert rate(0, 0).games == 0


def test_real_run_statistics_are_sane() -> None:
    result = simulate(Rules.preset("official", players=4, rounds=1), 2000, seed=3,
                      policies="playfirst")
    rep = report(result)
    assert rep.finished == 2000
    assert sum(s.wins for s in rep.seats) == 2000
    assert all(0.15 < s.rate < 0.35 for s in rep.seats)
    assert rep.lengths["turns"].mean < rep.lengths["actions"].mean
    plays, draws = rep.lengths["plays"], rep.lengths["draws"]
    assert plays.mean + draws.mean >= rep.lengths["turns"].mean
    assert rep.points.min >= 0 and rep.rounds.max == 1


# ------------------------------------------------------------------ plots
def test_plots_are_written(tmp_path: Path) -> None:
    from unokit.sim.plots import all_plots

    reports = [report(_fake_result(), "a"), report(_fake_result(), "b")]
    paths = all_plots(reports, tmp_path / "plots")
    assert {p.name for p in paths} == {f"{stem}.{ext}" for stem in
                                       ("length_turns", "length_actions", "seat_win_rates")
                                       for ext in ("png", "svg")}
    for path in paths:
        data = path.read_bytes()
        assert len(data) > 1000
        if path.suffix == ".png":
            assert data.startswith(b"\x89PNG")
        else:
            assert b"<svg" in data


# ------------------------------------------------------------------ command
def test_simulate_command(tmp_path: Path) -> None:
    result = run("--rules", "official,rounds=1", "--players", "3", "--games", "400",
                 "--policy", "playfirst", "--seed", "5", "--vs", "stacking,rounds=1",
                 "--json", tmp_path / "s.json", "--csv", tmp_path / "s.csv",
                 "--plot", tmp_path / "plots")
    assert result.exit_code == 0, result.output
    out = result.output
    for text in ("Win rate by seat", "First player", "Game length", "official,players=3",
                 "stacking,players=3", "turns", "wrote"):
        assert text in out
    assert "400/400" in result.stderr and "400/400" not in result.stdout  # the progress bars
    data = json.loads((tmp_path / "s.json").read_text())
    assert [r["games"] for r in data["reports"]] == [400, 400]
    assert data["reports"][0]["players"] == 3
    with (tmp_path / "s.csv").open() as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["label", "section", "key", "value", "low", "high"]
    assert len(rows) > 40
    assert len(list((tmp_path / "plots").iterdir())) == 6


def test_simulate_command_jobs_and_mixed_policies() -> None:
    result = run("--rules", "seven_o,players=4,rounds=1", "--games", "300", "--jobs", "2",
                 "--policy", "random,playfirst")
    assert result.exit_code == 0, result.output
    assert "2 jobs" in result.output and "random,playfirst" in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["--rules", "official,silence=twos"], "silence"),
    (["--rules", "official", "--vs", "attack,multi_play=same_number"], "--vs"),
    (["--rules", "nonsense"], "preset"),
    (["--policy", "clever"], "unknown policy"),
    (["--policy", "random,random,random,random,random"], "5 policies for 4 seats"),
    (["--rules", "official,players=2", "--vs", "official,players=4", "--policy",
      "random,random,random"], "3 policies for 2 seats"),
    (["--ray-address", "127.0.0.1:1"], "--ray-address needs --backend ray"),
])
def test_simulate_command_errors(args: list[str], message: str) -> None:
    result = run(*args, "--games", "10")
    assert result.exit_code == 2
    assert message in result.output
