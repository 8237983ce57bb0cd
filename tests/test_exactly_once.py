"""Exactly-once that nothing can evict (server review S2), on SQLite and PostgreSQL, over
a real room and store: acks are kept per seat occupant for the whole match and survive
restarts, refusals live in each connection's own small memory, and a new holder of a
seat never gets an earlier holder's answers."""

from __future__ import annotations

import pytest

from room_kit import Conn, Table, kind
from unokit.engine.phases import MATCH_OVER, ROUND_OVER
from unokit.server import answers as answers_module
from unokit.server import protocol as P
from unokit.server.answers import REFUSALS_KEPT, refusals_of
from unokit.store import Store

pytestmark = pytest.mark.asyncio


async def started(store: Store) -> tuple[Table, dict[int, tuple[Conn, str]]]:
    """A two-seat match under way: each seat's connection and token."""
    table = await Table.open(store)
    players = {0: await table.join("Ann"), 1: await table.join("Bob")}
    assert kind(await table.send(players[0][0], P.Start(id="start"))) == "ack"
    return table, players


async def test_a_flood_of_another_seats_refusals_does_not_evict_an_ack(
        database_url: str) -> None:
    # S2, first case: seat L draws with id victim-1; the other seat sends 4,500 refused
    # actions with fresh ids from 30 connections; victim-1 sent again must get its
    # original ack, and the draw must be stored once
    store = Store(database_url)
    try:
        table, players = await started(store)
        assert table.room.driver is not None
        lead = table.room.driver.lead()
        other = 1 - lead
        victim, _ = players[lead]
        ack = await table.send(victim, P.Act(id="victim-1", action="draw"))
        assert kind(ack) == "ack"
        flooders = [await table.back(players[other][1]) for _ in range(30)]
        legal = table.room._legal(other)[0]
        bad = next(f"{c}{v}" for c in "RYGB" for v in range(10) if f"{c}{v}" not in legal)
        for n in range(4500):
            refused = await table.send(flooders[n % 30], P.Act(id=f"f-{n}", action=bad))
            assert kind(refused) == "illegal"
        assert await table.send(victim, P.Act(id="victim-1", action="draw")) == ack
        again = await table.back(players[lead][1])  # and on another connection
        assert await table.send(again, P.Act(id="victim-1", action="draw")) == ack
        assert await table.count("SELECT count(*) FROM actions WHERE client_id = "
                                 "'victim-1'") == [(1,)]
        # each flooder keeps only its own last refusals
        assert [len(refusals_of(f)) for f in flooders] == [REFUSALS_KEPT] * 30
    finally:
        await store.close()


async def test_a_new_occupant_never_gets_an_earlier_occupants_answer(
        database_url: str) -> None:
    # S2, second case: seat 1 contributes with id c-1 and leaves; a new player takes seat
    # 1 and contributes with id c-1: a new message, applied and answered afresh
    store = Store(database_url)
    try:
        table = await Table.open(store)
        await table.join("Ann")
        bob, _ = await table.join("Bob")
        old = await table.send(bob, P.Contribute(id="c-1", value="bob-value"))
        assert kind(old) == "ack"
        assert kind(await table.send(bob, P.Leave(id="bye-1"))) == "ack"
        cy, cy_token = await table.join("Cy", seat=1)
        assert cy.welcome()["seat"] == 1
        new = await table.send(cy, P.Contribute(id="c-1", value="cy-value"))
        assert kind(new) == "ack"
        assert table.room.contributions[1] == "cy-value"
        assert await table.count("SELECT value FROM contributions WHERE seat = 1") == [
            ("cy-value",)]
        # Cy's own id is remembered for Cy, across a restart; Bob's other ids are not
        # Cy's: Cy's leave with Bob's id bye-1 would be a new message, not Bob's ack
        await table.restart()
        cy_again = await table.back(cy_token)
        assert await table.send(cy_again, P.Contribute(id="c-1", value="cy-value")) == new
        assert table.room.answers.get(1, table.room.seats[1].occupant, "bye-1") is None
        assert await table.count("SELECT occupant FROM seats WHERE seat = 1") == [(2,)]
    finally:
        await store.close()


