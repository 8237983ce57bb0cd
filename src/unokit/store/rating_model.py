"""The rating model: openskill's Plackett-Luce over a match's finishing order, with
partners rated as one team, bots at fixed published ratings, and ties shared.

A match's *finishing order* (:func:`places`) ranks its teams: the team that won the
match first, then the others by the standing of the match's scoring (the highest score
with ``standard``, the lowest with ``penalty``, rounds won less rounds lost with
``lazy``, the later eliminated with ``elimination``). Equal standings are tied places.
A player who left (docs/accounts.md) is placed last, on a team of their own.

:func:`rate` rates one match from the ratings its entrants held before it:

- **Bots** enter with their fixed, published rating (:data:`BOT_RATINGS`); their own
  update is thrown away, so a bot's rating never moves.
- **Ties are shared.** openskill 6.2 gives tied players unequal changes, and tied
  winners can end below the runner-up (openskill #155). After openskill's update, the
  change of mu of the players (not the bots) is made non-increasing down the finishing
  order: the players of one place share the mean of their changes, and a place whose
  change would exceed a better place's is pooled with it (the pool-adjacent-violators
  step; the sum of the changes stays what openskill gave). Tied players get the same
  change of mu and the same shrink of sigma.

>>> before = [Entrant(1, "", 0, 1, 30.0, 25 / 3), Entrant(2, "", 1, 1, 20.0, 25 / 3),
...           Entrant(3, "", 2, 2, 25.0, 25 / 3), Entrant(4, "", 3, 3, 25.0, 25 / 3)]
>>> after = rate(before)
>>> round(after[0][0] - 30.0, 9) == round(after[1][0] - 20.0, 9)  # tied: one change
True
>>> after[0][0] - 30.0 >= after[2][0] - 25.0 >= after[3][0] - 25.0
True

The rating shown (:func:`display`) is lichess-like: ``1500 + 60 * (mu - 25)``, rounded,
so that a new player (mu 25) shows 1500. A rating is *provisional* while sigma is above a
threshold (the server's ``rating_provisional_sigma``).

>>> display(25.0), display(30.0), display(20.5)
(1500, 1800, 1230)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from openskill.models import PlackettLuce

from unokit.engine.events import Event, EventKind
from unokit.engine.rules import Rules
from unokit.engine.scoring import teammates

MODEL = PlackettLuce()
"""The model: openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300)."""
MU = float(MODEL.mu)
SIGMA = float(MODEL.sigma)

BOT_RATINGS: dict[str, tuple[float, float]] = {
    "random": (12.0, 1.0),
    "playfirst": (15.0, 1.0),
    "easy": (19.0, 1.0),
    "normal": (23.0, 1.0),
    "hard": (26.0, 1.0),
    "search": (28.0, 1.0),
    "expert": (30.0, 1.0),
    "master": (31.0, 1.0),
}
"""Each bot's fixed (mu, sigma), by its name (the part of its spec before ``:``). A spec the
table does not name rates as ``normal``."""

DISPLAY_BASE = 1500
DISPLAY_SCALE = 60


def bot_rating(spec: str) -> tuple[float, float]:
    """The fixed (mu, sigma) of a bot spec.

    >>> bot_rating("hard:aggressive"), bot_rating("expert:400"), bot_rating("odd")
    ((26.0, 1.0), (30.0, 1.0), (23.0, 1.0))
    """
    return BOT_RATINGS.get(spec.split(":", 1)[0], BOT_RATINGS["normal"])


def display(mu: float) -> int:
    """The rating shown for mu: ``1500 + 60 * (mu - 25)``, rounded."""
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - MU))


class Entrant(NamedTuple):
    """One entrant of a rated match, with the rating they held before it."""

    player_id: int | None
    """The player; ``None`` for a bot."""
    bot: str
    """A bot's spec ('' for a player)."""
    team: int
    """Entrants of one team share it (partners; a leaver is a team of their own)."""
    rank: int
    """The team's place: 0 first; equal places are tied."""
    mu: float
    sigma: float


