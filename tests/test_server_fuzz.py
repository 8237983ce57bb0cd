"""Fuzz: no input gives a 500 or a traceback. Over 100,000 generated WebSocket frames
and HTTP requests (tests/fuzz_inputs.py), sent in process to the server's ASGI app on
SQLite and on PostgreSQL. Expected, and counted: 0 unhandled exceptions and 0 error
logs, a typed answer for each input, 0 changes to the rooms and the database for the
refused ones, and memory that stays bounded."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import resource
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from asgi_driver import Socket, opened_app, request
from fuzz_inputs import FrameMaker, RequestMaker
from polling import until
from server_harness import server_settings
from unokit.server.room import Room
from unokit.server.rooms import Rooms
from unokit.store import models

pytestmark = pytest.mark.asyncio

FRAMES = 60_000
"""WebSocket frames per database (hellos included)."""
REQUESTS = 45_000
"""HTTP requests per database."""
FRAMES_PER_CONNECTION = 150
"""Frames a fuzz connection sends before it goes (under the 200 refusals in a row after
which the server closes it)."""
MEMORY_BOUND = 64 * 1024 * 1024
"""How much more resident memory the process may hold after the run than after its
first tenth (tracemalloc would make the run several times slower)."""
REPLIES = {"error", "pong", "ack", "snapshot", "welcome", "bye"}
"""The messages that answer a client's message (the others are broadcasts)."""


class Errors(logging.Handler):
    """Every log record at ERROR or above."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def error_logs() -> Iterator[Errors]:
    handler = Errors()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


def fuzz_settings(database_url: str, **changes: Any) -> Any:
    values: dict[str, Any] = {"rate": 1e6, "burst": 1_000_000, "presence_interval": 0.5,
                              "handshake_rate": 0, "conns_per_address": 0,
                              "room_rate": 0.001, "room_burst": 5, "lobbies_per_address": 3,
                              "max_rooms": 50}
    values.update(changes)
    return server_settings(database_url, **values)


def rows(database_url: str) -> dict[str, int]:
    """How many rows each table of the store holds."""
    engine = sa.create_engine(database_url)
    try:
        with engine.connect() as db:
            return {table.name: db.execute(sa.select(sa.func.count()).select_from(table)
                                           ).scalar_one()
                    for table in models.Base.metadata.sorted_tables}
    finally:
        engine.dispose()


def room_state(room: Room) -> tuple[Any, ...]:
    """What a fuzzer must not change in a room."""
    return (room.status, [(s.kind, s.name, s.bot) for s in room.seats], room.last_seq(),
            dict(room.contributions), room.turn_timer, room.chat_next)


async def waits_for_seat_0(room: Room) -> None:
    """Return once the match waits for seat 0 (the bot has played)."""
    await until(lambda: room.status == "playing" and room.driver is not None
                and room.driver.lead() == 0 and room.bot_due is None, "seat 0's turn")


async def setup_rooms(app: Any, rooms: Rooms) -> list[str]:
    """A full lobby (Ann, the host, and a bot) and a match under way that waits for Ann:
    a spectator or a stranger can change neither."""
    codes = []
    for start in (False, True):
        answer = await request(app, "POST", "/api/rooms", headers=[
            ("content-type", "application/json")], client=("10.9.9.9", 1),
            body=[b'{"rules": "official,players=2,target_score=100000", "bots": ["easy"]}'])
        assert answer.status == 201, answer.body
        code = answer.json()["code"]
        ann = Socket(app, client=("10.9.9.9", 2))
        ann.start()
        assert (await ann.next())["type"] == "websocket.accept"
        ann.text(json.dumps({"type": "hello", "room": code, "name": "Ann"}))
        assert json.loads((await ann.next())["text"])["type"] == "welcome"
        room = rooms.get(code)
        if start:
            ann.text(json.dumps({"type": "start", "id": "go"}))

            await asyncio.wait_for(waits_for_seat_0(room), 30)

        async def nothing(_room: Room) -> None:
            pass
        await room.call(nothing)  # runs once the room is done with its last move's commit
        await ann.close()
        codes.append(code)
    return codes


async def reply(sock: Socket) -> dict[str, Any] | None:
    """The next answer to the client (broadcasts skipped); ``None`` once closed."""
    while True:
        message = await sock.next()
        if message["type"] == "websocket.close":
            return None
        if message["type"] != "websocket.send":
            raise AssertionError(f"unexpected {message['type']}")
        data = json.loads(message["text"])
        if data["type"] in REPLIES:
            return data


def resident() -> int:
    """The process's resident memory in bytes (its peak where /proc is missing)."""
    statm = Path("/proc/self/statm")
    if statm.exists():
        return int(statm.read_text().split()[1]) * resource.getpagesize()
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


