"""UNO Attack in the simulator, compiled with numba: the card launcher, the order of the
cards in each hand, Discard All (:mod:`unokit.engine.attack`, RULES.md section 6).

**The launcher.** A press reloads an empty launcher with the shuffled discard pile but its
top card, then fires when the game's next ``next_u64() >> 11`` is below
:func:`unokit.sim.support.fire_threshold` (the engine's ``rng.random() <
launcher_fire_chance``) and then ejects ``1 + below(launcher_max_burst)`` cards, at most
what is left, from the top of the draw pile: the engine's numbers, from the same stream.

**The order of the hands.** The engine's hands are lists: dealt cards and the cards a
press ejects are appended, a play takes out the first copy of its card, and Trade Hands
(or a 7 under ``seven_swap``) swaps two lists. A Discard All puts the cards of its colour
on the discard pile in that order, and a reload shuffles the discard pile, so the order
decides every later press. So under this deck the kernel keeps, beside the counts of each
hand, the list of its cards in order (``g[ORDER + list * PILE_CAP:]``, as long as the
hand; ``g[LIST_OF + seat]`` says which list is the seat's, so that a swap swaps two
numbers). The other decks do not need the order and do not keep it.

The state array ``g`` and the helpers are those of :mod:`unokit.sim.kernel`.

>>> import numpy as np
>>> from unokit.engine.rules import Rules
>>> from unokit.sim import kernel as K
>>> from unokit.sim.support import kernel_bonus, kernel_deck, kernel_params
>>> rules = Rules.preset("attack", players=2)
>>> g = K.new_state(kernel_params(rules), kernel_bonus(rules), kernel_deck(rules),
...                 np.zeros(2, dtype=np.int64))
>>> gp = g.ctypes.data
>>> for card in (1, 2, 1, 17):  # R1 R2 R1 Y1
...     K.add_card(gp, 0, card); append_card(gp, 0, card)
>>> remove_first(gp, 0, 1); [int(c) for c in g[K.ORDER:K.ORDER + 3]]
[2, 1, 17]
"""

# Elements of the state array type as Any under numpy's stubs (see unokit.sim.kernel).
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

import numpy as np

from unokit.engine.cards import DISCARD_ALL
from unokit.sim import support as S
from unokit.sim.kernel import (
    _COLOR,
    _GOLDEN,
    _RANK,
    COLOR_BITS,
    DISC,
    HAND_COLS,
    HC,
    LIST_OF,
    MASK,
    ORDER,
    PILE,
    PILE_CAP,
    RNG,
    RP,
    S_NDISC,
    S_NPILE,
    S_PILE_FINAL,
    S_RECYCLED,
    SIZE,
    WILD,
    add_card,
    below,
    inline,
    jit,
    mix,
    nxt,
    place_pile,
    remove_card,
    shuffle,
    take,
    view,
)

_U11 = np.uint64(11)


# ------------------------------------------------------------------ the order of the hands
@inline
def append_card(gp: int, p: int, card: int) -> None:
    """Append ``card`` to seat ``p``'s list, after :func:`~unokit.sim.kernel.add_card`
    has counted it (the list is as long as the hand)."""
    g = view(gp)
    g[ORDER + g[LIST_OF + p] * PILE_CAP + g[HC + p * HAND_COLS + SIZE] - 1] = card


@inline
def remove_first(gp: int, p: int, card: int) -> None:
    """Take the first ``card`` out of seat ``p``'s list, after
    :func:`~unokit.sim.kernel.remove_card` has counted it out (``list.remove``)."""
    g = view(gp)
    base = ORDER + g[LIST_OF + p] * PILE_CAP
    size = g[HC + p * HAND_COLS + SIZE]
    i = 0
    while i < size and g[base + i] != card:  # (bounded: it is there)
        i += 1
    for j in range(i, size):
        g[base + j] = g[base + j + 1]


@jit
def order_deal(gp: int, dealer: int, hand_size: int, size: int) -> None:
    """The lists of a new round: seat ``dealer + 1 + i`` was dealt, in this order, the
    cards ``size - 1 - i``, ``size - 1 - i - n``, ... of the draw pile (one at a time
    round the table from the top; see ``deal.start_round``)."""
    g = view(gp)
    n = g[RP + S.R_N]
    for i in range(n):
        seat = (dealer + 1 + i) % n
        g[LIST_OF + seat] = seat
        for j in range(hand_size):
            g[ORDER + seat * PILE_CAP + j] = g[PILE + size - 1 - i - j * n]


