"""The simulator's repetition rule: a round whose position comes back a third time after
cards returned from the discard pile is blocked, as in the engine
(:func:`unokit.engine.match_flow._note_position`).

The games below are ones in which the engine emits ``repeated``; the kernel must play them
the same way (and say it blocked a round for repetition). The kernel-level tests drive
:func:`unokit.sim.effects.note_position` on a position of a game in progress.
"""

from __future__ import annotations

import pytest

from unokit.engine.rules import Rules
from unokit.sim import deal, effects
from unokit.sim import kernel as K
from unokit.sim.policies import play_reference
from unokit.sim.runner import COLUMNS, Simulator

# (rules, policies, seeds of games in which the engine blocks a round for repetition)
REPEATING = [
    # A guilty Wild Draw Four taken back and nothing drawn for it: the two players can
    # play and challenge the same Wild Draw Four in turn.
    ("official,challenge_guilty_takes_back=true,challenge_guilty_draw=0,rounds=1,players=2",
     "random", [2181, 2547, 3451, 3524, 3885, 4117]),
    ("seven_o,challenge_guilty_takes_back=true,challenge_guilty_draw=0,rounds=1,players=2",
     "random", [644, 873, 1468]),
    # The official rules as they are: ten hands hold nearly the whole deck, and draws and
    # plays of the few cards left bring a reshuffled position back.
    ("official,rounds=1,players=10", "random", [2830]),
]


def _columns(sim: Simulator, seed: int) -> tuple[dict[str, int], list[int], int]:
    out, digests, scores = sim.run(seed, 1, keep_scores=True)
    assert scores is not None
    row = dict(zip(COLUMNS, (int(v) for v in out[0]), strict=True))
    return row, [int(s) for s in scores[0]], int(digests[0])


@pytest.mark.parametrize(("text", "policies", "seeds"), REPEATING,
                         ids=["takes_back", "seven_o_takes_back", "official10"])
def test_repeating_games_play_as_on_the_engine(text: str, policies: str,
                                               seeds: list[int]) -> None:
    rules = Rules.load(text)
    sim = Simulator(rules, policies)
    for seed in seeds:
        ref = play_reference(rules, seed, policies)
        assert ref.repeated >= 1, f"seed {seed}: the engine no longer repeats"
        row, scores, digest = _columns(sim, seed)
        mine = (row["winner"], scores, row["actions"], row["plays"], row["draws"],
                row["turns"], row["rounds"], row["blocked"], row["repeated"], digest)
        theirs = (ref.winner, ref.scores, ref.actions, ref.plays, ref.draws, ref.turns,
                  ref.rounds, ref.blocked, ref.repeated, ref.digest)
        assert mine == theirs, f"seed {seed}"


def test_games_around_a_repetition_play_as_on_the_engine() -> None:
    """Consecutive seeds under the take-back rules, one of which repeats: the kernel
    neither misses a repetition nor finds one the engine does not."""
    text, policies, _ = REPEATING[0]
    rules = Rules.load(text)
    sim = Simulator(rules, policies)
    repeated = 0
    for seed in range(3445, 3455):
        ref = play_reference(rules, seed, policies)
        row, scores, digest = _columns(sim, seed)
        assert (row["winner"], scores, row["actions"], row["repeated"], digest) == (
            ref.winner, ref.scores, ref.actions, ref.repeated, ref.digest), f"seed {seed}"
        repeated += ref.repeated
    assert repeated >= 1


def _mid_round(seed: int = 5) -> tuple[Simulator, int]:
    """A two-player game stopped after a few actions, in the middle of its round."""
    sim = Simulator(Rules.preset("official", players=2, rounds=1), "playfirst", max_actions=4)
    sim.record(seed)
    g = sim.state
    assert g[K.S_PHASE] < K.P_ROUND_OVER
    return sim, g.ctypes.data


def test_third_occurrence_blocks_the_round() -> None:
    sim, gp = _mid_round()
    g = sim.state
    effects.note_position(gp)
    effects.note_position(gp)
    assert g[K.S_NPOS] == 1 and g[K.S_PHASE] < K.P_ROUND_OVER and g[K.S_BLOCKED] == 0
    effects.note_position(gp)
    assert g[K.S_PHASE] in (K.P_ROUND_OVER, K.P_MATCH_OVER)
    assert g[K.S_BLOCKED] == 1 and g[K.S_REPEATED] == 1
    assert g[K.S_ROUND_WINNER] >= 0


def test_other_positions_count_apart() -> None:
    sim, gp = _mid_round()
    g = sim.state
    for _ in range(2):
        effects.note_position(gp)
        g[K.S_IDLE] += 1  # another position (the idle count is part of it)
        effects.note_position(gp)
        g[K.S_IDLE] -= 1
    assert g[K.S_NPOS] == 2 and g[K.S_PHASE] < K.P_ROUND_OVER
    effects.note_position(gp)
    assert g[K.S_REPEATED] == 1


def test_a_full_table_counts_only_the_recorded_positions() -> None:
    sim, gp = _mid_round()
    g = sim.state
    effects.note_position(gp)  # recorded while there is room
    g[K.S_IDLE] += 1
    g[K.S_NPOS] = K.POS_LIMIT  # the table is full
    for _ in range(3):
        effects.note_position(gp)  # a new position: not recorded, never blocks
    assert g[K.S_NPOS] == K.POS_LIMIT and g[K.S_PHASE] < K.P_ROUND_OVER
    g[K.S_IDLE] -= 1
    effects.note_position(gp)
    effects.note_position(gp)  # the recorded one still counts to its third time
    assert g[K.S_REPEATED] == 1 and g[K.S_PHASE] >= K.P_ROUND_OVER


def test_a_new_round_forgets_the_positions() -> None:
    sim, gp = _mid_round()
    g = sim.state
    effects.note_position(gp)
    effects.note_position(gp)
    saved = g.copy()
    deal.start_round(gp)  # a new generation: the old slots are free
    assert g[K.S_NPOS] == 0
    g[: K.RP] = saved[: K.RP]
    g[K.HC: K.DPILE] = saved[K.HC: K.DPILE]  # the same position again, in the new round
    g[K.S_NPOS] = 0
    effects.note_position(gp)
    effects.note_position(gp)
    assert g[K.S_NPOS] == 1 and g[K.S_PHASE] < K.P_ROUND_OVER


def test_table_geometry() -> None:
    slots = K.POS_SLOTS
    assert slots & (slots - 1) == 0 and slots > K.POS_LIMIT
    assert K.POS + 1 + 3 * slots == K.XS < K.G_SIZE
