"""Redis for the tests of several server processes.

:func:`redis_url` is the server of ``UNOKIT_TEST_REDIS_URL`` (``make test`` and .ci/run
start one with ``scripts/redis_test_server.sh``); without it the test fails, saying how to
start one: it never skips. :class:`RedisServer` is a test's own ``redis-server`` (no
persistence, a free port), which the test can stop and start again on the same port, as
an operator's restart would.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

ENV = "UNOKIT_TEST_REDIS_URL"
_HOW = ("start a throwaway server with `export UNOKIT_TEST_REDIS_URL=\"$(scripts/"
        "redis_test_server.sh start)\"`, or run `make test`, which starts one; either "
        "needs Redis's server (Debian: `apt-get install redis-server`, or "
        "scripts/install_redis.sh)")


def redis_url() -> str:
    """The tests' Redis server (fails the test, saying how to start one, when unset)."""
    url = os.environ.get(ENV, "").strip()
    if not url:
        pytest.fail(f"{ENV} is not set, and this test needs a Redis server: {_HOW}",
                    pytrace=False)
    return url


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A ``redis-server`` of the test's own in ``folder``: no persistence, so a restart
    loses every stream, as a crash of a cache server would."""

    def __init__(self, folder: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail(f"redis-server is not installed: {_HOW}", pytrace=False)
        self.binary = binary
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start it (on its port) and return once it answers."""
        self.folder.mkdir(parents=True, exist_ok=True)
        log = (self.folder / "redis.log").open("ab")
        self.proc = subprocess.Popen(
            [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)], stdout=log, stderr=log)
        deadline = time.monotonic() + 30
        while not self.answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: see {self.folder}")
            time.sleep(0.02)  # polling the condition: the server answers

    def answers(self) -> bool:
        """Whether it answers ``PING``."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """Stop it (SIGTERM: without persistence it keeps nothing) and wait."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
