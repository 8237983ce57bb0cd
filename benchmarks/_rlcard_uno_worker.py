"""RLCard side of ``benchmarks/engine_vs_rlcard.py``; runs inside RLCard's own virtual environment.

Plays ``--games`` random 2-player UNO games with RLCard's bare game engine
(``rlcard.games.uno.game.UnoGame``, not the RL environment and its state encoding) and prints
one JSON line::

    {"games": N, "decisions": D, "seconds": S, "cpu_seconds": C, ...}

A decision is one ``game.step(action)``; the action is drawn uniformly from
``game.get_legal_actions()`` (a list of strings such as ``"r-7"``, ``"g-wild"`` or ``"draw"``)
with a ``random.Random(seed)``.  Game ``i`` is dealt from ``numpy.random.RandomState(seed + i)``
(mod 2**32), which is how RLCard seeds its engine: ``UnoGame.np_random`` is the only source of
randomness inside the game.  The timed region is the whole loop over the games: engine set-up
(``init_game``, which builds dealer, deck, players and round) and every decision; ``seconds``
is its wall time, ``cpu_seconds`` the CPU time this process spent in it.

It uses only the standard library, numpy and rlcard, so it does not need unokit installed.
Run it through the harness, or directly::

    .bench/rlcard-1.2.0/bin/python benchmarks/_rlcard_uno_worker.py --games 2000 --seed 0
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
from rlcard.games.uno.game import UnoGame

# A random game that runs this long is a bug (in the engine or here), not a slow game.
MAX_DECISIONS_PER_GAME = 100_000


def play(games: int, seed: int) -> tuple[int, float, float]:
    """Play ``games`` random games; return (decisions, seconds, CPU seconds)."""
    rng = random.Random(seed)
    game = UnoGame(allow_step_back=False)
    game.configure({"game_num_players": 2})
    decisions = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    for i in range(games):
        game.np_random = np.random.RandomState((seed + i) % 2**32)
        game.init_game()
        n = 0
        while not game.is_over():
            acts = game.get_legal_actions()
            game.step(acts[rng.randrange(len(acts))])
            n += 1
            if n > MAX_DECISIONS_PER_GAME:
                raise RuntimeError(f"game {i} ran past {MAX_DECISIONS_PER_GAME} decisions")
        decisions += n
    return decisions, time.perf_counter() - start, time.process_time() - cpu_start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time random 2-player games in RLCard's UnoGame.")
    parser.add_argument("--games", type=int, default=2000, help="games to play (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    decisions, seconds, cpu_seconds = play(args.games, args.seed)
    result = {
        "games": args.games,
        "decisions": decisions,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "seed": args.seed,
        "engine": "rlcard",
        "rlcard_version": rlcard.__version__,
        "numpy_version": np.__version__,
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
    }
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
