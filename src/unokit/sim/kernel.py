"""The simulator's game rules, compiled with numba: the engine's rules, step for step.

Why numba: the game loop has to run two orders of magnitude faster than the Python
engine, and unokit installs from wheels alone (a fresh machine has no C compiler, so a C
extension or Cython would need prebuilt binaries for every platform). numba compiles this
module's plain Python and numpy code to machine code at the first call, from wheels, and
``cache=True`` keeps the compiled code next to the module (``__pycache__``), so later
processes start at once.

The kernel mirrors :mod:`unokit.engine.game`, :mod:`unokit.engine.match_flow`,
:mod:`unokit.engine.table`, :mod:`unokit.engine.house` and :mod:`unokit.engine.attack` for
the rules :mod:`unokit.sim.support` accepts: the same dealer draw, deal, start card, draws,
launcher presses and reshuffles from the same SplitMix64 numbers
(:mod:`unokit.engine.rng`), the same effects and scoring. Hands are counts of each card
kind with a bit set of the kinds held (:func:`deck_tables`): with the classic and H2O
decks nothing depends on the order of the cards in a hand; with the Attack deck a
Discard All does, and :mod:`unokit.sim.attack` keeps each hand's order beside its counts.
This module has the state, the generator and the primitives; :mod:`unokit.sim.deal` the
start of a round, :mod:`unokit.sim.attack` the launcher, :mod:`unokit.sim.effects` what
the actions do, :mod:`unokit.sim.match` the end of a round and of the match, and
:mod:`unokit.sim.loop` the legal actions, the policies and the game loop.

The whole state of a game is one int64 array ``g`` (see the offsets below: the scalars
``S_*``, the rule parameters at ``RP``, the hands, piles and scores), because every array
passed to a compiled function costs a reference count update on each call.
"""

# Elements of the state array type as Any under numpy's stubs, so that the returns of
# the functions that read them cannot be checked.
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

import hashlib
from pathlib import Path

import numba
import numpy as np
import numpy.typing as npt
from llvmlite import ir  # type: ignore[import-untyped]
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.numpy_support import carray

from unokit.engine import cards as C
from unokit.engine.cards import COLOR_OF, IS_NUMBER, NUM_KINDS, POINTS, RANK_OF
from unokit.engine.rng import GOLDEN, MIX1, MIX2
from unokit.engine.tables import PLAYABLE
from unokit.sim import support as S

I64 = npt.NDArray[np.int64]

# ------------------------------------------------------------------ tables
_COLOR = np.array(COLOR_OF, dtype=np.int64)
_RANK = np.array(RANK_OF, dtype=np.int64)
_POINTS = np.array(POINTS, dtype=np.int64)
_NUMBER = np.array(IS_NUMBER, dtype=np.int64)
WILD, WD4 = C.WILD, C.WILD_DRAW_FOUR
DOWNPOUR_ONE, DOWNPOUR_TWO = C.WILD_DOWNPOUR_ONE, C.WILD_DOWNPOUR_TWO
SKIP, REVERSE, DRAW_TWO = C.SKIP, C.REVERSE, C.DRAW_TWO


def _playable_table() -> I64:
    """A 0/1 table of the kinds that may be played on each ``top * 4 + colour`` (the
    engine's :data:`~unokit.engine.tables.PLAYABLE`)."""
    return np.array([list(row) for row in PLAYABLE], dtype=np.int64)


_PLAYABLE = _playable_table()


def deck_tables(deck: I64) -> tuple[I64, I64, I64, I64]:
    """Each hand also keeps a bit set of the kinds it holds, one bit for each kind of the
    deck, ascending with the kind (the classic deck: a coloured card is bit ``colour * 13
    + rank``, then ``W`` 52 and ``W+4`` 53; the Attack deck: 14 kinds a colour, then
    ``W``, ``WAH`` and ``WHF``). Returns the kind of each bit, the bit of each kind (63,
    never set, for a kind not in the deck), the bits that may be played on each ``top * 4
    + colour``, and the bits of each colour; :func:`new_state` keeps them in the state.

    >>> from unokit.engine.rules import Rules
    >>> kinds, bits, play, colors = deck_tables(np.array(Rules().deck_cards()))
    >>> int(bits[C.WILD]), int(kinds[53]) == C.WILD_DRAW_FOUR, hex(int(colors[0]))
    (52, True, '0x1fff')
    """
    kinds = sorted({int(k) for k in deck})
    if len(kinds) > 63:
        raise ValueError(f"a deck of {len(kinds)} kinds is more than a hand's bit set holds")
    kind_of = np.zeros(64, dtype=np.int64)
    bit_of = np.full(HAND_COLS, 63, dtype=np.int64)
    for bit, kind in enumerate(kinds):
        kind_of[bit] = kind
        bit_of[kind] = bit
    play_mask = np.zeros(NUM_KINDS * 4, dtype=np.int64)
    for row in range(NUM_KINDS * 4):
        for bit, kind in enumerate(kinds):
            if PLAYABLE[row][kind]:
                play_mask[row] |= 1 << bit
    color_mask = np.zeros(4, dtype=np.int64)
    for bit, kind in enumerate(kinds):
        if kind < WILD:
            color_mask[COLOR_OF[kind]] |= 1 << bit
    return kind_of, bit_of, play_mask, color_mask


