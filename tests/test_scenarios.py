"""Rule scenarios (SCENARIOS.md format): the project's own suite in tests/scenarios/, the
shared examples, a check that the suite covers every rule key and value of RULES.md
sections 1-3, the runner's handling of malformed files, and the few rule choices that a
scenario file cannot express (how the first dealer is drawn, the deal order, what a
partner sees, which out-of-turn actions are listed as legal)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unokit.engine import actions as A
from unokit.engine.cards import IS_NUMBER, RANK_OF, parse_card
from unokit.engine.events import EventKind
from unokit.engine.game import Game
from unokit.engine.rng import SplitMix64
from unokit.engine.rules import KEYS, PRESETS, Rules
from unokit.testing.scenario import build_game, run_file, run_scenario

HERE = Path(__file__).resolve().parent
OWN_DIR = HERE / "scenarios"
OWN_FILES = sorted(OWN_DIR.glob("*.json"))
PUBLIC_DIR = OWN_DIR / "public"
PUBLIC_FILES = sorted(PUBLIC_DIR.glob("*.json"))
"""The public rule scenarios of ``shared/scenarios`` (one per rule of the catalogue), kept in
the repository so that a clone with nothing beside it runs them."""
SHARED_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "scenarios"
SHARED_FILES = sorted(p.name for p in SHARED_DIR.glob("*.json")) if SHARED_DIR.is_dir() else []
"""The scenarios of ``../shared`` where it lies beside the repository (as in CI): they run
in addition to the repository's copy, new ones included."""

SECTION_KEYS = list(KEYS)


# ------------------------------------------------------------------ the scenarios
def test_own_suite_is_there() -> None:
    assert len(OWN_FILES) >= 60, f"only {len(OWN_FILES)} scenario files in {OWN_DIR}"


@pytest.mark.parametrize("path", OWN_FILES, ids=[p.stem for p in OWN_FILES])
def test_own_scenario(path: Path) -> None:
    result = run_file(path)
    assert result.passed, result.line()


def test_public_scenarios_are_there() -> None:
    assert len(PUBLIC_FILES) >= 26, f"only {len(PUBLIC_FILES)} public scenarios in {PUBLIC_DIR}"


@pytest.mark.parametrize("path", PUBLIC_FILES, ids=[p.stem for p in PUBLIC_FILES])
def test_public_scenario(path: Path) -> None:
    result = run_file(path)
    assert result.passed, result.line()


if SHARED_FILES:  # ../shared lies beside the repository: its scenarios run too
    @pytest.mark.parametrize("name", SHARED_FILES,
                             ids=[n.removesuffix(".json") for n in SHARED_FILES])
    def test_shared_scenario(name: str) -> None:
        result = run_file(SHARED_DIR / name)
        assert result.passed, result.line()

    def test_the_public_copy_is_the_shared_one() -> None:
        """Every public scenario in the repository is the file of ``../shared`` of its
        name, byte for byte (a copy that fell behind would test old rules)."""
        for path in PUBLIC_FILES:
            shared = SHARED_DIR / path.name
            assert shared.is_file(), f"{path.name}: not in {SHARED_DIR}"
            assert path.read_bytes() == shared.read_bytes(), f"{path.name} differs"


def test_scenario_names_are_unique() -> None:
    names = [json.loads(p.read_text(encoding="utf-8"))["name"] for p in OWN_FILES]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


# ------------------------------------------------------------------ coverage
def _rule_sets() -> Iterator[tuple[set[str], dict[str, Any]]]:
    """For each own scenario: the keys it sets (itself or through its preset) and its full
    rule set."""
    for path in OWN_FILES:
        data = json.loads(path.read_text(encoding="utf-8"))
        raw = dict(data.get("rules", {"preset": "official"}))
        preset = raw.get("preset", "official")
        explicit = (set(raw) | set(PRESETS[preset])) - {"preset"}
        raw.setdefault("players", len(data["setup"]["hands"]))
        yield explicit, Rules.from_dict(raw).to_dict(full=True)


def _covered() -> dict[str, list[Any]]:
    """Key -> every value some own scenario sets it to (explicitly or by its preset)."""
    out: dict[str, list[Any]] = {}
    for explicit, full in _rule_sets():
        for key in explicit:
            out.setdefault(key, []).append(full[key])
    return out


