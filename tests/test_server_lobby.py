"""The lobby on the real server, on SQLite and on PostgreSQL: the answers to the host's
and the lobby's commands survive a restart (an id sent again gets the original answer
and changes nothing); a seat that no connection holds is freed after the seat timeout (a
join cut off before its welcome, a player who went), the host passing to the next seated
person; a lobby nobody is connected to is closed after the lobby timeout. The clocks are
tested through :meth:`Rooms.sweep` with a later time, never by waiting."""

from __future__ import annotations

import time
from typing import Any

import httpx
import msgspec
import pytest
import websockets

from server_harness import Running, running_server, server_settings
from unokit.client import ClientError, GameClient
from unokit.client.client import ActionRefused, ws_url
from unokit.server import protocol as P
from unokit.server.room import Room

pytestmark = pytest.mark.asyncio


async def new_room(server: Running, **body: Any) -> str:
    async with httpx.AsyncClient() as http:
        answer = await http.post(server.url + "/api/rooms", json=body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["code"])


async def answer_of(client: GameClient, message: Any) -> Any:
    """What the server answers ``message`` with: its ack, or the code of its error."""
    try:
        return await client.request(message)
    except ActionRefused as exc:
        return exc.code


def kinds(server: Running, code: str) -> list[str]:
    return [s.kind for s in server.rooms.get(code).seats]


async def later(server: Running, seconds: float) -> None:
    """Sweep the lobbies as if ``seconds`` had passed (on both clocks)."""
    await server.rooms.sweep(time.monotonic() + seconds, wall=time.time() + seconds)


# ---------------------------------------------------------------- answers and restarts
async def test_command_answers_survive_a_restart(database_url: str) -> None:
    settings = server_settings(database_url)
    lobby = [P.AddBot(id="h-add", bot="easy"), P.SetTimer(id="h-timer", seconds=30),
             P.Contribute(id="c-ann", value="ann-7f3a9c"), P.AddBot(id="h-add2", bot="hard"),
             P.RemoveBot(id="h-remove", seat=3), P.Kick(id="h-kick", seat=2)]
    async with running_server(settings) as server:
        code = await new_room(server, rules="official,players=4")
        ann = await GameClient.join(server.url, code, name="Ann")
        await GameClient.join(server.url, code, name="Bob", seat=2)
        first = {m.id: await answer_of(ann, m) for m in lobby}
        assert all(isinstance(a, P.Ack) for a in first.values()), first
        room = server.rooms.get(code)
        seats = [(s.kind, s.bot) for s in room.seats]
        assert seats == [("human", ""), ("bot", "easy"), ("empty", ""), ("empty", "")]
    async with running_server(settings) as server:
        ann.base = server.url
        await ann.reconnect()
        # every id sent again gets its first answer and changes nothing: no second bot,
        # no refusal for a contribution or a kick already made
        again = {m.id: await answer_of(ann, m) for m in lobby}
        assert again == first
        room = server.rooms.get(code)
        assert [(s.kind, s.bot) for s in room.seats] == seats
        assert room.turn_timer == 30 and room.contributions == {0: "ann-7f3a9c"}
        # the match starts; its start, sent again after a restart, is answered the same
        await ann.command(P.AddBot, bot="easy")
        await ann.command(P.AddBot, bot="easy")
        start = await answer_of(ann, P.Start(id="h-start"))
        assert isinstance(start, P.Ack) and start.seq >= 0
        history = list(room.game.history) if room.game else None
    async with running_server(settings) as server:
        ann.base = server.url
        await ann.reconnect()
        room = server.rooms.get(code)
        assert room.status == "playing" and room.game is not None
        assert await answer_of(ann, P.Start(id="h-start")) == start
        assert room.game.history[:len(history or [])] == history
        assert await answer_of(ann, P.AddBot(id="h-add", bot="easy")) == first["h-add"]
        # a new id is judged as usual
        assert await answer_of(ann, P.Start(id="h-start-2")) == "mid_round"
        await ann.close()


async def test_a_refused_command_is_judged_again_after_a_restart(database_url: str) -> None:
    # refusals are not stored: the id comes back to a room that may have changed
    settings = server_settings(database_url)
    async with running_server(settings) as server:
        code = await new_room(server, rules="official,players=2")
        ann = await GameClient.join(server.url, code, name="Ann")
        assert await answer_of(ann, P.Start(id="s1")) == "bad_request"  # seat 1 empty
        assert await answer_of(ann, P.Start(id="s1")) == "bad_request"  # remembered
        await ann.command(P.AddBot, bot="easy")
        assert await answer_of(ann, P.Start(id="s1")) == "bad_request"  # still remembered
    async with running_server(settings) as server:
        ann.base = server.url
        await ann.reconnect()
        started = await answer_of(ann, P.Start(id="s1"))
        assert isinstance(started, P.Ack) and server.rooms.get(code).status == "playing"
        await ann.close()


