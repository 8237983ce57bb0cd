"""The WebSocket protocol against a real server, with several clients at once: every bad
message gets a typed error and changes nothing, duplicates get the original answer and
apply once, floods are refused (never dropped), resuming sends exactly the missed events,
and nobody receives a card they may not see (docs/protocol.md)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
import websockets

from server_harness import Running, running_server, server_settings
from unokit.client import ActionRefused, GameClient
from unokit.client.client import ws_url
from unokit.engine.cards import card_code
from unokit.server import protocol as P
from unokit.server.settings import Settings

pytestmark = pytest.mark.asyncio

RULES = "official,players=2,hand_size=2"
"""Two seats and two cards each: the first play leaves a player on one card."""
SEED = bytes(range(32))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """SQLite only, for the tests that do not touch the store beyond the main path."""
    return f"sqlite:///{tmp_path / 'protocol.db'}"


async def new_room(server: Running, rules: str = RULES) -> str:
    async with httpx.AsyncClient() as http:
        made = (await http.post(server.url + "/api/rooms", json={"rules": rules})).json()
    code: str = made["code"]
    return code


@asynccontextmanager
async def table(settings: Settings, *, start: bool = True, seed: bytes = SEED
                ) -> AsyncIterator[tuple[Running, str, GameClient, GameClient]]:
    """A server, a two-seat room, Ann (seat 0, host) and Bob (seat 1), the match started
    (both have seen the deal)."""
    async with running_server(settings, seeds=[seed]) as server:
        code = await new_room(server)
        ann = GameClient(server.url, code, name="Ann")
        bob = GameClient(server.url, code, name="Bob")
        ann.keep_raw = bob.keep_raw = True
        await ann.connect()
        await bob.connect()
        if start:
            await ann.command(P.Start)
            await ann.wait_for(lambda c: c.last_seq >= 0 and c.lead >= 0)
            await bob.wait_for(lambda c: c.last_seq == ann.last_seq)
        try:
            yield server, code, ann, bob
        finally:
            await ann.close()
            await bob.close()


def history(server: Running, code: str) -> int:
    game = server.rooms.get(code).game
    return -1 if game is None else len(game.history)


def answers(client: GameClient, msg_id: str) -> list[P.ServerMessage]:
    """Every ack, error or snapshot ``client`` received for ``msg_id`` (an ack inside an
    events message too)."""
    out = []
    for raw in client.received:
        message = P.decode_server(raw)
        if isinstance(message, P.Events) and message.ack is not None:
            message = message.ack
        if isinstance(message, P.Ack | P.Error | P.Snapshot) and message.id == msg_id:
            out.append(message)
    return out


def lead_and_other(ann: GameClient, bob: GameClient) -> tuple[GameClient, GameClient]:
    return (ann, bob) if ann.seat == ann.lead else (bob, ann)


def act_json(msg_id: str, action: str) -> str:
    return P.encode(P.Act(id=msg_id, action=action)).decode()


# ------------------------------------------------------------ bad messages
async def test_bad_messages_get_typed_errors_and_change_nothing(database_url: str) -> None:
    async with table(server_settings(database_url)) as (server, code, ann, bob):
        before, seq, seats = history(server, code), ann.last_seq, server.rooms.get(code).info()
        sent = [
            ("{not json", "bad_message", None),
            ('{"type": "fly", "id": "x1"}', "bad_message", "x1"),
            ('{"type": "act", "id": "x2"}', "bad_message", "x2"),
            ('{"type": "act", "id": "x3", "action": 5}', "bad_message", "x3"),
            ('{"type": "act", "id": "x4", "action": "draw", "extra": 1}', "bad_message", "x4"),
            ('{"type": "act", "id": "bad id!", "action": "draw"}', "bad_message", None),
            ('{"type": "act", "id": "", "action": "draw"}', "bad_message", None),
            ('["act", "x5", "draw"]', "bad_message", None),
            (act_json("x6", "R" * 5000), "too_large", None),
            # 1,400 characters but over 4,096 bytes in UTF-8: the limit is on bytes
            (act_json("x7", "\u20ac" * 1400), "too_large", None),
            (json.dumps({"type": "hello", "room": code, "name": "Eve"}), "bad_message", None),
            (act_json("x8", "zz"), "bad_request", "x8"),
            (act_json("x9", "R5@10"), "bad_request", "x9"),
            ('{"type": "set_timer", "id": "x10", "seconds": 20}', "mid_round", "x10"),
        ]
        for text, _, _ in sent:
            await ann.send_raw(text)
        await ann.snapshot()  # answered after everything sent before it
        got = [(e["code"], e.get("id")) for e in ann.errors]
        assert got == [(want, msg_id) for _, want, msg_id in sent]
        assert all(e["message"] for e in ann.errors)
        assert history(server, code) == before
        assert server.rooms.get(code).info() == seats
        await bob.snapshot()
        assert ann.last_seq == bob.last_seq == seq
        assert bob.errors == []


async def test_a_bad_first_message_is_refused_and_the_room_unchanged(
        database_url: str) -> None:
    async with table(server_settings(database_url), start=False) as (server, code, ann,
                                                                     bob):
        seats = server.rooms.get(code).info()
        hellos = [
            ("{oops", "bad_message"),
            ('{"type": "ping"}', "bad_message"),
            ('{"type": "hello"}', "bad_message"),
            (json.dumps({"type": "hello", "room": "ZZZZZZ", "name": "Eve"}), "no_room"),
            (json.dumps({"type": "hello", "room": code, "token": "not-a-token"}),
             "bad_token"),
            (json.dumps({"type": "hello", "room": code, "v": P.VERSION + 1}), "version"),
            (json.dumps({"type": "hello", "room": code, "name": "Eve"}), "room_full"),
            (json.dumps({"type": "hello", "room": code, "name": "x" * 40, "seat": 0}),
             "room_full"),
        ]
        for text, want in hellos:
            async with websockets.connect(ws_url(server.url)) as ws:
                await ws.send(text)
                message = P.decode_server(await ws.recv())
                assert isinstance(message, P.Error) and message.code == want, text
                with pytest.raises(websockets.ConnectionClosed):
                    await ws.recv()
        room = server.rooms.get(code)
        assert room.info() == seats and room.game is None
        # a free seat refuses a bad name the same way
        await ann.command(P.Kick, seat=1)
        # the server closes the kicked player's connection after the bye
        await bob.wait_for(lambda c: c.closed.is_set() and c.bye is not None)
        assert bob.bye is not None and not bob.bye["reconnect"]
        async with websockets.connect(ws_url(server.url)) as ws:
            await ws.send(json.dumps({"type": "hello", "room": code, "name": "x" * 40}))
            message = P.decode_server(await ws.recv())
            assert isinstance(message, P.Error) and message.code == "bad_request"
        assert [s.kind for s in room.seats] == ["human", "empty"]


async def test_acting_before_the_match_or_as_a_spectator_is_refused(
        sqlite_url: str) -> None:
    async with table(server_settings(sqlite_url), start=False) as (server, code, ann, bob):
        with pytest.raises(ActionRefused) as refused:
            await ann.act("draw")
        assert refused.value.code == "not_started"
        with pytest.raises(ActionRefused) as refused:
            await bob.command(P.Start)
        assert refused.value.code == "not_host"
        await ann.command(P.Start)
        watcher = await GameClient.join(server.url, code, spectate=True)
        await watcher.wait_for(lambda c: c.last_seq == server.rooms.get(code).last_seq())
        before = history(server, code)
        for text in ("draw", "uno", "catch 0"):
            with pytest.raises(ActionRefused) as refused:
                await watcher.act(text)
            assert refused.value.code == "not_seated"
        assert history(server, code) == before
        await watcher.close()


async def test_out_of_turn_and_illegal_actions_change_nothing(database_url: str) -> None:
    async with table(server_settings(database_url)) as (server, code, ann, bob):
        lead, other = lead_and_other(ann, bob)
        before, seq = history(server, code), lead.last_seq
        room = server.rooms.get(code)
        assert room.game is not None
        held = room.game.observation(other.seat).hand
        for text in ("draw", "pass", "challenge", "next", f"catch {lead.seat}"):
            with pytest.raises(ActionRefused) as refused:
                await other.act(text)
            assert refused.value.code == "illegal", text
        lead_hand = room.game.observation(lead.seat).hand
        missing = next(c for c in ("R9", "Y9", "G9", "B9", "R8")
                       if c not in [card_code(k) for k in lead_hand])
        for text in (missing, "pass", "next", "color R", f"catch {other.seat}"):
            with pytest.raises(ActionRefused) as refused:
                await lead.act(text)
            assert refused.value.code == "illegal", text
            assert refused.value.message
        assert history(server, code) == before
        assert room.game.observation(other.seat).hand == held
        await other.snapshot()
        assert ann.last_seq == bob.last_seq == seq


# ------------------------------------------------------------ duplicates
async def test_a_duplicate_action_id_gets_the_original_answer_and_applies_once(
        database_url: str) -> None:
    async with table(server_settings(database_url)) as (server, code, ann, bob):
        lead, other = lead_and_other(ann, bob)
        before = history(server, code)
        action = "draw" if "draw" in lead.legal else lead.legal[0]
        seq = await lead.act(action, msg_id="same-1")
        assert history(server, code) == before + 1
        assert await lead.act(action, msg_id="same-1") == seq
        assert await lead.act("uno", msg_id="same-1") == seq  # the id decides, not the text
        assert history(server, code) == before + 1
        # a refused id keeps its refusal
        with pytest.raises(ActionRefused) as first:
            await other.act("next", msg_id="same-2")
        with pytest.raises(ActionRefused) as again:
            await other.act("next", msg_id="same-2")
        assert (first.value.code, first.value.message) == (again.value.code,
                                                           again.value.message)
        # the same id from the same seat on a new connection (a resend after a drop)
        await lead.reconnect()
        assert await lead.act(action, msg_id="same-1") == seq
        assert history(server, code) == before + 1
        # ids belong to a seat: the other seat may use the same id
        with pytest.raises(ActionRefused) as refused:
            await other.act("pass", msg_id="same-1")
        assert refused.value.code == "illegal"


async def test_a_duplicate_sent_during_the_catch_grace_applies_once(
        database_url: str) -> None:
    """Actions that arrive during a catch grace wait for its end; a duplicate of one of
    them must get the same answer and not be applied a second time."""
    settings = server_settings(database_url, catch_grace=600.0)
    # this server seed deals seat 1, who leads, an R8 it can play down to one card
    async with table(settings, seed=bytes([3]) * 32) as (server, code, ann, bob):
        lead, _ = lead_and_other(ann, bob)
        play = next(a for a in lead.legal if a not in ("draw", "uno") and not a.endswith("!"))
        seq = await lead.act(play)
        room = server.rooms.get(code)
        assert room.game is not None and room.game.uno_open == lead.seat
        assert room.grace is not None
        target = lead
        after = history(server, code)
        await ann.wait_for(lambda c: c.last_seq == seq)
        await bob.wait_for(lambda c: c.last_seq == seq)
        actor, _ = lead_and_other(ann, bob)
        assert "draw" in actor.legal
        choice = "draw"  # a play could open a grace of its own
        await actor.send_raw(act_json("held-1", choice))
        await actor.send_raw(act_json("held-1", choice))
        await actor.snapshot()  # answered at once: the room has both by now
        assert room.grace is not None and len(room.grace.waiting) >= 1
        await target.act("uno")  # ends the grace: the waiting actions apply
        await actor.wait_for(lambda c: len(answers(c, "held-1")) == 2)
        first, second = answers(actor, "held-1")
        assert isinstance(first, P.Ack)
        assert first == second
        assert history(server, code) == after + 2  # the call, and the action once


# ------------------------------------------------------------ floods
async def test_a_flood_is_refused_with_rate_limited_and_nothing_is_dropped(
        database_url: str) -> None:
    settings = server_settings(database_url, rate=5.0, burst=5)
    async with table(settings) as (server, code, ann, bob):
        lead, _ = lead_and_other(ann, bob)
        before = history(server, code)
        ids = [f"flood-{i}" for i in range(40)]
        for msg_id in ids:
            await lead.send_raw(act_json(msg_id, "draw" if "draw" in lead.legal
                                         else lead.legal[0]))
        await lead.wait_for(lambda c: all(answers(c, i) for i in ids))
        got = {i: answers(lead, i) for i in ids}
        assert all(len(v) == 1 for v in got.values())
        acks = [i for i in ids if isinstance(got[i][0], P.Ack)]
        errors = [got[i][0] for i in ids if isinstance(got[i][0], P.Error)]
        assert len(acks) + len(errors) == len(ids)
        limited = [e for e in errors if e.code == "rate_limited"]
        assert len(limited) >= len(ids) - 5 - 10
        assert {e.code for e in errors} <= {"rate_limited", "illegal"}
        assert history(server, code) == before + len(acks)


async def test_too_many_refused_messages_in_a_row_close_the_connection(
        sqlite_url: str) -> None:
    async with table(server_settings(sqlite_url)) as (_, _, ann, _):
        for i in range(250):
            await ann.send_raw(f"{{broken {i}")
            if ann.closed.is_set():
                break
        await ann.wait_for(lambda c: c.bye is not None and c.closed.is_set())
        assert ann.bye == {"type": "bye", "reason": "too many refused messages",
                           "reconnect": False, "code": "flood"}
        assert len(ann.errors) == 200  # the 200th refusal, then the bye
        # the seat stays: the player may come back with the token
        await ann.reconnect()
        assert ann.seat == 0
        await ann.snapshot()


# ------------------------------------------------------------ resuming
async def test_resuming_sends_exactly_the_missed_events(database_url: str) -> None:
    async with table(server_settings(database_url)) as (server, code, ann, bob):
        while ann.lead != bob.seat:  # Ann plays until it is Bob's turn
            await ann.act("draw" if "draw" in ann.legal else ann.legal[0])
            await ann.wait_for(lambda c: c.lead >= 0)
        await bob.wait_for(lambda c: c.last_seq == ann.last_seq and c.must)
        await ann.close_socket()
        away_at = ann.last_seq
        room = server.rooms.get(code)
        while bob.must and room.status == "playing":
            await bob.act("draw" if "draw" in bob.legal else bob.legal[0])
            await bob.wait_for(lambda c: c.last_seq == room.last_seq())
        assert room.last_seq() > away_at
        mark = len(ann.received)
        await ann.reconnect()
        await ann.wait_for(lambda c: c.last_seq == room.last_seq())
        resumed = [P.decode_server(raw) for raw in ann.received[mark:]]
        assert isinstance(resumed[0], P.Welcome) and resumed[0].seat == 0
        assert resumed[0].token is None  # the token is given once, on the first join
        events = [m for m in resumed if isinstance(m, P.Events)]
        assert [e["seq"] for e in events[0].events] == list(range(away_at + 1,
                                                                  room.last_seq() + 1))
        assert not any(isinstance(m, P.Snapshot) for m in resumed)
        assert [e["seq"] for e in ann.events] == list(range(room.last_seq() + 1))
        # coming back with nothing missed: an empty list, the turn, no snapshot
        mark = len(ann.received)
        await ann.reconnect()
        await ann.wait_for(lambda c: any(isinstance(P.decode_server(r), P.Events)
                                         for r in c.received[mark:]))
        resumed = [P.decode_server(raw) for raw in ann.received[mark:]]
        assert [m.events for m in resumed if isinstance(m, P.Events)] == [[]]
        assert ann.must == (room.driver is not None and room.driver.lead() == 0)
        assert [e["seq"] for e in ann.events] == list(range(room.last_seq() + 1))


async def test_a_snapshot_shows_the_own_hand_only(database_url: str) -> None:
    async with table(server_settings(database_url)) as (server, code, ann, bob):
        room = server.rooms.get(code)
        assert room.game is not None
        for client in (ann, bob):
            assert client.seat is not None
            view = await client.snapshot()
            assert view is not None
            truth = room.game.observation(client.seat).to_dict()
            assert view == truth
            other = room.game.observation(1 - client.seat).to_dict()
            assert view["hand_sizes"] == other["hand_sizes"]
            assert view["seat"] == client.seat
        watcher = await GameClient.join(server.url, code, spectate=True)
        view = await watcher.snapshot()
        assert view is not None and view["hand"] == [] and view["seat"] == -1
        assert watcher.legal == [] and not watcher.must
        await watcher.close()


async def test_spectators_and_other_seats_never_get_private_cards(
        database_url: str) -> None:
    async with table(server_settings(database_url), start=False) as (server, code, ann,
                                                                     bob):
        watcher = GameClient(server.url, code, spectate=True)
        watcher.keep_raw = True
        await watcher.connect()
        assert watcher.seat is None
        await ann.command(P.Start)
        room = server.rooms.get(code)
        for _ in range(6):  # a few turns: draws are private too
            await ann.wait_for(lambda c: c.last_seq == room.last_seq())
            await bob.wait_for(lambda c: c.last_seq == room.last_seq())
            lead, _ = lead_and_other(ann, bob)
            if room.status != "playing" or not lead.must:
                break
            await lead.act("draw" if "draw" in lead.legal else lead.legal[0])
        await watcher.wait_for(lambda c: c.last_seq == room.last_seq())
        assert room.game is not None
        private = {"dealt", "drew"}
        kinds = {e["kind"] for e in watcher.events}
        assert {"dealt", "drew"} <= kinds
        for event in watcher.events:
            if event["kind"] in private:
                assert "cards" not in event, event
        for client in (ann, bob):
            for event in client.events:
                if event["kind"] in private and event.get("amount", 0):
                    if event["player"] == client.seat:
                        assert len(event["cards"]) == event["amount"]
                    else:
                        assert "cards" not in event, event
        assert [e["seq"] for e in watcher.events] == list(range(room.last_seq() + 1))
        await watcher.close()
