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

import importlib.util
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from unokit.bots.deals import FEATURE_BITS, _py_below, fill_slots, py_deals, sample_deals
from unokit.bots.likelihood import COLORS, RANKS, _deal_weight
from unokit.bots.plain import SUPPORT, Plain, Position
from unokit.engine.cards import (
    DRAW_TWO,
    REVERSE,
    SKIP,
    WILD,
    WILD_BLANK,
    WILD_DRAW_FOUR,
)
from unokit.engine.rng import GOLDEN, MASK64, MIX1, MIX2

if TYPE_CHECKING:
    import numpy as np

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
"""Whether numba is installed (the ``sim`` extra); numba and numpy are imported only
when the compiled playouts are first used (:func:`compiled`)."""

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


# -------------------------------------------------------------------- compiled
def _next_arrays(st: Any) -> Any:
    st[0] += np.uint64(GOLDEN)
    z = st[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
    return z ^ (z >> np.uint64(31))


def _below_arrays(st: Any, bound: int) -> Any:
    return np.int64((_nb_next(st) >> np.uint64(11)) % np.uint64(bound))


def _take_arrays(pile: Any, pl: Any, discard: Any, dl: Any, st: Any) -> Any:
    """The top card of the pile (reshuffling the discard pile into it), -1 if none;
    ``pl`` and ``dl`` are one-element arrays holding the lengths."""
    if pl[0] == 0:
        if dl[0] <= 1:
            return -1
        count = dl[0] - 1
        top = discard[count]
        for i in range(count):
            pile[i] = discard[i]
        discard[0] = top
        dl[0] = 1
        pl[0] = count
        for i in range(count - 1, 0, -1):
            j = _nb_below(st, i + 1)
            pile[i], pile[j] = pile[j], pile[i]
    pl[0] -= 1
    return pile[pl[0]]


def _rollout_arrays(params: Any, hands: Any, hl: Any, pile: Any, pl: Any, discard: Any, dl: Any,
                color: int, direction: int, cur: int, team: Any, first: int, st: Any,
                rate: float, max_steps: int, ranks: Any, colors: Any) -> float:
    n = hl.shape[0]
    draw_one = params[0] == 1
    play_drawn = params[1] == 1
    rev_skips = params[2] == 1 and n == 2
    smart = (params[7] & 1) | ((params[7] >> 1) & 2)
    strict = params[3] == 2
    loose = params[7] & 2 == 2 and not strict
    challenge = params[3] == 1
    counts = np.zeros(4, np.int64)
    idle = 0
    for step in range(max_steps):
        size = hl[cur]
        trank = ranks[discard[dl[0] - 1]]
        card = -1
        chosen = -1
        if step == 0:
            if first >= 0:
                card = first & 255
                chosen = first >> 8 if card >= WILD else -1
        else:
            kind, options, best = _nb_policy_kind(hands[cur], size, color, trank, team[cur],
                                                  smart, loose, counts, ranks, colors)
            if options > 0:
                card = _nb_nth(hands[cur], size, _nb_below(st, options), kind, color, trank,
                               best, counts, ranks, colors)
        if card < 0:
            got = -1
            drew = False
            while True:
                drawn = _nb_take(pile, pl, discard, dl, st)
                if drawn < 0:
                    break
                drew = True
                hands[cur, hl[cur]] = drawn
                hl[cur] += 1
                fits = drawn >= WILD or colors[drawn] == color or ranks[drawn] == trank
                if fits and strict and drawn == WILD_DRAW_FOUR:
                    for i in range(hl[cur]):
                        c = hands[cur, i]
                        if c < WILD and colors[c] == color:
                            fits = False
                if fits:
                    got = drawn
                    break
                if draw_one:
                    break
            if got < 0 or not play_drawn:
                idle = 0 if drew else idle + 1
                if idle >= n:
                    break
                cur = (cur + direction) % n
                continue
            card = got
        idle = 0
        size = hl[cur]
        for i in range(size):
            if hands[cur, i] == card:
                for j in range(i, size - 1):
                    hands[cur, j] = hands[cur, j + 1]
                break
        hl[cur] = size - 1
        size -= 1
        previous = color
        if card >= WILD:
            color = chosen if chosen >= 0 else _nb_most_held(hands[cur], size, counts, colors)
        else:
            color = colors[card]
        discard[dl[0]] = card
        dl[0] += 1
        if size == 0:
            return 1.0 if team[cur] else 0.0
        rank = ranks[card]
        after, direction, victim = _nb_after(card, rank, cur, direction, n, rev_skips)
        if victim < 0:
            cur = after
        elif rank == DRAW_TWO:
            for _ in range(2):
                drawn = _nb_take(pile, pl, discard, dl, st)
                if drawn < 0:
                    break
                hands[victim, hl[victim]] = drawn
                hl[victim] += 1
            cur = after
        else:
            challenged = False
            if challenge:
                challenged = bool(np.float64(_nb_next(st) >> np.uint64(11)) * _UNIT < rate)
            taker = victim
            count = 4
            if challenged:
                guilty = False
                for i in range(size):
                    c = hands[cur, i]
                    if c < WILD and colors[c] == previous:
                        guilty = True
                if guilty:
                    if params[6] == 1:
                        dl[0] -= 1
                        hands[cur, hl[cur]] = discard[dl[0]]
                        hl[cur] += 1
                        color = previous
                    taker = cur
                    count = params[4]
                    after = victim
                else:
                    count = params[5]
            for _ in range(count):
                drawn = _nb_take(pile, pl, discard, dl, st)
                if drawn < 0:
                    break
                hands[taker, hl[taker]] = drawn
                hl[taker] += 1
            cur = after
    mine = 1 << 30
    theirs = 1 << 30
    for s in range(n):
        if team[s]:
            mine = min(mine, hl[s])
        else:
            theirs = min(theirs, hl[s])
    if mine == theirs:
        return 0.5
    return 1.0 if mine < theirs else 0.0


def _nb_search(params: Any, pool: Any, sizes: Any, known: Any, known_len: Any, slots: Any,
               slot_len: Any, discard0: Any, color: int, direction: int, seat: int, team: Any,
               firsts: Any, iterations: int, seed: Any, rate: float, max_steps: int,
               ranks: Any, colors: Any, features: Any, ev: Any, draw_slack: float,
               name_slack: float, mix: int) -> Any:
    n = sizes.shape[0]
    rows = ev.shape[0]
    cap = pool.shape[0] + discard0.shape[0] + 8
    for s in range(n):
        if known_len[s] > 0:
            cap += known_len[s]
    st = np.zeros(1, np.uint64)
    st[0] = seed
    rs = np.zeros(1, np.uint64)
    moves = firsts.shape[0]
    wins = np.zeros(2 * moves + 2, np.float64)
    count = pool.shape[0]
    cards = np.empty(count, np.int64)
    hands = np.zeros((n, cap), np.int64)
    hl = np.zeros(n, np.int64)
    constrained = np.zeros(n, np.bool_)
    total_slots = 0
    for s in range(n):
        if known_len[s] < 0 and slot_len[s] == sizes[s]:
            for i in range(slot_len[s]):
                if slots[s, i] != 0:
                    constrained[s] = True
            if constrained[s]:
                total_slots += sizes[s]
    # The slots, most constrained first (stable: seat, then index).
    order_seat = np.zeros(total_slots, np.int64)
    order_index = np.zeros(total_slots, np.int64)
    filled = 0
    for bits in range(21, -1, -1):
        for s in range(n):
            if constrained[s]:
                for i in range(sizes[s]):
                    mask = slots[s, i]
                    ones = 0
                    while mask:
                        ones += mask & 1
                        mask >>= 1
                    if ones == bits:
                        order_seat[filled] = s
                        order_index[filled] = i
                        filled += 1
    rest = np.empty(count, np.int64)
    w_hands = np.zeros((n, cap), np.int64)
    w_hl = np.zeros(n, np.int64)
    w_pile = np.zeros(cap, np.int64)
    w_discard = np.zeros(cap, np.int64)
    pl = np.zeros(1, np.int64)
    dl = np.zeros(1, np.int64)
    keep = np.zeros(n, np.bool_)
    kept_slot = np.zeros(total_slots + 1, np.int64)
    seen = np.zeros(total_slots + 1, np.bool_)
    parent = np.zeros(total_slots + 1, np.int64)
    queue = np.zeros(total_slots + 1, np.int64)
    counts = np.zeros(4, np.int64)
    place_seat = np.zeros(n * cap, np.int64)
    place_index = np.zeros(n * cap, np.int64)
    for _ in range(iterations):
        for i in range(count):
            cards[i] = pool[i]
        for i in range(count - 1, 0, -1):
            j = _nb_below(st, i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        pos = 0
        for s in range(n):
            if known_len[s] >= 0:
                for i in range(known_len[s]):
                    hands[s, i] = known[s, i]
                hl[s] = known_len[s]
            else:
                for i in range(sizes[s]):
                    hands[s, i] = cards[pos + i]
                hl[s] = sizes[s]
                pos += sizes[s]
        pile_count = count - pos
        pile_start = pos
        kept = 0
        for s in range(n):
            keep[s] = constrained[s]
            if constrained[s] and draw_slack > 0.0:  # dealt as if its draws said nothing
                keep[s] = not np.float64(_nb_next(st) >> np.uint64(11)) * _UNIT < draw_slack
            if keep[s]:
                kept += 1
        if kept > 0:
            length = 0
            for s in range(n):
                if keep[s]:
                    for i in range(hl[s]):
                        rest[length] = hands[s, i]
                        length += 1
            for i in range(pile_count):
                rest[length] = cards[pile_start + i]
                length += 1
            for i in range(length - 1, 0, -1):
                j = _nb_below(st, i + 1)
                rest[i], rest[j] = rest[j], rest[i]
            for k in range(total_slots):
                s = order_seat[k]
                if not keep[s]:
                    continue
                index = order_index[k]
                mask = slots[s, index]
                pick = length - 1
                if mask != 0:
                    for i in range(length - 1, -1, -1):
                        if features[rest[i]] & mask == 0:
                            pick = i
                            break
                rest[pick], rest[length - 1] = rest[length - 1], rest[pick]
                hands[s, index] = rest[length - 1]
                length -= 1
            # as unokit.bots.deals.repair_slots: mend each misfit by the shortest chain,
            # ending in the pile or, failing that, in a hidden hand without slots
            nk = 0
            for k in range(total_slots):
                if keep[order_seat[k]]:
                    kept_slot[nk] = k
                    nk += 1
            for a in range(nk):
                ka = kept_slot[a]
                if features[hands[order_seat[ka], order_index[ka]]] & \
                        slots[order_seat[ka], order_index[ka]] == 0:
                    continue
                for b in range(nk):
                    seen[b] = False
                    parent[b] = -1
                seen[a] = True
                queue[0] = a
                qh = 0
                qt = 1
                end_b = -1
                end_s = -1
                end_i = -1
                while qh < qt and end_b < 0:
                    b = queue[qh]
                    qh += 1
                    kb = kept_slot[b]
                    mask = slots[order_seat[kb], order_index[kb]]
                    for i in range(length - 1, -1, -1):
                        if features[rest[i]] & mask == 0:
                            end_b = b
                            end_i = i
                            break
                    for fs in range(n):
                        if end_b >= 0:
                            break
                        if known_len[fs] >= 0 or keep[fs]:
                            continue
                        for i in range(hl[fs]):
                            if features[hands[fs, i]] & mask == 0:
                                end_b = b
                                end_s = fs
                                end_i = i
                                break
                    if end_b >= 0:
                        break
                    for c2 in range(nk):
                        kc = kept_slot[c2]
                        held = hands[order_seat[kc], order_index[kc]]
                        if not seen[c2] and features[held] & mask == 0 and \
                                features[held] & slots[order_seat[kc], order_index[kc]] == 0:
                            seen[c2] = True
                            parent[c2] = b
                            queue[qt] = c2
                            qt += 1
                if end_b < 0:
                    continue
                kb = kept_slot[end_b]
                carried = hands[order_seat[kb], order_index[kb]]
                if end_s < 0:
                    hands[order_seat[kb], order_index[kb]] = rest[end_i]
                else:
                    hands[order_seat[kb], order_index[kb]] = hands[end_s, end_i]
                b = end_b
                while b != a:
                    b = parent[b]
                    kb = kept_slot[b]
                    held = hands[order_seat[kb], order_index[kb]]
                    hands[order_seat[kb], order_index[kb]] = carried
                    carried = held
                if end_s < 0:
                    rest[end_i] = carried
                else:
                    hands[end_s, end_i] = carried
            for i in range(length):
                cards[i] = rest[i]
            pile_start = 0
            pile_count = length
        if mix > 0:  # as unokit.bots.deals.mix_deal
            places = 0
            for s in range(n):
                if known_len[s] < 0:
                    for i in range(hl[s]):
                        place_seat[places] = s
                        place_index[places] = i
                        places += 1
            total = places + pile_count
            if total >= 2:
                for _ in range(mix * total):
                    a = _nb_below(st, total)
                    b = _nb_below(st, total)
                    if a == b:
                        continue
                    mask_a = 0
                    mask_b = 0
                    if a < places:
                        card_a = hands[place_seat[a], place_index[a]]
                        if keep[place_seat[a]]:
                            mask_a = slots[place_seat[a], place_index[a]]
                    else:
                        card_a = cards[pile_start + a - places]
                    if b < places:
                        card_b = hands[place_seat[b], place_index[b]]
                        if keep[place_seat[b]]:
                            mask_b = slots[place_seat[b], place_index[b]]
                    else:
                        card_b = cards[pile_start + b - places]
                    if features[card_b] & mask_a != 0 or features[card_a] & mask_b != 0:
                        continue
                    if a < places:
                        hands[place_seat[a], place_index[a]] = card_b
                    else:
                        cards[pile_start + a - places] = card_b
                    if b < places:
                        hands[place_seat[b], place_index[b]] = card_a
                    else:
                        cards[pile_start + b - places] = card_a
        weight = 1.0
        if rows > 0:
            weight = _nb_weight(ev, rows, hands, hl, name_slack, ranks, colors, counts)
        wins[2 * moves] += weight
        wins[2 * moves + 1] += weight * weight
        roll = _nb_below(st, 1 << 62)
        base = 0.0
        for c in range(moves):
            for s in range(n):
                for i in range(hl[s]):
                    w_hands[s, i] = hands[s, i]
                w_hl[s] = hl[s]
            for i in range(pile_count):
                w_pile[i] = cards[pile_start + i]
            pl[0] = pile_count
            for i in range(discard0.shape[0]):
                w_discard[i] = discard0[i]
            dl[0] = discard0.shape[0]
            rs[0] = np.uint64(roll)
            won = _nb_rollout(params, w_hands, w_hl, w_pile, pl, w_discard, dl, color,
                              direction, seat, team, firsts[c], rs, rate, max_steps, ranks,
                              colors)
            if c == 0:
                base = won
            wins[c] += weight * won
            wins[moves + c] += weight * (won - base) ** 2
    return wins


# The compiled functions call each other by these names, bound to the compiled versions
# by compiled() before the first compilation.
_nb_next: Any = _next_arrays
_nb_below: Any = _below_arrays
_nb_take: Any = _take_arrays
_nb_rollout: Any = _rollout_arrays
_nb_policy_kind: Any = _policy_kind
_nb_nth: Any = _nth
_nb_most_held: Any = _most_held
_nb_after: Any = _after
_nb_weight: Any = _deal_weight
_compiled: Callable[..., Any] | None = None


def compiled() -> Callable[..., Any] | None:
    """The compiled search (compiled at the first call; ``None`` without numba)."""
    global _compiled, _nb_next, _nb_below, _nb_take, _nb_rollout
    global _nb_policy_kind, _nb_nth, _nb_most_held, _nb_after, _nb_weight
    global np, HAVE_NUMBA
    if not HAVE_NUMBA:
        return None
    if _compiled is None:
        try:
            import numba
            import numpy as np
        except ImportError:  # pragma: no cover - installed but broken
            HAVE_NUMBA = False
            return None
        jit = numba.njit(cache=True, nogil=True)
        _nb_next = jit(_next_arrays)
        _nb_below = jit(_below_arrays)
        _nb_take = jit(_take_arrays)
        _nb_policy_kind = jit(_policy_kind)
        _nb_nth = jit(_nth)
        _nb_most_held = jit(_most_held)
        _nb_after = jit(_after)
        _nb_weight = jit(_deal_weight)
        _nb_rollout = jit(_rollout_arrays)
        _compiled = jit(_nb_search)
    return _compiled


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
