"""What the actions do: plays and their effects, draws, penalties, challenges, compiled
with numba (``Game.apply`` and the functions it calls, for the rules the simulator plays).

The state array ``g`` and the helpers are those of :mod:`unokit.sim.kernel`.
"""

# Elements of the state array type as Any under numpy's stubs (see unokit.sim.kernel).
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

import numpy as np

from unokit.engine.cards import (
    HIT_TWO,
    TRADE_HANDS,
    WILD_ALL_HIT,
    WILD_HIT_FIRE,
)
from unokit.sim import kernel
from unokit.sim import support as S
from unokit.sim.attack import (
    all_hit,
    attack_play,
    press,
    press_until_fired,
    take_cards,
)
from unokit.sim.kernel import (
    _COLOR,
    _GOLDEN,
    _RANK,
    add_card,
    can_play,
    draw_cards,
    has_color,
    inline,
    jit,
    lowest_kind,
    mix,
    nxt,
    place_pile,
    refills,
    remove_card,
    rotate_hands,
    swap_hands,
    take,
    view,
    wheel_color,
)
from unokit.sim.match import blocked, close_round, next_round, score_round


# ------------------------------------------------------------------ effects
@inline
def settle_penalty(gp: int) -> None:
    """No penalty waits any more, no Wild Draw Four may be challenged, no UNO call be
    caught and no Skip be passed on."""
    g = view(gp)
    g[kernel.S_UNO_OPEN] = -1
    g[kernel.S_SKIP_FROM] = -1
    g[kernel.S_PENDING] = 0
    g[kernel.S_PKIND] = -1
    g[kernel.S_WD4_BY] = -1


@jit
def new_pending(gp: int, card: int) -> int:
    """``CardEffects._new_pending``: the penalty after ``card`` answers (or starts) a chain."""
    g = view(gp)
    pending = g[kernel.S_PENDING]
    if card == kernel.WD4:
        return pending + 4
    if pending == 0:
        return 2
    two = g[kernel.S_PKIND] == kernel.DRAW_TWO
    mode = g[kernel.RP + S.R_D2D2] if two else g[kernel.RP + S.R_D2D4]
    return 2 if mode == 1 else pending + 2


@jit
def penalty(gp: int, p: int, kind: int, amount: int) -> None:
    """``Game._penalty``: a Draw Two or Wild Draw Four asks ``amount`` cards of the next
    player, who answers, challenges or draws at once, as the rules allow."""
    g = view(gp)
    victim = nxt(gp, p)
    answerable = (g[kernel.RP + S.R_ANSWER_TWO] if kind == kernel.DRAW_TWO
                  else g[kernel.RP + S.R_ANSWER_FOUR])
    if answerable or (kind == kernel.WD4 and g[kernel.RP + S.R_WD4] == 0):
        g[kernel.S_PENDING] = amount
        g[kernel.S_PKIND] = kind
        if kind != kernel.WD4:
            g[kernel.S_WD4_BY] = -1
        g[kernel.S_CUR] = victim
        g[kernel.S_PHASE] = kernel.P_RESPOND if answerable else kernel.P_CHALLENGE
    else:
        g[kernel.S_PENDING] = 0
        g[kernel.S_PKIND] = -1
        draw_cards(gp, victim, amount)
        g[kernel.S_CUR] = nxt(gp, victim)
        g[kernel.S_PHASE] = kernel.P_PLAY


@jit
def downpour(gp: int, p: int, count: int) -> None:
    """``CardEffects._downpour``: every other seat, from the next one on in the
    direction of play, draws ``count`` cards (UNO H2O's Wild Downpour)."""
    g = view(gp)
    seat = nxt(gp, p)
    for _ in range(g[kernel.RP + S.R_N] - 1):
        draw_cards(gp, seat, count)
        seat = nxt(gp, seat)


