"""``unokit migrate`` and the schema at start, on SQLite and PostgreSQL: ``--check`` says
behind, current or unknown in one line with its exit status; a newer revision is refused
in one line (no traceback); servers and migrations started at once on an empty database
all succeed (the migration lock); the setting ``migrate`` (auto, check, off)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text
from typer.testing import CliRunner

from unokit.cli import app
from unokit.store import Store
from unokit.store.db import (
    HEAD,
    SchemaError,
    alembic_config,
    current_revision,
    migrate,
    open_engine,
    schema_state,
)

runner = CliRunner()


def at_revision(url: str, revision: str) -> None:
    """Bring an empty database to ``revision`` (an older one)."""
    engine = open_engine(url)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
    engine.dispose()


def stamp(url: str, revision: str) -> None:
    """Write ``revision`` into ``alembic_version`` (a newer unokit's database)."""
    engine = open_engine(url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = :r"),
                           {"r": revision})
    engine.dispose()


def cli(url: str, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["migrate", "--database-url", url, *args])
    return result.exit_code, result.output


def test_check_says_behind_then_migrate_brings_it_up(database_url: str) -> None:
    at_revision(database_url, "0003")
    engine = open_engine(database_url)
    assert schema_state(engine) == ("behind", "0003")
    code, out = cli(database_url, "--check")
    assert code == 1
    assert out.strip() == (f"error: the schema is behind (0003; this unokit needs {HEAD}): "
                           f"run unokit migrate")
    code, out = cli(database_url)
    assert code == 0 and out.strip() == f"the schema is current ({HEAD}; it was 0003)"
    assert current_revision(engine) == HEAD
    code, out = cli(database_url, "--check")
    assert code == 0 and out.strip() == f"the schema is current ({HEAD})"
    engine.dispose()


def test_an_empty_database_is_behind(database_url: str) -> None:
    code, out = cli(database_url, "--check")
    assert code == 1 and "behind (empty;" in out
    with pytest.raises(SchemaError, match="run `unokit migrate`"):
        Store(database_url, schema="check")


def test_a_newer_schema_is_refused_in_one_line(database_url: str) -> None:
    migrate(open_engine(database_url))
    stamp(database_url, "0099")
    engine = open_engine(database_url)
    assert schema_state(engine) == ("unknown", "0099")
    engine.dispose()
    code, out = cli(database_url, "--check")
    assert code == 3 and len(out.strip().splitlines()) == 1
    assert "0099, which this unokit does not know" in out
    code, out = cli(database_url)
    assert code == 3 and len(out.strip().splitlines()) == 1
    assert "Traceback" not in out and "revision '0099'" in out
    with pytest.raises(SchemaError, match="does not know"):
        Store(database_url)  # the server's own start (migrate=auto)


def test_migrate_off_leaves_the_schema(database_url: str) -> None:
    at_revision(database_url, "0002")
    store_engine = Store(database_url, schema="off").engine
    assert current_revision(store_engine) == "0002"
    store_engine.dispose()


def test_migrations_started_at_once_all_succeed(database_url: str) -> None:
    starters = 4
    barrier = threading.Barrier(starters)
    failures: list[BaseException] = []
    engines = [open_engine(database_url) for _ in range(starters)]
    for engine in engines:  # each has its connection open before the race
        with engine.connect():
            pass

    def start(index: int) -> None:
        try:
            barrier.wait()
            migrate(engines[index])
        except BaseException as exc:
            failures.append(exc)
    threads = [threading.Thread(target=start, args=(i,)) for i in range(starters)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []
    assert current_revision(engines[0]) == HEAD
    for engine in engines:
        engine.dispose()


def test_migrate_makes_the_sqlite_folder(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new' / 'unokit.db'}"
    code, out = cli(url)
    assert code == 0 and "it was empty" in out