def _standing(rules: Rules, scores: Sequence[int], wins: Sequence[int],
              losses: Sequence[int], out_at: Sequence[int], seat: int) -> tuple[int, int]:
    """A seat's standing at the end of the match: higher is better."""
    if rules.scoring == "penalty":
        return (0, -scores[seat])
    if rules.scoring == "lazy":
        return (0, wins[seat] * 1000 - losses[seat])
    if rules.scoring == "elimination":
        return (out_at[seat], -scores[seat])
    return (0, scores[seat])


def places(rules: Rules, log: Iterable[Event]) -> tuple[int, ...]:
    """Each seat's place in a finished match (0 first; partners share one; equal
    standings tie), from its event log. Empty if the log holds no match end."""
    n = rules.players
    wins, losses = [0] * n, [0] * n
    out_at = [1 << 30] * n  # the seats still in at the end outrank every eliminated one
    scores: Sequence[int] = [0] * n
    winner = -1
    for event in log:
        if event.kind is EventKind.ROUND_ENDED:
            if event.player >= 0:
                wins[event.player] += 1
            if event.target >= 0:
                losses[event.target] += 1
        elif event.kind is EventKind.ELIMINATED and event.player >= 0:
            out_at[event.player] = event.seq
        elif event.kind is EventKind.MATCH_ENDED and event.player >= 0:
            winner = event.player
            scores = list(event.data["scores"])
    if winner < 0:
        return ()
    best: dict[int, tuple[int, int, int]] = {}
    for seat in range(n):
        team = min(teammates(rules, seat))
        won = 1 if seat in teammates(rules, winner) else 0
        standing = (won, *_standing(rules, scores, wins, losses, out_at, seat))
        best[team] = max(best.get(team, standing), standing)
    order = sorted(set(best.values()), reverse=True)
    return tuple(order.index(best[min(teammates(rules, seat))]) for seat in range(n))


def _pooled(groups: list[tuple[float, int]]) -> list[float]:
    """The pool-adjacent-violators step: ``groups`` are (sum, count) in the finishing
    order; each group's value, non-increasing, the weighted sums kept."""
    blocks: list[list[float]] = []  # [sum, count, groups in it]
    for total, count in groups:
        blocks.append([total, float(count), 1.0])
        while len(blocks) > 1 and (blocks[-1][0] / blocks[-1][1]
                                   > blocks[-2][0] / blocks[-2][1]):
            top = blocks.pop()
            blocks[-1] = [blocks[-1][0] + top[0], blocks[-1][1] + top[1],
                          blocks[-1][2] + top[2]]
    out: list[float] = []
    for block in blocks:
        out.extend([block[0] / block[1]] * int(block[2]))
    return out


def rate(entrants: Sequence[Entrant]) -> list[tuple[float, float]]:
    """Each entrant's (mu, sigma) after the match, in the order given (a bot's stays its
    own). Needs at least two teams; the result is a function of the arguments alone
    (the same inputs give the same floats, which the re-rate relies on)."""
    teams: dict[int, list[int]] = {}
    for index, entrant in enumerate(entrants):
        teams.setdefault(entrant.team, []).append(index)
    order = sorted(teams)
    rated = MODEL.rate(
        [[MODEL.rating(entrants[i].mu, entrants[i].sigma) for i in teams[t]] for t in order],
        ranks=[float(entrants[teams[t][0]].rank) for t in order])
    raw: dict[int, tuple[float, float]] = {}
    for t, team in zip(order, rated, strict=True):
        for i, rating in zip(teams[t], team, strict=True):
            raw[i] = (float(rating.mu), float(rating.sigma))
    people = [i for i, e in enumerate(entrants) if e.player_id is not None]
    ranks = sorted({entrants[i].rank for i in people})
    by_rank = {r: [i for i in people if entrants[i].rank == r] for r in ranks}
    shared = _pooled([(sum(raw[i][0] - entrants[i].mu for i in by_rank[r]), len(by_rank[r]))
                      for r in ranks])
    out = [(e.mu, e.sigma) for e in entrants]
    for r, change in zip(ranks, shared, strict=True):
        group = by_rank[r]
        shrink = sum(raw[i][1] / entrants[i].sigma for i in group) / len(group)
        for i in group:
            out[i] = (entrants[i].mu + change, entrants[i].sigma * shrink)
    return out
