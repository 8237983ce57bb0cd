"""A PostgreSQL cluster of one test's own, which the test may stop, start, and freeze
(``SIGSTOP``) and thaw: started with ``scripts/pg_test_server.sh`` in a folder of its own
(``UNOKIT_PG_DIR``), driven with ``pg_ctl`` as the server's user (``postgres`` when the
tests run as root, as that script does)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "pg_test_server.sh"


def bindir() -> Path:
    """The newest PostgreSQL server programs' folder (fails the test without one)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
                   key=lambda p: int("".join(c for c in p.parts[-3] if c.isdigit()) or 0))
    if not found:
        pytest.fail("these tests need PostgreSQL's server programs "
                    "(Debian: apt-get install postgresql)", pytrace=False)
    return found[-1].parent


class Cluster:
    """A started throwaway cluster: :attr:`url`, and :meth:`stop`, :meth:`start`,
    :meth:`freeze`, :meth:`thaw`, :meth:`remove`."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="unokit-pg-outage-"))
        self.env = {**os.environ, "UNOKIT_PG_DIR": str(self.dir)}
        started = subprocess.run(["bash", str(SCRIPT), "start"], env=self.env, check=False,
                                 capture_output=True, text=True, timeout=120)
        if started.returncode != 0:
            shutil.rmtree(self.dir, ignore_errors=True)
            pytest.fail(f"could not start a PostgreSQL cluster: {started.stderr}",
                        pytrace=False)
        self.url = started.stdout.strip()
        self.port = (self.dir / "port").read_text().strip()
        self.frozen: list[int] = []

    def _pg_ctl(self, *args: str) -> None:
        command = [str(bindir() / "pg_ctl"), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def stop(self) -> None:
        """Stop the server (fast: open connections are closed)."""
        self._pg_ctl("stop", "-D", str(self.dir / "data"), "-m", "fast", "-w")

    def start(self) -> None:
        """Start it again on the same port; return once it accepts connections."""
        self._pg_ctl("start", "-w", "-D", str(self.dir / "data"), "-l",
                     str(self.dir / "server.log"), "-o", f"-p {self.port}")

    def _pids(self) -> list[int]:
        """The postmaster and every process it started."""
        master = int((self.dir / "data" / "postmaster.pid").read_text().split()[0])
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == master:
                children.append(int(stat.parent.name))
        return [master, *children]

    def freeze(self) -> None:
        """``SIGSTOP`` every process of the server: a database that hangs."""
        self.frozen = self._pids()
        for pid in self.frozen:
            os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        """``SIGCONT`` what :meth:`freeze` stopped."""
        for pid in self.frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        self.frozen = []

    def remove(self) -> None:
        """Stop the server and delete its folder."""
        self.thaw()
        subprocess.run(["bash", str(SCRIPT), "stop"], env=self.env, check=False,
                       capture_output=True, timeout=120)
