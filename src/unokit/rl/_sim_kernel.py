"""The PettingZoo environment's compiled backend: who acts, the mask, the action and the
observation vector, on the simulator's kernel (:mod:`unokit.sim.kernel`).

:class:`unokit.rl.pettingzoo_env.raw_env` with ``backend="sim"`` keeps its game in the
kernel's state array ``g`` and its own state in a second int64 array ``e`` (the offsets
``E_*`` below), which holds the addresses of ``g``, of a float32 buffer (the observation
vector, then one template vector per seat) and of an int8 buffer (the action mask). Each
compiled function here takes the address of ``e`` alone (see :func:`unokit.sim.kernel.view`
for why addresses): a step of the environment is :func:`env_step` and, for the
observation, :func:`env_encode`.

What each function mirrors in the Python environment (:mod:`unokit.rl.pettingzoo_env`)
and engine, for the rules the simulator plays (:mod:`unokit.sim.support`):

- :func:`seat_legal`: ``Game.legal_actions(seat)`` for any seat, in the same order (the
  current player's turn actions, then a skipped seat's Skips, then an UNO call or a
  catch; ``next`` for every seat between rounds);
- :func:`schedule`, :func:`offered` and :func:`select`: ``raw_env._schedule`` and
  ``_select`` on the environment's :class:`unokit.engine.driver.Driver` and
  :class:`unokit.rl.pettingzoo_env.WindowRule` (the lead, the queue of out-of-turn
  windows, the seats that spoke; ``tests/test_driver.py`` compares them at every step);
- :func:`first_token` and :func:`second_token`: :func:`unokit.rl.encoding.encode_action`
  for the actions of these rules (at most two tokens: a play, then the target seat of a
  seven swap);
- :func:`env_encode`: ``ObservationEncoder.encode_fields(view_fields(game, seat), window,
  building)``; the fields these rules never use (partner hand, seats out of the round or
  match, levels, slaps, teammates) keep their template values.

``tests/test_rl_fast.py`` checks every step of seeded random episodes against the engine
backend, bit for bit.
"""

# Elements of the state arrays type as Any under numpy's stubs (see unokit.sim.kernel).
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import numpy.typing as npt
from numba.np.numpy_support import carray

from unokit.rl import encoding as EN
from unokit.sim import support as S
from unokit.sim.deal import choose_dealer, start_round
from unokit.sim.effects import apply
from unokit.sim.kernel import (
    ACTS,
    DISC,
    EMPTY,
    HAND_COLS,
    HC,
    MASK,
    P_MATCH_OVER,
    P_PLAY,
    P_ROUND_OVER,
    RP,
    S_COLOR,
    S_CUR,
    S_DEALER,
    S_DIR,
    S_DRAWN,
    S_MATCH_WINNER,
    S_NDISC,
    S_NPILE,
    S_PENDING,
    S_PHASE,
    S_ROUND_NO,
    S_ROUND_WINNER,
    S_SKIP_FROM,
    S_UNO_OPEN,
    SCORES,
    SIZE,
    T_CATCH,
    T_CHALLENGE,
    T_COLOR,
    T_DRAW,
    T_NEXT,
    T_PASS,
    T_PLAY,
    T_UNO,
    UNO_FLAG,
    WILD,
    _address,
    inline,
    jit,
    lowest_kind,
    seed_streams,
    view,
)
from unokit.sim.loop import legal, skip_answers

I64 = npt.NDArray[np.int64]

_RL = Path(__file__).parent
_SOURCES = (*(_RL.parent / "sim" / name for name in ("support.py", "kernel.py", "attack.py",
                                                     "deal.py", "match.py", "effects.py",
                                                     "loop.py")),
            _RL / "encoding.py", _RL / "_sim_kernel.py", _RL / "_vector_kernel.py")
"""The files whose code or constants the compiled functions of this package hold."""


