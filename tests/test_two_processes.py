"""Two real ``unokit serve`` processes on one database (SQLite and PostgreSQL), with a
short lease (4 s, renewed every 0.5 s).

The second process restores none of the first one's rooms, refuses a hello for them
with ``elsewhere`` and frees no seat of theirs, while the first plays on. Then the first
is stopped with SIGSTOP, with a client's action sent to it and not yet read: once its
lease has run out the second takes the room over, and the client sends the action again
there. When the first comes back (SIGCONT) it stores nothing and acknowledges nothing:
its room lets go, and the client's first connection is told to reconnect. The action is
stored once, and the stored match replays without a gap or a duplicate.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, select

from polling import until
from test_server_leases import check_replay
from unokit.client import GameClient
from unokit.client.client import ActionRefused, ClientError
from unokit.server import protocol as P
from unokit.store import Store
from unokit.store.db import open_engine
from unokit.store.leases import LEASES
from unokit.store.models import RoomRow, SeatRow

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from kill_restart import Server  # noqa: E402 - the benchmark's server process, beside it

sys.path.remove(str(ROOT / "benchmarks"))

pytestmark = pytest.mark.asyncio


def lease_owner(engine: Engine, code: str) -> str:
    with engine.connect() as connection:
        return str(connection.execute(
            select(LEASES.c.owner).join(RoomRow, RoomRow.id == LEASES.c.room_id)
            .where(RoomRow.code == code)).scalar_one())


def seat_kinds(engine: Engine, code: str) -> list[str]:
    with engine.connect() as connection:
        return [str(kind) for kind in connection.execute(
            select(SeatRow.kind).join(RoomRow, RoomRow.id == SeatRow.room_id)
            .where(RoomRow.code == code).order_by(SeatRow.seat)).scalars()]


def must_play(client: GameClient) -> bool:
    """The client must act, and not only to start the next round: that is left to the
    server's round pause, which a ``next`` pressed as the pause ends would race (and
    lose: ``the round is not over``)."""
    return client.must and client.legal != ["next"]


async def play_some(client: GameClient, actions: int) -> None:
    """Play ``actions`` of the client's turns (the first legal action)."""
    for _ in range(actions):
        await client.wait_for(must_play)
        await client.act(client.legal[0])


async def test_two_processes_on_one_database_and_a_stalled_owner(
        database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNOKIT_LEASE", "4")
    monkeypatch.setenv("UNOKIT_LEASE_RENEW", "0.5")
    if database_url.startswith("sqlite"):
        database_url = f"sqlite:///{tmp_path / 'shared.db'}"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = Server(tmp_path / "a", database_url)
    second = Server(tmp_path / "b", database_url)
    engine = open_engine(database_url)
    stopped = False
    try:
        await first.start()
        async with httpx.AsyncClient() as http:
            made = await http.post(first.url + "/api/rooms", json={
                "rules": "official,players=2,hand_size=12", "bots": ["easy"]})
            lobby = await http.post(first.url + "/api/rooms",
                                    json={"rules": "official,players=3"})
        code, lobby_code = made.json()["code"], lobby.json()["code"]
        bob = await GameClient.join(first.url, lobby_code, name="Bob")
        ann = await GameClient.join(first.url, code, name="Ann")
        await ann.command(P.Start)
        await play_some(ann, 2)
        first_owner = lease_owner(engine, code)
        assert first.proc is not None and f"/{first.proc.pid}/" in first_owner

        monkeypatch.setenv("UNOKIT_SEAT_TIMEOUT", "0.5")  # the second sweeps fast
        await second.start()
        async with httpx.AsyncClient() as http:
            ready = (await http.get(second.url + "/readyz")).json()
        assert ready["restored"] == 0 and ready["rooms"] == 0
        for wanted in (code, lobby_code):
            with pytest.raises(ClientError, match="elsewhere"):
                await GameClient.join(second.url, wanted, token=ann.token)
        await play_some(ann, 3)  # the first plays on beside the second
        assert seat_kinds(engine, lobby_code) == ["human", "empty", "empty"]
        assert lease_owner(engine, code) == first_owner

        # the first process stops, with the client's action on its way to it
        await ann.wait_for(must_play)
        choice = ann.legal[0]
        assert first.proc is not None
        os.kill(first.proc.pid, signal.SIGSTOP)
        stopped = True
        first_try = asyncio.ensure_future(ann.act(choice, msg_id="sent-while-stopped"))
        await until(lambda: lease_owner(engine, code) not in (first_owner, ""),
                    "the second process took the room over")
        again = GameClient(second.url, code, token=ann.token)
        again.last_seq = ann.last_seq
        await again.connect()
        assert await again.act(choice, msg_id="sent-while-stopped") > ann.last_seq

        # the first comes back: it stores nothing, acks nothing, and lets the room go
        os.kill(first.proc.pid, signal.SIGCONT)
        stopped = False
        await ann.wait_for(lambda c: c.closed.is_set(), 60)
        assert ann.bye is not None and ann.bye.get("reconnect", True) is True
        await ann.close()  # fails what is still pending on that connection
        with pytest.raises((ActionRefused, ClientError)):
            await first_try
        log = tmp_path / "a" / "server.log"
        await until(lambda: b"room owned by another process now" in log.read_bytes(),
                    "the first process let the room go")
        with pytest.raises(ClientError, match="elsewhere"):
            await GameClient.join(first.url, code, token=ann.token)

        await play_some(again, 2)
        store = Store(database_url)
        try:
            [room] = await store.load_rooms(code=code)
        finally:
            await store.close()
        assert [a.client_id for a in room.actions].count("sent-while-stopped") == 1
        check_replay(room)
        await again.close()
        await bob.close()
    finally:
        if stopped and first.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(first.proc.pid, signal.SIGCONT)
        first.stop()
        second.stop()
        engine.dispose()