@jit
def went_out(gp: int, p: int, card: int, target: int, responding: bool) -> None:
    """``match_flow._went_out`` (the round ends: no ``play_to_last``); a last Hit 2,
    Wild All Hit or Wild Hit-Fire still makes the others press."""
    g = view(gp)
    rank = _RANK[card]
    victim = nxt(gp, p)
    amount = 0
    if card < kernel.WILD and rank == kernel.DRAW_TWO:
        amount = new_pending(gp, card) if responding else 2
    elif card == kernel.WD4:
        amount = g[kernel.S_PENDING] + 4 if responding else 4
    settle_penalty(gp)
    if amount:
        draw_cards(gp, victim, amount)
    elif card == kernel.DOWNPOUR_ONE or card == kernel.DOWNPOUR_TWO:
        downpour(gp, p, 2 if card == kernel.DOWNPOUR_TWO else 1)
    elif card < kernel.WILD and rank == HIT_TWO:
        press(gp, victim, 2)
    elif card == WILD_ALL_HIT:
        all_hit(gp, p)
    elif card == WILD_HIT_FIRE:
        press_until_fired(gp, victim)
    elif card < kernel.WILD and g[kernel.RP + S.R_SEVEN_ZERO_APPLY]:
        if rank == 7 and target != 15:
            swap_hands(gp, p, target)
        elif rank == 0 and g[kernel.RP + S.R_ZERO_ROTATE]:
            rotate_hands(gp)
    g[kernel.S_ROUND_WINNER] = p
    score_round(gp, p, card, True)
    close_round(gp)


@jit
def do_play(gp: int, p: int, card: int, color: int, uno: bool, target: int) -> None:
    """``Game._play`` and ``Game._effect``."""
    g = view(gp)
    responding = g[kernel.S_PHASE] == kernel.P_RESPOND
    g[kernel.S_UNO_OPEN] = -1
    g[kernel.S_DRAWN] = -1
    g[kernel.S_IDLE] = 0
    g[kernel.S_SKIP_FROM] = -1
    g[kernel.S_CUR] = p
    g[kernel.S_FRESH] = 0
    remove_card(gp, p, card)
    base = kernel.HC + p * kernel.HAND_COLS
    g[kernel.DISC + g[kernel.S_NDISC]] = card
    g[kernel.S_NDISC] += 1
    if g[kernel.RP + S.R_ATTACK]:  # the order of the hand; a Discard All's cards
        attack_play(gp, p, card)
    prev_color = g[kernel.S_COLOR]
    if card < kernel.WILD:
        g[kernel.S_COLOR] = _COLOR[card]
    elif color == 7:  # no colour named: wild_color = "next_in_circle"
        g[kernel.S_COLOR] = wheel_color(gp, prev_color)
    else:
        g[kernel.S_COLOR] = color
    prev_match = g[kernel.S_MATCH]
    g[kernel.S_MATCH] = card
    size = g[base + kernel.SIZE]
    guilty = card == kernel.WD4 and has_color(gp, p, prev_color)
    if not uno and size == 1:
        g[kernel.S_UNO_OPEN] = p
    if size == 0 and refills(gp, p):  # progressive_refill: a level down, cards again
        g[kernel.LEVELS + p] -= 1
        if g[kernel.RP + S.R_ATTACK]:
            take_cards(gp, p, g[kernel.LEVELS + p])
        else:
            draw_cards(gp, p, g[kernel.LEVELS + p])
        size = g[base + kernel.SIZE]
    if size == 0:
        went_out(gp, p, card, target, responding)
        return
    rank = _RANK[card]
    if card < kernel.WILD and rank <= 9:
        if rank == 7 and target != 15:
            swap_hands(gp, p, target)
        elif rank == 0 and g[kernel.RP + S.R_ZERO_ROTATE]:
            rotate_hands(gp)
        g[kernel.S_CUR] = nxt(gp, p)
        g[kernel.S_PHASE] = kernel.P_PLAY
    elif card < kernel.WILD and rank == kernel.SKIP:
        skipped = nxt(gp, p)
        g[kernel.S_CUR] = nxt(gp, skipped)
        g[kernel.S_PHASE] = kernel.P_PLAY
        if g[kernel.RP + S.R_SKIP_ON_SKIP]:
            g[kernel.S_SKIP_FROM] = skipped
            g[kernel.S_OFFER_SKIP] = 1
    elif card < kernel.WILD and rank == kernel.REVERSE:
        g[kernel.S_DIR] = -g[kernel.S_DIR]
        if responding:
            g[kernel.S_CUR] = nxt(gp, p)
            g[kernel.S_PHASE] = kernel.P_RESPOND
        elif g[kernel.RP + S.R_N] == 2 and g[kernel.RP + S.R_REV_SKIPS]:
            g[kernel.S_CUR] = nxt(gp, nxt(gp, p))
            g[kernel.S_PHASE] = kernel.P_PLAY
        else:
            g[kernel.S_CUR] = nxt(gp, p)
            g[kernel.S_PHASE] = kernel.P_PLAY
    elif card < kernel.WILD and rank == kernel.DRAW_TWO:
        penalty(gp, p, kernel.DRAW_TWO, new_pending(gp, card) if responding else 2)
    elif card == kernel.DOWNPOUR_ONE or card == kernel.DOWNPOUR_TWO:
        downpour(gp, p, 2 if card == kernel.DOWNPOUR_TWO else 1)
        g[kernel.S_CUR] = nxt(gp, p)
        g[kernel.S_PHASE] = kernel.P_PLAY
    elif card == kernel.WD4:
        g[kernel.S_WD4_BY] = p if g[kernel.RP + S.R_WD4] == 0 else -1
        g[kernel.S_WD4_COLOR] = prev_color
        g[kernel.S_WD4_GUILTY] = 1 if guilty else 0
        g[kernel.S_WD4_MATCH] = prev_match
        penalty(gp, p, kernel.WD4, g[kernel.S_PENDING] + 4 if responding else 4)
    elif card == kernel.WILD:
        g[kernel.S_CUR] = nxt(gp, p)
        g[kernel.S_PHASE] = kernel.P_PLAY
    else:
        attack_effect(gp, p, card, target)


