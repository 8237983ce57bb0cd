"""The ``expert`` bot: the search of :mod:`unokit.bots.search` with deals weighed by how
well they explain the plays seen.

:class:`ExpertBot` searches as :class:`~unokit.bots.search.SearchBot` does (the same
candidates, deals, playouts and fall-backs to the ``hard`` heuristic), with three
differences under plain rules (:class:`~unokit.bots.plain.Plain`):

- **Weighted deals.** Each deal counts with its likelihood given the latest choice of
  every other seat (:mod:`unokit.bots.likelihood`: a card played is one of the matching
  cards picked at random; a colour named with a wild is the colour held most), instead
  of counting 1. The win counts of the candidates are sums of weights, and the
  comparison with the heuristic's first choice uses the effective number of deals
  (``(sum w)**2 / sum w**2``).
- **Draws weighed, not certain.** In a share ``draw_slack`` of the deals a hand that
  drew is dealt as if its draws said nothing: the official rules let a player draw
  while holding a playable card.
- **Opponents as players who play any matching card.** The playouts let the other
  seats play any matching card at random, wilds included, with two players too (the
  search's ``policy`` 3: the bot's side plays the matching card of the colour it holds
  most).

Under other rules the search's engine playouts run unweighted. The bot sees only its
observations: the evidence comes from the cards it saw played and the hand sizes.

>>> from unokit import Game, Rules
>>> from unokit.bots.base import play
>>> rules = Rules.preset("official", players=3, rounds=1)
>>> game = Game(rules, seed=4)
>>> bots = [ExpertBot(1, rules=rules, iterations=20), ExpertBot(2, rules=rules, iterations=20),
...         ExpertBot(3, rules=rules, iterations=20)]
>>> _ = list(play(game, bots))
>>> game.is_over()
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from unokit.bots.likelihood import NAME_SLACK, EvidenceTracker
from unokit.bots.playout import Plain, Position, search_totals
from unokit.bots.search import CHUNK, SearchBot, first_moves
from unokit.engine.observation import Observation
from unokit.engine.rules import Rules

EXPERT_ITERATIONS = 2000
"""Deals per decision when none is given, with two players under plain rules."""
EXPERT_ITERATIONS_MANY = 3000
"""Deals per decision when none is given, with three players or more under plain rules
(elsewhere the search's default)."""
DRAW_SLACK = 0.05
"""The share of deals in which a hand is dealt as if its draws said nothing."""
EXPERT_POLICY = 3
"""The playout policy (see :class:`~unokit.bots.search.SearchBot`)."""

Totals = tuple[list[float], list[float], float, float]


class ExpertBot(SearchBot):
    """The search with weighted deals (see the module docstring).

    Args:
        seed, rules, candidates, time_limit, reaction_delay, challenge_rate, margin: as
            :class:`~unokit.bots.search.SearchBot`.
        iterations: deals per decision (default: :data:`EXPERT_ITERATIONS`, or
            :data:`EXPERT_ITERATIONS_MANY` with three players or more, under plain
            rules; under other rules the search's default).
        policy: the playout policy (default :data:`EXPERT_POLICY`, any number of players).
        draw_slack: the share of deals that ignore what a hand's draws said
            (default :data:`DRAW_SLACK`).
        name_slack: the weight of a deal in which a colour named with a wild is not the
            most held (default :data:`~unokit.bots.likelihood.NAME_SLACK`).
        weigh: whether deals are weighed by the plays seen (``False``: each counts 1).
    """

    name = "expert"

    def __init__(self, seed: int = 0, *, rules: Rules | str | dict[str, Any] | None = None,
                 iterations: int | None = None, policy: int | None = None,
                 draw_slack: float = DRAW_SLACK, name_slack: float = NAME_SLACK,
                 weigh: bool = True, **options: Any) -> None:
        if not 0.0 <= draw_slack <= 1.0:
            raise ValueError(f"draw_slack must be between 0 and 1, got {draw_slack}")
        if not 0.0 <= name_slack <= 1.0:
            raise ValueError(f"name_slack must be between 0 and 1, got {name_slack}")
        if iterations is None and rules is not None:
            loaded = Rules.load(rules)
            if Plain.of(loaded) is not None:
                many = loaded.players > 2
                iterations = EXPERT_ITERATIONS_MANY if many else EXPERT_ITERATIONS
        super().__init__(seed, rules=rules, iterations=iterations,
                         policy=EXPERT_POLICY if policy is None else policy, **options)
        self.draw_slack = float(draw_slack)
        self.name_slack = float(name_slack)
        self.weigh = bool(weigh)
        self.helper.tracker = EvidenceTracker(self.rules)
        self.effective = 0.0
        """The effective number of deals of the last search (``(sum w)**2 / sum w**2``)."""

    def __repr__(self) -> str:
        return f"ExpertBot(seed={self.seed}, iterations={self.iterations})"

    def _position(self, obs: Observation, pool: list[int], team: Sequence[int]) -> Position:
        spot = super()._position(obs, pool, team)
        tracker = self.helper.tracker
        if self.weigh and isinstance(tracker, EvidenceTracker):
            spot.evidence = [row for row in tracker.evidence(obs)
                             if spot.known[row[0]] is None]
        spot.draw_slack = self.draw_slack
        spot.name_slack = self.name_slack
        return spot

    def _quick(self, obs: Observation, candidates: list[int], pool: list[int],
               team: Sequence[int]) -> tuple[list[float], list[float], int]:
        """Weighted wins and squares of each candidate, scaled to the effective number
        of deals (which is returned as the number of deals; see the module docstring)."""
        assert self.plain is not None
        firsts = first_moves(candidates)
        spot = self._position(obs, pool, team)
        if self.deadline is None and self.time_limit is None:
            return self._effective(self._totals(spot, firsts, self.iterations,
                                                self.rng.getrandbits(64)))
        deadline = self.deadline
        if deadline is None:
            assert self.time_limit is not None
            deadline = time.monotonic() + self.time_limit
        chunks = random.Random(self.rng.getrandbits(64))
        wins = [0.0] * len(firsts)
        squares = [0.0] * len(firsts)
        total = total_sq = 0.0
        deals = 0
        while deals < self.iterations and time.monotonic() < deadline:
            chunk = min(self.iterations - deals, CHUNK)
            part = self._totals(spot, firsts, chunk, chunks.getrandbits(64))
            wins = [a + b for a, b in zip(wins, part[0], strict=True)]
            squares = [a + b for a, b in zip(squares, part[1], strict=True)]
            total += part[2]
            total_sq += part[3]
            deals += chunk
        return self._effective((wins, squares, total, total_sq))

    def _totals(self, spot: Position, firsts: list[int], deals: int, seed: int) -> Totals:
        assert self.plain is not None
        return search_totals(self.plain, spot, firsts, deals, seed,
                             rate=self.challenge_rate, policy=self.policy)

    def _effective(self, totals: Totals) -> tuple[list[float], list[float], int]:
        """Wins and squares scaled from the weight sum to the effective number of deals
        (so that the search's paired comparison reads them as unweighted counts)."""
        wins, squares, total, total_sq = totals
        if total <= 0.0 or total_sq <= 0.0:
            self.effective = 0.0
            return [0.0] * len(wins), [0.0] * len(wins), 0
        self.effective = total * total / total_sq
        # The search divides by the deals it is told: scale to that whole number.
        deals = max(1, round(self.effective))
        scale = deals / total
        return [w * scale for w in wins], [q * scale for q in squares], deals


__all__ = ["DRAW_SLACK", "EXPERT_ITERATIONS", "EXPERT_ITERATIONS_MANY", "EXPERT_POLICY",
           "ExpertBot"]