def drop_stale_cache(folder: Path, sources: tuple[Path, ...]) -> bool:
    """numba checks each cached function against its own file only, but this package's
    machine code also holds the simulator's functions and the encoding's constants: when
    any of ``sources`` changes, every numba cache file in ``folder`` goes (as
    :mod:`unokit.sim.kernel` does for its own). Returns whether files were dropped."""
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.read_bytes())
    stamp = folder / "numba-sources.sha256"
    try:
        if stamp.read_text(encoding="ascii") == digest.hexdigest():
            return False
    except OSError:
        pass
    try:
        for path in folder.glob("*.nb[ic]"):
            path.unlink(missing_ok=True)
        folder.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest(), encoding="ascii")
    except OSError:  # a read-only install: numba keeps its cache elsewhere
        pass
    return True


drop_stale_cache(_RL / "__pycache__", _SOURCES)

# ------------------------------------------------------------------ layout of e
E_G = 0  # address of the kernel's state array g
E_F = 1  # address of the float32 buffer: two vectors, then a template per seat
E_M = 2  # address of the int8 mask buffer
E_N = 3  # seats
E_WINDOWS = 4  # 0: windows "none", 1: "useful", 2: "all"
E_SKIP_RULE = 5  # skip_on_skip is on
E_SEL = 6  # the selected seat
E_LEAD = 7  # the lead
E_WIN = 8  # whether the selected seat is in a window
E_BUILD = 9  # the first token of the play being built; -1: none
E_QLEN = 10  # the queue of windows: its length and the position of its head
E_QPOS = 11
E_SPOKE = 12  # bit set of the seats that acted out of turn since the turn moved on
E_NLEGAL = 13  # the selected seat's legal actions
E_DONE = 14  # the match is over
E_QUEUE = 16  # the queue, E_QUEUE + 0 .. 9
MAX_LEGAL = 512
E_LEGAL = 32  # the selected seat's legal actions
E_TOK1 = E_LEGAL + MAX_LEGAL  # the first token of each
E_TOK2 = E_TOK1 + MAX_LEGAL  # the second token of each (-1: none)
E_SIZE = E_TOK2 + MAX_LEGAL

OBS = EN.OBSERVATION_SIZE
F_SIZE = OBS * (2 + EN.MAX_SEATS)  # two vectors, then the template of each seat
F_SELECTED = 0  # the selected agent's vector, kept up to date by every step
F_OTHER = OBS  # the vector of an agent asked for by env_encode
M_SIZE = EN.ACTION_SIZE

# Results of env_step and env_apply: the selected seat in the low 4 bits, these flags,
# and the engine action applied from bit 8 on.
R_APPLIED = 16
R_ROUND_END = 32
R_DONE = 64
R_ILLEGAL = -1
R_NO_ACTION = -2  # env_select found a seat that must act with no legal action

# Tokens (unokit.rl.encoding), as plain ints for the compiler.
_PLAY = EN.PLAY
_PLAY_UNO = EN.PLAY_UNO
_WILD_SLOTS = 64
_NO_COLOR_SLOTS = 64 + 4 * EN.N_WILD_KINDS
_TARGET = EN.TARGET
_DRAW = EN.DRAW
_PASS = EN.PASS
_CHALLENGE = EN.CHALLENGE
_CALL_UNO = EN.CALL_UNO
_NEXT_ROUND = EN.NEXT_ROUND
_CATCH = EN.CATCH
_COLOR_TOKEN = EN.COLOR
_NOOP = EN.NOOP

# Observation offsets (unokit.rl.encoding.OFFSETS).
_O = EN.OFFSETS
O_HAND, O_TOP, O_COLOR, O_CW = _O["hand"], _O["top"], _O["color"], _O["clockwise"]
O_PHASE, O_PENDING, O_PILE = _O["phase"], _O["pending_draw"], _O["draw_pile"]
O_DISCARD, O_DRAWN, O_ROUND = _O["discard"], _O["drawn"], _O["round"]
O_WINDOW, O_BUILDING, O_B_CARD = _O["window"], _O["building"], _O["build_card"]
O_B_COLOR, O_B_UNO = _O["build_color"], _O["build_uno"]
O_SIZES, O_CURRENT, O_DEALER = _O["hand_sizes"], _O["current"], _O["dealer"]
O_SCORES, O_UNO_OPEN, O_FINISHED = _O["scores"], _O["uno_open"], _O["finished"]
O_R_WIN, O_M_WIN = _O["round_winner"], _O["match_winner"]

