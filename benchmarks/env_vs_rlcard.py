"""Environment steps per second: unokit's PettingZoo environment (both backends) against
RLCard 1.2.0's UNO env.

What it measures
    Random 2-player UNO games played through each library's reinforcement-learning
    environment, one after the other in the same run on the same machine.  A *step* is one
    agent action together with the observation that follows it:

    - unokit: ``unokit.rl.pettingzoo_env.env(rules=RULES, players=2)`` (the wrapped AEC
      environment that PettingZoo users get).  Each step is ``env.last()`` (observation
      vector and action mask of the selected agent) and ``env.step(index)``, the index drawn
      uniformly from the mask's legal indices (``mask.nonzero()[0]``).  The finished
      agents' ``step(None)`` calls at the end of a game are timed but not counted.  Also
      shown: the bare ``raw_env`` (no wrapper), and how many of the steps were engine
      actions (the rest are ``noop`` answers to out-of-turn windows and the extra tokens
      of multi-token plays).
    - Each unokit environment is timed on both backends: ``backend="engine"`` (the
      Python engine, ``unokit.Game``) and ``backend="sim"`` (the simulator's kernel,
      compiled with numba; the same games step for step, so the same steps are timed).
      The compiled code is loaded (from numba's cache, or compiled on the very first run)
      by one untimed reset and step before the clock starts.
    - RLCard: ``rlcard.make("uno")``; each step is ``env.step(action_id)``, which returns the
      next state with its encoded observation and legal action ids; the id is drawn
      uniformly from the state's ``legal_actions``.  It runs in a subprocess
      (``_rlcard_env_worker.py``) in RLCard's own virtual environment, ``.bench/rlcard-1.2.0``,
      created on first use exactly as ``engine_vs_rlcard.py`` does.

    Every action is drawn with a ``random.Random(seed)``; game ``i`` is seeded with
    ``seed + i``.  Each side plays whole games until at least ``--steps`` steps are done.
    The timed region (``time.perf_counter``) is the loop over the games: every reset and
    every step.  Not timed: venv set-up, interpreter start-up, imports, building the
    environment object, loading the compiled code.  With ``--repeat K`` each environment
    is timed K times, alternating, and the fastest run of each is reported.  The games
    differ (rules, deals, and unokit's random games are much longer), so compare steps/s.

How to run
    .venv/bin/python benchmarks/env_vs_rlcard.py                    # 100,000 steps, best of 3
    .venv/bin/python benchmarks/env_vs_rlcard.py --steps 20000 --repeat 1 --json env.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_vs_rlcard import (
    DEFAULT_VENV,
    RLCARD_VERSION,
    ensure_rlcard_venv,
    import_unokit,
)

WORKER = Path(__file__).resolve().parent / "_rlcard_env_worker.py"
RULES = {"preset": "official", "players": 2, "rounds": 1}
BACKENDS = ("engine", "sim")
MAX_STEPS_PER_GAME = 1_000_000


@dataclass
class Result:
    """Timings of one environment: the fastest of ``runs`` and every run's seconds."""

    env: str
    games: int
    steps: int
    seconds: float
    runs: list[float] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["steps_per_s"] = self.steps_per_s
        return data


def add_run(best: Result | None, run: Result) -> Result:
    """Fold one timed run into the best-so-far result of the same environment."""
    if best is None:
        run.runs = [run.seconds]
        return run
    best.runs.append(run.seconds)
    if run.seconds / run.steps < best.seconds / best.steps:
        best.games, best.steps, best.seconds = run.games, run.steps, run.seconds
    return best


