"""The simulator's legal actions, policies and game loop, compiled with numba.

:func:`legal` lists the current player's actions exactly as
:meth:`unokit.Game.legal_actions` does (the same action integers in the same order);
the policies are the ones :mod:`unokit.sim.policies` specifies, drawing from the decision
stream; :func:`run_batch` plays many games in one call. See :mod:`unokit.sim.kernel` for
the state array ``g`` and why numba.
"""

# Elements of the state array type as Any under numpy's stubs (see unokit.sim.kernel).
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from unokit.engine.cards import DISCARD_ALL, TRADE_HANDS
from unokit.sim import support as S
from unokit.sim.attack import color_count
from unokit.sim.deal import choose_dealer, start_round
from unokit.sim.effects import apply
from unokit.sim.kernel import (
    _COLOR,
    _RANK,
    ACTS,
    BITS,
    DISC,
    DRAW_TWO,
    EMPTY,
    FNV_OFFSET,
    FNV_PRIME,
    G_SIZE,
    HAND_COLS,
    HC,
    I64,
    MASK,
    P_CHALLENGE,
    P_COLOR,
    P_DRAWN,
    P_MATCH_OVER,
    P_PLAY,
    P_RESPOND,
    P_ROUND_OVER,
    PLAY_BITS,
    POL,
    POL_PLAYFIRST,
    POL_RANDOM,
    REVERSE,
    RP,
    S_ACTIONS,
    S_BLOCKED,
    S_COLOR,
    S_CUR,
    S_DEALER,
    S_DIR,
    S_DRAWN,
    S_DRAWS,
    S_FIRST,
    S_FIRST_DEALER,
    S_FRESH,
    S_MATCH,
    S_MATCH_WINNER,
    S_NDISC,
    S_OFFER_SKIP,
    S_PHASE,
    S_PKIND,
    S_PLAYS,
    S_REPEATED,
    S_ROUND_NO,
    S_SKIP_FROM,
    S_TURNS,
    S_UNO_OPEN,
    S_WD4_BY,
    SCORES,
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
    TMP,
    TRADE_BITS,
    UNO_FLAG,
    WD4,
    WILD,
    XS,
    below,
    can_play,
    has_color,
    inline,
    jit,
    lowest_kind,
    nxt,
    popcount,
    refills,
    seed_streams,
    view,
)

U64 = npt.NDArray[np.uint64]

_COLOR_MASK = 7 << 15
_TARGET_MASK = 15 << 18
_PLAY_BASE = (T_PLAY << 4) | (EMPTY & ~(127 << 8) & ~_COLOR_MASK & ~_TARGET_MASK)

# Result columns of run_batch.
C_WINNER = 0
C_POINTS = 1
C_ACTIONS = 2
C_PLAYS = 3
C_DRAWS = 4
C_TURNS = 5
C_ROUNDS = 6
C_BLOCKED = 7
C_FIRST = 8
C_DEALER = 9
C_REPEATED = 10
N_COLS = 11


# ------------------------------------------------------------------ legal actions
@inline
def plain(p: int, kind: int) -> int:
    """An action without arguments (draw, pass, challenge, UNO call, next round)."""
    return p | (kind << 4) | EMPTY


@inline
def play_action(p: int, card: int, color: int, target: int) -> int:
    """``actions.play`` (colour 7, target 15: none)."""
    return p | _PLAY_BASE | (card << 8) | (color << 15) | (target << 18)


@inline
def target_plays(gp: int, k: int, p: int, card: int) -> int:
    """The plays of ``card`` naming each other seat, from the next one in the direction
    of play (a 7 under ``seven_swap``, a Trade Hands), from ``g[ACTS + k]``; returns the
    new end."""
    g = view(gp)
    n = g[RP + S.R_N]
    for i in range(1, n):
        g[ACTS + k] = play_action(p, card, 7, (p + g[S_DIR] * i) % n)
        k += 1
    return k


@inline
def with_uno_calls(gp: int, start: int, k: int) -> int:
    """Each play written in ``g[ACTS + start : ACTS + k]`` again with an UNO call, after
    them; returns the new end."""
    g = view(gp)
    end = k
    for j in range(start, end):
        g[ACTS + k] = g[ACTS + j] | UNO_FLAG
        k += 1
    return k