_PHASE_SLOT = np.array([EN.PHASES.index(name) for name in
                        ("play", "drawn", "choose_color", "challenge", "respond",
                         "round_over", "match_over")], dtype=np.int64)
"""The index in :data:`unokit.rl.encoding.PHASES` of each kernel phase ``P_*``."""

_CATCH_BASE = (T_CATCH << 4) | (EMPTY & ~(15 << 18))


# ------------------------------------------------------------------ views
@inline
def eview(ep: int) -> I64:
    """The environment's state array at address ``ep``."""
    return carray(_address(ep), E_SIZE, np.int64)  # type: ignore[call-arg]


@inline
def fview(fp: int) -> npt.NDArray[np.float32]:
    """The float32 buffer at address ``fp``."""
    return carray(_address(fp), F_SIZE, np.float32)  # type: ignore[call-arg]


@inline
def mview(mp: int) -> npt.NDArray[np.int8]:
    """The mask buffer at address ``mp``."""
    return carray(_address(mp), M_SIZE, np.int8)  # type: ignore[call-arg]


def new_env_state() -> I64:
    """An environment state array (the addresses are set by the caller)."""
    e = np.zeros(E_SIZE, dtype=np.int64)
    e[E_BUILD] = -1
    e[E_DONE] = 1
    return e


@inline
def clear_mask(mask: npt.NDArray[np.int8]) -> None:
    """Every entry of the mask to 0 (a loop: numba's ``mask[:] = 0`` is several times
    slower)."""
    for k in range(M_SIZE):
        mask[k] = 0


# ------------------------------------------------------------------ legal actions
@jit
def seat_legal(gp: int, seat: int) -> int:
    """``Game.legal_actions(seat)`` for any seat, written to ``g[ACTS:]``; returns how
    many. The current player's come from :func:`unokit.sim.loop.legal`; another seat has
    the Skips it may pass a Skip on with (phase play, the skipped seat) and then the UNO
    call or catch of an open UNO window; between rounds every seat has ``next``."""
    g = view(gp)
    phase = g[S_PHASE]
    if phase == P_MATCH_OVER:
        return 0
    if phase == P_ROUND_OVER:
        g[ACTS] = seat | (T_NEXT << 4) | EMPTY
        return 1
    if seat == g[S_CUR]:
        return legal(gp, seat)
    k = 0
    if phase == P_PLAY and seat == g[S_SKIP_FROM]:
        k = skip_answers(gp, seat)
    vulnerable = g[S_UNO_OPEN]
    if vulnerable >= 0 and g[HC + vulnerable * HAND_COLS + SIZE] == 1:
        if seat == vulnerable:
            if g[RP + S.R_SELF_CATCH]:
                g[ACTS + k] = seat | (T_UNO << 4) | EMPTY
                k += 1
        else:
            g[ACTS + k] = seat | _CATCH_BASE | (vulnerable << 18)
            k += 1
    return k


# ------------------------------------------------------------------ tokens
@inline
def first_token(action: int, seat: int, n: int) -> int:
    """The first token of an engine action of ``seat`` (``encode_action(...)[0]``)."""
    kind = (action >> 4) & 15
    if kind == T_PLAY:
        card = (action >> 8) & 127
        if card < WILD:
            slot = card
        else:
            color = (action >> 15) & 7
            if color == 7:
                slot = _NO_COLOR_SLOTS + card - WILD
            else:
                slot = _WILD_SLOTS + 4 * (card - WILD) + color
        return slot + (_PLAY_UNO if action & UNO_FLAG else _PLAY)
    if kind == T_DRAW:
        return _DRAW
    if kind == T_PASS:
        return _PASS
    if kind == T_CHALLENGE:
        return _CHALLENGE
    if kind == T_UNO:
        return _CALL_UNO
    if kind == T_NEXT:
        return _NEXT_ROUND
    if kind == T_CATCH:
        return _CATCH + (((action >> 18) & 15) - seat) % n - 1
    if kind == T_COLOR:
        return _COLOR_TOKEN + ((action >> 15) & 7)
    return -1


