"""The command line, through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unokit._version import __version__
from unokit.cli import app
from unokit.engine.rules import KEYS, PRESETS
from unokit.formats.record import Record, replay

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SCENARIOS = SHARED / "scenarios"
SUPPORTED = [f"{n:02d}" for n in range(1, 27)]

runner = CliRunner()


def run(*args: str | Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert result.output.strip() == f"unokit {__version__}"


def test_no_arguments_shows_help() -> None:
    result = run()
    assert "selfplay" in result.output and "scenario" in result.output


# ------------------------------------------------------------------ rules
def test_rules_lists_presets_and_keys() -> None:
    result = run("rules")
    assert result.exit_code == 0, result.output
    for name in PRESETS:
        assert name in result.output
    for spec in KEYS:
        assert spec.name in result.output
    assert "standard | penalty | elimination | lazy" in result.output
    assert "not yet" not in result.output  # every preset is played


def test_rules_of_one_preset() -> None:
    result = run("rules", "pairs")
    assert result.exit_code == 0, result.output
    assert "pairs *" in result.output
    assert "four players in two teams" in result.output
    attack = run("rules", "attack")
    assert attack.exit_code == 0
    assert "attack *" in attack.output and "does not support" not in attack.output


def test_rules_unknown_preset() -> None:
    result = run("rules", "crazy")
    assert result.exit_code == 2
    assert "unknown preset 'crazy'" in result.output


# ------------------------------------------------------------------ scenario
def shared_file(prefix: str) -> Path:
    (path,) = SCENARIOS.glob(f"{prefix}_*.json")
    return path


def test_shared_scenarios_pass() -> None:
    files = [shared_file(prefix) for prefix in SUPPORTED]
    result = run("scenario", *files)
    lines = result.output.splitlines()
    assert len(lines) == len(files)
    assert all(line.startswith("PASS ") for line in lines), result.output
    assert result.exit_code == 0


def test_each_shared_scenario_by_name() -> None:
    for prefix in SUPPORTED:
        result = run("scenario", shared_file(prefix))
        assert result.exit_code == 0, result.output
        assert result.output.startswith("PASS ")


GOOD = {
    "name": "red on red",
    "rules": {"preset": "official"},
    "setup": {"hands": [["R5", "G1"], ["B1"]], "discard": ["R3"], "draw_pile": ["Y1"],
              "current_player": 0},
    "steps": [{"do": {"player": 0, "play": "R5", "uno": True},
               "expect": {"current_player": 1, "top": "R5"}}],
}


def test_failing_scenario_exits_1(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD))
    bad_data = json.loads(json.dumps(GOOD))
    bad_data["name"] = "wrong top"
    bad_data["steps"][0]["expect"]["top"] = "G1"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_data))
    result = run("scenario", good, bad)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "PASS red on red",
        "FAIL wrong top: step 1: top: expected 'G1', got 'R5'",
    ]
    folder = run("scenario", tmp_path)
    assert folder.exit_code == 1
    assert len(folder.output.splitlines()) == 2


@pytest.mark.parametrize("content", [
    "not json", "[]", "{}", '{"setup": 5}', '{"setup": {"hands": "R5"}}',
    '{"setup": {"hands": [["R5"], ["Q9"]]}}',
    '{"setup": {"hands": [["R5"], ["G1"]], "discard": ["R1"]}, "steps": [{"do": {"player": "x"}}]}',
    '{"setup": {"hands": [["R5"], ["G1"]], "discard": ["R1"]}, "steps": [{"expect": {"hands": '
    '{"\\u00b2": ["R5"]}}}]}',
    '{"rules": {"preset": 3}, "setup": {"hands": [["R5"], ["G1"]]}}',
    '\xff\xfe',
])
def test_broken_scenario_is_a_fail_line(tmp_path: Path, content: str) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    result = run("scenario", path)
    assert result.exit_code == 1
    assert result.output.startswith("FAIL "), result.output
    assert "Traceback" not in result.output


def test_missing_scenario_file(tmp_path: Path) -> None:
    result = run("scenario", tmp_path / "nope.json")
    assert result.exit_code == 1
    assert "FAIL" in result.output and "cannot read" in result.output


def test_empty_scenario_folder(tmp_path: Path) -> None:
    result = run("scenario", tmp_path)
    assert result.exit_code == 1
    assert "no scenario files" in result.output


# ------------------------------------------------------------------ selfplay & replay
def test_selfplay_runs_to_the_end_and_saves(tmp_path: Path) -> None:
    saved = tmp_path / "match.json"
    result = run("selfplay", "--rules", "official,rounds=2", "--players", "3", "--seed", "7",
                 "--save", saved, "--bots", "playfirst,random")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("Rules: official,players=3,rounds=2\nSeed: 7\n")
    assert "Alice (playfirst), Bob (random), Cara (playfirst)" in out
    assert "Round 1: " in out and "The match is over: " in out
    assert "Final scores: Alice " in out and "\nWinner: " in out
    record = Record.load(saved)
    game = replay(record)
    assert game.is_over()
    assert record.players == ["Alice", "Bob", "Cara"]
    again = run("selfplay", "--rules", "official,rounds=2", "--players", "3", "--seed", "7",
                "--bots", "playfirst,random")
    assert again.output.splitlines()[:-1] == out.splitlines()[:-2]  # same match, no save line


def test_selfplay_with_the_search_bot() -> None:
    result = run("selfplay", "--rules", "official,rounds=1", "--players", "3", "--seed", "5",
                 "--bots", "search:20,playfirst")
    assert result.exit_code == 0, result.output
    assert "Alice (search), Bob (playfirst), Cara (search)" in result.output
    assert "\nWinner: " in result.output


def test_selfplay_rule_forms() -> None:
    for rules in ("pairs", '{"preset": "official", "players": 2, "rounds": 1}',
                  "official, rounds=1, scoring=penalty"):
        result = run("selfplay", "--rules", rules, "--seed", "3")
        assert result.exit_code == 0, result.output
        assert "Winner: " in result.output


def test_selfplay_with_everything_shown() -> None:
    hidden = run("selfplay", "--rules", "official,rounds=1", "--seed", "2")
    shown = run("selfplay", "--rules", "official,rounds=1", "--seed", "2", "--open")
    assert "is dealt 7 cards." in hidden.output
    assert "is dealt 7 cards: " in shown.output
    assert len(hidden.output.splitlines()) == len(shown.output.splitlines())


def test_selfplay_colours_only_on_request_of_a_terminal() -> None:
    result = run("selfplay", "--rules", "official,rounds=1", "--seed", "2")
    assert "[/]" not in result.output and "\x1b[" not in result.output


@pytest.mark.parametrize(("args", "named"), [
    (["--rules", "official,colour=1"], "colour"),
    (["--rules", '{"deck": "bridge"}'], "deck"),
    (["--rules", "pairs", "--players", "3"], "teams"),
    (["--rules", "nope"], "preset"),
    (["--rules", "official", "--players", "11"], "players"),
    (["--rules", "{bad json"], "rules"),
])
def test_selfplay_bad_rules_exit_2(args: list[str], named: str) -> None:
    result = run("selfplay", *args)
    assert result.exit_code == 2
    assert "invalid rule set" in result.output
    assert named in result.output


def test_selfplay_unknown_bot() -> None:
    result = run("selfplay", "--bots", "playfirst,genius")
    assert result.exit_code == 2
    assert "unknown bot 'genius'" in result.output


@pytest.fixture
def saved_record(tmp_path: Path) -> Path:
    path = tmp_path / "match.json"
    result = run("selfplay", "--rules", "official,rounds=1", "--players", "2", "--seed", "4",
                 "--save", path)
    assert result.exit_code == 0, result.output
    return path


def test_replay_prints_the_spectator_transcript(saved_record: Path) -> None:
    result = run("replay", saved_record)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Players: 0 Alice, 1 Bob" in out
    assert "Alice is dealt 7 cards.\n" in out and "Bob is dealt 7 cards.\n" in out
    assert "The match is over" in out
    assert out.rstrip().endswith("matches.")
    # The same lines as the selfplay transcript.
    played = run("selfplay", "--rules", "official,rounds=1", "--players", "2", "--seed", "4")
    events = [line for line in played.output.splitlines()
              if not line.startswith(("Rules:", "Seed:", "Players:", "Final", "Winner"))]
    shown = out.splitlines()[2:-1]
    assert shown == events


def test_replay_as_a_seat(saved_record: Path) -> None:
    result = run("replay", saved_record, "--as", "1")
    assert result.exit_code == 0, result.output
    assert "Alice is dealt 7 cards.\n" in result.output
    assert "Bob is dealt 7 cards: " in result.output
    bad = run("replay", saved_record, "--as", "2")
    assert bad.exit_code == 2
    assert "seats 0..1" in bad.output


def test_replay_tampered_record_exits_2(saved_record: Path) -> None:
    data = json.loads(saved_record.read_text())
    data["actions"] = data["actions"][:-1]
    saved_record.write_text(json.dumps(data))
    result = run("replay", saved_record)
    assert result.exit_code == 2
    assert "error: " in result.output and "digest does not match" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("content", ["", "{}", "[1, 2]", '{"format": "unokit-record"}'])
def test_replay_broken_record_exits_2(tmp_path: Path, content: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(content)
    result = run("replay", path)
    assert result.exit_code == 2
    assert result.output.startswith("error: ")


def test_replay_missing_file(tmp_path: Path) -> None:
    result = run("replay", tmp_path / "nope.json")
    assert result.exit_code == 2
    assert "cannot read" in result.output
