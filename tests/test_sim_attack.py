"""The fast simulator plays UNO Attack (``deck = "attack"``) as the engine does.

``test_sim_presets.py`` compares the ``attack`` preset's games at 2 to 8 players and
checks that each Attack card, Discard All, the launcher firing and not, pressed until it
fires and reloaded, happen in them. Here: the order of the hands, which the kernel keeps
only under this deck (each hand's cards in the engine's order after whole games, and
Discard Alls whose cards went on the discard pile in an order other than the sorted one
before the launcher was reloaded from it); the Attack start cards; the launcher's
threshold at its boundary; the Attack deck with the other house rules the simulator
plays, each checked to happen; and ``unokit simulate --rules attack``.
``UNOKIT_PARITY_GAMES=K`` multiplies the number of games by ``K``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest
from typer.testing import CliRunner

from sim_parity_kit import check_games
from unokit.cli import app
from unokit.engine import actions as A
from unokit.engine.cards import CODES, RANK_OF, WILD
from unokit.engine.events import EventKind
from unokit.engine.game import Game
from unokit.engine.rng import SplitMix64
from unokit.engine.rules import Rules
from unokit.engine.scoring import partner
from unokit.sim import kernel as K
from unokit.sim.policies import Outcome
from unokit.sim.runner import Simulator
from unokit.sim.support import fire_threshold

SCALE = max(1, int(os.environ.get("UNOKIT_PARITY_GAMES", "1")))
E = EventKind


def _events(rules: Rules, outcome: Outcome) -> tuple[Game, list[tuple[int, list[object]]]]:
    """The engine's game replayed: the game at its end, and each action with its events."""
    game = Game(rules, outcome.seed)
    steps: list[tuple[int, list[object]]] = []
    for action in outcome.history:
        steps.append((action, list(game.apply(action))))
    return game, steps


def _kernel_lists(sim: Simulator) -> list[list[int]]:
    """Each seat's hand in the kernel's order, from the final state."""
    g = sim.state
    hands = []
    for seat in range(sim.rules.players):
        size = int(g[K.HC + seat * K.HAND_COLS + K.SIZE])
        start = K.ORDER + int(g[K.LIST_OF + seat]) * K.PILE_CAP
        hands.append([int(c) for c in g[start:start + size]])
    return hands


@pytest.mark.parametrize(("text", "policies", "games"), [
    ("attack,players=2,rounds=1", "random", 40),
    ("attack,players=4", "playfirst", 12),
    ("attack,players=5,seven_swap=true,rounds=1", "random", 30),
    ("attack,players=3,progressive_refill=true,rounds=2", "random,playfirst", 20),
])
def test_hands_piles_and_order_end_as_the_engines(text: str, policies: str,
                                                  games: int) -> None:
    """After each game the kernel's hands hold the engine's cards in the engine's order,
    and both piles are the engine's, card for card."""
    rules = Rules.load(text)
    outcomes = check_games(rules, policies, 500, games * SCALE)
    for outcome in outcomes:
        sim = Simulator(rules, policies)
        sim.record(outcome.seed)
        game, _ = _events(rules, outcome)
        assert _kernel_lists(sim) == game.hands
        g = sim.state
        K.place_pile(g.ctypes.data)
        assert [int(c) for c in g[K.DISC:K.DISC + g[K.S_NDISC]]] == game.discard
        assert [int(c) for c in g[K.PILE:K.PILE + g[K.S_NPILE]]] == game.draw_pile


def test_discard_all_order_decides_later_presses() -> None:
    """In the games compared, Discard Alls put cards on the discard pile in the order of
    the hand, not sorted, and the launcher was later reloaded from that pile in the same
    round: the kernel kept the order that decided the presses after it."""
    rules = Rules.load("attack,players=3,rounds=1")
    outcomes = check_games(rules, "random", 2000, 150 * SCALE)
    unsorted = reloaded = 0
    for outcome in outcomes:
        waiting = False
        for _action, events in _events(rules, outcome)[1]:
            for event in events:
                if event.kind is E.DISCARDED and list(event.cards) != sorted(event.cards):
                    unsorted += 1
                    waiting = True
                elif event.kind is E.RESHUFFLED and waiting:
                    reloaded += 1
                    waiting = False
    assert unsorted >= 10 and reloaded >= 3, (unsorted, reloaded)


def test_attack_start_cards() -> None:
    """Rounds that start on a Hit 2, a Discard All, a Wild All Hit or a Wild Hit-Fire,
    and on a Trade Hands put back, are the engine's."""
    rules = Rules.load("attack,players=3,rounds=1")
    wanted = {"H2": 2, "DA": 2, "WAH": 2, "WHF": 2, "put_back": 2}
    found: dict[str, list[int]] = {key: [] for key in wanted}
    seed = 0
    while any(len(found[key]) < count for key, count in wanted.items()):
        log = Game(rules, seed).log
        start = next(e.card for e in log if e.kind is E.START_CARD)
        symbol = CODES[start] if start >= WILD else CODES[start][1:]
        if symbol in found:
            found[symbol].append(seed)
        if any(e.kind is E.PUT_BACK for e in log):
            found["put_back"].append(seed)
        seed += 1
        assert seed < 5000
    for seeds in found.values():
        for seed in seeds:
            for policies in ("playfirst", "random"):
                check_games(rules, policies, seed, 1)