COVERED = _covered()


def _required_values() -> list[tuple[str, Any]]:
    pairs: list[tuple[str, Any]] = []
    for spec in SECTION_KEYS:
        if spec.kind == "choice":
            pairs += [(spec.name, v) for v in spec.choices]
        elif spec.kind == "bool":
            pairs += [(spec.name, True), (spec.name, False)]
    return pairs


REQUIRED_VALUES = _required_values()


@pytest.mark.parametrize("key", [spec.name for spec in SECTION_KEYS])
def test_every_key_is_set_by_some_scenario(key: str) -> None:
    assert key in COVERED, f"no scenario in {OWN_DIR} sets the rule key {key!r}"


@pytest.mark.parametrize("key, value", REQUIRED_VALUES,
                         ids=[f"{k}={v}" for k, v in REQUIRED_VALUES])
def test_every_value_is_set_by_some_scenario(key: str, value: Any) -> None:
    assert value in COVERED.get(key, []), f"no scenario in {OWN_DIR} sets {key} = {value!r}"


@pytest.mark.parametrize(
    "key", [s.name for s in SECTION_KEYS if s.kind not in ("choice", "bool")])
def test_every_number_or_map_key_has_a_non_default_value(key: str) -> None:
    default = Rules().to_dict(full=True)[key]
    values = COVERED.get(key, [])
    assert any(v != default for v in values), (
        f"no scenario sets {key} to anything but its default {default!r}")


def test_the_section_keys_are_those_of_rules_md() -> None:
    # Every key of RULES.md section 8's table, in its order.
    names = [spec.name for spec in SECTION_KEYS]
    assert names[0] == "players" and names[-1] == "launcher_max_burst"
    assert len(names) == 46


# ------------------------------------------------------------------ malformed files
_GOOD: dict[str, Any] = {
    "name": "good",
    "rules": {"preset": "official"},
    "setup": {"hands": [["R5", "G1"], ["B1", "B2"]], "discard": ["R3"], "draw_pile": ["Y1"],
              "current_player": 0},
    "steps": [{"do": {"player": 0, "play": "R5", "uno": True},
               "expect": {"current_player": 1, "top": "R5"}}],
}


_DELETE = object()


