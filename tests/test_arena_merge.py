"""An arena run in parts: ``--first-game`` plays the games of a whole run, the JSON file
keeps every outcome and timing histogram, and ``unokit arena-merge`` puts parts of one run
together into exactly the result of that run (apart from the times), refusing files that
are not parts of one run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena_json import without_times
from unokit.arena import (
    ArenaError,
    ArenaResult,
    TimeStats,
    format_ranges,
    game_ranges,
    merge_files,
    merge_results,
    read_result,
    run_arena,
)
from unokit.arena.results import OUTCOME_FIELDS, outcome_from_row, outcome_row
from unokit.cli import app

runner = CliRunner()
SPECS = ["playfirst", "random", "random"]
SEED = 3
GAMES = 8


@pytest.fixture(scope="module")
def whole() -> ArenaResult:
    return run_arena(SPECS, "official", games=GAMES, seed=SEED)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Parts of the run as files: ``p0-3``, ``p4-7``, ``p0-2``, ``p3-5``, ``p6-7``."""
    path = tmp_path_factory.mktemp("parts")
    for first, last in ((0, 3), (4, 7), (0, 2), (3, 5), (6, 7)):
        run_arena(SPECS, "official", games=last - first + 1, seed=SEED,
                  first_game=first).write_json(path / f"p{first}-{last}.json")
    return path


def _summed(parts: list[ArenaResult]) -> list[dict[str, Any]]:
    totals = [TimeStats() for _ in SPECS]
    for part in sorted(parts, key=lambda p: p.first_game):
        for total, timing in zip(totals, part.timing, strict=True):
            total.merge(timing)
    return [t.to_full_dict() for t in totals]


# ------------------------------------------------------------------- --first-game
def test_first_game_plays_the_games_of_the_whole_run(whole: ArenaResult) -> None:
    part = run_arena(SPECS, "official", games=3, seed=SEED, first_game=4)
    assert part.outcomes == whole.outcomes[4:7]
    assert [o.game for o in part.outcomes] == [4, 5, 6]
    data = part.to_dict()
    assert data["inputs"]["first_game"] == 4 and data["inputs"]["games"] == 3
    assert data["game_ranges"] == [{"first": 4, "last": 6}]


def test_first_game_with_processes(whole: ArenaResult) -> None:
    part = run_arena(SPECS, "official", games=5, seed=SEED, first_game=3, jobs=2)
    assert part.outcomes == whole.outcomes[3:8]


def test_first_game_must_fit_the_game_numbers() -> None:
    with pytest.raises(ArenaError, match="0 or more"):
        run_arena(SPECS, "official", games=1, seed=SEED, first_game=-1)
    with pytest.raises(ArenaError, match=r"2\*\*64-1"):
        run_arena(SPECS, "official", games=2, seed=SEED, first_game=2**64 - 1)
    last = run_arena(["playfirst", "random"], "official", games=2, seed=5,
                     first_game=2**64 - 2)
    assert [o.game for o in last.outcomes] == [2**64 - 2, 2**64 - 1]
    assert [o.seed for o in last.outcomes] == [3, 4]  # seeds wrap modulo 2**64


@pytest.mark.parametrize(("args", "message"), [
    (["--first-game", "-1"], "0 or more"),
    (["--first-game", str(2**64 - 1), "--games", "2"], "2**64-1"),
])
def test_cli_refuses_a_bad_first_game(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["arena", "--bots", "playfirst,random", "--games", "1", *args])
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output


