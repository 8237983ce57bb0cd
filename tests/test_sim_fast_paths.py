"""The simulator's shortcuts play the engine's games in the cases they take apart.

The kernel places only the top cards of a shuffled deck at once (the dealer draw's deck,
a new round's draw pile) and the others when they are reached; playfirst picks its way to
play a card without listing the ways; hands are swapped and rotated by their bit sets.
Each test finds games in which the engine goes through the case (the events say so) and
checks that the kernel plays those games exactly (:func:`sim_parity_kit.check_games`), so
a shortcut that went wrong there fails here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from sim_parity_kit import check_games
from unokit.engine import actions as A
from unokit.engine.cards import RANK_OF, WILD
from unokit.engine.events import EventKind
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.sim.deal import DEALER_TOP, PILE_TOP


def _setup_events(rules: Rules, seed: int) -> Counter[EventKind]:
    """The events of dealing the first round of the game with this seed."""
    return Counter(event.kind for event in Game(rules, seed).log)


def _check_each(rules: Rules, policies: str, seeds: Iterable[int]) -> int:
    checked = 0
    for seed in seeds:
        check_games(rules, policies, seed, 1)
        checked += 1
    return checked


def test_dealer_draw_past_the_cards_placed_at_once() -> None:
    """Ten players draw for the deal: often more cards than the kernel places at once,
    and ties draw again from the same deck."""
    rules = Rules.load("official,players=10,rounds=1")
    long_draws = [seed for seed in range(200)
                  if _setup_events(rules, seed)[EventKind.DEALER_DRAW] > DEALER_TOP]
    assert len(long_draws) >= 20
    assert _check_each(rules, "playfirst", long_draws[:20]) == 20


def test_start_card_put_back_into_a_partly_placed_pile() -> None:
    """Under ``first_card = "number_only"`` the start card often goes back and the pile is
    shuffled again, before the kernel has placed all of its cards."""
    rules = Rules.load("classic_ru,players=4,rounds=1")
    put_back = [seed for seed in range(120)
                if _setup_events(rules, seed)[EventKind.PUT_BACK] > 0]
    assert len(put_back) >= 20
    assert _check_each(rules, "playfirst", put_back[:20]) == 20


def test_draw_pile_reached_below_the_placed_cards_and_reshuffled() -> None:
    """Random play draws the whole pile (past the cards placed at once) and reshuffles
    the discard pile, in rounds of a match (each round's pile placed anew)."""
    rules = Rules.load("official,players=3,rounds=2")
    outcomes = check_games(rules, "random", 40, 8)
    reshuffles = 0
    for outcome in outcomes:
        game = Game(rules, outcome.seed)
        for action in outcome.history:
            reshuffles += sum(e.kind is EventKind.RESHUFFLED for e in game.apply(action))
    assert reshuffles >= 8
    assert PILE_TOP < 108 - 3 * 7


def test_playfirst_ways_of_sevens_wilds_and_uno_calls() -> None:
    """playfirst's way of playing a card: the 7's target among the other seats in both
    directions, the wild's colour (or none under the wheel), the UNO call with the
    last but one card; hands rotated both ways by 0s."""
    for text in ("seven_o,players=5,rounds=1", "seven_o,wild_color=next_in_circle,"
                 "players=4,jump_in=true,rounds=1"):
        rules = Rules.load(text)
        outcomes = check_games(rules, "playfirst", 7, 60)
        seen: Counter[str] = Counter()
        for outcome in outcomes:
            game = Game(rules, outcome.seed)
            for action in outcome.history:
                if A.action_type(action) == A.PLAY:
                    card = A.action_card(action)
                    target = A.action_target(action)
                    if card < WILD and RANK_OF[card] == 7 and target != A.NO_TARGET:
                        step = (target - A.action_player(action)) % rules.players
                        seen[f"target{step}"] += 1
                    if card >= WILD:
                        seen[f"color{A.action_color(action)}"] += 1
                    seen["uno"] += bool(action & A.UNO_FLAG)
                for event in game.apply(action):
                    if event.kind is EventKind.HANDS_ROTATED:
                        seen[f"rotated{game.direction}"] += 1
        assert all(seen[f"target{step}"] for step in range(1, rules.players))
        assert seen["uno"] > 0 and seen["rotated1"] > 0 and seen["rotated-1"] > 0
        if rules.wild_color == "next_in_circle":
            assert set(k for k in seen if k.startswith("color")) == {f"color{A.NO_COLOR_ARG}"}
        else:
            assert sum(1 for k in seen if k.startswith("color")) >= 3


def test_skipped_shuffle_steps_draw_what_the_engine_draws() -> None:
    """The steps of a shuffle whose cards are placed later advance the generator as the
    engine's ``below`` calls do: one number a step, and two where the first is rejected
    (the state before ``-GOLDEN`` makes the first number 0, which ``below(108)``
    rejects, a case the kernel takes one step at a time)."""
    import numpy as np

    from unokit.engine.rng import GOLDEN, MASK64, SplitMix64
    from unokit.sim.kernel import skip_steps

    rejecting = (-GOLDEN & MASK64, -6 * GOLDEN & MASK64)  # the 1st, the 6th number 0
    for state in (0, 1, 12345, 0xDEADBEEFCAFEF00D, *rejecting):
        rng = SplitMix64(state)
        for i in range(107, 0, -1):
            rng.below(i + 1)
        assert int(skip_steps(107, 1, np.uint64(state))) == rng.state
        drawn = ((rng.state - state) & MASK64) * pow(GOLDEN, -1, 1 << 64) & MASK64
        assert drawn == (108 if state in rejecting else 107)
