"""The store's table chat on SQLite and PostgreSQL: migration 0002 adds it to a database
of 0001 and keeps every row there; lines load back with their room (the last ones); a
line that broke a silence commits in one transaction with its ``say``; a room's lines go
with the room."""

from __future__ import annotations

import pytest
from sqlalchemy import Connection, inspect, text

from store_kit import migrate_to, new_room
from unokit.store import RECENT_CHAT, ActionData, ChatData, Store, StoreError
from unokit.store.db import HEAD, current_revision, open_engine

pytestmark = pytest.mark.asyncio



def line(n: int, seat: int = 0, client_id: str | None = None) -> ChatData:
    return ChatData(n, seat, "Ann" if seat == 0 else "Bob", f"line {n} ✓", 1_700_000_000_000 + n,
                    client_id, n - 1)



async def test_0002_adds_the_chat_to_a_database_of_0001_and_keeps_its_rows(
        database_url: str) -> None:
    migrate_to(database_url, "0001")
    engine = open_engine(database_url)
    assert current_revision(engine) == "0001"
    with engine.begin() as connection:
        assert "chat" not in inspect(connection).get_table_names()
        connection.execute(text(
            "INSERT INTO rooms (id, code, rules, status, turn_timer, public, server_seed, "
            "commitment, seed, created_at) VALUES (7, 'OLD', '{}', 'playing', 30, true, "
            "'00', 'ab', '12345', 1.5)"))
        connection.execute(text(
            "INSERT INTO seats (room_id, seat, kind, name, bot, token_hash, host) VALUES "
            "(7, 0, 'human', 'Ann', '', 'ff', true), (7, 1, 'bot', 'hard bot', 'hard', '', "
            "false)"))
        connection.execute(text(
            "INSERT INTO actions (room_id, n, action, seat, origin, client_id, seq, at) "
            "VALUES (7, 0, '0:draw', 0, 'player', 'c1', 12, 2.5)"))
        connection.execute(text(
            "INSERT INTO contributions (room_id, seat, value) VALUES (7, 0, 'ann-value')"))
    engine.dispose()
    store = Store(database_url)  # migrates to the newest revision
    try:
        assert current_revision(store.engine) == HEAD
        [old] = await store.load_rooms()
        assert (old.id, old.code, old.status, old.turn_timer, old.seed) == (
            7, "OLD", "playing", 30, 12345)
        assert [(s.seat, s.kind, s.name, s.host) for s in old.seats] == [
            (0, "human", "Ann", True), (1, "bot", "hard bot", False)]
        assert old.actions == [ActionData(0, "0:draw", 0, "player", "c1", 12, 2.5)]
        assert old.contributions == {0: "ann-value"}
        assert old.chat == []
        assert await store.claim_rooms() == ([7], 0)  # a store writes for rooms it holds
        await store.append_chat(7, line(0))
        [again] = await store.load_rooms()
        assert again.chat == [line(0)]
    finally:
        await store.close()
    # and back: 0001 without the chat, the rooms still there
    migrate_to(database_url, "0001", down=True)
    engine = open_engine(database_url)
    with engine.connect() as connection:
        assert "chat" not in inspect(connection).get_table_names()
        assert connection.execute(text("SELECT code FROM rooms")).scalars().all() == ["OLD"]
    assert current_revision(engine) == "0001"
    engine.dispose()


async def test_a_room_comes_back_with_its_last_lines(database_url: str) -> None:
    store = Store(database_url)
    try:
        first = await store.create_room(new_room("ONE", seats=2))
        second = await store.create_room(new_room("TWO", seats=2))
        quiet = await store.create_room(new_room("QUIET", seats=2))
        for n in range(RECENT_CHAT + 7):
            await store.append_chat(first, line(n, seat=n % 2, client_id=f"c{n}"))
        for n in range(3):
            await store.append_chat(second, line(n))
        loaded = {r.id: r for r in await store.load_rooms()}
        assert loaded[first].chat == [line(n, seat=n % 2, client_id=f"c{n}")
                                      for n in range(7, RECENT_CHAT + 7)]
        assert loaded[second].chat == [line(0), line(1), line(2)]
        assert loaded[quiet].chat == []
        [one] = await store.load_rooms(code="TWO")
        assert one.chat == [line(0), line(1), line(2)]
        # a line's number is its place: the same number again is refused
        with pytest.raises(StoreError):
            await store.append_chat(second, line(2))
        await store.delete_room(second)

        def count(connection: Connection) -> int:
            return int(connection.execute(text(
                f"SELECT count(*) FROM chat WHERE room_id = {second}")).scalar_one())
        assert await store.run(count) == 0
    finally:
        await store.close()


async def test_a_line_and_its_say_commit_together(database_url: str) -> None:
    store = Store(database_url)
    try:
        room = await store.create_room(new_room("SAY", seats=2))
        await store.append_action(room, ActionData(0, "1:say", 1, "player", "c0", 20, 3.0),
                                  line(0, seat=1, client_id="c0"))
        await store.append_chat(room, line(1))
        # the line's number is taken: the say that came with it is not stored either
        with pytest.raises(StoreError):
            await store.append_action(room, ActionData(1, "0:say", 0, "player", "c1", 24,
                                                       4.0), line(1))
        [loaded] = await store.load_rooms()
        assert [a.action for a in loaded.actions] == ["1:say"]
        assert loaded.chat == [line(0, seat=1, client_id="c0"), line(1)]
    finally:
        await store.close()
