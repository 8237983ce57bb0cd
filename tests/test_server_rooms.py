"""Rooms on the real server, on SQLite and on PostgreSQL: creating them (REST), the lobby
(join, leave, spectate), the host's commands and when they are allowed, play now, one
room's failure kept from the others, the health checks, and a graceful shutdown followed
by a restart that brings the rooms back."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest

from server_harness import Running, running_server, server_settings
from unokit.client import GameClient
from unokit.client.client import ActionRefused, ClientError
from unokit.engine.phases import ROUND_OVER
from unokit.server import protocol as P
from unokit.server.room import Room
from unokit.server.rooms import FINISHED_KEPT, Rooms
from unokit.store import StoreError

pytestmark = pytest.mark.asyncio


async def post(server: Running, path: str, body: Any) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.post(server.url + path, json=body)


async def get(server: Running, path: str) -> httpx.Response:
    async with httpx.AsyncClient() as http:
        return await http.get(server.url + path)


async def new_room(server: Running, **body: Any) -> str:
    answer = await post(server, "/api/rooms", body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["code"])


async def refused(client: GameClient, kind: type, **fields: Any) -> str:
    """The error code the server answers a command with."""
    with pytest.raises(ActionRefused) as caught:
        await client.command(kind, **fields)
    return caught.value.code


async def play_until(client: GameClient, done: Any) -> None:
    """Play the first legal action (an UNO call with it when there is one) whenever this
    seat must act, until ``done(client)``."""
    while not done(client):
        await client.wait_for(lambda c: done(c) or c.must)
        if done(client):
            return
        legal = client.legal
        choice = next((a for a in legal if a.endswith("!")), legal[0])
        try:
            await client.act(choice)
        except ActionRefused:  # the state moved on: ask for the seat's view again
            await client.snapshot()


def round_over(client: GameClient) -> bool:
    return client.phase == ROUND_OVER.value or client.reveal is not None


def match_over(client: GameClient) -> bool:
    return client.reveal is not None


# ---------------------------------------------------------------- creating rooms
async def test_create_from_a_rule_string_and_from_an_object(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        made = (await post(server, "/api/rooms", {"rules": "official,players=3"})).json()
        code = made["code"]
        assert len(code) == 6 and code.isalnum() and code.upper() == code
        assert made["invite"].endswith(f"/r/{code}")
        room = server.rooms.get(code)
        assert room.rules.players == 3 and len(room.seats) == 3
        # the invite link answers with the room
        info = (await get(server, f"/r/{code}")).json()
        assert info["code"] == code and info["status"] == "lobby"
        # a lower-case code finds the room too
        assert (await get(server, f"/api/rooms/{code.lower()}")).json()["code"] == code

        code2 = await new_room(server, rules={"preset": "official", "players": 5},
                               turn_timer=30)
        room2 = server.rooms.get(code2)
        assert room2.rules.players == 5 and room2.turn_timer == 30
        # a preset plus an override given as seats
        code3 = await new_room(server, rules="online", seats=6)
        assert server.rooms.get(code3).rules.players == 6
        # no rules: the online preset
        code4 = await new_room(server)
        assert server.rooms.get(code4).rules.to_string() == "online"


async def test_bad_rules_and_seat_counts_are_refused(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        before = len(server.rooms.rooms)
        for body in ({"rules": "official,bogus=1"}, {"rules": {"preset": "official",
                                                              "bogus": 1}}):
            answer = await post(server, "/api/rooms", body)
            assert answer.status_code == 400
            assert answer.json()["error"] == "bad_request"
            assert "bogus" in answer.json()["message"]
        for seats in (1, 11):
            answer = await post(server, "/api/rooms", {"rules": "official", "seats": seats})
            assert answer.status_code == 400, seats
            assert "players" in answer.json()["message"]
        for body in ({"rules": 5}, {"seats": "3"}, {"seats": True}, {"turn_timer": 20},
                     {"bots": ["nonsense"]}, {"bots": "easy"}, [1, 2]):
            answer = await post(server, "/api/rooms", body)
            assert answer.status_code == 400, body
        async with httpx.AsyncClient() as http:
            answer = await http.post(server.url + "/api/rooms", content=b"{not json",
                                     headers={"Content-Type": "application/json"})
        assert answer.status_code == 400
        assert len(server.rooms.rooms) == before
        for seats in (2, 10):
            code = await new_room(server, rules="official", seats=seats)
            assert len(server.rooms.get(code).seats) == seats


async def test_the_list_shows_open_public_rooms_only(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        public = await new_room(server, rules="official,players=3")
        await new_room(server, rules="official,players=3", public=False)
        full = await new_room(server, rules="official,players=2", bots=["easy"])
        started = await new_room(server, rules="official,players=2", bots=["easy"])
        ann = await GameClient.join(server.url, full, name="Ann")
        bob = await GameClient.join(server.url, started, name="Bob")
        await bob.command(P.Start)
        listed = (await get(server, "/api/rooms")).json()
        assert [r["code"] for r in listed] == [public]
        assert listed[0]["seats"] == 3 and listed[0]["free"] == 3
        assert listed[0]["invite"].endswith(f"/r/{public}")
        await ann.close()
        await bob.close()


async def test_presets_offer_online_first(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        offered = (await get(server, "/api/presets")).json()
        names = [p["name"] for p in offered]
        assert names[0] == "online" and "official" in names
        assert all(p["meaning"] for p in offered)


# ---------------------------------------------------------------- the lobby
async def test_join_leave_and_spectate(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server, rules="official,players=3")
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
        eve = await GameClient.join(server.url, code, spectate=True)
        assert (ann.seat, bob.seat, eve.seat) == (0, 1, None)
        assert eve.token is None
        await ann.wait_for(lambda c: c.room.get("spectators", 0) == 1
                           and c.room["seats"][1]["name"] == "Bob")
        assert ann.room["seats"][0].get("host") and not ann.room["seats"][1].get("host")
        # a spectator cannot act
        assert await refused(eve, P.Start) == "not_seated"
        # a seat asked for by number
        cat = await GameClient.join(server.url, code, name="Cat", seat=2)
        assert cat.seat == 2
        with pytest.raises(ClientError, match="room_full"):
            await GameClient.join(server.url, code, name="Dan")
        # Bob leaves: his seat is free again, he is told not to come back
        await bob.send_raw(P.encode(P.Leave(id="leave-1")).decode())
        await bob.wait_for(lambda c: c.bye is not None)
        assert bob.bye is not None and bob.bye["reconnect"] is False
        await ann.wait_for(lambda c: c.room["seats"][1]["kind"] == "empty")
        # the host leaves: the next player becomes host
        await ann.send_raw(P.encode(P.Leave(id="leave-2")).decode())
        await ann.wait_for(lambda c: c.bye is not None)
        await cat.wait_for(lambda c: bool(c.room["seats"][2].get("host")))
        room = server.rooms.get(code)
        assert [s.kind for s in room.seats] == ["empty", "empty", "human"]
        await cat.close()
        await eve.close()


async def test_host_commands_bots_and_kicks(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server, rules="official,players=6")
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
        # only the host
        for kind, fields in ((P.Start, {}), (P.AddBot, {"bot": "easy"}),
                             (P.RemoveBot, {"seat": 2}), (P.Kick, {"seat": 0}),
                             (P.SetTimer, {"seconds": 15})):
            assert await refused(bob, kind, **fields) == "not_host", kind
        # start refused while a seat is empty
        assert await refused(ann, P.Start) == "bad_request"
        # bots of every level, in a given seat or the first free one
        for level in ("easy", "normal", "hard"):
            await ann.command(P.AddBot, bot=level)
        await ann.command(P.AddBot, bot="random", seat=5)
        room = server.rooms.get(code)
        assert [s.bot for s in room.seats] == ["", "", "easy", "normal", "hard", "random"]
        assert await refused(ann, P.AddBot, bot="easy") == "room_full"
        assert await refused(ann, P.RemoveBot, seat=1) == "bad_request"
        await ann.command(P.RemoveBot, seat=4)
        assert room.seats[4].kind == "empty"
        for fields in ({"bot": "nonsense"}, {"bot": "easy", "seat": 1},
                       {"bot": "easy", "seat": 9}, {"bot": "hard:depth=x"}):
            assert await refused(ann, P.AddBot, **fields) == "bad_request", fields
        assert room.seats[4].kind == "empty"
        assert await refused(ann, P.SetTimer, seconds=20) == "bad_request"
        await ann.command(P.SetTimer, seconds=60)
        assert room.turn_timer == 60
        # a kick: the connection is told not to reconnect, and its token is dead
        assert await refused(ann, P.Kick, seat=0) == "bad_request"  # not oneself
        assert await refused(ann, P.Kick, seat=2) == "bad_request"  # a bot
        token = bob.token
        await ann.command(P.Kick, seat=1)
        await bob.wait_for(lambda c: c.bye is not None)
        assert bob.bye is not None and bob.bye["reconnect"] is False
        assert room.seats[1].kind == "empty"
        with pytest.raises(ClientError, match="bad_token"):
            await GameClient.join(server.url, code, token=token)
        await ann.close()
        await bob.close()


async def test_host_commands_wait_for_the_end_of_the_round(database_url: str) -> None:
    settings = server_settings(database_url, round_pause=600.0)
    async with running_server(settings) as server:
        code = await new_room(server, rules="official,players=3,rounds=2")
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
        await ann.command(P.AddBot, bot="easy")
        await ann.command(P.Start)
        room = server.rooms.get(code)
        assert room.game is not None and room.game.phase is not ROUND_OVER
        for kind, fields in ((P.AddBot, {"bot": "easy"}), (P.RemoveBot, {"seat": 2}),
                             (P.Kick, {"seat": 1}), (P.SetTimer, {"seconds": 15}),
                             (P.Start, {})):
            assert await refused(ann, kind, **fields) == "mid_round", kind
        assert [s.kind for s in room.seats] == ["human", "human", "bot"]
        # a contribution is taken only before the match
        assert await refused(bob, P.Contribute, value="late") == "mid_round"
        # joining mid-round is refused
        with pytest.raises(ClientError, match="room_full"):
            await GameClient.join(server.url, code, name="Cat")
        await asyncio.gather(play_until(ann, round_over), play_until(bob, round_over))
        assert room.game.phase is ROUND_OVER and room.status == "playing"
        # between rounds: the host changes the seats
        await ann.command(P.RemoveBot, seat=2)
        await ann.command(P.AddBot, bot="hard", seat=2)
        await ann.command(P.Kick, seat=1)
        await bob.wait_for(lambda c: c.bye is not None)
        cat = await GameClient.join(server.url, code, name="Cat")
        assert cat.seat == 1
        assert [s.name for s in room.seats] == ["Ann", "Cat", "hard bot"]
        assert await refused(ann, P.Start) == "bad_request"  # already started
        # the next round, then the match, to the end
        await asyncio.gather(play_until(ann, match_over), play_until(cat, match_over))
        assert room.status == "finished"
        for client in (ann, bob, cat):
            await client.close()


async def test_play_now_starts_against_bots_at_once(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        answer = await post(server, "/api/play-now", {"rules": "official,players=3",
                                                      "bot": "easy"})
        assert answer.status_code == 201
        code = answer.json()["code"]
        assert code not in [r["code"] for r in (await get(server, "/api/rooms")).json()]
        ann = await GameClient.join(server.url, code, name="Ann")
        await ann.wait_for(lambda c: c.room["status"] == "playing" and bool(c.events))
        room = server.rooms.get(code)
        assert [s.kind for s in room.seats] == ["human", "bot", "bot"]
        await play_until(ann, match_over)
        assert room.status == "finished"
        await ann.close()
        bad = await post(server, "/api/play-now", {"bot": "nonsense"})
        assert bad.status_code == 400 and bad.json()["error"] == "bad_request"


# ---------------------------------------------------------------- isolation
class FailingStore:
    """A room's store whose action writes fail while ``failing`` is set."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.failing = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def append_action(self, room_id: int, action: Any, chat: Any = None,
                            **options: Any) -> None:
        if self.failing:
            raise StoreError("the database refused a write: OperationalError")
        await self.store.append_action(room_id, action, chat, **options)