async def test_a_room_failing_after_a_commands_commit_still_acks(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server, rules="official,players=3")
        ann = await GameClient.join(server.url, code, name="Ann")
        room = server.rooms.get(code)
        original = Room._broadcast_room
        crashes: list[int] = []

        def crash(self: Room) -> None:
            if self is room and room.seats[1].kind == "bot" and not crashes:
                crashes.append(1)
                raise RuntimeError("a bug after the commit")
            original(self)

        monkeypatch.setattr(Room, "_broadcast_room", crash)
        added = await answer_of(ann, P.AddBot(id="h-add", bot="easy"))
        assert crashes and isinstance(added, P.Ack)  # the stored answer, not not_stored
        assert await answer_of(ann, P.AddBot(id="h-add", bot="easy")) == added
        assert kinds(server, code) == ["human", "bot", "empty"]
        await ann.close()


# ---------------------------------------------------------------- seats nobody holds
def seat_states(client: GameClient, seat: int) -> list[str]:
    """The kinds of ``seat`` in the room messages ``client`` received, in order."""
    out = []
    for raw in client.received:
        data = msgspec.json.decode(raw)
        if data.get("type") in ("room", "welcome"):
            out.append(data["room"]["seats"][seat].get("kind", "empty"))
    return out


async def test_a_join_sent_again_after_its_welcome_was_lost_gets_the_seat_it_took(
        database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server, rules="official,players=3")
        ann = GameClient(server.url, code, name="Ann")
        ann.keep_raw = True
        await ann.connect()
        made = "bobs-own-seat-token-0123"
        hello = P.encode(P.Hello(room=code, name="Bob", seat=1, new_token=made)).decode()
        async with websockets.connect(ws_url(server.url)) as ws:
            await ws.send(hello)
        # closed before the welcome was read: the seat was taken under Bob's token
        await ann.wait_for(lambda c: "human" in seat_states(c, 1))
        async with websockets.connect(ws_url(server.url)) as ws:
            await ws.send(hello)  # the same hello again: the same seat, not "taken"
            welcome = P.decode_server(await ws.recv())
            assert isinstance(welcome, P.Welcome), welcome
            assert (welcome.seat, welcome.token) == (1, made)
            assert kinds(server, code) == ["human", "human", "empty"]
            # the token works as any seat token does
            bob = await GameClient.join(server.url, code, token=made)
            assert bob.seat == 1
        # another join for that seat finds it taken; a token too short is refused
        with pytest.raises(ClientError, match="room_full"):
            await GameClient.join(server.url, code, name="Cy", seat=1)
        for bad in ("short", "x" * 65, "not url-safe: ?" * 2):
            async with websockets.connect(ws_url(server.url)) as ws:
                await ws.send(P.encode(P.Hello(room=code, name="Cy", new_token=bad)).decode())
                refused = P.decode_server(await ws.recv())
                assert isinstance(refused, P.Error) and refused.code == "bad_request"
        assert kinds(server, code) == ["human", "human", "empty"]
        # the client library makes the token itself, and keeps it for its tries
        cy = GameClient(server.url, code, name="Cy")
        await cy.connect()
        assert cy.token == cy.new_token and len(cy.new_token) == 24 and cy.seat == 2
        for client in (ann, bob, cy):
            await client.close()


async def test_a_join_cut_off_before_its_welcome_frees_its_seat(database_url: str) -> None:
    # the server's own sweeps, with a short seat timeout: the seat is freed without help
    settings = server_settings(database_url, seat_timeout=0.2)
    async with running_server(settings) as server:
        code = await new_room(server, rules="official,players=3")
        ann = GameClient(server.url, code, name="Ann")
        ann.keep_raw = True
        await ann.connect()
        async with websockets.connect(ws_url(server.url)) as ws:
            await ws.send(P.encode(P.Hello(room=code, name="Bob")).decode())
        # closed before the welcome was read: the seat was taken, then freed

        def taken_then_freed(c: GameClient) -> bool:
            states = seat_states(c, 1)
            return "human" in states and states[-1] == "empty"
        await ann.wait_for(taken_then_freed)
        assert kinds(server, code) == ["human", "empty", "empty"]
        assert ann.room["seats"][0].get("host")  # connected all along: kept
        await ann.close()


