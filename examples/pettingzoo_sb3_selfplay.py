"""The PettingZoo + Stable-Baselines3 pattern of PettingZoo's tutorial "SB3: action
masking" (``sb3_action_mask.py``), on unokit's AEC environment: one MaskablePPO policy
plays every seat (self-play), through a wrapper that makes the AEC environment look like
a single-agent Gymnasium one.

Needs torch, stable-baselines3 and sb3-contrib::

    pip install sb3-contrib
    python examples/pettingzoo_sb3_selfplay.py --timesteps 100000

How the wrapper works (as in the tutorial): ``reset`` and ``step`` return the observation
vector of the agent selected next, ``action_mask()`` its mask; the reward ``step``
returns is the acting agent's cumulative reward right after its action, so the episode's
reward reaches the policy through the last action (+1 when it won the game, -1 when it
lost); finished agents are stepped with ``None`` on the way. The environment is built
with ``illegal_action="terminate"`` (PettingZoo's classic behaviour; ``env()``'s
default).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np


def make_wrapper(players: int = 2) -> Any:
    """An AEC environment of unokit seen as one Gymnasium environment (see the module
    docstring)."""
    import gymnasium
    from pettingzoo.utils import BaseWrapper

    from unokit.rl.pettingzoo_env import env as uno_env

    class SB3ActionMaskWrapper(BaseWrapper, gymnasium.Env):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(uno_env(rules={"preset": "official", "rounds": 1},
                                     players=players))
            agent = self.env.possible_agents[0]
            self.observation_space = self.env.observation_space(agent)["observation"]
            self.action_space = self.env.action_space(agent)

        def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
                  ) -> tuple[np.ndarray, dict[str, Any]]:
            super().reset(seed, options)
            return self.observe(self.agent_selection), {}

        def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
            current = self.agent_selection
            super().step(int(action))
            while self.agents and (self.terminations[self.agent_selection]
                                   or self.truncations[self.agent_selection]):
                if self.agent_selection == current:
                    break
                super().step(None)
            reward = float(self._cumulative_rewards.get(current, 0.0))
            done = not self.agents or self.terminations.get(current, True) \
                or self.truncations.get(current, False)
            if done:
                return self.observe(current), reward, True, False, {}
            return self.observe(self.agent_selection), reward, False, False, {}

        def observe(self, agent: str) -> np.ndarray:
            vector: np.ndarray = super().observe(agent)["observation"]
            return vector

        def action_mask(self) -> np.ndarray:
            mask: np.ndarray = super().observe(self.agent_selection)["action_mask"]
            return mask.astype(bool)

    return SB3ActionMaskWrapper()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        from sb3_contrib import MaskablePPO
        from sb3_contrib.common.wrappers import ActionMasker
    except ImportError:
        print("this example needs sb3-contrib: pip install sb3-contrib", file=sys.stderr)
        return 2
    env = ActionMasker(make_wrapper(args.players), lambda e: e.action_mask())
    env.reset(seed=args.seed)
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, verbose=1)
    model.learn(total_timesteps=args.timesteps)
    model.save("uno_selfplay")
    return 0


if __name__ == "__main__":
    sys.exit(main())
