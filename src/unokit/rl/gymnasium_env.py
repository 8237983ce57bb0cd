"""A Gymnasium environment: one seat learns; bots, policies or the learner's own policy
play the other seats.

:class:`UnoEnv` runs the PettingZoo environment of :mod:`unokit.rl.pettingzoo_env` and
lets the opponents act for every other seat (in their turns and in their out-of-turn
windows); ``step`` returns when the learning seat has to decide again or the episode is
over. Actions, windows and rewards are those of the PettingZoo environment.

Two registered ids (:func:`register`):

- ``unokit/Uno-v1``, the training defaults (:data:`TRAINING_DEFAULTS`): two players, one
  round per episode (official rules), a flat ``Box`` observation with the mask apart
  (:meth:`UnoEnv.action_masks`, as ``sb3_contrib``'s ``ActionMasker`` and
  ``MaskablePPO`` want it), truncation after 500 steps of the learner, the ``playfirst``
  bot as opponent;
- ``unokit/Uno-v0``, kept as it was for compatibility: the class's own defaults (four
  players, a whole match per episode, a ``Dict`` observation with the mask inside, no
  step limit).

Opponents (``opponents``, one entry per other seat in seat order after ``seat``; a
shorter sequence repeats):

- a bot name or spec of :data:`unokit.bots.BOTS` (``"playfirst"``, ``"hard"``,
  ``"search:iterations=200"``), built with the environment's rules;
- a :class:`~unokit.bots.Bot` object;
- a policy: a callable ``policy(observation, action_mask) -> index``, given that seat's
  observation in the environment's format (flat vector or dict) and its mask;
- ``"self"``: the learner's own policy, a callable of the same form set with
  :meth:`UnoEnv.set_self_policy` (self-play; update it as the learner trains).

An action the mask does not allow: ``illegal_action="penalize"`` (default) changes
nothing and returns ``illegal_reward`` (-1) with ``info["illegal_action"] = True``;
``"raise"`` raises ``ValueError``; ``"terminate"`` ends the episode with
``illegal_reward``.

When the episode ends (terminated or truncated), ``info["summary"]`` holds the game's
summary: ``winner`` (seat, -1 if none), ``scores``, ``steps`` (every seat's),
``learner_steps``, ``actions``, ``turns``, ``rounds``, ``seat`` (the learner's).

>>> import numpy as np
>>> from unokit.rl.gymnasium_env import UnoEnv
>>> env = UnoEnv(rules={"preset": "official", "rounds": 1}, players=3,
...              opponents=("playfirst", "random"))
>>> obs, info = env.reset(seed=5)
>>> action = int(np.flatnonzero(obs["action_mask"])[0])
>>> obs, reward, terminated, truncated, info = env.step(action)
>>> info["illegal_action"], truncated
(False, False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from unokit.bots import Bot, make_bot
from unokit.engine.rules import Rules
from unokit.rl.encoding import ACTION_SIZE
from unokit.rl.pettingzoo_env import _load_rules, raw_env, resolve_backend

ENV_ID = "unokit/Uno-v0"
"""The id of :class:`UnoEnv` with its own defaults (kept for compatibility)."""
TRAINING_ENV_ID = "unokit/Uno-v1"
"""The id of :class:`UnoEnv` with :data:`TRAINING_DEFAULTS`."""
TRAINING_RULES: Mapping[str, Any] = {"preset": "official", "players": 2, "rounds": 1}
"""Two players, official rules, one round per episode."""
TRAINING_DEFAULTS: Mapping[str, Any] = {
    "rules": TRAINING_RULES, "opponents": ("playfirst",), "observation": "flat",
    "max_steps": 500}
"""The keyword arguments ``unokit/Uno-v1`` is registered with."""
OBSERVATIONS = ("dict", "flat")
"""Observation formats: ``{"observation", "action_mask"}`` or the vector alone."""
ILLEGAL_ACTIONS = ("penalize", "raise", "terminate")
"""What an index the mask does not allow does (see the module docstring)."""
SELF = "self"
"""The opponent entry for the learner's own policy."""

Obs = dict[str, npt.NDArray[Any]] | npt.NDArray[np.float32]
Policy = Callable[[Any, npt.NDArray[np.int8]], Any]
"""``policy(observation, action_mask) -> index``."""
Opponent = str | Bot | Policy


