"""What the actions do: plays and their effects, draws, penalties, challenges, compiled
with numba (``Game.apply`` and the functions it calls, for the rules the simulator plays).

The state array ``g`` and the helpers are those of :mod:`unokit.sim.kernel`.
"""

# Elements of the state array type as Any under numpy's stubs (see unokit.sim.kernel).
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

import numpy as np

from unokit.sim import support as S
from unokit.sim.kernel import (
    _COLOR,
    _GOLDEN,
    _RANK,
    DISC,
    DRAW_TWO,
    HAND_COLS,
    HC,
    MASK,
    P_CHALLENGE,
    P_DRAWN,
    P_PLAY,
    P_RESPOND,
    P_ROUND_OVER,
    PILE,
    POS,
    POS_LIMIT,
    POS_SLOTS,
    REVERSE,
    RP,
    S_ACTIONS,
    S_COLOR,
    S_CUR,
    S_DEALER,
    S_DIR,
    S_DRAWN,
    S_DRAWS,
    S_IDLE,
    S_MATCH,
    S_NDISC,
    S_NPILE,
    S_NPOS,
    S_OFFER_SKIP,
    S_PENDING,
    S_PHASE,
    S_PKIND,
    S_PLAYS,
    S_RECYCLED,
    S_REPEATED,
    S_ROUND_WINNER,
    S_SKIP_FROM,
    S_TURNS,
    S_UNO_OPEN,
    S_WD4_BY,
    S_WD4_COLOR,
    S_WD4_GUILTY,
    S_WD4_MATCH,
    SIZE,
    SKIP,
    T_CATCH,
    T_CHALLENGE,
    T_COLOR,
    T_DRAW,
    T_NEXT,
    T_PASS,
    T_PLAY,
    T_UNO,
    UNO_FLAG,
    WD4,
    WILD,
    add_card,
    blocked,
    can_play,
    close_round,
    draw_cards,
    has_color,
    inline,
    jit,
    lowest_kind,
    mix,
    nxt,
    remove_card,
    rotate_hands,
    score_round,
    start_round,
    swap_hands,
    take,
    view,
)


# ------------------------------------------------------------------ effects
@jit
def new_pending(gp: int, card: int) -> int:
    """``house.new_pending``: the penalty after ``card`` answers (or starts) a chain."""
    g = view(gp)
    pending = g[S_PENDING]
    if card == WD4:
        return pending + 4
    if pending == 0:
        return 2
    mode = g[RP + S.R_D2D2] if g[S_PKIND] == DRAW_TWO else g[RP + S.R_D2D4]
    return 2 if mode == 1 else pending + 2


@jit
def penalty(gp: int, p: int, kind: int, amount: int) -> None:
    """``Game._penalty``: a Draw Two or Wild Draw Four asks ``amount`` cards of the next
    player, who answers, challenges or draws at once, as the rules allow."""
    g = view(gp)
    victim = nxt(gp, p)
    answerable = g[RP + S.R_ANSWER_TWO] if kind == DRAW_TWO else g[RP + S.R_ANSWER_FOUR]
    if answerable or (kind == WD4 and g[RP + S.R_WD4] == 0):
        g[S_PENDING] = amount
        g[S_PKIND] = kind
        if kind != WD4:
            g[S_WD4_BY] = -1
        g[S_CUR] = victim
        g[S_PHASE] = P_RESPOND if answerable else P_CHALLENGE
    else:
        g[S_PENDING] = 0
        g[S_PKIND] = -1
        draw_cards(gp, victim, amount)
        g[S_CUR] = nxt(gp, victim)
        g[S_PHASE] = P_PLAY


@jit
def went_out(gp: int, p: int, card: int, target: int, responding: bool) -> None:
    """``match_flow._went_out`` (the round ends: no ``play_to_last``)."""
    g = view(gp)
    rank = _RANK[card]
    victim = nxt(gp, p)
    amount = 0
    if card < WILD and rank == DRAW_TWO:
        amount = new_pending(gp, card) if responding else 2
    elif card == WD4:
        amount = g[S_PENDING] + 4 if responding else 4
    g[S_PENDING] = 0
    g[S_PKIND] = -1
    g[S_WD4_BY] = -1
    if amount:
        draw_cards(gp, victim, amount)
    elif card < WILD and g[RP + S.R_SEVEN_ZERO_APPLY]:
        if rank == 7 and target != 15:
            swap_hands(gp, p, target)
        elif rank == 0 and g[RP + S.R_ZERO_ROTATE]:
            rotate_hands(gp)
    g[S_ROUND_WINNER] = p
    score_round(gp, p, card, True)
    close_round(gp)


