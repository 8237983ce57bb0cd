"""Friends at one table, on a real room over a real store (SQLite and PostgreSQL): a
name changed in the lobby (``rename``), a rematch in the same room (``rematch``, across
a restart), the countdown to the next round and the turn timer from the server's
deadlines, the word that a bot played a timed-out turn (``timed_out``), and a "play
now" player's contribution carried by the hello."""

from __future__ import annotations

import dataclasses
from typing import Any

import httpx
import msgspec
import pytest

from room_kit import Conn, Table
from server_harness import running_server, server_settings
from unokit.client import GameClient
from unokit.engine.actions import format_action
from unokit.engine.phases import MATCH_OVER, ROUND_OVER
from unokit.formats import fairdeal
from unokit.server import inbox
from unokit.server import protocol as P
from unokit.server.moderation import WordList
from unokit.server.oversight import Oversight
from unokit.server.room import Room
from unokit.server.room_clock import RoomClock
from unokit.store import Store

pytestmark = pytest.mark.asyncio

THREE = {"preset": "official", "players": 3, "hand_size": 3, "rounds": 1}
TWO_ROUNDS = {"preset": "official", "players": 2, "hand_size": 3, "rounds": 2}


def messages(conn: Conn, kind: str) -> list[dict[str, Any]]:
    """Every message of type ``kind`` the connection got, in order."""
    return [m for m in map(msgspec.json.decode, conn.sent) if m.get("type") == kind]


def answer(data: bytes) -> str:
    message = msgspec.json.decode(data)
    return "ack" if message["type"] == "ack" else str(message["code"])


async def play_until(table: Table, conns: dict[int, Conn], phase: object) -> None:
    """Play (the first legal action each time) until the game is in ``phase``: the
    seats of ``conns`` by their messages, the others as bots do."""
    room = table.room
    step = 0
    while room.game is not None and room.game.phase is not phase:
        assert room.driver is not None
        seat = room.driver.lead()
        action = room.game.legal_actions(seat)[0]
        if seat in conns:
            step += 1
            text = format_action(action).split(":", 1)[1]
            got = await table.send(conns[seat], P.Act(id=f"p{seat}-{step}-{id(room.state)}",
                                                      action=text))
            assert answer(got) == "ack", got
        else:
            await room._apply(seat, action, "bot", None)