class UnoEnv(gymnasium.Env[Obs, np.int64]):
    """One learning seat against opponents (see the module docstring).

    Args:
        rules: a rule set (:class:`~unokit.engine.rules.Rules`, a mapping, a preset name or
            compact string).
        players: overrides the rules' ``players``.
        opponents: bot names, :class:`~unokit.bots.Bot` objects, policies or ``"self"``
            for the other seats, in seat order after ``seat``; a shorter sequence repeats
            (one entry: every other seat).
        seat: the learning seat.
        reward, windows: as in :class:`~unokit.rl.pettingzoo_env.raw_env`.
        max_steps: truncate after this many steps of the learning seat (``None``: never).
        illegal_action: ``"penalize"``, ``"raise"`` or ``"terminate"``.
        illegal_reward: the reward of an action the mask does not allow.
        observation: ``"dict"`` or ``"flat"`` (see :data:`OBSERVATIONS`).
        backend: ``"auto"`` (the compiled kernel where it plays the rules and no bot
            needs the engine's game; else the engine), ``"engine"`` or ``"sim"``.
        render_mode: ``None``, ``"human"`` or ``"ansi"``.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"]}  # noqa: RUF012

    def __init__(self, rules: Rules | str | Mapping[str, Any] = "official",
                 players: int | None = None,
                 opponents: Sequence[Opponent] | str = ("playfirst",), seat: int = 0,
                 reward: str = "match", windows: str = "all", max_steps: int | None = None,
                 illegal_action: str = "penalize", illegal_reward: float = -1.0,
                 observation: str = "dict", backend: str = "auto",
                 render_mode: str | None = None) -> None:
        if isinstance(opponents, str):
            opponents = (opponents,)
        if not opponents:
            raise ValueError("name at least one opponent")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTIONS)}, "
                             f"not {illegal_action!r}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}, "
                             f"not {observation!r}")
        if max_steps is not None and max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        loaded = _load_rules(rules, players)
        n = loaded.players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, not {seat}")
        specs = [opponents[index % len(opponents)] for index in range(n - 1)]
        named_bots = any(isinstance(spec, str) and spec != SELF for spec in specs)
        needs_game = named_bots or any(_is_bot(spec) for spec in specs)
        if backend == "auto" and needs_game:
            backend = "engine"
        resolve_backend(backend, loaded)  # refuses a bad name or rules the kernel lacks
        self.aec = raw_env(rules=loaded, render_mode=render_mode, reward=reward,
                           windows=windows, backend=backend)
        """The PettingZoo environment underneath."""
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.bots: dict[int, Bot] = {}
        """Seat -> the bot that plays it."""
        self.policies: dict[int, Policy | None] = {}
        """Seat -> the policy that plays it (``None``: the learner's, see
        :meth:`set_self_policy`)."""
        for index, spec in enumerate(specs):
            other = (seat + 1 + index) % n
            if isinstance(spec, str):
                if spec == SELF:
                    self.policies[other] = None
                else:
                    self.bots[other] = make_bot(spec, rules=loaded)
            elif _is_bot(spec):
                self.bots[other] = spec  # type: ignore[assignment]
            elif callable(spec):
                self.policies[other] = spec
            else:
                raise ValueError(f"opponent {spec!r} is neither a bot name, a bot, a policy "
                                 "nor 'self'")
        self.self_policy: Policy | None = None
        """The policy of the ``"self"`` seats (:meth:`set_self_policy`)."""
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.observation_format = observation
        space = self.aec.observation_space(self.agent)
        assert isinstance(space, spaces.Dict)
        chosen: Any = space if observation == "dict" else space["observation"]
        self.observation_space = chosen
        self.action_space = spaces.Discrete(ACTION_SIZE)
        self._steps = 0
        self._over = True

    @property
    def game(self) -> Any:
        """The match being played (a :class:`unokit.Game`; on the compiled backend a
        replay, to read)."""
        return self.aec.game

    @property
    def backend(self) -> str:
        """``"engine"`` or ``"sim"``: where the match is played."""
        return self.aec.backend

    def set_self_policy(self, policy: Policy | None) -> None:
        """The policy the ``"self"`` seats play with: ``policy(observation, action_mask)
        -> index`` (e.g. a wrapper around the learner's ``predict``)."""
        self.self_policy = policy

    # ------------------------------------------------------------------ reset
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """Start an episode (``seed``: the game's seed; the bots are seeded from it too)."""
        super().reset(seed=seed)
        if self.policies and None in self.policies.values() and self.self_policy is None:
            raise RuntimeError("an opponent seat is 'self': call set_self_policy(policy) "
                               "before reset()")
        game_seed = seed if seed is not None else int(self.np_random.integers(2**63))
        self.aec.reset(seed=game_seed)
        for other, bot in self.bots.items():
            reseed = getattr(bot, "reset", None)
            if callable(reseed):
                reseed(seed=game_seed * 16 + other)
        self._steps = 0
        self._over = False
        self._play_others()
        self.aec._cumulative_rewards[self.agent] = 0.0
        return self._observe(), self._info(False)

    # ------------------------------------------------------------------- step
    def step(self, action: Any) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """The learning seat's action; the opponents act until it must decide again."""
        aec = self.aec
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        token = int(action)
        if not (0 <= token < ACTION_SIZE and aec.observe_mask()[token]):
            if self.illegal_action == "raise":
                raise ValueError(f"action {token} is not legal now")
            self._steps += 1
            if self.illegal_action == "terminate":
                self._over = True
                return self._observe(), self.illegal_reward, True, False, self._info(True)
            truncated = self._truncate()
            return self._observe(), self.illegal_reward, False, truncated, self._info(True)
        aec.step(token)
        self._steps += 1
        self._play_others()
        reward = float(aec._cumulative_rewards[self.agent])
        aec._cumulative_rewards[self.agent] = 0.0
        terminated = bool(aec.terminations[self.agent])
        truncated = not terminated and self._truncate()
        self._over = terminated or truncated
        return self._observe(), reward, terminated, truncated, self._info(False)

    def _truncate(self) -> bool:
        self._over = self.max_steps is not None and self._steps >= self.max_steps
        return self._over

    def _play_others(self) -> None:
        """Let the opponents act until the learning seat is selected or the match is
        over."""
        aec = self.aec
        while not aec.terminations[self.agent] and aec.agent_selection != self.agent:
            seat = aec.possible_agents.index(aec.agent_selection)
            bot = self.bots.get(seat)
            if bot is not None:
                game = aec.game
                legal = game.legal_actions(seat)
                choice = bot.choose(game.observation(seat), legal) if legal else None
                if choice is None and not aec.in_window:
                    raise RuntimeError(f"the bot of seat {seat} did not act on its turn")
                aec.step_engine(choice)
                continue
            policy = self.policies[seat] or self.self_policy
            assert policy is not None  # reset() checked
            selected = aec._selected_observation()
            mask = selected["action_mask"]
            obs = selected if self.observation_format == "dict" else selected["observation"]
            token = int(policy(obs, mask))
            if not (0 <= token < ACTION_SIZE and mask[token]):
                raise ValueError(f"the policy of seat {seat} chose index {token}, which its "
                                 "mask does not allow")
            aec.step(token)

    def _observe(self) -> Obs:
        aec = self.aec
        if aec.agent_selection == self.agent and not aec.terminations[self.agent]:
            obs = aec._selected_observation() if not aec._done else aec.observe(self.agent)
        else:
            obs = aec.observe(self.agent)
        return obs if self.observation_format == "dict" else obs["observation"]

    def _info(self, illegal: bool) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.aec.observe_mask(),
                                "illegal_action": illegal, "window": self.aec.in_window}
        if self._over:
            summary = self.aec.summary()
            summary["learner_steps"] = self._steps
            summary["seat"] = self.seat
            info["summary"] = summary
        return info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions as booleans, of the action space's size (for maskable
        policies: ``MaskablePPO`` reads this method; ``ActionMasker(env, lambda e:
        e.action_masks())`` wraps it)."""
        return self.aec.observe_mask().astype(bool)

    def render(self) -> str | None:
        """The table (see :meth:`raw_env.render`)."""
        return self.aec.render()

    def close(self) -> None:
        """Nothing to release."""
        self.aec.close()


def _is_bot(spec: object) -> bool:
    return callable(getattr(spec, "choose", None))


def mask_fn(env: gymnasium.Env[Any, Any]) -> npt.NDArray[np.bool_]:
    """The mask function ``sb3_contrib.common.wrappers.ActionMasker`` takes:
    ``ActionMasker(env, mask_fn)`` (works through wrappers)."""
    masks: npt.NDArray[np.bool_] = env.unwrapped.action_masks()  # type: ignore[attr-defined]
    return masks


def register() -> str:
    """Register ``unokit/Uno-v0`` (the class's defaults) and ``unokit/Uno-v1`` (the
    training defaults) once; return ``unokit/Uno-v0``."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="unokit.rl.gymnasium_env:UnoEnv")
    if TRAINING_ENV_ID not in gymnasium.registry:
        gymnasium.register(id=TRAINING_ENV_ID, entry_point="unokit.rl.gymnasium_env:UnoEnv",
                           kwargs=dict(TRAINING_DEFAULTS))
    return ENV_ID


register()

__all__ = ["ENV_ID", "OBSERVATIONS", "SELF", "TRAINING_DEFAULTS", "TRAINING_ENV_ID",
           "TRAINING_RULES", "UnoEnv", "mask_fn", "register"]
