"""Decisions per second: unokit's engine against RLCard 1.2.0's UNO engine.

What it measures
    Random 2-player UNO games, played to the end in each engine, one engine after the other in
    the same run on the same machine, with the same number of games and the same seed.  A
    *decision* is one action applied by a player: one ``game.apply(action)`` in unokit, one
    ``game.step(action)`` in RLCard.  Each action is chosen uniformly at random among the
    current player's legal actions with a ``random.Random(seed)``; game ``i`` is seeded with
    ``seed + i``.  The timed region (``time.perf_counter``) is the whole loop over the games:
    creating/dealing each game and every decision.  Nothing else is timed: not the virtual
    environment set-up, not interpreter start-up, not imports.

    - unokit: ``Game(Rules.from_dict({"preset": "official", "players": 2, "rounds": 1}),
      seed=...)``, in this process (the project's own venv).
    - RLCard: the bare engine ``rlcard.games.uno.game.UnoGame`` (not ``rlcard.make("uno")``
      and its observation encoding), in a subprocess running ``_rlcard_uno_worker.py`` in a
      separate virtual environment that this script creates on first use under
      ``.bench/rlcard-1.2.0/`` with ``<this python> -m venv`` and ``pip install rlcard==1.2.0
      numpy``.  The venv carries its own ``.gitignore``, so git never picks it up.

    With ``--repeat K`` both engines are timed K times, alternating (RLCard, unokit, RLCard,
    ...), and the fastest time of each is reported.  The two engines do not play the same
    games (their rules, deals and hence decisions per game differ), so compare decisions/s;
    games/s is shown for information.

How to run
    .venv/bin/python benchmarks/engine_vs_rlcard.py                  # 2000 games each, best of 3
    .venv/bin/python benchmarks/engine_vs_rlcard.py --games 500 --repeat 1 --json bench.json
    .venv/bin/python benchmarks/engine_vs_rlcard.py --engines rlcard  # only RLCard's half

The first run needs the PyPI registry to build RLCard's venv (about 15 s); later runs reuse it
(``--recreate-venv`` rebuilds it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

RLCARD_VERSION = "1.2.0"
REPO_ROOT = Path(__file__).resolve().parent.parent
WORKER = Path(__file__).resolve().parent / "_rlcard_uno_worker.py"
DEFAULT_VENV = REPO_ROOT / ".bench" / f"rlcard-{RLCARD_VERSION}"
# Written into the venv once RLCard is installed and a smoke run has passed.
READY_MARKER = ".unokit-bench-ready.json"
# A random game that runs this long is a bug (in the engine or here), not a slow game.
MAX_DECISIONS_PER_GAME = 100_000
RULES = {"preset": "official", "players": 2, "rounds": 1}


@dataclass
class Result:
    """Timings of one engine: the fastest of ``runs`` and every run's seconds."""

    engine: str
    version: str
    games: int
    decisions: int
    seconds: float
    runs: list[float] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["decisions_per_s"] = self.decisions_per_s
        data["games_per_s"] = self.games_per_s
        data["decisions_per_game"] = self.decisions / self.games
        return data


def add_run(best: Result | None, run: Result) -> Result:
    """Fold one timed run into the best-so-far result of the same engine."""
    if best is None:
        run.runs = [run.seconds]
        return run
    if run.decisions != best.decisions:
        # Same seeds must give the same games; if not, the engine is not deterministic.
        print(
            f"warning: {run.engine} played {run.decisions} decisions this run, "
            f"{best.decisions} before (same seed)",
            file=sys.stderr,
        )
    best.runs.append(run.seconds)
    if run.seconds < best.seconds:
        best.decisions, best.seconds = run.decisions, run.seconds
    return best


# --- RLCard: its own virtual environment and a worker subprocess --------------------------


def venv_python(venv: Path) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def ensure_rlcard_venv(venv: Path, base_python: str, recreate: bool) -> Path:
    """Create ``venv`` with RLCard installed unless it is already there; return its python."""
    python = venv_python(venv)
    if not recreate and (venv / READY_MARKER).is_file() and python.exists():
        return python
    if venv.exists() and any(venv.iterdir()) and not (venv / "pyvenv.cfg").is_file():
        sys.exit(f"error: {venv} exists and is not a virtual environment; not touching it")
    print(f"setting up RLCard {RLCARD_VERSION} in {venv} (once) ...", file=sys.stderr)
    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([base_python, "-m", "venv", str(venv)], check=True)
    # Keep the venv out of git whatever the repo's .gitignore says (as Python 3.13's venv does).
    (venv / ".gitignore").write_text("# created by benchmarks/engine_vs_rlcard.py\n*\n")
    # rlcard 1.2.0 is an sdist only (no wheel): pip builds it, fetching setuptools to do so.
    # It declares numpy>=1.16.3 and termcolor; it imports and runs with numpy 2.x.
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "--quiet"]
    try:
        subprocess.run([*pip, "install", f"rlcard=={RLCARD_VERSION}", "numpy"], check=True)
    except subprocess.CalledProcessError as exc:
        sys.exit(f"error: could not install rlcard {RLCARD_VERSION} into {venv} ({exc})")
    smoke = run_rlcard_worker(python, games=3, seed=0)  # imports and plays, or fails loudly
    if smoke.info.get("rlcard_version") != RLCARD_VERSION:
        sys.exit(f"error: expected rlcard {RLCARD_VERSION} in {venv}, got {smoke.info}")
    (venv / READY_MARKER).write_text(json.dumps(smoke.info, indent=2) + "\n")
    return python


