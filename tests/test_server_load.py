"""The load benchmark runs end to end on a few rooms (its figures are not checked here:
they are measured by ``benchmarks/server_load.py`` itself, never by a unit test)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_load_benchmark_plays_every_room_without_an_error() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "server_load.py"), "--rooms", "6",
         "--seconds", "2", "--warmup", "1", "--workers", "2"],
        capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rooms started 6," in done.stdout
    assert "errors 0," in done.stdout
    assert "latency action -> last broadcast (ms): p50" in done.stdout
