"""RLCard side of ``benchmarks/rlcard_parity.py``; runs inside RLCard's own virtual environment.

Two modes, each printing one JSON line on stdout:

``--mode random`` (the statistical comparison)
    Plays ``--games`` random 2-player games with RLCard's bare engine
    (``rlcard.games.uno.game.UnoGame``), dealt from one ``numpy.random.RandomState(seed)``
    (RLCard's own random numbers). Each action is drawn uniformly from the *distinct* legal
    action ids, in the order of RLCard's env (``dict.fromkeys`` of
    ``game.get_legal_actions()``, which is what RLCard's ``RandomAgent`` picks from), with a
    ``random.Random(seed)``. Prints ``{"lengths": [...], "winners": [...], "errors": E, ...}``:
    the number of ``game.step`` calls of each game and its winner; a game that stops with an
    exception (RLCard's ``IndexError`` when no card is left to draw) counts in ``errors``.

``--mode exact`` (the replay check)
    Plays ``--games`` games through ``rlcard.make("uno")`` with the game's random numbers
    taken from unokit's SplitMix64 (``src/unokit/rng.py``, loaded as a lone file: it needs
    only the standard library) in place of numpy's, and the actions drawn with a second
    SplitMix64; prints ``{"digests": [...]}``, one SHA-256 per game over every state the env
    returned (player, ``obs``, legal ids, ``raw_obs``) and the payoffs. unokit's
    ``RLCardUnoEnv`` with the same seeds must give the same digests.

It uses only the standard library, numpy and rlcard::

    .bench/rlcard-1.2.0/bin/python benchmarks/_rlcard_parity_worker.py --mode random --games 100
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import rlcard
from rlcard.games.uno.game import UnoGame

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _rlcard_replay import replay_digests

RNG_FILE = Path(__file__).resolve().parent.parent / "src" / "unokit" / "rng.py"
MAX_STEPS_PER_GAME = 100_000


def load_splitmix() -> Any:
    spec = importlib.util.spec_from_file_location("_unokit_rng", RNG_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SplitMix64


class SplitMixNumpy:
    """The two calls RLCard's UNO makes on its ``np_random``, answered by SplitMix64:
    ``shuffle(list)`` (Fisher-Yates from the end) and ``choice(colours)``."""

    def __init__(self, rng: Any) -> None:
        self.rng = rng

    def shuffle(self, items: list[Any]) -> None:
        self.rng.shuffle(items)

    def choice(self, items: list[Any]) -> Any:
        return items[self.rng.below(len(items))]


def play_random(games: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    game = UnoGame(allow_step_back=False)
    game.np_random = np.random.RandomState(seed % 2**32)
    lengths: list[int] = []
    winners: list[int] = []
    errors = 0
    for i in range(games):
        game.init_game()
        n = 0
        try:
            while not game.is_over():
                legal = list(dict.fromkeys(game.get_legal_actions()))
                game.step(legal[rng.randrange(len(legal))])
                n += 1
                if n > MAX_STEPS_PER_GAME:
                    raise RuntimeError(f"game {i} ran past {MAX_STEPS_PER_GAME} steps")
        except IndexError:
            errors += 1
            continue
        lengths.append(n)
        winners.append(int(game.round.winner[0]))
    return {"lengths": lengths, "winners": winners, "errors": errors}


def play_exact(games: int, seed: int) -> dict[str, Any]:
    splitmix = load_splitmix()
    env = rlcard.make("uno", config={"seed": seed})
    env.game.np_random = SplitMixNumpy(splitmix(seed))
    return {"digests": replay_digests(env, splitmix(seed + 1), games)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="RLCard UNO games for the parity check.")
    parser.add_argument("--mode", choices=("random", "exact"), default="random")
    parser.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    play = play_random if args.mode == "random" else play_exact
    result = play(args.games, args.seed)
    result.update({
        "games": args.games,
        "seed": args.seed,
        "mode": args.mode,
        "rlcard_version": rlcard.__version__,
        "numpy_version": np.__version__,
        "python": platform.python_version(),
    })
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