def _variant(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """``_GOOD`` with the value at ``path`` replaced (or deleted with ``_DELETE``)."""
    data: dict[str, Any] = json.loads(json.dumps(_GOOD))
    target: Any = data
    for part in path[:-1]:
        target = target[part]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


MALFORMED: list[tuple[str, Any, str]] = [
    ("top-level list", [1, 2], "must be a JSON object"),
    ("unknown top-level key", {**_GOOD, "stepz": []}, "unknown keys stepz"),
    ("unknown setup key", _variant(("setup", "handz"), [["R5"]]), "setup: unknown keys handz"),
    ("unknown step key", _variant(("steps", 0, "expekt"), {}), "unknown step keys expekt"),
    ("unknown action key", _variant(("steps", 0, "do", "plya"), "R5"), "do: unknown keys plya"),
    ("unknown expect key", _variant(("steps", 0, "expect", "topp"), "R5"),
     "expect: unknown keys topp"),
    ("unknown rule key", _variant(("rules", "jump"), True), "jump: unknown key"),
    ("unknown preset", _variant(("rules", "preset"), "officail"), "unknown preset"),
    ("impossible rule combination", _variant(("rules", "scoring"), "lazy"), "set rounds"),
    ("unknown card in a hand", _variant(("setup", "hands", 0, 0), "X9"),
     "setup.hands[0]: unknown card code 'X9'"),
    ("lower-case card code", _variant(("setup", "draw_pile", 0), "y1"),
     "setup.draw_pile: unknown card code 'y1'"),
    ("unknown card played", _variant(("steps", 0, "do", "play"), "R10"),
     "unknown card code 'R10'"),
    ("unknown card expected in a hand", _variant(("steps", 0, "expect"), {"hands": {"0": ["Q"]}}),
     "unknown card code 'Q'"),
    ("missing hands", _variant(("setup", "hands"), _DELETE),
     "hands (a list per seat) is required"),
    ("missing setup", _variant(("setup",), _DELETE), "hands (a list per seat) is required"),
    ("hand that is not a list", _variant(("setup", "hands", 1), "B1"),
     "setup.hands[1]: expected a list of card codes"),
    ("one hand only", _variant(("setup", "hands"), [["R5"]]), "players: 1 is out of range"),
    ("unknown colour", _variant(("steps", 0, "do"), {"player": 0, "play": "R5", "color": "P"}),
     "unknown colour 'P'"),
    ("seat out of range", _variant(("steps", 0, "do", "player"), 12), "expected a seat number"),
    ("action without a player", _variant(("steps", 0, "do"), {"play": "R5"}),
     "player is required"),
    ("step that is not an object", _variant(("steps", 0), "R5"), "a step must be an object"),
    ("steps not a list", _variant(("steps",), {"do": {}}), "steps: expected a list"),
    ("scores of the wrong length", _variant(("setup", "scores"), [1, 2, 3]),
     "3 scores for 2 players"),
    ("wild on top without a colour", _variant(("setup", "discard"), ["W"]),
     "the top card is a wild: give its colour"),
    ("bad direction", _variant(("setup", "direction"), "left"), "expected cw or ccw"),
]


@pytest.mark.parametrize("data, message", [(d, m) for _, d, m in MALFORMED],
                         ids=[label for label, _, _ in MALFORMED])
def test_malformed_scenario_fails_clearly(tmp_path: Path, data: Any, message: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run_file(path)
    assert not result.passed
    assert result.line().startswith("FAIL "), result.line()
    assert message in result.message, result.line()


@pytest.mark.parametrize("text, message", [
    ("{not json", "not valid JSON"),
    ('{"name": "x", "setup": {"hands": [["R5"], ["R6"]]},', "not valid JSON"),
    ("", "not valid JSON"),
])
def test_bad_json_fails_clearly(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    result = run_file(path)
    assert not result.passed and message in result.message, result.line()
    assert result.line().startswith("FAIL "), result.line()


def test_undecodable_and_missing_files_fail_clearly(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"name": "caf\xe9"}')
    assert "not valid JSON" in run_file(path).message
    missing = run_file(tmp_path / "missing.json")
    assert not missing.passed and "cannot read" in missing.message


def test_the_good_scenario_passes() -> None:
    assert run_scenario(_GOOD).line() == "PASS good"


def test_a_failing_check_names_the_step_and_the_difference() -> None:
    data = _variant(("steps", 0, "expect", "current_player"), 0)
    assert run_scenario(data).line() == (
        "FAIL good: step 1: current_player: expected 0, got 1")
    data = _variant(("steps", 0, "error"), True)
    assert run_scenario(data).line() == (
        "FAIL good: step 1: 0:R5! was accepted, but should be rejected")


# ------------------------------------------------------------------ choices a file cannot state
def _replay_dealer_draw(game: Game) -> tuple[int, bool, bool]:
    """The dealer that the DEALER_DRAW events select under the high-card rule (seats in
    order, action and wild cards drawn again, tied seats draw again), and whether a
    redraw and a tie happened."""
    draws = iter([e for e in game.log if e.kind is EventKind.DEALER_DRAW])
    contenders = list(range(game.n))
    redrawn = tied = False
    while True:
        ranks: dict[int, int] = {}
        for seat in contenders:
            while True:
                event = next(draws)
                assert event.player == seat, "the dealer draw goes in seat order"
                assert event.card is not None
                if IS_NUMBER[event.card]:
                    ranks[seat] = RANK_OF[event.card]
                    break
                redrawn = True
        best = max(ranks.values())
        contenders = [seat for seat in contenders if ranks[seat] == best]
        if len(contenders) == 1:
            assert next(draws, None) is None, "no draws after the dealer is found"
            return contenders[0], redrawn, tied
        tied = True


@pytest.mark.parametrize("players", [2, 4, 10])
def test_high_card_dealer_draw(players: int) -> None:
    rules = Rules.preset("official", players=players, dealer="high_card")
    redraws = ties = 0
    for seed in range(120):
        game = Game(rules, seed=seed)
        dealer, redrawn, tied = _replay_dealer_draw(game)
        assert game.dealer == dealer
        redraws += redrawn
        ties += tied
    assert redraws and ties


def test_seat0_and_random_dealer() -> None:
    assert {Game(Rules.preset("official", dealer="seat0"), seed=s).dealer
            for s in range(20)} == {0}
    dealers = {Game(Rules.preset("official", dealer="random"), seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}


@pytest.mark.parametrize("seed", [0, 1, 17])
def test_deal_one_card_at_a_time_from_left_of_the_dealer(seed: int) -> None:
    rules = Rules.preset("official", players=3, dealer="seat0", hand_size=5)
    game = Game(rules, seed=seed)
    pile = rules.deck_cards()
    SplitMix64(seed).shuffle(pile)
    expected: dict[int, list[int]] = {0: [], 1: [], 2: []}
    for _ in range(rules.hand_size):
        for seat in (1, 2, 0):
            expected[seat].append(pile.pop())
    dealt = {e.player: list(e.cards) for e in game.log if e.kind is EventKind.DEALT}
    assert dealt == expected


def test_a_misdeal_is_dealt_again() -> None:
    # 105 of 108 cards dealt: now and then the three left hold no number card to start with
    rules = Rules.preset("official", players=7, hand_size=15, first_card="number_only",
                         dealer="seat0")
    for seed in range(300):
        game = Game(rules, seed=seed)
        assert game.hand_sizes() == [15] * 7
        assert IS_NUMBER[game.top] and len(game.draw_pile) == 2


def _from_file(stem: str) -> Game:
    return build_game(json.loads((OWN_DIR / f"{stem}.json").read_text(encoding="utf-8")))


def test_partner_hands_visible() -> None:
    shown = _from_file("partner_hands_visible_true")
    for seat, mate in ((0, 2), (1, 3), (2, 0), (3, 1)):
        view = shown.observation(seat)
        assert view.partner_hand is not None
        assert sorted(view.partner_hand) == sorted(shown.hands[mate])
    hidden = _from_file("partner_hands_visible_false")
    assert all(hidden.observation(seat).partner_hand is None for seat in range(4))


def test_false_catches_are_listed_only_with_a_penalty() -> None:
    without = _from_file("false_catch_penalty_0")
    assert not [a for a in without.legal_actions(1) if A.describe(a).type == "catch"]
    with_penalty = _from_file("false_catch_penalty_2")
    catches = {A.describe(a).target for a in with_penalty.legal_actions(1)
               if A.describe(a).type == "catch"}
    assert catches == {0, 2}


def test_misplays_are_listed_only_with_a_penalty() -> None:
    b2 = parse_card("B2")
    assert A.play(0, b2) not in _from_file("misplay_penalty_0").legal_actions(0)
    assert A.play(0, b2) in _from_file("misplay_penalty_2").legal_actions(0)


@pytest.mark.parametrize("self_catch", [True, False])
def test_late_uno_call_is_listed_only_for_the_player_at_one_card(self_catch: bool) -> None:
    game = _from_file(f"uno_self_catch_{str(self_catch).lower()}")
    game.apply(A.play(0, parse_card("R5")))
    assert (A.call_uno(0) in game.legal_actions(0)) is self_catch
    for seat in (1, 2):
        assert A.call_uno(seat) not in game.legal_actions(seat)
        assert A.catch(seat, 0) in game.legal_actions(seat)
    assert A.catch(0, 0) not in game.legal_actions(0)


def test_challenged_hand_is_shown_to_the_challenger_only() -> None:
    game = _from_file("wild_draw_four_challenge_guilty")
    game.apply(A.play(0, parse_card("W+4"), color=3))
    events = game.apply(A.challenge(1))
    shown = [e for e in events if e.kind is EventKind.HAND_SHOWN]
    assert len(shown) == 1
    assert shown[0].target == 0 and shown[0].visible_to == (0, 1)
    assert sorted(shown[0].cards) == sorted(parse_card(c) for c in ("R2", "G5"))


def test_next_is_the_only_action_of_every_seat_between_rounds() -> None:
    game = _from_file("hand_size")
    game.apply(A.play(0, parse_card("R5")))
    assert game.phase.value == "round_over" and game.current_player is None
    assert [game.legal_actions(seat) for seat in range(3)] == [
        [A.next_round(seat)] for seat in range(3)]

