"""Server bots decide off the event loop (src/unokit/server/bot_pool.py): in worker
processes, within a budget, and only the bots the allow-list lets in.

- While a bot thinks in a worker process, its own room and every other room answer.
- A bot past its budget gets the cheap move, the room goes on, and the stuck worker is
  killed and replaced; a server that stops does not wait for a thinking bot.
- A bot spec from the network that is not on the allow-list is refused with
  ``bad_request`` at every entry point (``POST /api/rooms``, ``POST /api/play-now``,
  ``add_bot``), and nothing is made.
- A stored spec above the cap comes back lowered to it after a restart.

Nothing here waits a fixed time: the tests wait for the conditions they need."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from gate_bots import GateBot
from polling import until
from server_harness import Running, running_server, server_settings
from unokit.bots import make_bot
from unokit.client import GameClient
from unokit.client.client import ActionRefused
from unokit.engine.actions import action_player
from unokit.server import pacing as pacing_module
from unokit.server import protocol as P
from unokit.server.bot_pool import ProcessBotPool, live
from unokit.server.rooms import Rooms
from unokit.server.seating import BOT, Seat

pytestmark = pytest.mark.asyncio

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every server bot is a :class:`GateBot` on this (missing) file, and the worker
    processes can import it."""
    path = tmp_path / "gate"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])]))
    monkeypatch.setattr(pacing_module, "make_bot", lambda *a, **k: GateBot(str(path)))
    yield path
    path.touch()  # a thread or worker still waiting ends


async def play_now(server: Running, **body: Any) -> str:
    async with httpx.AsyncClient() as http:
        answer = await http.post(server.url + "/api/play-now", json=body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["code"])


async def play_until(ann: GameClient, condition: Callable[[], bool]) -> None:
    """Play Ann's turns (the first legal action) until ``condition()`` holds."""
    while not condition():
        await until(lambda: condition() or ann.must)
        if not condition() and ann.must:
            try:
                await ann.act(ann.legal[0])
            except ActionRefused:
                await ann.snapshot()


async def until_thinking(server: Running, code: str, ann: GameClient) -> None:
    """Play Ann's turns until the room's bot is thinking."""
    room = server.rooms.get(code)
    await play_until(ann, lambda: room.thinking is not None)


# ---------------------------------------------------------------- off the loop
async def warm(server: Running) -> ProcessBotPool:
    """The server's pool, its worker started and warmed up."""
    pool = server.rooms.bot_pool
    assert isinstance(pool, ProcessBotPool)
    pool.start()
    await until(lambda: pool.ready == pool.size)
    return pool


async def test_a_thinking_bot_blocks_neither_its_room_nor_another(
        gate: Path, tmp_path: Path) -> None:
    settings = server_settings(f"sqlite:///{tmp_path / 'unokit.db'}", bot_workers=1,
                               bot_budget=10.0)
    async with running_server(settings) as server:
        pool = await warm(server)
        code = await play_now(server, rules="official,players=2", bot="normal")
        ann = await GameClient.join(server.url, code, name="Ann")
        async with httpx.AsyncClient() as http:
            other = (await http.post(server.url + "/api/rooms", json={})).json()["code"]
        bob = await GameClient.join(server.url, other, name="Bob")
        await until_thinking(server, code, ann)
        room = server.rooms.get(code)
        # the bot is stuck in its worker: the server still answers everyone
        await bob.snapshot()
        await ann.snapshot()
        async with httpx.AsyncClient() as http:
            assert (await http.get(server.url + "/healthz")).status_code == 200
        assert room.thinking is not None
        before = len(room.game.history) if room.game else 0
        gate.touch()
        await until(lambda: room.game is not None and len(room.game.history) > before)
        assert pool.decided >= 1 and not pool.fallbacks
        kept = room.bots[1]
        # it came back pickled: the event loop does not unpickle it (nor pickle it
        # again for its next decision)
        assert isinstance(kept, bytes)
        bot = live(kept)
        assert isinstance(bot, GateBot)
        # it decided in another process, and came back with what it did there
        assert bot.pids and os.getpid() not in bot.pids
        await ann.close()
        await bob.close()


