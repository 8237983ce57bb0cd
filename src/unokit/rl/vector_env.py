"""A vectorised environment: N games stepped in one compiled call (EnvPool / pgx style).

:class:`VectorUnoEnv` holds ``num_envs`` games of the PettingZoo environment's compiled
backend (:mod:`unokit.rl.fast_backend`) and steps all of them with one call to numba
code (:mod:`unokit.rl._vector_kernel`). Everything comes as arrays with the games on the
first axis, like pgx's ``State``:

================================  ==========================  ==============================
field                             shape, dtype                meaning
================================  ==========================  ==============================
``observation``                   (N, 641) float32            the selected seat's vector
``legal_action_mask``             (N, 362) bool               its legal action indices
``current_player``                (N,) int64                  the selected seat
``rewards``                       (N, players) float32        every seat's reward of the step
``terminated``, ``truncated``     (N,) bool                   the episode ended in this step
``episode``                       dict of (N, ...) arrays     summaries of the ended episodes
================================  ==========================  ==============================

Every seat is driven by the caller (self-play): the action of game ``i`` is the
index chosen for its ``current_player[i]``. A game whose episode ends is reset in the
same call (auto-reset, as pgx's ``auto_reset`` and Stable-Baselines3's vectorised
environments do): ``terminated``/``truncated`` and ``rewards`` belong to the step that
ended it, ``observation`` and the mask already to the next episode's first decision, and
``episode`` says how it ended (winner, scores, length).

Game ``i`` plays, step for step, the episode that
``raw_env(rules, reward=..., windows=..., max_cycles=max_steps)`` plays after
``reset(seed=state.episode_seed[i])``, with the same actions: the same seat selected,
vector and mask equal bit for bit, the same rewards (``tests/test_rl_vector.py``).

>>> import numpy as np
>>> from unokit.rl.vector_env import VectorUnoEnv
>>> venv = VectorUnoEnv(8)
>>> state = venv.reset(seed=0)
>>> state.observation.shape, state.legal_action_mask.shape, state.rewards.shape
((8, 641), (8, 362), (8, 2))
>>> rng = np.random.default_rng(0)
>>> for _ in range(200):
...     state = venv.step(venv.sample_legal(state, rng))
>>> bool(state.legal_action_mask.any(axis=1).all())
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from unokit.engine.rng import SplitMix64
from unokit.engine.rules import Rules
from unokit.rl import _sim_kernel as EK
from unokit.rl import _vector_kernel as VK
from unokit.rl.encoding import ACTION_SIZE, OBSERVATION_SIZE, ObservationEncoder, action_name
from unokit.rl.pettingzoo_env import SIM_BACKEND_SUPPORT, WINDOWS, _load_rules
from unokit.sim import kernel as K
from unokit.sim.support import check_supported, kernel_bonus, kernel_deck, kernel_params

TRAINING_RULES: Mapping[str, Any] = {"preset": "official", "players": 2, "rounds": 1}
"""The default rules: two players, official rules, one round per episode."""

ILLEGAL_ACTIONS = ("raise", "terminate")
"""What an index the mask does not allow does (see :class:`VectorUnoEnv`)."""

END_REASONS = ("running", "ended", "truncated", "illegal")
"""``episode["reason"]`` values by number: 0 the episode goes on, 1 the match ended,
2 the step limit cut it, 3 an illegal index ended it."""

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class VectorState:
    """What :meth:`VectorUnoEnv.reset` and :meth:`VectorUnoEnv.step` return: fresh arrays
    the caller owns (see the module docstring for the fields)."""

    observation: F32
    legal_action_mask: Bools
    current_player: I64
    rewards: F32
    terminated: Bools
    truncated: Bools
    episode_seed: I64
    """The seed of the episode each game is playing now (``raw_env.reset(seed=...)``)."""
    episode: dict[str, npt.NDArray[Any]]
    """Summaries of the episodes that ended in this step, where ``done`` is True:
    ``done``, ``reason`` (see :data:`END_REASONS`), ``winner`` (-1 if none), ``scores``
    (N, players: the match totals), ``steps`` (every seat's), ``actions`` (engine
    actions), ``turns``, ``rounds``, ``seed`` and ``illegal_seat`` (-1 if none)."""


class VectorUnoEnv:
    """``num_envs`` games stepped together (see the module docstring).

    Args:
        num_envs: the number of games (at least 1).
        rules: a rule set the simulator plays (:mod:`unokit.sim.support`; default
            :data:`TRAINING_RULES`), as a :class:`~unokit.engine.rules.Rules`, a mapping,
            a preset name or a compact string.
        players: overrides the rules' ``players``.
        reward: ``"match"`` (default), ``"round"`` or ``"points"``, as in
            :class:`~unokit.rl.pettingzoo_env.raw_env`.
        windows: ``"all"`` (default), ``"useful"`` or ``"none"``, as there.
        max_steps: truncate an episode after this many steps (every seat's); ``None``:
            never.
        illegal_action: ``"raise"`` (default): :meth:`step` raises ``ValueError`` and
            changes no game if any index is not allowed by its mask; ``"terminate"``:
            that game's episode ends (``terminated``) with ``illegal_reward`` for the
            offending seat and 0 for the others, as PettingZoo's classic games do.
        illegal_reward: see ``illegal_action``.
        threads: step the games on this many numba threads (``None`` or 1: one).

    Raises:
        RulesError: the simulator does not play the rules.
        ValueError: a bad option.
    """

    def __init__(self, num_envs: int, rules: Rules | str | Mapping[str, Any] = TRAINING_RULES,
                 players: int | None = None, reward: str = "match", windows: str = "all",
                 max_steps: int | None = None, illegal_action: str = "raise",
                 illegal_reward: float = -1.0, threads: int | None = None) -> None:
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1")
        if reward not in VK.REWARD_SCHEMES:
            raise ValueError(f"reward must be one of {', '.join(VK.REWARD_SCHEMES)}, "
                             f"not {reward!r}")
        if windows not in WINDOWS:
            raise ValueError(f"windows must be one of {', '.join(WINDOWS)}, not {windows!r}")
        if max_steps is not None and max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTIONS)}, "
                             f"not {illegal_action!r}")
        if threads is not None and threads < 1:
            raise ValueError("threads must be at least 1")
        loaded = _load_rules(rules, players)
        check_supported(loaded, SIM_BACKEND_SUPPORT)
        self.rules = loaded
        self.num_envs = num_envs
        self.num_players = n = loaded.players
        self.reward_scheme = reward
        self.windows = windows
        self.max_steps = max_steps
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.threads = threads or 1
        encoder = ObservationEncoder(loaded)
        self.single_observation_space = spaces.Box(encoder.low, encoder.high,
                                                   dtype=np.float32)
        """The space of one game's observation vector."""
        self.single_action_space = spaces.Discrete(ACTION_SIZE)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, ACTION_SIZE))
        """One index per game."""
        self._cfg = np.zeros(VK.C_SIZE, dtype=np.int64)
        self._cfg[VK.C_N] = n
        self._cfg[VK.C_MAX_STEPS] = max_steps or 0
        self._cfg[VK.C_REWARD] = VK.REWARD_SCHEMES.index(reward)
        self._cfg[VK.C_SIGN] = -1 if loaded.scoring == "penalty" else 1
        self._cfg[VK.C_TERMINATE] = illegal_action == "terminate"
        self._cfg[VK.C_AHEAD] = VK.AHEAD
        # One row per game of the kernel's and the environment's state arrays (zeros:
        # the pages a game never touches cost no memory); every game's e row holds the
        # address of its g row, of its mask row and of a float32 buffer the vector
        # environment never reads (the vectors are encoded straight into the output).
        game = K.new_state(kernel_params(loaded), kernel_bonus(loaded), kernel_deck(loaded),
                           np.zeros(K.MAX_SEATS, dtype=np.int64))
        self._g = np.zeros((num_envs, K.G_SIZE), dtype=np.int64)
        self._g[:, :K.ACTS] = game[:K.ACTS]
        self._e = np.zeros((num_envs, EK.E_SIZE), dtype=np.int64)
        self._e[:, :EK.E_LEGAL] = EK.new_env_state()[:EK.E_LEGAL]
        self._m = np.zeros((num_envs, EK.M_SIZE), dtype=np.int8)
        self._unused = np.zeros(EK.F_SIZE, dtype=np.float32)
        self._templates = np.stack([np.frombuffer(encoder._templates[seat], dtype=np.float32)
                                    for seat in range(n)])
        self._e[:, EK.E_N] = n
        self._e[:, EK.E_WINDOWS] = {"none": 0, "useful": 1, "all": 2}[windows]
        self._e[:, EK.E_SKIP_RULE] = loaded.skip_on_skip != "none"
        rows = np.arange(num_envs, dtype=np.int64)
        self._e[:, EK.E_G] = self._g.ctypes.data + rows * self._g.strides[0]
        self._e[:, EK.E_F] = self._unused.ctypes.data
        self._e[:, EK.E_M] = self._m.ctypes.data + rows * self._m.strides[0]
        self._eps = self._e.ctypes.data + rows * self._e.strides[0]
        self._t = np.zeros((num_envs, VK.T_SIZE), dtype=np.int64)
        self._current = np.zeros(num_envs, dtype=np.int64)
        self._has_reset = False
        self._seeds = np.random.default_rng()

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None) -> VectorState:
        """Start a match in every game. The episode seeds of game ``i`` are the outputs
        of a SplitMix64 stream seeded with the ``i``-th output of ``SplitMix64(seed)``
        (shifted to 63 bits); the same ``seed`` gives the same games. Without a seed, one
        is drawn."""
        if seed is None:
            seed = int(self._seeds.integers(2**63))
        master = SplitMix64(seed)
        streams = [master.next_u64() for _ in range(self.num_envs)]
        self._t[:, VK.T_STREAM] = np.array(streams, dtype=np.uint64).view(np.int64)
        firsts = np.array([VK.next_seed(self._t, i) for i in range(self.num_envs)],
                          dtype=np.int64)
        obs, masks, current = self._outputs()
        fault = VK.vec_reset(self._eps, self._t, firsts, self._templates, obs, masks,
                             current)
        self._fault(fault)
        self._current = current
        self._has_reset = True
        n, size = self.num_players, self.num_envs
        rows = np.full((size, VK.S_SIZE), -1, dtype=np.int64)
        rows[:, VK.S_REASON] = 0
        return VectorState(obs, masks.view(np.bool_), current,
                           np.zeros((size, n), dtype=np.float32), np.zeros(size, bool),
                           np.zeros(size, bool), self._t[:, VK.T_SEED].copy(),
                           self._summaries(rows, np.zeros((size, n), dtype=np.int64)))

    # ------------------------------------------------------------------- step
    def step(self, actions: npt.ArrayLike) -> VectorState:
        """One action index per game, for its selected seat (see the module docstring).

        Raises:
            RuntimeError: before :meth:`reset`.
            ValueError: ``actions`` is not one index per game; or, under
                ``illegal_action="raise"``, an index is not allowed by its game's mask
                (then no game has changed).
        """
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,) or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integer indices, one per game "
                             f"(got shape {chosen.shape}, dtype {chosen.dtype})")
        chosen = np.ascontiguousarray(chosen, dtype=np.int64)
        if self.illegal_action == "raise":
            bad = VK.first_illegal(self._eps, chosen)
            if bad >= 0:
                index = int(chosen[bad])
                name = action_name(index) if 0 <= index < ACTION_SIZE else "out of range"
                raise ValueError(f"game {bad}: action {index} ({name}) is not legal for seat "
                                 f"{int(self._current[bad])} now; no game was stepped")
        size, n = self.num_envs, self.num_players
        obs, masks, current = self._outputs()
        rewards = np.empty((size, n), dtype=np.float32)
        terminated = np.empty(size, dtype=np.bool_)
        truncated = np.empty(size, dtype=np.bool_)
        summaries = np.full((size, VK.S_SIZE), -1, dtype=np.int64)
        scores = np.zeros((size, n), dtype=np.int64)
        args = (self._eps, chosen, self._t, self._cfg, self.illegal_reward, self._templates,
                obs, masks,
                current, rewards, terminated, truncated, summaries, scores)
        if self.threads > 1:
            fault = VK.vec_step_parallel(*args, min(self.threads, size))
        else:
            fault = VK.vec_step(*args)
        self._fault(fault)
        self._current = current
        return VectorState(obs, masks.view(np.bool_), current, rewards, terminated, truncated,
                           self._t[:, VK.T_SEED].copy(), self._summaries(summaries, scores))

    @staticmethod
    def sample_legal(state: VectorState, rng: np.random.Generator) -> I64:
        """A uniformly random legal index for each game (a random policy), drawn with
        ``rng`` in compiled code.

        >>> venv = VectorUnoEnv(2)
        >>> state = venv.reset(seed=1)
        >>> actions = venv.sample_legal(state, np.random.default_rng(0))
        >>> bool(state.legal_action_mask[[0, 1], actions].all())
        True
        """
        stream = rng.integers(-2**63, 2**63 - 1, size=1, dtype=np.int64)
        out = np.empty(state.legal_action_mask.shape[0], dtype=np.int64)
        VK.random_legal(state.legal_action_mask.view(np.int8), stream, out)
        return out

    # ------------------------------------------------------------------ tools
    def _outputs(self) -> tuple[F32, npt.NDArray[np.int8], I64]:
        size = self.num_envs
        return (np.empty((size, OBSERVATION_SIZE), dtype=np.float32),
                np.empty((size, ACTION_SIZE), dtype=np.int8), np.empty(size, dtype=np.int64))

    def _fault(self, game: int) -> None:
        if game >= 0:
            raise RuntimeError(f"game {game}: a seat must act but has no legal action")

    def _summaries(self, rows: I64, scores: I64) -> dict[str, npt.NDArray[Any]]:
        reason = rows[:, VK.S_REASON]
        return {"done": reason > 0, "reason": reason, "winner": rows[:, VK.S_WINNER],
                "scores": scores, "steps": rows[:, VK.S_STEPS],
                "actions": rows[:, VK.S_ACTIONS], "turns": rows[:, VK.S_TURNS],
                "rounds": rows[:, VK.S_ROUNDS], "seed": rows[:, VK.S_SEED],
                "illegal_seat": rows[:, VK.S_ILLEGAL]}


__all__ = ["END_REASONS", "ILLEGAL_ACTIONS", "TRAINING_RULES", "VectorState", "VectorUnoEnv"]
