"""A kit that checks an UNO implementation, shipped with the package so that another
implementation, or a change to this one, can be checked the way unokit checks itself
(see ``docs/testing.md``):

- :mod:`unokit.testing.invariants`: the invariants, one function each
  (:func:`check_conservation`, :func:`check_legal`, :func:`check_illegal`,
  :func:`check_privacy`, :func:`check_replay`, ...), and :func:`check_state` /
  :func:`check_step`, which run them all on one position;
- :mod:`unokit.testing.actors`: random actors that pick a legal action of any seat;
- :func:`check_game` (:mod:`unokit.testing.check`): a random game with every invariant
  after every action;
- :func:`run_soak` (:mod:`unokit.testing.soak`): many random games under random rule sets
  (``unokit soak``);
- :func:`run_scenarios` and :mod:`unokit.testing.scenario`: the rule scenarios of
  ``SCENARIOS.md`` (``unokit scenario``).

Nothing here needs more than the standard library.

>>> from unokit.engine.game import Game
>>> check_game(lambda: Game("official,players=3,target_score=50", seed=2)).ended
True
>>> run_soak(games=2, seed=9).ok
True
"""

from unokit.testing.actors import Actor, random_action, random_playout, soak_action
from unokit.testing.check import GameCheck, check_game, run_scenarios
from unokit.testing.invariants import (
    INVARIANTS,
    InvariantError,
    all_legal,
    check_conservation,
    check_encoding,
    check_illegal,
    check_legal,
    check_listed,
    check_privacy,
    check_replay,
    check_state,
    check_step,
    permuted,
    visible_seats,
)
from unokit.testing.scenario import ScenarioResult, run_file, run_scenario
from unokit.testing.soak import Failure, GameResult, SoakReport, draw_rules, run_soak, soak_game

__all__ = [
    "INVARIANTS",
    "Actor",
    "Failure",
    "GameCheck",
    "GameResult",
    "InvariantError",
    "ScenarioResult",
    "SoakReport",
    "all_legal",
    "check_conservation",
    "check_encoding",
    "check_game",
    "check_illegal",
    "check_legal",
    "check_listed",
    "check_privacy",
    "check_replay",
    "check_state",
    "check_step",
    "draw_rules",
    "permuted",
    "random_action",
    "random_playout",
    "run_file",
    "run_scenario",
    "run_scenarios",
    "run_soak",
    "soak_action",
    "soak_game",
    "visible_seats",
]
