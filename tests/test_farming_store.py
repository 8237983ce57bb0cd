"""The anti-farming checks applied by the server, on SQLite and PostgreSQL: a
win-trading pair (blatant through the server's rooms, subtle through the store API the
rooms call) gains no rating, and the flag and its reasons are stored and listed for
operators (``GET /admin/flagged``, ``unokit admin flagged``); honest matches are not
flagged; the stored play statistics equal a replay of the record; a flagged match
still pays its XP (docs/accounts.md); revision 0011 goes up from every earlier one."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Connection, inspect, select, text
from typer.testing import CliRunner

from room_kit import Table
from server_harness import running_server, server_settings
from store_kit import migrate_to
from test_server_xp import seated
from unokit.cli import app
from unokit.engine.actions import DRAW, PASS, PLAY, action_type, format_action
from unokit.engine.driver import Driver
from unokit.engine.game import Game
from unokit.engine.phases import MATCH_OVER
from unokit.engine.rules import Rules
from unokit.server import protocol as P
from unokit.server.room_state import RoomState
from unokit.store import ActionData, NewRoom, SeatData, Store, xp
from unokit.store import accounts as A
from unokit.store import match_play as M
from unokit.store import ratings as R
from unokit.store.db import HEAD, current_revision, open_engine
from unokit.store.farming import play_mark
from unokit.store.rating_model import MU
from unokit.store.seatings import facts_of, read_record

pytestmark = pytest.mark.asyncio

TOKEN = "test-admin-token-0123456789"
RULES = {"preset": "official", "players": 2, "hand_size": 5, "rounds": 1}


async def accounts(store: Store, names: list[str], now: float = 0.0) -> list[int]:
    out = []
    for number, name in enumerate(names):
        player = await A.create_guest(store, name.ljust(43, "x"), now=now,
                                      address=f"198.51.{number}.1")
        await A.claim(store, player, name, "$argon2id$x", now=now)
        out.append(player)
    return out


def choose(game: Game, seat: int, throw: float, rng: random.Random, threw: list[bool]) -> int:
    """A seat's action: a random play when it can (or draws instead, with chance
    ``throw``, and keeps the drawn card), else the first legal action."""
    legal = game.legal_actions(seat)
    types = [action_type(a) for a in legal]
    if threw[seat] and PASS in types:
        threw[seat] = False
        return legal[types.index(PASS)]
    threw[seat] = False
    plays = [a for a in legal if action_type(a) == PLAY]
    if plays and DRAW in types and rng.random() < throw:
        threw[seat] = True
        return legal[types.index(DRAW)]
    return rng.choice(plays) if plays else legal[0]


async def stored_match(store: Store, code: str, players: list[int | None], seed: int, *,
                       throw: dict[int, float] | None = None, rng: random.Random,
                       marks: bool = True, bots: tuple[int, ...] = ()) -> dict[int, Any]:
    """One match stored as a room stores it (its play marks with the last action;
    ``marks=False``: left to the store to replay); ``throw``: seat -> share of playable
    turns it draws instead; ``bots``: seats a bot holds. The ratings it showed."""
    rules = Rules.from_dict({**RULES, "players": len(players)})
    room = await store.create_room(NewRoom(
        code=code, rules=json.dumps(rules.to_dict()), turn_timer=0, public=True,
        server_seed="00" * 32, commitment="ab" * 32, seats=rules.players))
    await store.set_seats(room, [
        SeatData(s, "bot" if s in bots else "human", f"s{s}", "hard" if s in bots else "",
                 "h" * 64, False, 1, None if s in bots else p)
        for s, p in enumerate(players)])
    await store.start_match(room, seed)
    game = Game(rules, seed)
    driver = Driver(game)
    made: list[int] = []
    threw = [False] * rules.players
    shown: dict[int, Any] = {}
    while game.phase is not MATCH_OVER:
        seat = driver.lead()
        action = choose(game, seat, (throw or {}).get(seat, 0.0), rng, threw)
        origin = "bot" if seat in bots else "player"
        made.append(play_mark(game, action, origin))
        driver.apply(action)
        over = game.phase is MATCH_OVER
        shown = await store.append_action(room, ActionData(
            len(game.history) - 1, format_action(action), seat, origin, None,
            game.log[-1].seq, 1.0, 1), finished=over,
            facts=facts_of(rules, game.log) if over else None,
            marks=made if over and marks else None) or {}
    # what a room that comes back finished shows again: the same, read back
    again = await store.run(lambda c: R.shown_ratings(c, [room], store.rating_policy))
    assert again == {room: shown}
    return shown


async def mu_of(store: Store, player: int) -> float:
    return float((await store.run(R.stored_ratings)).get(player, (MU, 0.0, 0))[0])


async def reasons_of(store: Store, code: str) -> list[list[str]]:
    def read(connection: Connection) -> list[list[str]]:
        room = connection.execute(select(M.ROOMS.c.id).where(M.ROOMS.c.code == code)).scalar()
        return [r.split(",") if r else [] for r in connection.execute(
            select(M.PLAY_SEATS.c.reasons).where(M.PLAY_SEATS.c.match_id == room)
            .order_by(M.PLAY_SEATS.c.slot)).scalars()]
    return await store.run(read)


async def test_a_thrown_match_through_the_rooms_rates_nobody_and_is_listed(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        ann, bea = await accounts(store, ["Ann", "Bea"])
        table = await Table.open(store, "THRO", RULES)
        conns = {0: await seated(table, "Ann", ann), 1: await seated(table, "Bea", bea)}
        await table.send(conns[0], P.Start(id="go"))
        room, step, threw = table.room, 0, [False, False]
        while room.game is not None and room.game.phase is not MATCH_OVER:
            assert room.driver is not None
            seat = room.driver.lead()
            # Bea throws: she draws whenever she could play, and keeps the card
            action = choose(room.game, seat, 1.0 if seat == 1 else 0.0, random.Random(step),
                            threw)
            step += 1
            answer = await table.send(conns[seat], P.Act(
                id=f"a{step}", action=format_action(action).split(":", 1)[1]))
            assert b'"ack"' in answer, answer
        assert room.game is not None and room.game.match_winner == 0
        assert await store.run(R.stored_ratings) == {}  # nobody moved
        both = ["thrown", "thrown_pattern"]  # the whole match, and Ann fed by Bea
        assert await reasons_of(store, "THRO") == [both, both]
        page, more = await store.run(M.flagged_matches)
        assert more is None and [m["code"] for m in page] == ["THRO"]
        assert [(s["name"], s["place"], s["reasons"]) for s in page[0]["seats"]] == [
            ("Ann", 1, both), ("Bea", 2, both)]

        def check(connection: Connection) -> tuple[list[Any], list[Any]]:
            _, seatings = read_record(connection, room.id)
            stored = [p.play for p in M.judged(connection)[0][1]]
            return stored, M.replayed_play(connection, room.id, seatings)
        stored, replayed = await store.run(check)
        assert stored == replayed  # the room's marks are the record's
        # a room brought back from the database marks its stored actions the same way
        [again] = await store.load_rooms(code="THRO")
        restored = RoomState.restore(again, room.rules, settings=room.settings, now=0.0,
                                     monotonic=0.0)
        assert restored.play_marks == room.state.play_marks
        assert len(room.state.play_marks) == len(room.game.history)
        assert stored[1].voluntary_draws == stored[1].playable_turns > 0
        # the documented rule: a flagged match still pays its XP (they played it)
        lines = (await xp.stored_lines(store))[room.id]
        assert lines[ann]["played"] == 1 and lines[ann]["won_match"] == 1
        assert lines[bea]["played"] == 1
    finally:
        await store.close()


async def test_a_subtle_win_trading_pair_gains_nothing_once_caught(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann, bea = await accounts(store, ["Ann", "Bea"])
        rng = random.Random(24)
        gains: list[tuple[float, list[list[str]]]] = []
        for m in range(8):
            before = await mu_of(store, ann)
            # Bea holds cards back on a third of her turns: never enough for ``thrown``
            await stored_match(store, f"W{m}", [ann, bea], 100 + m, throw={1: 0.35}, rng=rng)
            gains.append((await mu_of(store, ann) - before, await reasons_of(store, f"W{m}")))
        flagged = [(gain, reasons) for gain, reasons in gains if any(reasons)]
        assert len(flagged) >= 5, gains  # caught within the first matches
        found: set[str] = set()
        for gain, reasons in flagged:
            assert gain == 0.0
            found |= {x for r in reasons for x in r}
        assert found & {"thrown_pattern", "lopsided_pair"}, gains
    finally:
        await store.close()


async def test_honest_matches_are_not_flagged(database_url: str) -> None:
    store = Store(database_url)
    try:
        players = await accounts(store, [f"P{n}" for n in range(6)])
        rng = random.Random(7)
        for m in range(18):
            table = rng.sample(players, rng.choice((2, 3)))
            bots = (len(table),) if rng.random() < 0.3 else ()
            await stored_match(store, f"H{m}", [*table, *([None] * len(bots))], 1000 + m,
                               rng=rng, bots=bots, marks=m % 2 == 0)
        page, _ = await store.run(M.flagged_matches)
        assert page == []
        rated = {row.match_id for row in (await store.run(
            lambda c: list(c.execute(select(R.RESULTS)))))}
        assert len(rated) == 18
        # the store replays what a room did not mark: the same statistics either way
        def check(connection: Connection) -> list[bool]:
            out = []
            for row, parts, _ in M.judged(connection):
                _, seatings = read_record(connection, row.match_id)
                out.append([p.play for p in parts] == M.replayed_play(
                    connection, row.match_id, seatings))
            return out
        assert all(await store.run(check))
    finally:
        await store.close()


async def test_the_same_deal_again_is_unrated_for_that_player(database_url: str) -> None:
    store = Store(database_url)
    try:
        [ann] = await accounts(store, ["Ann"])
        rng = random.Random(3)
        await stored_match(store, "D1", [ann, None], 42, rng=rng, bots=(1,))
        first = await mu_of(store, ann)
        assert first != MU and await reasons_of(store, "D1") == [[], []]
        await stored_match(store, "D2", [ann, None], 42, rng=rng, bots=(1,))
        assert await mu_of(store, ann) == first
        assert await reasons_of(store, "D2") == [["repeat_deal"], []]
    finally:
        await store.close()


async def test_operators_list_flagged_matches(database_url: str, tmp_path: Path) -> None:
    store = Store(database_url)
    try:
        ann, bea, cid, dan = await accounts(store, ["Ann", "Bea", "Cid", "Dan"])
        rng = random.Random(5)
        for m in range(3):
            await stored_match(store, f"F{m}", [ann, bea], 500 + m, throw={1: 1.0}, rng=rng)
        await stored_match(store, "OK1", [cid, dan], 600, rng=rng)
    finally:
        await store.close()
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    async with running_server(server_settings(database_url, admin_token=TOKEN)) as server:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with httpx.AsyncClient() as http:
            first = (await http.get(server.url + "/admin/flagged?limit=2",
                                    headers=headers)).json()
            assert [m["code"] for m in first["matches"]] == ["F2", "F1"]
            rest = (await http.get(server.url + f"/admin/flagged?before={first['before']}",
                                   headers=headers)).json()
            assert [m["code"] for m in rest["matches"]] == ["F0"] and rest["before"] is None
            for bad in ("limit=0", "limit=51", "before=x", "before=-1", "limit=1e3"):
                answer = await http.get(server.url + "/admin/flagged?" + bad, headers=headers)
                assert answer.status_code == 400 and answer.json()["error"] == "bad_request"
            assert (await http.get(server.url + "/admin/flagged")).status_code == 401
        result = await asyncio.to_thread(CliRunner().invoke, app, [
            "admin", "flagged", "--server", server.url, "--token-file", str(token_file)])
        assert result.exit_code == 0, result.output
        assert "F2" in result.output and "Bea #2 (thrown+" in result.output
        assert "OK1" not in result.output


@pytest.mark.parametrize("revision", ["0001", "0008", "0009", "0010"])
async def test_revision_0011_goes_up_from_every_earlier_one(database_url: str,
                                                            revision: str) -> None:
    migrate_to(database_url, revision)
    engine = open_engine(database_url)
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO rooms (code, rules, status, turn_timer, public, server_seed, "
            "commitment, created_at) VALUES ('OLD1', '{}', 'lobby', 0, true, 'aa', 'bb', 1.0)"))
    engine.dispose()
    store = Store(database_url)  # migrates to the newest revision
    try:
        assert current_revision(store.engine) == HEAD
        assert [r.code for r in await store.load_rooms(code="OLD1")] == ["OLD1"]
        assert await store.run(M.judged) == []
        [ann, bea] = await accounts(store, ["Ann", "Bea"])
        await stored_match(store, "NEW1", [ann, bea], 9, rng=random.Random(1))
        assert len(await store.run(M.judged)) == 1
    finally:
        await store.close()
    migrate_to(database_url, "0010", down=True)
    engine = open_engine(database_url)
    try:
        assert current_revision(engine) == "0010"
        with engine.connect() as connection:
            codes = connection.execute(text("SELECT code FROM rooms ORDER BY id")).scalars()
            assert list(codes) == ["OLD1", "NEW1"]
            tables = inspect(connection).get_table_names()
            assert "match_play" not in tables and "match_play_seats" not in tables
    finally:
        engine.dispose()