@jit
def attack_plays(gp: int, k: int, p: int, card: int, left: int) -> int:
    """:func:`card_plays` for a Discard All (one way; the cards of its colour go with it,
    so ``left`` counts without them) or a Trade Hands (naming each other seat; never the
    last card)."""
    g = view(gp)
    start = k
    if _RANK[card] == DISCARD_ALL:
        left += 1 - color_count(gp, p, _COLOR[card])
        g[ACTS + k] = play_action(p, card, 7, 15)
        k += 1
    elif left != 0 or refills(gp, p):
        k = target_plays(gp, k, p, card)
    return with_uno_calls(gp, start, k) if left == 1 else k


@inline
def card_plays(gp: int, k: int, p: int, card: int, left: int) -> int:
    """``CardEffects._card_plays`` (and the engine's tables of plain plays): every way ``p``
    may play ``card``, each also with an UNO call when ``left`` (the cards left in hand
    after it; after a Discard All, those of its colour are gone too) is 1. A Trade Hands
    names each other seat, as a 7 under ``seven_swap``, and cannot be the last card.
    Writes the actions from ``g[ACTS + k]``; returns the new end."""
    g = view(gp)
    start = k
    out = ACTS
    if card >= WILD:
        if g[RP + S.R_WHEEL]:  # the wheel names the colour
            g[out + k] = play_action(p, card, 7, 15)
            k += 1
        else:
            for color in range(4):
                g[out + k] = play_action(p, card, color, 15)
                k += 1
    elif _RANK[card] >= DISCARD_ALL:
        return attack_plays(gp, k, p, card, left)
    elif (_RANK[card] == 7 and g[RP + S.R_SEVEN_SWAP]
          and (left != 0 or g[RP + S.R_SEVEN_ZERO_APPLY] or refills(gp, p))):
        k = target_plays(gp, k, p, card)
    else:
        g[out + k] = play_action(p, card, 7, 15)
        k += 1
    return with_uno_calls(gp, start, k) if left == 1 else k


@inline
def answer_allowed(gp: int, card: int) -> bool:
    """``CardEffects._answer_allowed``: whether ``card`` answers the pending penalty."""
    g = view(gp)
    if card < WILD:
        rank = _RANK[card]
        if rank == REVERSE:
            return g[RP + S.R_REV_DEFLECT] != 0 and _COLOR[card] == g[S_COLOR]
        if rank != DRAW_TWO:
            return False
        if g[S_PKIND] == DRAW_TWO:
            return g[RP + S.R_D2D2] != 0
        return g[RP + S.R_D2D4] != 0 and _COLOR[card] == g[S_COLOR]
    if card != WD4:
        return False
    if g[S_PKIND] == DRAW_TWO:
        return g[RP + S.R_D4D2] == 2
    return g[RP + S.R_D4D4] == 2


@inline
def playable_bits(gp: int, p: int) -> int:
    """The bit set of the kinds seat ``p`` may play now (phase play): those matching the
    top card and colour, less a Wild Draw Four that ``strict`` forbids and a Trade Hands
    that would be the last card."""
    g = view(gp)
    base = HC + p * HAND_COLS
    bits = g[base + MASK] & g[PLAY_BITS + g[S_MATCH] * 4 + g[S_COLOR]]
    if g[RP + S.R_WD4] == 1 and has_color(gp, p, g[S_COLOR]):
        bits &= ~(1 << g[BITS + WD4])
    trade = bits & g[TRADE_BITS]
    if trade and g[base + SIZE] == 1 and not refills(gp, p):
        bits ^= trade  # a Trade Hands cannot be the last card
    return bits


@inline
def answer_bits(gp: int, p: int) -> int:
    """The bit set of the kinds with which seat ``p`` may answer the pending penalty
    (phase respond), as :func:`legal` lists them."""
    g = view(gp)
    bits = g[HC + p * HAND_COLS + MASK]
    answers = 0
    while bits:
        low = bits & -bits
        card = lowest_kind(gp, bits)
        bits ^= low
        if answer_allowed(gp, card) and (
                card != WD4 or g[RP + S.R_WD4] != 1 or can_play(gp, p, card)):
            answers |= low
    return answers