async def test_the_workers_run_at_the_lowest_priority(tmp_path: Path) -> None:
    """A worker thinks at nice 19, so that the rooms come first on a busy machine; the
    server keeps its own priority."""
    settings = server_settings(f"sqlite:///{tmp_path / 'unokit.db'}", bot_workers=1)
    async with running_server(settings) as server:
        pool = await warm(server)
        process = pool.workers[0].process
        assert process is not None
        own = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, process.pid) == min(19, own + 19)
        assert own < 19  # the server's own priority is kept


def _allowed_cpus(pid: int) -> set[int]:
    return set(os.sched_getaffinity(pid))


async def test_the_workers_run_on_the_cpus_of_bot_cpus_and_the_server_keeps_its_own(
        tmp_path: Path) -> None:
    """``bot_cpus`` pins the workers, so that a host can keep the event loop's CPU free
    of bots; the server's own CPUs stay as they were. Without it a worker may run
    wherever the server may."""
    mine = _allowed_cpus(0)
    assert len(mine) >= 2, "this test pins a worker to one of two CPUs or more"
    last = max(mine)
    settings = server_settings(f"sqlite:///{tmp_path / 'unokit.db'}", bot_workers=1,
                               bot_cpus=str(last))
    async with running_server(settings) as server:
        pool = await warm(server)
        process = pool.workers[0].process
        assert process is not None
        assert _allowed_cpus(process.pid) == {last}
        assert _allowed_cpus(0) == mine  # the server (this process) is left as it was
    settings = server_settings(f"sqlite:///{tmp_path / 'other.db'}", bot_workers=1)
    async with running_server(settings) as server:
        pool = await warm(server)
        process = pool.workers[0].process
        assert process is not None
        assert _allowed_cpus(process.pid) == mine


async def test_a_bot_past_its_budget_gets_the_cheap_move_and_its_worker_is_replaced(
        gate: Path, tmp_path: Path) -> None:
    settings = server_settings(f"sqlite:///{tmp_path / 'unokit.db'}", bot_workers=1,
                               bot_budget=0.2)
    async with running_server(settings) as server:
        code = await play_now(server, rules="official,players=2", bot="normal")
        ann = await GameClient.join(server.url, code, name="Ann")
        pool = server.rooms.bot_pool
        assert isinstance(pool, ProcessBotPool)
        room = server.rooms.get(code)
        # the worker is still warming up or stuck on the gate: the room plays on with
        # the cheap move
        await play_until(ann, lambda: room.game is not None and any(
            action_player(a) == 1 for a in room.game.history))
        assert sum(pool.fallbacks.values()) >= 1
        assert pool.decided == 0
        # the bot was pickled when first asked, and the room keeps it so though no
        # worker decided: the event loop does not pickle it again at its next ask
        assert isinstance(room.bots[1], bytes)
        # once a job reached the stuck worker, it is killed and a new one started
        await play_until(ann, lambda: pool.replaced >= 1)
        assert pool.decided == 0
        await ann.snapshot()
        await ann.close()


