"""A real ``unokit serve`` process for the browser tests: started on a free port with a
data directory of its own, waited for through ``/readyz``, killed (``SIGKILL``) and
started again on the same port and data directory.

The settings come as ``UNOKIT_*`` variables (``src/unokit/server/settings.py``); the
defaults here suit tests: bots act at once, a long pause between rounds (seat 0, a
browser, starts the next round), a rate limit no test reaches.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root (the server imports the package from its ``src``)."""

TEST_SETTINGS = {
    "UNOKIT_BOT_DELAY": "0",
    "UNOKIT_ROUND_PAUSE": "600",
    "UNOKIT_CATCH_GRACE": "0.05",
    "UNOKIT_RATE": "1000",
    "UNOKIT_BURST": "1000",
    "UNOKIT_LOG_LEVEL": "info",
}

READY_TIMEOUT = 60.0


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerError(RuntimeError):
    """The server did not come up (its log is in the message)."""


class ServerProcess:
    """``python -m unokit.cli serve`` on 127.0.0.1:``port`` with ``data_dir``."""

    def __init__(self, data_dir: Path, *, port: int | None = None,
                 settings: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()
        self.env = {**os.environ, **TEST_SETTINGS, **(settings or {})}
        self.env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = data_dir / "server.log"
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        """Start the process and wait until it listens and ``/readyz`` answers 200.

        The wait follows the server's own log: uvicorn says "Uvicorn running on" once
        the rooms are back from the database and the socket listens.
        """
        assert self.proc is None or self.proc.poll() is not None, "already running"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "unokit.cli", "serve", "--host", "127.0.0.1",
             "--port", str(self.port), "--data-dir", str(self.data_dir)],
            env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=str(self.data_dir))
        listening = threading.Event()
        threading.Thread(target=self._pump, args=(self.proc, listening), daemon=True).start()
        if not listening.wait(READY_TIMEOUT):
            raise ServerError(f"unokit serve not listening after {READY_TIMEOUT} s:\n"
                              f"{self.log()}")
        if self.proc.poll() is not None:
            self.proc.wait()
            raise ServerError(f"unokit serve exited with {self.proc.returncode}:\n"
                              f"{self.log()}")
        ready = self.get("/readyz")
        if ready.get("ready") is not True:
            raise ServerError(f"/readyz answered {ready}:\n{self.log()}")
        return self

    def _pump(self, proc: subprocess.Popen[bytes], listening: threading.Event) -> None:
        """Copy the server's output to its log file; set ``listening`` once it listens
        (or once it ended)."""
        assert proc.stdout is not None
        with self.log_path.open("ab") as log:
            for line in proc.stdout:
                log.write(line)
                log.flush()
                if b"Uvicorn running on" in line:
                    listening.set()
        listening.set()

    def kill9(self) -> None:
        """``kill -9`` the server: no shutdown, no goodbye to the clients."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        """Stop the server gracefully (SIGTERM), or kill it if it does not stop."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return "(no log)"

    # ------------------------------------------------------------ the HTTP API
    def request(self, method: str, path: str, body: Any = None) -> Any:
        """``method path`` with a JSON body; the JSON answer (errors raise)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.url}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as answer:
            return json.loads(answer.read())

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def create_room(self, rules: Any, *, bots: list[str] | None = None,
                    turn_timer: int | None = None, public: bool = False) -> str:
        """A new room (``POST /api/rooms``); its code."""
        body: dict[str, Any] = {"rules": rules, "public": public}
        if bots:
            body["bots"] = bots
        if turn_timer is not None:
            body["turn_timer"] = turn_timer
        return str(self.request("POST", "/api/rooms", body)["code"])
