"""The start of a round, compiled with numba: the dealer draw, the shuffle and the deal,
the start card and what it does (``match_flow._choose_dealer``, ``_start_round`` and
``_turn_start_card`` of the engine, for the rules the simulator plays).

The state array ``g`` and the helpers are those of :mod:`unokit.sim.kernel`;
:mod:`unokit.sim.attack` has the launcher, which the Attack deck's start cards press.

>>> import numpy as np
>>> from unokit.engine.rules import Rules
>>> from unokit.sim import kernel as K
>>> from unokit.sim.support import kernel_bonus, kernel_deck, kernel_params
>>> rules = Rules.preset("official", players=3)
>>> g = K.new_state(kernel_params(rules), kernel_bonus(rules), kernel_deck(rules),
...                 np.zeros(3, dtype=np.int64))
>>> K.seed_streams(g.ctypes.data, np.uint64(7)); start_round(g.ctypes.data)
>>> [int(g[K.HC + seat * K.HAND_COLS + K.SIZE]) for seat in range(3)]
[7, 7, 7]
"""

# Elements of the state array type as Any under numpy's stubs (see unokit.sim.kernel).
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

import numpy as np

from unokit.engine.cards import HIT_TWO, TRADE_HANDS, WILD_ALL_HIT, WILD_HIT_FIRE
from unokit.sim import support as S
from unokit.sim.attack import all_hit, order_deal, press, press_until_fired
from unokit.sim.kernel import (
    _COLOR,
    _NUMBER,
    _RANK,
    DECK,
    DISC,
    DPILE,
    DRAW_TWO,
    HAND_COLS,
    HC,
    LEVELS,
    MAX_SEATS,
    P_COLOR,
    P_PLAY,
    PILE,
    POS,
    REVERSE,
    RNG,
    RP,
    S_COLOR,
    S_CUR,
    S_DEALER,
    S_DIR,
    S_DRAWN,
    S_FIRST_NEXT,
    S_FRESH,
    S_IDLE,
    S_MATCH,
    S_NDISC,
    S_NPILE,
    S_NPOS,
    S_OFFER_SKIP,
    S_PENDING,
    S_PHASE,
    S_PILE_FINAL,
    S_PILE_STATE,
    S_PKIND,
    S_RECYCLED,
    S_ROUND_NO,
    S_ROUND_WINNER,
    S_SKIP_FROM,
    S_UNO_OPEN,
    S_WD4_BY,
    S_WD4_COLOR,
    S_WD4_GUILTY,
    S_WD4_MATCH,
    SCRATCH,
    SKIP,
    WILD,
    add_card,
    below,
    draw_cards,
    jit,
    nxt,
    place_pile,
    shuffle,
    shuffle_steps,
    skip_steps,
    view,
)

PILE_TOP = 8
"""Cards of a new round's draw pile placed at once beyond those dealt and the start
card; the others are placed when the first of them is drawn (see :func:`shuffle_pile`)."""


@jit
def shuffle_pile(gp: int, length: int, top: int) -> None:
    """:func:`shuffle` of the draw pile ``g[PILE:PILE + length]``, placing its top ``top``
    cards now and the others only when :func:`take` comes to them (or a reshuffle or the
    repetition rule needs the whole pile: :func:`place_pile`); many rounds end before.
    The generator is advanced over every step at once, as :func:`shuffle` advances it."""
    g = view(gp)
    final = max(1, length - top)
    state = shuffle_steps(gp, PILE, length - 1, final, np.uint64(g[RNG]))
    g[RNG] = np.int64(skip_steps(final - 1, 1, state))
    g[S_PILE_FINAL] = final if final > 1 else 0
    g[S_PILE_STATE] = np.int64(state)


@jit
def start_card_ok(gp: int, card: int) -> bool:
    """``MatchFlow._start_card_ok``: a number under ``first_card = "number_only"``; else
    with the Attack deck anything but a Trade Hands, with the others a Wild or a
    coloured card up to Draw Two."""
    g = view(gp)
    if g[RP + S.R_NUMBER_ONLY]:
        return _NUMBER[card] == 1
    if g[RP + S.R_ATTACK]:
        return card >= WILD or _RANK[card] != TRADE_HANDS
    return card == WILD or (card < WILD and _RANK[card] <= DRAW_TWO)


DEALER_TOP = 16
"""The cards of the dealer draw's shuffled deck that are placed at once; the draw seldom
takes more, and the rest are placed only if it does (the generator is advanced over their
steps all the same)."""


