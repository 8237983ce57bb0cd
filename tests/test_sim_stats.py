"""The simulator's statistics, tables, outputs and command on known inputs.

``test_sim.py`` checks that the pieces exist and work together; here every number is
checked: seat and position win rates, Wilson intervals, percentiles and histograms of
results built by hand, the JSON and CSV files against the report they come from, the
``--vs`` report against a run of its own, the plots' files, every refused rule key and
bad option of the command, and the reproducibility of whole reports.
"""

from __future__ import annotations

import csv
import json
import math
import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from unokit.cli import app
from unokit.engine.cards import parse_card
from unokit.engine.rng import SplitMix64
from unokit.engine.rules import SPEC, Rules
from unokit.sim.cli import tables
from unokit.sim.plots import all_plots, length_histogram, seat_win_rates
from unokit.sim.policies import (
    RandomPolicy,
    actions_digest,
    favourite_color,
    make_policy,
    play_reference,
    seat_policies,
)
from unokit.sim.runner import COLUMNS, SimResult, Simulator, default_chunk, simulate
from unokit.sim.stats import CSV_HEADER, Z95, Report, csv_rows, describe, report, wilson
from unokit.sim.support import SUPPORT

runner = CliRunner()

# Fields of a report that depend on the machine's speed or the number of processes.
TIMING = ("seconds", "games_per_second", "actions_per_second", "jobs")


def run(*args: str | Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["simulate", *[str(a) for a in args]],
                         env={"COLUMNS": "200"})


def untimed(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key not in TIMING}


# ------------------------------------------------------------------ a result by hand
WINNERS = [0, 1, 1, 3, 2, 1, -1, 0]
FIRSTS = [0, 1, 3, 2, 2, 0, 1, 3]
POINTS = [50, 120, 0, 300, 75, 90, 999, 10]
TURNS = [10, 20, 30, 40, 50, 60, 1000, 80]


