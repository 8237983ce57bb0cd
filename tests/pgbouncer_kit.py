"""PgBouncer in transaction pooling for the tests of the server behind a pooler.

:class:`PgBouncer` starts a throwaway one of the test's own with
``scripts/pgbouncer_test_server.sh`` (Debian's pgbouncer, scripts/install_pgbouncer.sh)
in front of the tests' PostgreSQL server; :meth:`PgBouncer.url_for` is the URL of a
database through it (``?pool_mode=transaction``: the server keeps no session state).
Without PgBouncer the test fails, saying how to install it: it never skips.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "pgbouncer_test_server.sh"


class PgBouncer:
    """A started PgBouncer in front of the PostgreSQL server of ``server_url``."""

    def __init__(self, server_url: str) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="unokit-pgbouncer-"))
        os.chmod(self.dir, 0o755)  # the script's server user reads the folder
        self.env = {**os.environ, "UNOKIT_PGBOUNCER_DIR": str(self.dir / "run")}
        started = subprocess.run(["bash", str(SCRIPT), "start", server_url], env=self.env,
                                 check=False, capture_output=True, text=True, timeout=120)
        if started.returncode != 0:
            shutil.rmtree(self.dir, ignore_errors=True)
            pytest.fail(f"could not start PgBouncer (scripts/install_pgbouncer.sh installs "
                        f"Debian's): {started.stderr}", pytrace=False)
        self.url = started.stdout.strip()

    def url_for(self, database_url: str) -> str:
        """The URL of ``database_url``'s database through this PgBouncer."""
        return make_url(self.url).set(
            database=make_url(database_url).database).render_as_string(hide_password=False)

    def stop(self) -> None:
        """Stop it and delete its folder."""
        subprocess.run(["bash", str(SCRIPT), "stop"], env=self.env, check=False,
                       capture_output=True, timeout=120)
        shutil.rmtree(self.dir, ignore_errors=True)
