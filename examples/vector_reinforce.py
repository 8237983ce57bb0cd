"""Train a linear softmax policy with REINFORCE on the vectorised environment, with
numpy alone (no torch): seat 0 learns, seat 1 plays uniformly random legal moves.

Each step, the games where seat 0 is selected get an index sampled from the policy's
masked softmax; the others a random legal index (``VectorUnoEnv.sample_legal``). When a
game's episode ends (it restarts by itself), its decisions are scored with the episode's
reward for seat 0 (+1 win, -1 loss, 0 cut by the step limit) minus a running baseline,
and every ``--batch`` finished episodes the weights take one gradient step.

    .venv/bin/python examples/vector_reinforce.py                 # some minutes
    .venv/bin/python examples/vector_reinforce.py --steps 20000 --num-envs 16

It prints, for each report, the episodes so far and seat 0's win rate over the episodes
of that report (0.5 is the level of a random policy).
"""

from __future__ import annotations

import argparse
import os
import sys

# The matrices are small: BLAS threads would only wait for each other (set before numpy
# loads its BLAS).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from unokit.rl.vector_env import VectorUnoEnv


class LinearPolicy:
    """``softmax(x @ w + b)`` over the legal indices, ``x`` the observation scaled to
    ``[0, 1]`` by the space's bounds."""

    def __init__(self, obs_size: int, actions: int, scale: np.ndarray, seed: int) -> None:
        self.w = np.zeros((obs_size, actions), dtype=np.float64)
        self.b = np.zeros(actions, dtype=np.float64)
        self.scale = scale
        self.rng = np.random.default_rng(seed)

    def features(self, obs: np.ndarray) -> np.ndarray:
        return np.asarray(obs, dtype=np.float64) / self.scale

    def probabilities(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = x @ self.w + self.b
        logits[~mask] = -np.inf
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)

    def sample(self, p: np.ndarray) -> np.ndarray:
        u = self.rng.random((p.shape[0], 1))
        return np.minimum((p.cumsum(axis=1) < u).sum(axis=1), p.shape[1] - 1)

    def update(self, x: np.ndarray, mask: np.ndarray, actions: np.ndarray,
               advantages: np.ndarray, lr: float) -> None:
        """One step up the gradient of ``mean(advantage * log p(action))``."""
        p = self.probabilities(x, mask)
        grad = -p
        grad[np.arange(len(actions)), actions] += 1.0
        grad *= advantages[:, None] / len(actions)
        self.w += lr * (x.T @ grad)
        self.b += lr * grad.sum(axis=0)


def train(num_envs: int, steps: int, batch: int, lr: float, seed: int,
          report_every: int, out: object = sys.stdout) -> list[float]:
    """Train and return the win rate of each report."""
    venv = VectorUnoEnv(num_envs, max_steps=2000)
    high = venv.single_observation_space.high
    policy = LinearPolicy(high.shape[0], venv.single_action_space.n,
                          np.maximum(np.minimum(high, 1e3), 1.0).astype(np.float64), seed)
    rng = np.random.default_rng(seed + 1)
    state = venv.reset(seed=seed)
    pending: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(num_envs)]
    finished: list[tuple[np.ndarray, np.ndarray, np.ndarray, float]] = []
    baseline = 0.0
    wins = played = episodes = 0
    rates: list[float] = []
    done_steps = 0
    next_report = report_every
    while done_steps < steps:
        actions = venv.sample_legal(state, rng)
        learner = np.flatnonzero(state.current_player == 0)
        if learner.size:
            x = policy.features(state.observation[learner])
            mask = state.legal_action_mask[learner]
            chosen = policy.sample(policy.probabilities(x, mask))
            actions[learner] = chosen
            for row, i in enumerate(learner):
                pending[i].append((x[row], mask[row], int(chosen[row])))
        state = venv.step(actions)
        done_steps += num_envs
        for i in np.flatnonzero(state.episode["done"]):
            reward = float(state.rewards[i, 0])
            episodes += 1
            played += 1
            wins += state.episode["winner"][i] == 0
            if pending[i]:
                xs, masks, acts = zip(*pending[i], strict=True)
                finished.append((np.array(xs), np.array(masks), np.array(acts), reward))
            pending[i] = []
        if len(finished) >= batch:
            xs = np.concatenate([f[0] for f in finished])
            masks = np.concatenate([f[1] for f in finished])
            acts = np.concatenate([f[2] for f in finished])
            returns = np.concatenate([np.full(len(f[2]), f[3]) for f in finished])
            policy.update(xs, masks, acts, returns - baseline, lr)
            baseline = 0.9 * baseline + 0.1 * float(np.mean([f[3] for f in finished]))
            finished = []
        if done_steps >= next_report and played:
            rates.append(wins / played)
            print(f"steps {done_steps:>9,}  episodes {episodes:>6,}  "
                  f"seat 0 wins {wins / played:.3f} of the last {played}", file=out)
            wins = played = 0
            next_report += report_every
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=1_000_000, help="environment steps")
    parser.add_argument("--batch", type=int, default=64, help="episodes per update")
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report-every", type=int, default=250_000)
    args = parser.parse_args(argv)
    train(args.num_envs, args.steps, args.batch, args.lr, args.seed, args.report_every)
    return 0


if __name__ == "__main__":
    sys.exit(main())