@jit
def legal(gp: int, p: int) -> int:
    """``Game.legal_actions(p)`` for the current player ``p``, written to
    ``g[ACTS:]``; returns how many."""
    g = view(gp)
    phase = g[S_PHASE]
    base = HC + p * HAND_COLS
    left = g[base + SIZE] - 1
    k = 0
    if phase == P_PLAY:
        bits = playable_bits(gp, p)
        playable = bits
        while bits:
            k = card_plays(gp, k, p, lowest_kind(gp, bits), left)
            bits &= bits - 1
        if g[RP + S.R_MISPLAY]:  # the cards that do not match, as plain plays
            bits = g[base + MASK] & ~g[PLAY_BITS + g[S_MATCH] * 4 + g[S_COLOR]]
            while bits:
                g[ACTS + k] = play_action(p, lowest_kind(gp, bits), 7, 15)
                k += 1
                bits &= bits - 1
        if g[RP + S.R_DWP] or playable == 0:
            g[ACTS + k] = plain(p, T_DRAW)
            k += 1
    elif phase == P_DRAWN:
        k = card_plays(gp, k, p, g[S_DRAWN], left)
        if g[RP + S.R_PLAY_DRAWN] != 1:
            g[ACTS + k] = plain(p, T_PASS)
            k += 1
    elif phase == P_CHALLENGE or phase == P_RESPOND:  # noqa: SIM109 (numba)
        g[ACTS + k] = plain(p, T_DRAW)
        k += 1
        if phase == P_RESPOND:
            bits = g[base + MASK]
            while bits:
                card = lowest_kind(gp, bits)
                bits &= bits - 1
                if answer_allowed(gp, card) and (
                        card != WD4 or g[RP + S.R_WD4] != 1 or can_play(gp, p, card)):
                    k = card_plays(gp, k, p, card, left)
        if g[S_WD4_BY] >= 0:
            g[ACTS + k] = plain(p, T_CHALLENGE)
            k += 1
    elif phase == P_COLOR:
        for color in range(4):
            g[ACTS + k] = p | (T_COLOR << 4) | (EMPTY & ~_COLOR_MASK) | (color << 15)
            k += 1
    vulnerable = g[S_UNO_OPEN]
    if vulnerable >= 0 and g[HC + vulnerable * HAND_COLS + SIZE] == 1:
        if p == vulnerable:
            if g[RP + S.R_SELF_CATCH]:
                g[ACTS + k] = plain(p, T_UNO)
                k += 1
        else:
            g[ACTS + k] = p | (T_CATCH << 4) | (EMPTY & ~_TARGET_MASK) | (vulnerable << 18)
            k += 1
    return k


@jit
def skip_answers(gp: int, p: int) -> int:
    """``CardEffects._skip_answers``: the Skips with which the skipped seat ``p`` may pass
    the skip on (an identical one under ``same_color``), written to ``g[ACTS:]``."""
    g = view(gp)
    top = g[DISC + g[S_NDISC] - 1]
    same = g[RP + S.R_SKIP_ON_SKIP] == 1
    base = HC + p * HAND_COLS
    k = 0
    for color in range(4):
        card = color * 16 + SKIP
        if g[base + card] and (not same or card == top):
            k = card_plays(gp, k, p, card, g[base + SIZE] - 1)
    return k


# ------------------------------------------------------------------ policies
@jit
def favourite_color(gp: int, p: int) -> int:
    """The colour seat ``p`` holds most cards of (ties: R, Y, G, B); ``below(4)``
    without coloured cards."""
    g = view(gp)
    best = -1
    best_count = 0
    base = HC + p * HAND_COLS
    for color in range(4):
        count = 0
        for r in range(16):
            count += g[base + color * 16 + r]
        if count > best_count:
            best = color
            best_count = count
    if best < 0:
        return below(gp, 1, 4)
    return best


