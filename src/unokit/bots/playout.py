"""Fast playouts for the search bot (:mod:`unokit.bots.search`) under plain rules.

:func:`search_wins` deals the hidden cards of a position again and again and plays each
candidate first move out to the end of the round, every seat with a simple policy; it
returns how often each candidate's side went out first. It does the whole search of one
decision in one call, and runs compiled with numba where numba is installed (the
``sim`` extra) and as plain Python otherwise: both give the same numbers, drawn from the
same SplitMix64 stream (the compiled one is about two orders of magnitude faster).

The rules it plays are those of :class:`~unokit.bots.plain.Plain` (:mod:`unokit.bots.plain`):
the official game and the variants that change nothing a playout does.

A deal: the unseen cards are shuffled and dealt to the hands the seat cannot see, as
many as each holds, the rest being the draw pile (top last). Where the seat's memory
keeps *slots* for a hand (see :mod:`unokit.bots.memory`: the features each card of that
hand cannot have), the cards of those hands and of the draw pile are shuffled together
and dealt out again, the most constrained slot first, each slot taking the last card
that fits it (any card if none does).

The playout policy, for every seat: a random matching coloured card, else a random
wild; a wild names the colour the hand then holds most of (the first in R, Y, G, B
order); with nothing to play, draw (one card, or until one matches) and play the card if
it matches; a Wild Draw Four is challenged with a set chance where the rules allow it.
The round ends when a hand is empty; a round that cannot go on, or goes on too long, is
scored by the smallest hand of each side.

>>> from unokit.engine.cards import parse_card as c
>>> from unokit.engine.rules import Rules
>>> plain = Plain.of(Rules.preset("official", players=2))
>>> spot = Position(pool=[c("G1"), c("G2"), c("Y3"), c("Y4")], sizes=[1, 2],
...                 known=[[c("R5")], None], slots=[[], []], discard=[c("R3")], color=0,
...                 direction=1, seat=0, team=[True, False])
>>> search_wins(plain, spot, firsts=[c("R5"), -1], iterations=10, seed=7)
[10.0, 4.5]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unokit.bots.deals import FEATURE_BITS, _py_below, fill_slots, py_deals, sample_deals
from unokit.bots.likelihood import COLORS, RANKS
from unokit.bots.plain import SUPPORT, Plain, Position
from unokit.bots.playout_compiled import compiled
from unokit.bots.playout_policy import (
    _UNIT,
    MAX_STEPS,
    _after,
    _most_held,
    _nth,
    _policy_kind,
)
from unokit.engine.cards import (
    DRAW_TWO,
    WILD,
    WILD_DRAW_FOUR,
)
from unokit.engine.rng import MASK64


# ------------------------------------------------------------------ plain Python
def _py_search(plain: Plain, spot: Position, firsts: Sequence[int], iterations: int,
               seed: int, rate: float, max_steps: int, policy: int) -> list[float]:
    st = [seed & MASK64]

    def below(bound: int) -> int:
        return _py_below(st, bound)

    wins = [0.0] * len(firsts)
    squares = [0.0] * len(firsts)
    total = total_sq = 0.0
    deals = py_deals(spot, below)
    for _ in range(iterations):
        hands, pile, weight = next(deals)
        total += weight
        total_sq += weight * weight
        roll = below(1 << 62)
        base = 0.0
        for index, first in enumerate(firsts):
            won = _py_rollout(plain, [list(hand) for hand in hands], list(pile),
                              list(spot.discard), spot.color, spot.direction, spot.seat,
                              spot.team, first, roll, rate, max_steps, policy)
            if index == 0:
                base = won
            wins[index] += weight * won
            squares[index] += weight * (won - base) ** 2
    return [*wins, *squares, total, total_sq]


def _py_rollout(plain: Plain, hands: list[list[int]], pile: list[int], discard: list[int],
                color: int, direction: int, cur: int, team: list[bool], first: int,
                seed: int, rate: float, max_steps: int, policy: int) -> float:
    st = [seed]

    def below(bound: int) -> int:
        return _py_below(st, bound)

    def take() -> int:
        if not pile:
            if len(discard) <= 1:
                return -1
            pile[:] = discard[:-1]
            del discard[:-1]
            for i in range(len(pile) - 1, 0, -1):
                j = below(i + 1)
                pile[i], pile[j] = pile[j], pile[i]
        return pile.pop()

    def give(seat: int, count: int) -> None:
        for _ in range(count):
            card = take()
            if card < 0:
                return
            hands[seat].append(card)

    n = len(hands)
    ranks, colors = RANKS, COLORS
    strict = plain.wd4 == 2
    challenge = plain.wd4 == 1
    rev_skips = plain.rev_skips and n == 2
    smart = (policy & 1) | ((policy >> 1) & 2)
    loose = policy & 2 == 2 and not strict
    counts = [0, 0, 0, 0]
    idle = 0
    for step in range(max_steps):
        hand = hands[cur]
        trank = ranks[discard[-1]]
        card = -1
        chosen = -1
        if step == 0:
            if first >= 0:
                card = first & 255
                chosen = first >> 8 if card >= WILD else -1
        else:
            kind, options, best = _policy_kind(hand, len(hand), color, trank, team[cur], smart,
                                               loose, counts, ranks, colors)
            if options:
                card = _nth(hand, len(hand), below(options), kind, color, trank, best, counts,
                            ranks, colors)
        if card < 0:
            got = -1
            drew = False
            while True:
                drawn = take()
                if drawn < 0:
                    break
                drew = True
                hand.append(drawn)
                fits = drawn >= WILD or colors[drawn] == color or ranks[drawn] == trank
                if fits and strict and drawn == WILD_DRAW_FOUR:
                    fits = not any(c < WILD and colors[c] == color for c in hand)
                if fits:
                    got = drawn
                    break
                if plain.draw_one:
                    break
            if got < 0 or not plain.play_drawn:
                idle = 0 if drew else idle + 1
                if idle >= n:
                    break
                cur = (cur + direction) % n
                continue
            card = got
        idle = 0
        hand.remove(card)
        previous = color
        if card >= WILD:
            color = chosen if chosen >= 0 else _most_held(hand, len(hand), counts, colors)
        else:
            color = colors[card]
        discard.append(card)
        if not hand:
            return 1.0 if team[cur] else 0.0
        rank = ranks[card]
        after, direction, victim = _after(card, rank, cur, direction, n, rev_skips)
        if victim < 0:
            cur = after
        elif rank == DRAW_TWO:
            give(victim, 2)
            cur = after
        else:  # a Wild Draw Four
            if challenge and below(1 << 53) * _UNIT < rate:
                if any(c < WILD and colors[c] == previous for c in hand):
                    if plain.takes_back:
                        hand.append(discard.pop())
                        color = previous
                    give(cur, plain.guilty_draw)
                    cur = victim
                else:
                    give(victim, plain.innocent_draw)
                    cur = after
            else:
                give(victim, 4)
                cur = after
    mine = min(len(hands[s]) for s in range(n) if team[s])
    theirs = min(len(hands[s]) for s in range(n) if not team[s])
    return 0.5 if mine == theirs else (1.0 if mine < theirs else 0.0)


def search_stats(plain: Plain, spot: Position, firsts: Sequence[int], iterations: int,
                 seed: int, *, rate: float = 0.5, max_steps: int = MAX_STEPS,
                 policy: int = 0, use_compiled: bool = True) -> tuple[list[float], list[float]]:
    """For each first move of ``firsts`` (a card, a wild as ``card | colour << 8``, or -1
    to draw): in how many of ``iterations`` deals of ``spot`` the side of ``spot.seat``
    went out first (a cut-short playout counts 0, 0.5 or 1 by the hand sizes), and the
    sum over the deals of the squared difference of its outcome from the first move's
    (for a paired comparison with ``firsts[0]``). ``rate``: the chance that a Wild Draw
    Four is challenged where the rules allow it. ``policy``: 0 for the policy of the
    module docstring; +1: the seat's side plays the matching card of the colour it holds
    most; +2: the other side plays any matching card at random, wilds included; +4: the
    seat's side plays a matching Skip, Reverse or Draw Two first.
    ``use_compiled=False`` runs the plain Python version (the same numbers)."""
    wins, squares, _, _ = search_totals(plain, spot, firsts, iterations, seed, rate=rate,
                                        max_steps=max_steps, policy=policy,
                                        use_compiled=use_compiled)
    return wins, squares


def search_totals(plain: Plain, spot: Position, firsts: Sequence[int], iterations: int,
                  seed: int, *, rate: float = 0.5, max_steps: int = MAX_STEPS,
                  policy: int = 0, use_compiled: bool = True
                  ) -> tuple[list[float], list[float], float, float]:
    """:func:`search_stats` with each deal weighted by the likelihood of
    ``spot.evidence`` (:mod:`unokit.bots.likelihood`; 1 without evidence), and the sums
    of the weights and of their squares: ``(wins, squares, weights, squared weights)``."""
    run = compiled() if use_compiled else None
    if run is None:
        both = _py_search(plain, spot, firsts, iterations, seed, rate, max_steps, policy)
    else:
        import numpy as np  # installed with numba: compiled() found both

        n = len(spot.sizes)
        width = max([1, *spot.sizes, *(len(h) for h in spot.known if h is not None)])
        known = np.zeros((n, width), np.int64)
        known_len = np.full(n, -1, np.int64)
        slots = np.zeros((n, width), np.int64)
        slot_len = np.zeros(n, np.int64)
        for seat in range(n):
            hand = spot.known[seat]
            if hand is not None:
                known[seat, :len(hand)] = hand
                known_len[seat] = len(hand)
            masks = spot.slots[seat]
            if masks and len(masks) <= width:
                slots[seat, :len(masks)] = masks
                slot_len[seat] = len(masks)
        out = run(np.array([*plain.params(), policy], np.int64), np.array(spot.pool, np.int64),
                  np.array(spot.sizes, np.int64), known, known_len, slots, slot_len,
                  np.array(spot.discard, np.int64), spot.color, spot.direction, spot.seat,
                  np.array(spot.team, np.bool_), np.array(list(firsts), np.int64), iterations,
                  np.uint64(seed & MASK64), rate, max_steps, np.array(RANKS, np.int64),
                  np.array(COLORS, np.int64), np.array(FEATURE_BITS, np.int64),
                  np.array(spot.evidence, np.int64).reshape(len(spot.evidence), 5),
                  float(spot.draw_slack), float(spot.name_slack), int(spot.mix))
        both = [float(w) for w in out]
    k = len(firsts)
    return both[:k], both[k:2 * k], both[2 * k], both[2 * k + 1]


def search_wins(plain: Plain, spot: Position, firsts: Sequence[int], iterations: int,
                seed: int, **options: Any) -> list[float]:
    """The wins of :func:`search_stats` alone (same arguments)."""
    return search_stats(plain, spot, firsts, iterations, seed, **options)[0]


__all__ = ["MAX_STEPS", "SUPPORT", "Plain", "Position", "compiled", "fill_slots",
           "sample_deals", "search_stats", "search_totals", "search_wins"]