async def test_fuzz_websocket_frames(database_url: str, error_logs: Errors) -> None:
    rng = random.Random(20261203)
    async with opened_app(fuzz_settings(database_url)) as (app, rooms):
        codes = await setup_rooms(app, rooms)
        before = {code: room_state(rooms.get(code)) for code in codes}
        stored = rows(database_url)
        maker = FrameMaker(rng, [*codes, "NOSUCH"])
        sent = 0
        answers: Counter[str] = Counter()
        baseline = 0
        while sent < FRAMES:
            sock = Socket(app, client=(f"10.0.{sent % 250}.1", sent))
            sock.start()
            assert (await sock.next())["type"] == "websocket.accept"
            first = maker.hello()
            sock.binary(first) if isinstance(first, bytes) else sock.text(first)
            sent += 1
            answer = await reply(sock)
            assert answer is not None, first
            answers[answer.get("code") or answer["type"]] += 1
            if answer["type"] == "welcome":
                for _ in range(FRAMES_PER_CONNECTION):
                    frame = maker.frame()
                    sock.binary(frame) if isinstance(frame, bytes) else sock.text(frame)
                    sent += 1
                    answer = await reply(sock)
                    assert answer is not None and answer["type"] != "bye", frame
                    assert answer["type"] != "error" or answer["message"], answer
                    answers[answer.get("code") or answer["type"]] += 1
            await sock.close()
            if not baseline and sent >= FRAMES // 10:
                baseline = resident()
        grown = resident() - baseline
        assert sent >= FRAMES
        assert sum(answers.values()) == sent  # one typed answer for each frame
        assert answers["bad_message"] > FRAMES // 4 and answers["too_large"] > 0
        assert answers["not_seated"] > 0 and answers["welcome"] > 0
        assert error_logs.records == []
        assert {code: room_state(rooms.get(code)) for code in codes} == before
        assert rows(database_url) == stored
        assert grown < MEMORY_BOUND, grown
        assert app.state.limits.total_conns == 0


async def test_fuzz_http_requests(database_url: str, error_logs: Errors) -> None:
    rng = random.Random(20261204)
    async with opened_app(fuzz_settings(database_url)) as (app, rooms):
        codes = await setup_rooms(app, rooms)
        before = {code: room_state(rooms.get(code)) for code in codes}
        stored = rows(database_url)
        maker = RequestMaker(rng, codes)
        statuses: Counter[int] = Counter()
        created = 0
        baseline = 0
        for n in range(REQUESTS):
            made = maker.request()
            answer = await request(app, made.method, made.path, query=made.query,
                                   headers=made.headers, body=made.body,
                                   client=(f"10.1.{n % 7}.1", n))
            statuses[answer.status] += 1
            assert answer.status < 500 or answer.status == 503, (made, answer)
            if answer.status >= 400 and made.method != "HEAD":
                error = answer.json()
                assert isinstance(error["error"], str) and error["message"], made
            if answer.status == 201:
                created += 1
            if n == REQUESTS // 10:
                baseline = resident()
        grown = resident() - baseline
        assert sum(statuses.values()) == REQUESTS
        assert statuses[400] > 0 and statuses[404] > 0 and statuses[405] > 0
        assert statuses[413] + statuses[415] + statuses[429] + statuses[403] > 0
        assert error_logs.records == []
        assert {code: room_state(rooms.get(code)) for code in codes} == before
        after = rows(database_url)
        # the requests that were refused stored nothing: only the rooms created are new
        assert after["rooms"] == stored["rooms"] + created
        assert after["actions"] == stored["actions"]
        assert created <= 50
        assert grown < MEMORY_BOUND, grown
