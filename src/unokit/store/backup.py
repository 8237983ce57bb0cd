"""An online backup of the SQLite database, while the server runs (``unokit backup``).

It uses SQLite's backup API, in one step: the copy is the database as of one instant,
with everything committed before it (what the ``-wal`` file holds too, which a plain
``cp`` of the database file misses), and the server goes on writing meanwhile (in WAL
mode a reader never blocks the writer). The copy is made owner-only (``0600``) and
checked (``PRAGMA integrity_check``) before it is reported done. PostgreSQL databases are
backed up with ``pg_dump`` (docs/deploy.md).

To restore: stop the server, put the copy in place of ``unokit.db`` (removing any
``unokit.db-wal`` and ``unokit.db-shm`` beside it), and start the server: every room comes
back with every action acknowledged before the backup.

>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> import sqlite3
>>> with sqlite3.connect(folder / "unokit.db") as db:
...     _ = db.execute("CREATE TABLE rooms (code TEXT)")
>>> made = backup_sqlite(f"sqlite:///{folder}/unokit.db", folder / "copy.db")
>>> made.path.name, made.tables
('copy.db', 1)
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from unokit.engine.errors import UnoError
from unokit.i18n import N_
from unokit.store.files import create_private, sqlite_path


class BackupError(UnoError):
    """A backup that cannot be made (nothing was written, or the partial copy removed).
    Its ``template`` (marked for translation) and ``params`` say why in any language."""

    def __init__(self, template: str, **params: object) -> None:
        self.template = template
        self.params = params
        super().__init__(template.format(**params))


@dataclass(frozen=True)
class Backup:
    """A backup made: where, how large, and how many tables it holds."""

    path: Path
    size: int
    tables: int


def backup_sqlite(url: str, destination: str | Path) -> Backup:
    """Copy the SQLite database of ``url`` to ``destination`` (a new file), online.

    Raises:
        BackupError: not a SQLite file database, no database there, the destination
            exists, or the copy failed its check.
    """
    source = sqlite_path(url)
    if source is None:
        raise BackupError(N_("only a SQLite database file is backed up this way; back up "
                             "PostgreSQL with pg_dump (docs/deploy.md)"))
    if not source.is_file():
        raise BackupError(N_("no database at {path}"), path=str(source))
    target = Path(destination)
    if target.exists():
        raise BackupError(N_("{path} exists: give a new file"), path=str(target))
    if not target.parent.is_dir():
        raise BackupError(N_("no folder {path}"), path=str(target.parent))
    create_private(target)
    try:
        with contextlib.closing(sqlite3.connect(source, timeout=30)) as live, \
                contextlib.closing(sqlite3.connect(target)) as copy:
            live.execute("PRAGMA busy_timeout=30000")
            live.backup(copy)  # all pages in one step: one consistent instant
            [check] = copy.execute("PRAGMA integrity_check").fetchone()
            tables = copy.execute("SELECT count(*) FROM sqlite_master "
                                  "WHERE type = 'table'").fetchone()[0]
        if check != "ok":
            raise BackupError(N_("the copy failed its check: {problem}"), problem=str(check))
    except (sqlite3.Error, OSError) as exc:
        target.unlink(missing_ok=True)
        raise BackupError(N_("the backup failed: {problem}"), problem=str(exc)) from None
    except BackupError:
        target.unlink(missing_ok=True)
        raise
    return Backup(target, target.stat().st_size, int(tables))