# ------------------------------------------------------------------ state layout
HAND_COLS = 80
SIZE = 79  # the column of a hand that holds its size
MASK = 78  # the column of a hand that holds the bit set of its kinds (see deck_tables)
PILE_CAP = 128
MAX_SEATS = 10
MAX_LEGAL = 512
RP = 32  # rule parameters: g[RP + support.R_*]
HC = RP + 64  # hands: g[HC + seat * HAND_COLS + kind] cards of that kind
PILE = HC + MAX_SEATS * HAND_COLS  # the draw pile, top at the end; length g[S_NPILE]
DISC = PILE + PILE_CAP  # the discard pile, top at the end; length g[S_NDISC]
DPILE = DISC + PILE_CAP  # the pile of the dealer draw
SCORES = DPILE + PILE_CAP
POL = SCORES + MAX_SEATS  # the policy of each seat
BONUS = POL + MAX_SEATS  # going_out_bonus by card kind
DECK = BONUS + HAND_COLS  # the deck in canonical order
KINDS = DECK + PILE_CAP  # the kind of each bit of a hand's bit set (see deck_tables)
BITS = KINDS + 64  # the bit of each kind
PLAY_BITS = BITS + HAND_COLS  # the bits that may be played on each top * 4 + colour
COLOR_BITS = PLAY_BITS + NUM_KINDS * 4  # the bits of each colour
TRADE_BITS = COLOR_BITS + 4  # the bits of the Trade Hands (UNO Attack); one entry
ORDER = TRADE_BITS + 1  # UNO Attack: lists of the cards of a hand in order, PILE_CAP each
LIST_OF = ORDER + MAX_SEATS * PILE_CAP  # UNO Attack: the list of each seat's hand
ACTS = LIST_OF + MAX_SEATS  # legal actions
TMP = ACTS + MAX_LEGAL  # the policies' working space
SCRATCH = TMP + MAX_LEGAL  # hands being rotated; the dealer draw's contenders
RNG = SCRATCH + MAX_SEATS * HAND_COLS  # two SplitMix64 states (uint64 bits): game, decisions
POS = RNG + 2  # the repetition table: g[POS] its generation, then POS_SLOTS slots
POS_SLOTS = 8192  # open addressing, each slot (position hash, count, generation)
POS_LIMIT = 6144  # positions a round records at most (see effects.note_position)
XS = POS + 1 + 3 * POS_SLOTS  # more scalars (S_FRESH, S_FIRST_NEXT, ...)
WINS = XS + 8  # lazy scoring: rounds won by each seat
LOSSES = WINS + MAX_SEATS  # lazy scoring: rounds lost by each seat
LEVELS = LOSSES + MAX_SEATS  # progressive_refill: the level of each seat
G_SIZE = LEVELS + MAX_SEATS
assert RP + S.N_PARAMS <= HC, "the rule parameters overlap the hands"

# Phases.
P_PLAY, P_DRAWN, P_COLOR, P_CHALLENGE, P_RESPOND, P_ROUND_OVER, P_MATCH_OVER = range(7)

