"""Environment steps per second: unokit's vectorised environment against its PettingZoo
environment and RLCard 1.2.0's UNO env.

What it measures
    Random 2-player UNO (official rules, one round per episode), one step = one action of
    the selected seat together with the observation vector and mask that follow it.

    - ``VectorUnoEnv(N)`` (``unokit.rl.vector_env``): each call ``venv.step(actions)``
      steps N games at once in compiled code and returns fresh arrays (observations
      (N, 641), masks, rewards, flags, summaries); episodes reset themselves. The
      actions are a uniformly random legal index per game (``venv.sample_legal``, also
      compiled). Two figures per run: the whole loop (sampling + stepping) and
      ``step()`` alone. Timed with ``--threads 1`` (one numba thread) and, if asked,
      more (``--threads 1 2``).
    - unokit's PettingZoo environment, ``raw_env`` and ``env()`` on the compiled backend
      (``backend="sim"``), one game at a time (``env_vs_rlcard.py``'s loop).
    - RLCard: ``rlcard.make("uno")``, in its own venv (``.bench/rlcard-1.2.0``, created on
      first use by ``engine_vs_rlcard.py``'s code), in a subprocess
      (``_rlcard_env_worker.py``).

    Each figure is the best of ``--repeat`` runs, wall clock (``time.perf_counter``);
    the CPU time of the vectorised runs (``time.process_time``, every thread of the
    process) is printed too, since on a shared machine the wall clock also counts the
    time other processes held the cores. The load average before and after is printed.
    Not timed: building the environments, loading the compiled code, the venv.

How to run
    .venv/bin/python benchmarks/vector_env_vs_rlcard.py                  # N=4096
    .venv/bin/python benchmarks/vector_env_vs_rlcard.py --num-envs 1024 --threads 1 2 \\
        --vector-steps 4000000 --steps 50000 --repeat 3 --json vector.json
    .venv/bin/python benchmarks/vector_env_vs_rlcard.py --no-rlcard      # unokit only
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_vs_rlcard import DEFAULT_VENV, ensure_rlcard_venv, import_unokit
from env_vs_rlcard import Result, add_run, format_table, run_rlcard, run_unokit

RULES = {"preset": "official", "players": 2, "rounds": 1}


def run_vector(num_envs: int, steps: int, seed: int, threads: int) -> tuple[Result, Result]:
    """Time ``VectorUnoEnv(num_envs)`` for at least ``steps`` steps: the whole loop and
    ``step()`` alone."""
    import_unokit()
    import numpy as np

    from unokit.rl.vector_env import VectorUnoEnv

    venv = VectorUnoEnv(num_envs, rules=RULES, threads=threads)
    rng = np.random.default_rng(seed)
    state = venv.reset(seed=seed)
    for _ in range(3):  # load the compiled code, touch every buffer
        state = venv.step(venv.sample_legal(state, rng))
    done = episodes = 0
    in_step = cpu_in_step = 0.0
    cpu = time.process_time()
    start = time.perf_counter()
    while done < steps:
        actions = venv.sample_legal(state, rng)
        before, cpu_before = time.perf_counter(), time.process_time()
        state = venv.step(actions)
        in_step += time.perf_counter() - before
        cpu_in_step += time.process_time() - cpu_before
        done += num_envs
        episodes += int(state.episode["done"].sum())
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu
    info = {"num_envs": num_envs, "threads": threads, "episodes_ended": episodes,
            "rules": RULES}
    name = f"VectorUnoEnv N={num_envs} threads={threads}"
    return (Result(f"{name}, loop", episodes, done, seconds,
                   info={**info, "cpu_seconds": cpu_seconds,
                         "cpu_steps_per_s": done / cpu_seconds}),
            Result(f"{name}, step()", episodes, done, in_step,
                   info={**info, "cpu_seconds": cpu_in_step,
                         "cpu_steps_per_s": done / cpu_in_step}))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, default=4096, help="games stepped together")
    parser.add_argument("--threads", type=int, nargs="+", default=[1],
                        help="numba threads to time the vectorised env with (1)")
    parser.add_argument("--vector-steps", type=int, default=4_096_000,
                        help="steps per vectorised run (4096000)")
    parser.add_argument("--steps", type=int, default=50_000,
                        help="steps per run of the one-game environments (50000)")
    parser.add_argument("--seed", type=int, default=0, help="base seed (0)")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is kept (3)")
    parser.add_argument("--no-rlcard", action="store_true", help="leave RLCard out")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results here")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV, help="RLCard's venv")
    parser.add_argument("--venv-python", default=sys.executable,
                        help="interpreter that creates RLCard's venv (default: this one)")
    args = parser.parse_args(argv)
    for name in ("num_envs", "vector_steps", "steps", "repeat"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if min(args.threads) < 1:
        parser.error("--threads must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    load_before = os.getloadavg()
    runs: dict[str, Any] = {}
    if not args.no_rlcard:
        python = ensure_rlcard_venv(args.venv, args.venv_python, False)
        runs["rlcard"] = lambda: [run_rlcard(python, args.steps, args.seed)]
    runs["raw_sim"] = lambda: [run_unokit(args.steps, args.seed, False, "sim")]
    runs["env_sim"] = lambda: [run_unokit(args.steps, args.seed, True, "sim")]
    for threads in args.threads:
        runs[f"vector_{threads}"] = (
            lambda t=threads: list(run_vector(args.num_envs, args.vector_steps, args.seed, t)))
    best: dict[str, Result] = {}
    for _ in range(args.repeat):
        for key, run in runs.items():
            for index, result in enumerate(run()):
                name = f"{key}:{index}"
                kept = best.get(name)
                better = kept is None or result.steps_per_s > kept.steps_per_s
                best[name] = add_run(kept, result)
                if better:  # the figures of the best run, its CPU time included
                    best[name].info = result.info
    load_after = os.getloadavg()
    print(f"random 2-player UNO (official, one round), seed {args.seed}, best of "
          f"{args.repeat}")
    print(format_table(list(best.values())))
    base = best.get("rlcard:0")
    pz = best["raw_sim:0"]
    ratios: dict[str, dict[str, float]] = {}
    for name, result in best.items():
        if not name.startswith("vector"):
            continue
        ratios[result.env] = {"over_raw_env_sim": result.steps_per_s / pz.steps_per_s}
        line = (f"{result.env}: {result.steps_per_s:,.0f} steps/s wall, "
                f"{result.info['cpu_steps_per_s']:,.0f} per CPU-second; "
                f"{ratios[result.env]['over_raw_env_sim']:.1f}x raw_env (sim)")
        if base is not None:
            ratios[result.env]["over_rlcard"] = result.steps_per_s / base.steps_per_s
            line += f", {ratios[result.env]['over_rlcard']:.1f}x RLCard"
        print(line)
    print(f"(Python {platform.python_version()}; {platform.machine()}, {os.cpu_count()} "
          f"CPUs; load average before {' '.join(f'{x:.2f}' for x in load_before)}, after "
          f"{' '.join(f'{x:.2f}' for x in load_after)})")
    if args.json is not None:
        report = {"benchmark": "vector_env_vs_rlcard", "args": {
            k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
            "results": {key: r.to_json() for key, r in best.items()}, "ratios": ratios,
            "load_before": load_before, "load_after": load_after,
            "platform": platform.platform(), "cpu_count": os.cpu_count()}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
