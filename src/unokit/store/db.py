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

import math
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.pool import StaticPool

from unokit.store.files import secure_sqlite

MIGRATIONS = Path(__file__).with_name("migrations")
"""The folder of the Alembic environment and its revisions."""

HEAD = "0006"
"""The newest revision: what :func:`migrate` brings a database to."""


def default_url(data_dir: str | Path) -> str:
    """The SQLite URL of the database in ``data_dir``."""
    return f"sqlite:///{Path(data_dir) / 'unokit.db'}"


CONNECT_TIMEOUT = 5.0
"""Seconds a new database connection may take (``UNOKIT_DB_CONNECT_TIMEOUT``)."""
STATEMENT_TIMEOUT = 5.0
"""Seconds one statement may run, or wait for a lock, before the database gives up on it
(``UNOKIT_DB_STATEMENT_TIMEOUT``; SQLite: its busy timeout)."""
KEEPALIVE = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5,
             "keepalives_count": 3}
"""TCP keepalives of a PostgreSQL connection: a peer gone without a word is noticed
within about 25 s of silence."""


def _sqlite_pragmas(busy_ms: int) -> Any:
    def pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
        cursor.close()
    return pragmas


def connect_args(url: str, *, connect_timeout: float = CONNECT_TIMEOUT,
                 statement_timeout: float = STATEMENT_TIMEOUT) -> dict[str, Any]:
    """What the database driver of ``url`` is given to bound a connect and a statement
    (0: no bound).

    >>> connect_args("postgresql+psycopg://u@h/db", connect_timeout=5, statement_timeout=2.5)
    ... # doctest: +NORMALIZE_WHITESPACE
    {'connect_timeout': 5, 'options': '-c statement_timeout=2500', 'keepalives': 1,
     'keepalives_idle': 10, 'keepalives_interval': 5, 'keepalives_count': 3}
    >>> connect_args("sqlite:///x.db", statement_timeout=2)
    {'check_same_thread': False, 'timeout': 2.0}
    """
    backend = make_url(url).get_backend_name()
    if backend == "sqlite":
        return {"check_same_thread": False, "timeout": float(statement_timeout)}
    if backend != "postgresql":
        return {}
    args: dict[str, Any] = {}
    if connect_timeout > 0:  # libpq counts whole seconds, at least 2
        args["connect_timeout"] = max(2, math.ceil(connect_timeout))
    args["options"] = f"-c statement_timeout={round(statement_timeout * 1000)}"
    return {**args, **KEEPALIVE}


def open_engine(url: str, *, connect_timeout: float = CONNECT_TIMEOUT,
                statement_timeout: float = STATEMENT_TIMEOUT) -> Engine:
    """An engine for ``url``; SQLite gets WAL, full syncs, foreign keys and a busy
    timeout of ``statement_timeout``, and an in-memory SQLite database (``sqlite://``)
    one shared connection; PostgreSQL gets a connect timeout, a statement timeout and
    TCP keepalives (:func:`connect_args`), and every connection taken from the pool is
    checked first (``pool_pre_ping``)."""
    args = connect_args(url, connect_timeout=connect_timeout,
                        statement_timeout=statement_timeout)
    if url.startswith("sqlite"):
        memory = url in ("sqlite://", "sqlite:///:memory:")
        secure_sqlite(url)
        engine = create_engine(
            url, connect_args=args, **({"poolclass": StaticPool} if memory else {}))
        event.listen(engine, "connect",
                     _sqlite_pragmas(round(statement_timeout * 1000) or 10000))
        return engine
    return create_engine(url, pool_pre_ping=True, connect_args=args)


def alembic_config() -> Config:
    """Alembic's configuration for this package's migrations."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def migrate(engine: Engine) -> None:
    """Bring the database to the newest revision (create the tables of a new one)."""
    config = alembic_config()
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":  # a migration may take long: no bound
            connection.exec_driver_sql("SET LOCAL statement_timeout = 0")
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at (``None``: not migrated)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
