"""A room handed over by a process that stops cleanly keeps its turn timer: the next
process counts the turn on from the seconds used, not from the last action, so the time
between the two processes is charged to nobody (:mod:`unokit.server.handover`). The
rooms' wall clock is the test's own: the handover "takes" as long as the test says."""

from __future__ import annotations

import httpx
import pytest

from polling import until
from server_harness import running_server, server_settings
from unokit.client import GameClient
from unokit.server import protocol as P
from unokit.store import Store
from unokit.store.turn_clocks import TURN_CLOCKS

pytestmark = pytest.mark.asyncio

HANDOVER = 10.0
"""Seconds, by the rooms' wall clock, between the first process stopping and the next
one taking the room over."""


async def a_turn_under_way(url: str) -> tuple[str, GameClient]:
    """A match (a person, a bot) with a 15 s turn timer, waiting for the person after
    an action (the turn timer counts from the last action stored)."""
    async with httpx.AsyncClient() as http:
        made = await http.post(url + "/api/rooms", json={
            "rules": "official,players=2,hand_size=7", "bots": ["easy"], "turn_timer": 15})
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    ann = await GameClient.join(url, code, name="Ann")
    await ann.command(P.Start)
    await ann.wait_for(lambda c: c.must)
    await ann.act(next((a for a in ann.legal if a != "draw"), ann.legal[0]))
    await ann.wait_for(lambda c: c.must)
    return code, ann


async def test_a_clean_restart_charges_no_time_to_the_turn_under_way(
        database_url: str) -> None:
    wall = [1_900_000_000.0]
    settings = server_settings(database_url, turn_timer=15, catch_grace=0.0)
    async with running_server(settings, clock=lambda: wall[0]) as first:
        code, ann = await a_turn_under_way(first.url)
        room = first.rooms.rooms[code]
        await until(lambda: room.timer_due is not None, "the turn timer runs")
        assert room.timer_due is not None
        left_before = room.timer_due - room.clock.monotonic()
        actions = len(room.game.history) if room.game is not None else -1
    await ann.close()
    wall[0] += HANDOVER  # the room waits between two processes this long
    async with running_server(settings, clock=lambda: wall[0]) as second:
        room = second.rooms.rooms[code]
        await until(lambda: room.timer_due is not None, "the turn timer runs again")
        assert room.game is not None and len(room.game.history) == actions
        assert room.timer_due is not None
        left_after = room.timer_due - room.clock.monotonic()
        # the turn goes on with what it had left: the handover's 10 s are not charged
        # (without the handover the timer would have about 15 - 10 = 5 s left)
        assert left_before - 1.0 <= left_after <= left_before
        again = GameClient(second.url, code, token=ann.token)
        await again.connect()
        await again.wait_for(lambda c: c.must and c.timer is not None)
        assert again.timer is not None and again.timer["ms"] >= (left_before - 1.0) * 1000
        await again.close()
        assert second.rooms.store is not None
        rows = await second.rooms.store.run(
            lambda c: c.execute(TURN_CLOCKS.select()).all())
        assert rows == [], "the clock serves one handover: the room took it"


async def test_a_turn_clock_of_an_earlier_position_is_not_used(database_url: str) -> None:
    """The room moved on after its clock was stored (the row names fewer actions): the
    turn counts from the last action, as after a crash."""
    wall = [1_900_000_000.0]
    settings = server_settings(database_url, turn_timer=15, catch_grace=0.0)
    async with running_server(settings, clock=lambda: wall[0]) as first:
        code, ann = await a_turn_under_way(first.url)
        room_id = first.rooms.rooms[code].id
    await ann.close()
    store = Store(database_url)
    try:
        await store.run(lambda c: c.execute(TURN_CLOCKS.update().where(
            TURN_CLOCKS.c.room_id == room_id).values(actions=-1)))
    finally:
        await store.close()
    wall[0] += HANDOVER
    async with running_server(settings, clock=lambda: wall[0]) as second:
        room = second.rooms.rooms[code]
        await until(lambda: room.timer_due is not None, "the turn timer runs again")
        assert room.timer_due is not None
        left = room.timer_due - room.clock.monotonic()
        assert left <= 15.0 - HANDOVER + 0.5  # counted from the last action