@inline
def second_token(action: int, seat: int, n: int) -> int:
    """The second token of an engine action (the target seat of a play), or -1."""
    if (action >> 4) & 15 != T_PLAY:
        return -1
    target = (action >> 18) & 15
    if target == 15:
        return -1
    return _TARGET + (target - seat) % n - 1


# ------------------------------------------------------------------ who acts
@jit
def select(ep: int, seat: int, window: bool) -> bool:
    """``raw_env._select``: ``seat`` is selected (in a window or not); its legal actions,
    their tokens and the mask are set. Returns False if it must act and cannot."""
    e = eview(ep)
    gp = e[E_G]
    g = view(gp)
    n = e[E_N]
    e[E_SEL] = seat
    e[E_WIN] = 1 if window else 0
    e[E_BUILD] = -1
    k = seat_legal(gp, seat)
    e[E_NLEGAL] = k
    mask = mview(e[E_M])
    clear_mask(mask)
    for i in range(k):
        action = g[ACTS + i]
        t1 = first_token(action, seat, n)
        e[E_LEGAL + i] = action
        e[E_TOK1 + i] = t1
        e[E_TOK2 + i] = second_token(action, seat, n)
        mask[t1] = 1
    if window:
        mask[_NOOP] = 1
    return k > 0 or window


@jit
def offered(ep: int, seat: int) -> bool:
    """``WindowRule.offered``: whether ``seat`` (not the lead) gets a window now."""
    e = eview(ep)
    gp = e[E_G]
    g = view(gp)
    if g[S_PHASE] == P_PLAY and e[E_SKIP_RULE] and seat == g[S_SKIP_FROM]:
        return True
    k = seat_legal(gp, seat)
    if e[E_WINDOWS] == 1:  # "useful": no catches of seats that cannot be caught
        open_seat = g[S_UNO_OPEN]
        for i in range(k):
            action = g[ACTS + i]
            if (action >> 4) & 15 != T_CATCH or (action >> 18) & 15 == open_seat:
                return True
        return False
    return k > 0


@jit
def schedule(ep: int) -> int:
    """``raw_env._schedule`` (``Driver.lead`` and ``Driver.windows``, with
    ``WindowRule.open``): select the first seat owed a window, else the lead.
    Returns ``R_DONE`` once the match is over, :data:`R_NO_ACTION` if the selected seat
    must act without a legal action, else 0."""
    e = eview(ep)
    g = view(e[E_G])
    phase = g[S_PHASE]
    if phase == P_MATCH_OVER:
        e[E_DONE] = 1
        return R_DONE
    lead = g[S_CUR]
    if lead < 0:
        lead = 0
    e[E_LEAD] = lead
    n = e[E_N]
    if e[E_WINDOWS] and phase != P_ROUND_OVER and (
            g[S_UNO_OPEN] >= 0 or (e[E_SKIP_RULE] and g[S_SKIP_FROM] >= 0)):
        count = 0
        spoke = e[E_SPOKE]
        for offset in range(1, n):
            seat = (lead + offset) % n
            if (spoke >> seat) & 1 == 0 and offered(ep, seat):
                e[E_QUEUE + count] = seat
                count += 1
        if count:
            e[E_QLEN] = count
            e[E_QPOS] = 0
            select(ep, e[E_QUEUE], True)
            return 0
    e[E_QLEN] = 0
    e[E_QPOS] = 0
    if not select(ep, lead, False):
        return R_NO_ACTION
    return 0


@jit
def pass_window(ep: int) -> int:
    """``raw_env._pass_window``: the selected seat lets its window pass."""
    e = eview(ep)
    e[E_QPOS] += 1
    if e[E_QPOS] < e[E_QLEN]:
        select(ep, e[E_QUEUE + e[E_QPOS]], True)
        return 0
    e[E_QLEN] = 0
    e[E_QPOS] = 0
    if not select(ep, e[E_LEAD], False):
        return R_NO_ACTION
    return 0


