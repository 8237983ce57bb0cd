"""The end of a round and of the match, compiled with numba: scoring (standard, penalty
and lazy, with or without teams), blocked rounds, the match winner and the next round's
dealer (``match_flow`` and ``scoring`` of the engine, for the rules the simulator plays).

The state array ``g`` and the helpers are those of :mod:`unokit.sim.kernel`.
"""

# Elements of the state array type as Any under numpy's stubs (see unokit.sim.kernel).
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

from unokit.sim import support as S
from unokit.sim.deal import start_round
from unokit.sim.kernel import (
    BONUS,
    HAND_COLS,
    HC,
    LOSSES,
    P_MATCH_OVER,
    P_ROUND_OVER,
    RP,
    S_BLOCKED,
    S_CUR,
    S_DEALER,
    S_FIRST_NEXT,
    S_LOSER,
    S_MATCH_WINNER,
    S_PHASE,
    S_ROUND_NO,
    S_ROUND_WINNER,
    S_UNO_OPEN,
    SCORES,
    SCRATCH,
    SIZE,
    WINS,
    hand_points,
    inline,
    jit,
    nxt,
    view,
)


@inline
def partner(gp: int, seat: int) -> int:
    """``scoring.partner``: the partner of ``seat`` under ``teams = "pairs"``, else
    ``seat`` itself."""
    g = view(gp)
    if g[RP + S.R_TEAMS] == 0:
        return seat
    n = g[RP + S.R_N]
    return (seat + n // 2) % n


@jit
def score_round(gp: int, winner: int, last_card: int, went_out: bool) -> None:
    """``scoring.round_points`` for standard and penalty scoring, with or without teams
    (both partners score the team's change)."""
    g = view(gp)
    n = g[RP + S.R_N]
    if g[RP + S.R_LAZY]:  # no points: the rounds won and lost decide
        g[WINS + winner] += 1
        return
    mate = partner(gp, winner)
    if g[RP + S.R_PENALTY_SCORING]:
        for seat in range(n):
            g[SCRATCH + seat] = hand_points(gp, seat)
        if went_out:
            g[SCRATCH + winner] = 0
        if last_card >= 0:
            g[SCRATCH + winner] -= g[BONUS + last_card]
        for seat in range(n):
            other = partner(gp, seat)
            own = g[SCRATCH + seat]
            g[SCORES + seat] += own if other == seat else own + g[SCRATCH + other]
    else:
        gained = 0
        for seat in range(n):
            if seat != winner and seat != mate:
                gained += hand_points(gp, seat)
        g[SCORES + winner] += gained
        if mate != winner:
            g[SCORES + mate] += gained


@jit
def close_round(gp: int) -> None:
    """``match_flow._close_round`` and ``_match_result`` (standard, penalty, lazy)."""
    g = view(gp)
    n = g[RP + S.R_N]
    g[S_CUR] = -1
    g[S_UNO_OPEN] = -1
    winner = g[S_ROUND_WINNER]
    last = g[RP + S.R_ROUNDS] > 0 and g[S_ROUND_NO] >= g[RP + S.R_ROUNDS]
    if g[RP + S.R_LAZY]:
        close_lazy_round(gp, winner, last)
        return
    top = g[SCORES]
    for seat in range(n):
        top = max(top, g[SCORES + seat])
    if last or top >= g[RP + S.R_TARGET]:
        highest = g[RP + S.R_PENALTY_SCORING] == 0
        best = g[SCORES]
        for seat in range(n):
            value = g[SCORES + seat]
            best = max(best, value) if highest else min(best, value)
        if g[SCORES + winner] == best:
            g[S_MATCH_WINNER] = winner
        else:
            for seat in range(n):
                if g[SCORES + seat] == best:
                    g[S_MATCH_WINNER] = seat
                    break
        g[S_PHASE] = P_MATCH_OVER
    else:
        g[S_PHASE] = P_ROUND_OVER


@jit
def blocked(gp: int) -> None:
    """``match_flow._blocked``: the lowest hand wins (then fewer cards, then the
    earlier seat from the one after the dealer, in the direction of play)."""
    g = view(gp)
    seat = nxt(gp, g[S_DEALER])
    winner = -1
    best_points = 0
    best_size = 0
    for _ in range(g[RP + S.R_N]):
        points = hand_points(gp, seat)
        size = g[HC + seat * HAND_COLS + SIZE]
        if winner < 0 or points < best_points or (points == best_points
                                                  and size < best_size):
            winner = seat
            best_points = points
            best_size = size
        seat = nxt(gp, seat)
    g[S_ROUND_WINNER] = winner
    g[S_BLOCKED] += 1
    score_round(gp, winner, -1, False)
    close_round(gp)


@jit
def close_lazy_round(gp: int, winner: int, last: bool) -> None:
    """``_close_round`` under lazy scoring: the loser of the round (``scoring.lazy_loser``:
    the most points in hand, then the most cards, then the later seat from the one after
    the dealer) deals the next round and its winner plays first; after the last round
    the most rounds won, then the fewest lost, then the lowest seat wins the match."""
    g = view(gp)
    n = g[RP + S.R_N]
    seat = nxt(gp, g[S_DEALER])
    loser = -1
    worst_points = 0
    worst_size = 0
    for _ in range(n):
        if seat != winner:
            points = hand_points(gp, seat)
            size = g[HC + seat * HAND_COLS + SIZE]
            if loser < 0 or points > worst_points or (points == worst_points
                                                      and size >= worst_size):
                loser = seat
                worst_points = points
                worst_size = size
        seat = nxt(gp, seat)
    g[S_LOSER] = loser
    g[LOSSES + loser] += 1
    if not last:
        g[S_PHASE] = P_ROUND_OVER
        return
    best = -1
    for seat in range(n):
        value = g[WINS + seat] * 1000 - g[LOSSES + seat]
        if best < 0 or value > g[WINS + best] * 1000 - g[LOSSES + best]:
            best = seat
    g[S_MATCH_WINNER] = best
    g[S_PHASE] = P_MATCH_OVER


@jit
def next_round(gp: int) -> None:
    """``match_flow._next_round``: the next dealer (the seat after the dealer; under lazy
    scoring the round's loser, with its winner playing first), and the deal."""
    g = view(gp)
    if g[RP + S.R_LAZY]:
        g[S_DEALER] = g[S_LOSER]
        g[S_FIRST_NEXT] = g[S_ROUND_WINNER] + 1
    else:
        g[S_DEALER] = (g[S_DEALER] + 1) % g[RP + S.R_N]
    start_round(gp)