@jit
def pick_way(gp: int, p: int, card: int, count: int) -> int:
    """playfirst's way to play ``card`` among the actions ``g[ACTS:ACTS + count]``: for a
    wild the plays naming its favourite colour, of those the ones calling UNO if any, one
    of them with ``below``."""
    g = view(gp)
    color = favourite_color(gp, p) if card >= WILD else 7
    ways = 0
    for i in range(count):
        a = g[ACTS + i]
        if ((a >> 4) & 15 == T_PLAY and (a >> 8) & 127 == card
                and (card < WILD or (a >> 15) & 7 == color)):
            g[TMP + ways] = a
            ways += 1
    if ways == 0:  # no play names the favourite colour: keep every way
        for i in range(count):
            a = g[ACTS + i]
            if (a >> 4) & 15 == T_PLAY and (a >> 8) & 127 == card:
                g[TMP + ways] = a
                ways += 1
    with_uno = 0
    for i in range(ways):
        if g[TMP + i] & UNO_FLAG:
            g[TMP + with_uno] = g[TMP + i]
            with_uno += 1
    if with_uno:
        ways = with_uno
    return g[TMP + below(gp, 1, ways)]


@jit
def attack_way(gp: int, p: int, card: int, left: int) -> int:
    """:func:`playfirst_way` for a Trade Hands (its target among the other seats, as a 7
    that swaps) or a Discard All (calling UNO when one card stays after it and the cards
    of its colour)."""
    g = view(gp)
    if _RANK[card] == TRADE_HANDS:
        n = g[RP + S.R_N]
        step = 1 + below(gp, 1, n - 1)
        uno = UNO_FLAG if left == 1 else 0
        return play_action(p, card, 7, (p + g[S_DIR] * step) % n) | uno
    below(gp, 1, 1)
    uno = UNO_FLAG if left + 1 - color_count(gp, p, _COLOR[card]) == 1 else 0
    return play_action(p, card, 7, 15) | uno


@jit
def playfirst_way(gp: int, p: int, card: int, left: int) -> int:
    """:func:`pick_way` among ``card_plays(gp, 0, p, card, left)``, without listing
    them: the same action, from the same draws on the decision stream (a wild names the
    favourite colour, or none under the wheel; a 7 that swaps or a Trade Hands picks its
    target among the other seats in the direction of play; one way otherwise; with an UNO
    call when ``left`` is 1, or for a Discard All when one card stays after it)."""
    g = view(gp)
    uno = UNO_FLAG if left == 1 else 0
    if card >= WILD:
        color = favourite_color(gp, p)
        below(gp, 1, 1)
        if g[RP + S.R_WHEEL]:
            color = 7
        return play_action(p, card, color, 15) | uno
    if _RANK[card] >= DISCARD_ALL:
        return attack_way(gp, p, card, left)
    if (_RANK[card] == 7 and g[RP + S.R_SEVEN_SWAP]
            and (left != 0 or g[RP + S.R_SEVEN_ZERO_APPLY] or refills(gp, p))):
        n = g[RP + S.R_N]
        step = 1 + below(gp, 1, n - 1)
        return play_action(p, card, 7, (p + g[S_DIR] * step) % n) | uno
    below(gp, 1, 1)
    return play_action(p, card, 7, 15) | uno


@jit
def pick_play(gp: int, p: int, count: int) -> int:
    """playfirst's play among the actions ``g[ACTS:ACTS + count]`` (plays grouped by
    card, ascending): a card with ``below``, then :func:`pick_way`."""
    g = view(gp)
    kinds = 0
    last = -1
    ordered = True
    for i in range(count):
        a = g[ACTS + i]
        if (a >> 4) & 15 == T_PLAY:
            card = (a >> 8) & 127
            if card != last:
                ordered = ordered and card > last
                g[TMP + kinds] = card
                kinds += 1
                last = card
    if not ordered:  # misplays follow the plays that match: sort the distinct cards
        for i in range(1, kinds):
            card = g[TMP + i]
            j = i - 1
            while j >= 0 and g[TMP + j] > card:
                g[TMP + j + 1] = g[TMP + j]
                j -= 1
            g[TMP + j + 1] = card
    return pick_way(gp, p, g[TMP + below(gp, 1, kinds)], count)