@jit
def attack_effect(gp: int, p: int, card: int, target: int) -> None:
    """``MatchFlow._effect`` for the Attack cards (a Discard All does nothing more): Hit 2
    makes the next seat press twice and lose the turn, Trade Hands swaps hands with
    ``target``, Wild All Hit makes every other seat press once, Wild Hit-Fire makes the
    next seat press until it fires and lose the turn."""
    g = view(gp)
    victim = nxt(gp, p)
    if card < kernel.WILD and _RANK[card] == HIT_TWO:
        press(gp, victim, 2)
        p = victim
    elif card < kernel.WILD and _RANK[card] == TRADE_HANDS:
        swap_hands(gp, p, target)
    elif card == WILD_ALL_HIT:
        all_hit(gp, p)
    elif card == WILD_HIT_FIRE:
        press_until_fired(gp, victim)
        p = victim
    g[kernel.S_CUR] = nxt(gp, p)
    g[kernel.S_PHASE] = kernel.P_PLAY


@jit
def misplayed(gp: int, p: int) -> None:
    """``Game._misplayed`` (``misplay_penalty``): the card that does not match stays in
    hand, the player draws the penalty and the turn ends (``_turn_ended_idle``)."""
    g = view(gp)
    g[kernel.S_UNO_OPEN] = -1
    g[kernel.S_SKIP_FROM] = -1
    if g[kernel.RP + S.R_ATTACK]:  # a count of presses
        got = press(gp, p, g[kernel.RP + S.R_MISPLAY])
    else:
        got = draw_cards(gp, p, g[kernel.RP + S.R_MISPLAY])
    g[kernel.S_IDLE] = 0 if got else g[kernel.S_IDLE] + 1
    if g[kernel.S_IDLE] >= g[kernel.RP + S.R_N]:
        blocked(gp)
    else:
        g[kernel.S_CUR] = nxt(gp, p)
        g[kernel.S_PHASE] = kernel.P_PLAY


