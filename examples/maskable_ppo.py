"""Train sb3-contrib's MaskablePPO on ``unokit/Uno-v1`` (two players, one round per
episode, a flat observation, the mask apart) against the ``playfirst`` bot, then play
against the bot and against random with the trained policy.

Needs torch, stable-baselines3 and sb3-contrib, which are not unokit dependencies::

    pip install sb3-contrib          # brings stable-baselines3 and torch
    python examples/maskable_ppo.py --timesteps 200000

``ActionMasker(env, mask_fn)`` is the wrapper sb3-contrib documents; ``UnoEnv`` also has
the ``action_masks()`` method MaskablePPO looks for, so the wrapper is optional.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def make_env(opponent: str = "playfirst", seed: int = 0) -> Any:
    """``unokit/Uno-v1`` against ``opponent``, wrapped in sb3-contrib's ActionMasker."""
    import gymnasium
    from sb3_contrib.common.wrappers import ActionMasker

    from unokit.rl.gymnasium_env import TRAINING_ENV_ID, mask_fn, register

    register()
    env = gymnasium.make(TRAINING_ENV_ID, opponents=(opponent,))
    env.reset(seed=seed)
    return ActionMasker(env, mask_fn)


def evaluate(model: Any, opponent: str, episodes: int, seed: int) -> float:
    """The trained policy's share of won episodes against ``opponent``."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    env = make_env(opponent, seed)
    wins = 0
    for episode in range(episodes):
        obs, info = env.reset(seed=seed + episode)
        terminated = truncated = False
        while not (terminated or truncated):
            action, _ = model.predict(obs, action_masks=get_action_masks(env),
                                      deterministic=True)
            obs, _reward, terminated, truncated, info = env.step(int(action))
        wins += info["summary"]["winner"] == info["summary"]["seat"]
    return wins / episodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=200_000)
    parser.add_argument("--episodes", type=int, default=500, help="evaluation episodes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default="uno_maskable_ppo", help="where the model goes")
    args = parser.parse_args(argv)
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        print("this example needs sb3-contrib: pip install sb3-contrib", file=sys.stderr)
        return 2
    model = MaskablePPO("MlpPolicy", make_env(seed=args.seed), seed=args.seed, verbose=1)
    model.learn(total_timesteps=args.timesteps)
    model.save(args.save)
    for opponent in ("playfirst", "random"):
        rate = evaluate(model, opponent, args.episodes, seed=10_000 + args.seed)
        print(f"against {opponent}: {rate:.1%} of {args.episodes} episodes won")
    return 0


if __name__ == "__main__":
    sys.exit(main())
