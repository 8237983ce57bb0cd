"""The SQLite database is owner-only: its folder 0700, the file and SQLite's ``-wal`` and
``-shm`` 0600 under the usual umask 022, and a database left readable by an older
version is tightened when it is opened."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from unokit.store import ActionData, NewRoom, Store
from unokit.store.files import secure_sqlite, sqlite_path


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def usual_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.asyncio
@pytest.mark.usefixtures("usual_umask")
async def test_a_new_database_and_its_folder_are_owner_only(tmp_path: Path) -> None:
    folder = tmp_path / "unokit-data"
    database = folder / "unokit.db"
    store = Store(f"sqlite:///{database}")
    try:
        room = await store.create_room(NewRoom(code="ABCD", rules="{}", turn_timer=0,
                                               public=True, server_seed="00" * 32,
                                               commitment="ab" * 32, seats=2))
        await store.append_action(room, ActionData(0, "0:draw", 0, "player", None, 1, 1.0))
        wal = folder / "unokit.db-wal"
        shm = folder / "unokit.db-shm"
        assert wal.exists() and shm.exists()  # the store is open: WAL mode's files
        assert {p.name: oct(mode(p)) for p in (folder, database, wal, shm)} == {
            "unokit-data": "0o700", "unokit.db": "0o600", "unokit.db-wal": "0o600",
            "unokit.db-shm": "0o600"}
    finally:
        await store.close()


@pytest.mark.usefixtures("usual_umask")
def test_an_existing_readable_database_is_tightened(tmp_path: Path) -> None:
    folder = tmp_path / "srv"
    folder.mkdir()
    folder.chmod(0o755)
    database = folder / "unokit.db"
    for path in (database, folder / "unokit.db-wal"):
        path.write_bytes(b"")
        path.chmod(0o644)
    secure_sqlite(f"sqlite:///{database}")
    assert oct(mode(database)) == "0o600"
    assert oct(mode(folder / "unokit.db-wal")) == "0o600"
    assert oct(mode(folder)) == "0o755"  # a folder that was there is the host's own


def test_only_sqlite_files_have_a_path() -> None:
    assert sqlite_path("sqlite:////srv/u/unokit.db") == Path("/srv/u/unokit.db")
    assert sqlite_path("sqlite://") is None
    assert sqlite_path("sqlite:///:memory:") is None
    assert sqlite_path("postgresql+psycopg://u@h/db") is None
    secure_sqlite("postgresql+psycopg://u@h/db")  # nothing to do, nothing touched