# Scalars, g[0:RP].
S_CUR = 0
S_PHASE = 1
S_DIR = 2
S_COLOR = 3
S_MATCH = 4
S_DRAWN = 5
S_PENDING = 6
S_PKIND = 7
S_WD4_BY = 8
S_WD4_GUILTY = 9
S_WD4_COLOR = 10
S_WD4_MATCH = 11
S_UNO_OPEN = 12
S_SKIP_FROM = 13
S_IDLE = 14
S_NPILE = 15
S_NDISC = 16
S_DEALER = 17
S_ROUND_NO = 18
S_ROUND_WINNER = 19
S_MATCH_WINNER = 20
S_OFFER_SKIP = 21
S_ACTIONS = 22
S_PLAYS = 23
S_DRAWS = 24
S_TURNS = 25
S_BLOCKED = 26
S_FIRST = 27
S_FIRST_DEALER = 28
S_RECYCLED = 29  # cards came back from the discard pile during this action
S_NPOS = 30  # positions recorded in the repetition table this round
S_REPEATED = 31  # rounds blocked by the repetition rule
S_FRESH = XS  # 1 while the start card lies untouched on the discard pile (no jump-in on it)
S_FIRST_NEXT = XS + 1  # lazy scoring: 1 + the seat that plays first next round (0: none)
S_LOSER = XS + 2  # lazy scoring: the loser of the round
S_PILE_FINAL = XS + 3  # the draw pile's cards below this index are not placed yet (0: all are)
S_PILE_STATE = XS + 4  # the generator state with which to place them (see deal.shuffle_pile)

# Action encoding (unokit.engine.actions).
T_PLAY, T_DRAW, T_PASS, T_CHALLENGE, T_UNO, T_CATCH, T_COLOR, T_NEXT = range(8)
UNO_FLAG = 1 << 22
EMPTY = (127 << 8) | (7 << 15) | (15 << 18)

# Policies.
POL_RANDOM = 0
POL_PLAYFIRST = 1

# SplitMix64 and FNV-1a constants.
_GOLDEN = np.uint64(GOLDEN)
_MIX1 = np.uint64(MIX1)
_MIX2 = np.uint64(MIX2)
_SALT = np.uint64(0x6A09E667F3BCC909)
FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
_U0 = np.uint64(0)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)

_COMPILED_MODULES = ("support.py", "kernel.py", "attack.py", "deal.py", "match.py", "effects.py",
                     "loop.py")


def _drop_stale_cache() -> None:
    """numba checks each cached function against its own file only, but the machine code
    of a function includes what it calls from the other modules. So when any of the
    simulator's compiled modules changes, the whole cache in ``__pycache__`` goes."""
    folder = Path(__file__).parent
    digest = hashlib.sha256()
    for name in _COMPILED_MODULES:
        digest.update((folder / name).read_bytes())
    cache = folder / "__pycache__"
    stamp = cache / "numba-sources.sha256"
    try:
        if stamp.read_text(encoding="ascii") == digest.hexdigest():
            return
    except OSError:
        pass
    try:
        for path in cache.glob("*.nb[ic]"):
            path.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest(), encoding="ascii")
    except OSError:  # a read-only install: numba keeps its cache elsewhere
        pass


_drop_stale_cache()
jit = numba.njit(cache=True, nogil=True)
inline = numba.njit(cache=True, nogil=True, inline="always")
"""For the small functions called on every action (a call passes ``g`` with a reference
count update; inlined, it costs nothing)."""


@intrinsic
def _address(typingctx: object, addr: types.Integer) -> tuple[object, object]:
    """The integer ``addr`` as a pointer (for :func:`view`)."""
    def codegen(context: object, builder: object, signature: object, args: list[object]) -> object:
        return builder.inttoptr(args[0], cgutils.voidptr_t)  # type: ignore[attr-defined]

    return types.voidptr(addr), codegen


@intrinsic
def _mulhi(typingctx: object, x: types.Integer, n: types.Integer) -> tuple[object, object]:
    """The high 64 bits of the 128-bit product of two uint64 (one machine multiply; the
    low 64 bits are the wrapping product ``x * n``)."""
    def codegen(context: object, builder: object, signature: object, args: list[object]) -> object:
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide),  # type: ignore[attr-defined]
                              builder.zext(args[1], wide))  # type: ignore[attr-defined]
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)),  # type: ignore[attr-defined]
                             ir.IntType(64))

    return types.uint64(types.uint64, types.uint64), codegen


@intrinsic
def _trailing_zeros(typingctx: object, x: types.Integer) -> tuple[object, object]:
    """The number of trailing zero bits of a non-zero int64 (one machine instruction)."""
    def codegen(context: object, builder: object, signature: object, args: list[object]) -> object:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))  # type: ignore[attr-defined]

    return types.int64(types.int64), codegen