async def _playing_room(server: Running, name: str) -> tuple[GameClient, Room]:
    code = await new_room(server, rules="official,players=2")
    # resend=False: these tests read the refusals themselves
    client = await GameClient.join(server.url, code, name=name, resend=False)
    await client.command(P.AddBot, bot="easy")
    await client.command(P.Start)
    await client.wait_for(lambda c: c.must)
    return client, server.rooms.get(code)


async def test_one_rooms_store_failure_does_not_touch_another(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        ann, bad_room = await _playing_room(server, "Ann")
        bob, good_room = await _playing_room(server, "Bob")
        failing = FailingStore(bad_room.store)
        bad_room.store = failing  # type: ignore[assignment]
        assert bad_room.game is not None
        history = list(bad_room.game.history)
        choice = ann.legal[0]
        with pytest.raises(ActionRefused) as caught:
            await ann.act(choice, msg_id="kept-for-later")
        assert caught.value.code == "not_stored"
        assert bad_room.game.history == history  # rolled back: nothing applied
        # the other room plays on to its end meanwhile
        await play_until(bob, match_over)
        assert good_room.status == "finished"
        # the failing room recovers once its writes go through again
        failing.failing = False
        # the same id sent again applies now: a not_stored answer is not remembered
        await ann.act(choice, msg_id="kept-for-later")
        assert len(bad_room.game.history) > len(history)
        await play_until(ann, match_over)
        await ann.close()
        await bob.close()


async def test_a_crashing_room_task_recovers_alone(database_url: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    async with running_server(server_settings(database_url)) as server:
        ann, bad_room = await _playing_room(server, "Ann")
        bob, good_room = await _playing_room(server, "Bob")
        original = Room._message
        crashes = []

        async def crash(self: Room, conn: Any, message: Any) -> None:
            if self is bad_room and isinstance(message, P.Act) and not crashes:
                crashes.append(message)
                assert self.game is not None
                self.game = None  # the room's state is damaged, then it fails
                raise RuntimeError("a bug in the room")
            await original(self, conn, message)

        monkeypatch.setattr(Room, "_message", crash)
        sent = asyncio.create_task(ann.act(ann.legal[0]))
        await play_until(bob, match_over)
        assert good_room.status == "finished"
        # the action the room failed on is refused (not silently dropped), and the room
        # was rebuilt from the database
        with pytest.raises(ActionRefused) as caught:
            await asyncio.wait_for(sent, 30)
        assert caught.value.code == "not_stored"
        assert crashes
        assert bad_room.game is not None and bad_room.status == "playing"
        snapshot = await ann.snapshot()
        assert snapshot is not None and snapshot["seat"] == 0
        await play_until(ann, match_over)
        assert bad_room.status == "finished"
        await ann.close()
        await bob.close()


# ---------------------------------------------------------------- health, shutdown
async def test_health_and_readiness(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        health = await get(server, "/healthz")
        assert health.status_code == 200 and health.json() == {"ok": True}
        ready = await get(server, "/readyz")
        assert ready.status_code == 200 and ready.json()["ready"] is True
        await new_room(server)
        assert (await get(server, "/readyz")).json()["rooms"] == 1
        assert (await get(server, "/api/rooms/NOSUCH")).status_code == 404
        assert (await get(server, "/api/rooms/NOSUCH/record")).status_code == 404


async def test_graceful_shutdown_and_restart_keep_the_room(database_url: str) -> None:
    settings = server_settings(database_url)
    async with running_server(settings) as server:
        code = await new_room(server, rules="official,players=3")
        ann = await GameClient.join(server.url, code, name="Ann")
        await ann.command(P.AddBot, bot="easy")
        await ann.command(P.AddBot, bot="normal")
        await ann.command(P.Start)
        await ann.wait_for(lambda c: c.must)
        seq = await ann.act(ann.legal[0])  # acknowledged: committed
        room = server.rooms.get(code)
        assert room.game is not None
        await ann.wait_for(lambda c: c.last_seq >= seq)
        history = list(room.game.history)
        log_length = len(room.game.log)
        seen = ann.last_seq
    # the server stopped: the client was told to come back
    await ann.wait_for(lambda c: c.closed.is_set())
    told = ann.bye is not None and ann.bye["reconnect"] is True
    assert told or ann._ws.close_code == 1012
    async with running_server(settings) as server:
        ready = (await get(server, "/readyz")).json()
        assert ready["ready"] is True and ready["restored"] == 1
        back = server.rooms.get(code)
        assert back.game is not None and back.status == "playing"
        assert back.game.history[:len(history)] == history
        assert [s.kind for s in back.seats] == ["human", "bot", "bot"]
        # the player comes back with the token and resumes where they stopped
        ann.base = server.url
        await ann.reconnect()
        assert ann.seat == 0
        assert ann.last_seq >= seen and log_length <= len(back.game.log)
        await play_until(ann, match_over)
        assert [e["seq"] for e in ann.events] == list(range(len(back.game.log)))
        await ann.close()


async def test_a_room_failing_after_the_commit_still_acks(database_url: str,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    async with running_server(server_settings(database_url)) as server:
        ann, room = await _playing_room(server, "Ann")
        original = Room._broadcast_events
        crashes: list[int] = []

        def crash(self: Room, events: Any, *ack: Any) -> bool:
            if self is room and not crashes:
                crashes.append(1)
                raise RuntimeError("a bug after the commit")
            return original(self, events, *ack)

        monkeypatch.setattr(Room, "_broadcast_events", crash)
        assert room.game is not None
        done = len(room.game.history)
        seq = await asyncio.wait_for(ann.act(ann.legal[0]), 30)  # committed: acked
        assert crashes and seq >= 0
        assert len(room.game.history) > done  # rebuilt with the action in it
        await play_until(ann, match_over)
        await ann.close()


async def test_a_remote_bot_under_the_rate_limit_plays_to_the_end(database_url: str
                                                                  ) -> None:
    """A remote bot whose messages the server refuses with rate_limited asks again
    (it does not wait for events that never come while it is still its turn)."""
    from unokit.client.remote_bot import run_bot
    settings = server_settings(database_url, rate=20.0, burst=3)
    async with running_server(settings) as server:
        answer = await post(server, "/api/play-now", {"rules": "official,players=3"})
        code = answer.json()["code"]
        watcher = await GameClient.join(server.url, code, spectate=True)
        bot_client = await asyncio.wait_for(run_bot(server.url, code, "easy"), 600)
        assert bot_client.reveal is not None
        await watcher.wait_for(match_over)
        assert server.rooms.get(code).status == "finished"
        await bot_client.close()
        await watcher.close()


async def test_a_room_that_fails_to_work_out_what_is_due_recovers(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async with running_server(server_settings(database_url)) as server:
        ann, room = await _playing_room(server, "Ann")
        original = Room._schedule
        failures = []

        def failing(self: Room) -> None:
            if self is room and not failures and self.game is not None and self.game.history:
                failures.append(len(self.game.history))
                raise RuntimeError("a bug in the schedule")
            original(self)

        monkeypatch.setattr(Room, "_schedule", failing)
        await play_until(ann, match_over)  # the bots kept playing: the room went on
        assert failures and room.status == "finished"
        await ann.close()


async def test_a_finished_room_leaves_memory_once_nobody_is_connected(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    async with running_server(server_settings(database_url)) as server:
        answer = await post(server, "/api/play-now", {"rules": "official,players=2,rounds=1",
                                                      "bot": "easy"})
        code = answer.json()["code"]
        ann = await GameClient.join(server.url, code, name="Ann")
        await play_until(ann, match_over)
        room = server.rooms.get(code)
        assert room.status == "finished"

        kept = time.monotonic() + FINISHED_KEPT
        await server.rooms.sweep(kept - 5)  # not yet
        await server.rooms.sweep(kept + 1)  # Ann is still at the end screen
        assert server.rooms.get(code) is room and not room.task.done()

        emptied = asyncio.Event()
        gone = room._gone

        def noted(conn: Any) -> None:
            gone(conn)
            if not room.conns:
                emptied.set()
        monkeypatch.setattr(room, "_gone", noted)
        await ann.close()
        await asyncio.wait_for(emptied.wait(), 30)
        await server.rooms.sweep(kept + 1)
        assert code not in server.rooms.rooms and server.rooms.unloaded == 1
        await asyncio.wait_for(room.task, 30)  # the room's task ended

        # its rows stay: the room and its record are rebuilt from the database
        shown = await get(server, f"/api/rooms/{code}")
        assert shown.status_code == 200 and shown.json()["status"] == "finished"
        record = await get(server, f"/api/rooms/{code}/record")
        assert record.status_code == 200
        assert len(record.json()["actions"]) == len(room.game.history)
        with pytest.raises(ClientError, match="no_room"):
            await GameClient.join(server.url, code, name="Bob")


async def test_a_room_not_in_memory_is_rebuilt_in_a_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Rooms.find rebuilds a room that is not in memory (for its page, record or check)
    # by replaying its stored actions: work that grows with the match, so it is done in
    # a worker thread and the event loop every room shares stays free
    from room_kit import Table, kind
    threads: list[int] = []
    restore = Room.restore.__func__  # type: ignore[attr-defined]

    def noted(cls: type[Room], *args: Any, **kwargs: Any) -> Room:
        threads.append(threading.get_ident())
        return restore(cls, *args, **kwargs)  # type: ignore[no-any-return]
    rooms = Rooms(server_settings("sqlite://"))
    await rooms.open()
    try:
        table = await Table.open(rooms.store)  # a room of the database, not of ``rooms``
        conns = {0: (await table.join("Ann"))[0], 1: (await table.join("Bob"))[0]}
        assert kind(await table.send(conns[0], P.Start(id="start"))) == "ack"
        room = table.room
        assert room.driver is not None
        for n in range(3):
            seat = room.driver.lead()
            action = room._legal(seat)[0][0]
            assert kind(await table.send(conns[seat], P.Act(id=f"a-{n}", action=action))
                        ) == "ack"
        played = room.game
        assert played is not None and played.history
        monkeypatch.setattr(Room, "restore", classmethod(noted))
        found = await rooms.find(table.room.code)
        assert threads and threading.get_ident() not in threads
        assert found.game is not None and found.game.history == played.history
        assert table.room.code not in rooms.rooms  # shown, not served
    finally:
        await rooms.close()
