"""The fast simulator plays ``progressive_refill`` as the engine does, game by game.

A player who empties the hand at a level above 1 draws one card fewer than the level and
plays on, a level down; the round is won by emptying the hand at level 1. Small hands
make the levels few enough for short games. Each test checks that refills happen in the
games compared (the engine's ``refilled`` events), so that a kernel ignoring the rule
(ending the round at the first empty hand) fails.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

from sim_parity_kit import check_games
from unokit.engine import actions as A
from unokit.engine.cards import RANK_OF, WILD
from unokit.engine.events import EventKind
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.sim.support import check_supported, unsupported

SCALE = max(1, int(os.environ.get("UNOKIT_PARITY_GAMES", "1")))

REFILL_GAMES = [
    ("official,progressive_refill=true,hand_size=3,rounds=1", 3, "playfirst", 80),
    ("official,progressive_refill=true,hand_size=4,draw_when_playable=false,rounds=1", 2,
     "random", 40),
    ("seven_o,progressive_refill=true,hand_size=3,rounds=1", 4, "random,playfirst", 40),
    ("party,progressive_refill=true,hand_size=3,rounds=1", 3, "playfirst", 40),
    ("stacking,progressive_refill=true,hand_size=2,scoring=penalty,target_score=120", 3,
     "playfirst", 20),
    ("classic_ru,progressive_refill=true,hand_size=5,players=5,rounds=2", 5, "playfirst",
     20),
]


def _tally(rules: Rules, histories: list[list[int]], seeds: list[int]) -> Counter[str]:
    """Refills and the last cards that were not last: a 7 that swaps as the hand's last
    card (refilled first) and an UNO call's absence on it."""
    seen: Counter[str] = Counter()
    for seed, history in zip(seeds, histories, strict=True):
        game = Game(rules, seed)
        for action in history:
            player = A.action_player(action)
            last_card = (A.action_type(action) == A.PLAY and player >= 0
                         and len(game.hands[player]) == 1)
            card = A.action_card(action) if A.action_type(action) == A.PLAY else -1
            for event in game.apply(action):
                if event.kind is EventKind.REFILLED:
                    seen["refilled"] += 1
                    if last_card and card < WILD and RANK_OF[card] == 7:
                        seen["seven_refilled"] += A.action_target(action) != A.NO_TARGET
    return seen


@pytest.mark.parametrize(("text", "players", "policies", "games"), REFILL_GAMES,
                         ids=[f"refill{i}" for i in range(len(REFILL_GAMES))])
def test_refills_play_the_engine_games(text: str, players: int, policies: str,
                                       games: int) -> None:
    rules = Rules.load(text).with_(players=players)
    check_supported(rules)
    outcomes = check_games(rules, policies, 500, games * SCALE)
    sample = outcomes[:15]
    seen = _tally(rules, [o.history for o in sample], [o.seed for o in sample])
    assert seen["refilled"] >= 5
    if rules.seven_swap:  # a last 7 before a refill swaps hands
        seen_all = _tally(rules, [o.history for o in outcomes], [o.seed for o in outcomes])
        assert seen_all["seven_refilled"] > 0


def test_refill_is_for_the_simulator_not_for_components_driving_the_kernel() -> None:
    from unokit.sim.support import CORE_SUPPORT

    rules = Rules.load("official,progressive_refill=true")
    assert unsupported(rules) == {}
    assert set(unsupported(rules, CORE_SUPPORT)) == {"progressive_refill"}
