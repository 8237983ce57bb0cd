"""Backup and restore, as docs/deploy.md tells a host to do them: a backup taken while a
match is under way (SQLite's online backup, ``unokit backup``; PostgreSQL's ``pg_dump``)
and restored (the file put in place; ``pg_restore`` into a new database) gives a server
that resumes the room with every action acknowledged before the backup, and the player
plays on. ``unokit backup`` writes an owner-only, checked copy, and refuses what it cannot
do with one line."""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

import dbs
from server_harness import running_server, server_settings
from unokit.cli import app
from unokit.client import GameClient
from unokit.store import NewRoom, Store
from unokit.store.backup import backup_sqlite


def pg_program(name: str) -> str:
    """The path of a PostgreSQL client program (the newest installed), or a failure."""
    found = shutil.which(name) or next(iter(sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        pytest.fail(f"{name} is needed (Debian: apt-get install postgresql-client)")
    return found


def libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@contextmanager
def restored_database(kind: str, folder: Path) -> Iterator[str]:
    """An empty database to restore into: a new data folder, or a new PostgreSQL
    database."""
    with dbs.database(kind, folder) as url:
        yield url


async def back_up(kind: str, url: str, folder: Path) -> Path:
    """Back the live database up as a host would, while the server runs."""
    if kind == "sqlite":
        made = await asyncio.to_thread(backup_sqlite, url, folder / "backup.db")
        return made.path
    dump = folder / "backup.dump"
    await asyncio.to_thread(subprocess.run, [
        pg_program("pg_dump"), "--format=custom", "--file", str(dump), "--dbname",
        libpq(url)], check=True, capture_output=True)
    return dump


def restore(kind: str, backup: Path, url: str) -> None:
    """Put the backup in place, the server stopped."""
    if kind == "sqlite":
        database = Path(make_url(url).database or "")
        database.parent.mkdir(mode=0o700, exist_ok=True)
        shutil.copyfile(backup, database)
        for side in ("-wal", "-shm"):
            Path(f"{database}{side}").unlink(missing_ok=True)
    else:
        subprocess.run([pg_program("pg_restore"), "--no-owner", "--dbname", libpq(url),
                        str(backup)], check=True, capture_output=True)


async def my_turn_again(client: GameClient) -> None:
    await client.wait_for(lambda c: c.must and bool(c.legal))


def choice(client: GameClient) -> str:
    return next((a for a in client.legal if a.endswith("!")), client.legal[0])


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", dbs.DATABASES)
async def test_a_backup_taken_mid_match_restores_every_acked_action(
        kind: str, tmp_path: Path) -> None:
    (tmp_path / "live").mkdir()
    (tmp_path / "restored").mkdir()
    with dbs.database(kind, tmp_path / "live") as live, \
            restored_database(kind, tmp_path / "restored") as restored:
        async with running_server(server_settings(live)) as server:
            async with httpx.AsyncClient() as http:
                answer = await http.post(server.url + "/api/play-now",
                                         json={"rules": "official,players=2", "bot": "easy"})
            code = answer.json()["code"]
            ann = await GameClient.join(server.url, code, name="Ann")
            acked = []
            for _ in range(4):
                await my_turn_again(ann)
                acked.append(await ann.act(choice(ann)))
            await my_turn_again(ann)  # the bot has answered: nothing moves until Ann acts
            history = list(server.rooms.get(code).game.history)
            backup = await back_up(kind, live, tmp_path)
            await ann.act(choice(ann))  # after the backup: not in it
            token = ann.token
            await ann.close()

        restore(kind, backup, restored)
        async with running_server(server_settings(restored)) as server:
            room = server.rooms.get(code)
            assert room.status == "playing"
            assert list(room.game.history) == history
            assert room.last_seq() >= acked[-1]
            back = await GameClient.join(server.url, code, token=token)
            await my_turn_again(back)
            assert back.last_seq == room.last_seq()
            await back.act(choice(back))  # play goes on
            await back.close()


def test_unokit_backup_writes_a_checked_owner_only_copy(tmp_path: Path) -> None:
    url = dbs.sqlite_url(tmp_path)

    async def make() -> None:
        store = Store(url)
        await store.create_room(NewRoom(code="ABCD", rules="{}", turn_timer=0, public=True,
                                        server_seed="00" * 32, commitment="ab" * 32, seats=2))
        await store.close()
    asyncio.run(make())
    runner = CliRunner()
    target = tmp_path / "copy.db"
    old = os.umask(0o022)
    try:
        done = runner.invoke(app, ["backup", str(target), "--data-dir", str(tmp_path)])
    finally:
        os.umask(old)
    assert done.exit_code == 0, done.output
    assert "Backed up to" in done.output
    assert stat.S_IMODE(target.stat().st_mode) == 0o600

    async def codes() -> list[str]:
        store = Store(f"sqlite:///{target}")
        try:
            return [room.code for room in await store.load_rooms()]
        finally:
            await store.close()
    assert asyncio.run(codes()) == ["ABCD"]

    again = runner.invoke(app, ["backup", str(target), "--database-url", url])
    assert again.exit_code == 2 and "exists" in again.output
    postgres = runner.invoke(app, ["backup", str(tmp_path / "pg.db"), "--database-url",
                                   "postgresql+psycopg://u@localhost/unokit"])
    assert postgres.exit_code == 2 and "pg_dump" in postgres.output
    nothing = runner.invoke(app, ["backup", str(tmp_path / "none.db"), "--data-dir",
                                  str(tmp_path / "empty")])
    assert nothing.exit_code == 2 and "no database" in nothing.output
    assert not (tmp_path / "pg.db").exists() and not (tmp_path / "none.db").exists()