async def test_a_new_occupant_after_a_restart_does_not_inherit_acks_of_actions(
        database_url: str) -> None:
    # The acks of committed actions are rebuilt at a restart for the occupant that sent
    # them only: after Bob is kicked between rounds, Cy in his seat sends an action with
    # an id of Bob's, and it is applied (not answered with Bob's ack)
    store = Store(database_url)
    try:
        table = await Table.open(store, rules={"preset": "official", "players": 2,
                                               "hand_size": 2, "rounds": 3})
        ann, _ = await table.join("Ann")
        bob, _ = await table.join("Bob")
        await table.send(ann, P.Start(id="start"))
        room = table.room
        assert room.game is not None and room.driver is not None
        conns = {0: ann, 1: bob}
        acked: dict[str, bytes] = {}
        for n in range(500):  # play the first round out
            if room.game.phase in (ROUND_OVER, MATCH_OVER):
                break
            seat = room.driver.lead()
            legal = room._legal(seat)[0]
            action = next((a for a in legal if a not in ("draw", "pass")), legal[0])
            answer = await table.send(conns[seat], P.Act(id=f"a-{n}", action=action))
            if seat == 1 and kind(answer) == "ack":
                acked[f"a-{n}"] = answer
        assert room.game.phase is ROUND_OVER and acked
        assert kind(await table.send(ann, P.Kick(id="kick-bob", seat=1))) == "ack"
        await table.restart()
        room = table.room
        cy, _ = await table.join("Cy", seat=1)
        bobs = sorted(acked)[0]
        [action] = room._legal(1)[0][:1]
        answer = await table.send(cy, P.Act(id=bobs, action=action))
        assert kind(answer) == "ack" and answer != acked[bobs]
        assert await table.count(f"SELECT count(*) FROM actions WHERE client_id = '{bobs}'"
                                 ) == [(2,)]
        assert room.answers.get(1, room.seats[1].occupant, bobs) == answer
        assert await table.count(f"SELECT seat, occupant FROM actions WHERE client_id = "
                                 f"'{bobs}' ORDER BY n") == [(1, 1), (1, 2)]
    finally:
        await store.close()


async def test_a_leavers_other_connections_go_with_them(database_url: str) -> None:
    # Bob has two connections and leaves on one: the other must not stay as seat 1, to
    # act for (or see the cards of, or get the acks of) whoever sits there next
    store = Store(database_url)
    try:
        table = await Table.open(store)
        await table.join("Ann")
        bob, bob_token = await table.join("Bob")
        phone = await table.back(bob_token)
        chat = await table.send(phone, P.SendChat(id="x-1", text="brb"))
        assert kind(await table.send(bob, P.Leave(id="bye"))) == "ack"
        assert phone.closed and phone not in table.room.conns
        cy, _ = await table.join("Cy", seat=1)
        assert kind(chat) == "ack"
        assert kind(await table.send(cy, P.SendChat(id="x-1", text="hello"))) == "ack"
        assert await table.count("SELECT text FROM chat WHERE client_id = 'x-1' ORDER BY n"
                                 ) == [("brb",), ("hello",)]
        assert all(c.viewer != 1 or c is cy for c in table.room.conns)
    finally:
        await store.close()


async def test_a_refusal_is_the_connections_and_bounded() -> None:
    store = Store("sqlite://")
    try:
        table = await Table.open(store)
        ann, ann_token = await table.join("Ann")
        bob, _ = await table.join("Bob")
        refused = await table.send(bob, P.Start(id="s-1"))  # Bob is not the host
        assert kind(refused) == "not_host"
        assert await table.send(bob, P.Start(id="s-1")) == refused  # the same answer
        # another connection's flood does not reach it
        other = await table.back(ann_token)
        for n in range(3 * REFUSALS_KEPT):
            await table.send(other, P.Contribute(id=f"x-{n}", value="!"))
        assert refusals_of(bob).get("s-1") == refused
        assert len(refusals_of(other)) == REFUSALS_KEPT
        assert len(table.room.answers) == 0  # no refusal is the room's
        # a refused id sent on another connection is judged again: Ann is the host
        started = await table.send(ann, P.Start(id="s-1"))
        assert kind(started) == "ack"
        assert await table.send(other, P.Start(id="s-1")) == started
    finally:
        await store.close()


async def test_an_occupant_has_an_allowance_of_answers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answers_module, "ANSWERS_PER_OCCUPANT", 3)
    store = Store("sqlite://")
    try:
        table = await Table.open(store)
        ann, _ = await table.join("Ann")
        bob, _ = await table.join("Bob")
        acks = [await table.send(ann, P.SendChat(id=f"l-{n}", text=f"line {n}"))
                for n in range(3)]
        assert [kind(a) for a in acks] == ["ack"] * 3
        assert kind(await table.send(ann, P.SetTimer(id="t-1", seconds=15))) == "too_many"
        assert kind(await table.send(ann, P.SendChat(id="l-9", text="more"))) == "too_many"
        assert await table.send(ann, P.SendChat(id="l-1", text="line 1")) == acks[1]
        assert kind(await table.send(bob, P.SendChat(id="l-0", text="mine"))) == "ack"
        assert await table.count("SELECT count(*) FROM chat") == [(4,)]
        assert kind(await table.send(ann, P.Leave(id="go"))) == "ack"  # always taken
        # a new occupant of seat 0 starts with a whole allowance, and Ann's acks go
        before = len(table.room.answers)
        dee, _ = await table.join("Dee", seat=0)
        assert len(table.room.answers) == before - 4
        assert kind(await table.send(dee, P.SendChat(id="l-0", text="hello"))) == "ack"
    finally:
        await store.close()


async def test_the_pages_state_the_bounds() -> None:
    from pathlib import Path
    docs = Path(__file__).resolve().parents[1] / "docs"
    protocol = (docs / "protocol.md").read_text(encoding="utf-8")
    server = (docs / "server.md").read_text(encoding="utf-8")
    for page in (protocol, server):
        assert f"{answers_module.ANSWERS_PER_OCCUPANT}" in page
        assert f"{REFUSALS_KEPT}" in page
