"""Round points and match results (RULES.md section 3), as pure functions.

>>> from unokit.engine.rules import Rules
>>> from unokit.engine.cards import parse_card
>>> hands = [[], [parse_card("W"), parse_card("G+2")], [parse_card("B5")]]
>>> round_points(Rules.preset("official", players=3), hands, winner=0)
[75, 0, 0]
>>> round_points(Rules.preset("official", players=3, scoring="penalty"), hands, winner=0)
[0, 70, 5]
"""

from __future__ import annotations

from collections.abc import Sequence

from unokit.engine.cards import CODES, hand_points
from unokit.engine.rules import Rules


def partner(rules: Rules, seat: int) -> int:
    """The partner of a seat with ``teams = "pairs"`` (-1 without teams)."""
    if rules.teams != "pairs":
        return -1
    half = rules.players // 2
    return (seat + half) % rules.players


def teammates(rules: Rules, seat: int) -> tuple[int, ...]:
    """The seat and its partner, if any."""
    other = partner(rules, seat)
    return (seat,) if other < 0 else (seat, other)


def round_points(
    rules: Rules,
    hands: Sequence[Sequence[int]],
    winner: int,
    last_card: int = -1,
    went_out: bool = True,
) -> list[int]:
    """What each seat's match total changes by when ``winner`` wins the round with the
    ``hands`` left. With teams, both partners show the team's change. A winner who went
    out counts no cards of their own (even if a last-card 7 or 0 gave them some); the
    winner of a blocked round counts their hand."""
    n = len(hands)
    points = [hand_points(hand, rules.lone_zero_points) for hand in hands]
    out = [0] * n
    if rules.scoring == "lazy":
        return out
    if rules.scoring == "standard":
        mates = teammates(rules, winner)
        gained = sum(points[seat] for seat in range(n) if seat not in mates)
        for seat in mates:
            out[seat] = gained
        return out
    bonus = dict(rules.going_out_bonus).get(CODES[last_card], 0) if last_card >= 0 else 0
    own = list(points)
    if went_out:
        own[winner] = 0
    own[winner] -= bonus
    for seat in range(n):
        out[seat] = sum(own[mate] for mate in teammates(rules, seat))
    return out


def lowest_hand(hands: Sequence[Sequence[int]], candidates: Sequence[int], rules: Rules) -> int:
    """The winner of a blocked round: the lowest hand value, then fewer cards, then the
    earlier seat in ``candidates`` (which start after the dealer)."""
    return min(
        candidates,
        key=lambda s: (hand_points(hands[s], rules.lone_zero_points), len(hands[s]),
                       candidates.index(s)),
    )


def lazy_loser(hands: Sequence[Sequence[int]], candidates: Sequence[int], rules: Rules) -> int:
    """The loser of a lazy-scored round: most points in hand, then more cards, then the
    later seat in ``candidates`` (which start after the dealer)."""
    return max(
        candidates,
        key=lambda s: (hand_points(hands[s], rules.lone_zero_points), len(hands[s]),
                       candidates.index(s)),
    )


def best_seat(values: Sequence[int], seats: Sequence[int], highest: bool, prefer: int) -> int:
    """The seat among ``seats`` with the highest (or lowest) value; on a tie ``prefer``
    if it is tied, otherwise the lowest seat number."""
    pick = max if highest else min
    best = pick(values[s] for s in seats)
    tied = [s for s in seats if values[s] == best]
    return prefer if prefer in tied else min(tied)