@intrinsic
def _popcount(typingctx: object, x: types.Integer) -> tuple[object, object]:
    """The number of set bits of an int64 (one machine instruction)."""
    def codegen(context: object, builder: object, signature: object, args: list[object]) -> object:
        return builder.ctpop(args[0])  # type: ignore[attr-defined]

    return types.int64(types.int64), codegen


@inline
def mulhi(x: np.uint64, n: np.uint64) -> np.uint64:
    """The high 64 bits of ``x * n`` as a 128-bit product (see :func:`_mulhi`)."""
    return _mulhi(x, n)  # type: ignore[call-arg,arg-type]


@inline
def trailing_zeros(x: int) -> int:
    """The trailing zero bits of a non-zero int64 (see :func:`_trailing_zeros`)."""
    return _trailing_zeros(x)  # type: ignore[call-arg]


@inline
def popcount(x: int) -> int:
    """The set bits of an int64 (see :func:`_popcount`)."""
    return _popcount(x)  # type: ignore[call-arg]


@inline
def view(gp: int) -> I64:
    """The state array at address ``gp``. The compiled functions pass the state's
    address rather than the array: an array argument costs a reference count update on
    every call, which would cost more than the work of most calls."""
    return carray(_address(gp), G_SIZE, np.int64)  # type: ignore[call-arg]


def new_state(params: I64, bonus: I64, deck: I64, policies: I64) -> I64:
    """A state array for games under these rule parameters, bonus table, deck and
    policies by seat (see :mod:`unokit.sim.support`)."""
    if len(deck) > PILE_CAP:
        raise ValueError(f"a deck of {len(deck)} cards is more than the kernel holds")
    g = np.zeros(G_SIZE, dtype=np.int64)
    g[RP: RP + len(params)] = params
    g[BONUS: BONUS + len(bonus)] = bonus
    g[DECK: DECK + len(deck)] = deck
    g[POL: POL + len(policies)] = policies
    kinds, bits, play, colors = deck_tables(deck)
    g[KINDS: KINDS + 64] = kinds
    g[BITS: BITS + HAND_COLS] = bits
    g[PLAY_BITS: PLAY_BITS + NUM_KINDS * 4] = play
    g[COLOR_BITS: COLOR_BITS + 4] = colors
    for color in range(4):
        kind = color * C.RANKS_PER_COLOR + C.TRADE_HANDS
        if bits[kind] != 63:
            g[TRADE_BITS] |= 1 << int(bits[kind])
    return g


# ------------------------------------------------------------------ SplitMix64
@inline
def mix(z: np.uint64) -> np.uint64:
    """The output function of SplitMix64."""
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@jit
def seed_streams(gp: int, seed: np.uint64) -> None:
    """The game's stream starts at ``seed``; the decision stream at the first output
    of SplitMix64 seeded with ``seed ^ 0x6A09E667F3BCC909``."""
    g = view(gp)
    g[RNG] = np.int64(seed)
    g[RNG + 1] = np.int64(mix((seed ^ _SALT) + _GOLDEN))


@inline
def below(gp: int, stream: int, n: int) -> int:
    """Lemire's unbiased ``below(n)`` on stream 0 (the game) or 1 (the decisions);
    ``n < 2**32``."""
    g = view(gp)
    nn = np.uint64(n)
    while True:
        s = np.uint64(g[RNG + stream]) + _GOLDEN
        g[RNG + stream] = np.int64(s)
        x = mix(s)
        lo = x * nn
        if lo >= nn or lo >= (_U0 - nn) % nn:
            return int(np.int64(mulhi(x, nn)))


@inline
def shuffle_steps(gp: int, start: int, high: int, low: int, state: np.uint64) -> np.uint64:
    """The steps ``i = high, high - 1, ..., low`` of :func:`shuffle` over
    ``g[start:]``, from the generator state ``state``; returns the state after them.
    Each step makes the card at ``start + i`` final (Lemire's ``below(i + 1)``)."""
    g = view(gp)
    for i in range(high, low - 1, -1):
        nn = np.uint64(i + 1)
        while True:
            state += _GOLDEN
            x = mix(state)
            lo = x * nn
            if lo >= nn or lo >= (_U0 - nn) % nn:
                break
        j = start + np.int64(mulhi(x, nn))
        tmp = g[start + i]
        g[start + i] = g[j]
        g[j] = tmp
    return state


