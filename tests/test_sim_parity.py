"""The fast simulator plays the engine's games: same deal, actions, winner and points.

For each rule set and policy, games with consecutive seeds are played twice: by the
compiled kernel (:class:`unokit.sim.runner.Simulator`) and by the engine driven by the
reference policies (:func:`unokit.sim.policies.play_reference`). They must agree on the
winner, the final scores, the number of actions, plays, draws and turns, the rounds, the
blocked rounds, the first dealer and first player, and the digest of the whole action
sequence. ``UNOKIT_PARITY_GAMES=K`` multiplies the number of games by ``K``.
"""

from __future__ import annotations

import os

import pytest

from sim_parity_kit import check_games
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.sim.policies import play_reference, policy_seed
from unokit.sim.runner import COLUMNS, Simulator

SCALE = max(1, int(os.environ.get("UNOKIT_PARITY_GAMES", "1")))

# (rule set, [(players, games with playfirst, games with random), ...]). Random play
# under draw = "until_playable" makes very long games (hands grow to most of the deck).
CASES = [
    ("official,rounds=1", [(2, 500, 40), (3, 400, 20), (4, 400, 20), (7, 400, 10),
                           (10, 300, 10)]),
    ("classic_ru,rounds=1", [(2, 500, 150), (3, 400, 100), (4, 400, 100), (6, 400, 50),
                             (10, 300, 30)]),
    ("stacking,rounds=1", [(2, 500, 40), (3, 400, 20), (4, 400, 20), (5, 400, 10),
                           (8, 300, 10)]),
    ("seven_o,rounds=1", [(2, 500, 40), (3, 400, 20), (4, 400, 20), (5, 400, 10),
                          (9, 300, 10)]),
    ("official,draw=until_playable,rounds=1", [(2, 500, 2), (3, 400, 2), (4, 400, 4),
                                               (6, 400, 6), (10, 300, 10)]),
]

VARIANTS = [
    # Matches: standard scoring to 500; penalty scoring with bonus and lone zeros.
    ("official", 2, "playfirst", 15),
    ("official,target_score=200", 4, "random", 3),
    ("official,scoring=penalty,target_score=150,going_out_bonus={W+4:50},"
     "lone_zero_points=50", 3, "playfirst", 30),
    # The other values of the keys the simulator plays.
    ("official,wild_draw_four=strict,play_drawn=must,dealer=random,rounds=1", 3, "random", 40),
    ("official,wild_draw_four=free,play_drawn=never,draw_when_playable=false,"
     "two_player_reverse_skips=false,dealer=seat0,rounds=1", 2, "random", 40),
    ("official,reverse_deflects_draw=true,draw_four_on_draw_two=stack,"
     "draw_two_on_draw_four=stack,skip_on_skip=any,rounds=1", 3, "random", 60),
    ("seven_o,seven_zero_last_card=apply,uno_self_catch=false,uno_penalty=4,"
     "challenge_guilty_takes_back=true,challenge_guilty_draw=2,challenge_innocent_draw=3,"
     "rounds=2", 4, "random", 15),
    ("classic_ru,draw=until_playable,hand_size=15,first_card=number_only,rounds=1", 7,
     "playfirst", 60),
    ("stacking,draw_two_on_draw_four=deflect,hand_size=3,rounds=1", 6, "random,playfirst", 80),
]


def _check(rules: Rules, policies: str, first_seed: int, count: int) -> int:
    """Compare ``count`` games (see :func:`sim_parity_kit.check_games`)."""
    check_games(rules, policies, first_seed, count)
    return count


@pytest.mark.parametrize(("text", "plan"), CASES,
                         ids=[case[0].split(",")[0] + ("+until_playable" if "until" in case[0]
                                                       else "") for case in CASES])
def test_presets_play_the_engine_games(text: str, plan: list[tuple[int, int, int]]) -> None:
    played = 0
    for players, playfirst, random in plan:
        rules = Rules.load(text).with_(players=players)
        played += _check(rules, "playfirst", 1000 * players, playfirst * SCALE)
        played += _check(rules, "random", 500_000 + 1000 * players, random * SCALE)
    assert played == SCALE * sum(pf + rd for _, pf, rd in plan) >= 2000


@pytest.mark.parametrize(("text", "players", "policies", "games"), VARIANTS,
                         ids=[f"variant{i}" for i in range(len(VARIANTS))])
def test_rule_variants_play_the_engine_games(text: str, players: int, policies: str,
                                             games: int) -> None:
    rules = Rules.load(text).with_(players=players)
    _check(rules, policies, 77, games * SCALE)


def test_recorded_actions_replay_on_the_engine() -> None:
    """The kernel's actions, applied to the engine one by one, are legal and end the game
    as the kernel says (seeds near 2**64 included: seeds wrap around)."""
    for text, policies, seed in [("official,players=3,rounds=1", "random", 2**64 - 2),
                                 ("seven_o,players=4,rounds=1", "random", 12345),
                                 ("classic_ru,players=2", "playfirst", 99)]:
        rules = Rules.load(text)
        sim = Simulator(rules, policies)
        actions = sim.record(seed)
        out, _, scores = sim.run(seed, 1, keep_scores=True)
        assert scores is not None
        game = Game(rules, seed)
        for action in actions:
            if game.current_player is not None:
                assert action in game.legal_actions(action & 15)
            game.apply(action)
        assert game.is_over()
        assert game.match_winner == int(out[0][COLUMNS.index("winner")])
        assert game.scores == [int(s) for s in scores[0]]


def test_policy_stream_is_separate_from_the_game_stream() -> None:
    assert policy_seed(0) != policy_seed(1)
    assert policy_seed(0) == 0x63CFC62A2B097592


def test_unfinished_games_stop_at_the_limit() -> None:
    rules = Rules.preset("official", players=2, rounds=1)
    sim = Simulator(rules, "random", max_actions=50)
    out, _, _ = sim.run(0, 20)
    ref = [play_reference(rules, seed, "random", max_actions=50) for seed in range(20)]
    assert [int(v) for v in out[:, COLUMNS.index("winner")]] == [r.winner for r in ref]
    assert [int(v) for v in out[:, COLUMNS.index("actions")]] == [r.actions for r in ref]
    assert -1 in [r.winner for r in ref]
