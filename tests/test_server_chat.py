"""The table chat on SQLite and PostgreSQL: a line reaches every connection (spectators
too), bad lines and spectators are refused and change nothing, each seat's lines are
capped, the last lines come again after a reconnect and after a restart, and under the
``silence`` rule a line written during a silence costs its writer ``silence_penalty``
cards (the ``say`` action) while a line outside one costs nothing."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from server_harness import running_server, server_settings
from unokit.client import GameClient
from unokit.client.client import ActionRefused
from unokit.server import protocol as P
from unokit.server.chat import CHAT_LINES
from unokit.store import RECENT_CHAT

pytestmark = pytest.mark.asyncio

TWOS = {"R2", "Y2", "G2", "B2"}


async def new_room(url: str, rules: str) -> str:
    async with httpx.AsyncClient() as http:
        made = (await http.post(url + "/api/rooms", json={"rules": rules})).json()
    return str(made["code"])


def texts(client: GameClient) -> list[str]:
    return [line["text"] for line in client.chat_lines]


async def has_line(client: GameClient, text: str) -> None:
    await client.wait_for(lambda c: text in texts(c))


async def refused(code: str, client: GameClient, text: Any) -> None:
    with pytest.raises(ActionRefused) as info:
        await client.chat(text)
    assert info.value.code == code


async def test_a_line_reaches_every_connection_in_the_lobby_and_in_a_round(
        database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server.url, "official,players=2")
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
        sue = await GameClient.join(server.url, code, spectate=True)
        everyone = (ann, bob, sue)
        assert await ann.chat("hello all") == -1  # the lobby: no event yet
        for client in everyone:
            await has_line(client, "hello all")
        [line] = sue.chat_lines
        assert line["seat"] == 0 and line["name"] == "Ann" and line["type"] == "chat"
        assert isinstance(line["at"], int) and line["at"] > 1_600_000_000_000
        await bob.chat("hi Ann")
        for client in everyone:
            await has_line(client, "hi Ann")
            assert texts(client) == ["hello all", "hi Ann"]
        assert bob.chat_lines[1]["at"] > bob.chat_lines[0]["at"]
        # spectators read the chat but do not write in it
        await refused("not_seated", sue, "may I?")
        # during a round a line changes nothing of the game (no bot, no timer: nothing
        # moves unless a player acts)
        await ann.command(P.Start)
        await bob.wait_for(lambda c: c.last_seq >= 0)
        before = await bob.snapshot()
        seq = bob.last_seq
        assert await bob.chat("good luck") == seq
        for client in everyone:
            await has_line(client, "good luck")
        assert await bob.snapshot() == before and bob.last_seq == seq
        assert not [e for e in bob.events if e["kind"] == "said"]
        await refused("not_seated", sue, "me too")
        assert texts(sue) == ["hello all", "hi Ann", "good luck"]
        for client in everyone:
            await client.close()


async def test_bad_lines_are_refused_and_change_nothing(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server.url, "official,players=2")
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
        for text in ("", "   ", "\n\t ", "x" * 201, "bell\x07", "\x1b[2Jclear", "nul\x00",
                     "\u202eevil", "private \ue000", "bom\ufeff"):
            await refused("bad_request", ann, text)
        # a message of the wrong shape is not a chat line at all
        for raw in ('{"type": "chat", "id": "c1"}', '{"type": "chat", "id": "c2", "text": 7}',
                    '{"type": "chat", "id": "c3", "text": "x", "seat": 1}',
                    '{"type": "chat", "id": "c4", "text": "\\ud800"}'):
            await ann.send_raw(raw)
        await ann.wait_for(lambda c: len(c.errors) == 4)
        assert [e["code"] for e in ann.errors] == ["bad_message"] * 4
        assert [e.get("id") for e in ann.errors] == ["c1", "c2", "c3", None]
        # line breaks and runs of white space become one space; the ends are stripped
        await ann.chat("  two\nlines\r\n  and\ttabs  ")
        longest = "é" * 200
        await ann.chat(f"  {longest}  ")
        family = "\U0001F468\u200d\U0001F469\u200d\U0001F467 \u10d2\u10d0\u10db\u10d0\u10e0"
        await ann.chat(family)
        await has_line(bob, family)
        assert texts(bob) == ["two lines and tabs", longest, family]
        assert ann.last_seq == -1 and bob.room["status"] == "lobby"
        await ann.close()
        await bob.close()
    # nothing refused was stored
    async with running_server(server_settings(database_url)) as again:
        carl = await GameClient.join(again.url, code, spectate=True)
        await has_line(carl, family)
        assert texts(carl) == ["two lines and tabs", longest, family]
        await carl.close()


async def test_each_seat_is_capped(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server.url, "official,players=2")
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
        room = server.rooms.get(code)
        room.chat_window = 3600.0  # the cap's window cannot pass during the test
        for n in range(CHAT_LINES):
            await ann.chat(f"line {n}")
        with pytest.raises(ActionRefused) as info:
            await ann.chat("one too many", msg_id="again")
        assert info.value.code == "rate_limited"
        await bob.chat("Bob has his own lines")  # the cap is per seat
        await has_line(ann, "Bob has his own lines")
        assert "one too many" not in texts(ann) + texts(bob)
        # nothing was kept of the refused line: the same id is taken once the window
        # allows it
        room.chat_window = 0.0
        await ann.chat("one too many", msg_id="again")
        await has_line(bob, "one too many")
        assert len(texts(bob)) == CHAT_LINES + 2
        await ann.close()
        await bob.close()


async def test_the_last_lines_come_again_after_a_reconnect_and_a_restart(
        database_url: str) -> None:
    settings = server_settings(database_url)
    total = RECENT_CHAT + 5
    async with running_server(settings) as server:
        code = await new_room(server.url, "official,players=2")
        ann = await GameClient.join(server.url, code, name="Ann")
        server.rooms.get(code).chat_window = 0.0  # no cap: many lines at once
        for n in range(total - 1):
            await ann.chat(f"line {n}")
        await ann.chat("the last line", msg_id="last-line")
        sent = list(ann.chat_lines)
        assert len(sent) == total
        # a new connection gets the last RECENT_CHAT lines, oldest first
        sue = await GameClient.join(server.url, code, spectate=True)
        await has_line(sue, "the last line")
        assert sue.chat_lines == sent[-RECENT_CHAT:]
        # a reconnect gets them again; the client keeps each line once
        await ann.reconnect()
        await ann.chat("after the reconnect")
        assert texts(ann) == [line["text"] for line in sent] + ["after the reconnect"]
        # the seat again from another client: the same last lines
        again = await GameClient.join(server.url, code, token=ann.token)
        await has_line(again, "after the reconnect")
        assert again.chat_lines == ann.chat_lines[-RECENT_CHAT:]
        before = list(ann.chat_lines[-RECENT_CHAT:])
        token = ann.token
        for client in (ann, sue, again):
            await client.close()
    async with running_server(settings) as restarted:
        back = await GameClient.join(restarted.url, code, token=token)
        await has_line(back, "after the reconnect")
        assert back.chat_lines == before
        # a line the room stored before the restart, sent again with its id, is not
        # taken twice
        await back.chat("the last line", msg_id="last-line")
        await back.chat("after the restart")
        await has_line(back, "after the restart")
        assert texts(back) == [line["text"] for line in before] + ["after the restart"]
        assert back.chat_lines[-1]["at"] > before[-1]["at"]
        await back.close()


def chosen(legal: list[str], twos_first: bool = True) -> str:
    """A 2 when one may be played (to begin a silence), else the first legal action,
    calling UNO with it when it may; never ``say``."""
    plays = [a for a in legal if a != "say"]
    twos = [a for a in plays if a.rstrip("!") in TWOS] if twos_first else []
    pick = (twos or plays)[0]
    return next((a for a in plays if a == pick + "!"), pick)


async def caught_up(clients: tuple[GameClient, ...], seq: int) -> None:
    for client in clients:
        await client.wait_for(lambda c: c.last_seq >= seq)


async def hand_sizes(client: GameClient) -> list[int]:
    view = await client.snapshot()
    assert view is not None
    return list(view["hand_sizes"])


async def test_a_line_during_a_silence_costs_the_penalty(database_url: str) -> None:
    settings = server_settings(database_url, round_pause=600.0)
    rules = "official,players=2,silence=twos,silence_penalty=3"
    async with running_server(settings, seeds=[bytes(range(32))]) as server:
        code = await new_room(server.url, rules)
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
        both = (ann, bob)
        for client in both:
            client.keep_raw = True
        await ann.command(P.Start)
        await caught_up(both, 0)
        # outside a silence a line costs nothing
        seq = ann.last_seq
        assert await ann.chat("no silence yet") == seq
        await has_line(bob, "no silence yet")
        assert ann.last_seq == seq and bob.last_seq == seq
        # play (a 2 when there is one) until a silence begins
        for _ in range(200):
            if any(e["kind"] == "silence" and e.get("amount") == 1 for e in ann.events):
                break
            mover = next(c for c in both if c.must)
            seq = await mover.act(chosen(mover.legal))
            await caught_up(both, seq)
        [began] = [e for e in ann.events if e["kind"] == "silence"]
        assert ann.phase == "play"
        starter = ann if began["player"] == ann.seat else bob
        assert "say" in starter.legal
        sizes = await hand_sizes(bob)
        last = ann.last_seq
        # the one who began the silence speaks: the say first, then the line
        seq = await starter.chat("oops")
        await caught_up(both, seq)
        for client in both:
            await has_line(client, "oops")
            new = [e for e in client.events if e["seq"] > last]
            assert new[0]["kind"] == "said" and new[0]["player"] == starter.seat
            drew = [e for e in new if e["kind"] == "drew"]
            assert [(e["player"], e["amount"], e["reason"]) for e in drew] == [
                (starter.seat, 3, "silence")]
            assert new[-1]["kind"] == "silence" and "amount" not in new[-1]
            assert new[-1]["seq"] == seq
            # the line came after the events of its say
            received = [json.loads(raw) for raw in client.received]
            [events_at] = [i for i, m in enumerate(received) if m["type"] == "events"
                           and any(e["kind"] == "said" for e in m["events"])]
            [line_at] = [i for i, m in enumerate(received)
                         if m["type"] == "chat" and m["text"] == "oops"]
            assert line_at > events_at
            if client is not starter:  # the other seat does not see the cards drawn
                assert all("cards" not in e for e in drew)
        after = await hand_sizes(bob)
        assert after[starter.seat] == sizes[starter.seat] + 3
        assert after[1 - starter.seat] == sizes[1 - starter.seat]
        # the silence is over: the next line costs nothing
        seq = ann.last_seq
        assert await bob.chat("and now?") == seq
        await has_line(ann, "and now?")
        assert await hand_sizes(ann) == after and ann.last_seq == seq
        # play to the end of the round: chat between rounds costs nothing either
        for _ in range(2000):
            if ann.phase == "round_over":
                break
            mover = next((c for c in both if c.must), None)
            if mover is None:
                await caught_up(both, max(c.last_seq for c in both))
                continue
            seq = await mover.act(chosen(mover.legal))
            await caught_up(both, seq)
        assert ann.phase == "round_over"
        seq = ann.last_seq
        assert await ann.chat("well played") == seq
        await has_line(bob, "well played")
        token = starter.token
        lines = list(starter.chat_lines)
        for client in both:
            await client.close()
    # the say and its line were stored together: both come back after a restart
    async with running_server(settings) as again:
        back = await GameClient.join(again.url, code, token=token)
        await has_line(back, "well played")
        assert back.chat_lines == lines
        assert [e["kind"] for e in back.events].count("said") == 1
        await back.close()


def silence_holder(client: GameClient) -> int | None:
    """The seat whose 2 began the silence that holds now, as the events tell."""
    marks = [e for e in client.events if e["kind"] == "silence"]
    if marks and marks[-1].get("amount") == 1:
        return int(marks[-1]["player"])
    return None


async def test_a_line_during_a_catch_grace_waits_with_the_actions(database_url: str) -> None:
    # the grace is long, and ends at once when its target calls: nothing waits on time
    settings = server_settings(database_url, catch_grace=120.0, round_pause=600.0)
    rules = "official,players=3,hand_size=3,silence=twos,silence_penalty=3"
    async with running_server(settings, seeds=[bytes([63]) * 32]) as server:
        code = await new_room(server.url, rules)
        clients = tuple([await GameClient.join(server.url, code, name=name)
                         for name in ("Ann", "Bob", "Cid")])
        await clients[0].command(P.Start)
        await caught_up(clients, 0)
        # play (calling UNO with every play to one card) until a silence holds and the
        # seat to move, not the one who began it, may play a number card down to one
        # card, after which the turn goes to the third seat (so the silence still holds)
        for _ in range(100):
            mover = next(c for c in clients if c.must)
            holder = silence_holder(mover)
            bare = [a for a in mover.legal if a + "!" in mover.legal
                    and re.fullmatch(r"[RYGB][0-9]", a)]
            if holder is not None and holder != mover.seat and bare:
                view = await mover.snapshot()
                assert view is not None and mover.seat is not None
                step = 1 if view["direction"] == "cw" else -1
                if (mover.seat + step) % len(clients) != holder:
                    break
            seq = await mover.act(chosen(mover.legal, twos_first=holder is None))
            await caught_up(clients, seq)
        else:
            raise AssertionError("no silence with a play to one card")
        [writer] = [c for c in clients if c.seat not in (mover.seat, holder)]
        writer.keep_raw = True
        seq = await mover.act(bare[0])  # no call: the catch grace begins
        await caught_up(clients, seq)
        sizes = await hand_sizes(writer)
        # the line, then a ping on the same connection: once the pong is back, the room
        # has taken the line
        await writer.send_raw(json.dumps({"type": "chat", "id": "psst", "text": "psst"}))
        await writer.send_raw('{"type": "ping", "id": "after-the-line"}')

        def answers(client: GameClient) -> dict[str, Any]:
            found = [json.loads(raw) for raw in client.received]
            return {m["id"]: m for m in found if m["type"] in ("ack", "pong", "error")}
        await writer.wait_for(lambda c: "after-the-line" in answers(c))
        assert "psst" not in answers(writer)  # it waits with the actions
        assert "psst" not in texts(writer)
        called = await mover.act("uno")  # the target calls: the grace ends
        await writer.wait_for(lambda c: "psst" in answers(c))
        ack = answers(writer)["psst"]
        assert ack["type"] == "ack"
        seq = ack["seq"]
        await caught_up(clients, seq)
        new = [e for e in writer.events if e["seq"] > called - 1]
        kinds = [e["kind"] for e in new]
        assert kinds.index("uno_called") < kinds.index("said")
        said = next(e for e in new if e["kind"] == "said")
        assert said["player"] == writer.seat
        assert [(e["player"], e["amount"]) for e in new if e["kind"] == "drew"] == [
            (writer.seat, 3)]
        after = await hand_sizes(writer)
        assert after[writer.seat] == sizes[writer.seat] + 3
        for client in clients:
            await has_line(client, "psst")
            await client.close()