def run_rlcard_worker(python: Path, games: int, seed: int) -> Result:
    cmd = [str(python), str(WORKER), "--games", str(games), "--seed", str(seed)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        sys.exit(f"error: RLCard worker failed (exit {proc.returncode}): {' '.join(cmd)}")
    lines = proc.stdout.strip().splitlines()
    if not lines:
        sys.exit(f"error: RLCard worker printed nothing: {' '.join(cmd)}")
    data = json.loads(lines[-1])
    info = {k: v for k, v in data.items() if k not in ("games", "decisions", "seconds")}
    return Result(
        engine="rlcard",
        version=str(data.get("rlcard_version", "?")),
        games=int(data["games"]),
        decisions=int(data["decisions"]),
        seconds=float(data["seconds"]),
        info=info,
    )


# --- unokit: in this process --------------------------------------------------------------


def import_unokit() -> Any:
    """Import unokit, falling back to the repo's src/ when it is not installed."""
    try:
        import unokit
    except ImportError:
        sys.path.insert(0, str(REPO_ROOT / "src"))
        import unokit
    if not hasattr(unokit, "Game") or not hasattr(unokit, "Rules"):
        sys.exit(f"error: {unokit.__file__} has no Game/Rules yet; try --engines rlcard")
    return unokit


def run_unokit(games: int, seed: int) -> Result:
    unokit = import_unokit()
    Game, Rules = unokit.Game, unokit.Rules
    rules = Rules.from_dict(RULES)
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for i in range(games):
        game = Game(rules, seed=(seed + i) % 2**32)
        n = 0
        while not game.is_over():
            p = game.current_player
            acts = game.legal_actions(p)
            game.apply(acts[rng.randrange(len(acts))])
            n += 1
            if n > MAX_DECISIONS_PER_GAME:
                raise RuntimeError(f"game {i} ran past {MAX_DECISIONS_PER_GAME} decisions")
        decisions += n
    seconds = time.perf_counter() - start
    return Result(
        engine="unokit",
        version=str(getattr(unokit, "__version__", "?")),
        games=games,
        decisions=decisions,
        seconds=seconds,
        info={
            "python": platform.python_version(),
            "python_implementation": platform.python_implementation(),
            "rules": RULES,
        },
    )


# --- report ---------------------------------------------------------------------------------


def format_table(results: list[Result]) -> str:
    header = ("engine", "games", "decisions", "seconds", "decisions/s", "games/s")
    rows = [
        (
            f"{r.engine} {r.version}",
            f"{r.games:,}",
            f"{r.decisions:,}",
            f"{r.seconds:.3f}",
            f"{r.decisions_per_s:,.0f}",
            f"{r.games_per_s:,.1f}",
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: tuple[str, ...]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest])

    return "\n".join([line(header), line(tuple("-" * w for w in widths)), *map(line, rows)])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Decisions per second of random 2-player UNO games: unokit vs RLCard "
        f"{RLCARD_VERSION}'s engine.",
    )
    parser.add_argument("--games", type=int, default=2000, help="games per engine (2000)")
    parser.add_argument("--seed", type=int, default=0, help="base seed (0)")
    parser.add_argument("--repeat", type=int, default=3, help="time K times, keep the best (3)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results here")
    parser.add_argument(
        "--engines",
        choices=("both", "rlcard", "unokit"),
        default="both",
        help="which engines to time (both)",
    )
    parser.add_argument(
        "--venv", type=Path, default=DEFAULT_VENV, help="RLCard's venv (.bench/rlcard-1.2.0)"
    )
    parser.add_argument(
        "--venv-python",
        default=sys.executable,
        help="interpreter that creates RLCard's venv (default: this one, for a like-for-like "
        "Python version)",
    )
    parser.add_argument("--recreate-venv", action="store_true", help="rebuild RLCard's venv first")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.seed < 0:
        parser.error("--seed must be non-negative")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    want_rlcard = args.engines in ("both", "rlcard")
    want_unokit = args.engines in ("both", "unokit")

    # Set-up first, outside every timing.
    rlcard_python = None
    if want_rlcard:
        rlcard_python = ensure_rlcard_venv(args.venv, args.venv_python, args.recreate_venv)
    if want_unokit:
        import_unokit()

    best_rlcard: Result | None = None
    best_unokit: Result | None = None
    for _ in range(args.repeat):
        if rlcard_python is not None:
            best_rlcard = add_run(
                best_rlcard, run_rlcard_worker(rlcard_python, args.games, args.seed)
            )
        if want_unokit:
            best_unokit = add_run(best_unokit, run_unokit(args.games, args.seed))
    results = [r for r in (best_rlcard, best_unokit) if r is not None]

    print(
        f"random 2-player UNO, {args.games:,} games per engine, seed {args.seed}, "
        f"best of {args.repeat}"
    )
    print(format_table(results))
    ratio = None
    if best_rlcard is not None and best_unokit is not None:
        ratio = best_unokit.decisions_per_s / best_rlcard.decisions_per_s
        print(f"ratio (unokit / rlcard): {ratio:.2f}x")
    pythons = {f"{r.engine}: Python {r.info.get('python', '?')}" for r in results}
    extra = ""
    if best_rlcard is not None:
        extra = f", rlcard numpy {best_rlcard.info.get('numpy_version', '?')}"
    print(f"({', '.join(sorted(pythons))}{extra}; {platform.machine()}, {os.cpu_count()} CPUs)")

    if args.json is not None:
        report = {
            "benchmark": "engine_vs_rlcard",
            "games": args.games,
            "seed": args.seed,
            "repeat": args.repeat,
            "results": {r.engine: r.to_json() for r in results},
            "ratio_unokit_over_rlcard": ratio,
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
