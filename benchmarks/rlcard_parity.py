"""Parity check: unokit's RLCard compatibility mode against RLCard 1.2.0's UNO, in one run.

What it compares
    ``--games`` random 2-player games in each implementation:

    - RLCard: its bare engine ``rlcard.games.uno.game.UnoGame`` with its own random numbers
      (``numpy.random.RandomState(seed)``), in a subprocess (``_rlcard_parity_worker.py``)
      running in RLCard's virtual environment ``.bench/rlcard-1.2.0`` (created on first use
      as ``engine_vs_rlcard.py`` does).
    - unokit: ``unokit.rl.rlcard_compat.RLCardUnoGame`` with SplitMix64(seed), in this
      process.

    The policy is the same on both sides: each action uniform over the distinct legal action
    ids (RLCard's ``RandomAgent``), drawn with a ``random.Random(seed)``. The *length* of a
    game is the number of actions taken (``step`` calls) from the deal to the end.

    Statistics, each with a verdict "agree within statistical error" (p-value at least
    ``--alpha``, default 0.01) or "differ":

    - mean game length: both means with 95% confidence intervals; a two-sample z-test
      (Welch) on the difference;
    - the length distribution: two-sample Kolmogorov-Smirnov statistic with its asymptotic
      p-value (conservative for integer data);
    - the win rate of seat 0 (seat 1 wins the rest: no ties in a 2-player game) with 95%
      confidence intervals (Wilson); a two-proportion z-test.

    Also, unless ``--exact 0``: a replay check. RLCard's env (``rlcard.make("uno")``) is run
    with its random numbers taken from SplitMix64 instead of numpy, and the actions drawn
    with a second SplitMix64; unokit's ``RLCardUnoEnv`` with the same seeds must return the
    very same states (player, observation planes, legal ids, raw state) at every step and
    the same payoffs, game after game (compared as one SHA-256 per game).

How to run
    .venv/bin/python benchmarks/rlcard_parity.py                    # 20,000 games each
    .venv/bin/python benchmarks/rlcard_parity.py --games 5000 --exact 200 --json parity.json
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _rlcard_replay import replay_digests
from engine_vs_rlcard import (
    DEFAULT_VENV,
    RLCARD_VERSION,
    ensure_rlcard_venv,
    import_unokit,
)

WORKER = Path(__file__).resolve().parent / "_rlcard_parity_worker.py"
AGREE = "agree within statistical error"
DIFFER = "differ"


# --- the two sides -------------------------------------------------------------------------


def run_worker(python: Path, mode: str, games: int, seed: int) -> dict[str, Any]:
    cmd = [str(python), str(WORKER), "--mode", mode, "--games", str(games), "--seed", str(seed)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        sys.exit(f"error: RLCard parity worker failed (exit {proc.returncode}): {' '.join(cmd)}")
    lines = proc.stdout.strip().splitlines()
    if not lines:
        sys.exit(f"error: RLCard parity worker printed nothing: {' '.join(cmd)}")
    data: dict[str, Any] = json.loads(lines[-1])
    return data


def play_unokit(games: int, seed: int) -> dict[str, Any]:
    """Random games in the compat mode: lengths, winners, games stopped for want of cards."""
    import_unokit()
    from unokit.rl.rlcard_compat import DeckExhaustedError, RLCardUnoGame, random_game

    rng = random.Random(seed)
    game = RLCardUnoGame(2, seed)
    lengths: list[int] = []
    winners: list[int] = []
    errors = 0
    for i in range(games):
        if i:
            game.init_game()
        try:
            steps, winner = random_game(game, rng.randrange)
        except DeckExhaustedError:
            errors += 1
            continue
        lengths.append(steps)
        winners.append(winner)
    return {"lengths": lengths, "winners": winners, "errors": errors}


def exact_digests(games: int, seed: int) -> list[str]:
    """unokit's side of the replay check (``_rlcard_parity_worker.play_exact``)."""
    import_unokit()
    from unokit.engine.rng import SplitMix64
    from unokit.rl.rlcard_compat import RLCardUnoEnv

    return replay_digests(RLCardUnoEnv({"seed": seed}), SplitMix64(seed + 1), games)


# --- statistics (standard library only) -----------------------------------------------------


