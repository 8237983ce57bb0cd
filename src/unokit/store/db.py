"""Opening the server's database: the URL, SQLite's settings, and the migrations.

The default database is SQLite in the data directory, in WAL mode with ``synchronous =
FULL``, so that a committed action survives a crash of the process and of the machine.
Any other SQLAlchemy URL works too (``postgresql+psycopg://...``).

>>> default_url("/tmp/unokit-data")
'sqlite:////tmp/unokit-data/unokit.db'
>>> engine = open_engine("sqlite://")
>>> migrate(engine)
>>> current_revision(engine)
'0006'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.pool import StaticPool

from unokit.store.files import secure_sqlite

MIGRATIONS = Path(__file__).with_name("migrations")
"""The folder of the Alembic environment and its revisions."""

HEAD = "0006"
"""The newest revision: what :func:`migrate` brings a database to."""


def default_url(data_dir: str | Path) -> str:
    """The SQLite URL of the database in ``data_dir``."""
    return f"sqlite:///{Path(data_dir) / 'unokit.db'}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def open_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, full syncs and foreign keys, a file
    database owner-only files (:func:`unokit.store.files.secure_sqlite`), and an
    in-memory SQLite database (``sqlite://``) one shared connection."""
    if url.startswith("sqlite"):
        memory = url in ("sqlite://", "sqlite:///:memory:")
        secure_sqlite(url)
        engine = create_engine(
            url, connect_args={"check_same_thread": False},
            **({"poolclass": StaticPool} if memory else {}))
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


def alembic_config() -> Config:
    """Alembic's configuration for this package's migrations."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def migrate(engine: Engine) -> None:
    """Bring the database to the newest revision (create the tables of a new one)."""
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at (``None``: not migrated)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