@jit
def do_play(gp: int, p: int, card: int, color: int, uno: bool, target: int) -> None:
    """``Game._play`` and ``Game._effect``."""
    g = view(gp)
    responding = g[S_PHASE] == P_RESPOND
    g[S_UNO_OPEN] = -1
    g[S_DRAWN] = -1
    g[S_IDLE] = 0
    g[S_SKIP_FROM] = -1
    g[S_CUR] = p
    remove_card(gp, p, card)
    base = HC + p * HAND_COLS
    g[DISC + g[S_NDISC]] = card
    g[S_NDISC] += 1
    prev_color = g[S_COLOR]
    g[S_COLOR] = _COLOR[card] if card < WILD else color
    prev_match = g[S_MATCH]
    g[S_MATCH] = card
    size = g[base + SIZE]
    guilty = card == WD4 and has_color(gp, p, prev_color)
    if not uno and size == 1:
        g[S_UNO_OPEN] = p
    if size == 0:
        went_out(gp, p, card, target, responding)
        return
    rank = _RANK[card]
    if card < WILD and rank <= 9:
        if rank == 7 and target != 15:
            swap_hands(gp, p, target)
        elif rank == 0 and g[RP + S.R_ZERO_ROTATE]:
            rotate_hands(gp)
        g[S_CUR] = nxt(gp, p)
        g[S_PHASE] = P_PLAY
    elif card < WILD and rank == SKIP:
        skipped = nxt(gp, p)
        g[S_CUR] = nxt(gp, skipped)
        g[S_PHASE] = P_PLAY
        if g[RP + S.R_SKIP_ON_SKIP]:
            g[S_SKIP_FROM] = skipped
            g[S_OFFER_SKIP] = 1
    elif card < WILD and rank == REVERSE:
        g[S_DIR] = -g[S_DIR]
        if responding:
            g[S_CUR] = nxt(gp, p)
            g[S_PHASE] = P_RESPOND
        elif g[RP + S.R_N] == 2 and g[RP + S.R_REV_SKIPS]:
            g[S_CUR] = nxt(gp, nxt(gp, p))
            g[S_PHASE] = P_PLAY
        else:
            g[S_CUR] = nxt(gp, p)
            g[S_PHASE] = P_PLAY
    elif card < WILD and rank == DRAW_TWO:
        penalty(gp, p, DRAW_TWO, new_pending(gp, card) if responding else 2)
    elif card == WD4:
        g[S_WD4_BY] = p if g[RP + S.R_WD4] == 0 else -1
        g[S_WD4_COLOR] = prev_color
        g[S_WD4_GUILTY] = 1 if guilty else 0
        g[S_WD4_MATCH] = prev_match
        penalty(gp, p, WD4, g[S_PENDING] + 4 if responding else 4)
    else:
        g[S_CUR] = nxt(gp, p)
        g[S_PHASE] = P_PLAY


@jit
def turn_draw(gp: int, p: int) -> None:
    """``Game._turn_draw`` and ``_turn_ended_idle`` (a round in which every player in
    turn could neither play nor draw is blocked)."""
    g = view(gp)
    g[S_UNO_OPEN] = -1
    g[S_SKIP_FROM] = -1
    got = 0
    last = -1
    if g[RP + S.R_DRAW_ONE]:
        card = take(gp)
        if card >= 0:
            add_card(gp, p, card)
            g[S_IDLE] = 0
            if g[RP + S.R_PLAY_DRAWN] != 2 and can_play(gp, p, card):
                g[S_DRAWN] = card
                g[S_PHASE] = P_DRAWN
            else:
                g[S_CUR] = nxt(gp, p)
                g[S_PHASE] = P_PLAY
            return
    else:
        while True:
            card = take(gp)
            if card < 0:
                break
            add_card(gp, p, card)
            got += 1
            last = card
            if can_play(gp, p, card):
                break
    if got and g[RP + S.R_PLAY_DRAWN] != 2 and can_play(gp, p, last):
        g[S_IDLE] = 0
        g[S_DRAWN] = last
        g[S_PHASE] = P_DRAWN
        return
    g[S_IDLE] = 0 if got else g[S_IDLE] + 1
    if g[S_IDLE] >= g[RP + S.R_N]:
        blocked(gp)
    else:
        g[S_CUR] = nxt(gp, p)
        g[S_PHASE] = P_PLAY


@jit
def accept_penalty(gp: int, p: int) -> None:
    """``table._accept_penalty``."""
    g = view(gp)
    g[S_UNO_OPEN] = -1
    g[S_SKIP_FROM] = -1
    draw_cards(gp, p, g[S_PENDING])
    g[S_PENDING] = 0
    g[S_PKIND] = -1
    g[S_WD4_BY] = -1
    g[S_CUR] = nxt(gp, p)
    g[S_PHASE] = P_PLAY


@jit
def challenge(gp: int, p: int) -> None:
    """``table._challenge``."""
    g = view(gp)
    g[S_UNO_OPEN] = -1
    g[S_SKIP_FROM] = -1
    accused = g[S_WD4_BY]
    stacked = g[S_PENDING] - 4
    g[S_PENDING] = 0
    g[S_PKIND] = -1
    g[S_WD4_BY] = -1
    if g[S_WD4_GUILTY]:
        if g[RP + S.R_TAKES_BACK]:
            g[S_NDISC] -= 1
            add_card(gp, accused, g[DISC + g[S_NDISC]])
            g[S_RECYCLED] = 1
            g[S_COLOR] = g[S_WD4_COLOR]
            g[S_MATCH] = g[S_WD4_MATCH]
        draw_cards(gp, accused, stacked + g[RP + S.R_GUILTY_DRAW])
        g[S_CUR] = p
    else:
        draw_cards(gp, p, stacked + g[RP + S.R_INNOCENT_DRAW])
        g[S_CUR] = nxt(gp, p)
    g[S_PHASE] = P_PLAY