@jit
def apply_action(ep: int, action: int) -> int:
    """``raw_env._apply``: the selected seat takes the (legal) engine ``action``; the
    seats that spoke are updated (``Driver.record``) and the next
    seat selected. Returns the selected seat,
    the ``R_*`` flags and the action (see :data:`R_APPLIED`), or :data:`R_NO_ACTION`."""
    e = eview(ep)
    gp = e[E_G]
    g = view(gp)
    seat = e[E_SEL]
    current = g[S_CUR]
    phase = g[S_PHASE]
    apply(gp, action)
    now = g[S_PHASE]
    flags = R_APPLIED
    if now != phase:
        if now >= P_ROUND_OVER:  # round_over or match_over
            flags |= R_ROUND_END
        e[E_SPOKE] = 0
    elif seat == e[E_LEAD] or g[S_CUR] != current:
        e[E_SPOKE] = 0
    else:
        e[E_SPOKE] |= 1 << seat
    done = schedule(ep)
    if done == R_NO_ACTION:
        return R_NO_ACTION
    return e[E_SEL] | flags | done | (action << 8)


@jit
def take_token(ep: int, token: int) -> int:
    """``raw_env.step`` for a token ``0 <= token < ACTION_SIZE``: :data:`R_ILLEGAL` if
    the mask does not allow it (nothing changes), else the result of
    :func:`apply_action` or, for a token that applies no action (``noop``, the first
    token of a longer play), the selected seat alone."""
    e = eview(ep)
    k = e[E_NLEGAL]
    build = e[E_BUILD]
    found = -1
    if build < 0:
        if token == _NOOP:
            if not e[E_WIN]:
                return R_ILLEGAL
            if pass_window(ep) == R_NO_ACTION:
                return R_NO_ACTION
            return e[E_SEL]
        for i in range(k):
            if e[E_TOK1 + i] == token:
                found = i
                break
        if found < 0:
            return R_ILLEGAL
        if e[E_TOK2 + found] >= 0:
            e[E_BUILD] = token
            mask = mview(e[E_M])
            clear_mask(mask)
            for i in range(k):
                if e[E_TOK1 + i] == token:
                    mask[e[E_TOK2 + i]] = 1
            return e[E_SEL]
    else:
        for i in range(k):
            if e[E_TOK1 + i] == build and e[E_TOK2 + i] == token:
                found = i
                break
        if found < 0:
            return R_ILLEGAL
    return apply_action(ep, e[E_LEGAL + found])


@inline
def refresh(ep: int, result: int) -> int:
    """After a step that left the match running: the selected agent's vector (with its
    window and play being built) into the buffer at :data:`F_SELECTED`."""
    if result >= 0 and not result & R_DONE:
        e = eview(ep)
        encode(ep, e[E_SEL], True, F_SELECTED)
    return result


@jit
def env_step(ep: int, token: int) -> int:
    """:func:`take_token`, then the selected agent's vector (:func:`refresh`)."""
    return refresh(ep, take_token(ep, token))


@jit
def env_apply(ep: int, action: int) -> int:
    """:func:`apply_action` (``action`` must be legal for the selected seat), then the
    selected agent's vector."""
    return refresh(ep, apply_action(ep, action))


@jit
def env_reset(ep: int, seed: int) -> int:
    """``Game(rules, seed)`` in ``g`` (``seed`` as a signed 64-bit int: its bits are the
    seed) and the first selection; returns the selected seat, or
    :data:`R_NO_ACTION`."""
    return refresh(ep, reset_state(ep, seed))


@jit
def reset_state(ep: int, seed: int) -> int:
    """:func:`env_reset` without the observation vector."""
    e = eview(ep)
    gp = e[E_G]
    g = view(gp)
    g[:RP] = 0
    g[SCORES: SCORES + 10] = 0
    seed_streams(gp, np.uint64(seed))
    g[S_MATCH_WINNER] = -1
    g[S_DIR] = 1
    g[S_DEALER] = choose_dealer(gp)
    start_round(gp)
    e[E_SPOKE] = 0
    e[E_DONE] = 0
    e[E_BUILD] = -1
    if schedule(ep) == R_NO_ACTION:
        return R_NO_ACTION
    return e[E_SEL]


# ------------------------------------------------------------------ observation
@jit
def env_encode(ep: int, seat: int) -> None:
    """The vector of ``seat``'s view (no window, no play being built) into the buffer
    at :data:`F_OTHER`."""
    encode(ep, seat, False, F_OTHER)