def run_rlcard(python: Path, steps: int, seed: int) -> Result:
    cmd = [str(python), str(WORKER), "--min-steps", str(steps), "--seed", str(seed)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        sys.exit(f"error: RLCard env worker failed (exit {proc.returncode}): {' '.join(cmd)}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    info = {k: v for k, v in data.items() if k not in ("games", "steps", "seconds")}
    return Result(f"rlcard {data.get('rlcard_version', '?')} env", int(data["games"]),
                  int(data["steps"]), float(data["seconds"]), info=info)


def run_unokit(steps: int, seed: int, wrapped: bool, backend: str) -> Result:
    import_unokit()
    from unokit.rl.pettingzoo_env import env, raw_env

    e = (env if wrapped else raw_env)(rules=RULES, backend=backend)
    e.reset(seed=seed)  # load the compiled code (sim) before the clock starts
    e.step(int(e.last()[0]["action_mask"].nonzero()[0][0]))
    e.observe(e.possible_agents[0])
    rng = random.Random(seed)
    done = games = engine_actions = 0
    start = time.perf_counter()
    while done < steps:
        e.reset(seed=seed + games)
        n = 0
        for _ in e.agent_iter():
            obs, _reward, terminated, truncated, _info = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            e.step(legal[rng.randrange(legal.size)])
            n += 1
            if n > MAX_STEPS_PER_GAME:
                raise RuntimeError(f"game {games} ran past {MAX_STEPS_PER_GAME} steps")
        done += n
        engine_actions += len(e.unwrapped.history)
        games += 1
    seconds = time.perf_counter() - start
    name = f"unokit {'env()' if wrapped else 'raw_env'} {backend}"
    return Result(name, games, done, seconds,
                  info={"engine_actions": engine_actions, "rules": RULES, "backend": backend,
                        "python": platform.python_version()})


def format_table(results: list[Result]) -> str:
    header = ("environment", "games", "steps", "seconds", "steps/s")
    rows = [(r.env, f"{r.games:,}", f"{r.steps:,}", f"{r.seconds:.3f}", f"{r.steps_per_s:,.0f}")
            for r in results]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: tuple[str, ...]) -> str:
        rest = (c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([cells[0].ljust(widths[0]), *rest])

    return "\n".join([line(header), line(tuple("-" * w for w in widths)), *map(line, rows)])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Steps per second of random 2-player UNO games: unokit's PettingZoo "
        f"environment vs RLCard {RLCARD_VERSION}'s env.")
    parser.add_argument("--steps", type=int, default=100_000,
                        help="steps per environment and run (100000; whole games)")
    parser.add_argument("--seed", type=int, default=0, help="base seed (0)")
    parser.add_argument("--repeat", type=int, default=3, help="time K times, keep the best (3)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results here")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV,
                        help="RLCard's venv (.bench/rlcard-1.2.0)")
    parser.add_argument("--venv-python", default=sys.executable,
                        help="interpreter that creates RLCard's venv (default: this one)")
    parser.add_argument("--recreate-venv", action="store_true", help="rebuild RLCard's venv")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.seed < 0:
        parser.error("--seed must be non-negative")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    python = ensure_rlcard_venv(args.venv, args.venv_python, args.recreate_venv)
    best: dict[str, Result] = {}
    runs: dict[str, Any] = {"rlcard": lambda: run_rlcard(python, args.steps, args.seed)}
    for backend in BACKENDS:
        for wrapped, kind in ((True, "env"), (False, "raw")):
            runs[f"{kind}_{backend}"] = (
                lambda w=wrapped, b=backend: run_unokit(args.steps, args.seed, w, b))
    for _ in range(args.repeat):
        for name, run in runs.items():
            best[name] = add_run(best.get(name), run())
    results = list(best.values())
    print(f"random 2-player UNO, at least {args.steps:,} steps per environment, seed "
          f"{args.seed}, best of {args.repeat}")
    print(format_table(results))
    ratios = {name: best[name].steps_per_s / best["rlcard"].steps_per_s
              for name in best if name != "rlcard"}
    for backend in BACKENDS:
        print(f"ratio to rlcard env, backend {backend}: env() "
              f"{ratios[f'env_{backend}']:.2f}x ({1e6 / best[f'env_{backend}'].steps_per_s:.1f} "
              f"us/step); raw_env {ratios[f'raw_{backend}']:.2f}x "
              f"({1e6 / best[f'raw_{backend}'].steps_per_s:.1f} us/step)")
    share = best["env_engine"].info["engine_actions"] / best["env_engine"].steps
    print(f"(engine actions are {share:.0%} of unokit's steps; Python "
          f"{platform.python_version()}; {platform.machine()}, {os.cpu_count()} CPUs; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})")
    if args.json is not None:
        report = {
            "benchmark": "env_vs_rlcard",
            "steps": args.steps,
            "seed": args.seed,
            "repeat": args.repeat,
            "results": {key: r.to_json() for key, r in best.items()},
            "ratios_over_rlcard": ratios,
            "load_average": os.getloadavg(),
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
