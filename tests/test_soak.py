"""The soak (``unokit.testing.soak`` and ``unokit soak``): a short soak passes, the rule sets it
draws cover every key, runs are deterministic whatever the number of jobs, and a broken
invariant is reported with the seed and rule set that reproduce it.

Bugs the soak found keep a regression test each.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from typer.testing import CliRunner

from unokit.cli import app
from unokit.engine import actions as A
from unokit.engine.cards import parse_card
from unokit.engine.errors import IllegalActionError, RulesError
from unokit.engine.game import Game
from unokit.engine.rules import KEYS, PRESETS, Rules
from unokit.testing.invariants import check_illegal, check_privacy
from unokit.testing.soak import (
    FIRING_BURST,
    KINDS,
    Failure,
    GameResult,
    RandomPicker,
    draw_rules,
    game_seed,
    random_rule_dict,
    reproducible_text,
    run_soak,
    soak_game,
)

runner = CliRunner()


def unexpected(failures: list[Failure]) -> list[str]:
    """Every failure, as report lines (no failure is expected)."""
    return [f.line() for f in failures]


def run(*args: str) -> Any:
    return runner.invoke(app, list(args), env={"COLUMNS": "250"})


# --------------------------------------------------------------------- soaks
def test_short_soak_passes() -> None:
    report = run_soak(50, seed=20261130)
    assert report.games == 50
    assert report.actions > 1000
    assert unexpected(report.failures) == []
    assert report.ended == 50 - sum(f.kind == "did_not_end" for f in report.failures)


def test_official_soak_passes() -> None:
    report = run_soak(10, seed=7, rules="official,players=3,target_score=100")
    assert report.failures == []
    assert report.ended == 10


def test_jobs_change_nothing_but_the_time() -> None:
    seen: dict[int, list[GameResult]] = {1: [], 2: []}
    for jobs in (1, 2):
        run_soak(6, seed=99, jobs=jobs, on_result=seen[jobs].append)
    one = sorted(seen[1], key=lambda r: r.index)
    two = sorted(seen[2], key=lambda r: r.index)
    assert [r.index for r in two] == list(range(6))
    assert one == two


def test_game_seeds_follow_the_first_one() -> None:
    assert [game_seed(5, i) for i in range(3)] == [5, 6, 7]
    assert game_seed(2**64 - 1, 1) == 0
    seen: list[GameResult] = []
    run_soak(3, seed=41, on_result=seen.append)
    assert [r.seed for r in seen] == [41, 42, 43]
    # Game 2 of that soak is game 0 of a soak started at its seed.
    again = soak_game(43)
    assert (again.rules, again.actions, again.failures) == (
        seen[2].rules, seen[2].actions, seen[2].failures)


def test_a_match_over_the_step_cap_did_not_end() -> None:
    result = soak_game(3, Rules.preset("official", players=4), max_steps=5)
    assert result.failure is not None
    assert result.failure.kind == "did_not_end"
    assert result.failure.step == 5
    assert not result.ended


# ----------------------------------------------------------------- rule sets
def test_drawn_rule_sets_cover_every_key_and_value() -> None:
    rng = random.Random(3)
    drawn = [draw_rules(rng) for _ in range(600)]
    for spec in KEYS:
        values = {repr(getattr(rules, spec.name)) for rules in drawn}
        assert repr(spec.default) in values or spec.name in ("target_score", "rounds"), (
            spec.name)
        assert len(values) > 1, f"{spec.name} always {values}"
        if spec.kind in ("bool", "choice"):
            wanted = {repr(v) for v in ((False, True) if spec.kind == "bool" else spec.choices)}
            assert wanted <= values, f"{spec.name}: never {wanted - values}"
    assert {rules.preset_name for rules in drawn} == set(PRESETS)
    for rules in drawn:
        assert rules.target_score <= 200 or rules.scoring == "lazy"  # lazy: no target
        assert rules.rounds is None or rules.rounds <= 3


def test_a_launcher_that_always_fires_is_drawn_with_small_bursts() -> None:
    """With bursts of up to 6 such random matches outlast the step cap (docs/rules.md,
    "Long random matches"); smaller bursts are drawn, larger ones with other chances."""
    rng = random.Random(5)
    drawn = [draw_rules(rng) for _ in range(1500)]
    attack = [rules for rules in drawn if rules.deck == "attack"]
    firing = [rules.launcher_max_burst for rules in attack if rules.launcher_fire_chance == 1]
    assert firing and max(firing) <= FIRING_BURST
    assert max(rules.launcher_max_burst for rules in attack) > FIRING_BURST


def test_without_attack_nothing_of_section_6_is_drawn() -> None:
    pick = RandomPicker(random.Random(8))
    for _ in range(400):
        data = random_rule_dict(pick, attack=False)
        rules = Rules.from_dict(data, drop_inert=True)  # always valid without UNO Attack
        assert rules.deck != "attack" and rules.preset_name != "attack"
        assert not any(spec.name in data for spec in KEYS if spec.section >= 6)


def test_rule_sets_the_engine_refuses_are_drawn_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0
    real = Rules.from_dict

    def picky(data: Any, **options: Any) -> Rules:
        nonlocal calls
        calls += 1
        if calls < 5:
            raise RulesError({"rules": "refused for the test"})
        return real(data, **options)

    monkeypatch.setattr(Rules, "from_dict", staticmethod(picky))
    rules = draw_rules(random.Random(1))
    assert calls == 5
    assert isinstance(rules, Rules)


def test_reproducible_text_reads_back() -> None:
    rng = random.Random(12)
    for _ in range(200):
        rules = draw_rules(rng)
        assert Rules.load(reproducible_text(rules)) == rules


# ---------------------------------------------------------- broken invariants
def _corrupt_after(monkeypatch: pytest.MonkeyPatch, steps: int) -> None:
    """Make Game.apply copy a card into a hand once the history has ``steps`` actions."""
    real = Game.apply

    def apply(self: Game, action: int) -> Any:
        events = real(self, action)
        if len(self.history) == steps:
            hand = next(h for h in self.hands if h)
            hand.append(hand[0])
        return events

    monkeypatch.setattr(Game, "apply", apply)


def test_a_broken_invariant_is_reported_with_seed_and_rules(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rules = Rules.preset("official", players=3, target_score=50)
    _corrupt_after(monkeypatch, 12)
    report = run_soak(3, seed=500, rules=rules)
    assert [f.kind for f in report.failures] == ["conservation"] * 3
    first = report.failures[0]
    assert (first.seed, first.rules, first.step) == (500, rules.to_string(), 12)
    assert "duplicated" in first.message
    assert first.command() == ("unokit soak --games 1 --seed 500 --rules "
                               "official,players=3,target_score=50")
    assert first.line().startswith("FAIL conservation seed=500 rules=official,")
    # The same seed and rule set give the same failure again.
    again = soak_game(first.seed, Rules.load(first.rules))
    assert again.failures == (first,)


def test_a_broken_invariant_under_random_rules_names_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _corrupt_after(monkeypatch, 3)
    report = run_soak(4, seed=77)
    broken = [f for f in report.failures if f.kind == "conservation"]
    assert broken, [f.line() for f in report.failures]
    for failure in broken:
        rules = Rules.load(failure.rules)
        assert rules == draw_rules(random.Random(f"unokit-soak-rules:{failure.seed}"))
        assert failure.step == 3


def test_cli_reports_a_broken_invariant_and_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    _corrupt_after(monkeypatch, 7)
    result = run("soak", "--games", "2", "--seed", "10", "--rules", "official,players=2")
    assert result.exit_code == 1, result.output
    out = result.stdout
    assert "FAIL conservation seed=10 rules=official,players=2 step=7" in out
    assert "reproduce: unokit soak --games 1 --seed 10 --rules official,players=2" in out
    assert "FAIL conservation seed=11 " in out
    assert "Failures: 2 (conservation 2)" in out


def test_an_accepted_illegal_action_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Game.apply

    def lenient(self: Game, action: int) -> Any:
        try:
            return real(self, action)
        except IllegalActionError:
            return []

    game = Game(Rules.preset("official", players=3), seed=4)
    monkeypatch.setattr(Game, "apply", lenient)
    with pytest.raises(Exception) as info:
        check_illegal(game, random.Random(0))
    assert getattr(info.value, "kind", None) == "illegal_accepted"


def test_a_rejection_that_changes_the_state_is_reported(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = Game.apply

    def sloppy(self: Game, action: int) -> Any:
        if action not in self.legal_actions(action & 15 if isinstance(action, int) else 0):
            self.direction = -self.direction
        return real(self, action)

    game = Game(Rules.preset("official", players=3), seed=4)
    monkeypatch.setattr(Game, "apply", sloppy)
    with pytest.raises(Exception) as info:
        check_illegal(game, random.Random(0))
    assert getattr(info.value, "kind", None) == "illegal_changed_state"


def test_a_leaking_observation_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Game.observation

    def leaky(self: Game, seat: int) -> Any:
        return dataclasses.replace(real(self, seat), discard=tuple(self.draw_pile[-1:]))

    game = Game(Rules.preset("official", players=3), seed=4)
    monkeypatch.setattr(Game, "observation", leaky)
    with pytest.raises(Exception) as info:
        check_privacy(game, random.Random(0))
    assert getattr(info.value, "kind", None) == "privacy"
    assert "discard" in str(info.value)


def test_legal_actions_that_depend_on_hidden_cards_are_reported(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = Game.legal_actions

    def peeking(self: Game, seat: int) -> list[int]:
        acts = real(self, seat)
        if self.draw_pile and self.draw_pile[-1] % 2:
            acts = [*acts, A.say(seat)]
        return acts

    game = Game(Rules.preset("official", players=3), seed=4)
    monkeypatch.setattr(Game, "legal_actions", peeking)
    kinds = set()
    rng = random.Random(0)
    for _ in range(20):
        try:
            check_privacy(game, rng)
        except Exception as exc:
            kinds.add(getattr(exc, "kind", None))
    assert kinds == {"privacy"}


def test_a_crash_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Game.apply

    def crashing(self: Game, action: int) -> Any:
        if len(self.history) == 4:
            raise ZeroDivisionError("boom")
        return real(self, action)

    monkeypatch.setattr(Game, "apply", crashing)
    result = soak_game(1, Rules.preset("official"))
    assert result.failure is not None
    assert result.failure.kind == "crash"
    assert "ZeroDivisionError: boom" in result.failure.message
    assert result.failure.step == 4


def test_every_failure_kind_is_documented() -> None:
    import unokit.testing.soak

    doc = unokit.testing.soak.__doc__ or ""
    for kind in KINDS:
        assert f"``{kind}``" in doc or kind in doc, kind


# ------------------------------------------------------------------------ CLI
def test_cli_soak_passes() -> None:
    result = run("soak", "--games", "4", "--seed", "3", "--rules", "jump_in,players=3,rounds=1")
    assert result.exit_code == 0, result.output
    assert "Soak: 4 games (rules jump_in,players=3,rounds=1; seeds 3..6; 1 job)" in result.stdout
    assert "Failures: 0" in result.stdout


def test_cli_soak_with_jobs() -> None:
    result = run("soak", "--games", "4", "--seed", "3", "--jobs", "2", "--rules",
                 "seven_o,players=4,rounds=1")
    assert result.exit_code == 0, result.output
    assert "2 jobs" in result.stdout and "Failures: 0" in result.stdout


def test_cli_soak_refuses_a_bad_rule_set() -> None:
    result = run("soak", "--games", "1", "--rules", "official,players=12")
    assert result.exit_code == 2
    assert "players" in result.output


def test_cli_soak_help_names_the_options() -> None:
    result = run("soak", "--help")
    assert result.exit_code == 0
    for option in ("--games", "--seed", "--jobs", "--max-steps", "--rules"):
        assert option in result.output


# ----------------------------------------------------------------- open bugs
# Bugs the soak found that are fixed: their soaks must pass.
def test_choice_value_none_round_trips() -> None:
    rules = Rules.preset("stacking", draw_four_on_draw_four="none")
    assert Rules.from_string(rules.to_string()) == rules
    assert reproducible_text(rules) == rules.to_string()
    assert soak_game(1, rules).failures == ()


def test_a_launcher_that_never_fires_ends_the_round() -> None:
    rules = Rules.from_string("attack,players=3,launcher_fire_chance=0.0")
    for seed in (0, 32, 483):
        assert soak_game(seed, rules, max_steps=20_000).failures == ()


def test_refilled_wild_swap_hands_still_swaps() -> None:
    """A WSW that empties the hand at a level above 1 is refilled first, so it is not the
    last card: it names a target and the swap happens (found by the soak)."""
    rules = Rules.preset("official", players=3, hand_size=2, progressive_refill=True,
                         extra_cards={"WSW": 1, "WC": 3})
    cards = [[parse_card(c) for c in hand] for hand in (["WSW"], ["Y1", "Y2"], ["B1", "B2"])]
    game = Game.from_setup(rules, hands=cards, draw_pile=[parse_card("G1"), parse_card("G2")],
                           discard=[parse_card("R3")], current_player=0)
    assert A.parse_action("0:WSW>B") not in game.legal_actions(0)
    game.apply(A.parse_action("0:WSW>B@1"))
    assert [len(hand) for hand in game.hands] == [2, 1, 2]
    swaps = Rules.preset("official", players=3, hand_size=2, progressive_refill=True,
                         extra_cards={"WSW": 8}, rounds=3, target_score=100)
    assert [f.line() for seed in (2, 10, 13) for f in soak_game(seed, swaps).failures] == []


def test_soak_game_that_looped_now_ends() -> None:
    """Seed 1168662 of the 200,000-game soak looped forever (party rules, ``zero_rotate``,
    ``play_drawn = "must"``); the repetition rule blocks that round."""
    result = soak_game(1168662, privacy_rate=0.0, illegal_rate=0.0)
    assert result.ended and result.failure is None
    assert result.actions < 5000
