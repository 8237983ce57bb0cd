"""The stored side of rooms' lives, on SQLite and on PostgreSQL: the retention deletes the
rooms over for longer than the settings say (and every row of theirs), in transactions
of a bounded number of rooms, and keeps the others; rooms whose clock ran out while no
process served them are ended; revision 0005 fills ``last_seen`` in for the rooms stored
before it; the new settings are checked."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Connection, func, inspect, select, text, update

from store_kit import migrate_to
from unokit.server.retention import DAY, Retainer
from unokit.server.settings import Settings, SettingsError
from unokit.store import ActionData, AnswerData, ChatData, NewRoom, Store
from unokit.store.db import alembic_config, migrate, open_engine
from unokit.store.lifecycle import Retention, delete_ended, end_stale
from unokit.store.models import ActionRow, AnswerRow, ChatRow, RoomRow, SeatRow

pytestmark = pytest.mark.asyncio

ROOMS = RoomRow.__table__
NOW = 2_000_000_000.0


async def make_room(store: Store, code: str, status: str, *, ended_days: float | None = None,
                    started: bool = False, last_seen: float | None = None) -> int:
    room = await store.create_room(NewRoom(code=code, rules="{}", turn_timer=0, public=True,
                                           server_seed="00" * 32, commitment="ab" * 32,
                                           seats=2))
    values: dict[str, Any] = {"status": status}
    if ended_days is not None:
        values["ended_at"] = NOW - ended_days * DAY
    if started:
        values["started_at"] = NOW - 100 * DAY
        values["seed"] = "7"
    if last_seen is not None:
        values["last_seen"] = last_seen

    def write(connection: Connection) -> None:
        connection.execute(update(ROOMS).where(ROOMS.c.id == room).values(values))
    await store.run(write)
    return room


async def codes(store: Store) -> set[str]:
    def read(connection: Connection) -> set[str]:
        return set(connection.execute(select(ROOMS.c.code)).scalars())
    return await store.run(read)


async def rows_of(store: Store, room: int) -> int:
    def read(connection: Connection) -> int:
        return sum(int(connection.execute(select(func.count()).select_from(table.__table__)
                                          .where(table.__table__.c.room_id == room))
                       .scalar() or 0)
                   for table in (ActionRow, AnswerRow, ChatRow, SeatRow))
    return await store.run(read)


def retainer(store: Store, keep: dict[str, int], **settings: Any) -> Retainer:
    """A retainer over ``store`` whose process holds the rooms ``keep`` in memory."""
    rooms = SimpleNamespace(settings=Settings(database_url="sqlite://", **settings),
                            store=store, clock=lambda: NOW,
                            rooms={code: SimpleNamespace(id=i) for code, i in keep.items()})
    return Retainer(rooms, batch=3)  # type: ignore[arg-type]


async def test_retention_deletes_old_rooms_in_batches_and_keeps_the_rest(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        old = await make_room(store, "FIN91", "finished", ended_days=91, started=True)
        await store.append_action(old, ActionData(0, "0:draw", 0, "player", "c1", 5, NOW))
        await store.append_chat(old, ChatData(0, 0, "Ann", "hi", 1, "c2", 5))
        await store.set_timer(old, 30, answer=AnswerData(0, 0, "h1", "{}", NOW))
        assert await rows_of(store, old) == 5
        await make_room(store, "FIN89", "finished", ended_days=89, started=True)
        await make_room(store, "ABA91", "abandoned", ended_days=91, started=True)
        await make_room(store, "LOB2", "closed", ended_days=2)
        await make_room(store, "LOBH", "closed", ended_days=0.5)
        await make_room(store, "MATCH2", "closed", ended_days=2, started=True)
        await make_room(store, "PLAY", "playing", started=True)
        await make_room(store, "LOBBY", "lobby")
        held = await make_room(store, "HELD", "finished", ended_days=91, started=True)
        for n in range(7):
            await make_room(store, f"OLD{n}", "finished", ended_days=100 + n, started=True)

        keeper = retainer(store, {"HELD": held})  # the defaults: 90 days and 1 day
        commits = store.commits
        assert await keeper.run() == 10
        # 3 + 3 + 3 + 1 rooms: four transactions, one for the lost guests (none), one for
        # the challenge progress of periods over as long (none) and one for the players
        # off the leaderboards (none)
        assert store.commits - commits == 7
        assert await codes(store) == {"FIN89", "LOBH", "MATCH2", "PLAY", "LOBBY", "HELD"}
        assert await rows_of(store, old) == 0
        assert keeper.deleted == 10
        assert await keeper.run() == 0  # nothing more is due

        # later, a process that no longer holds HELD lets it go with the rest
        later = retainer(store, {})
        assert await later.run(NOW + 100 * DAY) == 4
        assert await codes(store) == {"PLAY", "LOBBY"}
    finally:
        await store.close()


async def test_retention_0_keeps_for_ever(database_url: str) -> None:
    store = Store(database_url)
    try:
        await make_room(store, "FIN", "finished", ended_days=10_000, started=True)
        await make_room(store, "LOB", "closed", ended_days=10_000)
        assert await retainer(store, {}, keep_finished=0, keep_lobbies=0).run() == 0
        assert await retainer(store, {}, keep_finished=0).run() == 1  # the lobby only
        assert await codes(store) == {"FIN"}
        assert await delete_ended(store, Retention(None, None)) == 0
    finally:
        await store.close()


async def test_rooms_whose_clock_ran_out_are_ended(database_url: str) -> None:
    store = Store(database_url)
    try:
        await make_room(store, "GONE", "playing", started=True, last_seen=NOW - 601)
        await make_room(store, "HERE", "playing", started=True, last_seen=NOW - 599)
        await make_room(store, "OLDLOB", "lobby", last_seen=NOW - 3601)
        await make_room(store, "NEWLOB", "lobby", last_seen=NOW - 10)
        await make_room(store, "DONE", "finished", ended_days=1, last_seen=0.0)
        assert await end_stale(store, now=NOW, abandon_after=600,
                               lobby_timeout=3600) == (1, 1)

        def read(connection: Connection) -> dict[str, tuple[str, float | None]]:
            return {row.code: (row.status, row.ended_at) for row in connection.execute(
                select(ROOMS.c.code, ROOMS.c.status, ROOMS.c.ended_at))}
        found = await store.run(read)
        # each ended when its clock ran out
        assert found["GONE"] == ("abandoned", NOW - 1)
        assert found["OLDLOB"] == ("closed", NOW - 1)
        assert found["HERE"] == ("playing", None) and found["NEWLOB"] == ("lobby", None)
        assert found["DONE"] == ("finished", NOW - DAY)
    finally:
        await store.close()


async def test_revision_0005_fills_last_seen_in(database_url: str) -> None:
    engine = open_engine(database_url)
    config = alembic_config()
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "0004")
        with engine.begin() as connection:
            for n, (code, started) in enumerate([("ACT", 20.0), ("START", 30.0),
                                                 ("NEW", None)], start=1):
                connection.execute(text(
                    "INSERT INTO rooms (id, code, rules, status, turn_timer, public, "
                    "server_seed, commitment, created_at, started_at) VALUES (:id, :code, "
                    "'{}', 'playing', 0, true, 's', 'c', 10.0, :started)"),
                    {"id": n, "code": code, "started": started})
            for n, at in enumerate([40.0, 50.0]):
                connection.execute(text(
                    "INSERT INTO actions (room_id, n, action, seat, origin, seq, at) "
                    "VALUES (1, :n, '0:draw', 0, 'player', :n, :at)"), {"n": n, "at": at})
        migrate(engine)
        with engine.connect() as connection:
            seen = dict(connection.execute(select(ROOMS.c.code, ROOMS.c.last_seen)).all())
        assert seen == {"ACT": 50.0, "START": 30.0, "NEW": 10.0}
    finally:
        engine.dispose()
    # and back: 0004 without the column, every room and action still there
    migrate_to(database_url, "0004", down=True)
    engine = open_engine(database_url)
    try:
        with engine.connect() as connection:
            assert "last_seen" not in {c["name"] for c in inspect(connection).get_columns(
                "rooms")}
            assert connection.execute(text("SELECT count(*) FROM rooms")).scalar() == 3
            assert connection.execute(text("SELECT count(*) FROM actions")).scalar() == 2
    finally:
        engine.dispose()


@pytest.mark.parametrize("name, value", [
    ("UNOKIT_ABANDON_AFTER", "0"), ("UNOKIT_ABANDON_AFTER", "nan"),
    ("UNOKIT_ABANDON_AFTER", "1e9"), ("UNOKIT_KEEP_FINISHED", "-1"),
    ("UNOKIT_KEEP_FINISHED", "nan"), ("UNOKIT_KEEP_LOBBIES", "inf"),
    ("UNOKIT_KEEP_LOBBIES", "soon")])
async def test_lifecycle_settings_are_checked(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


async def test_lifecycle_settings_defaults_and_values() -> None:
    default = Settings.from_env({})
    assert (default.abandon_after, default.keep_finished, default.keep_lobbies) == (
        600.0, 90.0, 1.0)
    chosen = Settings.from_env({"UNOKIT_ABANDON_AFTER": "60", "UNOKIT_KEEP_FINISHED": "0",
                                "UNOKIT_KEEP_LOBBIES": "0.5"})
    assert (chosen.abandon_after, chosen.keep_finished, chosen.keep_lobbies) == (
        60.0, 0.0, 0.5)
    assert not math.isnan(chosen.keep_lobbies)
