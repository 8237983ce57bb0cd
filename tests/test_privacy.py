"""A player's deletion, on SQLite and PostgreSQL: afterwards no row of any table holds
the deleted player's id (every column named like a player id, found in the tables'
metadata, so that a table added later is checked too), while the full re-rate still
gives every other player's rating and every verdict again; the rooms' records forget
the player; the expired guests' cleanup does the same; the export holds what is kept
of the player while the account lives; revision 0013 erases the players deleted before
it (see :mod:`unokit.store.erasure`)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from sqlalchemy import Column, Connection, inspect, select, text
from typer.testing import CliRunner

from asgi_driver import opened_app
from room_kit import Conn, Table
from store_kit import migrate_to, new_room
from test_challenges import T0, completed
from test_farming_store import accounts, stored_match
from test_server_accounts import PASSWORD, Browser
from test_server_accounts import settings as server_settings
from test_server_xp import seated
from unokit.cli import app as cli
from unokit.server import inbox, ops_command
from unokit.server import protocol as P
from unokit.store import ChatData, SeatData, Store, coins
from unokit.store import accounts as A
from unokit.store import boards as B
from unokit.store import challenges as CH
from unokit.store import erasure as E
from unokit.store import export as X
from unokit.store import match_play as M
from unokit.store import ratings as R
from unokit.store.db import HEAD, current_revision, open_engine
from unokit.store.models import Base

pytestmark = pytest.mark.asyncio


def player_columns() -> list[Column[Any]]:
    """Every column of every table that holds a player's id, by its name."""
    found: list[Column[Any]] = []
    for table in Base.metadata.sorted_tables:
        for column in table.columns:
            name = column.name
            if (name in ("player", "player_id") or name.endswith("_player_id")
                    or (table.name == "players" and name == "id")):
                found.append(column)
    return found


async def test_every_player_column_has_a_rule_for_deletion() -> None:
    # a table added with a player's id must say what a deletion does to it
    assert {f"{c.table.name}.{c.name}" for c in player_columns()} == set(E.PLAYER_COLUMNS)


async def naming(store: Store, player: int) -> dict[str, int]:
    """How many rows of each player column hold ``player`` (columns with none left out)."""
    def read(connection: Connection) -> dict[str, int]:
        out = {}
        for column in player_columns():
            count = len(connection.execute(select(column).where(column == player)).all())
            if count:
                out[f"{column.table.name}.{column.name}"] = count
        return out
    return await store.run(read)


async def history(store: Store) -> tuple[Any, ...]:
    """The stored ratings, entrants and verdicts, and the re-rate's."""
    stored = await store.run(R.stored_ratings)
    again = await store.run(R.rerate_all)
    return (stored, await store.run(R.stored_afters), await store.run(R.stored_reasons),
            again)


