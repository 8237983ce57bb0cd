"""Untrusted input at the edges: JSON, TOML and compact rule strings, file sizes,
observation seats, record digests, scenario messages and keys without effect."""

from __future__ import annotations

import json
import os
import typing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import unokit.arena.results as arena_results
import unokit.formats.record as record_module
import unokit.formats.state_io as state_io
import unokit.testing.scenario as scenario
from unokit.arena.results import ArenaError, read_result
from unokit.bots import PlayFirstBot, play
from unokit.cli import app
from unokit.engine.errors import (
    RecordError,
    RulesError,
    ScenarioError,
    SetupError,
    UnoError,
)
from unokit.engine.game import Game
from unokit.engine.jsontext import MAX_DEPTH, parse_json, read_limited
from unokit.engine.rules import KEYS, PRESETS, SPEC, Rules
from unokit.formats.record import Record, replay
from unokit.formats.state_io import load_state, state_from_json, state_to_json

runner = CliRunner()

DEEP = '{"a":' + "[" * 50_000 + "]" * 50_000 + "}"
HUGE = '{"target_score": ' + "9" * 5000 + "}"


def run(*args: str | Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def one_error_line(result: Any) -> str:
    """The output of a command that failed on bad input: one ``error:`` line, status 2."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


def finished_match(rules: str = "official,players=3,rounds=1", seed: int = 7) -> Game:
    game = Game(rules, seed)
    bots = [PlayFirstBot(seat) for seat in range(game.n)]
    for _ in play(game, bots):
        pass
    return game


# ------------------------------------------------------------------ JSON text
@pytest.mark.parametrize("text", [
    DEEP, "[" * 65 + "]" * 65, HUGE, "NaN", '{"a": Infinity}', b"\xff\xfe{", "{",
])
@pytest.mark.parametrize("error", [RulesError, SetupError, RecordError, ScenarioError])
def test_bad_json_raises_the_given_typed_error(text: str | bytes, error: type) -> None:
    def make(message: str) -> UnoError:
        return error({"rules": message}) if error is RulesError else error(message)

    with pytest.raises(error, match="not valid JSON"):
        parse_json(text, make)


def test_nesting_up_to_the_limit_is_fine() -> None:
    depth = MAX_DEPTH
    assert parse_json("[" * depth + "]" * depth, SetupError) is not None


@pytest.mark.parametrize("load", [
    Rules.from_json, Rules.load, lambda text: Game(text),
    state_from_json, Record.from_json,
])
def test_deep_and_huge_json_in_the_api(load: Any) -> None:
    for text in (DEEP, HUGE):
        with pytest.raises(UnoError, match="not valid JSON") as info:
            load(text)
        assert type(info.value) in (RulesError, SetupError, RecordError)


def test_from_toml_refuses_deep_and_huge_values() -> None:
    with pytest.raises(RulesError, match="not valid TOML: nested"):
        Rules.from_toml("a = " + "[" * 50_000 + "]" * 50_000)
    with pytest.raises(RulesError, match="4300 digits"):
        Rules.from_toml("target_score = " + "9" * 5000)
    with pytest.raises(RulesError, match="nested more than"):
        Rules.from_toml("a = " + "[" * 100 + "]" * 100)


@pytest.mark.parametrize("call", [
    lambda: Rules.load(None),  # type: ignore[arg-type]
    lambda: Rules.load(3.5),  # type: ignore[arg-type]
    lambda: Game(None),  # type: ignore[arg-type]
    lambda: Rules.from_dict({1: 2, "players": 3}),
    lambda: Rules.from_json(None),  # type: ignore[arg-type]
    lambda: Rules.from_toml(None),  # type: ignore[arg-type]
    lambda: Rules.from_toml(b"players = 3"),  # type: ignore[arg-type]
    lambda: Rules.from_string(None),  # type: ignore[arg-type]
    lambda: Rules.from_dict({"extra_cards": (1, 2)}),
    lambda: Rules.from_dict({"launcher_fire_chance": 10**400, "deck": "attack"}),
    lambda: Rules.from_dict({"jump_in": json.loads("[" * 60 + "]" * 60)}),
    lambda: Rules.from_dict({"preset": ["official"]}),
])
def test_type_misuse_raises_rules_error(call: Any) -> None:
    with pytest.raises(RulesError) as info:
        call()
    assert len(str(info.value)) < 300


def test_non_string_keys_are_named() -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_dict({1: 2, "players": 3})
    assert info.value.keys == ("1",)


@pytest.mark.parametrize("command", ["selfplay", "soak", "play"])
@pytest.mark.parametrize("text", [DEEP, HUGE])
def test_cli_rules_json_errors_are_one_line(command: str, text: str) -> None:
    line = one_error_line(run(command, "--rules", text))
    assert "not valid JSON" in line


def test_arena_merge_refuses_a_deep_part(tmp_path: Path) -> None:
    part = tmp_path / "part.json"
    part.write_text(DEEP)
    line = one_error_line(run("arena-merge", part, part))
    assert "nested more than" in line


# ------------------------------------------------------------------ file sizes
def test_read_limited_reads_at_most_one_byte_past_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 11)
    assert read_limited(path, SetupError, 11) == b"x" * 11
    with pytest.raises(SetupError, match=r"f: larger than 10 bytes"):
        read_limited(path, SetupError, 10)
    with pytest.raises(SetupError, match="a folder"):
        read_limited(tmp_path, SetupError)


def test_record_over_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "match.json"
    Record.from_game(finished_match()).save(path)
    assert Record.load(path)
    monkeypatch.setattr(record_module, "MAX_RECORD_BYTES", 100)
    with pytest.raises(RecordError, match=r"match.json: larger than 100 bytes$"):
        Record.load(path)
    line = one_error_line(run("replay", path))
    assert line == f"error: {path}: larger than 100 bytes"


def test_scenario_and_state_over_the_limit(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state.json"
    state.write_text(state_to_json(Game("official", 3)))
    assert load_state(state) == Game("official", 3)
    monkeypatch.setattr(state_io, "MAX_STATE_BYTES", 100)
    with pytest.raises(SetupError, match="larger than 100 bytes"):
        load_state(state)
    file = tmp_path / "s.json"
    file.write_text(json.dumps({"name": "s", "setup": {"hands": [["R1"], ["R2"]]}}))
    monkeypatch.setattr(scenario, "MAX_SCENARIO_BYTES", 10)
    assert scenario.run_file(file).line() == f"FAIL {file}: larger than 10 bytes"


def test_arena_file_over_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.json"
    path.write_text("{}")
    monkeypatch.setattr(arena_results, "MAX_FILE_BYTES", 1)
    with pytest.raises(ArenaError, match="larger than 1 bytes"):
        read_result(path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_is_refused_unread() -> None:
    with pytest.raises(RecordError, match="larger than 64 MB"):
        Record.load("/dev/zero")
    assert one_error_line(run("replay", "/dev/zero")) == "error: /dev/zero: larger than 64 MB"
    assert scenario.run_file("/dev/zero").line() == "FAIL /dev/zero: larger than 64 MB"
    with pytest.raises(SetupError, match="larger than 64 MB"):
        load_state("/dev/zero")


# ------------------------------------------------------------------ observation seats
def test_observation_of_none_is_the_spectators_view() -> None:
    game = Game("official", 3)
    view = game.observation(None)
    assert view == game.observation(-1)
    assert view.hand == () and view.partner_hand is None


@pytest.mark.parametrize("seat", ["0", 1.0, True, [0]])
def test_observation_of_a_non_seat_is_a_typed_error(seat: Any) -> None:
    with pytest.raises(UnoError, match="expected a seat number or None"):
        Game("official", 3).observation(seat)


def test_observation_takes_numpy_integers() -> None:
    np = pytest.importorskip("numpy")
    game = Game("official", 3)
    assert game.observation(np.int64(1)) == game.observation(1)


# ------------------------------------------------------------------ record digests
def test_a_rule_that_never_acted_cannot_be_changed(tmp_path: Path) -> None:
    game = finished_match()
    data = Record.from_game(game).to_dict()
    assert game.rules.uno_penalty == 2
    data["rules"]["uno_penalty"] = 4
    with pytest.raises(RecordError, match="the header digest does not match"):
        replay(data)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    line = one_error_line(run("replay", path))
    assert "header digest does not match" in line
    # Also when the writer's version is changed with it.
    data["engine_version"] = "9.9.9"
    with pytest.raises(RecordError, match=r"were changed after it was written, or unokit "
                                          r"9\.9\.9"):
        replay(data)


@pytest.mark.parametrize("change", [
    {"seed": 8}, {"players": ["A", "B", "D"]},
    {"rules": {"preset": "official", "players": 3, "rounds": 1, "misplay_penalty": 1}},
])
def test_the_header_digest_covers_seed_players_and_rules(change: dict[str, Any]) -> None:
    data = Record.from_game(finished_match(), players=["A", "B", "C"]).to_dict()
    data.update(change)
    with pytest.raises(RecordError, match="header digest"):
        replay(data)


def test_an_equivalent_spelling_of_the_rules_replays() -> None:
    game = finished_match()
    data = Record.from_game(game).to_dict()
    data["rules"] = {"preset": "official", "players": 3, "rounds": 1, "uno_penalty": 2}
    assert replay(data) == game


def version_1(data: dict[str, Any]) -> dict[str, Any]:
    old = {k: v for k, v in data.items() if k != "header_sha256"}
    old["format_version"] = 1
    return old


def test_version_1_records_still_replay(tmp_path: Path) -> None:
    game = finished_match()
    old = version_1(Record.from_game(game).to_dict())
    assert replay(old) == game
    assert Record.from_dict(old).to_dict() == old  # written back as version 1
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    assert run("replay", path).exit_code == 0
    # Version 1 digests cover the events only, as they always did.
    old["rules"]["uno_penalty"] = 4
    assert replay(old).rules.uno_penalty == 4
    with pytest.raises(RecordError, match="unknown record fields: header_sha256"):
        replay({**old, "header_sha256": "0" * 64})


def test_version_1_records_with_keys_without_effect_replay() -> None:
    game = finished_match()
    old = version_1(Record.from_game(game).to_dict())
    old["rules"]["silence_penalty"] = 5  # no silence: it never acted
    replayed = replay(old)
    assert replayed.rules == game.rules
    assert replayed == game


# ------------------------------------------------------------------ compact strings
@pytest.mark.parametrize(("text", "message"), [
    ("official,target_score=0", "target_score: 0 is out of range 1..$"),
    ("official,rounds=-1", "rounds: -1 is out of range 1..$"),
    ("official,target_score=" + "9" * 5000,
     "target_score: a 5000-digit number is out of range 1..$"),
    ("official,players=" + "9" * 5000, "players: a 5000-digit number is out of range 2..10"),
    ("official,players=" + "9" * 100, "players: a 100-digit number is out of range 2..10"),
    ("official,jumpin=true", "jumpin: unknown key; did you mean jump_in\\? "
                             "\\(unokit rules lists every key\\)"),
    ("official,zzz=1", "zzz: unknown key \\(unokit rules lists every key\\)"),
    ("offical", "unknown preset 'offical'; did you mean official\\?"),
    ("=3", "=3: expected key=value: the key is missing"),
    ("players=3,official", "official: a preset name comes first: official,players=3"),
    ("", "no rules given"),
    ("  ", "no rules given"),
    (",", "no rules given"),
    ("official,,players=3", "an empty item"),
    ("official,players=3,", "an empty item"),
    ("official,players=\u0663", "'\u0663' is not a number here: write numbers with the "
                                 "digits 0-9"),  # Arabic-Indic 3
    ("official,players=\uff13", "'\uff13' is not a number here"),  # full-width 3
    ("official,target_score=1_000", "'1_000' is not a number here"),
    ("attack,launcher_fire_chance=0_5", "'0_5' is not a number here"),
    ("attack,launcher_fire_chance=nan", "expected a number, got 'nan'"),
    ("official,extra_cards=WC", "got 'WC' \\(a map is written \\{WC:4,WSW:1\\}\\)"),
    ("official,extra_cards={WC}", "expected CODE:count items in the map"),
    ("official,extra_cards={XX:1}", "unknown card code 'XX' \\(a map is written"),
    ("official,extra_cards={WC:" + "9" * 5000 + "}",
     "WC: expected a whole number 0..1000, got a 5000-digit number"),
])
def test_compact_string_messages(text: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules.from_string(text)


def test_json_style_maps_in_a_compact_string() -> None:
    assert Rules.from_string('official,extra_cards={"WC":4}').extra_cards == (("WC", 4),)
    assert Rules.from_string("official,extra_cards={'WC':4, WSW:1}").extra_cards_dict() == {
        "WC": 4, "WSW": 1}
    assert Rules.from_string("official,extra_cards={}").extra_cards == ()


def test_ascii_numbers_still_read() -> None:
    rules = Rules.from_string("attack,players=+3,target_score=1000,launcher_fire_chance=.5")
    assert (rules.players, rules.target_score, rules.launcher_fire_chance) == (3, 1000, 0.5)
    assert Rules.from_string("attack,launcher_fire_chance=1e-1").launcher_fire_chance == 0.1


@pytest.mark.parametrize("text", ["=3", "players=3,official", "", ",",
                                  "official,jumpin=true"])
def test_cli_compact_string_errors(text: str) -> None:
    one_error_line(run("selfplay", "--rules", text))


# ------------------------------------------------------------------ scenario messages
def scenario_line(tmp_path: Path, data: Any, stem: str = "x") -> str:
    path = tmp_path / f"{stem}.json"
    path.write_text(json.dumps(data))
    return scenario.run_file(path).line()


GOOD_SETUP = {"hands": [["R5", "G1"], ["B1", "B2"]], "discard": ["R3"], "draw_pile": ["Y1"],
              "current_player": 0}


def test_setup_messages_are_not_doubled(tmp_path: Path) -> None:
    line = scenario_line(tmp_path, {"name": "x", "setup": {}})
    assert line == "FAIL x: setup: hands (a list per seat) is required"
    line = scenario_line(tmp_path, {"name": "x", "rules": {"colour": 1}, "setup": GOOD_SETUP})
    assert line.startswith("FAIL x: rules: invalid rule set: colour: unknown key")
    assert "setup: setup" not in scenario_line(
        tmp_path, {"name": "x", "setup": {**GOOD_SETUP, "current_player": 5}})


def test_action_messages_show_the_step_not_an_integer(tmp_path: Path) -> None:
    data = {"name": "x", "setup": GOOD_SETUP,
            "steps": [{"do": {"player": 0, "play": "R5", "color": "B"}}]}
    line = scenario_line(tmp_path, data)
    assert line == ('FAIL x: step 1: the action was rejected: {"player":0,"play":"R5",'
                    '"color":"B"}: only a wild takes a colour')


def test_a_runner_crash_is_reported_under_the_scenario_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(data: Any) -> Game:
        raise RuntimeError("boom\nPASS forged")

    monkeypatch.setattr(scenario, "build_game", crash)
    line = scenario_line(tmp_path, {"name": "named", "setup": GOOD_SETUP}, stem="file")
    assert line == "FAIL named: the scenario runner crashed: RuntimeError: boom PASS forged"


def test_deep_scenario_json_is_one_fail_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    assert scenario.run_file(path).line() == (
        f"FAIL {path}: not valid JSON: nested more than 64 levels deep")


@pytest.mark.parametrize(("changes", "message"), [
    ({"setup": {**GOOD_SETUP, "scores": [True, False]}},
     "FAIL x: setup.scores: expected a list of integers"),
    ({"name": {"a": 1}}, "FAIL x: name: expected text, got {'a': 1}"),
    ({"name": 7}, "FAIL x: name: expected text, got 7"),
    ({"name": "two\nlines"}, "FAIL x: name: expected one line"),
    ({"name": ""}, "FAIL x: name: expected one line"),
    ({"name": "n" * 1001}, "FAIL x: name: expected one line"),
])
def test_malformed_names_and_scores(tmp_path: Path, changes: dict[str, Any],
                                    message: str) -> None:
    data = {"name": "x", "setup": GOOD_SETUP, **changes}
    assert scenario_line(tmp_path, data).startswith(message)


# ------------------------------------------------------------------ keys without effect
@pytest.mark.parametrize(("data", "keys"), [
    ({"blank_card_effect": "draw_ten"}, ("blank_card_effect", "extra_cards")),
    ({"blank_card_effect": "transparent"}, ("blank_card_effect", "extra_cards")),
    ({"seven_zero_last_card": "apply"}, ("seven_zero_last_card", "seven_swap", "zero_rotate")),
    ({"deck": "attack", "zero_rotate": True, "seven_zero_last_card": "apply"},
     ("zero_rotate", "deck", "seven_zero_last_card", "seven_swap")),
    ({"silence_penalty": 3}, ("silence_penalty", "silence")),
    ({"launcher_fire_chance": 0.5}, ("launcher_fire_chance", "deck")),
    ({"launcher_max_burst": 3}, ("launcher_max_burst", "deck")),
    ({"wild_draw_four": "free", "challenge_guilty_draw": 2},
     ("challenge_guilty_draw", "wild_draw_four")),
    ({"wild_draw_four": "strict", "challenge_guilty_takes_back": True},
     ("challenge_guilty_takes_back", "wild_draw_four")),
    ({"deck": "attack", "wild_draw_four": "free"}, ("wild_draw_four", "deck")),
    ({"deck": "attack", "challenge_innocent_draw": 2}, ("challenge_innocent_draw", "deck")),
    ({"deck": "attack", "zero_rotate": True}, ("zero_rotate", "deck")),
    ({"scoring": "penalty", "going_out_bonus": {"WC": 10}}, ("going_out_bonus", "deck")),
    ({"scoring": "lazy", "rounds": 2, "target_score": 100}, ("target_score", "scoring")),
    ({"partner_hands_visible": True}, ("partner_hands_visible", "teams")),
    ({"deck": "attack", "draw": "until_playable"}, ("deck", "draw")),
])
def test_keys_without_effect_are_refused(data: dict[str, Any], keys: tuple[str, ...]) -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_dict(data)
    assert set(info.value.keys) == set(keys)
    dropped = Rules.from_dict(data, drop_inert=True)
    assert dropped.inert_keys() == {}


@pytest.mark.parametrize("data", [
    {"extra_cards": {"WC": 1}, "blank_card_effect": "draw_ten"},
    {"zero_rotate": True, "seven_zero_last_card": "apply"},
    {"deck": "attack", "seven_swap": True, "seven_zero_last_card": "apply"},
    {"silence": "wilds", "silence_penalty": 0},
    {"deck": "attack", "launcher_fire_chance": 1.0, "launcher_max_burst": 1},
    {"wild_draw_four": "challenge", "challenge_guilty_draw": 0},
    {"scoring": "penalty", "going_out_bonus": {"WC": 10}, "extra_cards": {"WC": 1}},
    {"deck": "h2o", "scoring": "elimination", "going_out_bonus": {"WD1": 5}},
    {"scoring": "lazy", "rounds": 2},
    {"players": 5, "two_player_reverse_skips": False},
    {"silence_penalty": 2, "launcher_max_burst": 6},  # defaults are never refused
])
def test_keys_with_effect_are_accepted(data: dict[str, Any]) -> None:
    assert Rules.from_dict(data).inert_keys() == {}


@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_hold_no_key_without_effect(name: str) -> None:
    assert Rules.preset(name).inert_keys() == {}


# ------------------------------------------------------------------ typed choices
def test_choice_aliases_equal_the_spec() -> None:
    hints = typing.get_type_hints(Rules)
    for spec in KEYS:
        if spec.kind != "choice":
            continue
        alias = hints[spec.name]
        assert typing.get_origin(alias) is typing.Literal, spec.name
        assert typing.get_args(alias) == SPEC[spec.name].choices, spec.name
