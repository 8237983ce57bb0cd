"""The test databases (``tests/dbs.py``, the fixture ``database_url``): each test gets an
empty database of its own, on SQLite and on PostgreSQL, and a PostgreSQL one is dropped
after the test. Without ``UNOKIT_TEST_POSTGRES_URL`` the PostgreSQL tests fail."""

from __future__ import annotations

import doctest
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, create_engine, insert, select
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.engine import Engine, make_url

import dbs


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = create_engine(database_url)
    yield engine
    engine.dispose()


def _players() -> Table:
    return Table("players", MetaData(), Column("id", Integer, primary_key=True),
                 Column("name", String(40), nullable=False))


def test_round_trip_on_each_backend(request: pytest.FixtureRequest, engine: Engine) -> None:
    """A table made, rows written and read back, on the backend the test id names."""
    assert engine.dialect.name == request.node.callspec.params["database_url"]
    players = _players()
    players.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(insert(players), [{"name": "ana"}, {"name": "bo"}])
    with engine.connect() as conn:
        rows = conn.execute(select(players.c.id, players.c.name).order_by(players.c.id)).all()
    assert [tuple(row) for row in rows] == [(1, "ana"), (2, "bo")]


@pytest.mark.parametrize("turn", [1, 2])
def test_each_test_starts_empty(engine: Engine, turn: int) -> None:
    """Each test sees no table of another (this one runs twice per backend, making the same
    table each time)."""
    assert sa_inspect(engine).get_table_names() == []
    _players().metadata.create_all(engine)
    assert sa_inspect(engine).get_table_names() == ["players"]


def test_postgres_url_names_a_fresh_database(database_url: str) -> None:
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        assert url.database is not None and url.database.endswith("unokit.db")
        assert not Path(url.database).exists()
    else:
        assert url.drivername == "postgresql+psycopg"
        assert url.database is not None and url.database.startswith("unokit_test_")


def _exists(server: str, name: str) -> bool:
    engine = create_engine(server)
    try:
        with engine.connect() as conn:
            found = conn.exec_driver_sql(
                "SELECT count(*) FROM pg_database WHERE datname = %(name)s", {"name": name},
            ).scalar_one()
    finally:
        engine.dispose()
    return bool(found)


def test_postgres_database_is_dropped_even_with_a_connection_open() -> None:
    server = dbs.server_url()
    with dbs.postgres_database(server) as first, dbs.postgres_database(server) as second:
        names = [make_url(first).database, make_url(second).database]
        assert names[0] != names[1]
        assert all(name is not None and _exists(server, name) for name in names)
        left_open = create_engine(first).connect()
        left_open.exec_driver_sql("CREATE TABLE t (x int)")
        left_open.commit()
    try:
        assert not any(name is not None and _exists(server, name) for name in names)
    finally:
        left_open.close()


def test_missing_server_url_fails_and_says_how_to_start_one() -> None:
    with pytest.raises(pytest.fail.Exception) as failure:
        dbs.server_url({})
    assert "UNOKIT_TEST_POSTGRES_URL is not set" in str(failure.value)
    assert "scripts/pg_test_server.sh start" in str(failure.value)


def test_a_non_postgres_server_url_fails() -> None:
    with pytest.raises(pytest.fail.Exception, match="not a PostgreSQL URL"):
        dbs.server_url({dbs.ENV: "sqlite:///x.db"})


def test_unreachable_server_fails_with_the_way_to_start_one() -> None:
    # Port 1 on the loopback address: nothing listens there.
    server = "postgresql+psycopg://postgres@127.0.0.1:1/postgres"
    with pytest.raises(pytest.fail.Exception, match="cannot create a database"), \
            dbs.postgres_database(server):
        pass


def test_unknown_kind_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown database kind"), \
            dbs.database("oracle", tmp_path):
        pass


def test_module_examples() -> None:
    result = doctest.testmod(dbs)
    assert result.attempted > 0 and result.failed == 0