@jit
def take_cards(gp: int, p: int, count: int) -> int:
    """``CardEffects._take_cards`` (the ``progressive_refill`` refill, a count of cards
    and not of presses): :func:`~unokit.sim.kernel.draw_cards` keeping the order."""
    got = 0
    for _ in range(count):
        card = take(gp)
        if card < 0:
            break
        add_card(gp, p, card)
        append_card(gp, p, card)
        got += 1
    return got


@inline
def color_count(gp: int, p: int, color: int) -> int:
    """How many cards of ``color`` seat ``p`` holds."""
    g = view(gp)
    base = HC + p * HAND_COLS + color * 16
    count = 0
    for rank in range(16):
        count += g[base + rank]
    return count


@jit
def discard_all(gp: int, p: int, card: int) -> None:
    """``AttackCards._discard_all``: the Discard All ``card`` (on top of the discard pile)
    takes every card of its colour from seat ``p``'s hand, in the order of the hand, onto
    the discard pile beneath it."""
    g = view(gp)
    color = _COLOR[card]
    hand = HC + p * HAND_COLS
    if (g[hand + MASK] & g[COLOR_BITS + color]) == 0:
        return
    base = ORDER + g[LIST_OF + p] * PILE_CAP
    size = g[hand + SIZE]
    at = g[S_NDISC] - 1  # the Discard All's place: the cards go there, it goes on them
    kept = 0
    for i in range(size):
        c = g[base + i]
        if c < WILD and _COLOR[c] == color:
            g[DISC + at] = c
            at += 1
            remove_card(gp, p, c)
        else:
            g[base + kept] = c
            kept += 1
    g[DISC + at] = card
    g[S_NDISC] = at + 1


@jit
def attack_play(gp: int, p: int, card: int) -> None:
    """What a play does to the order of the hands, once ``card`` has left seat ``p``'s
    counts for the top of the discard pile: it leaves the list too, and a Discard All
    takes the cards of its colour with it (:func:`discard_all`)."""
    remove_first(gp, p, card)
    if card < WILD and _RANK[card] == DISCARD_ALL:
        discard_all(gp, p, card)


# ------------------------------------------------------------------ the launcher
@inline
def reload(gp: int) -> bool:
    """``AttackCards._reload``: an empty launcher takes the shuffled discard pile but its
    top card; whether the launcher holds cards now."""
    g = view(gp)
    if g[S_NPILE]:
        return True
    nd = g[S_NDISC]
    if nd < 2:
        return False
    m = nd - 1
    for k in range(m):
        g[PILE + k] = g[DISC + k]
    shuffle(gp, PILE, m)
    g[DISC] = g[DISC + m]
    g[S_NDISC] = 1
    g[S_NPILE] = m
    g[S_RECYCLED] = 1
    return True


@jit
def fire(gp: int, p: int) -> int:
    """The launcher after :func:`reload`: it fires with the game stream's next number,
    then ejects ``1 + below(launcher_max_burst)`` cards (at most what it holds) into seat
    ``p``'s hand, top card first; returns how many."""
    g = view(gp)
    state = np.uint64(g[RNG]) + _GOLDEN
    g[RNG] = np.int64(state)
    count = 0
    if np.int64(mix(state) >> _U11) < g[RP + S.R_FIRE]:
        count = min(1 + below(gp, 0, g[RP + S.R_BURST]), g[S_NPILE])
    for _ in range(count):
        g[S_NPILE] -= 1
        if g[S_NPILE] < g[S_PILE_FINAL]:
            place_pile(gp)
        card = g[PILE + g[S_NPILE]]
        add_card(gp, p, card)
        append_card(gp, p, card)
    return count


@jit
def press(gp: int, p: int, times: int) -> int:
    """``AttackCards._press``: seat ``p`` presses ``times`` times; the cards ejected."""
    got = 0
    for _ in range(times):
        reload(gp)
        got += fire(gp, p)
    return got


@jit
def press_until_fired(gp: int, p: int) -> None:
    """``AttackCards._press_until_fired``: seat ``p`` presses until cards come out, or the
    launcher is empty and cannot be reloaded, or it never fires (pressed once)."""
    g = view(gp)
    never = g[RP + S.R_FIRE] == 0
    while True:
        loaded = reload(gp)
        if fire(gp, p) or not loaded or never:
            return


@jit
def all_hit(gp: int, p: int) -> None:
    """Wild All Hit: every other seat, from the next one on in the direction of play,
    presses once (``CardEffects._others``)."""
    g = view(gp)
    seat = nxt(gp, p)
    for _ in range(g[RP + S.R_N] - 1):
        press(gp, seat, 1)
        seat = nxt(gp, seat)


__all__ = ["all_hit", "append_card", "attack_play", "color_count", "discard_all", "fire",
           "order_deal", "press", "press_until_fired", "reload", "remove_first", "take_cards"]
