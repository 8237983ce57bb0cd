"""The ``master`` bot: the ``expert`` search with deals that respect every recorded draw
exactly.

The search bots deal the cards they cannot see so that each other hand fits what the
seat's memory knows of it (:mod:`unokit.bots.memory`: a seat that drew instead of
playing held nothing that matched the colour in force or the top card, and no wild; a
seat that named a colour with a wild holds one of that colour). The ``search`` and
``expert`` bots fill those *slots* greedily (:func:`~unokit.bots.deals.fill_slots`:
the most constrained first, each with a random card that fits it), which leans the
deals: the cards that fit a tight slot are taken early, and a hand without slots is
dealt before any of that is known. :class:`MasterBot` follows every filled deal with
:func:`~unokit.bots.deals.mix_deal`: random exchanges between any two hidden places
(the hands and the draw pile), each kept only if both cards fit their slots. That walk
keeps every slot respected and has the uniform law over the deals that respect them
all as its steady state: the deals the search plays are then the hidden cards as they
may lie given everything seen, none contradicting a draw.

What is certain depends on the rules: where ``draw_when_playable`` is off a draw proves
that nothing matched, and every deal respects every draw (``draw_slack`` 0); the memory
then concludes only what the rules prove (the ``strict`` option of
:class:`~unokit.bots.memory.Tracker`: a card drawn and kept may have been playable unless
``play_drawn`` is ``must``). Where it
is on (the official rules) a player may draw while holding a playable card, so in a
share :data:`~unokit.bots.expert.DRAW_SLACK` of the deals a hand is dealt as if its
draws had said nothing, and the memory reads a player as one who plays whatever it can
(a card drawn and kept matched nothing). On top, every deal is weighed by how well it
explains the latest choice of each other seat (the ``expert``'s weights,
:mod:`unokit.bots.likelihood`): a card played is one of the matching cards picked at
random, a colour named with a wild is the colour held most.

The bot sees only its observations, as every bot does: the slots and the evidence come
from the cards seen played and the hand sizes (``tests/test_bots_master.py`` checks that
a copy of it chooses the same when the hidden cards lie differently).

>>> from unokit import Game, Rules
>>> from unokit.bots.base import play
>>> rules = Rules.preset("official", players=2, rounds=1)
>>> game = Game(rules, seed=4)
>>> bots = [MasterBot(1, rules=rules, iterations=20), MasterBot(2, rules=rules, iterations=20)]
>>> _ = list(play(game, bots))
>>> game.is_over()
True
>>> MasterBot(1, rules=rules).draw_slack, MasterBot(1, rules=rules.with_(
...     draw_when_playable=False)).draw_slack
(0.05, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unokit.bots.expert import DRAW_SLACK, ExpertBot
from unokit.bots.likelihood import EvidenceTracker
from unokit.bots.playout import Position
from unokit.engine.observation import Observation
from unokit.engine.rules import Rules

MASTER_MIX = 2
"""Exchanges tried per hidden card after each deal is filled (see the module
docstring)."""


class MasterBot(ExpertBot):
    """The ``expert`` search with exactly constrained deals (see the module docstring).

    Args:
        seed, rules, iterations, candidates, time_limit, reaction_delay, challenge_rate,
            margin, policy, name_slack, weigh: as :class:`~unokit.bots.expert.ExpertBot`.
        draw_slack: the share of deals that ignore what a hand's draws said (default:
            0 where the rules forbid drawing with a playable card, else
            :data:`~unokit.bots.expert.DRAW_SLACK`).
        mix: exchanges tried per hidden card after each deal is filled (default
            :data:`MASTER_MIX`; 0: the ``expert``'s deals).
    """

    name = "master"

    def __init__(self, seed: int = 0, *, rules: Rules | str | dict[str, Any] | None = None,
                 draw_slack: float | None = None, mix: int = MASTER_MIX,
                 **options: Any) -> None:
        if mix < 0:
            raise ValueError(f"mix must be at least 0, got {mix}")
        if draw_slack is None:
            loaded = Rules.load(rules) if rules is not None else None
            draw_slack = DRAW_SLACK if loaded is None or loaded.draw_when_playable else 0.0
        super().__init__(seed, rules=rules, draw_slack=draw_slack, **options)
        self.mix = int(mix)
        # Where a draw proves that nothing matched, conclude only what the rules prove.
        self.helper.tracker = EvidenceTracker(self.rules,
                                              strict=not self.rules.draw_when_playable)

    def __repr__(self) -> str:
        return f"MasterBot(seed={self.seed}, iterations={self.iterations})"

    def _position(self, obs: Observation, pool: list[int], team: Sequence[int]) -> Position:
        spot = super()._position(obs, pool, team)
        spot.mix = self.mix
        return spot


__all__ = ["MASTER_MIX", "MasterBot"]