# ------------------------------------------------------------------ repetition
REPETITION_LIMIT = 3
"""As :data:`unokit.match_flow.REPETITION_LIMIT`: the count that blocks a round."""


@inline
def _fold(h: np.uint64, value: int) -> np.uint64:
    return mix((h ^ np.uint64(value)) + _GOLDEN)


@jit
def position_hash(gp: int) -> np.uint64:
    """A 64-bit hash of the position, as :func:`unokit.match_flow.position_digest` takes
    it: the scalars of the round (``g[S_CUR:S_NDISC + 1]``: turn, phase, direction,
    colour, the card to match, the drawn card, the pending penalty and its kind, the Wild
    Draw Four fields, the UNO window, the seat that may pass a Skip on, the idle count and
    the piles' lengths), both piles in order and each hand as counts of its kinds; not the
    random streams, the counters of plays and draws, nor what is fixed for the round."""
    g = view(gp)
    h = np.uint64(0)
    for i in range(S_NDISC + 1):
        h = _fold(h, g[i])
    for i in range(g[S_NPILE]):
        h = _fold(h, g[PILE + i])
    for i in range(g[S_NDISC]):
        h = _fold(h, g[DISC + i])
    for seat in range(g[RP + S.R_N]):
        base = HC + seat * HAND_COLS
        bits = g[base + MASK]
        h = _fold(h, bits)
        while bits:
            h = _fold(h, g[base + lowest_kind(bits)])
            bits &= bits - 1
    return h


@jit
def note_position(gp: int) -> None:
    """``match_flow._note_position``: count the position after an action that brought
    cards back from the discard pile; on its :data:`REPETITION_LIMIT`-th occurrence in the
    round the round is blocked. The counts live in an open-addressing table at ``g[POS]``
    whose slots belong to the round of their generation (so a new round frees them all
    without clearing). A round records at most ``POS_LIMIT`` positions; past that it keeps
    counting the recorded ones and no others (a round of that many distinct positions
    after a reshuffle has not been seen; see docs/simulator.md)."""
    g = view(gp)
    if g[S_PHASE] >= P_ROUND_OVER:
        return
    h = np.int64(position_hash(gp))
    generation = g[POS]
    slot = h & (POS_SLOTS - 1)
    while True:
        at = POS + 1 + 3 * slot
        if g[at + 2] != generation:  # a free slot: the position is new
            if g[S_NPOS] >= POS_LIMIT:
                return
            g[at] = h
            g[at + 1] = 1
            g[at + 2] = generation
            g[S_NPOS] += 1
            return
        if g[at] == h:
            break
        slot = (slot + 1) & (POS_SLOTS - 1)
    g[at + 1] += 1
    if g[at + 1] >= REPETITION_LIMIT:
        g[S_REPEATED] += 1
        blocked(gp)


@jit
def apply(gp: int, action: int) -> None:
    """``Game.apply`` for an action known to be legal; counts plays, draws and turns."""
    g = view(gp)
    p = action & 15
    kind = (action >> 4) & 15
    g[S_ACTIONS] += 1
    if kind == T_PLAY:
        g[S_PLAYS] += 1
        g[S_TURNS] += 1
        do_play(gp, p, (action >> 8) & 127, (action >> 15) & 7, (action & UNO_FLAG) != 0,
                (action >> 18) & 15)
    elif kind == T_DRAW:
        g[S_DRAWS] += 1
        if g[S_PHASE] == P_CHALLENGE or g[S_PHASE] == P_RESPOND:
            accept_penalty(gp, p)
            g[S_TURNS] += 1
        else:
            turn_draw(gp, p)
            if g[S_PHASE] != P_DRAWN:
                g[S_TURNS] += 1
    elif kind == T_PASS:
        g[S_TURNS] += 1
        g[S_DRAWN] = -1
        g[S_CUR] = nxt(gp, p)
        g[S_PHASE] = P_PLAY
    elif kind == T_CHALLENGE:
        g[S_TURNS] += 1
        challenge(gp, p)
    elif kind == T_UNO:
        g[S_UNO_OPEN] = -1
    elif kind == T_CATCH:
        g[S_UNO_OPEN] = -1
        draw_cards(gp, (action >> 18) & 15, g[RP + S.R_UNO_PENALTY])
    elif kind == T_COLOR:
        g[S_COLOR] = (action >> 15) & 7
        g[S_PHASE] = P_PLAY
    elif kind == T_NEXT:
        g[S_DEALER] = (g[S_DEALER] + 1) % g[RP + S.R_N]
        start_round(gp)
    if g[S_RECYCLED]:
        g[S_RECYCLED] = 0
        note_position(gp)
