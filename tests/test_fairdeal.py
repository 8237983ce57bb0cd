"""Provably fair deals: the seed derivation pinned, records verified, tampering caught."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from unokit.bots import make_bot, play
from unokit.cli import app
from unokit.engine.errors import RecordError, UnoError
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.formats.fairdeal import (
    CHECKS,
    MAX_VALUE_CHARS,
    SCHEME,
    FairnessError,
    add_contribution,
    check_entropy,
    check_value,
    commitment,
    derive_seed,
    fairness_block,
    new_server_seed,
    reveal,
    verify_record,
)
from unokit.formats.record import Record

SERVER_SEED = bytes(range(32))
CONTRIBUTIONS = {0: "alice", 2: "b-2_Z"}
runner = CliRunner()


def match(server_seed: bytes, contributions: dict[int, str], *, rules: str = "official",
          revealed: bool = True) -> Record:
    """The record of a bot match dealt from the derived seed, with its fairness block."""
    preset = Rules.preset(rules) if "," not in rules else Rules.from_string(rules)
    game = Game(preset, derive_seed(server_seed, contributions))
    bots = [make_bot("normal", seat, rules=preset) for seat in range(preset.players)]
    for _ in play(game, bots):
        pass
    block = fairness_block(commitment(server_seed), contributions,
                           server_seed if revealed else None)
    return Record.from_game(game, fairness=block)


@cache
def _honest_json() -> str:
    return match(SERVER_SEED, CONTRIBUTIONS).to_json()


def honest() -> dict[str, Any]:
    """A fresh copy of one honest record, as parsed JSON."""
    data: dict[str, Any] = json.loads(_honest_json())
    return data


# ------------------------------------------------------------------ the derivation
def test_the_derivation_is_pinned() -> None:
    assert commitment(SERVER_SEED) == hashlib.sha256(SERVER_SEED).hexdigest() == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd")
    assert derive_seed(SERVER_SEED, CONTRIBUTIONS) == 9891605117212746361
    assert derive_seed(bytes(32), {}) == 9417562110784612965
    # The definition, written out independently.
    data = b"unokit-deal-v1\n" + SERVER_SEED + b"0:alice\n2:b-2_Z\n"
    expected = int.from_bytes(hashlib.sha256(data).digest()[:8], "big")
    assert derive_seed(SERVER_SEED, {2: "b-2_Z", 0: "alice"}) == expected


def test_every_input_changes_the_seed() -> None:
    base = derive_seed(SERVER_SEED, CONTRIBUTIONS)
    other = bytes([1]) + SERVER_SEED[1:]
    assert derive_seed(other, CONTRIBUTIONS) != base
    assert derive_seed(SERVER_SEED, {0: "alice", 2: "b-2_z"}) != base
    assert derive_seed(SERVER_SEED, {1: "alice", 2: "b-2_Z"}) != base
    assert derive_seed(SERVER_SEED, {0: "alice"}) != base
    assert 0 <= base < 2**64


def test_new_server_seeds_are_fresh() -> None:
    seeds = {new_server_seed() for _ in range(16)}
    assert len(seeds) == 16 and all(len(seed) == 32 for seed in seeds)


@pytest.mark.parametrize("seed", [b"", bytes(31), bytes(33), "00" * 32, None])
def test_a_server_seed_is_32_bytes(seed: Any) -> None:
    with pytest.raises(FairnessError, match="32 bytes"):
        commitment(seed)
    with pytest.raises(FairnessError, match="32 bytes"):
        derive_seed(seed, {})


# ------------------------------------------------------------------ contributions
@pytest.mark.parametrize("value", ["a", "Z", "0", "_", "-", "aZ09_-", "x" * MAX_VALUE_CHARS])
def test_valid_values(value: str) -> None:
    assert check_value(value) == value


@pytest.mark.parametrize("value", ["", "x" * (MAX_VALUE_CHARS + 1), "a b", "a:b", "a\nb",
                                   "é", "a.b", 5, None, b"ab"])
def test_invalid_values_are_refused(value: Any) -> None:
    with pytest.raises(FairnessError):
        check_value(value)
    with pytest.raises(FairnessError):
        check_entropy([(0, value)])
    with pytest.raises(FairnessError):
        derive_seed(SERVER_SEED, {0: value})


def test_check_entropy_sorts_and_refuses_a_second_value() -> None:
    assert check_entropy([(3, "c"), (0, "a")], players=4) == {0: "a", 3: "c"}
    assert list(check_entropy([(3, "c"), (0, "a")])) == [0, 3]
    assert check_entropy([]) == {}
    with pytest.raises(FairnessError, match="seat 1 has contributed already"):
        check_entropy([(1, "x"), (0, "y"), (1, "x")])


@pytest.mark.parametrize("seat", [-1, 4, True, "1", 1.0, None])
def test_check_entropy_refuses_what_is_not_a_seat(seat: Any) -> None:
    with pytest.raises(FairnessError):
        check_entropy([(seat, "x")], players=4)


@pytest.mark.parametrize("item", [(0,), (0, "a", "b"), [0, "a"], "0:a"])
def test_check_entropy_refuses_what_is_not_a_pair(item: Any) -> None:
    with pytest.raises(FairnessError, match="pair"):
        check_entropy([item])


def test_add_contribution_leaves_its_input_alone() -> None:
    first = {0: "a"}
    both = add_contribution(first, 1, "b", players=2)
    assert both == {0: "a", 1: "b"} and first == {0: "a"}
    with pytest.raises(FairnessError, match="already"):
        add_contribution(both, 1, "c")
    assert both == {0: "a", 1: "b"}
    assert issubclass(FairnessError, UnoError)


def test_fairness_block_and_reveal() -> None:
    block = fairness_block(commitment(SERVER_SEED), {2: "b", 0: "a"})
    assert block == {"scheme": SCHEME, "commitment": commitment(SERVER_SEED),
                     "contributions": {"0": "a", "2": "b"}, "server_seed": None}
    assert list(block["contributions"]) == ["0", "2"]
    shown = reveal(block, SERVER_SEED)
    assert shown["server_seed"] == SERVER_SEED.hex() and block["server_seed"] is None
    assert fairness_block(commitment(SERVER_SEED), {2: "b", 0: "a"}, SERVER_SEED) == shown
    with pytest.raises(FairnessError, match="does not match the commitment"):
        reveal(block, bytes(32))
    with pytest.raises(FairnessError, match="commitment"):
        fairness_block("AB" * 32, {})


# ------------------------------------------------------------------ verification
def test_an_honest_record_passes_every_check() -> None:
    report = verify_record(honest())
    assert report.passed, report.lines()
    assert [check.name for check in report.checks] == list(CHECKS)
    assert all(line.startswith("ok  ") for line in report.lines())
    assert all(check.reason and "\n" not in check.reason for check in report.checks)
    record = Record.from_dict(honest())
    assert Game(Rules.preset("official"), record.seed).log[:4] == Game(
        Rules.preset("official"), derive_seed(SERVER_SEED, CONTRIBUTIONS)).log[:4]
    assert verify_record(record).passed and verify_record(_honest_json()).passed


def tampered(change: str) -> dict[str, Any]:
    data = honest()
    fair = data["fairness"]
    if change == "server seed":
        fair["server_seed"] = bytes(32).hex()
    elif change == "server seed and commitment":
        fair["server_seed"] = bytes(32).hex()
        fair["commitment"] = commitment(bytes(32))
    elif change == "contribution":
        fair["contributions"]["2"] = "b-2_Y"
    elif change == "added contribution":
        fair["contributions"]["1"] = "extra"
    elif change == "dropped contribution":
        del fair["contributions"]["2"]
    elif change == "seed":
        data["seed"] += 1
    elif change == "action":
        data["actions"][5] = data["actions"][6]
    elif change == "last action":
        data["actions"].pop()
    elif change == "reveal":
        fair["server_seed"] = None
    elif change == "block":
        del data["fairness"]
    elif change == "scheme":
        fair["scheme"] = "unokit-deal-v0"
    elif change == "seat":
        fair["contributions"]["7"] = fair["contributions"].pop("2")
    elif change == "seat text":
        fair["contributions"]["02"] = fair["contributions"].pop("2")
    elif change == "value":
        fair["contributions"]["2"] = "b 2"
    else:
        raise AssertionError(change)
    return data


@pytest.mark.parametrize(("change", "failed", "reason"), [
    ("server seed", ["commitment", "seed"], "is not the commitment"),
    ("server seed and commitment", ["seed"], "is not the derived seed"),
    ("contribution", ["seed"], "is not the derived seed"),
    ("added contribution", ["seed"], "is not the derived seed"),
    ("dropped contribution", ["seed"], "is not the derived seed"),
    ("seed", ["seed", "replay"], "is not the derived seed"),
    ("action", ["replay"], "action 5"),
    ("last action", ["replay"], "events digest does not match"),
    ("reveal", ["commitment", "seed"], "the server seed is not revealed"),
    ("block", ["scheme", "contributions", "commitment", "seed"], "no fairness block"),
    ("scheme", ["scheme", "contributions", "commitment", "seed"], "unknown scheme"),
    ("seat", ["contributions", "seed"], "seat 7: there are seats 0..3"),
    ("seat text", ["contributions", "seed"], "'02' is not a seat number"),
    ("value", ["contributions", "seed"], "[0-9a-zA-Z_-]"),
])
def test_tampering_fails_the_right_checks(change: str, failed: list[str], reason: str) -> None:
    report = verify_record(tampered(change))
    assert not report.passed
    assert report.failed() == failed
    first = next(check for check in report.checks if not check.passed)
    assert reason in first.reason
    assert f"FAIL {first.name}: {first.reason}" in report.lines()


def test_a_seed_the_server_chose_fails_even_in_a_consistent_record() -> None:
    # A server that deals from a seed of its choosing and records that game honestly:
    # the record replays, but its seed is not the derived one.
    game = Game(Rules.preset("official"), 12345)
    for _ in play(game, [make_bot("normal", seat) for seat in range(4)]):
        pass
    block = fairness_block(commitment(SERVER_SEED), CONTRIBUTIONS, SERVER_SEED)
    report = verify_record(Record.from_game(game, fairness=block))
    assert report.failed() == ["seed"]
    assert "the record's seed 12345 is not the derived seed" in report.checks[3].reason


def test_the_published_commitment_and_own_values() -> None:
    record = honest()
    report = verify_record(record, published=commitment(SERVER_SEED), mine={2: "b-2_Z"})
    assert report.passed
    assert [c.name for c in report.checks][-2:] == ["published commitment",
                                                    "own contributions"]
    other = verify_record(record, published=commitment(bytes(32)), mine={1: "x", 2: "b-2_Z"})
    assert other.failed() == ["published commitment", "own contributions"]
    assert "seat 1 contributed 'x', the record has no value" in other.checks[-1].reason
    dropped = verify_record(tampered("block"), published="ab" * 32, mine={0: "alice"})
    assert dropped.failed()[-2:] == ["published commitment", "own contributions"]


def test_an_unfinished_match_verifies_once_revealed() -> None:
    game = Game(Rules.preset("official"), derive_seed(SERVER_SEED, {}))
    for _ in zip(range(10), play(game, [make_bot("normal", s) for s in range(4)]),
                 strict=False):
        pass
    block = fairness_block(commitment(SERVER_SEED), {})
    assert verify_record(Record.from_game(game, fairness=block)).failed() == [
        "commitment", "seed"]
    assert verify_record(Record.from_game(game, fairness=reveal(block, SERVER_SEED))).passed


def test_what_is_not_a_record_raises() -> None:
    with pytest.raises(RecordError):
        verify_record("{}")
    with pytest.raises(RecordError, match=r"fairness\.server_seed"):
        data = honest()
        data["fairness"]["server_seed"] = "xyz"
        verify_record(data)


@settings(max_examples=12, deadline=None)
@given(server_seed=st.binary(min_size=32, max_size=32),
       contributions=st.dictionaries(
           st.integers(0, 2),
           st.text(alphabet="0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-",
                   min_size=1, max_size=MAX_VALUE_CHARS),
           max_size=3))
def test_any_honest_match_verifies(server_seed: bytes, contributions: dict[int, str]) -> None:
    record = match(server_seed, contributions, rules="official,players=3,rounds=1")
    assert record.seed == derive_seed(server_seed, contributions)
    again = Record.from_json(record.to_json())
    assert again == record
    report = verify_record(again, published=commitment(server_seed), mine=contributions)
    assert report.passed, report.lines()


# ------------------------------------------------------------------ the record field
def test_the_record_writes_the_block_last_and_only_when_set() -> None:
    data = honest()
    assert list(data)[-1] == "fairness"
    record = Record.from_dict(data)
    assert record.fairness == data["fairness"]
    record.fairness = None
    assert "fairness" not in record.to_dict()
    # The header digest does not cover the block.
    plain = Record.from_dict(honest())
    assert plain.header_sha256 == record.header_sha256


@pytest.mark.parametrize(("change", "message"), [
    ({"fairness": None}, "fairness: expected an object, got null"),
    ({"fairness": []}, "fairness: expected an object, got a list"),
    ({"fairness": {"scheme": SCHEME}}, "fairness: no 'commitment' field"),
    ({"fairness.extra": 1}, "fairness: unknown fields: extra"),
    ({"fairness.scheme": 1}, "fairness.scheme: expected text"),
    ({"fairness.commitment": "AB" * 32}, "fairness.commitment: expected 64 lowercase hex"),
    ({"fairness.server_seed": 5}, "fairness.server_seed: expected 64 lowercase hex"),
    ({"fairness.contributions": ["a"]}, "fairness.contributions: expected an object"),
    ({"fairness.contributions": {"0": 1}}, "fairness.contributions['0']: expected text"),
    ({"format_version": 1}, "fairness: a record of format version 1 has no fairness block"),
])
def test_the_record_checks_the_block(change: dict[str, Any], message: str) -> None:
    data = honest()
    for key, value in change.items():
        if key.startswith("fairness."):
            data["fairness"][key.split(".", 1)[1]] = value
        else:
            data[key] = value
    with pytest.raises(RecordError) as info:
        Record.from_dict(data)
    assert message in str(info.value)


# ------------------------------------------------------------------ the command
def run(*args: str | Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def save(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "match.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_verify_command_passes_an_honest_record(tmp_path: Path) -> None:
    result = run("verify", save(tmp_path, honest()))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:5] == [f"ok  {name}" for name in CHECKS]
    assert lines[5].startswith("Verified: seed ") and "2 contributions" in lines[5]
    mine = run("verify", save(tmp_path, honest()), "--commitment", commitment(SERVER_SEED),
               "--contribution", "0:alice", "--contribution", "2:b-2_Z")
    assert mine.exit_code == 0, mine.output
    assert "ok  published commitment\nok  own contributions\n" in mine.output


@pytest.mark.parametrize(("change", "line"), [
    ("contribution", "FAIL seed: the record's seed "),
    ("action", "FAIL replay: action 5 "),
    ("reveal", "FAIL commitment: the server seed is not revealed"),
    ("block", "FAIL scheme: the record has no fairness block"),
])
def test_verify_command_fails_with_exit_1(tmp_path: Path, change: str, line: str) -> None:
    result = run("verify", save(tmp_path, tampered(change)))
    assert result.exit_code == 1, result.output
    assert line in result.output
    assert result.output.splitlines()[-1].startswith("Not verified: ")
    assert "Traceback" not in result.output


def test_verify_command_checks_what_the_user_saw(tmp_path: Path) -> None:
    result = run("verify", save(tmp_path, honest()), "--contribution", "2:other")
    assert result.exit_code == 1
    assert "FAIL own contributions: seat 2 contributed 'other'" in result.output


@pytest.mark.parametrize("content", ["", "{}", "[1]", '{"format": "unokit-record"}'])
def test_verify_command_broken_files_exit_2(tmp_path: Path, content: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(content)
    result = run("verify", path)
    assert result.exit_code == 2
    assert result.output.startswith("error: ") and len(result.output.splitlines()) == 1


def test_verify_command_missing_file_and_bad_option(tmp_path: Path) -> None:
    missing = run("verify", tmp_path / "nope.json")
    assert missing.exit_code == 2 and "cannot read" in missing.output
    bad = run("verify", save(tmp_path, honest()), "--contribution", "two")
    assert bad.exit_code == 2
    assert bad.output.startswith("error: --contribution 'two': expected SEAT:VALUE")