@inline
def skip_steps(high: int, low: int, state: np.uint64) -> np.uint64:
    """The generator state after the steps ``i = high, ..., low`` of a shuffle, without
    shuffling: the same numbers are drawn (and rejected), nothing is moved.

    A step draws again only if its low product is below ``i + 1`` (odds about ``2**-57``):
    the steps are first taken as one number each, without a branch (so that the numbers
    are computed side by side), and only if one of them might have drawn again are they
    taken one by one."""
    maybe = np.uint64(0)
    fast = state
    for i in range(high, low - 1, -1):
        fast += _GOLDEN
        maybe |= np.uint64(mix(fast) * np.uint64(i + 1) < np.uint64(i + 1))
    if maybe == 0:
        return fast
    for i in range(high, low - 1, -1):
        nn = np.uint64(i + 1)
        while True:
            state += _GOLDEN
            lo = mix(state) * nn
            if lo >= nn or lo >= (_U0 - nn) % nn:
                break
    return state


@jit
def shuffle(gp: int, start: int, length: int) -> None:
    """Fisher-Yates from the end over ``g[start:start + length]``, on the game's
    stream (:func:`below` with the generator state kept in a register)."""
    g = view(gp)
    g[RNG] = np.int64(shuffle_steps(gp, start, length - 1, 1, np.uint64(g[RNG])))


@jit
def place_pile(gp: int) -> None:
    """Place the cards of the draw pile that :func:`unokit.sim.deal.shuffle_pile` left unplaced."""
    g = view(gp)
    final = g[S_PILE_FINAL]
    if final:
        shuffle_steps(gp, PILE, final - 1, 1, np.uint64(g[S_PILE_STATE]))
        g[S_PILE_FINAL] = 0


# ------------------------------------------------------------------ small helpers
@inline
def nxt(gp: int, seat: int) -> int:
    """The next seat in the direction of play."""
    g = view(gp)
    n = g[RP + S.R_N]
    seat += g[S_DIR]
    if seat >= n:
        return seat - n
    if seat < 0:
        return seat + n
    return seat


@inline
def has_color(gp: int, p: int, color: int) -> bool:
    """Whether seat ``p`` holds a card of ``color``."""
    g = view(gp)
    if color < 0:
        return False
    return (g[HC + p * HAND_COLS + MASK] & g[COLOR_BITS + color]) != 0


@inline
def lowest_kind(gp: int, bits: int) -> int:
    """The kind of the lowest bit of a non-empty bit set of kinds."""
    g = view(gp)
    return g[KINDS + trailing_zeros(bits)]


@inline
def add_card(gp: int, p: int, card: int) -> None:
    """Seat ``p`` takes ``card`` into the hand."""
    g = view(gp)
    base = HC + p * HAND_COLS
    g[base + card] += 1
    g[base + SIZE] += 1
    g[base + MASK] |= 1 << g[BITS + card]


@inline
def remove_card(gp: int, p: int, card: int) -> None:
    """Seat ``p`` gives up ``card`` from the hand."""
    g = view(gp)
    base = HC + p * HAND_COLS
    g[base + card] -= 1
    g[base + SIZE] -= 1
    if g[base + card] == 0:
        g[base + MASK] &= ~(1 << g[BITS + card])


@inline
def can_play(gp: int, p: int, card: int) -> bool:
    """``Game._can_play``."""
    g = view(gp)
    if _PLAYABLE[g[S_MATCH] * 4 + g[S_COLOR], card] == 0:
        return False
    if card == WD4 and g[RP + S.R_WD4] == 1:
        return not has_color(gp, p, g[S_COLOR])
    return True


@inline
def refills(gp: int, p: int) -> bool:
    """Whether seat ``p`` draws again when its hand empties (``progressive_refill``, at a
    level above 1): its last card is then not its last."""
    g = view(gp)
    return g[RP + S.R_REFILL] != 0 and g[LEVELS + p] > 1


@jit
def hand_points(gp: int, p: int) -> int:
    """Points of a hand; a lone 0 is worth ``lone_zero_points``."""
    g = view(gp)
    base = HC + p * HAND_COLS
    total = 0
    bits = g[base + MASK]
    while bits:
        k = lowest_kind(gp, bits)
        bits &= bits - 1
        if g[base + SIZE] == 1 and _NUMBER[k] == 1 and _RANK[k] == 0:
            return g[RP + S.R_LONE_ZERO]
        total += g[base + k] * _POINTS[k]
    return total


