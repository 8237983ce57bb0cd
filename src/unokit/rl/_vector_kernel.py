"""The compiled loop of :class:`unokit.rl.vector_env.VectorUnoEnv`: N games stepped in one
call.

Each game is the PettingZoo environment's compiled state (:mod:`unokit.rl._sim_kernel`:
the kernel's array ``g``, the environment's array ``e``, the float32 and mask buffers),
one row of each of four 2-D arrays, reached through the address of its ``e`` row
(``eps[i]``). :func:`vec_step` takes one action index per game, steps every game with
:func:`unokit.rl._sim_kernel.env_step`, works out the step's rewards (as
``raw_env._reward_round``), ends an episode on the match's end, on the step limit or on
an illegal index (``illegal_action="terminate"``), records its summary and starts the
next one at once (auto-reset, the same call), and writes every game's next observation,
mask and selected seat into the caller's arrays.

The games' own counters live in ``t`` (``T_*`` columns, one row a game): the episode's
seed and the stream of the next seeds, steps taken, the scores at the last round end.
"""

# Elements of the state arrays type as Any under numpy's stubs (see unokit.sim.kernel).
# mypy: disable-error-code="no-any-return"

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt
from llvmlite import ir  # type: ignore[import-untyped]
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from unokit.rl import _sim_kernel as EK
from unokit.rl.encoding import ACTION_SIZE
from unokit.sim import kernel as K
from unokit.sim.kernel import jit, mix, view

I64 = npt.NDArray[np.int64]
F32 = npt.NDArray[np.float32]

# ------------------------------------------------------------ columns of t
T_SEED = 0  # the seed of the episode being played (0 .. 2**63 - 1)
T_STREAM = 1  # the SplitMix64 state the next episode seeds come from (uint64 bits)
T_STEPS = 2  # steps taken in the episode (every seat's, as raw_env's max_cycles counts)
T_SCORES = 3  # the match totals at the last round end (10 seats): the "points" rewards
T_SIZE = T_SCORES + K.MAX_SEATS

# ------------------------------------------------------------ the configuration
C_N = 0  # seats
C_MAX_STEPS = 1  # truncate after this many steps (0: never)
C_REWARD = 2  # 0 "match", 1 "round", 2 "points"
C_SIGN = 3  # the sign of the "points" rewards: 1 (standard scoring), -1 (penalty)
C_TERMINATE = 4  # 1: an illegal index ends the episode; 0: it was refused beforehand
C_AHEAD = 5  # prefetch the state of the game this many games ahead (0: none)
C_SIZE = 6

REWARD_SCHEMES = ("match", "round", "points")

# ------------------------------------------------------------ columns of the summaries
S_WINNER = 0  # the match winner (-1: none, the episode was cut short)
S_STEPS = 1  # steps of the episode (every seat's)
S_ACTIONS = 2  # engine actions applied
S_TURNS = 3  # turns (plays, draws that end the turn, passes, challenges, penalties taken)
S_ROUNDS = 4  # rounds started
S_SEED = 5  # the episode's seed
S_ILLEGAL = 6  # the seat whose illegal index ended it (-1: none)
S_REASON = 7  # 0: still running, 1: the match ended, 2: the step limit, 3: illegal index
S_SIZE = 8

ENDED, TRUNCATED, ILLEGAL = 1, 2, 3

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_ONE = np.uint64(1)