async def test_a_deleted_player_is_named_by_no_row_and_the_rerate_still_holds(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        ann, bea, cid = await accounts(store, ["Ann", "Bea", "Cid"])
        # Bea last signed in from Ann's network (198.51.0.x): they share a digest
        await A.new_session(store, bea, "z" * 43, now=1.0, address="198.51.0.9")
        await A.create_token(store, ann, "t" * 43, "bot", now=1.0)
        rng = random.Random(24)
        await stored_match(store, "AB1", [ann, bea], 11, rng=rng)
        await stored_match(store, "AB2", [ann, bea], 12, throw={1: 1.0}, rng=rng)
        await stored_match(store, "AC1", [ann, cid], 13, rng=rng)
        await stored_match(store, "AC2", [cid, ann], 13, rng=rng)  # the deal again
        await stored_match(store, "ABC", [ann, bea, None], 14, bots=(2,), rng=rng)
        await stored_match(store, "BC1", [bea, cid], 15, rng=rng)
        end = CH.period_end("weekly", T0)
        await store.run(lambda c: c.execute(CH.PROGRESS.delete().where(
            CH.PROGRESS.c.player_id == ann)))  # the matches made some: a goal instead
        await completed(store, ann, "weekly.win_5", end)
        await store.run(lambda c: coins.credit(c, ann, 100, "gift", "g1", 1.0))
        assert isinstance(await CH.claim_reward(store, ann, "weekly.win_5", end, now=T0),
                          CH.Paid)
        assert await coins.buy(store, ann, "table.wine", now=T0) == 40
        assert await coins.choose(store, ann, "table.wine")
        await store.run(lambda c: B.set_scores(c, "rating", {ann: 1600, bea: 1500}))
        lobby = await store.create_room(new_room("LOBBY", seats=2))
        await store.set_seats(lobby, [SeatData(0, "human", "Ann", "", "h" * 64, True, 1, ann)])
        await store.append_chat(lobby, ChatData(0, 0, "Ann", "hi", 1, None, 0, 1, ann))

        before = await naming(store, ann)
        # every table that can name a player names Ann now
        assert set(before) == set(E.PLAYER_COLUMNS), set(E.PLAYER_COLUMNS) - set(before)
        bea_before = await naming(store, bea)
        stored, afters, reasons, again = await history(store)
        assert again.reasons == reasons and {"thrown", "repeat_deal"} <= {
            r for seats in reasons.values() for rs in seats.values() for r in rs}
        assert again.ratings == stored and again.afters == afters

        data = await X.export(store, ann)
        assert data["rating"]["matches"] == stored[ann][2] > 0
        assert len(data["rated_matches"]) == before["rating_results.player_id"]
        assert len(data["match_checks"]) == before["match_play_seats.player_id"] == 5
        assert {r for m in data["match_checks"] for r in m["reasons"]} >= {"thrown",
                                                                          "repeat_deal"}
        assert len(data["seatings"]) == before["seatings.player_id"]
        assert {"room": "LOBBY", "seat": 0} in data["seats"]
        assert len(data["seats"]) == before["seats.player_id"] == 6
        assert data["leaderboards"] == [{"board": "rating", "score": 1600, "rank": 1}]
        assert data["chat_lines"] == [{"room": "LOBBY", "seat": 0, "name": "Ann",
                                       "text": "hi", "at": 1}]
        # a page of one row at a time (keyset on every list's key) gives the same
        assert await X.export(store, ann, page=1) == data

        await A.delete_player(store, ann)
        assert await naming(store, ann) == {}
        assert await naming(store, bea) == {
            k: v for k, v in bea_before.items() if k != "board_entries.player_id"} | {
            "board_entries.player_id": 1}
        # the history keeps Ann's matches under one number that names nobody
        stored2, afters2, reasons2, again2 = await history(store)

        def erased(connection: Connection) -> set[int]:
            return {int(p) for t in (E.RESULTS, E.PLAY_SEATS) for p in connection.execute(
                select(t.c.player_id).where(t.c.player_id < 0)).scalars()}
        [alias] = await store.run(erased)
        assert alias < 0 and stored2 == {p: v for p, v in stored.items() if p != ann}
        assert afters2 == afters and reasons2 == reasons
        # the re-rate gives every stored rating and verdict again, Ann's as the alias's
        assert again2.reasons == reasons and again2.afters == afters
        assert {p: v for p, v in again2.ratings.items() if p > 0} == stored2
        assert again2.ratings[alias] == stored[ann]

        def addresses(connection: Connection) -> dict[str, str]:
            return {row.code: row.address for row in connection.execute(
                select(M.ROOMS.c.code, E.PLAY_SEATS.c.address).join(
                    E.PLAY_SEATS, E.PLAY_SEATS.c.match_id == M.ROOMS.c.id)
                .where(E.PLAY_SEATS.c.player_id == alias))}
        kept = await store.run(addresses)
        # kept where Bea shares it (a verdict may rest on it), cleared against Cid
        assert kept["AB1"] and kept["AB2"] and kept["ABC"]
        assert kept["AC1"] == kept["AC2"] == ""
        flagged, _ = await store.run(M.flagged_matches)
        assert {s["player"] for m in flagged for s in m["seats"]} <= {bea, cid, None}
        assert (await store.load_rooms(code="LOBBY"))[0].seats[0].player_id is None
    finally:
        await store.close()


async def test_expired_guests_leave_no_row_naming_them(database_url: str) -> None:
    store = Store(database_url)
    try:
        [bea] = await accounts(store, ["Bea"])
        guest = await A.create_guest(store, "g" * 43, now=0.0, address="203.0.113.4")
        rng = random.Random(3)
        await stored_match(store, "GB1", [guest, bea], 21, rng=rng)
        await stored_match(store, "GB2", [bea, guest], 21, rng=rng)
        assert {"match_play_seats.player_id", "seatings.player_id", "seats.player_id",
                "player_matches.player_id"} <= set(await naming(store, guest))
        before = await store.run(M.judged)
        assert await A.delete_lost_guests(store, 10.0) == 1
        assert await naming(store, guest) == {}
        after = await store.run(M.judged)
        assert [row.match_id for row, _, _ in after] == [row.match_id for row, _, _ in before]
        assert await store.run(R.stored_reasons) == (await store.run(R.rerate_all)).reasons
    finally:
        await store.close()


async def test_a_player_deleted_during_a_match_is_nobody_in_its_record(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        ann, bea = await accounts(store, ["Ann", "Bea"])
        starting = store.start_match

        async def start_then_delete(room: int, seed: int) -> None:
            await starting(room, seed)
            await A.delete_player(store, ann)
            # the room still holds Ann's seat in memory and writes it again
            await store.set_seats(room, [SeatData(0, "human", "Ann", "", "h" * 64, False,
                                                  2, ann)])
        store.start_match = start_then_delete  # type: ignore[method-assign]
        shown = await stored_match(store, "DEL", [ann, bea], 31, rng=random.Random(1))
        assert shown == {}  # a person who is nobody: the match is not rated
        assert await naming(store, ann) == {}
        players = await store.run(lambda c: list(c.execute(
            select(E.PLAY_SEATS.c.player_id).order_by(E.PLAY_SEATS.c.slot)).scalars()))
        assert players == [None, bea]
    finally:
        await store.close()


async def test_a_seat_whose_player_is_gone_by_the_end_is_stored_as_nobody(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        ann, bea = await accounts(store, ["Ann", "Bea"])
        starting = store.start_match

        async def start_then_forget(room: int, seed: int) -> None:
            await starting(room, seed)
            # a seating naming an id no player has (deleted while the end was on its way)
            await store.run(lambda c: c.execute(E.SEATINGS.update().where(
                E.SEATINGS.c.room_id == room, E.SEATINGS.c.seat == 0).values(
                player_id=ann + bea + 100)))
        store.start_match = start_then_forget  # type: ignore[method-assign]
        await stored_match(store, "GONE", [ann, bea], 32, rng=random.Random(2))
        players = await store.run(lambda c: list(c.execute(
            select(E.PLAY_SEATS.c.player_id).order_by(E.PLAY_SEATS.c.slot)).scalars()))
        assert players == [None, bea]
    finally:
        await store.close()


@pytest.mark.parametrize("revision", ["0011", "0012"])
async def test_revision_0013_erases_the_players_deleted_before_it(
        database_url: str, revision: str) -> None:
    migrate_to(database_url, revision)
    engine = open_engine(database_url)
    gone = 77  # a player deleted under an earlier revision: no row in players
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO rooms (code, rules, status, turn_timer, public, server_seed, "
            "commitment, created_at) VALUES ('OLD1', '{}', 'finished', 0, true, 'aa', 'bb', "
            "1.0)"))
        room = connection.execute(text("SELECT id FROM rooms")).scalar_one()
        connection.execute(text(
            "INSERT INTO seats (room_id, seat, kind, name, bot, token_hash, host, occupant, "
            f"player_id) VALUES ({room}, 0, 'human', 'x', '', '', false, 1, {gone})"))
        connection.execute(text(
            "INSERT INTO seatings (room_id, seat, occupant, player_id, kind, from_action) "
            f"VALUES ({room}, 0, 1, {gone}, 'human', 0)"))
        connection.execute(text(
            "INSERT INTO rating_results (match_id, slot, player_id, bot, team, rank, n, "
            "mu_before, sigma_before, mu_after, sigma_after, ended_at) VALUES "
            f"({room}, 0, {gone}, '', 0, 0, 0, 25, 8, 26, 7, 2.0)"))
        for slot, (player, address) in enumerate([(gone, "aaa"), (gone + 1, "bbb")]):
            connection.execute(text(
                "INSERT INTO match_play_seats (match_id, slot, seat, player_id, bot, team, "
                "rank, \"left\", turns, playable_turns, voluntary_draws, actions, "
                "played_for, address, account_days, rated_matches, reasons) VALUES "
                f"({room}, {slot}, {slot}, {player}, '', {slot}, {slot}, false, 1, 1, 0, 1,"
                f" 0, '{address}', 3.0, 0, '')"))
    engine.dispose()
    store = Store(database_url)  # migrates to the newest revision
    try:
        assert current_revision(store.engine) == HEAD
        assert await naming(store, gone) == {}
        assert await naming(store, gone + 1) == {}  # 78 was never a player either

        def aliases(connection: Connection) -> list[tuple[int, str]]:
            return [(int(row.player_id), row.address) for row in connection.execute(
                select(E.PLAY_SEATS).order_by(E.PLAY_SEATS.c.slot))]
        [(first, a), (second, b)] = await store.run(aliases)
        assert first < 0 and second < 0 and first != second and a == b == ""
    finally:
        await store.close()
    migrate_to(database_url, "0012", down=True)
    engine = open_engine(database_url)
    try:
        with engine.connect() as connection:
            assert "erased_players" not in inspect(connection).get_table_names()
    finally:
        engine.dispose()


async def test_operators_see_a_deleted_player_as_nobody(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    page = {"matches": [{"seq": 3, "code": "AB2", "match": 7, "ended_at": 1.0, "seats": [
        {"seat": 0, "player": None, "name": None, "bot": None, "place": 1,
         "reasons": ["thrown"]},
        {"seat": 1, "player": 2, "name": "Bea", "bot": None, "place": 2,
         "reasons": ["thrown"]}]}], "before": None}
    monkeypatch.setattr(ops_command, "call", lambda *args, **kwargs: page)
    token = tmp_path / "token"
    token.write_text("t" * 32)
    result = await asyncio.to_thread(CliRunner().invoke, cli, [
        "admin", "flagged", "--server", "http://x", "--token-file", str(token)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "3  AB2  0:- #1 (thrown), 1:Bea #2 (thrown)"


async def chat_rows(store: Store, room: int) -> list[tuple[int, str, str, int | None]]:
    return await store.run(lambda c: [tuple(r) for r in c.execute(select(
        E.CHAT.c.seat, E.CHAT.c.name, E.CHAT.c.text, E.CHAT.c.player_id).where(
        E.CHAT.c.room_id == room).order_by(E.CHAT.c.n))])


async def test_a_deleted_players_name_and_chat_lines_go_from_the_room(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        ann, bea = await accounts(store, ["Ann", "Bea"])
        table = await Table.open(store, "TALK")
        conns = {0: await seated(table, "Ann", ann), 1: await seated(table, "Bea", bea)}
        for seat, text in ((0, "hi from Ann"), (1, "hi from Bea"), (0, "bye")):
            await table.send(conns[seat], P.SendChat(id=f"c{seat}{text}", text=text))
        assert [row[3] for row in await chat_rows(store, table.room.id)] == [ann, bea, ann]
        # a line written before revision 0014 names no player: found by its seat's occupant
        await store.run(lambda c: c.execute(E.CHAT.insert().values(
            room_id=table.room.id, n=3, seat=0, name="Ann", text="old line", at=1, seq=0,
            occupant=table.room.seats[0].occupant, player_id=None)))

        await A.delete_player(store, ann)
        assert await chat_rows(store, table.room.id) == [(1, "Bea", "hi from Bea", bea)]
        names = await store.run(lambda c: list(c.execute(select(E.SEATS.c.name).where(
            E.SEATS.c.room_id == table.room.id).order_by(E.SEATS.c.seat)).scalars()))
        assert names == ["Player 1", "Bea"]

        # the room that holds the seat in memory forgets her too
        await table.room.forget_player(ann)
        watcher = Conn()
        await table.handle("hello", watcher, P.Hello(room=table.room.code, spectate=True))
        welcome = watcher.welcome()
        assert [s["name"] for s in welcome["room"]["seats"]] == ["Player 1", "Bea"]
        said = [m["text"] for m in map(msgspec.json.decode, watcher.sent)
                if m.get("type") == "chat"]
        assert said == ["hi from Bea"]
        # what the seat writes now names nobody, here and as stored
        await table.send(conns[0], P.SendChat(id="after", text="still here"))
        assert (await chat_rows(store, table.room.id))[-1] == (
            0, "Player 1", "still here", None)
        await table.restart()
        assert [s.name for s in table.room.seats] == ["Player 1", "Bea"]
        assert [line.text for line in table.room.chat_lines] == ["hi from Bea", "still here"]
    finally:
        await store.close()


async def test_a_room_of_another_process_writes_a_deleted_seat_and_line_as_nobody(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        [ann] = await accounts(store, ["Ann"])
        table = await Table.open(store, "ELSE")
        conn = await seated(table, "Ann", ann)
        await A.delete_player(store, ann)  # nobody tells this room
        await table.send(conn, P.SendChat(id="c1", text="hello"))
        await table.room.store.set_seats(table.room.id, [
            s.data(i) for i, s in enumerate(table.room.seats)])
        assert await chat_rows(store, table.room.id) == [(0, "Player 1", "hello", None)]
        seats = await store.run(lambda c: c.execute(select(
            E.SEATS.c.name, E.SEATS.c.player_id).where(
            E.SEATS.c.room_id == table.room.id, E.SEATS.c.seat == 0)).one())
        assert tuple(seats) == ("Player 1", None)
    finally:
        await store.close()


async def test_deleting_an_account_over_http_tells_the_rooms_that_seat_it(
        database_url: str) -> None:
    async with opened_app(server_settings(database_url)) as (app, rooms):
        ann = Browser(app, ("198.51.100.7", 5000))
        ann_id = await ann.account("Ann")
        room = await rooms.create()
        conn = Conn()
        conn.player = ann_id  # type: ignore[attr-defined]  # what the app sets from a session
        room.submit(inbox.Hello(conn, P.Hello(room=room.code, name="Ann")))
        room.submit(inbox.Message(conn, P.SendChat(id="c1", text="hi all")))
        await room.call(lambda r: asyncio.sleep(0))  # both handled (the inbox is in order)
        assert room.seats[0].name == "Ann" and [x.text for x in room.chat_lines] == ["hi all"]
        answer = await ann.call("POST", "/api/account/delete", {"password": PASSWORD})
        assert answer.status == 200, answer.body
        assert room.seats[0].name == "Player 1" and room.seats[0].player is None
        assert list(room.chat_lines) == []
        told = [m for m in map(msgspec.json.decode, conn.sent) if m.get("type") == "room"]
        assert told[-1]["room"]["seats"][0]["name"] == "Player 1"