@jit
def turn_draw(gp: int, p: int) -> None:
    """``Game._turn_draw`` and ``_turn_ended_idle`` (a round in which every player in
    turn could neither play nor draw is blocked). With the Attack deck the player presses
    the launcher once instead, which ends the turn."""
    g = view(gp)
    g[kernel.S_UNO_OPEN] = -1
    g[kernel.S_SKIP_FROM] = -1
    got = 0
    last = -1
    if g[kernel.RP + S.R_DRAW_ONE]:
        card = take(gp)
        if card >= 0:
            add_card(gp, p, card)
            g[kernel.S_IDLE] = 0
            if g[kernel.RP + S.R_PLAY_DRAWN] != 2 and can_play(gp, p, card):
                g[kernel.S_DRAWN] = card
                g[kernel.S_PHASE] = kernel.P_DRAWN
            else:
                g[kernel.S_CUR] = nxt(gp, p)
                g[kernel.S_PHASE] = kernel.P_PLAY
            return
    elif g[kernel.RP + S.R_ATTACK]:  # one press ends the turn, whatever comes out
        got = press(gp, p, 1)
        if g[kernel.S_NPILE] and g[kernel.RP + S.R_FIRE]:
            got = 1  # a launcher that holds cards and can fire: a draw that was possible
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
    if last >= 0 and g[kernel.RP + S.R_PLAY_DRAWN] != 2 and can_play(gp, p, last):
        g[kernel.S_IDLE] = 0
        g[kernel.S_DRAWN] = last
        g[kernel.S_PHASE] = kernel.P_DRAWN
        return
    g[kernel.S_IDLE] = 0 if got else g[kernel.S_IDLE] + 1
    if g[kernel.S_IDLE] >= g[kernel.RP + S.R_N]:
        blocked(gp)
    else:
        g[kernel.S_CUR] = nxt(gp, p)
        g[kernel.S_PHASE] = kernel.P_PLAY


@jit
def accept_penalty(gp: int, p: int) -> None:
    """``table._accept_penalty``."""
    g = view(gp)
    draw_cards(gp, p, g[kernel.S_PENDING])
    settle_penalty(gp)
    g[kernel.S_CUR] = nxt(gp, p)
    g[kernel.S_PHASE] = kernel.P_PLAY


@jit
def challenge(gp: int, p: int) -> None:
    """``table._challenge``."""
    g = view(gp)
    accused = g[kernel.S_WD4_BY]
    stacked = g[kernel.S_PENDING] - 4
    settle_penalty(gp)
    if g[kernel.S_WD4_GUILTY]:
        if g[kernel.RP + S.R_TAKES_BACK]:
            g[kernel.S_NDISC] -= 1
            add_card(gp, accused, g[kernel.DISC + g[kernel.S_NDISC]])
            g[kernel.S_RECYCLED] = 1
            g[kernel.S_COLOR] = g[kernel.S_WD4_COLOR]
            g[kernel.S_MATCH] = g[kernel.S_WD4_MATCH]
        draw_cards(gp, accused, stacked + g[kernel.RP + S.R_GUILTY_DRAW])
        g[kernel.S_CUR] = p
    else:
        draw_cards(gp, p, stacked + g[kernel.RP + S.R_INNOCENT_DRAW])
        g[kernel.S_CUR] = nxt(gp, p)
    g[kernel.S_PHASE] = kernel.P_PLAY


# ------------------------------------------------------------------ repetition
REPETITION_LIMIT = 3
"""As :data:`unokit.engine.match_flow.REPETITION_LIMIT`: the count that blocks a round."""


@inline
def _fold(h: np.uint64, value: int) -> np.uint64:
    return mix((h ^ np.uint64(value)) + _GOLDEN)