@jit
def playfirst_turn(gp: int, p: int) -> int:
    """playfirst's action in phase play, drawn, challenge or respond: the same as
    :func:`choose` on :func:`legal`, without listing every action first (it never
    challenges: it answers a penalty with a card if it can, else draws)."""
    g = view(gp)
    vulnerable = g[S_UNO_OPEN]
    if vulnerable >= 0 and g[HC + vulnerable * HAND_COLS + SIZE] == 1:
        if p != vulnerable:
            return p | (T_CATCH << 4) | (EMPTY & ~_TARGET_MASK) | (vulnerable << 18)
        if g[RP + S.R_SELF_CATCH]:
            return plain(p, T_UNO)
    left = g[HC + p * HAND_COLS + SIZE] - 1
    phase = g[S_PHASE]
    if phase == P_DRAWN:
        card = g[S_DRAWN]
        below(gp, 1, 1)  # the choice among the one card that may be played
    else:
        if phase == P_PLAY:
            bits = playable_bits(gp, p)
        elif phase == P_RESPOND:
            bits = answer_bits(gp, p)
        else:
            bits = 0
        if bits == 0:
            return plain(p, T_DRAW)
        for _ in range(below(gp, 1, popcount(bits))):  # the chosen kind, ascending
            bits &= bits - 1
        card = lowest_kind(gp, bits)
    return playfirst_way(gp, p, card, left)


@jit
def choose(gp: int, p: int, count: int) -> int:
    """Seat ``p``'s policy's action on its turn, among ``g[ACTS:ACTS + count]``."""
    g = view(gp)
    if g[POL + p] == POL_RANDOM:
        return g[ACTS + below(gp, 1, count)]
    has_play = False
    has_pass = False
    uno = -1
    for i in range(count):
        a = g[ACTS + i]
        kind = (a >> 4) & 15
        if kind == T_CATCH:
            return a
        if kind == T_UNO and uno < 0:
            uno = a
        has_play = has_play or kind == T_PLAY
        has_pass = has_pass or kind == T_PASS
    if uno >= 0:
        return uno
    if (g[ACTS] >> 4) & 15 == T_COLOR:
        color = favourite_color(gp, p)
        return p | (T_COLOR << 4) | (EMPTY & ~_COLOR_MASK) | (color << 15)
    if has_play:
        return pick_play(gp, p, count)
    if has_pass:
        return plain(p, T_PASS)
    return plain(p, T_DRAW)


@jit
def answer_skip(gp: int, p: int, count: int) -> int:
    """Seat ``p``'s policy's skip answer among ``g[ACTS:ACTS + count]``; -1 for none."""
    g = view(gp)
    if g[POL + p] == POL_RANDOM:
        pick = below(gp, 1, count + 1)
        return g[ACTS + pick] if pick < count else -1
    return pick_play(gp, p, count)


@jit
def jump_in(gp: int) -> int:
    """Step 3 of :mod:`unokit.sim.policies`: the seats after the current player, in the
    direction of play, that hold a card identical to the top card (not a Wild Draw
    Four) are asked in turn; the first jump-in taken, or -1."""
    g = view(gp)
    top = g[DISC + g[S_NDISC] - 1]
    if top == WD4 or g[S_FRESH]:  # not on the start card (after a misplay)
        return -1
    seat = g[S_CUR]
    for _ in range(g[RP + S.R_N] - 1):
        seat = nxt(gp, seat)
        base = HC + seat * HAND_COLS
        if g[base + top]:
            if g[POL + seat] == POL_PLAYFIRST:  # always jumps in: one card, its way
                below(gp, 1, 1)
                return playfirst_way(gp, seat, top, g[base + SIZE] - 1)
            action = answer_skip(gp, seat, card_plays(gp, 0, seat, top, g[base + SIZE] - 1))
            if action >= 0:
                return action
    return -1