def normal_sf2(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def mean_ci(xs: list[int]) -> tuple[float, float, float, float]:
    """Mean, standard deviation and the 95% confidence interval of the mean."""
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = 1.959964 * sd / math.sqrt(n)
    return mean, sd, mean - half, mean + half


def welch_z(a: list[int], b: list[int]) -> tuple[float, float]:
    """z statistic and two-sided p-value of the difference of two means."""
    ma, sa, _, _ = mean_ci(a)
    mb, sb, _, _ = mean_ci(b)
    z = (ma - mb) / math.sqrt(sa * sa / len(a) + sb * sb / len(b))
    return z, normal_sf2(z)


def ks_2samp(a: list[int], b: list[int]) -> tuple[float, float]:
    """Two-sample Kolmogorov-Smirnov statistic D and its asymptotic p-value (Kolmogorov's
    distribution with Stephens' small-sample correction)."""
    xs, ys = sorted(a), sorted(b)
    n, m = len(xs), len(ys)
    i = j = 0
    d = 0.0
    while i < n and j < m:
        v = min(xs[i], ys[j])
        while i < n and xs[i] == v:
            i += 1
        while j < m and ys[j] == v:
            j += 1
        d = max(d, abs(i / n - j / m))
    en = math.sqrt(n * m / (n + m))
    lam = (en + 0.12 + 0.11 / en) * d
    if lam < 1e-3:
        return d, 1.0
    p = 2.0 * sum((-1) ** (k - 1) * math.exp(-2.0 * k * k * lam * lam) for k in range(1, 101))
    return d, min(1.0, max(0.0, p))


def wilson(k: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k/n."""
    z = 1.959964
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def two_proportion_z(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """Pooled two-proportion z statistic and two-sided p-value."""
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    z = 0.0 if se == 0 else (k1 / n1 - k2 / n2) / se
    return z, normal_sf2(z)


def quantiles(xs: list[int]) -> dict[str, int]:
    s = sorted(xs)
    return {f"p{q}": s[min(len(s) - 1, int(q / 100 * len(s)))] for q in (10, 50, 90, 99)}


def compare(rl: dict[str, Any], uk: dict[str, Any], alpha: float) -> dict[str, Any]:
    """Every statistic of both sides, its test and its verdict."""
    a, b = rl["lengths"], uk["lengths"]
    out: dict[str, Any] = {"alpha": alpha}
    sides = {}
    for name, data in (("rlcard", rl), ("unokit", uk)):
        mean, sd, lo, hi = mean_ci(data["lengths"])
        wins0 = sum(1 for w in data["winners"] if w == 0)
        games = len(data["winners"])
        sides[name] = {
            "games": games, "errors": data["errors"],
            "length_mean": mean, "length_sd": sd, "length_mean_ci95": [lo, hi],
            "length_min": min(data["lengths"]), "length_max": max(data["lengths"]),
            **{f"length_{k}": v for k, v in quantiles(data["lengths"]).items()},
            "seat0_wins": wins0, "seat0_win_rate": wins0 / games,
            "seat0_win_rate_ci95": list(wilson(wins0, games)),
            "seat1_win_rate": 1 - wins0 / games,
            "seat1_win_rate_ci95": [1 - x for x in reversed(wilson(wins0, games))],
        }
    out["sides"] = sides
    z, p = welch_z(a, b)
    out["length_mean"] = {"test": "Welch z", "statistic": z, "p_value": p}
    d, p = ks_2samp(a, b)
    out["length_distribution"] = {"test": "two-sample Kolmogorov-Smirnov", "statistic": d,
                                  "p_value": p}
    r, u = sides["rlcard"], sides["unokit"]
    z, p = two_proportion_z(r["seat0_wins"], r["games"], u["seat0_wins"], u["games"])
    out["seat0_win_rate"] = {"test": "two-proportion z", "statistic": z, "p_value": p}
    for key in ("length_mean", "length_distribution", "seat0_win_rate"):
        out[key]["verdict"] = AGREE if out[key]["p_value"] >= alpha else DIFFER
    return out


def report(result: dict[str, Any]) -> str:
    r, u = result["sides"]["rlcard"], result["sides"]["unokit"]
    lines = [f"{'':24}{'RLCard ' + RLCARD_VERSION:>24}{'unokit compat':>24}"]

    def row(label: str, left: str, right: str) -> None:
        lines.append(f"{label:24}{left:>24}{right:>24}")

    row("games (stopped: no cards)", f"{r['games']:,} ({r['errors']})",
        f"{u['games']:,} ({u['errors']})")
    row("mean length [95% CI]",
        *(f"{s['length_mean']:.2f} [{s['length_mean_ci95'][0]:.2f}, "
          f"{s['length_mean_ci95'][1]:.2f}]" for s in (r, u)))
    row("sd; p10/p50/p90/p99", *(f"{s['length_sd']:.1f}; {s['length_p10']}/{s['length_p50']}/"
                                 f"{s['length_p90']}/{s['length_p99']}" for s in (r, u)))
    row("seat 0 wins [95% CI]", *(f"{s['seat0_win_rate']:.4f} [{s['seat0_win_rate_ci95'][0]:.4f}"
                                  f", {s['seat0_win_rate_ci95'][1]:.4f}]" for s in (r, u)))
    row("seat 1 wins [95% CI]", *(f"{s['seat1_win_rate']:.4f} [{s['seat1_win_rate_ci95'][0]:.4f}"
                                  f", {s['seat1_win_rate_ci95'][1]:.4f}]" for s in (r, u)))
    lines.append("")
    for key, label in (("length_mean", "mean length"), ("length_distribution", "length dist."),
                       ("seat0_win_rate", "seat win rates")):
        t = result[key]
        lines.append(f"{label:15} {t['test']}: {t['statistic']:+.4f}, p = {t['p_value']:.3f}"
                     f" -> {t['verdict']}")
    exact = result.get("exact")
    if exact:
        lines.append(f"replay check    {exact['identical']}/{exact['games']} games identical "
                     f"step by step -> {exact['verdict']}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=f"Random 2-player games: unokit's RLCard mode vs RLCard {RLCARD_VERSION}.")
    parser.add_argument("--games", type=int, default=20_000, help="games per side (20000)")
    parser.add_argument("--seed", type=int, default=0, help="seed (0)")
    parser.add_argument("--alpha", type=float, default=0.01,
                        help="a test with a smaller p-value says 'differ' (0.01)")
    parser.add_argument("--exact", type=int, default=1000, metavar="K",
                        help="games of the replay check (1000; 0: skip it)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results here")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV,
                        help="RLCard's venv (.bench/rlcard-1.2.0)")
    parser.add_argument("--venv-python", default=sys.executable,
                        help="interpreter that creates RLCard's venv (default: this one)")
    parser.add_argument("--recreate-venv", action="store_true", help="rebuild RLCard's venv")
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error("--games must be at least 2")
    if args.exact < 0 or args.seed < 0 or not 0 < args.alpha < 1:
        parser.error("--exact and --seed must be non-negative, --alpha in (0, 1)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    python = ensure_rlcard_venv(args.venv, args.venv_python, args.recreate_venv)
    start = time.perf_counter()
    rl = run_worker(python, "random", args.games, args.seed)
    uk = play_unokit(args.games, args.seed)
    result = compare(rl, uk, args.alpha)
    if args.exact:
        theirs = run_worker(python, "exact", args.exact, args.seed)["digests"]
        ours = exact_digests(args.exact, args.seed)
        same = sum(1 for x, y in zip(theirs, ours, strict=True) if x == y)
        result["exact"] = {"games": args.exact, "identical": same,
                           "verdict": "identical" if same == args.exact else DIFFER}
    verdicts = [result[k]["verdict"] for k in
                ("length_mean", "length_distribution", "seat0_win_rate")]
    result["verdict"] = AGREE if all(v == AGREE for v in verdicts) else DIFFER
    if "exact" in result and result["exact"]["verdict"] != "identical":
        result["verdict"] = DIFFER
    print(f"random 2-player games, {args.games:,} per side, seed {args.seed}, "
          f"alpha {args.alpha}")
    print(report(result))
    print(f"overall: {result['verdict']} ({time.perf_counter() - start:.0f} s; "
          f"Python {platform.python_version()})")
    if args.json is not None:
        data = {"benchmark": "rlcard_parity", "games": args.games, "seed": args.seed,
                "rlcard_version": rl.get("rlcard_version"),
                "numpy_version": rl.get("numpy_version"), **result}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=2) + "\n")
    return 0 if result["verdict"] == AGREE else 1


if __name__ == "__main__":
    sys.exit(main())
