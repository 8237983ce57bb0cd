"""The deals of the search's playouts (:mod:`unokit.bots.playout`) in plain Python: the
hidden cards of a :class:`~unokit.bots.plain.Position` dealt again and again from a
SplitMix64 stream, the compiled search dealing the same from the same stream.

A deal: the unseen cards are shuffled and dealt to the hands the seat cannot see, as
many as each holds, the rest being the draw pile (top last). Where the seat's memory
keeps *slots* for a hand (:mod:`unokit.bots.memory`), the cards of those hands and of the
draw pile are shuffled together and dealt out again (:func:`fill_slots`), except for a
hand drawn to be left as first dealt (a share ``draw_slack`` of the deals). Each deal
carries its weight given the evidence of the position (:mod:`unokit.bots.likelihood`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from unokit.bots.likelihood import COLORS, RANKS, _deal_weight
from unokit.bots.plain import Position
from unokit.engine.cards import COLOR_OF, NUM_KINDS, RANK_OF, WILD
from unokit.engine.rng import GOLDEN, MASK64, MIX1, MIX2

_UNIT = 1.0 / 9007199254740992.0
FEATURE_BITS = [(1 << 20) if k >= WILD else (1 << COLOR_OF[k]) | (1 << (4 + RANK_OF[k]))
                for k in range(NUM_KINDS)]
"""The features of each card kind, as :data:`unokit.bots.memory.FEATURES`."""


def _py_below(st: list[int], bound: int) -> int:
    """The next SplitMix64 number of the state ``st[0]`` (advanced), below ``bound``."""
    st[0] = (st[0] + GOLDEN) & MASK64
    z = st[0]
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    z ^= z >> 31
    return (z >> 11) % bound


def fill_slots(cards: list[int], slots: Sequence[tuple[int, int, int]],
               hands: list[list[int]], free: Sequence[int] = ()) -> None:
    """Deal to each slot ``(mask, seat, index)`` in turn (``hands[seat][index]``) the last
    card of ``cards`` whose features (:data:`FEATURE_BITS`) miss ``mask``, the last card if
    none does; ``cards`` keeps the rest, in order but for the swaps of the cards dealt.
    Then every slot left with a card that does not fit is mended where the cards allow,
    the hands of the seats ``free`` (hidden, without slots) giving cards too
    (:func:`repair_slots`).

    >>> from unokit.engine.cards import parse_card as c
    >>> no_red, no_red_nor_yellow = 1 << 0, 1 << 0 | 1 << 1  # the colours' feature bits
    >>> hands, cards = [[0, 0]], [c("Y3"), c("G2"), c("R5")]
    >>> fill_slots(cards, [(no_red, 0, 0), (no_red_nor_yellow, 0, 1)], hands)
    >>> hands == [[c("Y3"), c("G2")]], cards == [c("R5")]  # greedy had G2 in slot 1
    (True, True)
    """
    for mask, seat, index in slots:
        pick = len(cards) - 1
        if mask:
            for i in range(len(cards) - 1, -1, -1):
                if not FEATURE_BITS[cards[i]] & mask:
                    pick = i
                    break
        cards[pick], cards[-1] = cards[-1], cards[pick]
        hands[seat][index] = cards.pop()
    repair_slots(cards, slots, hands, free)


def repair_slots(cards: list[int], slots: Sequence[tuple[int, int, int]],
                 hands: list[list[int]], free: Sequence[int] = ()) -> None:
    """Mend the slots whose card does not fit (the greedy filler took every card that
    fits them for slots before them), each by the shortest chain of moves found
    breadth first: the slot takes a card that fits it from another slot, which takes
    one that fits it from another, and so on, until one takes a card of ``cards`` (the
    last that fits) or, failing that, of the hands of the seats ``free`` (in seat order,
    the first that fits), and that place gets the misfit. A slot no chain can mend keeps its
    card. Nothing random is drawn, so that the compiled deals
    (:mod:`unokit.bots.playout`) do the same."""
    count = len(slots)
    for start in range(count):
        mask0, seat0, index0 = slots[start]
        if not FEATURE_BITS[hands[seat0][index0]] & mask0:
            continue
        parent = [-1] * count
        seen = [False] * count
        seen[start] = True
        queue = [start]
        head = 0
        end_slot, end_seat, end_card = -1, -1, -1
        while head < len(queue) and end_slot < 0:
            k = queue[head]
            head += 1
            mask = slots[k][0]
            for i in range(len(cards) - 1, -1, -1):
                if not FEATURE_BITS[cards[i]] & mask:
                    end_slot, end_card = k, i
                    break
            for seat in free:
                if end_slot >= 0:
                    break
                for i in range(len(hands[seat])):
                    if not FEATURE_BITS[hands[seat][i]] & mask:
                        end_slot, end_seat, end_card = k, seat, i
                        break
            if end_slot >= 0:
                break
            for j in range(count):
                _, seat, index = slots[j]
                if not seen[j] and not FEATURE_BITS[hands[seat][index]] & mask \
                        and not FEATURE_BITS[hands[seat][index]] & slots[j][0]:
                    seen[j] = True
                    parent[j] = k
                    queue.append(j)
        if end_slot < 0:
            continue
        # along the chain from the end back to the start, each slot takes the card of
        # the one after it; the start's misfit goes where the end's card was
        _, seat, index = slots[end_slot]
        carried = hands[seat][index]
        hands[seat][index] = cards[end_card] if end_seat < 0 else hands[end_seat][end_card]
        k = end_slot
        while k != start:
            k = parent[k]
            _, seat, index = slots[k]
            carried, hands[seat][index] = hands[seat][index], carried
        if end_seat < 0:
            cards[end_card] = carried
        else:
            hands[end_seat][end_card] = carried


def mix_deal(hands: list[list[int]], pile: list[int], masks: Sequence[Sequence[int]],
             steps: int, below: Callable[[int], int]) -> None:
    """Swap cards between the hidden places of a deal (every card of ``hands`` and
    ``pile``; ``masks[seat][index]`` is the slot of ``hands[seat][index]``, 0 for a free
    place and for the pile), ``steps`` times: two places drawn at random exchange their
    cards only if each card then fits its slot (:data:`FEATURE_BITS`).

    The swaps are a Metropolis walk whose steady state is the uniform law over the deals
    that respect every slot: from a deal that respects them (as :func:`fill_slots` makes
    where it can) every deal it reaches respects them too, and the share of misfits of
    one that does not never grows. The hands and pile are changed in place.

    >>> from unokit.engine.cards import parse_card as c
    >>> hands, pile = [[c("R1")], [c("G2")]], [c("Y3"), c("B4")]
    >>> st = [7]
    >>> mix_deal(hands, pile, [[0], [1 << 1 | 1 << 2]], 50, lambda b: _py_below(st, b))
    >>> hands[1][0] in (c("R1"), c("B4"))  # never yellow or green
    True
    """
    places = [(seat, index) for seat in range(len(hands)) for index in range(len(hands[seat]))]
    count = len(places) + len(pile)
    if count < 2:
        return
    for _ in range(steps):
        a = below(count)
        b = below(count)
        if a == b:
            continue
        if a < len(places):
            sa, ia = places[a]
            card_a, mask_a = hands[sa][ia], masks[sa][ia]
        else:
            card_a, mask_a = pile[a - len(places)], 0
        if b < len(places):
            sb, ib = places[b]
            card_b, mask_b = hands[sb][ib], masks[sb][ib]
        else:
            card_b, mask_b = pile[b - len(places)], 0
        if FEATURE_BITS[card_b] & mask_a or FEATURE_BITS[card_a] & mask_b:
            continue
        if a < len(places):
            hands[sa][ia] = card_b
        else:
            pile[a - len(places)] = card_b
        if b < len(places):
            hands[sb][ib] = card_a
        else:
            pile[b - len(places)] = card_a


def _py_shuffle(cards: list[int], below: Callable[[int], int]) -> None:
    for i in range(len(cards) - 1, 0, -1):
        j = below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]


def py_deals(spot: Position, below: Callable[[int], int]
              ) -> Iterator[tuple[list[list[int]], list[int], float]]:
    """Deals of ``spot`` without end, each ``(hands, draw pile, weight)``: the deal of the
    module docstring, where a hand with slots is dealt as if it had none in a share
    ``spot.draw_slack`` of the deals, weighted by the evidence
    (:mod:`unokit.bots.likelihood`)."""
    n = len(spot.sizes)
    constrained = [seat for seat in range(n) if spot.known[seat] is None
                   and len(spot.slots[seat]) == spot.sizes[seat] and any(spot.slots[seat])]
    order = sorted(((spot.slots[seat][index], seat, index) for seat in constrained
                    for index in range(spot.sizes[seat])),
                   key=lambda slot: -bin(slot[0]).count("1"))
    rows = [tuple(row) for row in spot.evidence]
    slack = spot.draw_slack
    counts = [0, 0, 0, 0]
    while True:
        cards = list(spot.pool)
        _py_shuffle(cards, below)
        hands: list[list[int]] = []
        pos = 0
        for seat in range(n):
            known = spot.known[seat]
            if known is not None:
                hands.append(list(known))
            else:
                hands.append(cards[pos:pos + spot.sizes[seat]])
                pos += spot.sizes[seat]
        pile = cards[pos:]
        keep = constrained
        if order and slack > 0.0:  # hands dealt as if their draws said nothing
            keep = [seat for seat in constrained if not below(1 << 53) * _UNIT < slack]
        if keep:
            rest = [card for seat in keep for card in hands[seat]] + pile
            _py_shuffle(rest, below)
            fill_slots(rest, [slot for slot in order if slot[1] in keep], hands,
                       [seat for seat in range(n) if spot.known[seat] is None
                        and seat not in keep])
            pile = rest
        if spot.mix > 0:
            hidden = [seat for seat in range(n) if spot.known[seat] is None]
            masks = [list(spot.slots[seat]) if seat in keep
                     else [0] * spot.sizes[seat] for seat in hidden]
            parts = [hands[seat] for seat in hidden]
            mix_deal(parts, pile, masks, spot.mix * (len(pile) + sum(map(len, parts))),
                     below)
        weight = _deal_weight(rows, len(rows), hands, [len(hand) for hand in hands],
                              spot.name_slack, RANKS, COLORS, counts) if rows else 1.0
        yield hands, pile, weight


def sample_deals(spot: Position, count: int, seed: int
                 ) -> list[tuple[list[list[int]], list[int], float]]:
    """``count`` deals of ``spot`` as the search makes them (plain Python), each
    ``(hands, draw pile with its top last, weight)``.

    >>> from unokit.engine.cards import parse_card as c
    >>> spot = Position(pool=[c("G1"), c("G2"), c("Y3")], sizes=[1, 2], known=[[c("R5")], None],
    ...                 slots=[[], [1 << 2, 0]], discard=[c("R3")], color=0, direction=1,
    ...                 seat=0, team=[True, False])
    >>> all(c("Y3") in hands[1] for hands, _, _ in sample_deals(spot, 20, 1))  # no green
    True
    """
    st = [seed & MASK64]
    deals = py_deals(spot, lambda bound: _py_below(st, bound))
    return [next(deals) for _ in range(count)]



__all__ = ["FEATURE_BITS", "fill_slots", "mix_deal", "py_deals", "repair_slots", "sample_deals"]
