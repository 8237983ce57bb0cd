"""The compiled playouts of the search bot (:mod:`unokit.bots.playout`): the same deals
and playouts as the plain-Python ones, on numpy arrays, compiled with numba at the
first call of :func:`compiled` (``None`` where numba is not installed: the ``sim``
extra). Both draw from the same SplitMix64 stream and give the same numbers.

>>> run = compiled()
>>> run is None or callable(run)
True
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from unokit.bots.likelihood import _deal_weight
from unokit.bots.playout_policy import _UNIT, _after, _most_held, _nth, _policy_kind
from unokit.engine.cards import (
    DRAW_TWO,
    WILD,
    WILD_DRAW_FOUR,
)
from unokit.engine.rng import GOLDEN, MIX1, MIX2

if TYPE_CHECKING:
    import numpy as np

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
"""Whether numba is installed (the ``sim`` extra); numba and numpy are imported only
when the compiled playouts are first used (:func:`compiled`)."""

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