@inline
def take(gp: int) -> int:
    """``Game._take``: the top card of the draw pile, reshuffling the discard pile
    (all but its top card, or its top two while a Wild Draw Four that a guilty player
    would take back lies there); -1 if there is nothing to draw."""
    g = view(gp)
    if g[S_NPILE] == 0:
        keep = 2 if g[S_WD4_BY] >= 0 and g[RP + S.R_TAKES_BACK] else 1
        nd = g[S_NDISC]
        if nd <= keep:
            return -1
        m = nd - keep
        for k in range(m):
            g[PILE + k] = g[DISC + k]
        shuffle(gp, PILE, m)
        for k in range(keep):
            g[DISC + k] = g[DISC + m + k]
        g[S_NDISC] = keep
        g[S_NPILE] = m
        g[S_RECYCLED] = 1
    g[S_NPILE] -= 1
    if g[S_NPILE] < g[S_PILE_FINAL]:
        place_pile(gp)
    return g[PILE + g[S_NPILE]]


@inline
def draw_cards(gp: int, p: int, count: int) -> int:
    """``Game._draw``: up to ``count`` cards; returns how many came."""
    got = 0
    for _ in range(count):
        card = take(gp)
        if card < 0:
            break
        add_card(gp, p, card)
        got += 1
    return got


@inline
def move_hand(gp: int, src: int, dst: int) -> None:
    """The hand at ``g[src:]`` replaces the one at ``g[dst:]`` (each ``HAND_COLS`` wide):
    the kinds of the old hand are cleared and those of the new one copied, by their bit
    sets, so that only the kinds held are touched."""
    g = view(gp)
    bits = g[dst + MASK]
    while bits:
        g[dst + lowest_kind(gp, bits)] = 0
        bits &= bits - 1
    bits = g[src + MASK]
    while bits:
        k = lowest_kind(gp, bits)
        g[dst + k] = g[src + k]
        bits &= bits - 1
    g[dst + SIZE] = g[src + SIZE]
    g[dst + MASK] = g[src + MASK]


@inline
def save_hand(gp: int, src: int, dst: int) -> None:
    """Copy the kinds held by the hand at ``g[src:]``, its size and bit set to ``g[dst:]``
    (the other kinds there are left as they are: read it by its bit set)."""
    g = view(gp)
    bits = g[src + MASK]
    while bits:
        k = lowest_kind(gp, bits)
        g[dst + k] = g[src + k]
        bits &= bits - 1
    g[dst + SIZE] = g[src + SIZE]
    g[dst + MASK] = g[src + MASK]


@jit
def swap_hands(gp: int, a: int, b: int) -> None:
    """``CardEffects._swap_hands``."""
    g = view(gp)
    ba = HC + a * HAND_COLS
    bb = HC + b * HAND_COLS
    bits = g[ba + MASK] | g[bb + MASK]
    while bits:
        k = lowest_kind(gp, bits)
        bits &= bits - 1
        tmp = g[ba + k]
        g[ba + k] = g[bb + k]
        g[bb + k] = tmp
    for k in (SIZE, MASK):
        tmp = g[ba + k]
        g[ba + k] = g[bb + k]
        g[bb + k] = tmp
    if g[RP + S.R_ATTACK]:  # the lists of the cards in order go with the hands
        tmp = g[LIST_OF + a]
        g[LIST_OF + a] = g[LIST_OF + b]
        g[LIST_OF + b] = tmp


@jit
def rotate_hands(gp: int) -> None:
    """``CardEffects._rotate_hands``: every hand passes to the next seat (seat 0's hand is
    kept aside, then each seat takes the hand of the seat before it, back to seat 0)."""
    g = view(gp)
    n = g[RP + S.R_N]
    save_hand(gp, HC, SCRATCH)
    seat = 0
    for _ in range(n - 1):
        before = seat - g[S_DIR]
        before = before + n if before < 0 else (before - n if before >= n else before)
        move_hand(gp, HC + before * HAND_COLS, HC + seat * HAND_COLS)
        seat = before
    move_hand(gp, SCRATCH, HC + seat * HAND_COLS)


_WHEEL_NEXT = np.array([3, 0, 1, 2], dtype=np.int64)
_WHEEL_PREV = np.array([1, 2, 3, 0], dtype=np.int64)


@inline
def wheel_color(gp: int, color: int) -> int:
    """``house.wheel_color``: the colour a wild sets under ``wild_color =
    "next_in_circle"`` (R -> B -> G -> Y -> R in the direction of play)."""
    g = view(gp)
    if color < 0:
        return 0
    return _WHEEL_NEXT[color] if g[S_DIR] == 1 else _WHEEL_PREV[color]