def _prefetch(typingctx: object, addr: types.Integer) -> tuple[object, object]:
    """Ask the CPU to bring the cache line at address ``addr`` in (LLVM's prefetch: a
    hint, never a fault)."""
    def codegen(context: Any, builder: Any, signature: object, args: list[Any]) -> object:
        byte_ptr = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
            builder.module, ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32]),
            "llvm.prefetch.p0i8")
        builder.call(fn, [builder.inttoptr(args[0], byte_ptr), ir.Constant(i32, 0),
                          ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(addr), codegen


prefetch: Any = intrinsic(_prefetch)


AHEAD = 2
"""How many games ahead :func:`vec_step` prefetches by default (``cfg[C_AHEAD]``; the
games' states are far apart in memory: without it, each game's first reads wait on
memory)."""


@jit
def warm(eps: I64, j: int) -> None:
    """Prefetch the lines game ``j``'s step reads first: its environment state, the
    kernel's scalars, the hands of seats 0 and 1, the top of the discard pile."""
    ep = eps[j]
    prefetch(ep)
    prefetch(ep + 8 * EK.E_LEGAL)
    e = EK.eview(ep)
    gp = e[EK.E_G]
    prefetch(gp)
    for line in range(0, 2 * K.HAND_COLS * 8, 64):
        prefetch(gp + 8 * K.HC + line)
    for line in range(0, 8 * K.PILE_CAP, 64):
        prefetch(gp + 8 * K.DISC + line)


@jit
def next_seed(t: I64, i: int) -> int:
    """The next episode seed of game ``i``: an output of its SplitMix64 stream, shifted to
    63 bits (so that it is a plain non-negative ``int``)."""
    state = np.uint64(t[i, T_STREAM]) + _GOLDEN
    t[i, T_STREAM] = np.int64(state)
    return int(np.int64(mix(state) >> _ONE))


@jit
def start_episode(ep: int, t: I64, i: int, seed: int) -> int:
    """Reset game ``i`` to the match of ``seed``; returns :func:`reset_state`'s result."""
    t[i, T_SEED] = seed
    t[i, T_STEPS] = 0
    for s in range(K.MAX_SEATS):
        t[i, T_SCORES + s] = 0
    return EK.reset_state(ep, seed)


@jit
def publish(ep: int, i: int, templates: npt.NDArray[np.float32],
            obs: npt.NDArray[np.float32], masks: npt.NDArray[np.int8], current: I64) -> None:
    """Game ``i``'s selected seat, its observation vector (encoded straight into the row,
    from the seat's template ``templates[seat]``) and its mask into the rows ``i`` of the
    caller's arrays."""
    e = EK.eview(ep)
    seat = e[EK.E_SEL]
    current[i] = seat
    EK.encode_into(ep, seat, True, obs[i], templates[seat])
    m = EK.mview(e[EK.E_M])
    mrow = masks[i]
    for k in range(ACTION_SIZE):
        mrow[k] = m[k]


@jit
def vec_reset(eps: I64, t: I64, seeds: I64, templates: npt.NDArray[np.float32],
              obs: npt.NDArray[np.float32], masks: npt.NDArray[np.int8], current: I64) -> int:
    """Start every game ``i`` on the match of ``seeds[i]``, its stream of next seeds at
    ``t[i, T_STREAM]`` (set by the caller). Returns -1, or the first game whose seat must
    act without a legal action."""
    for i in range(eps.shape[0]):
        if start_episode(eps[i], t, i, seeds[i]) < 0:
            return i
        publish(eps[i], i, templates, obs, masks, current)
    return -1


@jit
def first_illegal(eps: I64, actions: I64) -> int:
    """The first game whose action index its mask does not allow, or -1."""
    for i in range(eps.shape[0]):
        a = actions[i]
        if a < 0 or a >= ACTION_SIZE:
            return i
        e = EK.eview(eps[i])
        if EK.mview(e[EK.E_M])[a] == 0:
            return i
    return -1


@jit
def round_rewards(gp: int, t: I64, i: int, cfg: I64, rewards: npt.NDArray[np.float32]) -> None:
    """``raw_env._reward_round`` for the round game ``i`` just ended."""
    g = view(gp)
    n = cfg[C_N]
    scheme = cfg[C_REWARD]
    if scheme == 2:
        sign = cfg[C_SIGN]
        for s in range(n):
            now = g[K.SCORES + s]
            rewards[i, s] = sign * (now - t[i, T_SCORES + s])
            t[i, T_SCORES + s] = now
        return
    if scheme == 1:
        winner = g[K.S_ROUND_WINNER]
    else:
        winner = g[K.S_MATCH_WINNER] if g[K.S_PHASE] == K.P_MATCH_OVER else -1
    if winner >= 0:
        for s in range(n):
            rewards[i, s] = 1.0 if s == winner else -1.0


@jit
def summarise(gp: int, t: I64, i: int, reason: int, offender: int,
              summaries: I64, scores: I64, n: int) -> None:
    """The summary of game ``i``'s episode that just ended into its rows."""
    g = view(gp)
    over = g[K.S_PHASE] == K.P_MATCH_OVER
    summaries[i, S_WINNER] = g[K.S_MATCH_WINNER] if over and reason == ENDED else -1
    summaries[i, S_STEPS] = t[i, T_STEPS]
    summaries[i, S_ACTIONS] = g[K.S_ACTIONS]
    summaries[i, S_TURNS] = g[K.S_TURNS]
    summaries[i, S_ROUNDS] = g[K.S_ROUND_NO]
    summaries[i, S_SEED] = t[i, T_SEED]
    summaries[i, S_ILLEGAL] = offender
    summaries[i, S_REASON] = reason
    for s in range(n):
        scores[i, s] = g[K.SCORES + s]


@jit
def vec_step(eps: I64, actions: I64, t: I64, cfg: I64, illegal_reward: float,
             templates: F32, obs: F32, masks: npt.NDArray[np.int8], current: I64,
             rewards: npt.NDArray[np.float32], terminated: npt.NDArray[np.bool_],
             truncated: npt.NDArray[np.bool_], summaries: I64, scores: I64) -> int:
    """One step of every game (see the module docstring). ``rewards``, ``terminated``,
    ``truncated``, ``summaries`` (``S_REASON`` 0 where the episode goes on) and
    ``scores`` are written for every game. Returns -1, or the first game whose seat must
    act without a legal action (a kernel fault: never expected)."""
    n = cfg[C_N]
    max_steps = cfg[C_MAX_STEPS]
    size = eps.shape[0]
    ahead = cfg[C_AHEAD]
    for i in range(size):
        if ahead and i + ahead < size:
            warm(eps, i + ahead)
        ep = eps[i]
        e = EK.eview(ep)
        gp = e[EK.E_G]
        for s in range(n):
            rewards[i, s] = 0.0
        terminated[i] = False
        truncated[i] = False
        summaries[i, S_REASON] = 0
        a = actions[i]
        seat = e[EK.E_SEL]
        result = EK.take_token(ep, a) if 0 <= a < ACTION_SIZE else EK.R_ILLEGAL
        t[i, T_STEPS] += 1
        reason = 0
        offender = -1
        if result == EK.R_ILLEGAL:  # only when cfg[C_TERMINATE]: checked beforehand else
            rewards[i, seat] = illegal_reward
            terminated[i] = True
            reason = ILLEGAL
            offender = seat
        elif result < 0:
            return i
        else:
            if result & EK.R_ROUND_END:
                round_rewards(gp, t, i, cfg, rewards)
            if result & EK.R_DONE:
                terminated[i] = True
                reason = ENDED
            elif max_steps > 0 and t[i, T_STEPS] >= max_steps:
                truncated[i] = True
                reason = TRUNCATED
        if reason:
            summarise(gp, t, i, reason, offender, summaries, scores, n)
            if start_episode(ep, t, i, next_seed(t, i)) < 0:
                return i
        publish(ep, i, templates, obs, masks, current)
    return -1


@jit
def random_legal(masks: npt.NDArray[np.int8], stream: I64, out: I64) -> None:
    """A uniformly random legal index of each row of ``masks`` into ``out``, from the
    SplitMix64 state ``stream[0]`` (advanced)."""
    state = np.uint64(stream[0])
    for i in range(masks.shape[0]):
        row = masks[i]
        count = 0
        for k in range(ACTION_SIZE):
            count += row[k] != 0
        state += _GOLDEN
        pick = int(np.int64((mix(state) >> _ONE) % np.uint64(count)))
        for k in range(ACTION_SIZE):
            if row[k] != 0:
                if pick == 0:
                    out[i] = k
                    break
                pick -= 1
    stream[0] = np.int64(state)


@numba.njit(cache=True, nogil=True, parallel=True)
def vec_step_parallel(eps: I64, actions: I64, t: I64, cfg: I64, illegal_reward: float,
                      templates: F32, obs: F32, masks: npt.NDArray[np.int8],
                      current: I64, rewards: npt.NDArray[np.float32],
                      terminated: npt.NDArray[np.bool_], truncated: npt.NDArray[np.bool_],
                      summaries: I64, scores: I64, chunks: int) -> int:
    """:func:`vec_step` over ``chunks`` slices of the games, on numba's threads (the
    games share nothing, so the result is the same as one :func:`vec_step`)."""
    total = eps.shape[0]
    faults = np.full(chunks, -1, dtype=np.int64)
    for c in numba.prange(chunks):
        lo = total * c // chunks
        hi = total * (c + 1) // chunks
        fault = vec_step(eps[lo:hi], actions[lo:hi], t[lo:hi], cfg, illegal_reward,
                         templates, obs[lo:hi], masks[lo:hi], current[lo:hi], rewards[lo:hi],
                         terminated[lo:hi], truncated[lo:hi], summaries[lo:hi],
                         scores[lo:hi])
        if fault >= 0:
            faults[c] = lo + fault
    for c in range(chunks):
        if faults[c] >= 0:
            return faults[c]
    return -1


__all__ = ["C_SIZE", "REWARD_SCHEMES", "S_SIZE", "T_SIZE", "first_illegal", "random_legal",
           "vec_reset",
           "vec_step", "vec_step_parallel"]
