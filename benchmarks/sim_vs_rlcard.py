"""Games per second: unokit's compiled simulator against RLCard 1.2.0's UNO engine.

What it measures
    Two-player UNO games played to the end, in the same run on the same machine:

    - RLCard: its bare engine ``rlcard.games.uno.game.UnoGame`` in its own virtual
      environment (``.bench/rlcard-1.2.0``, built on first use by ``engine_vs_rlcard.py``'s
      ``ensure_rlcard_venv``), through ``_rlcard_uno_worker.py``: each action uniform among
      RLCard's legal actions, game ``i`` dealt from ``RandomState(seed + i)``. RLCard lists
      ``draw`` only when no card can be played, so its random games are about 46 actions
      long.
    - unokit's simulator (``unokit.sim``) on ``official,players=2,rounds=1`` (one round
      per game, as RLCard plays), with three policies:

      * ``random``: uniform over the legal actions, which under the official rules
        include drawing while holding a playable card (``draw_when_playable = true``), so
        games run to about 1,000 actions;
      * ``random`` with ``draw_when_playable = false``: the closest match to RLCard's
        random play (drawing only when nothing can be played; about 75 actions);
      * ``playfirst``: a random playable card whenever there is one, else draw (about 46
        actions, RLCard's game length).

    The timed region is the loop over the games: dealing and every action (RLCard: the
    worker's own timer; unokit: one call of the compiled kernel per process, after it is
    loaded). With ``--jobs J`` each engine runs in J processes at once, each on a disjoint
    seed range with ``1/J`` of the games; games/s is all the games over the slowest
    process's time. Each figure is the best of ``--repeat`` runs, the engines taking turns
    run after run so that both meet the same load.

    Then the parity check: ``--parity-games`` games of the timed configurations (the same
    seeds) are played again on the reference engine (``unokit.Game`` driven by
    ``unokit.sim.policies``) and must match the simulator's winner, scores, number of
    actions and digest of the action sequence, game for game.

    With ``--presets`` it times instead each named preset (``all``: every preset the
    simulator plays), one round per game with playfirst at the smallest table the preset
    allows (2 players; 4 for the team presets ``pairs`` and ``online``), against the same
    RLCard runs, and prints one row per preset: unokit games/s, RLCard games/s and their
    ratio, and the ratio of games per second of CPU time (each engine's own process time,
    which other work on a busy machine changes less than the wall time). Its parity check
    splits ``--parity-games`` over the presets.

How to run
    .venv/bin/python benchmarks/sim_vs_rlcard.py                    # jobs 1 and 2, parity 100,000
    .venv/bin/python benchmarks/sim_vs_rlcard.py --jobs 1 --parity-games 2000 --json out.json
    .venv/bin/python benchmarks/sim_vs_rlcard.py --presets all --jobs 1 --parity-games 20000

The first run needs the package index to build RLCard's venv; later runs reuse it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine_vs_rlcard import (
    DEFAULT_VENV,
    RLCARD_VERSION,
    WORKER,
    ensure_rlcard_venv,
    import_unokit,
)

RULES = "official,players=2,rounds=1"
CONFIGS = {
    "random": (RULES, "random"),
    "random-no-draw-when-playable": (RULES + ",draw_when_playable=false", "random"),
    "playfirst": (RULES, "playfirst"),
}
"""Name -> (rules, policy) of the simulator runs."""


def preset_config(preset: str) -> tuple[str, str]:
    """The rules and policy a preset is timed with (``--presets``): one round, playfirst,
    at the smallest table the preset allows."""
    from unokit.engine.rules import Rules

    players = 4 if Rules.preset(preset).teams == "pairs" else 2
    return f"{preset},players={players},rounds=1", "playfirst"


def add_preset_configs(presets: list[str]) -> list[str]:
    """Add a configuration ``preset:NAME`` for each preset; return their names."""
    names = []
    for preset in presets:
        CONFIGS[f"preset:{preset}"] = preset_config(preset)
        names.append(f"preset:{preset}")
    return names


@dataclass
class Timing:
    """One engine/configuration at one number of jobs: the best run."""

    engine: str
    config: str
    jobs: int
    games: int
    actions: int
    seconds: float
    cpu_seconds: float = 0.0
    """The CPU time of the slowest process (a figure that other work on the machine
    changes less than the wall time)."""

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def games_per_cpu_s(self) -> float:
        return self.games / self.cpu_seconds if self.cpu_seconds > 0 else float("nan")

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(games_per_s=self.games_per_s, games_per_cpu_s=self.games_per_cpu_s,
                    actions_per_s=self.actions_per_s,
                    actions_per_game=self.actions / self.games)
        return data


def best(runs: list[Timing]) -> Timing:
    """The fastest run by wall time, carrying the lowest CPU time of the runs."""
    fastest = min(runs, key=lambda t: t.seconds)
    fastest.cpu_seconds = min(t.cpu_seconds for t in runs)
    return fastest


# --- RLCard ---------------------------------------------------------------------------------
def time_rlcard(python: Path, games: int, seed: int, jobs: int) -> Timing:
    """RLCard in ``jobs`` worker processes at once, each with its share of the games."""
    share = games // jobs
    procs = [subprocess.Popen([str(python), str(WORKER), "--games", str(share), "--seed",
                               str(seed + k * share)], stdout=subprocess.PIPE, text=True)
             for k in range(jobs)]
    results = []
    for proc in procs:
        out, _ = proc.communicate()
        if proc.returncode != 0:
            sys.exit(f"error: RLCard worker failed (exit {proc.returncode})")
        results.append(json.loads(out.strip().splitlines()[-1]))
    return Timing("rlcard", "random", jobs, sum(r["games"] for r in results),
                  sum(r["decisions"] for r in results), max(r["seconds"] for r in results),
                  max(r["cpu_seconds"] for r in results))


# --- unokit's simulator ---------------------------------------------------------------------
def _sim_job(rules_text: str, policy: str, seed: int, games: int, barrier: Any,
             out: Any) -> None:
    from unokit.engine.rules import Rules
    from unokit.sim.runner import COLUMNS, Simulator

    sim = Simulator(Rules.from_string(rules_text), policy)
    sim.run(seed, 10)  # load the compiled kernel
    if barrier is not None:
        barrier.wait()
    start = time.perf_counter()
    cpu_start = time.process_time()
    table, _, _ = sim.run(seed, games)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    out.put((games, int(table[:, COLUMNS.index("actions")].sum()), seconds, cpu_seconds))


def time_sim(config: str, games: int, seed: int, jobs: int) -> Timing:
    """The simulator in ``jobs`` processes at once (in this process for one job)."""
    rules_text, policy = CONFIGS[config]
    share = games // jobs
    if jobs == 1:
        import queue

        results: queue.Queue[tuple[int, int, float, float]] = queue.Queue()
        _sim_job(rules_text, policy, seed, share, None, results)
        done = [results.get()]
    else:
        context = multiprocessing.get_context("spawn")
        barrier = context.Barrier(jobs)
        queue_out = context.Queue()
        procs = [context.Process(target=_sim_job, args=(rules_text, policy, seed + k * share,
                                                        share, barrier, queue_out))
                 for k in range(jobs)]
        for proc in procs:
            proc.start()
        done = [queue_out.get() for _ in procs]
        for proc in procs:
            proc.join()
    return Timing("unokit-sim", config, jobs, sum(d[0] for d in done),
                  sum(d[1] for d in done), max(d[2] for d in done), max(d[3] for d in done))


# --- parity -----------------------------------------------------------------------------------
def _parity_chunk(task: tuple[str, str, str, int, int]) -> tuple[int, list[str]]:
    from unokit.engine.rules import Rules
    from unokit.sim.policies import play_reference
    from unokit.sim.runner import COLUMNS, Simulator

    config, rules_text, policy, first, count = task
    rules = Rules.from_string(rules_text)
    table, digests, scores = Simulator(rules, policy).run(first, count, keep_scores=True)
    assert scores is not None
    problems = []
    for i in range(count):
        ref = play_reference(rules, first + i, policy)
        mine = (int(table[i, COLUMNS.index("winner")]), [int(s) for s in scores[i]],
                int(table[i, COLUMNS.index("actions")]), int(digests[i]))
        if mine != (ref.winner, ref.scores, ref.actions, ref.digest):
            problems.append(f"{config} seed {first + i}: simulator {mine[:3]}, engine "
                            f"{(ref.winner, ref.scores, ref.actions)}")
    return count, problems


def parity(games: int, seed: int, jobs: int, configs: list[str] | None = None,
           ) -> tuple[dict[str, int], list[str]]:
    """``games`` games split over the configurations (without ``configs``: half
    playfirst, a quarter each random; else evenly over ``configs``), compared game for
    game with the engine in ``jobs`` processes."""
    if configs:
        shares = {config: games // len(configs) for config in configs}
    else:
        shares = {"playfirst": games // 2, "random-no-draw-when-playable": games // 4}
        shares["random"] = games - sum(shares.values())
    tasks = []
    for config, count in shares.items():
        for start in range(0, count, 500):
            tasks.append((config, *CONFIGS[config], seed + start, min(500, count - start)))
    checked = dict.fromkeys(shares, 0)
    problems: list[str] = []
    context = multiprocessing.get_context("spawn")
    with context.Pool(jobs) as pool:
        for (config, *_), (count, found) in zip(tasks, pool.imap(_parity_chunk, tasks),
                                                 strict=True):
            checked[config] += count
            problems += found
    return checked, problems


# --- report -----------------------------------------------------------------------------------
def table(rows: list[Timing]) -> str:
    header = ("engine", "policy / config", "jobs", "games", "actions", "seconds", "games/s",
              "actions/s", "actions/game")
    cells = [(r.engine, r.config, str(r.jobs), f"{r.games:,}", f"{r.actions:,}",
              f"{r.seconds:.3f}", f"{r.games_per_s:,.0f}", f"{r.actions_per_s:,.0f}",
              f"{r.actions / r.games:.1f}") for r in rows]
    widths = [max(len(c[i]) for c in [header, *cells]) for i in range(len(header))]

    def line(c: tuple[str, ...]) -> str:
        return "  ".join([c[0].ljust(widths[0]), c[1].ljust(widths[1]),
                          *(x.rjust(w) for x, w in zip(c[2:], widths[2:], strict=True))])

    return "\n".join([line(header), line(tuple("-" * w for w in widths)), *map(line, cells)])


def preset_table(rows: list[Timing], configs: list[str]) -> str:
    """One row per preset and number of jobs: unokit games/s, RLCard games/s, ratio."""
    header = ("preset", "rules timed", "jobs", "actions/game", "unokit games/s",
              "RLCard games/s", "ratio", "ratio, CPU time")
    cells = []
    for r in rows:
        if r.config not in configs:
            continue
        base = next((b for b in rows if b.engine == "rlcard" and b.jobs == r.jobs), None)
        ratio = f"{r.games_per_s / base.games_per_s:,.1f}x" if base else "-"
        cpu = f"{r.games_per_cpu_s / base.games_per_cpu_s:,.1f}x" if base else "-"
        cells.append((r.config.removeprefix("preset:"), CONFIGS[r.config][0], str(r.jobs),
                      f"{r.actions / r.games:.1f}", f"{r.games_per_s:,.0f}",
                      f"{base.games_per_s:,.0f}" if base else "-", ratio, cpu))
    widths = [max(len(c[i]) for c in [header, *cells]) for i in range(len(header))]

    def line(c: tuple[str, ...]) -> str:
        return "  ".join([c[0].ljust(widths[0]), c[1].ljust(widths[1]),
                          *(x.rjust(w) for x, w in zip(c[2:], widths[2:], strict=True))])

    return "\n".join([line(header), line(tuple("-" * w for w in widths)), *map(line, cells)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Games/s: unokit's simulator vs RLCard "
                                     f"{RLCARD_VERSION}, and a parity check on the engine.")
    parser.add_argument("--games", type=int, default=2000, help="RLCard games per run (2000)")
    parser.add_argument("--sim-games", type=int, default=200_000,
                        help="simulator games per run; a tenth of them for random on the "
                        "official rules, whose games are 20 times longer (200000)")
    parser.add_argument("--jobs", default="1,2", help="numbers of processes to time (1,2)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, best kept (3)")
    parser.add_argument("--seed", type=int, default=0, help="base seed (0)")
    parser.add_argument("--parity-games", type=int, default=100_000,
                        help="games compared with the engine (100000; 0 to skip)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV, help="RLCard's venv")
    parser.add_argument("--skip-rlcard", action="store_true", help="time the simulator only")
    parser.add_argument("--presets", help="time these presets (comma-separated, or all: "
                        "every preset the simulator plays) instead of the three "
                        "configurations of the official rules")
    args = parser.parse_args(argv)
    jobs_list = [int(j) for j in args.jobs.split(",") if j.strip()]
    if not jobs_list or min(jobs_list) < 1 or args.repeat < 1:
        parser.error("--jobs and --repeat must be at least 1")

    import_unokit()
    from unokit.sim.runner import warm_up
    from unokit.sim.support import SUPPORTED_PRESETS

    preset_configs: list[str] = []
    if args.presets:
        names = (list(SUPPORTED_PRESETS) if args.presets == "all"
                 else [n.strip() for n in args.presets.split(",") if n.strip()])
        unknown = [n for n in names if n not in SUPPORTED_PRESETS]
        if unknown or not names:
            parser.error(f"--presets: the simulator plays {', '.join(SUPPORTED_PRESETS)}; "
                         f"not {', '.join(unknown) or 'nothing'}")
        preset_configs = add_preset_configs(names)
    timed = preset_configs or list(CONFIGS)

    warm_up()  # compile once here, so that the worker processes load the cached code
    python = None if args.skip_rlcard else ensure_rlcard_venv(args.venv, sys.executable, False)
    rows: list[Timing] = []
    load_before = os.getloadavg()
    for jobs in jobs_list:
        # The engines take turns, run after run, so that both meet the same load.
        runs: dict[str, list[Timing]] = {}
        for _ in range(args.repeat):
            if python is not None:
                runs.setdefault("rlcard", []).append(
                    time_rlcard(python, args.games, args.seed, jobs))
            for config in timed:
                games = args.sim_games // 10 if config == "random" else args.sim_games
                runs.setdefault(config, []).append(time_sim(config, games, args.seed, jobs))
        rows += [best(found) for found in runs.values()]
    if preset_configs:
        print(f"games of one round, playfirst; best of {args.repeat}")
    else:
        print(f"2-player games, one round each; simulator rules {RULES}; best of {args.repeat}")
    print(table(rows))
    ratios: dict[str, float] = {}
    for jobs in jobs_list:
        base = next((r for r in rows if r.engine == "rlcard" and r.jobs == jobs), None)
        if base is None:
            continue
        for r in rows:
            if r.engine != "rlcard" and r.jobs == jobs:
                ratios[f"{r.config}@{jobs}"] = r.games_per_s / base.games_per_s
                print(f"games/s ratio, {jobs} job{'s' * (jobs > 1)}: simulator {r.config} / "
                      f"RLCard random = {r.games_per_s / base.games_per_s:,.1f}x")
    if preset_configs:
        print()
        print(preset_table(rows, preset_configs))
    load = f"{load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after"
    print(f"(Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; "
          f"load average {load}: other work on the machine slows both engines)")
    checked: dict[str, int] = {}
    problems: list[str] = []
    if args.parity_games:
        started = time.perf_counter()
        checked, problems = parity(args.parity_games, args.seed, max(jobs_list),
                                   preset_configs or None)
        print(f"parity with the engine: {sum(checked.values()):,} games "
              f"({', '.join(f'{k} {v:,}' for k, v in checked.items())}), "
              f"{len(problems)} different, {time.perf_counter() - started:.0f} s")
        for problem in problems[:10]:
            print("  " + problem)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "benchmark": "sim_vs_rlcard", "repeat": args.repeat,
            "rules": {name: CONFIGS[name][0] for name in timed},
            "results": [r.to_json() for r in rows], "ratios_games_per_s": ratios,
            "parity": {"checked": checked, "different": len(problems)},
            "platform": platform.platform(), "cpu_count": os.cpu_count(),
            "load_average_before": load_before[0],
        }, indent=2) + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