@jit
def encode(ep: int, seat: int, selected: bool, at: int) -> None:
    """The vector of ``seat``'s view into the float32 buffer at ``at``; ``selected``:
    with the window and the play being built (the selected agent's decision)."""
    buf = fview(eview(ep)[E_F])
    template = OBS * (2 + seat)
    encode_into(ep, seat, selected, buf[at: at + OBS], buf[template: template + OBS])


@jit
def encode_into(ep: int, seat: int, selected: bool, f: npt.NDArray[np.float32],
                template: npt.NDArray[np.float32]) -> None:
    """:func:`encode` into the array ``f``, from ``seat``'s ``template`` vector (for
    callers that keep their own buffers: :mod:`unokit.rl._vector_kernel`)."""
    e = eview(ep)
    g = view(e[E_G])
    n = e[E_N]
    for k in range(OBS):  # a loop: numba's slice assignment is several times slower
        f[k] = template[k]
    base = HC + seat * HAND_COLS
    bits = g[base + MASK]  # the kinds held (unokit.sim.kernel keeps the bit set)
    while bits:
        kind = lowest_kind(e[E_G], bits)
        f[O_HAND + kind] = g[base + kind]
        bits &= bits - 1
    nd = g[S_NDISC]
    if nd > 0:
        f[O_TOP + g[DISC + nd - 1]] = 1.0
    for i in range(nd):
        f[O_DISCARD + g[DISC + i]] += 1.0
    color = g[S_COLOR]
    if color >= 0:
        f[O_COLOR + color] = 1.0
    if g[S_DIR] == 1:
        f[O_CW] = 1.0
    phase = g[S_PHASE]
    f[O_PHASE + _PHASE_SLOT[phase]] = 1.0
    f[O_PENDING] = g[S_PENDING]
    f[O_PILE] = g[S_NPILE]
    current = g[S_CUR]
    if g[S_DRAWN] >= 0 and current == seat:
        f[O_DRAWN + g[S_DRAWN]] = 1.0
    f[O_ROUND] = g[S_ROUND_NO]
    if selected:
        if e[E_WIN]:
            f[O_WINDOW] = 1.0
        build = e[E_BUILD]
        if build >= 0:
            f[O_BUILDING] = 1.0
            uno = build >= _PLAY_UNO
            slot = build - (_PLAY_UNO if uno else _PLAY)
            if slot < _WILD_SLOTS:
                f[O_B_CARD + slot] = 1.0
            elif slot < _NO_COLOR_SLOTS:
                f[O_B_CARD + WILD + (slot - _WILD_SLOTS) // 4] = 1.0
                f[O_B_COLOR + (slot - _WILD_SLOTS) % 4] = 1.0
            else:
                f[O_B_CARD + WILD + slot - _NO_COLOR_SLOTS] = 1.0
            if uno:
                f[O_B_UNO] = 1.0
    for offset in range(n):
        other = (seat + offset) % n
        f[O_SIZES + offset] = g[HC + other * HAND_COLS + SIZE]
        f[O_SCORES + offset] = g[SCORES + other]
    if current >= 0:
        f[O_CURRENT + (current - seat) % n] = 1.0
    f[O_DEALER + (g[S_DEALER] - seat) % n] = 1.0
    vulnerable = g[S_UNO_OPEN]
    if vulnerable >= 0 and g[HC + vulnerable * HAND_COLS + SIZE] == 1:
        f[O_UNO_OPEN + (vulnerable - seat) % n] = 1.0
    winner = g[S_ROUND_WINNER]
    if winner >= 0:  # the finishing order is the round's winner alone
        f[O_FINISHED + (winner - seat) % n] = 1.0
        f[O_R_WIN + (winner - seat) % n] = 1.0
    winner = g[S_MATCH_WINNER]
    if winner >= 0:
        f[O_M_WIN + (winner - seat) % n] = 1.0


__all__ = ["E_SIZE", "F_SIZE", "M_SIZE", "R_APPLIED", "R_DONE", "R_ILLEGAL", "R_NO_ACTION",
           "R_ROUND_END", "encode_into", "env_apply", "env_encode", "env_reset", "env_step",
           "new_env_state", "reset_state", "seat_legal", "take_token"]
