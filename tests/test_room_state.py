"""The room as one state: one :class:`RoomState`, rebuilt whole on recovery; parts that
share one base instead of re-declaring each other's fields; a typed inbox; answers that
commands return; one injectable clock. Rooms are driven message by message
(:mod:`room_kit`), so nothing here waits for time to pass."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest

from room_kit import Conn, Table, kind
from unokit.server import inbox
from unokit.server import protocol as P
from unokit.server.chat import CHAT_LINES
from unokit.server.lobby import Command
from unokit.server.room import Room
from unokit.server.room_base import RoomBase
from unokit.server.room_clock import RoomClock
from unokit.server.room_state import RoomState
from unokit.server.seating import Grace
from unokit.store import Store

SERVER = Path(__file__).resolve().parents[1] / "src" / "unokit" / "server"
PARTS = ("lobby.py", "chat.py", "pacing.py", "presence.py")


class Clock:
    """A clock a test moves by hand."""

    def __init__(self) -> None:
        self.wall = 1_800_000_000.0
        self.mono = 500.0

    def room_clock(self) -> RoomClock:
        return RoomClock(wall=lambda: self.wall, monotonic=lambda: self.mono)


@contextlib.asynccontextmanager
async def opened() -> AsyncIterator[Store]:
    """A store on a database of its own, closed afterwards."""
    store = Store("sqlite://")
    try:
        yield store
    finally:
        await store.close()


def test_the_parts_of_a_room_share_one_base_and_declare_nothing_of_each_other() -> None:
    for name in PARTS:
        tree = ast.parse((SERVER / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                raise AssertionError(f"{name}:{node.lineno}: a TYPE_CHECKING block")
    assert all(issubclass(part, RoomBase) for part in Room.__mro__[1:5])


def test_every_module_of_the_server_is_under_800_lines() -> None:
    sizes = {path.name: len(path.read_text().splitlines()) for path in SERVER.glob("*.py")}
    assert {name: n for name, n in sizes.items() if n > 800} == {}


def test_every_field_of_the_state_reads_and_writes_through_the_room() -> None:
    on_room = {name for name in vars(RoomBase) if not name.startswith("__")}
    assert {f.name for f in dataclasses.fields(RoomState)} <= on_room


@pytest.mark.asyncio
async def test_a_new_state_is_made_in_one_place() -> None:
    async with opened() as store:
        clock = Clock()
        table = await Table.open(store)
        room = table.room
        [stored] = await store.load_rooms(code=room.code)
        again = RoomState.restore(stored, room.rules, settings=room.settings, now=clock.wall,
                                  monotonic=clock.mono)
        assert (again.status, again.seats, again.turn_timer) == (
            room.status, room.seats, room.turn_timer)
        assert again.last_commit == clock.wall  # nothing was committed: counted from now


@pytest.mark.asyncio
async def test_recovery_swaps_in_the_state_the_database_holds() -> None:
    async with opened() as store:
        table = await Table.open(store)
        ann, _ = await table.join("Ann")
        await table.join("Bob")
        assert kind(await table.send(ann, P.Contribute(id="c-1", value="abc"))) == "ack"
        started = await table.send(ann, P.Start(id="s-1"))
        room = table.room
        old, game = room.state, room.game
        assert game is not None
        history = list(game.history)
        # memory drifts from the database (as a failing message could leave it)
        room.contributions[1] = "never-stored"
        room.seats[1].name = "Mallory"
        room.called_ahead.add(0)
        room.grace = Grace(0, 10.0)
        room.auto_start = True  # memory's own: kept
        await room._recover()
        assert room.state is not old and room.game is not game
        assert room.game is not None and room.game.history == history
        assert room.contributions == {0: "abc"}
        assert room.seats[1].name == "Bob"
        assert room.called_ahead == set() and room.grace is None
        assert room.auto_start
        # the answers given before are still owed: the same id gets the same answer
        assert await table.send(ann, P.Start(id="s-1")) == started


@pytest.mark.asyncio
async def test_a_command_returns_the_answer_stored_with_its_change() -> None:
    async with opened() as store:
        table = await Table.open(store)
        await table.join("Ann")
        room = table.room
        answer = await room._contribute(0, "xyz", Command(0, "c-9"))
        assert answer is not None
        assert msgspec.json.decode(answer.answer) == {"type": "ack", "id": "c-9",
                                                      "seq": room.last_seq()}
        rows = await table.count("SELECT client_id, answer FROM answers")
        assert rows == [("c-9", answer.answer)]
        await table.join("Bob")
        before = room.answers_next
        assert await room._start_match(None) is None  # no id asked for it: nothing to store
        assert room.answers_next == before


@pytest.mark.asyncio
async def test_the_chat_counts_its_lines_on_the_rooms_clock() -> None:
    async with opened() as store:
        clock = Clock()
        table = await Table.open(store)
        table.room.clock = clock.room_clock()
        ann, _ = await table.join("Ann")
        for n in range(CHAT_LINES):
            assert kind(await table.send(ann, P.SendChat(id=f"l-{n}", text="hi"))) == "ack"
        assert kind(await table.send(ann, P.SendChat(id="over", text="hi"))) == "rate_limited"
        clock.mono += table.room.chat_window  # the window passes on the room's clock alone
        clock.wall += 60
        assert kind(await table.send(ann, P.SendChat(id="again", text="hi"))) == "ack"
        assert table.room.chat_lines[-1].at == round(clock.wall * 1000)


@pytest.mark.asyncio
async def test_the_turn_timer_runs_on_the_rooms_clock() -> None:
    async with opened() as store:
        clock = Clock()
        table = await Table.open(store)
        room = table.room
        clock.wall = room.last_commit  # no time has passed since the room was made
        room.clock = clock.room_clock()
        ann, _ = await table.join("Ann")
        await table.join("Bob")
        room.turn_timer = 15
        assert kind(await table.send(ann, P.Start(id="s"))) == "ack"
        room._schedule()
        assert room.timer_due == pytest.approx(clock.mono + 15 * room.settings.timer_scale)


@pytest.mark.asyncio
async def test_a_closed_room_lets_a_call_go_and_refuses_a_message() -> None:
    async with opened() as store:
        table = await Table.open(store)
        room = table.room
        room.status = "closed"
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def job(room: Room) -> None:
            raise AssertionError("a closed room runs nothing")
        room.submit(inbox.Call(done, job))
        assert done.done()
        conn = Conn(0)
        room.submit(inbox.Message(conn, P.Ping(id="p")))
        assert conn.closed and kind(conn.sent[0]) == "room_closed"
        assert room.inbox.empty()


@pytest.mark.asyncio
async def test_a_room_that_moved_tells_its_callers_to_reconnect() -> None:
    async with opened() as store:
        table = await Table.open(store)
        room = table.room
        room.lost = True
        conn = Conn(-1)
        room.submit(inbox.Hello(conn, P.Hello(room=room.code, spectate=True)))
        message = msgspec.json.decode(conn.sent[0])
        assert conn.closed and message["type"] == "bye" and "moved" in message["reason"]
        assert message["code"] == "moved" and message.get("reconnect", True) is True
        assert room.inbox.empty()


@pytest.mark.asyncio
async def test_the_spectators_room_message_waits_on_the_rooms_clock() -> None:
    # spectators who come and go are told to everyone in one room message, due
    # presence_interval after the first of them on the room's own clock (no timer of the
    # event loop): it comes once that clock reaches it, and not before
    async with opened() as store:
        clock = Clock()
        table = await Table.open(store)
        room = table.room
        room.clock = clock.room_clock()
        ann, _ = await table.join("Ann")
        interval = room.settings.presence_interval
        watchers = [Conn(-1) for _ in range(3)]
        for watcher in watchers:
            await table.handle("hello", watcher, P.Hello(room=room.code, spectate=True))
        assert room.presence_due == clock.mono + interval
        assert room._due() == room.presence_due

        def told() -> list[int]:
            return [m["room"].get("spectators", 0) for m in map(msgspec.json.decode, ann.sent)
                    if m.get("type") == "room"]
        before = told()
        clock.mono += interval / 2
        await room._handle(inbox.Due())
        assert told() == before  # not due yet on the room's clock
        clock.mono += interval / 2
        await room._handle(inbox.Due())
        assert told() == [*before, 3] and room.presence_due is None
        await table.handle("gone", watchers[0])  # the next one waits its interval again
        assert room.presence_due == clock.mono + interval and told() == [*before, 3]
