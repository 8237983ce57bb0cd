"""The checking kit (``unokit.testing``): it passes on the engine, and each of its
invariants fails on a game broken on purpose, so the checks can fail.

Each broken game is a subclass of ``Game`` (``__slots__ = ()``, so that the kit's copies
keep the class) that breaks one promise: it loses a card, leaves the player to act
without an action, lists an action twice or one the rules refuse, accepts an illegal
action, changes the state while refusing one, refuses with the wrong error, shows a
hidden card, lets hidden cards decide its legal actions, deals differently each time it
is made, or forgets its history.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from pathlib import Path
from typing import Any

import pytest

import unokit.testing
import unokit.testing.soak
from unokit.engine import actions as A
from unokit.engine.errors import IllegalActionError
from unokit.engine.events import Event
from unokit.engine.game import Game
from unokit.engine.observation import Observation
from unokit.testing import (
    INVARIANTS,
    InvariantError,
    check_conservation,
    check_game,
    check_illegal,
    check_legal,
    check_privacy,
    check_replay,
    check_state,
    check_step,
    draw_rules,
    invariants,
    run_scenarios,
    soak_action,
)
from unokit.testing.actors import any_seat, random_action, random_playout

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
RULES = "official,players=3,target_score=60"


def kind_of(make: Any, **options: Any) -> str:
    """The kind of invariant that ``check_game`` finds broken (it must find one)."""
    with pytest.raises(InvariantError) as info:
        check_game(make, **options)
    return info.value.kind


# --------------------------------------------------------- the engine passes
@pytest.mark.parametrize("seed", range(4))
def test_check_game_passes_on_random_rule_sets(seed: int) -> None:
    rules = draw_rules(random.Random(f"kit:{seed}"))
    check = check_game(lambda: Game(rules, seed), seed=seed, steps=250)
    assert check.actions == len(check.game.history) > 0


def test_check_game_plays_a_match_to_its_end() -> None:
    check = check_game(lambda: Game(RULES, 11), seed=11)
    assert check.ended and check.game.is_over()
    assert check.actions == len(check.game.history) > 20


def test_check_game_checks_a_game_from_where_it_stands() -> None:
    game = Game(RULES, 3)
    rng = random.Random(1)
    for _ in range(10):
        game.apply(soak_action(game, invariants.all_legal(game), rng))
    check = check_game(game, steps=30, actor=any_seat, seed=2)
    assert check.game is game and len(game.history) == 40


def test_an_honest_subclass_passes() -> None:
    class Honest(Game):
        __slots__ = ()

    check = check_game(lambda: Honest(RULES, 5), seed=5, steps=200)
    assert type(check.game) is Honest


def test_a_match_that_does_not_end_is_reported() -> None:
    assert kind_of(lambda: Game(RULES, 1), max_steps=5) == "did_not_end"


def test_the_scenarios_pass() -> None:
    results = run_scenarios(SCENARIOS)
    assert len(results) == len(list(SCENARIOS.rglob("*.json"))) >= 60
    assert [r.line() for r in results if not r.passed] == []


def test_a_failing_scenario_is_a_result(tmp_path: Path) -> None:
    (tmp_path / "wrong.json").write_text(
        '{"name": "wrong", "setup": {"hands": [["R5"], ["B1"]], "discard": ["R3"],'
        ' "current_player": 0}, "steps": [{"do": {"player": 0, "play": "R5"},'
        ' "expect": {"current_player": 0}}]}', encoding="utf-8")
    (result,) = run_scenarios(tmp_path)
    assert not result.passed and "current_player" in result.message


def test_the_actors_play_matches_to_the_end() -> None:
    assert random_playout(RULES, 2, 2, actor=any_seat).is_over()
    assert random_playout(RULES, 2, 2).is_over()
    game = Game(RULES, 2)
    action = random_action(game, random.Random(0))
    assert action in game.legal_actions(A.action_player(action))


# ------------------------------------------------------- broken on purpose
class Strict(Game):
    """Apply refuses what the engine itself refuses, whatever ``legal_actions`` says
    (so that a broken list of legal actions cannot make the engine act on nonsense)."""

    __slots__ = ()

    def apply(self, action: int) -> list[Event]:
        if (type(action) is int and A.is_valid_encoding(action)
                and action not in Game.legal_actions(self, action & 15)):
            raise IllegalActionError(A.format_action(action), "refused by the engine")
        return super().apply(action)


class LosesACard(Strict):
    __slots__ = ()

    def apply(self, action: int) -> list[Event]:
        events = super().apply(action)
        if len(self.history) == 3 and self.draw_pile:
            self.draw_pile.pop()
        return events


class NoActionForTheCurrentPlayer(Strict):
    __slots__ = ()

    def legal_actions(self, player: int) -> list[int]:
        if len(self.history) >= 3 and player == self.current_player:
            return []
        return super().legal_actions(player)


class ListsTwice(Strict):
    __slots__ = ()

    def legal_actions(self, player: int) -> list[int]:
        acts = super().legal_actions(player)
        return acts + acts[:1]


class OffersAChallengeInPlay(Strict):
    """Lists a challenge for every seat, which the rules refuse outside a challenge."""

    __slots__ = ()

    def legal_actions(self, player: int) -> list[int]:
        acts = super().legal_actions(player)
        if self.phase.value == "play" and A.challenge(player) not in acts:
            acts = [*acts, A.challenge(player)]
        return acts


class AcceptsIllegal(Game):
    __slots__ = ()

    def apply(self, action: int) -> list[Event]:
        try:
            return super().apply(action)
        except IllegalActionError:
            return []


class ChangesWhileRefusing(Game):
    __slots__ = ()

    def apply(self, action: int) -> list[Event]:
        if not (type(action) is int and self.is_legal(action)):
            self.direction = -self.direction
        return super().apply(action)


class WrongError(Game):
    __slots__ = ()

    def apply(self, action: int) -> list[Event]:
        try:
            return super().apply(action)
        except IllegalActionError as exc:
            raise RuntimeError(str(exc)) from None


class ShowsTheNextHand(Game):
    __slots__ = ()

    def observation(self, seat: int) -> Observation:
        view = super().observation(seat)
        return dataclasses.replace(view, partner_hand=tuple(self.hands[(seat + 1) % self.n]))


class PeeksAtTheDrawPile(Strict):
    """A seat may speak when the top card of the draw pile is odd."""

    __slots__ = ()

    def legal_actions(self, player: int) -> list[int]:
        acts = super().legal_actions(player)
        if self.draw_pile and self.draw_pile[-1] % 2 and player != self.current_player:
            acts = [*acts, A.say(player)]
        return acts


_made = itertools.count()


class DealsDifferently(Game):
    """Each game made turns its draw pile by one more card than the last."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        turn = next(_made) % max(1, len(self.draw_pile) - 1) + 1
        self.draw_pile[:] = self.draw_pile[turn:] + self.draw_pile[:turn]
        self.restore(self)


