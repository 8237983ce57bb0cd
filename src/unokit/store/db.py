"""Opening the server's database: the URL, SQLite's settings, and the migrations.

The default database is SQLite in the data directory, in WAL mode with ``synchronous =
FULL``, so that a committed action survives a crash of the process and of the machine.
Any other SQLAlchemy URL works too (``postgresql+psycopg://...``). Behind a pooler in
transaction pooling (PgBouncer's ``pool_mode = transaction``), add ``pool_mode=transaction``
to the URL's query (:data:`POOL_MODE`): the connections then keep no session state (no
prepared statements, the statement timeout set per transaction).

>>> default_url("/tmp/unokit-data")
'sqlite:////tmp/unokit-data/unokit.db'
>>> engine = open_engine("sqlite://")
>>> migrate(engine)
>>> current_revision(engine) == HEAD
True
>>> schema_state(engine)
('current', '0014')
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Connection, Engine, create_engine, event, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import StaticPool

from unokit.store.files import secure_sqlite

MIGRATIONS = Path(__file__).with_name("migrations")
"""The folder of the Alembic environment and its revisions."""

HEAD = "0014"
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


POOL_MODE = "pool_mode"
"""The query parameter of a PostgreSQL URL that says the server reaches the database
through a pooler that hands a server connection to a client for one transaction at a time
(``pool_mode=transaction``, as PgBouncer names it): no prepared statements (psycopg's
``prepare_threshold`` is ``None``), no startup ``options`` (PgBouncer refuses them), and
the statement timeout is set with ``SET LOCAL`` at the start of every transaction.
Advisory locks are only ever taken for one transaction (:func:`_lock`)."""


def transaction_pooled(url: str) -> bool:
    """Whether ``url`` goes through a pooler in transaction pooling (:data:`POOL_MODE`).

    >>> transaction_pooled("postgresql+psycopg://u@h:6432/db?pool_mode=transaction")
    True
    >>> transaction_pooled("postgresql+psycopg://u@h/db"), transaction_pooled("sqlite://")
    (False, False)
    """
    mode = make_url(url).query.get(POOL_MODE)
    if mode is None:
        return False
    if mode != "transaction" or make_url(url).get_backend_name() != "postgresql":
        raise ArgumentError(f"{POOL_MODE}: only 'transaction', on a PostgreSQL URL, not "
                            f"{mode!r}")
    return True


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
    (0: no bound). On PostgreSQL a transaction left idle for as long as a statement may
    run is ended by the server (``idle_in_transaction_session_timeout``): a process
    stopped in the middle of one (SIGSTOP, a long pause) holds no lock of a room's lease
    past that, so another process can take its rooms over.

    >>> connect_args("postgresql+psycopg://u@h/db", connect_timeout=5, statement_timeout=2.5)
    ... # doctest: +NORMALIZE_WHITESPACE
    {'connect_timeout': 5, 'options': '-c statement_timeout=2500 -c
     idle_in_transaction_session_timeout=2500', 'keepalives': 1,
     'keepalives_idle': 10, 'keepalives_interval': 5, 'keepalives_count': 3}
    >>> connect_args("sqlite:///x.db", statement_timeout=2)
    {'check_same_thread': False, 'timeout': 2.0}
    >>> pooled = connect_args("postgresql+psycopg://u@h/db?pool_mode=transaction")
    >>> pooled["prepare_threshold"] is None, "options" in pooled
    (True, False)
    """
    backend = make_url(url).get_backend_name()
    if backend == "sqlite":
        return {"check_same_thread": False, "timeout": float(statement_timeout)}
    if backend != "postgresql":
        return {}
    args: dict[str, Any] = {}
    if connect_timeout > 0:  # libpq counts whole seconds, at least 2
        args["connect_timeout"] = max(2, math.ceil(connect_timeout))
    if transaction_pooled(url):  # no session state: see POOL_MODE
        args["prepare_threshold"] = None
    else:
        bound = round(statement_timeout * 1000)
        args["options"] = (f"-c statement_timeout={bound} "
                           f"-c idle_in_transaction_session_timeout={bound}")
    return {**args, **KEEPALIVE}