@jit
def position_hash(gp: int) -> np.uint64:
    """A 64-bit hash of the position, as :meth:`unokit.engine.Game.position_digest` takes
    it: the scalars of the round (``g[S_CUR:S_NDISC + 1]``: turn, phase, direction,
    colour, the card to match, the drawn card, the pending penalty and its kind, the Wild
    Draw Four fields, the UNO window, the seat that may pass a Skip on, the idle count and
    the piles' lengths), both piles in order and each hand as counts of its kinds; not the
    random streams, the counters of plays and draws, nor what is fixed for the round."""
    g = view(gp)
    h = np.uint64(0)
    for i in range(kernel.S_NDISC + 1):
        h = _fold(h, g[i])
    for i in range(g[kernel.S_NPILE]):
        h = _fold(h, g[kernel.PILE + i])
    for i in range(g[kernel.S_NDISC]):
        h = _fold(h, g[kernel.DISC + i])
    if g[kernel.RP + S.R_REFILL]:
        for seat in range(g[kernel.RP + S.R_N]):
            h = _fold(h, g[kernel.LEVELS + seat])
    for seat in range(g[kernel.RP + S.R_N]):
        base = kernel.HC + seat * kernel.HAND_COLS
        bits = g[base + kernel.MASK]
        h = _fold(h, bits)
        while bits:
            h = _fold(h, g[base + lowest_kind(gp, bits)])
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
    if g[kernel.S_PHASE] >= kernel.P_ROUND_OVER:
        return
    place_pile(gp)  # the hash reads the whole draw pile
    h = np.int64(position_hash(gp))
    generation = g[kernel.POS]
    slot = h & (kernel.POS_SLOTS - 1)
    while True:
        at = kernel.POS + 1 + 3 * slot
        if g[at + 2] != generation:  # a free slot: the position is new
            if g[kernel.S_NPOS] >= kernel.POS_LIMIT:
                return
            g[at] = h
            g[at + 1] = 1
            g[at + 2] = generation
            g[kernel.S_NPOS] += 1
            return
        if g[at] == h:
            break
        slot = (slot + 1) & (kernel.POS_SLOTS - 1)
    g[at + 1] += 1
    if g[at + 1] >= REPETITION_LIMIT:
        g[kernel.S_REPEATED] += 1
        blocked(gp)


@inline
def after_recycling(gp: int) -> None:
    """At the end of an action: :func:`note_position` if it brought cards back from the
    discard pile."""
    g = view(gp)
    if g[kernel.S_RECYCLED]:
        g[kernel.S_RECYCLED] = 0
        note_position(gp)


@jit
def apply(gp: int, action: int) -> None:
    """``Game.apply`` for an action known to be legal; counts plays, draws and turns."""
    g = view(gp)
    p = action & 15
    kind = (action >> 4) & 15
    g[kernel.S_ACTIONS] += 1
    if kind == kernel.T_PLAY:
        g[kernel.S_PLAYS] += 1
        g[kernel.S_TURNS] += 1
        card = (action >> 8) & 127
        if (g[kernel.RP + S.R_MISPLAY] and g[kernel.S_PHASE] == kernel.P_PLAY
                and not can_play(gp, p, card)):
            misplayed(gp, p)
        else:
            do_play(gp, p, card, (action >> 15) & 7, (action & kernel.UNO_FLAG) != 0,
                    (action >> 18) & 15)
    elif kind == kernel.T_DRAW:
        g[kernel.S_DRAWS] += 1
        if g[kernel.S_PHASE] == kernel.P_CHALLENGE or g[kernel.S_PHASE] == kernel.P_RESPOND:
            accept_penalty(gp, p)
            g[kernel.S_TURNS] += 1
        else:
            turn_draw(gp, p)
            after_recycling(gp)  # first: a blocked round ends the turn
            if g[kernel.S_PHASE] != kernel.P_DRAWN:
                g[kernel.S_TURNS] += 1
    elif kind == kernel.T_PASS:
        g[kernel.S_TURNS] += 1
        g[kernel.S_DRAWN] = -1
        g[kernel.S_CUR] = nxt(gp, p)
        g[kernel.S_PHASE] = kernel.P_PLAY
    elif kind == kernel.T_CHALLENGE:
        g[kernel.S_TURNS] += 1
        challenge(gp, p)
    elif kind == kernel.T_UNO:
        g[kernel.S_UNO_OPEN] = -1
    elif kind == kernel.T_CATCH:
        g[kernel.S_UNO_OPEN] = -1
        if g[kernel.RP + S.R_ATTACK]:  # a count of presses
            press(gp, (action >> 18) & 15, g[kernel.RP + S.R_UNO_PENALTY])
        else:
            draw_cards(gp, (action >> 18) & 15, g[kernel.RP + S.R_UNO_PENALTY])
    elif kind == kernel.T_COLOR:
        g[kernel.S_COLOR] = (action >> 15) & 7
        g[kernel.S_PHASE] = kernel.P_PLAY
    elif kind == kernel.T_NEXT:
        next_round(gp)
    after_recycling(gp)