class ForgetsItsHistory(Game):
    __slots__ = ()

    def apply(self, action: int) -> list[Event]:
        events = super().apply(action)
        if len(self.history) == 5:
            self.history.pop(0)
        return events


BROKEN = [
    (LosesACard, "conservation"),
    (NoActionForTheCurrentPlayer, "no_legal_action"),
    (ListsTwice, "legal_malformed"),
    (OffersAChallengeInPlay, "legal_rejected"),
    (AcceptsIllegal, "illegal_accepted"),
    (ChangesWhileRefusing, "illegal_changed_state"),
    (WrongError, "illegal_wrong_error"),
    (ShowsTheNextHand, "privacy"),
    (PeeksAtTheDrawPile, "privacy"),
    (DealsDifferently, "replay"),
    (ForgetsItsHistory, "replay"),
]


@pytest.mark.parametrize(("broken", "kind"), BROKEN, ids=lambda x: getattr(x, "__name__", x))
def test_check_game_finds_the_broken_invariant(broken: type[Game], kind: str) -> None:
    assert kind_of(lambda: broken(RULES, 4), seed=4, steps=200) == kind


def test_every_invariant_is_shown_to_fail() -> None:
    assert {kind for _, kind in BROKEN} == set(INVARIANTS)


def test_the_single_checks_fail_on_broken_games() -> None:
    rng = random.Random(0)
    game = Game(RULES, 4)
    deck = sorted(game.deck)
    game.hands[1].append(game.draw_pile.pop())
    check_conservation(game, deck)  # a card moved, none lost
    game.discard.pop()
    with pytest.raises(InvariantError, match="cards lost"):
        check_conservation(game, deck)

    game = Game(RULES, 4)
    with pytest.raises(InvariantError, match="no legal action"):
        check_legal(game, {})

    with pytest.raises(InvariantError) as info:
        check_illegal(AcceptsIllegal(RULES, 4), rng)
    assert info.value.kind == "illegal_accepted"

    leaky = ShowsTheNextHand(RULES, 4)
    with pytest.raises(InvariantError, match="partner_hand"):
        check_privacy(leaky, rng, seat=0)

    game = Game(RULES, 4)
    seat = game.current_player
    assert seat is not None
    with pytest.raises(InvariantError) as info:
        check_step(game, A.challenge(seat), sorted(game.deck))
    assert info.value.kind == "legal_rejected"

    game = DealsDifferently(RULES, 4)
    actions = [soak_action(game, invariants.all_legal(game), rng)]
    game.apply(actions[0])
    with pytest.raises(InvariantError) as info:
        check_replay(game, actions)
    assert info.value.kind == "replay"


def test_check_state_on_an_honest_game_says_nothing() -> None:
    game = Game(RULES, 6)
    legal = check_state(game, sorted(game.deck), random.Random(0))
    assert legal == invariants.all_legal(game)


# --------------------------------------------------------------- the names
def test_the_old_names_still_work() -> None:
    assert unokit.testing.soak.check_illegal is invariants.check_illegal
    assert unokit.testing.soak.permuted is invariants.permuted
    assert unokit.testing.soak.pick_action is soak_action
    assert set(unokit.testing.__all__) <= set(dir(unokit.testing))
