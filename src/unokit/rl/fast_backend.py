"""The PettingZoo environment on the simulator's compiled kernel: ``raw_env(...,
backend="sim")`` (or ``"auto"``, the default, where the simulator plays the rules).

:class:`SimEnv` is :class:`~unokit.rl.pettingzoo_env.raw_env` with the match, the
selection of agents, the masks and the observation vectors computed by
:mod:`unokit.rl._sim_kernel` (numba). It gives the same episode as the engine backend
for the same rules, seed and actions: the same agents selected, observation vectors and
masks equal bit for bit, the same rewards, terminations and truncations
(``tests/test_rl_fast.py``). A step is one compiled call and Python's bookkeeping of the
rewards at the end of a round; an observation is one compiled call and two copies.

Tools that need the engine's :class:`~unokit.Game` get :attr:`SimEnv.game`: a replay of
the actions taken so far on the engine, brought up to date when read (slower, and a
copy to read, not to change: changing it changes nothing in the environment).

>>> from unokit.rl.pettingzoo_env import raw_env
>>> e = raw_env(rules={"preset": "official", "rounds": 1}, players=2, backend="sim")
>>> e.backend, type(e).__name__
('sim', 'SimEnv')
>>> e.reset(seed=3)
>>> e.agent_selection, e.game.current_player
('player_0', 0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from unokit.engine.game import Game
from unokit.rl import _sim_kernel as EK
from unokit.rl.encoding import ACTION_SIZE, NOOP, OBSERVATION_SIZE, decision
from unokit.rl.pettingzoo_env import raw_env
from unokit.sim import kernel as K
from unokit.sim.support import kernel_bonus, kernel_deck, kernel_params

_step = EK.env_step
_ILLEGAL = EK.R_ILLEGAL
_OTHER_THAN_SEAT = ~15


class SimEnv(raw_env):
    """:class:`~unokit.rl.pettingzoo_env.raw_env` played on the compiled kernel (see the
    module docstring); made by ``raw_env(..., backend="sim")``."""

    backend = "sim"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rules = self.rules
        self._g = K.new_state(kernel_params(rules), kernel_bonus(rules), kernel_deck(rules),
                              np.zeros(K.MAX_SEATS, dtype=np.int64))
        self._e = EK.new_env_state()
        self._f = np.zeros(EK.F_SIZE, dtype=np.float32)
        for seat in range(self.n):
            start = OBSERVATION_SIZE * (2 + seat)
            self._f[start: start + OBSERVATION_SIZE] = np.frombuffer(
                self.encoder._templates[seat], dtype=np.float32)
        self._m = np.zeros(EK.M_SIZE, dtype=np.int8)
        self._e[EK.E_N] = self.n
        self._e[EK.E_WINDOWS] = {"none": 0, "useful": 1, "all": 2}[self.windows]
        self._e[EK.E_SKIP_RULE] = rules.skip_on_skip != "none"
        self._bind()
        self._history: list[int] = []
        self._game_seed = 0
        self._replay: Game | None = None

    def _bind(self) -> None:
        """Write the buffers' addresses into the state (after a copy or unpickling too)."""
        self._e[EK.E_G] = self._g.ctypes.data
        self._e[EK.E_F] = self._f.ctypes.data
        self._e[EK.E_M] = self._m.ctypes.data
        self._ep: int = self._e.ctypes.data
        self._obs = self._f[EK.F_SELECTED: EK.F_SELECTED + OBSERVATION_SIZE]
        self._other = self._f[EK.F_OTHER: EK.F_OTHER + OBSERVATION_SIZE]

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("_g", "_e", "_f", "_m"):  # own buffers: never share a copy's state
            setattr(self, name, getattr(self, name).copy())
        self._history = list(self._history)
        self._replay = None
        self._bind()

    # ------------------------------------------------------------------ the game
    @property
    def game(self) -> Game:
        """The match as an engine :class:`~unokit.Game`: the actions taken so far
        replayed from the seed (kept and brought up to date at each read). Read it;
        changing it changes nothing here."""
        replay = self._replay
        if replay is None or len(replay.history) > len(self._history):
            replay = self._replay = Game(self.rules, seed=self._game_seed)
        done = len(replay.history)
        for action in self._history[done:]:
            replay.apply(action)
        return replay

    @game.setter
    def game(self, value: Game) -> None:
        raise AttributeError("the sim backend's game is a replay and cannot be set; "
                             "use backend='engine'")

    @property
    def history(self) -> list[int]:
        """The engine actions applied since the reset, in order (a copy)."""
        return list(self._history)

    # ------------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new match (as :meth:`raw_env.reset`: the same seeds)."""
        if seed is not None:
            self._seeds.seed(seed)
            game_seed = seed % 2**64
        else:
            game_seed = self._seeds.getrandbits(63)
        self._game_seed = game_seed
        self._history = []
        self._replay = None
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {name: {} for name in self.agents}
        self._done = False
        self._dirty = False
        self._steps = 0
        self._turns = 0
        self._scores_before = [0] * self.n
        signed = game_seed - 2**64 if game_seed >= 2**63 else game_seed
        self._after(EK.env_reset(self._ep, signed))

    def _after(self, result: int) -> None:
        """Take in the result of a compiled step: the selection, the action applied, the
        end of a round or of the match."""
        if result < 0:
            raise RuntimeError(f"seat {self._e[EK.E_SEL]} must act but has no legal action")
        seat = self._sel = result & 15
        self.agent_selection = self.possible_agents[seat]
        if result & EK.R_APPLIED:
            self._history.append(result >> 8)
            if result & EK.R_ROUND_END:
                self._round_over()
            if result & EK.R_DONE:
                self._done = True
                for name in self.agents:
                    self.terminations[name] = True

    # ----------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """The agent's observation and action mask (as :meth:`raw_env.observe`)."""
        seat = self._index[agent]
        if seat == self._sel and not self._done:
            return {"observation": self._obs.copy(), "action_mask": self._m.copy()}
        EK.env_encode(self._ep, seat)
        return {"observation": self._other.copy(),
                "action_mask": np.zeros(ACTION_SIZE, dtype=np.int8)}

    # What raw_env.last and observe_mask read: the buffers every step brings up to date.
    def _selected_observation(self) -> dict[str, npt.NDArray[Any]]:
        return {"observation": self._obs.copy(), "action_mask": self._m.copy()}

    def _selected_mask(self) -> npt.NDArray[np.int8]:
        return self._m.copy()

    # -------------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        """Take the selected agent's action (an index whose mask entry is 1)."""
        if self._done:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{self.agent_selection} must act: None is only for finished "
                             "agents")
        token = int(action)
        result = _step(self._ep, token) if 0 <= token < ACTION_SIZE else _ILLEGAL
        if result < 0:
            if result == _ILLEGAL:
                self._illegal(token)
                return
            self._after(result)  # raises
        self._cumulative_rewards[self.agent_selection] = 0.0
        if self._dirty:
            self._zero_rewards()
        if result & _OTHER_THAN_SEAT:
            self._after(result)
        else:  # a token that applied no action: only the selection may change
            self._sel = result
            self.agent_selection = self.possible_agents[result]
        self._count_step()

    # What raw_env.step_engine does, on the kernel.
    def _engine_legal(self) -> list[int]:
        return self._legal()

    def _engine_pass(self) -> None:
        self._after(EK.env_step(self._ep, NOOP))

    def _engine_apply(self, action: int) -> None:
        self._after(EK.env_apply(self._ep, action))

    # ----------------------------------------------------------------- rewards
    def _round_over(self) -> None:
        """:meth:`raw_env._round_over` on the kernel's state."""
        g = self._g
        over = g[K.S_PHASE] == K.P_MATCH_OVER
        self._reward_round([int(v) for v in g[K.SCORES: K.SCORES + self.n]],
                           int(g[K.S_ROUND_WINNER]), int(g[K.S_MATCH_WINNER]) if over else -1)

    # ------------------------------------------------------------------- tools
    def summary(self) -> dict[str, Any]:
        """As :meth:`raw_env.summary`, read from the kernel's state."""
        g = self._g
        over = g[K.S_PHASE] == K.P_MATCH_OVER
        return {"winner": int(g[K.S_MATCH_WINNER]) if over else -1,
                "scores": [int(v) for v in g[K.SCORES: K.SCORES + self.n]],
                "steps": self._steps, "actions": len(self._history),
                "turns": int(g[K.S_TURNS]), "rounds": int(g[K.S_ROUND_NO])}

    def _legal(self) -> list[int]:
        """The selected seat's legal engine actions (those of the whole decision)."""
        e = self._e
        return [int(a) for a in e[EK.E_LEGAL: EK.E_LEGAL + e[EK.E_NLEGAL]]]

    def legal_engine_actions(self) -> list[int]:
        """The engine actions the selected agent may take now (within a play being
        built, those that start with its tokens), in the engine backend's order."""
        if self._done:
            return []
        node = decision(self._legal(), self._sel, self.n, self.in_window)
        for token in self.building:
            choice = node.choices[token]
            assert not isinstance(choice, int)
            node = choice
        return node.actions()

    @property
    def in_window(self) -> bool:
        """Whether the selected agent is in an out-of-turn window (``noop`` allowed)."""
        return bool(self._e[EK.E_WIN]) and not self._done

    @property
    def building(self) -> tuple[int, ...]:
        """The tokens of the play the selected agent is building (empty if none)."""
        first = int(self._e[EK.E_BUILD])
        return (first,) if first >= 0 else ()


__all__ = ["SimEnv"]
