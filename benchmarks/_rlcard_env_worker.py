"""RLCard side of ``benchmarks/env_vs_rlcard.py``; runs inside RLCard's own virtual environment.

Plays random 2-player UNO games through RLCard's RL environment
(``rlcard.make("uno")``: every ``env.step`` returns the next state with its encoded
observation and legal action ids) and prints one JSON line::

    {"games": N, "steps": S, "seconds": T, ...}

It plays ``--games`` games, or with ``--min-steps`` whole games until that many steps are
done. A step is one ``env.step(action_id)``; the id is drawn uniformly from the state's
``legal_actions`` with a ``random.Random(seed)``. Game ``i`` is dealt after
``env.seed(seed + i)``. The timed region is the whole loop over the games: every
``env.reset()`` and every step.

It uses only the standard library, numpy and rlcard, so it does not need unokit installed::

    .bench/rlcard-1.2.0/bin/python benchmarks/_rlcard_env_worker.py --games 2000 --seed 0
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time

import numpy as np
import rlcard

# A random game that runs this long is a bug (in the environment or here), not a slow game.
MAX_STEPS_PER_GAME = 100_000


def play(games: int, seed: int, min_steps: int = 0) -> tuple[int, int, float]:
    """Play ``games`` random games (with ``min_steps``: until that many steps are done);
    return (games, steps, seconds)."""
    rng = random.Random(seed)
    env = rlcard.make("uno", config={"seed": seed, "game_num_players": 2})
    steps = 0
    start = time.perf_counter()
    i = 0
    while (steps < min_steps) if min_steps else (i < games):
        env.seed((seed + i) % 2**32)
        state, _ = env.reset()
        n = 0
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rng.randrange(len(legal))])
            n += 1
            if n > MAX_STEPS_PER_GAME:
                raise RuntimeError(f"game {i} ran past {MAX_STEPS_PER_GAME} steps")
        steps += n
        i += 1
    return i, steps, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time random 2-player games in RLCard's env.")
    parser.add_argument("--games", type=int, default=2000, help="games to play (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    parser.add_argument("--min-steps", type=int, default=0,
                        help="play whole games until this many steps (default: off)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    games, steps, seconds = play(args.games, args.seed, args.min_steps)
    result = {
        "games": games,
        "steps": steps,
        "seconds": seconds,
        "seed": args.seed,
        "env": "rlcard",
        "rlcard_version": rlcard.__version__,
        "numpy_version": np.__version__,
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
    }
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