# ------------------------------------------------------------------ games
@jit
def play_game(gp: int, seed: np.uint64, max_actions: int, record: I64) -> np.uint64:
    """Play one game in the state at address ``gp`` (rules, deck and policies already
    there); the final state stays there. Writes the actions to ``record`` if it holds
    ``max_actions``. Returns the FNV-1a digest of the actions."""
    g = view(gp)
    g[:RP] = 0
    g[SCORES: SCORES + 10] = 0
    g[XS:G_SIZE] = 0
    seed_streams(gp, seed)
    g[S_MATCH_WINNER] = -1
    g[S_DIR] = 1
    dealer = choose_dealer(gp)
    g[S_DEALER] = dealer
    g[S_FIRST_DEALER] = dealer
    start_round(gp)
    g[S_FIRST] = g[S_CUR]
    digest = FNV_OFFSET
    keep = record.shape[0] >= max_actions
    jumps = g[RP + S.R_JUMP_IN] != 0
    offer_jump = False
    while g[S_PHASE] != P_MATCH_OVER and g[S_ACTIONS] < max_actions:
        if g[S_PHASE] == P_ROUND_OVER:
            action = plain(0, T_NEXT)
        else:
            action = -1
            if g[S_OFFER_SKIP]:
                g[S_OFFER_SKIP] = 0
                seat = g[S_SKIP_FROM]
                count = skip_answers(gp, seat)
                if count:
                    action = answer_skip(gp, seat, count)
            elif offer_jump:
                action = jump_in(gp)
            if action < 0:
                p = g[S_CUR]
                phase = g[S_PHASE]
                # phase play, drawn, challenge or respond, without misplays to choose from
                fast = (phase <= P_RESPOND and phase != P_COLOR
                        and g[RP + S.R_MISPLAY] == 0)
                if g[POL + p] == POL_PLAYFIRST and fast:
                    action = playfirst_turn(gp, p)
                else:
                    action = choose(gp, p, legal(gp, p))
        if keep:
            record[g[S_ACTIONS]] = action
        digest = (digest ^ np.uint64(action)) * FNV_PRIME
        g[S_OFFER_SKIP] = 0
        apply(gp, action)
        offer_jump = (jumps and (action >> 4) & 15 == T_PLAY and g[S_OFFER_SKIP] == 0
                      and g[S_PHASE] == P_PLAY)
    return digest


@jit
def run_batch(g: I64, seeds: U64, max_actions: int, out: I64, out_scores: I64,
              digests: U64) -> None:
    """Play one game per seed in the state array ``g`` (:func:`~unokit.sim.kernel.new_state`):
    ``out[i]`` gets the ``C_*`` columns, ``out_scores[i]`` the final scores,
    ``digests[i]`` the digest of the actions."""
    gp = g.ctypes.data
    n = g[RP + S.R_N]
    record = np.zeros(0, dtype=np.int64)
    for i in range(seeds.shape[0]):
        digests[i] = play_game(gp, seeds[i], max_actions, record)
        winner = g[S_MATCH_WINNER] if g[S_PHASE] == P_MATCH_OVER else -1
        out[i, C_WINNER] = winner
        out[i, C_POINTS] = g[SCORES + winner] if winner >= 0 else 0
        out[i, C_ACTIONS] = g[S_ACTIONS]
        out[i, C_PLAYS] = g[S_PLAYS]
        out[i, C_DRAWS] = g[S_DRAWS]
        out[i, C_TURNS] = g[S_TURNS]
        out[i, C_ROUNDS] = g[S_ROUND_NO]
        out[i, C_BLOCKED] = g[S_BLOCKED]
        out[i, C_FIRST] = g[S_FIRST]
        out[i, C_DEALER] = g[S_FIRST_DEALER]
        out[i, C_REPEATED] = g[S_REPEATED]
        for seat in range(n):
            out_scores[i, seat] = g[SCORES + seat]


__all__ = ["C_ACTIONS", "C_BLOCKED", "C_DEALER", "C_DRAWS", "C_FIRST", "C_PLAYS",
           "C_POINTS", "C_REPEATED", "C_ROUNDS", "C_TURNS", "C_WINNER", "N_COLS", "legal",
           "play_game", "play_recorded", "run_batch"]


@jit
def play_recorded(g: I64, seed: np.uint64, max_actions: int, record: I64) -> np.uint64:
    """:func:`play_game` on the state array ``g``."""
    return play_game(g.ctypes.data, seed, max_actions, record)
