"""The databases the storage and server tests run on: SQLite and PostgreSQL.

A test that takes the fixture ``database_url`` (defined in ``tests/conftest.py`` on top of
this module) runs twice, as ``test_x[sqlite]`` and ``test_x[postgresql]``, each time with
the SQLAlchemy URL of an empty database of its own:

- ``sqlite``: a file in the test's ``tmp_path``;
- ``postgresql``: a database created for the test on the server that
  ``UNOKIT_TEST_POSTGRES_URL`` names, with a name no other test or xdist worker uses,
  and dropped after the test (``WITH (FORCE)``, so connections left open do not stop it).

Without ``UNOKIT_TEST_POSTGRES_URL`` the PostgreSQL half fails, saying how to start a
server (``scripts/pg_test_server.sh start``); it never skips. ``make test`` starts one.

>>> sqlite_url(Path("/tmp/t"))
'sqlite:////tmp/t/unokit.db'
>>> server_url({"UNOKIT_TEST_POSTGRES_URL": "postgresql://postgres@127.0.0.1:5433/postgres"})
'postgresql+psycopg://postgres@127.0.0.1:5433/postgres'
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

#: The backends ``database_url`` is parametrized over (the test ids' suffixes).
DATABASES = ("sqlite", "postgresql")

#: The environment variable naming the PostgreSQL server of the tests.
ENV = "UNOKIT_TEST_POSTGRES_URL"

_HOW = (
    "start a throwaway server with `export UNOKIT_TEST_POSTGRES_URL=\"$(scripts/"
    "pg_test_server.sh start)\"` (stop it with `scripts/pg_test_server.sh stop`), or run "
    "`make test`, which starts one; either needs PostgreSQL's server programs "
    "(Debian: `apt-get install postgresql`)"
)


def sqlite_url(folder: Path) -> str:
    """The URL of a SQLite database file in ``folder``."""
    return f"sqlite:///{folder / 'unokit.db'}"


def server_url(environ: Mapping[str, str] | None = None) -> str:
    """The URL of the tests' PostgreSQL server (its maintenance database), from
    ``UNOKIT_TEST_POSTGRES_URL``; a plain ``postgresql://`` URL gets the psycopg driver.

    Fails the test, saying how to start a server, when the variable is unset.
    """
    from sqlalchemy.engine import make_url

    raw = (os.environ if environ is None else environ).get(ENV, "").strip()
    if not raw:
        pytest.fail(f"{ENV} is not set, and this test needs a PostgreSQL server: {_HOW}",
                    pytrace=False)
    url = make_url(raw)
    if url.get_backend_name() != "postgresql":
        pytest.fail(f"{ENV} is not a PostgreSQL URL: {url.render_as_string()}", pytrace=False)
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    return url.render_as_string(hide_password=False)


def database_name() -> str:
    """A database name no other test uses, naming the xdist worker for debugging.

    >>> bool(re.fullmatch(r"unokit_test_\\w+_[0-9a-f]{16}", database_name()))
    True
    """
    worker = re.sub(r"\W", "_", os.environ.get("PYTEST_XDIST_WORKER", "main"))[:20]
    return f"unokit_test_{worker}_{uuid.uuid4().hex[:16]}"


def _conninfo(url: str) -> str:
    """The libpq form of a SQLAlchemy PostgreSQL URL (no ``+driver``)."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@contextmanager
def postgres_database(server: str) -> Iterator[str]:
    """Create a fresh database on ``server`` (a URL as :func:`server_url` gives), yield its
    URL, and drop it afterwards, even with connections to it still open."""
    import psycopg
    from psycopg import sql
    from sqlalchemy.engine import make_url

    name = database_name()
    try:
        with psycopg.connect(_conninfo(server), autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.OperationalError as error:
        pytest.fail(f"cannot create a database on the server of {ENV} ({server}): "
                    f"{error}\nIs it running? {_HOW}", pytrace=False)
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(_conninfo(server), autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
                         .format(sql.Identifier(name)))


@contextmanager
def database(kind: str, folder: Path) -> Iterator[str]:
    """The URL of an empty database of ``kind`` (one of :data:`DATABASES`), for one test."""
    if kind == "sqlite":
        yield sqlite_url(folder)
    elif kind == "postgresql":
        with postgres_database(server_url()) as url:
            yield url
    else:
        raise ValueError(f"unknown database kind {kind!r}; expected one of {DATABASES}")
