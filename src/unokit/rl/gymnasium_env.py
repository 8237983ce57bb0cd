"""A Gymnasium environment: one seat learns, bots play the other seats.

:class:`UnoEnv` runs the PettingZoo environment of :mod:`unokit.rl.pettingzoo_env` and
lets bots of :data:`unokit.bots.BOTS` act for every other seat (in their turns and in
their out-of-turn windows); ``step`` returns when the learning seat has to decide again
or the match is over. Observations, the action space, windows and rewards are those of
the PettingZoo environment; the action mask is also in ``info["action_mask"]`` and
:meth:`UnoEnv.action_masks`.

An action the mask does not allow changes nothing: the step returns ``illegal_reward``
(default -1) and ``info["illegal_action"] = True`` (``illegal_action="raise"`` raises
instead).

>>> import numpy as np
>>> from unokit.rl.gymnasium_env import UnoEnv
>>> env = UnoEnv(rules={"preset": "official", "rounds": 1}, players=3,
...              opponents=("playfirst", "random"))
>>> obs, info = env.reset(seed=5)
>>> action = int(np.flatnonzero(obs["action_mask"])[0])
>>> obs, reward, terminated, truncated, info = env.step(action)
>>> info["illegal_action"], truncated
(False, False)

``gymnasium.make("unokit/Uno-v0", players=2)`` works once :func:`register` has run (or
with the id ``"unokit.rl.gymnasium_env:unokit/Uno-v0"``, which imports this module).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from unokit.bots import Bot, make_bot
from unokit.engine.rules import Rules
from unokit.rl.encoding import ACTION_SIZE
from unokit.rl.pettingzoo_env import raw_env

ENV_ID = "unokit/Uno-v0"
"""The id :func:`register` gives the environment."""

Obs = dict[str, npt.NDArray[Any]]


class UnoEnv(gymnasium.Env[Obs, np.int64]):
    """One learning seat against bots (see the module docstring).

    Args:
        rules: a rule set (:class:`~unokit.engine.rules.Rules`, a mapping, a preset name or
            compact string).
        players: overrides the rules' ``players``.
        opponents: bot names (or :class:`~unokit.bots.Bot` objects) for the other seats,
            in seat order after ``seat``; a shorter sequence repeats (one name: every
            other seat).
        seat: the learning seat.
        reward, windows: as in :class:`~unokit.rl.pettingzoo_env.raw_env`.
        max_steps: truncate after this many steps of the learning seat (``None``: never).
        illegal_action: ``"penalize"`` or ``"raise"``.
        illegal_reward: the reward of an action the mask does not allow.
        render_mode: ``None``, ``"human"`` or ``"ansi"``.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"]}  # noqa: RUF012

    def __init__(self, rules: Rules | str | Mapping[str, Any] = "official",
                 players: int | None = None,
                 opponents: Sequence[str | Bot] = ("playfirst",), seat: int = 0,
                 reward: str = "match", windows: str = "all", max_steps: int | None = None,
                 illegal_action: str = "penalize", illegal_reward: float = -1.0,
                 render_mode: str | None = None) -> None:
        self.aec = raw_env(rules=rules, players=players, render_mode=render_mode,
                           reward=reward, windows=windows, backend="engine")
        """The PettingZoo environment underneath (on the engine: the bots read its
        game at every step)."""
        n = self.aec.n
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, not {seat}")
        if isinstance(opponents, str):
            opponents = (opponents,)
        if not opponents:
            raise ValueError("name at least one opponent bot")
        if illegal_action not in ("penalize", "raise"):
            raise ValueError("illegal_action must be 'penalize' or 'raise'")
        if max_steps is not None and max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.bots: dict[int, Bot] = {}
        """Seat -> the bot that plays it."""
        for index in range(n - 1):
            other = (seat + 1 + index) % n
            spec = opponents[index % len(opponents)]
            self.bots[other] = make_bot(spec) if isinstance(spec, str) else spec
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = spaces.Discrete(ACTION_SIZE)
        self._steps = 0

    @property
    def game(self) -> Any:
        """The match being played (a :class:`unokit.Game`)."""
        return self.aec.game

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """Start a match (``seed``: the game's seed; the bots are seeded from it too)."""
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(2**63))
        self.aec.reset(seed=game_seed)
        for other, bot in self.bots.items():
            reseed = getattr(bot, "reset", None)
            if callable(reseed):
                reseed(seed=game_seed * 16 + other)
        self._steps = 0
        self._play_others()
        self.aec._cumulative_rewards[self.agent] = 0.0
        return self._observe(), self._info(False)

    def step(self, action: Any) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """The learning seat's action; bots act until it must decide again."""
        aec = self.aec
        if aec.terminations[self.agent] or aec.truncations[self.agent]:
            raise RuntimeError("the match is over: call reset()")
        token = int(action)
        if not (0 <= token < ACTION_SIZE and aec.observe_mask()[token]):
            if self.illegal_action == "raise":
                raise ValueError(f"action {token} is not legal now")
            return self._observe(), self.illegal_reward, False, self._truncate(), \
                self._info(True)
        aec.step(token)
        self._play_others()
        reward = float(aec._cumulative_rewards[self.agent])
        aec._cumulative_rewards[self.agent] = 0.0
        terminated = bool(aec.terminations[self.agent])
        truncated = not terminated and self._truncate()
        return self._observe(), reward, terminated, truncated, self._info(False)

    def _truncate(self) -> bool:
        self._steps += 1
        return self.max_steps is not None and self._steps >= self.max_steps

    def _play_others(self) -> None:
        """Let the bots act until the learning seat is selected or the match is over."""
        aec = self.aec
        game = aec.game
        while not aec.terminations[self.agent] and aec.agent_selection != self.agent:
            seat = aec.possible_agents.index(aec.agent_selection)
            legal = game.legal_actions(seat)
            choice = self.bots[seat].choose(game.observation(seat), legal) if legal else None
            if choice is None and not aec.in_window:
                raise RuntimeError(f"the bot of seat {seat} did not act on its turn")
            aec.step_engine(choice)

    def _observe(self) -> Obs:
        obs: Obs = self.aec.observe(self.agent)
        return obs

    def _info(self, illegal: bool) -> dict[str, Any]:
        return {"action_mask": self.aec.observe_mask().copy(), "illegal_action": illegal,
                "window": self.aec.in_window}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions as booleans (for maskable policies)."""
        return self.aec.observe_mask().astype(bool)

    def render(self) -> str | None:
        """The table (see :meth:`raw_env.render`)."""
        return self.aec.render()

    def close(self) -> None:
        """Nothing to release."""
        self.aec.close()


def register() -> str:
    """Register :class:`UnoEnv` as ``unokit/Uno-v0`` (once) and return the id."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="unokit.rl.gymnasium_env:UnoEnv")
    return ENV_ID


register()

__all__ = ["ENV_ID", "UnoEnv", "register"]
