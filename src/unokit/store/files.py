"""The SQLite database's files, owner-only: the database holds the secret seed and every
action of each live match, from which every hidden hand can be rebuilt, so it and its
backups are as secret as the players' cards (docs/deploy.md).

:func:`secure_sqlite` runs before SQLite opens a file database: a missing folder is made
``0700``, a missing database file ``0600``, and an existing database file (with its
``-wal``, ``-shm`` and ``-journal``) loses any permission for group and others. SQLite
makes its ``-wal`` and ``-shm`` files with the permissions of the database file, so they
are ``0600`` too.

>>> import tempfile, stat
>>> folder = Path(tempfile.mkdtemp()) / "data"
>>> secure_sqlite(f"sqlite:///{folder}/unokit.db")
>>> [oct(stat.S_IMODE(p.stat().st_mode)) for p in (folder, folder / "unokit.db")]
['0o700', '0o600']
>>> secure_sqlite("sqlite://")  # in memory: nothing to do
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path

from sqlalchemy.engine import make_url

LOG = logging.getLogger("unokit.store")

FOLDER_MODE = 0o700
FILE_MODE = 0o600
SIDE_FILES = ("-wal", "-shm", "-journal")
"""What SQLite keeps beside a database file."""


def sqlite_path(url: str) -> Path | None:
    """The database file of a SQLite URL (``None``: not SQLite, or in memory)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    return Path(database)


def create_private(path: Path) -> None:
    """Create ``path`` as an empty file only its owner may read (if it is missing)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, FILE_MODE))


def secure_sqlite(url: str) -> None:
    """Make the SQLite database of ``url`` owner-only (see the module); nothing for other
    databases. A file the process may not change is left as it is, with a warning."""
    path = sqlite_path(url)
    if path is None:
        return
    if not path.parent.exists():
        path.parent.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    create_private(path)
    for file in (path, *(path.with_name(path.name + side) for side in SIDE_FILES)):
        try:
            mode = stat.S_IMODE(file.stat().st_mode)
            if mode & 0o077:
                file.chmod(mode & 0o700)
        except FileNotFoundError:
            continue
        except OSError as exc:
            LOG.warning("database file not made owner-only",
                        extra={"file": str(file), "error": type(exc).__name__})