@jit
def choose_dealer(gp: int) -> int:
    """``match_flow._choose_dealer``."""
    g = view(gp)
    n = g[RP + S.R_N]
    how = g[RP + S.R_DEALER]
    if how == 2:
        return 0
    if how == 1:
        return below(gp, 0, n)
    size = g[RP + S.R_DECK_SIZE]
    contenders = SCRATCH
    drawn = SCRATCH + MAX_SEATS
    for seat in range(n):
        g[contenders + seat] = seat
    count = n
    left = 0
    final = 0  # the cards from g[DPILE + final] on are shuffled
    state = np.uint64(0)
    while True:
        for idx in range(count):
            seat = g[contenders + idx]
            while True:
                if left == 0:  # shuffle the top cards now, the others only if they come
                    g[DPILE: DPILE + size] = g[DECK: DECK + size]
                    final = max(1, size - DEALER_TOP)
                    state = shuffle_steps(gp, DPILE, size - 1, final, np.uint64(g[RNG]))
                    g[RNG] = np.int64(skip_steps(final - 1, 1, state))
                    left = size
                left -= 1
                if left < final:
                    shuffle_steps(gp, DPILE, final - 1, 1, state)
                    final = 0
                card = g[DPILE + left]
                if _NUMBER[card] == 1:
                    g[drawn + seat] = _RANK[card]
                    break
        best = -1
        for idx in range(count):
            best = max(best, g[drawn + g[contenders + idx]])
        kept = 0
        for idx in range(count):
            seat = g[contenders + idx]
            if g[drawn + seat] == best:
                g[contenders + kept] = seat
                kept += 1
        count = kept
        if count == 1:
            return g[contenders]


@jit
def start_round(gp: int) -> None:
    """``match_flow._start_round`` and ``_turn_start_card`` (with the Attack deck's start
    cards: a Hit 2 makes the first player press twice and lose the turn, a Wild All Hit
    makes every seat but the dealer press, from the dealer's left, before the first player
    names the colour, and a Wild Hit-Fire makes the first player press until it fires
    and the next one name the colour)."""
    g = view(gp)
    n = g[RP + S.R_N]
    g[HC: HC + n * HAND_COLS] = 0
    g[S_NPILE] = 0
    g[S_NDISC] = 0
    g[S_COLOR] = -1
    g[S_DIR] = 1
    g[S_CUR] = -1
    g[S_PHASE] = P_PLAY
    g[S_DRAWN] = -1
    g[S_PENDING] = 0
    g[S_PKIND] = -1
    g[S_WD4_BY] = -1
    g[S_WD4_GUILTY] = 0
    g[S_WD4_COLOR] = -1
    g[S_WD4_MATCH] = -1
    g[S_UNO_OPEN] = -1
    g[S_SKIP_FROM] = -1
    g[S_IDLE] = 0
    g[S_ROUND_WINNER] = -1
    g[S_MATCH] = -1
    g[S_OFFER_SKIP] = 0
    g[S_RECYCLED] = 0
    g[S_NPOS] = 0
    g[S_FRESH] = 1
    g[POS] += 1  # a new generation: every slot of the repetition table is free again
    g[S_ROUND_NO] += 1
    dealer = g[S_DEALER]
    size = g[RP + S.R_DECK_SIZE]
    while True:
        g[PILE: PILE + size] = g[DECK: DECK + size]
        shuffle_pile(gp, size, n * g[RP + S.R_HAND] + 1 + PILE_TOP)
        left = size
        for _ in range(g[RP + S.R_HAND]):
            for i in range(n):
                seat = (dealer + 1 + i) % n
                if left:
                    left -= 1
                    add_card(gp, seat, g[PILE + left])
        ok = False
        for k in range(left):
            if start_card_ok(gp, g[PILE + k]):
                ok = True
                break
        if ok:
            break
        if left == 0:
            raise ValueError("no card of the deck is left to start the round")
        g[HC: HC + n * HAND_COLS] = 0
    if g[RP + S.R_ATTACK]:
        order_deal(gp, dealer, g[RP + S.R_HAND], size)
    if g[RP + S.R_REFILL]:  # every level starts at the hand size each round
        g[LEVELS: LEVELS + n] = g[RP + S.R_HAND]
    first = g[S_FIRST_NEXT] - 1 if g[S_FIRST_NEXT] else (dealer + 1) % n
    g[S_FIRST_NEXT] = 0
    while True:
        left -= 1
        card = g[PILE + left]
        if start_card_ok(gp, card):
            break
        left += 1  # put back: the card is still there, on top
        place_pile(gp)
        shuffle(gp, PILE, left)
    g[S_NPILE] = left
    g[DISC] = card
    g[S_NDISC] = 1
    g[S_MATCH] = card
    g[S_COLOR] = _COLOR[card]
    rank = _RANK[card]
    g[S_PHASE] = P_PLAY
    if card == WILD:
        g[S_CUR] = first
        g[S_PHASE] = P_COLOR
    elif rank == SKIP:
        g[S_CUR] = nxt(gp, first)
    elif rank == REVERSE:
        g[S_DIR] = -1
        g[S_CUR] = nxt(gp, first)
    elif rank == DRAW_TWO:
        draw_cards(gp, first, 2)
        g[S_CUR] = nxt(gp, first)
    elif rank == HIT_TWO:
        press(gp, first, 2)
        g[S_CUR] = nxt(gp, first)
    elif card == WILD_ALL_HIT:  # every seat but the dealer presses, from the next one on
        all_hit(gp, dealer)
        g[S_CUR] = first
        g[S_PHASE] = P_COLOR
    elif card == WILD_HIT_FIRE:
        press_until_fired(gp, first)
        g[S_CUR] = nxt(gp, first)
        g[S_PHASE] = P_COLOR
    else:
        g[S_CUR] = first


__all__ = ["DEALER_TOP", "PILE_TOP", "choose_dealer", "shuffle_pile", "start_card_ok",
           "start_round"]
