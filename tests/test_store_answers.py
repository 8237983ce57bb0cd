"""The store's command answers on SQLite and PostgreSQL: migration 0003 adds the table
answers to a database of 0002 and keeps every row there, and 0004 gives the rows of 0003
occupant 0; a room comes back with every answer of its seats' current occupants (and no
earlier occupant's); an answer commits in one transaction with its command's change, so
that neither is stored without the other."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from sqlalchemy import Connection, inspect, text

from store_kit import migrate_to, new_room
from unokit.store import (
    AnswerData,
    SeatData,
    Store,
    StoredRoom,
    StoreError,
)
from unokit.store.db import HEAD, current_revision, open_engine

pytestmark = pytest.mark.asyncio



def answer(n: int, seat: int = 0, occupant: int = 0) -> AnswerData:
    return AnswerData(n, seat, f"h{n}", f'{{"type":"ack","id":"h{n}","seq":-1}}', 5.0 + n,
                      occupant)



async def test_0003_adds_the_answers_to_a_database_of_0002_and_keeps_its_rows(
        database_url: str) -> None:
    migrate_to(database_url, "0002")
    engine = open_engine(database_url)
    with engine.begin() as connection:
        assert "answers" not in inspect(connection).get_table_names()
        connection.execute(text(
            "INSERT INTO rooms (id, code, rules, status, turn_timer, public, server_seed, "
            "commitment, seed, created_at) VALUES (7, 'OLD', '{}', 'lobby', 30, true, "
            "'00', 'ab', NULL, 1.5)"))
        connection.execute(text(
            "INSERT INTO seats (room_id, seat, kind, name, bot, token_hash, host) VALUES "
            "(7, 0, 'human', 'Ann', '', 'ff', true)"))
        connection.execute(text(
            "INSERT INTO chat (room_id, n, seat, name, text, at, client_id, seq) VALUES "
            "(7, 0, 0, 'Ann', 'hi', 1700000000000, 'c1', -1)"))
    engine.dispose()
    store = Store(database_url)  # migrates to the newest revision
    try:
        assert current_revision(store.engine) == HEAD
        [old] = await store.load_rooms()
        assert (old.code, old.turn_timer, [s.name for s in old.seats]) == ("OLD", 30, ["Ann"])
        assert [c.text for c in old.chat] == ["hi"] and old.answers == []
        assert await store.claim_rooms() == ([7], 0)  # a store writes for rooms it holds
        await store.set_timer(7, 15, answer=answer(0))
        [again] = await store.load_rooms()
        assert again.answers == [answer(0)] and again.turn_timer == 15
    finally:
        await store.close()
    # and back: 0002 without the answers, the rooms and their chat still there
    migrate_to(database_url, "0002", down=True)
    engine = open_engine(database_url)
    with engine.connect() as connection:
        assert "answers" not in inspect(connection).get_table_names()
        assert connection.execute(text("SELECT code FROM rooms")).scalars().all() == ["OLD"]
        assert connection.execute(text("SELECT text FROM chat")).scalars().all() == ["hi"]
    assert current_revision(engine) == "0002"
    engine.dispose()


async def test_a_room_comes_back_with_every_answer_of_its_current_occupants(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        busy = await store.create_room(new_room("BUSY"))
        calm = await store.create_room(new_room("CALM"))
        quiet = await store.create_room(new_room("QUIET"))
        for n in range(600):  # nothing is dropped for being old
            await store.set_timer(busy, 15, answer=answer(n, seat=n % 3))
        await store.set_seat(calm, SeatData(1, "bot", "easy bot", "easy"), answer=answer(0))
        await store.add_contribution(calm, 0, "ann-1", answer=answer(1))
        loaded: dict[int, StoredRoom] = {r.id: r for r in await store.load_rooms()}
        assert loaded[busy].answers == [answer(n, seat=n % 3) for n in range(600)]
        assert loaded[busy].next_answer == 600
        assert loaded[calm].answers == [answer(0), answer(1)]
        assert loaded[calm].next_answer == 2
        assert (loaded[quiet].answers, loaded[quiet].next_answer) == ([], 0)
        # someone new takes seat 1 of CALM (occupant 1): seat 1's answers of occupant 0
        # stay in the table but no longer come back; the newcomer's do
        await store.set_seat(calm, SeatData(1, "human", "Bea", "", "ab" * 32, False, 1),
                             answer=answer(2, seat=1, occupant=1))
        await store.set_timer(calm, 30, answer=answer(3, seat=1, occupant=0))
        [again] = await store.load_rooms(code="CALM")
        assert again.answers == [answer(0), answer(1), answer(2, seat=1, occupant=1)]
        assert again.next_answer == 4 and again.seats[1].occupant == 1
        await store.delete_room(busy)

        def count(connection: Connection) -> int:
            return int(connection.execute(text(
                f"SELECT count(*) FROM answers WHERE room_id = {busy}")).scalar_one())
        assert await store.run(count) == 0
    finally:
        await store.close()


async def test_an_answer_commits_with_its_change_or_neither_is_stored(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        room = await store.create_room(new_room("BOTH"))
        await store.set_timer(room, 30, answer=answer(0))
        # each change below comes with an answer whose number is taken: the write fails,
        # and the change is not stored either
        failing: list[Callable[[], Awaitable[None]]] = [
            lambda: store.set_seats(room, [SeatData(1, "bot", "easy bot", "easy"),
                                           SeatData(2, "bot", "hard bot", "hard")],
                                    answer=answer(0)),
            lambda: store.set_timer(room, 60, answer=answer(0)),
            lambda: store.add_contribution(room, 0, "ann-1", answer=answer(0)),
            lambda: store.start_match(room, 12345, answer=answer(0)),
        ]
        for write in failing:
            with pytest.raises(StoreError):
                await write()
        [stored] = await store.load_rooms()
        assert [s.kind for s in stored.seats] == ["empty", "empty", "empty"]
        assert (stored.turn_timer, stored.contributions, stored.status, stored.seed) == (
            30, {}, "lobby", None)
        assert stored.answers == [answer(0)]
        # with a free number, the change and the answer are stored together
        await store.start_match(room, 12345, answer=answer(1, seat=2))
        [started] = await store.load_rooms()
        assert (started.status, started.seed) == ("playing", 12345)
        assert started.answers == [answer(0), answer(1, seat=2)]
    finally:
        await store.close()


async def test_0004_gives_the_rows_of_0003_occupant_0_and_back(database_url: str) -> None:
    migrate_to(database_url, "0003")
    engine = open_engine(database_url)
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO rooms (id, code, rules, status, turn_timer, public, server_seed, "
            "commitment, seed, created_at) VALUES (7, 'OLD', '{}', 'playing', 30, true, "
            "'00', 'ab', '5', 1.5)"))
        connection.execute(text(
            "INSERT INTO seats (room_id, seat, kind, name, bot, token_hash, host) VALUES "
            "(7, 0, 'human', 'Ann', '', 'ff', true)"))
        connection.execute(text(
            "INSERT INTO actions (room_id, n, action, seat, origin, client_id, seq, at) "
            "VALUES (7, 0, '0:draw', 0, 'player', 'a1', 4, 2.0)"))
        connection.execute(text(
            "INSERT INTO chat (room_id, n, seat, name, text, at, client_id, seq) VALUES "
            "(7, 0, 0, 'Ann', 'hi', 1700000000000, 'c1', -1)"))
        connection.execute(text(
            "INSERT INTO answers (room_id, n, seat, client_id, answer, at) VALUES "
            "(7, 0, 0, 'h0', '{}', 3.0)"))
    engine.dispose()
    store = Store(database_url)  # migrates to the newest revision
    try:
        assert current_revision(store.engine) == HEAD
        [old] = await store.load_rooms()
        assert [s.occupant for s in old.seats] == [0]
        assert [(a.client_id, a.occupant) for a in old.actions] == [("a1", 0)]
        assert [(c.client_id, c.occupant) for c in old.chat_answers] == [("c1", 0)]
        assert [(a.client_id, a.occupant) for a in old.answers] == [("h0", 0)]
        assert old.next_answer == 1
    finally:
        await store.close()
    migrate_to(database_url, "0003", down=True)
    engine = open_engine(database_url)
    with engine.connect() as connection:
        for table in ("seats", "actions", "chat", "answers"):
            names = {c["name"] for c in inspect(connection).get_columns(table)}
            assert "occupant" not in names and "room_id" in names
            assert connection.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 1
    assert current_revision(engine) == "0003"
    engine.dispose()
