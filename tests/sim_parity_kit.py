"""Game-by-game comparison of the fast simulator with the engine, for the parity tests.

:func:`check_games` plays ``count`` games with consecutive seeds twice: by the compiled
kernel (:class:`unokit.sim.runner.Simulator`) and by the engine driven by the reference
policies (:func:`unokit.sim.policies.play_reference`), and fails on the first game in
which they differ (winner, scores, actions, plays, draws, turns, rounds, blocked and
repeated rounds, first dealer and player, digest of the action sequence), naming the
first action that differs.
"""

from __future__ import annotations

import pytest

from unokit.engine.rules import Rules
from unokit.sim.policies import Outcome, play_reference
from unokit.sim.runner import COLUMNS, Simulator


def kernel_outcomes(rules: Rules, policies: str, first_seed: int, count: int) -> list[Outcome]:
    """The kernel's games, as :class:`~unokit.sim.policies.Outcome` (without history)."""
    sim = Simulator(rules, policies)
    out, digests, scores = sim.run(first_seed, count, keep_scores=True)
    assert scores is not None
    outcomes = []
    for i in range(count):
        row = dict(zip(COLUMNS, (int(v) for v in out[i]), strict=True))
        outcomes.append(Outcome(
            seed=first_seed + i, winner=row["winner"], scores=[int(s) for s in scores[i]],
            actions=row["actions"], plays=row["plays"], draws=row["draws"],
            turns=row["turns"], rounds=row["rounds"], blocked=row["blocked"],
            first=row["first"], dealer=row["dealer"], digest=int(digests[i]),
            repeated=row["repeated"]))
    return outcomes


def _key(o: Outcome) -> tuple[object, ...]:
    return (o.winner, o.scores, o.actions, o.plays, o.draws, o.turns, o.rounds, o.blocked,
            o.first, o.dealer, o.digest, o.repeated)


def check_games(rules: Rules, policies: str, first_seed: int, count: int) -> list[Outcome]:
    """Compare ``count`` games; return the engine's outcomes (with their histories)."""
    references = []
    for mine in kernel_outcomes(rules, policies, first_seed, count):
        ref = play_reference(rules, mine.seed, policies)
        if _key(ref) != _key(mine):
            actions = Simulator(rules, policies).record(mine.seed)
            where = next((i for i, (a, b) in enumerate(zip(actions, ref.history, strict=False))
                          if a != b), min(len(actions), len(ref.history)))
            pytest.fail(f"{rules.to_string()} {policies} seed {mine.seed}: kernel "
                        f"{_key(mine)} != engine {_key(ref)}; actions differ from #{where}")
        references.append(ref)
    return references
