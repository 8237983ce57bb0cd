"""One call to check a game: :func:`check_game` plays a random game and runs every
invariant of :mod:`unokit.testing.invariants` after every action, then the replay;
:func:`run_scenarios` runs scenario files.

>>> from unokit.engine.game import Game
>>> check = check_game(lambda: Game("official,players=3,target_score=50", seed=2), seed=1)
>>> check.ended, check.actions == len(check.game.history)
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from unokit.engine.game import Game
from unokit.testing.actors import Actor, soak_action
from unokit.testing.invariants import (
    InvariantError,
    check_replay,
    check_state,
    check_step,
    copy_game,
)
from unokit.testing.scenario import ScenarioResult, run_file, scenario_files

MAX_STEPS = 50_000
"""Actions after which :func:`check_game` calls a match that goes on a ``did_not_end``
failure (unless ``steps`` is given)."""


@dataclass(frozen=True)
class GameCheck:
    """What :func:`check_game` played: ``actions`` applied, whether the match ``ended``,
    and the ``game`` as it was left."""

    actions: int
    ended: bool
    game: Game


def check_game(game: Game | Callable[[], Game], *, steps: int | None = None, seed: int = 0,
               actor: Actor = soak_action, every: int = 1,
               max_steps: int = MAX_STEPS) -> GameCheck:
    """Play a random game and check every invariant after every action; raise
    :class:`~unokit.testing.invariants.InvariantError` at the first that breaks.

    ``game`` is a game to play on (from where it stands), or a function that makes one
    (``lambda: Game(rules, seed)``): then the replay starts from a second game it makes,
    so that making a game is checked to be repeatable too. ``actor`` (seeded from
    ``seed``) picks the actions, among those of every seat. After each action:
    :func:`~unokit.testing.invariants.check_state`, whose costly part (listed actions
    applied to copies, illegal actions, privacy) runs after every ``every``-th action
    only. At the end, :func:`~unokit.testing.invariants.check_replay`.

    ``steps``: stop after this many actions; without it the match is played to its end,
    and one still going after ``max_steps`` actions is a ``did_not_end`` failure.

    >>> check = check_game(Game("official", seed=5), steps=40)
    >>> check.actions, check.ended
    (40, False)
    >>> from dataclasses import replace
    >>> class Leaky(Game):   # shows every seat the top card of the draw pile
    ...     __slots__ = ()
    ...     def observation(self, seat):
    ...         view = super().observation(seat)
    ...         return replace(view, drawn_card=self.draw_pile[-1])
    >>> check_game(Leaky("official", seed=5), steps=40)
    Traceback (most recent call last):
    ...
    unokit.testing.invariants.InvariantError: seat ...'s observation depends on ... (drawn_card)
    """
    make = None if isinstance(game, Game) else game
    if make is not None:
        game = make()
    assert isinstance(game, Game)
    start = None if make is not None else copy_game(game)
    rng = random.Random(seed)
    checks = random.Random(f"unokit-check:{seed}")
    deck = sorted(game.deck)
    applied: list[int] = []
    every = max(1, every)
    legal = check_state(game, deck, checks)
    while not game.is_over():
        if steps is not None and len(applied) >= steps:
            break
        if steps is None and len(applied) >= max_steps:
            raise InvariantError("did_not_end", f"the match is still on after {max_steps} "
                                 f"actions (round {game.round_no}, phase {game.phase.value})")
        action = actor(game, legal, rng)
        applied.append(action)
        costly = len(applied) % every == 0
        legal = check_step(game, action, deck, checks if costly else None)
    check_replay(game, applied, start=make() if make is not None else start)
    return GameCheck(len(applied), game.is_over(), game)


def run_scenarios(*paths: str | Path) -> list[ScenarioResult]:
    """Run the scenario files named, and those inside named folders (sorted), with
    :func:`~unokit.testing.scenario.run_file`: one result each, a broken file included.

    >>> import json, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "skip.json").write_text(json.dumps({
    ...     "name": "a skip skips", "rules": {"preset": "official"},
    ...     "setup": {"hands": [["RS", "R1"], ["B1"], ["G1"]], "discard": ["R3"],
    ...               "current_player": 0},
    ...     "steps": [{"do": {"player": 0, "play": "RS"}, "expect": {"current_player": 2}}]}))
    >>> _ = (folder / "broken.json").write_text("{")
    >>> broken, skip = run_scenarios(folder)
    >>> skip.line(), broken.passed, broken.message[:14]
    ('PASS a skip skips', False, 'not valid JSON')
    """
    return [run_file(path) for path in scenario_files(paths)]


__all__ = ["MAX_STEPS", "GameCheck", "check_game", "run_scenarios"]