# ---------------------------------------------------------------- rename
async def test_a_rename_in_the_lobby_is_stored_told_and_answered_once(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        table = await Table.open(store, "NAME")
        ann, _ann_token = await table.join("Ann")
        bob, _bob_token = await table.join("Bob")
        got = await table.send(ann, P.Rename(id="r1", name="  Annie  "))
        assert answer(got) == "ack"
        assert table.room.seats[0].name == "Annie"
        # everyone hears of it
        assert messages(bob, "room")[-1]["room"]["seats"][0]["name"] == "Annie"
        await table.restart()
        assert table.room.seats[0].name == "Annie"
        again = await table.back(_ann_token)
        # the same id after the restart: the same answer, nothing changed again
        assert await table.send(again, P.Rename(id="r1", name="Other")) == got
        assert table.room.seats[0].name == "Annie"
    finally:
        await store.close()


async def test_a_rename_is_refused_as_a_joining_name_would_be(database_url: str) -> None:
    store = Store(database_url)
    try:
        table = await Table.open(store, "NAMF")
        table.room.oversight = Oversight(words=WordList(["darn"]))
        ann, _ = await table.join("Ann")
        await table.join("Bob")
        refusals = {"\u200b\u200b": "bad_request", "Darn it": "not_allowed",
                    "x" * 40: "bad_request", "tab\tname": "bad_request"}
        for n, (name, code) in enumerate(refusals.items()):
            assert answer(await table.send(ann, P.Rename(id=f"bad{n}", name=name))) == code
        spectator = Conn()
        await table.handle("hello", spectator, P.Hello(room="NAMF", spectate=True))
        assert answer(await table.send(spectator, P.Rename(id="s", name="Sp"))) == "not_seated"
        assert answer(await table.send(ann, P.Start(id="go"))) == "ack"
        assert answer(await table.send(ann, P.Rename(id="late", name="Anna"))) == "mid_round"
        [stored] = await store.load_rooms(code="NAMF")
        assert [s.name for s in stored.seats] == ["Ann", "Bob"]
        assert [s.name for s in table.room.seats] == ["Ann", "Bob"]
    finally:
        await store.close()


# ---------------------------------------------------------------- rematch
async def test_a_rematch_keeps_the_friends_and_survives_a_restart(database_url: str) -> None:
    store = Store(database_url)
    try:
        table = await Table.open(store, "AGAIN", THREE)
        ann, ann_token = await table.join("Ann")
        bob, _ = await table.join("Bob")
        cid, _ = await table.join("Cid")
        assert answer(await table.send(ann, P.Start(id="go"))) == "ack"
        early = await table.send(ann, P.Rematch(id="early"))
        assert answer(early) == "bad_request"  # not before the match is over
        await play_until(table, {0: ann, 1: bob}, MATCH_OVER)
        await table.handle("gone", cid)  # Cid went: his seat is emptied by the rematch
        first = table.room
        old_id, old_commitment, old_seed = first.id, first.commitment, first.seed
        old_actions = len(first.game.history)  # type: ignore[union-attr]
        assert answer(await table.send(bob, P.Rematch(id="bob"))) == "not_host"
        got = await table.send(ann, P.Rematch(id="again"))
        assert answer(got) == "ack"
        room = table.room
        assert room.code == "AGAIN" and room.id != old_id and room.status == "lobby"
        assert room.commitment != old_commitment and room.game is None
        assert room.commitment == fairdeal.commitment(bytes.fromhex(room.server_seed))
        assert [s.kind for s in room.seats] == ["human", "human", "empty"]
        assert room.seats[0].host and [s.name for s in room.seats[:2]] == ["Ann", "Bob"]
        told = messages(bob, "room")[-1]["room"]
        assert told["status"] == "lobby" and told["commitment"] == room.commitment
        # the finished match stays stored, whole, under AGAIN-1
        [kept] = await store.load_rooms(code="AGAIN-1")
        assert kept.id == old_id and kept.status == "finished" and kept.seed == old_seed
        assert len(kept.actions) == old_actions and kept.commitment == old_commitment
        record = Room.restore(kept, store=store, fanout=first.fanout,
                              settings=first.settings).record()
        assert record.fairness["commitment"] == old_commitment
        # a restart between the matches: the room comes back from its rows
        await table.restart()
        room = table.room
        assert room.code == "AGAIN" and room.status == "lobby"
        assert room.commitment == told["commitment"]
        assert [s.kind for s in room.seats] == ["human", "human", "empty"]
        ann = await table.back(ann_token)  # the same token still holds the seat
        assert ann.welcome()["seat"] == 0
        assert await table.send(ann, P.Rematch(id="again")) == got  # answered once
        dan, _ = await table.join("Dan")
        assert dan.welcome()["seat"] == 2
        # the new match plays with the contributions given for it
        assert answer(await table.send(ann, P.Contribute(id="c", value="ann-2nd"))) == "ack"
        assert answer(await table.send(ann, P.Start(id="go2"))) == "ack"
        assert room.seed == fairdeal.derive_seed(bytes.fromhex(room.server_seed),
                                                 {0: "ann-2nd"})
        # a connection that comes back naming the old match gets the new one from its start
        late = Conn()
        await table.handle("hello", late, P.Hello(room="AGAIN", token=ann_token,
                                                  last_seq=10_000,
                                                  commitment=old_commitment))
        assert messages(late, "events")[0]["events"][0]["seq"] == 0
        await play_until(table, {0: ann, 2: dan}, MATCH_OVER)
        assert answer(await table.send(ann, P.Rematch(id="third"))) == "ack"
        [second] = await store.load_rooms(code="AGAIN-2")
        assert second.status == "finished" and second.contributions == {0: "ann-2nd"}
        assert [r.code for r in await store.load_rooms(code="AGAIN")] == ["AGAIN"]
    finally:
        await store.close()


async def test_a_kept_match_is_not_played_again_and_others_ask_when_the_host_is_away(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        table = await Table.open(store, "KEEP", THREE)
        ann, _ = await table.join("Ann")
        bob, bob_token = await table.join("Bob")
        assert answer(await table.send(ann, P.AddBot(id="bot", bot="easy"))) == "ack"
        assert answer(await table.send(ann, P.Start(id="go"))) == "ack"
        await play_until(table, {0: ann, 1: bob}, MATCH_OVER)
        await table.handle("gone", ann)  # the host went: Bob may ask
        assert answer(await table.send(bob, P.Rematch(id="bob"))) == "ack"
        room = table.room
        assert [s.kind for s in room.seats] == ["empty", "human", "bot"]
        assert room.seats[1].host and room.seats[2].bot == "easy"
        # the kept match cannot be played again under its own code
        [kept] = await store.load_rooms(code="KEEP-1")
        old = Table(store, Room.restore(kept, store=store, fanout=room.fanout,
                                        settings=room.settings))
        await store.claim_rooms(code="KEEP-1", statuses=("finished",))
        back = await old.back(bob_token)
        assert answer(await old.send(back, P.Rematch(id="old"))) == "bad_request"
    finally:
        await store.close()


# ---------------------------------------------------------------- the clocks
class Clock:
    """A room clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def room_clock(self) -> RoomClock:
        return RoomClock(wall=lambda: self.now, monotonic=lambda: self.now)


async def test_the_countdown_and_the_timer_come_from_the_server_deadlines(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        table = await Table.open(store, "TICK", TWO_ROUNDS)
        clock = Clock()
        room = table.room
        room.clock = clock.room_clock()
        room.settings = dataclasses.replace(room.settings, round_pause=12.0)
        room.turn_timer = 30
        ann, _ = await table.join("Ann")
        bob, _ = await table.join("Bob")
        assert answer(await table.send(ann, P.Start(id="go"))) == "ack"
        room._schedule()
        timer = messages(bob, "timer")[-1]  # every seat sees the turn's time
        assert timer == {"type": "timer", "seat": room.driver.lead(),  # type: ignore[union-attr]
                         "ms": 30_000}
        assert messages(ann, "timer")[-1] == timer
        await play_until(table, {0: ann, 1: bob}, ROUND_OVER)
        clock.now += 2.0  # the deadline was set when the round ended, 2 s ago
        room._schedule()
        assert messages(ann, "countdown") == [{"type": "countdown", "ms": 10_000}]
        assert messages(bob, "countdown") == [{"type": "countdown", "ms": 10_000}]
        room._schedule()  # told once per deadline
        assert len(messages(ann, "countdown")) == 1
        clock.now += 5.0
        late = Conn()
        await table.handle("hello", late, P.Hello(room="TICK", spectate=True))
        assert messages(late, "countdown") == [{"type": "countdown", "ms": 5_000}]
        clock.now += 5.0
        await room._on_due()  # the pause is over: the next round starts by itself
        assert room.game is not None and room.game.phase is not ROUND_OVER
    finally:
        await store.close()


async def timeout_once(table: Table) -> int:
    """Let the turn timer of the person who leads run out and a bot play for them."""
    room = table.room
    assert room.driver is not None
    lead = room.driver.lead()
    room.timer_seat = lead
    room._timeout()
    thinking = room.thinking
    assert thinking is not None and thinking.task is not None
    await thinking.task  # the decision is made off the event loop
    item = room.inbox.get_nowait()
    assert isinstance(item, inbox.BotDecided)
    await room._handle(item)
    return lead


async def test_a_timed_out_turn_is_told_to_its_player_only(database_url: str) -> None:
    store = Store(database_url)
    try:
        table = await Table.open(store, "LATE", {**THREE, "hand_size": 7})
        ann, _ = await table.join("Ann")
        bob, _ = await table.join("Bob")
        cid, _ = await table.join("Cid")
        conns = {0: ann, 1: bob, 2: cid}
        assert answer(await table.send(ann, P.Start(id="go"))) == "ack"
        lead = await timeout_once(table)
        assert messages(conns[lead], "timed_out") == [{"type": "timed_out", "seat": lead}]
        assert all(not messages(c, "timed_out") for s, c in conns.items() if s != lead)
        # the others play their turns; the same seat times out again: now it is away
        room = table.room
        assert room.driver is not None
        while room.driver.lead() != lead:
            seat = room.driver.lead()
            action = room.game.legal_actions(seat)[0]  # type: ignore[union-attr]
            await room._apply(seat, action, "player", None)
        await timeout_once(table)
        assert messages(conns[lead], "timed_out")[-1] == {"type": "timed_out", "seat": lead,
                                                          "away": True}
    finally:
        await store.close()


# ---------------------------------------------------------------- play now
async def test_a_hello_carries_the_contribution_a_play_now_deal_takes(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        table = await Table.open(store, "NOW")
        room = table.room
        room.auto_start = True
        await room.add_bot("easy", 1)
        bad = Conn()
        await table.handle("hello", bad, P.Hello(room="NOW", name="Ann",
                                                 contribution="no spaces here"))
        assert bad.closed and messages(bad, "error")[0]["code"] == "bad_request"
        assert room.seats[0].kind == "empty" and room.status == "lobby"
        ann = Conn()
        await table.handle("hello", ann, P.Hello(room="NOW", name="Ann",
                                                 contribution="ann-browser-1"))
        assert room.status == "playing"
        assert room.contributions == {0: "ann-browser-1"}
        assert room.seed == fairdeal.derive_seed(bytes.fromhex(room.server_seed),
                                                 {0: "ann-browser-1"})
        [stored] = await store.load_rooms(code="NOW")
        assert stored.contributions == {0: "ann-browser-1"}
    finally:
        await store.close()


# ---------------------------------------------------------------- over the wire
async def test_a_client_follows_a_rematch_and_the_kept_match_is_served(
        database_url: str) -> None:
    settings = server_settings(database_url)
    async with running_server(settings) as server, httpx.AsyncClient() as http:
        made = await http.post(server.url + "/api/rooms", json={
            "rules": "official,players=2,rounds=1,hand_size=3", "bots": ["easy"]})
        code = made.json()["code"]
        ann = await GameClient.join(server.url, code, name="Ann")
        first = ann.room["commitment"]
        await ann.start()
        while True:
            await ann.wait_for(lambda c: c.must or c.room.get("status") == "finished")
            if ann.room.get("status") == "finished":
                break
            await ann.act(ann.legal[0])
        played = ann.last_seq
        assert played > 0 and ann.events
        before = await http.get(f"{server.url}/api/rooms/{code}/record")  # now cached
        assert before.json()["fairness"]["commitment"] == first
        await ann.command(P.Rematch)
        await ann.wait_for(lambda c: c.room.get("commitment") != first)
        assert ann.last_seq == -1 and ann.events == [] and ann.room["status"] == "lobby"
        # the code names the new match now: no record of it yet, not the cached old one
        fresh = await http.get(f"{server.url}/api/rooms/{code}/record")
        assert fresh.status_code == 409 and fresh.json()["error"] == "not_started", fresh.text
        replay = await http.get(f"{server.url}/api/rooms/{code}/replay")
        assert replay.status_code == 409, replay.text
        kept = await http.get(f"{server.url}/api/rooms/{code}-1/record")
        assert kept.status_code == 200, kept.text
        assert kept.json()["fairness"]["commitment"] == first
        now = (await http.get(f"{server.url}/api/rooms/{code}")).json()
        assert now["status"] == "lobby" and now["commitment"] == ann.room["commitment"]
        await ann.start()
        await ann.wait_for(lambda c: bool(c.events) and c.events[0]["seq"] == 0)
        await ann.close()