def open_engine(url: str, *, connect_timeout: float = CONNECT_TIMEOUT,
                statement_timeout: float = STATEMENT_TIMEOUT) -> Engine:
    """An engine for ``url``; SQLite gets WAL, full syncs, foreign keys and a busy
    timeout of ``statement_timeout``, and an in-memory SQLite database (``sqlite://``)
    one shared connection; PostgreSQL gets a connect timeout, a statement timeout and
    TCP keepalives (:func:`connect_args`), and every connection taken from the pool is
    checked first (``pool_pre_ping``); behind a pooler in transaction pooling
    (:data:`POOL_MODE`) the statement timeout is set at the start of each transaction."""
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
    if not transaction_pooled(url):
        return create_engine(url, pool_pre_ping=True, connect_args=args)
    engine = create_engine(make_url(url).difference_update_query([POOL_MODE]),
                           pool_pre_ping=True, connect_args=args)
    bound = round(statement_timeout * 1000)
    timeout = (f"SET LOCAL statement_timeout = {bound}; "
               f"SET LOCAL idle_in_transaction_session_timeout = {bound}")
    event.listen(engine, "begin", lambda connection: connection.exec_driver_sql(timeout))
    return engine


def alembic_config() -> Config:
    """Alembic's configuration for this package's migrations."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


MIGRATION_LOCK = 0x756E6F6B6974
"""The key of PostgreSQL's transaction-level advisory lock that :func:`migrate` holds
("unokit" in ASCII)."""

SCHEMA_MODES = ("auto", "check", "off")
"""What a server does with the schema when it starts: ``auto`` migrates it to the newest
revision, ``check`` refuses to start unless it is there, ``off`` does neither."""


class SchemaError(RuntimeError):
    """The database's schema cannot be used: behind (``unokit migrate``), newer than
    this unokit, or not recognised. Its text is one line for the operator."""


def _lock(connection: Connection) -> None:
    """Take the database's migration lock for the rest of ``connection``'s transaction:
    on PostgreSQL a transaction-level advisory lock (let go at commit or rollback, never
    held by an idle session), on SQLite the write lock (``BEGIN IMMEDIATE``)."""
    dialect = connection.dialect.name
    if dialect == "postgresql":
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
    elif dialect == "sqlite":
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def migrate(engine: Engine) -> None:
    """Bring the database to the newest revision (create the tables of a new one).

    The upgrade runs in one transaction that first takes the migration lock
    (:func:`_lock`), so that servers and ``unokit migrate`` started at once on an empty
    database do not race: the first migrates, the others wait, then find it done.

    Raises:
        SchemaError: the database is at a revision this unokit does not know.
    """
    config = alembic_config()
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":  # a migration may take long: no bound
            connection.exec_driver_sql("SET LOCAL statement_timeout = 0")
        _lock(connection)
        config.attributes["connection"] = connection
        try:
            command.upgrade(config, "head")
        except CommandError as exc:
            raise SchemaError(_unknown(MigrationContext.configure(
                connection).get_current_revision(), exc)) from None


def _unknown(revision: str | None, exc: Exception) -> str:
    return (f"the database schema is at revision {revision!r}, which this unokit does "
            f"not know (it knows up to {HEAD!r}): run a newer unokit, or restore a "
            f"backup ({str(exc).splitlines()[0][:120]})")


def schema_state(engine: Engine) -> tuple[str, str | None]:
    """Where the database's schema stands, and its revision: ``("current", HEAD)``,
    ``("empty", None)`` (never migrated), ``("behind", rev)`` (an older revision:
    ``unokit migrate`` brings it up) or ``("unknown", rev)`` (a newer or foreign
    revision)."""
    revision = current_revision(engine)
    if revision is None:
        return "empty", None
    if revision == HEAD:
        return "current", revision
    known = {script.revision for script in
             ScriptDirectory.from_config(alembic_config()).walk_revisions()}
    return ("behind" if revision in known else "unknown"), revision


def check_schema(engine: Engine) -> None:
    """Raise :class:`SchemaError` unless the schema is at the newest revision."""
    state, revision = schema_state(engine)
    if state == "current":
        return
    if state == "unknown":
        raise SchemaError(_unknown(revision, Exception("not in this unokit's migrations")))
    where = "empty" if revision is None else f"at revision {revision!r}"
    raise SchemaError(f"the database schema is {where}, this unokit needs {HEAD!r}: run "
                      f"`unokit migrate` (back up the database first)")


def prepare_schema(engine: Engine, mode: str = "auto") -> None:
    """What a server does with the schema as it starts (see :data:`SCHEMA_MODES`).

    Raises:
        SchemaError: with ``check``, the schema is not current; with ``auto``, it is at
            a revision this unokit does not know.
    """
    if mode == "auto":
        migrate(engine)
    elif mode == "check":
        check_schema(engine)


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at (``None``: not migrated)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
