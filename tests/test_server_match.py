"""Two protocol clients and a server-side bot play a seeded match to its end, on SQLite
and on PostgreSQL; the record verifies."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from server_harness import running_server, server_settings
from unokit.client import GameClient
from unokit.formats.fairdeal import derive_seed, verify_record
from unokit.formats.record import Record, replay
from unokit.server import protocol as P

pytestmark = pytest.mark.asyncio


async def play(client: GameClient) -> None:
    """Play the first legal action whenever it is this seat's turn, until the match
    ends."""
    while client.reveal is None:
        await client.wait_for(lambda c: c.reveal is not None or c.must)
        if client.reveal is not None:
            return
        legal = client.legal
        choice = next((a for a in legal if a.endswith("!")), legal[0])
        try:
            await client.act(choice)
        except Exception:  # refused (the state moved on): look again
            client.must = False


async def test_two_clients_and_a_bot_play_a_seeded_match(database_url: str) -> None:
    settings = server_settings(database_url)
    server_seed = bytes(range(32))
    async with running_server(settings, seeds=[server_seed]) as server:
        async with httpx.AsyncClient() as http:
            made = (await http.post(server.url + "/api/rooms",
                                    json={"rules": "official,players=3,rounds=2"})).json()
        code = made["code"]
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
        assert (ann.seat, bob.seat) == (0, 1)
        assert ann.room["seats"][0]["host"]
        await ann.command(P.AddBot, bot="normal")
        await ann.command(P.Contribute, value="ann-random")
        await bob.command(P.Contribute, value="bob-random")
        await ann.command(P.Start)
        await asyncio.gather(play(ann), play(bob))
        assert ann.reveal == bob.reveal
        assert ann.reveal is not None and ann.reveal["server_seed"] == server_seed.hex()
        expected_seed = derive_seed(server_seed, {0: "ann-random", 1: "bob-random"})
        assert int(ann.reveal["seed"]) == expected_seed
        async with httpx.AsyncClient() as http:
            data = (await http.get(f"{server.url}/api/rooms/{code}/record")).json()
        record = Record.from_dict(data)
        assert record.seed == expected_seed
        assert record.players == ["Ann", "Bob", "normal bot"]
        report = verify_record(record)
        assert report.passed, report.lines()
        game = replay(record)
        assert game.is_over()
        # every event each client saw, in order, with nothing missing
        assert [e["seq"] for e in ann.events] == list(range(len(game.log)))
        assert [e["seq"] for e in bob.events] == list(range(len(game.log)))
        async with httpx.AsyncClient() as http:
            checks = (await http.get(f"{server.url}/api/rooms/{code}/verify")).json()
        assert checks["passed"], checks
        await ann.close()
        await bob.close()
    # after a restart the finished room is rebuilt from the database for its record
    async with running_server(settings) as again:
        async with httpx.AsyncClient() as http:
            later = (await http.get(f"{again.url}/api/rooms/{code}/record")).json()
            missing = await http.get(f"{again.url}/api/rooms/NOSUCH/record")
        assert later == data
        assert missing.status_code == 404


async def test_a_room_of_ten_seats_plays_to_the_end_and_seat_nine_can_be_caught(
        database_url: str) -> None:
    from unokit.engine.actions import catch, format_action, parse_action
    # ten seats are numbered 0-9, so every seat is one digit in an action's text
    assert format_action(catch(0, 9)) == "0:catch 9"
    assert parse_action("9:catch 0") == catch(9, 0)
    settings = server_settings(database_url)
    async with running_server(settings) as server:
        async with httpx.AsyncClient() as http:
            made = (await http.post(server.url + "/api/rooms",
                                    json={"rules": "official,players=10,rounds=1"})).json()
        ann = await GameClient.join(server.url, made["code"], name="Ann")
        for _ in range(9):
            await ann.command(P.AddBot, bot="random")
        assert [s["kind"] for s in ann.room["seats"]] == ["human"] + ["bot"] * 9
        await ann.command(P.Start)
        await play(ann)
        assert ann.reveal is not None
        await ann.close()