async def test_a_server_that_stops_does_not_wait_for_a_thinking_bot(
        gate: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = server_settings(f"sqlite:///{tmp_path / 'unokit.db'}", bot_workers=1,
                               bot_budget=10.0)
    caplog.set_level(logging.WARNING, "unokit.bots")
    async with asyncio.timeout(120):
        async with running_server(settings) as server:
            pool = await warm(server)
            code = await play_now(server, rules="official,players=2", bot="normal")
            ann = await GameClient.join(server.url, code, name="Ann")
            await until_thinking(server, code, ann)
            await until(lambda: any(w.job is not None for w in pool.workers))
            processes = [w.process for w in pool.workers if w.process is not None]
        # stopped while the bot was still thinking: its worker was killed, not waited on
        assert [p.returncode for p in processes] == [-signal.SIGKILL]
        assert pool.decided == 0 and "late" not in pool.fallbacks
        # killed by the stop itself, not by its budget's killer (a stop that waited for
        # the thinking bot would end only once the budget had killed its worker)
        assert "ran past its budget" not in caplog.text


# ---------------------------------------------------------------- the allow-list
BAD_SPECS = ["search:\u00b2", "search:" + "9" * 5000, "search:" + "9" * 3900,
             "search:5000000", "search:6001", "search:0", "search:-3", "alien",
             "hard:angry", "random:3", "", "normal" + " " * 100, 7, None, ["normal"]]


@pytest.mark.parametrize("spec", BAD_SPECS, ids=range(len(BAD_SPECS)))
async def test_a_bot_spec_off_the_allow_list_is_refused_everywhere(
        spec: Any, tmp_path: Path) -> None:
    settings = server_settings(f"sqlite:///{tmp_path / 'unokit.db'}")
    async with running_server(settings) as server:
        async with httpx.AsyncClient() as http:
            made = await http.post(server.url + "/api/rooms",
                                   json={"rules": "official,players=3", "bots": [spec]})
            now = await http.post(server.url + "/api/play-now",
                                  json={"rules": "official,players=2", "bot": spec})
            assert not server.rooms.rooms  # nothing was made
            room = (await http.post(server.url + "/api/rooms", json={})).json()["code"]
        for answer in (made, now):
            assert answer.status_code == 400, answer.text
            assert answer.json()["error"] == "bad_request"
        ann = await GameClient.join(server.url, room, name="Ann")
        raw = json.dumps({"type": "add_bot", "id": "bot-1", "bot": spec})
        await ann.send_raw(raw)
        await ann.wait_for(lambda c: bool(c.errors))
        [error] = ann.errors
        if len(raw) > P.MAX_MESSAGE_BYTES:  # refused before it is read
            assert error["code"] == "too_large"
        else:  # a bot that is not a text does not fit the message (bad_message)
            code = "bad_request" if isinstance(spec, str) else "bad_message"
            assert (error["code"], error.get("id")) == (code, "bot-1")
        assert {s.kind for s in server.rooms.get(room).seats[1:]} == {"empty"}
        await ann.close()


@pytest.mark.parametrize("spec, stored", [("Hard:Aggressive", "hard:aggressive"),
                                          (" search:6000 ", "search:6000"),
                                          ("playfirst", "playfirst")])
async def test_the_allowed_specs_are_seated_in_their_canonical_form(
        spec: str, stored: str, tmp_path: Path) -> None:
    settings = server_settings(f"sqlite:///{tmp_path / 'unokit.db'}")
    async with running_server(settings) as server:
        async with httpx.AsyncClient() as http:
            made = await http.post(server.url + "/api/rooms",
                                   json={"rules": "official,players=2", "bots": [spec]})
        assert made.status_code == 201, made.text
        assert server.rooms.get(made.json()["code"]).seats[1].bot == stored


# ---------------------------------------------------------------- restart
async def test_a_stored_spec_above_the_cap_comes_back_lowered(tmp_path: Path) -> None:
    settings = server_settings(f"sqlite:///{tmp_path / 'unokit.db'}")
    rooms = Rooms(settings)
    await rooms.open()
    codes = []
    for spec in ("search:5000000", "search:" + "9" * 3900, "search:200"):
        room = await rooms.create("official,players=2")
        # as an older server stored it, before the allow-list
        await room.call(lambda r, spec=spec: r._set_seats(
            {1: Seat(kind=BOT, name="old bot", bot=spec)}))
        codes.append(room.code)
    await rooms.close()
    again = Rooms(settings)
    await again.open()
    try:
        bots = [again.get(code).seats[1].bot for code in codes]
        assert bots == ["search:6000", "normal", "search:200"]
        room = again.get(codes[0])
        assert make_bot(room.seats[1].bot, rules=room.rules).iterations == 6000
    finally:
        await again.close()
