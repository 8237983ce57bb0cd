"""The playout policy of the search bot's playouts (:mod:`unokit.bots.playout`), as
functions of plain integers and sequences, so that the plain-Python playouts call them
as they are and the compiled ones (:mod:`unokit.bots.playout_compiled`) compile them
with numba: which cards a seat picks from, the n-th of them, who plays after a card,
and the colour a hand holds most of.

>>> from unokit.bots.likelihood import COLORS
>>> from unokit.engine.cards import parse_card as c
>>> _most_held([c("G1"), c("B2"), c("G5")], 3, [0, 0, 0, 0], COLORS)
2
"""

from __future__ import annotations

from typing import Any

from unokit.engine.cards import (
    DRAW_TWO,
    REVERSE,
    SKIP,
    WILD,
    WILD_BLANK,
)

MAX_STEPS = 2000
"""A playout longer than this is scored by the hand sizes."""

_UNIT = 1.0 / 9007199254740992.0


# ------------------------------------------------------------------ the policy
# Both playouts (plain Python on lists, compiled on arrays) pick their cards with these
# functions: ``hand[:size]`` is a hand, ``counts`` four integers to fill.
_MATCHING, _MATCHING_BEST, _MATCHING_OR_WILD, _WILDS, _MATCHING_ACTION = 0, 1, 2, 3, 4
"""The cards :func:`_nth` picks from: matching coloured cards, those of the colour held
most, matching cards and wilds, wilds (a wild fits these two), or matching Skips,
Reverses and Draw Twos."""


def _policy_kind(hand: Any, size: int, color: int, trank: int, mine: bool, smart: int,
                 loose: bool, counts: Any, ranks: Any, colors: Any) -> tuple[int, int, int]:
    """What the policy picks a card from (see the module docstring and
    :func:`search_stats`): ``(kind, how many cards of that kind, most held)``; it fills
    ``counts`` with the cards of each colour. ``smart``: +1 the seat's side plays the
    colour it holds most, +2 a matching Skip, Reverse or Draw Two first."""
    matching = 0
    wilds = 0
    for j in range(4):
        counts[j] = 0
    for i in range(size):
        c = hand[i]
        if c >= WILD:
            wilds += 1
        else:
            counts[colors[c]] += 1
            if colors[c] == color or ranks[c] == trank:
                matching += 1
    if loose and not mine:
        return _MATCHING_OR_WILD, matching + wilds, 0
    if matching > 0 and smart & 2 and mine:
        actions = 0
        for i in range(size):
            c = hand[i]
            if c < WILD and (colors[c] == color or ranks[c] == trank) and (
                    ranks[c] == SKIP or ranks[c] == REVERSE or ranks[c] == DRAW_TWO):
                actions += 1
        if actions > 0:
            return _MATCHING_ACTION, actions, 0
    if matching > 0 and smart & 1 and mine:
        best = 0
        ties = 0
        for i in range(size):
            c = hand[i]
            if c < WILD and (colors[c] == color or ranks[c] == trank):
                if counts[colors[c]] > best:
                    best = counts[colors[c]]
                    ties = 1
                elif counts[colors[c]] == best:
                    ties += 1
        return _MATCHING_BEST, ties, best
    if matching > 0:
        return _MATCHING, matching, 0
    return _WILDS, wilds, 0


def _nth(hand: Any, size: int, k: int, kind: int, color: int, trank: int, best: int,
         counts: Any, ranks: Any, colors: Any) -> int:
    """The card ``k`` (from 0) of ``hand[:size]`` among those of ``kind`` (see
    :func:`_policy_kind`), -1 if there are not so many."""
    for i in range(size):
        c = hand[i]
        if c >= WILD:
            fit = _MATCHING_OR_WILD <= kind <= _WILDS
        elif kind == _WILDS:
            fit = False
        else:
            fit = (colors[c] == color or ranks[c] == trank) and (
                kind != _MATCHING_BEST or counts[colors[c]] == best) and (
                kind != _MATCHING_ACTION or ranks[c] == SKIP or ranks[c] == REVERSE
                or ranks[c] == DRAW_TWO)
        if fit:
            if k == 0:
                return int(c)
            k -= 1
    return -1


def _after(card: int, rank: int, cur: int, direction: int, n: int,
           rev_skips: bool) -> tuple[int, int, int]:
    """Where play goes after seat ``cur`` plays ``card`` (of ``rank``): ``(the next seat,
    the direction, the seat that must draw)``; for a Draw Two or Wild Draw Four the next
    seat is the one after that victim (a challenge may change it), else the victim is -1."""
    if 0 <= rank <= 9 or card == WILD or card == WILD_BLANK:  # noqa: SIM109 (compiled)
        return (cur + direction) % n, direction, -1
    if rank == SKIP:
        return (cur + 2 * direction) % n, direction, -1
    if rank == REVERSE:
        if rev_skips:
            return cur, -direction, -1
        return (cur - direction) % n, -direction, -1
    victim = (cur + direction) % n
    return (victim + direction) % n, direction, victim


def _most_held(hand: Any, size: int, counts: Any, colors: Any) -> int:
    """The colour ``hand[:size]`` holds most of (the first in R, Y, G, B order)."""
    for j in range(4):
        counts[j] = 0
    for i in range(size):
        c = hand[i]
        if c < WILD:
            counts[colors[c]] += 1
    color = 0
    for j in range(1, 4):
        if counts[j] > counts[color]:
            color = j
    return color