async def test_a_seat_nobody_holds_is_freed_and_the_host_passes_on(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server, rules="official,players=4")
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
        cat = await GameClient.join(server.url, code, name="Cat")
        await ann.command(P.AddBot, bot="easy")
        await ann.close()
        await bob.wait_for(lambda c: not c.room["seats"][0].get("connected"))
        await later(server, 60)  # not yet
        assert kinds(server, code) == ["human", "human", "human", "bot"]
        await later(server, 121)
        await bob.wait_for(lambda c: c.room["seats"][0]["kind"] == "empty")
        assert bob.room["seats"][1].get("host") and not cat.room["seats"][2].get("host")
        with pytest.raises(ClientError, match="bad_token"):
            await GameClient.join(server.url, code, token=ann.token)
        # Dan takes seat 0; the host (Bob, seat 1) goes: the host passes to the next
        # seated person after seat 1, Cat, not to Dan
        dan = await GameClient.join(server.url, code, name="Dan")
        assert dan.seat == 0
        await bob.close()
        await cat.wait_for(lambda c: not c.room["seats"][1].get("connected"))
        await later(server, 121)
        await cat.wait_for(lambda c: c.room["seats"][1]["kind"] == "empty")
        seats = cat.room["seats"]
        assert seats[2].get("host") and not seats[0].get("host")
        assert kinds(server, code) == ["human", "empty", "human", "bot"]
        # a seat of a match under way is never freed
        await cat.command(P.AddBot, bot="easy", seat=1)
        await cat.command(P.Start)
        await dan.close()
        await later(server, 10_000)
        assert kinds(server, code) == ["human", "bot", "human", "bot"]
        await cat.close()


async def test_after_a_restart_the_clocks_start_again(database_url: str) -> None:
    settings = server_settings(database_url)
    async with running_server(settings) as server:
        code = await new_room(server, rules="official,players=3")
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
    await ann.close()
    await bob.close()
    async with running_server(settings) as server:
        # nobody holds a connection of either seat since the restart
        eve = await GameClient.join(server.url, code, spectate=True)
        await later(server, 60)
        assert kinds(server, code) == ["human", "human", "empty"]
        await later(server, 121)
        await eve.wait_for(lambda c: [s["kind"] for s in c.room["seats"]] == ["empty"] * 3)
        assert server.rooms.get(code).status == "lobby"  # a spectator keeps it listed
        await eve.close()


# ---------------------------------------------------------------- idle lobbies
async def test_an_idle_lobby_is_closed_and_stays_closed(database_url: str) -> None:
    settings = server_settings(database_url)
    async with running_server(settings) as server:
        idle = await new_room(server, rules="official,players=3", bots=["easy"])
        busy = await new_room(server, rules="official,players=3")
        ann = await GameClient.join(server.url, busy, name="Ann")
        eve = await GameClient.join(server.url, idle, spectate=True)  # watching only
        await later(server, 1800)
        assert server.rooms.get(idle).status == "lobby"
        task = server.rooms.get(idle).task
        await later(server, 3601)
        await eve.wait_for(lambda c: c.bye is not None)
        assert eve.room["status"] == "closed"
        assert eve.bye is not None and eve.bye["reconnect"] is False
        assert eve.bye["code"] == "closed"
        assert task is not None and task.done()
        assert idle not in server.rooms.rooms and busy in server.rooms.rooms
        async with httpx.AsyncClient() as http:
            listed = (await http.get(server.url + "/api/rooms")).json()
            shown = (await http.get(f"{server.url}/api/rooms/{idle}")).json()
        assert [r["code"] for r in listed] == [busy]
        assert shown["status"] == "closed" and shown["seats"][1]["kind"] == "bot"
        with pytest.raises(ClientError, match="room_closed"):
            await GameClient.join(server.url, idle, name="Bob")
        assert server.rooms.get(busy).status == "lobby"  # Ann is there
        await ann.close()
    async with running_server(settings) as server:
        assert idle not in server.rooms.rooms
        with pytest.raises(ClientError, match="room_closed"):
            await GameClient.join(server.url, idle.lower(), spectate=True)
        with pytest.raises(ClientError, match="no_room"):
            await GameClient.join(server.url, "ZZZZZZ", name="Bob")


async def test_a_host_who_leaves_the_match_passes_the_host_on(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server, rules="official,players=3", bots=["easy"])
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob", seat=2)
        await ann.command(P.Start)
        await ann.send_raw(P.encode(P.Leave(id="bye-ann")).decode())
        await bob.wait_for(lambda c: bool(c.room["seats"][2].get("host")))
        seats = bob.room["seats"]
        assert seats[0].get("away") and not seats[0].get("host")
        room = server.rooms.get(code)
        assert room.status == "playing" and room.seats[0].token_hash == ""
        await ann.close()
        await bob.close()


async def test_a_seat_emptied_before_the_match_loses_its_contribution(
        database_url: str) -> None:
    settings = server_settings(database_url)
    async with running_server(settings) as server:
        code = await new_room(server, rules="official,players=3")
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
        cat = await GameClient.join(server.url, code, name="Cat")
        await bob.command(P.Contribute, value="bob-1")
        await cat.command(P.Contribute, value="cat-1")
        await bob.send_raw(P.encode(P.Leave(id="bye-bob")).decode())
        await ann.command(P.Kick, seat=2)
        await ann.wait_for(lambda c: not any(s.get("contributed") for s in c.room["seats"]))
        dan = await GameClient.join(server.url, code, name="Dan")
        assert dan.seat == 1
        await dan.command(P.Contribute, value="dan-1")
    async with running_server(settings) as server:
        assert server.rooms.get(code).contributions == {1: "dan-1"}
    for client in (ann, bob, cat, dan):
        await client.close()
