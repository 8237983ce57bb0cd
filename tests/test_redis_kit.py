"""The tests' Redis: ``scripts/redis_test_server.sh`` starts a throwaway server and stops
it (deleting its folder), ``run`` hands a command the variable, and a test that needs
Redis without ``UNOKIT_TEST_REDIS_URL`` fails, saying how to start one."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from redis_kit import redis_url

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "redis_test_server.sh"


def ping(url: str) -> bool:
    host, port = url.removeprefix("redis://").split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(b"PING\r\n")
        return sock.recv(16).startswith(b"+PONG")


def script(*args: str, folder: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "UNOKIT_REDIS_DIR": str(folder)}
    env.pop("UNOKIT_TEST_REDIS_URL", None)
    return subprocess.run(["bash", str(SCRIPT), *args], env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_script_starts_a_server_finds_it_again_and_stops_it(tmp_path: Path) -> None:
    folder = tmp_path / "redis"
    started = script("start", folder=folder)
    try:
        assert started.returncode == 0, started.stderr
        url = started.stdout.strip()
        assert url.startswith("redis://127.0.0.1:") and ping(url)
        again = script("start", folder=folder)
        assert again.stdout.strip() == url  # the one already running
        assert script("url", folder=folder).stdout.strip() == url
    finally:
        stopped = script("stop", folder=folder)
    assert stopped.returncode == 0 and not folder.exists()
    assert script("url", folder=folder).returncode != 0


def test_run_gives_the_command_a_server_of_its_own(tmp_path: Path) -> None:
    done = script("run", "bash", "-c", 'echo "$UNOKIT_TEST_REDIS_URL"', folder=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("redis://127.0.0.1:")


def test_a_test_without_redis_fails_and_says_how_to_start_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNOKIT_TEST_REDIS_URL", raising=False)
    with pytest.raises(pytest.fail.Exception) as failure:
        redis_url()
    assert "scripts/redis_test_server.sh start" in str(failure.value)