def _result(players: int = 4, winners: list[int] = WINNERS, seconds: float = 4.0,
            ) -> SimResult:
    """Eight games of four players; game 6 stopped unfinished."""
    games = len(winners)
    columns = {name: np.zeros(games, dtype=np.int64) for name in COLUMNS}
    columns["winner"][:] = winners
    columns["first"][:] = FIRSTS[:games]
    columns["points"][:] = POINTS[:games]
    columns["turns"][:] = TURNS[:games]
    columns["plays"][:] = [t // 2 for t in TURNS[:games]]
    columns["draws"][:] = [t - t // 2 for t in TURNS[:games]]
    columns["actions"][:] = [t + 3 for t in TURNS[:games]]
    columns["rounds"][:] = [1, 2, 3, 1, 1, 2, 5, 1][:games]
    columns["blocked"][:] = [0, 0, 1, 0, 0, 0, 2, 0][:games]
    columns["repeated"][:] = [0, 0, 1, 0, 0, 0, 0, 0][:games]
    return SimResult(rules=Rules.preset("official", players=players),
                     policies=["random", "playfirst"] * (players // 2), seed=40, games=games,
                     seconds=seconds, jobs=3, columns=columns,
                     digests=np.zeros(games, dtype=np.uint64))


def test_seat_and_position_win_rates() -> None:
    rep = report(_result(), "hand")
    assert (rep.games, rep.finished, rep.players) == (8, 7, 4)
    assert [s.wins for s in rep.seats] == [2, 3, 1, 1]
    assert all(s.games == 7 for s in rep.seats)
    assert [s.rate for s in rep.seats] == pytest.approx([2 / 7, 3 / 7, 1 / 7, 1 / 7])
    # Clockwise offsets of the winner from the first player, finished games only:
    # 0, 0, (1-3)%4=2, (3-2)=1, 0, (1-0)=1, (0-3)%4=1.
    assert [p.wins for p in rep.positions] == [3, 3, 1, 0]
    assert rep.first_player == rep.positions[0]
    assert rep.first_player.rate == pytest.approx(3 / 7)
    assert rep.expected_first == 0.25
    assert (rep.positions[3].low, rep.positions[3].rate) == (0.0, 0.0)
    for seat_rate in rep.seats:
        assert (seat_rate.low, seat_rate.high) == wilson(seat_rate.wins, 7)
    assert rep.label == "hand" and rep.rules == "official"
    assert report(_result()).label == "official"
    assert (rep.seed, rep.jobs) == (40, 3)
    assert rep.policies == ["random", "playfirst", "random", "playfirst"]


def test_lengths_points_and_rounds() -> None:
    rep = report(_result())
    turns = rep.lengths["turns"]
    # Every game counts in the lengths, the unfinished one too.
    assert (turns.count, turns.min, turns.max) == (8, 10, 1000)
    assert turns.mean == pytest.approx(1290 / 8)
    assert turns.median == 45.0
    assert turns.p10 == pytest.approx(17.0)  # linear: 10 + 0.7 * 10
    assert turns.p90 == pytest.approx(356.0)  # 80 + 0.3 * 920
    assert rep.lengths["actions"].mean == pytest.approx(turns.mean + 3)
    plays, draws = rep.lengths["plays"], rep.lengths["draws"]
    assert plays.mean + draws.mean == pytest.approx(turns.mean)
    # Points: the winners' scores of the finished games only (999 is left out).
    points = rep.points
    assert (points.count, points.min, points.max) == (7, 0, 300)
    assert points.mean == pytest.approx(645 / 7)
    assert points.median == 75.0
    assert points.p10 == pytest.approx(6.0) and points.p90 == pytest.approx(192.0)
    assert rep.rounds.mean == pytest.approx(16 / 8) and rep.rounds.max == 5
    assert (rep.blocked_rounds, rep.repeated_rounds) == (3, 1)
    assert rep.games_per_second == 2.0
    assert rep.actions_per_second == pytest.approx((1290 + 24) / 4.0)


def test_no_game_finished() -> None:
    rep = report(_result(winners=[-1] * 8))
    assert rep.finished == 0
    assert all(s.wins == 0 and math.isnan(s.rate) and (s.low, s.high) == (0.0, 1.0)
               for s in rep.seats)
    assert rep.points.count == 0 and math.isnan(rep.points.mean)
    assert rep.lengths["turns"].count == 8


@pytest.mark.parametrize(("wins", "games"), [(1, 1), (3, 7), (5, 20), (50, 100), (997, 1000),
                                             (1, 10_000)])
def test_wilson_bounds_solve_the_score_equation(wins: int, games: int) -> None:
    """The bounds are the proportions p with (p_hat - p)^2 = z^2 p (1 - p) / n (the
    bound at 0 or 1 where the observed share is)."""
    low, high = wilson(wins, games)
    share = wins / games
    assert 0.0 <= low <= share <= high <= 1.0
    for bound in (low, high):
        if (bound == 0.0 and wins == 0) or (bound == 1.0 and wins == games):
            continue
        assert (share - bound) ** 2 * games == pytest.approx(
            Z95 ** 2 * bound * (1 - bound), rel=1e-9, abs=1e-15)
    # The complement's interval mirrors it.
    other_low, other_high = wilson(games - wins, games)
    assert other_low == pytest.approx(1 - high) and other_high == pytest.approx(1 - low)


def test_wilson_narrows_with_more_games_and_widens_with_z() -> None:
    widths = [wilson(n // 4, n)[1] - wilson(n // 4, n)[0] for n in (8, 80, 800, 8000)]
    assert widths == sorted(widths, reverse=True)
    assert widths[-1] < 0.02
    low95, high95 = wilson(30, 100)
    low99, high99 = wilson(30, 100, z=2.5758293035489)
    assert low99 < low95 < 0.3 < high95 < high99


def test_histogram_of_whole_numbers() -> None:
    d = describe(list(range(10)))
    assert d.edges == [float(e) for e in range(11)]
    assert d.counts == [1] * 10 and d.above == 0
    d = describe(list(range(100)), bins=10)
    assert d.edges == [float(e) for e in range(0, 101, 10)]
    assert d.counts == [10] * 10
    d = describe([7] * 5)
    assert (d.mean, d.median, d.p10, d.p90, d.std, d.min, d.max) == (7, 7, 7, 7, 0, 7, 7)
    assert sum(d.counts) == 5
    values = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9]
    d = describe(np.array(values))
    assert d.median == float(np.median(values)) == 5.0
    assert d.std == pytest.approx(float(np.std(values)))
    assert (d.p10, d.p90) == tuple(float(v) for v in np.percentile(values, [10, 90]))


# ------------------------------------------------------------------ CSV and tables
def test_csv_rows_carry_the_report() -> None:
    reps = [report(_result(), "a"), report(_result(players=2, winners=[0, 1, 1, 0]), "b")]
    rows = csv_rows(reps)
    assert all(len(row) == len(CSV_HEADER) for row in rows)
    assert {row[0] for row in rows} == {"a", "b"}
    per = {label: [row for row in rows if row[0] == label] for label in ("a", "b")}
    # A seat and a position row per player: four players have four rows more.
    assert len(per["a"]) - len(per["b"]) == 4
    table = {(row[0], row[1], row[2]): row[3:] for row in rows}
    a = reps[0]
    assert table["a", "run", "policies"] == ("random,playfirst,random,playfirst", "", "")
    assert table["a", "run", "finished"] == (7, "", "")
    assert table["a", "win_rate.seat", "1"] == (a.seats[1].rate, a.seats[1].low,
                                                a.seats[1].high)
    assert table["a", "win_rate.position", "2"][0] == pytest.approx(1 / 7)
    assert table["a", "first_player", "win_rate"][0] == pytest.approx(3 / 7)
    assert table["a", "first_player", "expected"][0] == 0.25
    assert table["a", "length.turns", "median"][0] == 45.0
    assert table["a", "length.turns", "max"][0] == 1000
    assert table["a", "points", "p90"][0] == pytest.approx(192.0)
    assert table["a", "rounds", "blocked"][0] == 3
    assert table["b", "first_player", "expected"][0] == 0.5
    assert ("b", "win_rate.seat", "2") not in table


def _text(reps: list[Report]) -> str:
    console = Console(record=True, width=240, color_system=None)
    for out in tables(reps):
        console.print(out)
    return console.export_text()


def test_tables_show_the_numbers() -> None:
    four, two = report(_result(), "four"), report(_result(players=2, winners=[0, 1, 1, 0]),
                                                  "two")
    text = _text([four, two])
    lines = text.splitlines()
    seat3 = next(line for line in lines if line.strip("│ ").startswith("3 "))
    # Seat 3 of the four-player run; the two-player run has no seat 3.
    assert "0.143 [" in seat3 and seat3.rstrip(" │").endswith("-")
    advantage = next(line for line in lines if "advantage" in line)
    assert f"{3 / 7 * 4:.3f}" in advantage  # rate x players
    assert "8 (7)" in text  # games (finished)
    assert "40..47" in text  # seeds
    assert "3 jobs" in text
    low, high = wilson(3, 7)
    assert f"0.429 [{low:.3f}, {high:.3f}]" in text
    mean = next(line for line in lines if line.strip("│ ").startswith("mean "))
    assert "92.1" in mean


# ------------------------------------------------------------------ plots
def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_plot_files_are_valid_images(tmp_path: Path) -> None:
    reps = [report(_result(), "four"), report(_result(players=2, winners=[0, 1, 1, 0]), "two")]
    paths = length_histogram(reps, tmp_path, "plays") + seat_win_rates(reps, tmp_path / "sub")
    assert [p.name for p in paths] == ["length_plays.png", "length_plays.svg",
                                       "seat_win_rates.png", "seat_win_rates.svg"]
    for path in paths:
        data = path.read_bytes()
        if path.suffix == ".png":
            width, height = _png_size(data)
            assert width > 300 and height > 200
        else:
            root = ET.fromstring(data)
            assert root.tag.endswith("svg")
            assert len(list(root.iter())) > 50  # drawn, not an empty canvas


@pytest.mark.filterwarnings("ignore:No artists with labels")
def test_plots_of_reports_without_finished_games(tmp_path: Path) -> None:
    rep = report(_result(winners=[-1] * 8), "none")
    rep.lengths["turns"] = describe([])
    paths = all_plots([rep], tmp_path)
    assert len(paths) == 6
    assert all(path.stat().st_size > 1000 for path in paths)


# ------------------------------------------------------------------ runner and policies
def test_seeds_wrap_around_and_points_are_the_winners_scores() -> None:
    rules = Rules.preset("official", players=3, rounds=1)
    result = simulate(rules, 4, seed=2**64 - 2, policies="playfirst", keep_scores=True)
    sim = Simulator(rules, "playfirst")
    singles = [int(sim.run(seed, 1)[1][0]) for seed in (2**64 - 2, 2**64 - 1, 0, 1)]
    assert [int(d) for d in result.digests] == singles
    assert result.scores is not None and result.scores.shape == (4, 3)
    for i in range(4):
        winner = int(result.winner[i])
        assert winner >= 0
        assert int(result.points[i]) == int(result.scores[i][winner]) > 0
    for seed in (0, 1):
        ref = play_reference(rules, seed, "playfirst")
        assert actions_digest(sim.record(seed)) == ref.digest == singles[2 + seed]
        assert ref.points == ref.scores[ref.winner]


def test_result_columns_and_chunks() -> None:
    result = _result()
    assert result.turns is result.columns["turns"]
    with pytest.raises(AttributeError):
        _ = result.nonsense
    assert result.actions_total == 1290 + 24
    assert _result(seconds=0.0).games_per_second() == math.inf
    assert default_chunk(10_000, 1) == 250
    assert default_chunk(100, 4) == 200
    assert default_chunk(10**9, 1) == 50_000


def test_policy_pieces() -> None:
    assert actions_digest([1]) == ((0xCBF29CE484222325 ^ 1) * 0x100000001B3) % 2**64
    assert actions_digest([1, 2]) != actions_digest([2, 1])
    c = parse_card
    rng = SplitMix64(1)
    assert favourite_color([c("G1"), c("B2"), c("G3"), c("W")], rng) == 2
    assert favourite_color([c("B1"), c("Y2")], rng) == 1  # a tie: Y before B
    before = SplitMix64(9)
    expected = SplitMix64(9).below(4)
    assert favourite_color([c("W"), c("W+4")], before) == expected
    assert seat_policies(("playfirst",), 2) == ["playfirst", "playfirst"]
    with pytest.raises(ValueError, match="unknown policy 'x'"):
        make_policy("x")
    # A skip answer: one draw below len + 1, the last value meaning "let it be".
    answers = [11, 22, 33]
    picks = [SplitMix64(seed).below(4) for seed in range(40)]
    got = [RandomPolicy().answer_skip(None, 0, answers, SplitMix64(seed))  # type: ignore[arg-type]
           for seed in range(40)]
    assert got == [answers[p] if p < 3 else None for p in picks]
    assert None in got and set(got) - {None} == set(answers)


# ------------------------------------------------------------------ the command
def _strict_json(path: Path) -> Any:
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def test_json_and_csv_equal_the_reports(tmp_path: Path) -> None:
    result = run("--rules", "official,rounds=1", "--players", "3", "--games", "300",
                 "--policy", "playfirst,random", "--seed", "9", "--vs", "classic_ru,rounds=1",
                 "--json", tmp_path / "out" / "s.json", "--csv", tmp_path / "s.csv")
    assert result.exit_code == 0, result.output
    data = _strict_json(tmp_path / "out" / "s.json")
    assert list(data) == ["reports"] and len(data["reports"]) == 2
    for got, text in zip(data["reports"], ("official,rounds=1", "classic_ru,rounds=1"),
                         strict=True):
        rules = Rules.load(text).with_(players=3)
        mine = report(simulate(rules, 300, seed=9, policies="playfirst,random"))
        assert untimed(got) == untimed(json.loads(json.dumps(mine.to_dict())))
        assert got["policies"] == ["playfirst", "random", "playfirst"]
        assert set(got) == set(Report.__dataclass_fields__)
    with (tmp_path / "s.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert tuple(rows[0]) == CSV_HEADER
    by_key = {(row[0], row[1], row[2]): row[3:] for row in rows[1:]}
    assert len(by_key) == len(rows) - 1  # one row per statistic
    for rep in data["reports"]:
        label = rep["label"]
        for seat, seat_rate in enumerate(rep["seats"]):
            value, low, high = by_key[label, "win_rate.seat", str(seat)]
            assert (float(value), float(low), float(high)) == (
                seat_rate["rate"], seat_rate["low"], seat_rate["high"])
        assert float(by_key[label, "first_player", "win_rate"][0]) == \
            rep["first_player"]["rate"]
        assert float(by_key[label, "length.turns", "p90"][0]) == rep["lengths"]["turns"]["p90"]
        assert float(by_key[label, "points", "mean"][0]) == rep["points"]["mean"]
        assert int(by_key[label, "run", "finished"][0]) == rep["finished"] == 300
        # The table on screen shows the same rates.
        first = rep["seats"][0]
        assert f"{first['rate']:.3f} [{first['low']:.3f}, {first['high']:.3f}]" in result.output


def test_vs_the_same_rules_gets_numbered_labels_and_equal_numbers(tmp_path: Path) -> None:
    result = run("--rules", "stacking,rounds=1", "--vs", "stacking,rounds=1", "--players", "2",
                 "--games", "200", "--json", tmp_path / "s.json")
    assert result.exit_code == 0, result.output
    one, two = _strict_json(tmp_path / "s.json")["reports"]
    assert one["label"] == "1: stacking,players=2,rounds=1"
    assert two["label"] == "2: stacking,players=2,rounds=1"
    assert one["rules"] == two["rules"] == "stacking,players=2,rounds=1"
    assert untimed(one) | {"label": ""} == untimed(two) | {"label": ""}
    assert one["players"] == 2 and len(one["seats"]) == 2


def test_same_seed_same_report_whatever_the_jobs(tmp_path: Path) -> None:
    args = ["--rules", "seven_o,rounds=1", "--players", "4", "--games", "240", "--seed", "77",
            "--chunk", "50"]
    outputs = []
    for name, extra in (("a", ["--jobs", "1"]), ("b", ["--jobs", "1"]), ("c", ["--jobs", "2"]),
                        ("d", ["--seed", "78"])):
        result = run(*args, *extra, "--json", tmp_path / f"{name}.json")
        assert result.exit_code == 0, result.output
        outputs.append(untimed(_strict_json(tmp_path / f"{name}.json")["reports"][0]))
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[3] != outputs[0]  # another seed: other games
    assert outputs[3]["seed"] == 78


def test_unfinished_games_are_reported() -> None:
    result = run("--rules", "official,rounds=1", "--players", "3", "--games", "20",
                 "--max-actions", "25")
    assert result.exit_code == 0, result.output
    assert "20 game(s) stopped unfinished after 25 actions" in result.output


def test_json_stays_valid_when_no_game_finishes(tmp_path: Path) -> None:
    """With every game stopped unfinished the win rates and points have no value; the
    file must still be JSON (NaN is not)."""
    result = run("--rules", "official,rounds=1", "--players", "3", "--games", "5",
                 "--max-actions", "5", "--json", tmp_path / "s.json")
    assert result.exit_code == 0, result.output
    data = _strict_json(tmp_path / "s.json")
    assert data["reports"][0]["finished"] == 0


def _restricted() -> dict[str, frozenset[object]]:
    """The keys the simulator plays at some of their values only, with those values
    (extra_cards aside: its refusal has its own test)."""
    out: dict[str, frozenset[object]] = {}
    for key, support in SUPPORT.items():
        spec = SPEC[key]
        if not isinstance(support, frozenset) or spec.kind == "cards":
            continue
        if spec.kind == "choice" and set(spec.choices) <= support:
            continue
        out[key] = support
    return out


RESTRICTED = _restricted()


def _refused_values() -> list[tuple[str, str, set[str]]]:
    """A rule set for every value the simulator refuses, with the keys it must name."""
    cases = []
    for key, support in RESTRICTED.items():
        spec = SPEC[key]
        if spec.kind == "bool":
            values: list[object] = [v for v in (False, True) if v not in support]
        elif spec.kind == "int":
            values = [1]
        else:
            values = [v for v in spec.choices if v not in support]
        for value in values:
            extra: dict[str, object] = {key: value}
            if key == "partner_hands_visible":
                extra["teams"] = "pairs"
            if value == "lazy":
                extra["rounds"] = 3
            text = Rules.preset("official", players=4, **extra).to_string()  # type: ignore[arg-type]
            named = {key, "teams"} if key == "partner_hands_visible" else {key}
            cases.append((key, text, named))
    return cases


REFUSED = _refused_values()


def test_every_restricted_key_has_a_case() -> None:
    assert {key for key, _, _ in REFUSED} == set(RESTRICTED)
    assert len(REFUSED) >= len(RESTRICTED) + 1  # silence: two


@pytest.mark.parametrize(("key", "text", "named"), REFUSED,
                         ids=[f"{key}-{i}" for i, (key, _, _) in enumerate(REFUSED)])
def test_refused_rule_keys_are_named(key: str, text: str, named: set[str]) -> None:
    for option in ("--rules", "--vs"):
        args = [option, text] if option == "--rules" else ["--vs", text]
        result = run(*args, "--games", "5")
        assert result.exit_code == 2, result.output
        assert f"error: {option} " in result.output
        for name in named:
            assert f"{name}:" in result.output
        assert "Win rate" not in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "1"], "--players"),
    (["--players", "11"], "--players"),
    (["--games", "0"], "--games"),
    (["--jobs", "0"], "--jobs"),
    (["--seed", "-1"], "--seed"),
    (["--max-actions", "0"], "--max-actions"),
    (["--policy", "random,clever"], "unknown policy 'clever'"),
    (["--policy", " , "], "give at least one policy name"),
    (["--backend", "cloud"], "--backend"),
    (["--rules", "official,hand_size=x"], "hand_size"),
    (["--rules", "official", "--vs", "nonsense"], "--vs 'nonsense'"),
])
def test_bad_options(args: list[str], message: str) -> None:
    result = run(*args, "--games" if "--games" not in args else "--seed", "5")
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Win rate" not in result.output


def test_players_override_both_rule_sets(tmp_path: Path) -> None:
    result = run("--rules", "official,players=3,rounds=1", "--vs", "seven_o,rounds=1",
                 "--players", "5", "--games", "30", "--json", tmp_path / "s.json")
    assert result.exit_code == 0, result.output
    reps = _strict_json(tmp_path / "s.json")["reports"]
    assert [r["players"] for r in reps] == [5, 5]
    assert [len(r["seats"]) for r in reps] == [5, 5]
    assert all(r["expected_first"] == 0.2 for r in reps)


def test_unwritable_outputs_are_errors(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = run("--rules", "official,rounds=1", "--games", "5", "--plot", blocker / "plots")
    assert result.exit_code == 2
    assert "cannot write" in result.output
    result = run("--rules", "official,rounds=1", "--games", "5", "--json", tmp_path)
    assert result.exit_code == 2
    assert "cannot write" in result.output
