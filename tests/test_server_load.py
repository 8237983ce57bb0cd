"""The load benchmark runs end to end on a few rooms (its figures are not checked here:
they are measured by ``benchmarks/server_load.py`` itself, never by a unit test). Each
run plays until a number of actions has been measured (``--min-actions``), not for a
time, so that a busy machine only makes it slower."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from redis_kit import redis_url

ROOT = Path(__file__).resolve().parent.parent

@pytest.mark.parametrize("client", ["sansio", "unokit"])
def test_the_load_benchmark_plays_every_room_without_an_error(client: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "server_load.py"), "--rooms", "6",
         "--seconds", "0", "--warmup", "0", "--min-actions", "12", "--workers", "2",
         "--client", client],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rooms started 6," in done.stdout
    assert "errors 0," in done.stdout
    played = re.search(r"actions (\d+) \((\d+) measured\)", done.stdout)
    assert played is not None and int(played[2]) >= 12, done.stdout
    assert "latency action -> last broadcast (ms): p50" in done.stdout
    assert ("of unokit.client" in done.stdout) == (client == "unokit")


def test_an_unpaced_run_plays_matches_that_outlast_it() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "server_load.py"), "--rooms", "4",
         "--seconds", "0", "--warmup", "0", "--min-actions", "40", "--workers", "1",
         "--unpaced"],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rules official,players=4,target_score=100000;" in done.stdout
    assert "matches ended 0," in done.stdout
    assert "note:" not in done.stdout
    played = re.search(r"actions (\d+) \((\d+) measured\)", done.stdout)
    assert played is not None and int(played[2]) >= 40, done.stdout


def test_rooms_with_server_bots_report_their_clients_latency() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "UNOKIT_BOT_WORKERS": "1"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "server_load.py"), "--rooms", "2",
         "--bot-rooms", "3", "--bot-level", "search:300", "--seconds", "0", "--warmup", "0",
         "--min-actions", "6", "--min-bot-actions", "6", "--workers", "1"],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "errors 0," in done.stdout
    found = re.search(r"bot rooms \(1 client \+ search:300 bots\) started (\d+), client "
                      r"actions measured (\d+); their latency action -> broadcast \(ms\): "
                      r"p50 [\d.]+ ", done.stdout)
    assert found is not None, done.stdout
    assert int(found[1]) == 3 and int(found[2]) >= 6, done.stdout


def test_two_server_processes_on_postgresql_and_redis_share_the_load(
        postgres_url: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "server_load.py"), "--rooms", "4",
         "--seconds", "0", "--warmup", "0", "--min-actions", "12", "--workers", "1",
         "--processes", "2", "--database-url", postgres_url, "--redis-url", redis_url()],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 server processes, Redis;" in done.stdout
    assert "rooms started 4," in done.stdout and "errors 0," in done.stdout
    played = re.search(r"actions (\d+) \((\d+) measured\)", done.stdout)
    assert played is not None and int(played[2]) >= 12, done.stdout
    assert "2 client processes" in done.stdout  # one per server process, at least