@pytest.mark.parametrize("chance", [0.0, 0.3, 1 / 3, 0.1, 0.7, 1e-9, 1.0])
def test_fire_threshold_is_the_engines_comparison(chance: float) -> None:
    """``next_u64 >> 11 < fire_threshold(chance)`` exactly when the engine's
    ``random() < chance``, at the boundary and at random."""
    threshold = fire_threshold(chance)
    values = [threshold - 1, threshold, threshold + 1]
    rng = SplitMix64(17)
    values += [rng.next_u64() >> 11 for _ in range(200)]
    for m in values:
        if 0 <= m < 2**53:
            assert (m < threshold) == (m / 2**53 < chance)


def _tally(rules: Rules, outcomes: Sequence[Outcome]) -> Counter[str]:
    """What happened in the engine's games, for the variants below."""
    seen: Counter[str] = Counter()
    for outcome in outcomes:
        game = Game(rules, outcome.seed)
        for action in outcome.history:
            player = A.action_player(action)
            if A.action_type(action) == A.PLAY:
                card = A.action_card(action)
                if player != game.current and player != game.skip_from:
                    seen["jump_in"] += 1
                if player == game.skip_from and player != game.current:
                    seen["skip_passed"] += 1
                if card < WILD and RANK_OF[card] == 7 and A.action_target(action) != A.NO_TARGET:
                    seen["seven_swap"] += 1
                if card >= WILD and A.action_color(action) == A.NO_COLOR_ARG:
                    seen["wheel"] += 1
            for event in game.apply(action):
                seen[event.kind.value] += 1
                if event.kind is E.PRESSED:
                    seen[f"pressed:{event.reason}"] += 1
                    seen["fired" if event.amount else "not_fired"] += 1
                    seen["one_card_a_press"] += event.amount == event.target
                    seen["bursts"] += event.amount > event.target
    return seen


# (rules, players, policies, games, what must happen in the games)
VARIANTS = [
    ("attack", 2, "playfirst", 8, ["round_started"]),
    ("attack,seven_swap=true,seven_zero_last_card=apply,rounds=1", 4, "random", 80,
     ["seven_swap"]),
    ("attack,jump_in=true,rounds=1", 4, "random,playfirst", 80, ["jump_in"]),
    ("attack,skip_on_skip=any,rounds=1", 3, "random", 80, ["skip_passed"]),
    ("attack,teams=pairs,rounds=1", 4, "playfirst", 80, []),
    ("attack,misplay_penalty=2,rounds=1", 3, "random", 60, ["misplayed", "pressed:misplay"]),
    ("attack,uno_penalty=4,uno_self_catch=false,rounds=1", 2, "random", 80,
     ["caught", "pressed:uno_penalty"]),
    ("attack,progressive_refill=true,hand_size=4,rounds=1", 3, "playfirst", 80,
     ["refilled"]),
    ("attack,scoring=lazy,rounds=3", 3, "random", 40, []),
    ("attack,wild_color=next_in_circle,rounds=1", 3, "random", 80, ["wheel"]),
    ("attack,dealer=random,first_card=number_only,two_player_reverse_skips=false,rounds=1",
     2, "random", 80, ["reversed"]),
    ("attack,scoring=penalty,target_score=150,going_out_bonus={WAH:20},"
     "lone_zero_points=40", 3, "playfirst", 30, []),
    ("attack,launcher_fire_chance=0,rounds=1", 3, "random", 60, []),
    ("attack,launcher_fire_chance=1,launcher_max_burst=1,rounds=1", 3, "random", 60,
     ["reshuffled"]),
    ("attack,launcher_fire_chance=0.05,launcher_max_burst=20,rounds=1", 5, "random", 40,
     ["bursts"]),
]


@pytest.mark.parametrize(("text", "players", "policies", "games", "happens"), VARIANTS,
                         ids=[f"variant{i}" for i in range(len(VARIANTS))])
def test_attack_with_house_rules(text: str, players: int, policies: str, games: int,
                                 happens: list[str]) -> None:
    rules = Rules.load(text).with_(players=players)
    outcomes = check_games(rules, policies, 41, games * SCALE)
    seen = _tally(rules, outcomes[:30])
    for what in happens:
        assert seen[what] > 0, what
    if rules.launcher_fire_chance == 0:
        assert seen["fired"] == 0 and seen["not_fired"] > 0
    if rules.launcher_fire_chance == 1 and rules.launcher_max_burst == 1:
        assert seen["one_card_a_press"] > 0 and seen["bursts"] == 0
    if rules.teams == "pairs":
        for outcome in outcomes:
            assert all(outcome.scores[s] == outcome.scores[partner(rules, s)]
                       for s in range(players))
    if rules.scoring == "lazy":
        assert all(o.scores == [0] * players and o.rounds == rules.rounds for o in outcomes)
    if rules.scoring == "penalty" or rules.rounds is None:
        assert max(o.rounds for o in outcomes) > 1


def test_simulate_command_plays_attack() -> None:
    result = CliRunner().invoke(app, ["simulate", "--rules", "attack,rounds=1", "--players",
                                      "3", "--games", "300", "--policy", "playfirst"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "300" in result.output
    sim = Simulator(Rules.load("attack,players=3,rounds=1"), "playfirst")
    out, _, _ = sim.run(0, 300)
    assert np.all(out[:, 0] >= 0)
