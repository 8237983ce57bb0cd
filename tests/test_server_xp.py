"""XP through the server: a room whose seats were taken by players (a session or an
API token) writes each player's lines when its match ends, and a guest who claims an
account keeps them; a player who leaves
mid-match gets nothing for it, while a seat played by the autopilot stays its
player's; a program signs in with an API token (``unokit bot``'s client) and its seat
is the account's."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from room_kit import Conn, Table
from server_harness import running_server, server_settings
from unokit.client.client import GameClient
from unokit.engine.actions import format_action
from unokit.engine.phases import MATCH_OVER
from unokit.server import protocol as P
from unokit.store import Store, xp
from unokit.store import accounts as A

pytestmark = pytest.mark.asyncio


async def seated(table: Table, name: str, player: int | None) -> Conn:
    conn = Conn()
    conn.player = player  # type: ignore[attr-defined]  # what the app sets from a session
    await table.handle("hello", conn, P.Hello(room=table.room.code, name=name))
    assert conn.welcome()["type"] == "welcome"
    return conn


async def play_out(table: Table, conns: dict[int, Conn], away: set[int]) -> None:
    """Play the match to its end: the seats of ``conns`` by their messages, the seats
    ``away`` as the autopilot does (origin ``auto``)."""
    room = table.room
    step = 0
    while room.game is not None and room.game.phase is not MATCH_OVER:
        assert room.driver is not None
        seat = room.driver.lead()
        action = room.game.legal_actions(seat)[0]
        if seat in away:
            await room._apply(seat, action, "auto", None)
        else:
            step += 1
            text = format_action(action).split(":", 1)[1]
            answer = await table.send(conns[seat], P.Act(id=f"a{step}", action=text))
            assert b'"ack"' in answer, answer


async def test_a_finished_match_pays_its_players(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, "a" * 43, now=0.0)
        bea = await A.create_guest(store, "b" * 43, now=0.0)
        table = await Table.open(store, "XPAB")
        conns = {0: await seated(table, "Ann", ann), 1: await seated(table, "Bea", bea)}
        assert [s.player for s in table.room.seats] == [ann, bea]
        await table.send(conns[0], P.Start(id="go"))
        await play_out(table, conns, set())
        lines = (await xp.stored_lines(store))[table.room.id]
        assert set(lines) == {ann, bea}
        winner = table.room.game.match_winner  # type: ignore[union-attr]
        won = [ann, bea][winner]
        assert lines[won]["played"] == 1 and lines[won]["won_match"] == 1
        totals = await xp.stored_totals(store)
        assert totals[won] >= 28 and totals[won] > totals[[bea, ann][winner]] >= 10
        me = await A.get_player(store, won)
        assert me is not None and me.xp == totals[won]
        page, after = await xp.recent_matches(store, won)
        assert after is None and [m["code"] for m in page] == ["XPAB"]
        assert page[0]["won"] and page[0]["xp"] == totals[won]
        # the guest claims an account: the same player, its XP and matches with it
        await A.claim(store, won, "Winner", "$argon2id$x", now=5.0)
        claimed = await A.get_player(store, won)
        assert claimed is not None and claimed.xp == totals[won] and not claimed.guest
        assert (await xp.recent_matches(store, won))[0] == page
    finally:
        await store.close()


async def test_a_leaver_gets_nothing_and_an_away_seat_keeps_its_match(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        players = [await A.create_guest(store, f"{n}" * 43, now=0.0) for n in range(3)]
        table = await Table.open(store, "XPLV", {"preset": "official", "players": 3,
                                                 "hand_size": 4, "rounds": 1})
        conns = {i: await seated(table, f"P{i}", p) for i, p in enumerate(players)}
        await table.send(conns[0], P.Start(id="go"))
        assert kind_of(await table.send(conns[2], P.Leave(id="bye"))) == "ack"
        # seat 1 stays but is played by the autopilot to the end; seat 2 left
        await play_out(table, {0: conns[0]}, away={1, 2})
        lines = (await xp.stored_lines(store))[table.room.id]
        assert lines[players[2]] == {}  # left and not back: nothing
        assert lines[players[1]]["played"] == 1  # away is not gone
        assert "draw_two" not in lines[players[1]] and "wild_draw_four" not in lines[
            players[1]]  # the autopilot's cards are not the player's
        page, _ = await xp.recent_matches(store, players[2])
        assert page[0]["left"] and page[0]["xp"] == 0
        assert (await xp.stored_totals(store))[players[2]] == 0
    finally:
        await store.close()


def kind_of(data: bytes) -> str:
    return "ack" if b'"type":"ack"' in data else "error"


async def test_a_program_signs_in_with_an_api_token(tmp_path: Path) -> None:
    settings = server_settings(f"sqlite:///{tmp_path / 'x.db'}", hash_memory_kib=8)
    async with running_server(settings) as server:
        async with httpx.AsyncClient(base_url=server.url) as http:
            assert (await http.post("/api/guest", json={})).status_code == 201
            claimed = await http.post("/api/account/claim",
                                      json={"username": "Botter", "password": "long password"})
            account = claimed.json()["id"]
            token = (await http.post("/api/account/tokens", json={"label": "bot"})).json()[
                "token"]
            code = (await http.post("/api/rooms", json={"rules": "official"})).json()["code"]
        client = await GameClient.join(server.url, code, name="my bot", api_token=token)
        try:
            room = server.rooms.rooms[code]
            assert client.seat is not None and room.seats[client.seat].player == account
        finally:
            await client.close_socket()
        anonymous = await GameClient.join(server.url, code, name="nobody")
        try:
            assert anonymous.seat is not None
            assert room.seats[anonymous.seat].player is None
        finally:
            await anonymous.close_socket()


async def test_a_leaver_who_comes_back_before_the_end_keeps_the_match(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        players = [await A.create_guest(store, f"{n}" * 43, now=0.0) for n in range(4)]
        table = await Table.open(store, "XPBK", {"preset": "official", "players": 3,
                                                 "hand_size": 4, "rounds": 1})
        conns = {i: await seated(table, f"P{i}", p) for i, p in enumerate(players[:3])}
        await table.send(conns[0], P.Start(id="go"))
        assert kind_of(await table.send(conns[2], P.Leave(id="bye"))) == "ack"
        stranger = Conn()
        stranger.player = players[3]  # type: ignore[attr-defined]
        await table.handle("hello", stranger, P.Hello(room=table.room.code, name="X"))
        assert stranger.closed  # nobody else takes the seat mid-round
        back = await seated(table, "P2 again", players[2])
        assert back.welcome()["seat"] == 2 and back.welcome()["token"]
        assert table.room.seats[2].player == players[2]
        await play_out(table, {0: conns[0], 1: conns[1], 2: back}, away=set())
        lines = (await xp.stored_lines(store))[table.room.id]
        assert lines[players[2]]["played"] == 1  # back by the end: the match counts
        assert set(lines) == set(players[:3])
    finally:
        await store.close()