def test_cli_part_says_which_games(tmp_path: Path) -> None:
    out = tmp_path / "part.json"
    result = runner.invoke(app, ["arena", "--bots", ",".join(SPECS), "--games", "2",
                                 "--seed", str(SEED), "--first-game", "4", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "Games 4-5 (2 games) of the run with seed 3" in result.stdout
    assert json.loads(out.read_text(encoding="utf-8"))["inputs"]["first_game"] == 4


# ----------------------------------------------------------------------- JSON
def test_json_keeps_outcomes_and_timings(whole: ArenaResult, tmp_path: Path) -> None:
    path = tmp_path / "whole.json"
    whole.write_json(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["outcome_fields"] == list(OUTCOME_FIELDS)
    assert [outcome_from_row(row) for row in data["outcomes"]] == whole.outcomes
    for entry, timing in zip(data["entries"], whole.timing, strict=True):
        assert entry["decision_time"] == timing.to_full_dict()
        assert sum(count for _, count in entry["decision_time"]["bins"]) == timing.decisions
    again = read_result(path)
    assert again.to_dict() == whole.to_dict()  # times too: the file keeps them exactly


def test_json_size_per_game(tmp_path: Path) -> None:
    result = run_arena(["playfirst", "random", "random", "random"], "official", games=40,
                       seed=2**63)
    path = tmp_path / "four.json"
    result.write_json(path)
    text = path.read_text(encoding="utf-8")
    rows = text[text.index('"outcomes"'):]
    assert len(rows.encode()) / 40 < 100  # 19-digit seeds, four seats
    assert rows.count("\n") == 40 + 3  # one line per game, not one per value
    bins = [piece.split("\n", 1)[0] for piece in text.split('"bins": ')[1:]]
    assert len(bins) == 4 and all(line.startswith("[[") and line.endswith("]]") for line in bins)


def test_outcome_rows_round_trip(whole: ArenaResult) -> None:
    for outcome in whole.outcomes:
        assert outcome_from_row(json.loads(json.dumps(outcome_row(outcome))), 3) == outcome


# -------------------------------------------------------------------- merging
def test_two_parts_merge_into_the_whole_run(whole: ArenaResult, folder: Path) -> None:
    paths = [folder / "p0-3.json", folder / "p4-7.json"]
    merged = merge_files(paths)
    assert merged.outcomes == whole.outcomes
    assert (merged.games, merged.first_game, merged.parts) == (GAMES, 0, 2)
    assert without_times(merged.to_dict(), "parts") \
        == without_times(whole.to_dict(), "parts")
    assert [e.mu for e in merged.entries()] == [e.mu for e in whole.entries()]
    assert ([t.decisions for t in merged.timing] == [t.decisions for t in whole.timing])
    parts = [read_result(path) for path in paths]
    assert [t.to_full_dict() for t in merged.timing] == _summed(parts)
    assert merged.seconds == sum(p.seconds for p in parts)


def test_three_shuffled_parts_by_the_command_line(whole: ArenaResult, folder: Path,
                                                  tmp_path: Path) -> None:
    out, plot = tmp_path / "merged.json", tmp_path / "merged.svg"
    names = ["p6-7.json", "p0-2.json", "p3-5.json"]
    result = runner.invoke(app, ["arena-merge", *[str(folder / n) for n in names],
                                 "--json", str(out), "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    assert "Games 0-7 (8 games) of the run with seed 3, from 3 parts" in result.stdout
    for text in ("Arena: 8 rounds", "win rate [95% CI]", "Seats: 0:", "First to play:"):
        assert text in result.stdout
    assert "not covered" not in result.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    assert without_times(data, "parts") == without_times(whole.to_dict(), "parts")
    assert data["parts"] == 3 and data["game_ranges"] == [{"first": 0, "last": 7}]
    parts = [read_result(folder / n) for n in names]
    assert [e["decision_time"] for e in data["entries"]] == _summed(parts)
    assert plot.stat().st_size > 1000


def test_merged_results_merge_again(whole: ArenaResult, folder: Path) -> None:
    first = merge_files([folder / "p0-2.json", folder / "p3-5.json"])
    again = merge_results([read_result(folder / "p6-7.json"), first])
    assert again.parts == 3
    assert without_times(again.to_dict(), "parts") \
        == without_times(whole.to_dict(), "parts")


def test_gaps_are_reported(folder: Path) -> None:
    merged = merge_files([folder / "p6-7.json", folder / "p0-3.json"])
    assert merged.game_ranges() == [(0, 3), (6, 7)] and merged.gaps() == [(4, 5)]
    assert merged.to_dict()["game_ranges"] == [{"first": 0, "last": 3}, {"first": 6, "last": 7}]
    result = runner.invoke(app, ["arena-merge", str(folder / "p6-7.json"),
                                 str(folder / "p0-3.json")])
    assert result.exit_code == 0, result.output
    assert ("Games 0-3, 6-7 (6 games) of the run with seed 3, from 2 parts; not covered: 4-5 "
            "(2 games missing)") in result.stdout


def test_ranges() -> None:
    assert game_ranges([]) == []
    assert game_ranges([7, 3, 4, 5, 9]) == [(3, 5), (7, 7), (9, 9)]
    assert format_ranges([(3, 5), (7, 7)]) == "3-5, 7"


# --------------------------------------------------------------------- errors
def _part(tmp_path: Path, name: str, specs: list[str] = SPECS, rules: str = "official",
          seed: int = SEED, first: int = 0, games: int = 2, **options: Any) -> Path:
    path = tmp_path / name
    run_arena(specs, rules, games=games, seed=seed, first_game=first,
              **options).write_json(path)
    return path


@pytest.mark.parametrize(("change", "field"), [
    ({"specs": ["random", "playfirst", "random"]}, "bots"),
    ({"rules": "official,target_score=200"}, "rules"),
    ({"seed": 4}, "seed"),
    ({"max_actions": 1000}, "max_actions"),
    ({"match": True}, "match"),
])
def test_parts_of_different_runs_do_not_merge(tmp_path: Path, change: dict[str, Any],
                                              field: str) -> None:
    one = _part(tmp_path, "one.json")
    other = _part(tmp_path, "other.json", first=2, **change)
    with pytest.raises(ArenaError, match=f"not a part of the same run as .*: {field} "):
        merge_files([one, other])
    result = runner.invoke(app, ["arena-merge", str(one), str(other)])
    assert result.exit_code == 2
    assert f"other.json is not a part of the same run as {one}: {field} " in result.stderr


def test_overlapping_parts_do_not_merge(folder: Path) -> None:
    with pytest.raises(ArenaError, match=r"p0-3.json and .*p3-5.json both hold game 3$"):
        merge_files([folder / "p0-3.json", folder / "p3-5.json"])
    result = runner.invoke(app, ["arena-merge", str(folder / "p4-7.json"),
                                 str(folder / "p3-5.json"), str(folder / "p0-2.json")])
    assert result.exit_code == 2
    assert "p4-7.json and" in result.stderr and "both hold games 4-5" in result.stderr


def _edited(tmp_path: Path, folder: Path, edit: Callable[[dict[str, Any]], object]) -> Path:
    data = json.loads((folder / "p0-3.json").read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.pop("outcomes"), "no game outcomes in it (written by an older version"),
    (lambda d: d.pop("inputs"), "not an arena result"),
    (_set(("outcomes", 1), [1, 4]), "outcomes[1]: a list of 12 values"),
    (_set(("outcomes", 1, 10), "won"), "outcomes[1]: status 'won'"),
    (_set(("outcomes", 1, 2), [0, 0, 1]), "outcomes[1]: entries, winners or points"),
    (_set(("outcomes", 1, 0), 0), "outcomes: a game appears twice"),
    (_set(("outcomes", 2, 1), 99), "game 2 does not have the seed and seats"),
    (_set(("inputs", "games"), 5), "outcomes: a list of 5 games expected"),
    (_set(("inputs", "seed"), "3"), "inputs.seed: '3' is not a valid number"),
    (_set(("inputs", "rules"), {"players": 3, "bogus": 1}), "inputs.rules:"),
    (_set(("outcome_fields",), ["game"]), "outcome_fields:"),
    (_set(("entries", 1, "decision_time", "bins"), [[5, 1]]),
     "entries[1].decision_time: bins: the counts do not add up"),
    (_set(("entries", 0, "decision_time", "calls"), -1), "entries[0].decision_time: calls"),
    (_set(("entries",), []), "entries: a list of 3 entries expected"),
])
def test_malformed_files_are_refused(tmp_path: Path, folder: Path,
                                     edit: Callable[[dict[str, Any]], object],
                                     message: str) -> None:
    path = _edited(tmp_path, folder, edit)
    with pytest.raises(ArenaError) as caught:
        merge_files([path])
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


@pytest.mark.parametrize(("content", "message"), [
    ("{", "not JSON"),
    ("[1, 2]", "not an arena result"),
    (None, "no such file"),
    ("folder", "a folder, not an arena JSON file"),
])
def test_unreadable_files_exit_2(tmp_path: Path, folder: Path, content: str | None,
                                 message: str) -> None:
    path = tmp_path / "bad.json"
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    result = runner.invoke(app, ["arena-merge", str(folder / "p0-3.json"), str(path)])
    assert result.exit_code == 2
    assert f"error: {path}: {message}" in result.stderr
    assert "Traceback" not in result.output


def test_merge_needs_parts_and_checks_outputs(folder: Path) -> None:
    with pytest.raises(ArenaError, match="at least one"):
        merge_results([])
    assert runner.invoke(app, ["arena-merge"]).exit_code == 2
    result = runner.invoke(app, ["arena-merge", str(folder / "p0-3.json"), "--plot", "a.pdf"])
    assert result.exit_code == 2 and ".png or .svg" in result.stderr
