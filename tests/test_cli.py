"""The command line, through typer's CliRunner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unokit._version import __version__
from unokit.cli import app
from unokit.engine.rules import KEYS, PRESETS
from unokit.formats.record import Record, replay

SCENARIOS = Path(__file__).resolve().parent / "scenarios" / "public"
"""The public rule scenarios (the repository's copy of ``shared/scenarios``)."""
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
def public_file(prefix: str) -> Path:
    (path,) = SCENARIOS.glob(f"{prefix}_*.json")
    return path


def test_public_scenarios_pass() -> None:
    files = [public_file(prefix) for prefix in SUPPORTED]
    result = run("scenario", *files)
    lines = result.output.splitlines()
    assert len(lines) == len(files)
    assert all(line.startswith("PASS ") for line in lines), result.output
    assert result.exit_code == 0


def test_each_public_scenario_by_name() -> None:
    for prefix in SUPPORTED:
        result = run("scenario", public_file(prefix))
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
    result = run("replay", saved_record, "--codes")
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


def test_replay_names_the_cards(saved_record: Path) -> None:
    named = run("replay", saved_record, "--as", "0").output.splitlines()
    coded = run("replay", saved_record, "--as", "0", "--codes").output.splitlines()
    assert len(named) == len(coded)
    dealt = next(line for line in named if line.startswith("Alice is dealt 7 cards: "))
    cards = dealt.removeprefix("Alice is dealt 7 cards: ").rstrip(".").split(", ")
    assert len(cards) == 7
    assert all(card.split()[0] in {"red", "yellow", "green", "blue"} or
               card.startswith("Wild") for card in cards), cards
    plays = [line for line in named if " plays " in line]
    assert plays and not any(re.search(r" plays [RYGB][0-9SR+]", line) for line in plays)
    assert any(re.search(r" plays [RYGB][0-9SR+]", line) for line in coded)


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


# ------------------------------------------------------------------ untrusted text
EVIL_NAMES = ["A\x1b[31mRED", "B\nSeat 1 plays W+4.", ":smile: [bold]big[/]", "x" * 100_000]


def test_replay_prints_untrusted_names_safely(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    assert run("selfplay", "--players", "4", "--seed", "7", "--rules", "official,rounds=1",
               "--save", path).exit_code == 0
    data = json.loads(path.read_text())
    data["players"] = EVIL_NAMES
    path.write_text(json.dumps(data))
    for colour in ("--color", "--no-color"):
        result = run("replay", path, colour)
        out = result.output
        assert "\x1b" not in out and "😄" not in out and "x" * 100 not in out
        assert not any(line.startswith("Seat 1 plays") for line in out.splitlines())
        if result.exit_code == 2:  # a record format that refuses such names
            assert len(out.splitlines()) == 1 and out.startswith("error: ")
            continue
        assert result.exit_code == 0, out
        assert "A\\x1b[31mRED draws" in out and "B\\nSeat 1 plays W+4. draws" in out
        assert ":smile: [bold]big[/] draws" in out
        assert len(out) < 20_000 + 100 * len(data["actions"])


def test_a_scenario_name_cannot_forge_a_line(tmp_path: Path) -> None:
    for passed in (True, False):
        data = json.loads(json.dumps(GOOD))
        data["name"] = "evil\nPASS forged line\x1b[2K"
        if not passed:
            data["steps"][0]["expect"]["top"] = "G1\nPASS forged too"
        path = tmp_path / "evil.json"
        path.write_text(json.dumps(data))
        result = run("scenario", path)
        lines = result.output.splitlines()
        # A name of more than one line is refused, and printed on the FAIL line escaped.
        assert len(lines) == 1 and result.exit_code == 1, result.output
        assert lines[0].startswith("FAIL evil: name: "), result.output
        assert "\\nPASS forged line" in lines[0] and "\x1b" not in result.output


def test_bot_names_in_selfplay_are_printed_safely() -> None:
    result = run("selfplay", "--bots", "play\x1bfirst", "--players", "2")
    assert result.exit_code == 2 and "\x1b" not in result.output
    assert len(result.output.splitlines()) == 1


# ------------------------------------------------------------------ limits and seeds
def test_selfplay_stops_at_the_action_limit() -> None:
    result = run("selfplay", "--rules", "official,target_score=" + "9" * 30, "--seed", "1",
                 "--max-actions", "300")
    assert result.exit_code == 0, result.output
    assert "Stopped after 300 actions (--max-actions 300): the match is not over." in \
        result.output
    assert result.output.rstrip().endswith("Winner: none after 1 round") or \
        "Winner: none after" in result.output
    whole = run("selfplay", "--rules", "official,rounds=1", "--seed", "1")
    assert "Stopped" not in whole.output and "Winner: none" not in whole.output
    assert "--max-actions" in run("selfplay", "--help").output


@pytest.mark.parametrize("seed", [2**63, 2**64 - 1])
def test_selfplay_takes_every_64_bit_seed(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "match.json"
    result = run("selfplay", "--rules", "official,rounds=1", "--players", "2", "--seed",
                 str(seed), "--save", path)
    assert result.exit_code == 0, result.output
    assert f"Seed: {seed}\n" in result.output and Record.load(path).seed == seed


def test_seeds_beyond_64_bits_are_one_line_errors() -> None:
    for command in ("selfplay", "soak", "play"):
        result = run(command, "--seed", str(2**64))
        assert result.exit_code == 2, (command, result.output)
        assert result.output.count("\n") == 1 and result.output.startswith("error: ")


def test_play_takes_every_64_bit_seed() -> None:
    from unokit.tui import config_from_options

    assert config_from_options("official", 2, "playfirst", 2**64 - 1).seed == 2**64 - 1


def test_the_soak_reports_the_seeds_it_plays() -> None:
    from unokit.testing.soak import game_seed, seed_range

    result = run("soak", "--games", "3", "--seed", str(2**64 - 1), "--max-steps", "5000")
    assert "seeds 18446744073709551615, 0..1;" in result.stdout, result.output
    assert [game_seed(2**64 - 1, i) for i in range(3)] == [2**64 - 1, 0, 1]
    assert seed_range(2**64 - 2, 4) == "18446744073709551614..18446744073709551615, 0..1"
    assert seed_range(2**64 - 2, 3) == "18446744073709551614..18446744073709551615, 0"
    assert seed_range(10, 5) == "10..14"


@pytest.mark.parametrize(("args", "message"), [
    (["selfplay", "--bots", "random,random,random,random,random", "--players", "2"],
     "error: --bots: 5 bots for 2 players"),
    (["simulate", "--policy", "random,random,random,random,random", "--games", "10"],
     "error: --policy: 5 policies for 4 seats"),
    (["play", "--bots", "easy,easy,easy", "--players", "2"],
     "error: --bots: 3 bot levels for 1 opponents"),
])
def test_more_bots_than_seats_are_refused(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert result.output.splitlines() == [message]


# ------------------------------------------------------------------ consistency
def test_progress_bars_go_to_stderr() -> None:
    soak = run("soak", "--games", "2", "--max-steps", "5000")
    assert soak.exit_code == 0, soak.output
    assert "Failures: 0" in soak.stdout and "2/2" not in soak.stdout
    assert "soak" in soak.stderr and "2/2" in soak.stderr
    arena = run("arena", "--bots", "playfirst,random", "--games", "4")
    assert arena.exit_code == 0, arena.output
    assert "playfirst" in arena.stdout and "4/4" not in arena.stdout
    assert "ETA" not in arena.stdout and "4/4" in arena.stderr


@pytest.mark.parametrize("args", [
    ["soak", "--games", "0"], ["soak", "--bogus"], ["scenario"], ["nosuch"],
    ["selfplay", "--seed", "x"], ["arena"], ["replay", "--as", "one", "f.json"],
])
def test_usage_errors_are_one_line(args: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert "╭" not in result.stderr


def test_the_help_shows_no_bool_type_and_the_same_colour_default() -> None:
    for command in ([], ["replay"], ["selfplay"], ["soak"], ["arena"], ["play"],
                    ["simulate"], ["rules"], ["scenario"], ["arena-merge"]):
        result = run(*command, "--help")
        assert result.exit_code == 0, result.output
        assert "<bool>" not in result.output, command
    for command in ("replay", "selfplay"):
        assert "[default: color]" in run(command, "--help").output


def test_rules_shows_a_composed_rule_set() -> None:
    result = run("rules", "official,players=3,extra_cards={WC:4}")
    assert result.exit_code == 0, result.output
    assert "Rule set official,players=3,extra_cards={WC:4}" in result.output
    assert "│ 3 *" in result.output and "{WC:4} *" in result.output
    bad = run("rules", "official,players=99")
    assert bad.exit_code == 2 and bad.output.startswith("error: ")
    assert len(bad.output.splitlines()) == 1


def test_rules_lists_the_range_of_the_map_counts() -> None:
    from unokit.cli import MAP_COUNTS
    from unokit.engine.errors import RulesError
    from unokit.engine.rules import Rules

    low, high = MAP_COUNTS
    assert f"count {low}..{high}" in run("rules").output
    assert f"points {low}..{high}" in run("rules").output
    Rules.from_string(f"official,extra_cards={{WC:{high}}}")
    with pytest.raises(RulesError):
        Rules.from_string(f"official,extra_cards={{WC:{high + 1}}}")


def test_the_winner_line_names_the_team() -> None:
    result = run("selfplay", "--rules", "pairs,rounds=1", "--seed", "3")
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.output.splitlines() if line.startswith("Winner:")]
    names = ("Alice", "Bob", "Cara", "Dan")
    assert line in {f"Winner: {names[t]} and {names[t + 2]} (team {t}) after 1 round"
                    for t in (0, 1)}


def test_rule_values_are_formatted_by_the_rules_module() -> None:
    from unokit.engine.rules import PRESETS, format_value
    from unokit.tui.setup_screen import preset_text

    assert format_value((("WC", 4), ("WSW", 2))) == "{WC:4,WSW:2}"
    for name, changes in PRESETS.items():
        text = preset_text(name).plain
        for key, value in changes.items():
            assert f"{key} = {format_value(value)}" in text
