"""Database faults, one at a time: a hello during an outage is answered, HTTP answers 503
with Retry-After, the match end is stored with the winning action, a dead connection is
replaced before the next write fails, statements are bounded, the server waits for the
database at start, and clients send again what was not kept (docs/server.md, Outages)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from sqlalchemy import create_engine, text

from server_harness import Running, running_server, server_settings
from unokit.client.client import ClientError, GameClient, resend_pause
from unokit.server import protocol as P
from unokit.server.outage import RETRY_AFTER, open_store
from unokit.server.settings import Settings, SettingsError
from unokit.store import Store, StoreError
from unokit.store.db import connect_args
from unokit.store.store import ROOMS


class BrokenStore:
    """A store whose writes and reads fail while ``broken`` (the database is away), or
    only the methods named in ``only``."""

    def __init__(self, store: Store, only: tuple[str, ...] = ()) -> None:
        self.store = store
        self.broken = True
        self.only = only
        self.calls: list[str] = []
        self.when: Any = None
        """With a function of the call's arguments: only the calls it says yes to fail."""

    def __getattr__(self, name: str) -> Any:
        real = getattr(self.store, name)
        if not asyncio.iscoroutinefunction(real) or name == "close":
            return real

        async def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            if (self.broken and (not self.only or name in self.only)
                    and (self.when is None or self.when(*args))):
                raise StoreError("the database refused a write: OperationalError")
            return await real(*args, **kwargs)
        return call


def break_store(server: Running, only: tuple[str, ...] = ()) -> BrokenStore:
    """Break the store of ``server`` and of every room it has."""
    assert server.rooms.store is not None
    broken = BrokenStore(server.rooms.store, only)
    server.rooms.store = broken  # type: ignore[assignment]
    for room in server.rooms.rooms.values():
        room.store = broken  # type: ignore[assignment]
    return broken


async def new_room(server: Running, **body: Any) -> str:
    async with httpx.AsyncClient() as http:
        answer = await http.post(server.url + "/api/rooms", json=body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["code"])


async def raw_hello(server: Running, **hello: Any) -> dict[str, Any]:
    """Say hello on a new connection; the first answer (within 30 s)."""
    url = server.url.replace("http://", "ws://") + "/ws"
    async with websockets.connect(url) as ws:
        await ws.send(P.encode(P.Hello(**hello)).decode())
        answer: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
        return answer


# ---------------------------------------------------------------- hellos (D4)
@pytest.mark.asyncio
async def test_a_new_players_hello_during_an_outage_is_answered(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server, rules="official,players=3")
        broken = break_store(server)
        answer = await raw_hello(server, room=code, name="Zoe", lang="ru")
        assert answer["type"] == "error" and answer["code"] == "unavailable", answer
        assert answer["retry_after"] == RETRY_AFTER
        assert "Error" not in answer["message"]  # no exception class names
        assert "set_seat" in broken.calls  # the room tried, and answered the failure
        # nothing was kept: the seat is still free, and the same hello works once back
        assert [s.kind for s in server.rooms.get(code).seats] == ["empty"] * 3
        broken.broken = False
        client = await GameClient.join(server.url, code, name="Zoe")
        assert client.seat == 0
        await client.close()


@pytest.mark.asyncio
async def test_a_hello_for_a_room_not_in_memory_during_an_outage(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        break_store(server)
        answer = await raw_hello(server, room="QQQQQQ", name="Zoe")
        assert answer["code"] == "unavailable" and answer["retry_after"] == RETRY_AFTER


@pytest.mark.asyncio
async def test_a_play_now_start_that_fails_says_come_back(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        async with httpx.AsyncClient() as http:
            made = (await http.post(server.url + "/api/play-now",
                                    json={"rules": "official,players=2"})).json()
        broken = break_store(server, only=("start_match",))
        url = server.url.replace("http://", "ws://") + "/ws"
        async with websockets.connect(url) as ws:
            await ws.send(P.encode(P.Hello(room=made["code"], name="Zoe")).decode())
            kinds = []
            while not kinds or kinds[-1] != "bye":
                kinds.append(json.loads(await asyncio.wait_for(ws.recv(), 30))["type"])
        assert kinds[0] == "welcome" and "start_match" in broken.calls
        broken.broken = False
        # the player comes back with the seat's token: the match starts then
        room = server.rooms.get(made["code"])
        assert room.status == "lobby"


# ---------------------------------------------------------------- HTTP (D5)
@pytest.mark.asyncio
async def test_the_http_api_answers_503_with_retry_after(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        break_store(server)
        async with httpx.AsyncClient() as http:
            made = await http.post(server.url + "/api/rooms", json={},
                                   headers={"Accept-Language": "de"})
            found = await http.get(server.url + "/api/rooms/ABCDEF")
            record = await http.get(server.url + "/api/rooms/ABCDEF/record")
            play = await http.post(server.url + "/api/play-now", json={})
        for answer in (made, found, record, play):
            assert answer.status_code == 503, answer.text
            assert answer.headers["Retry-After"] == "1"
            assert answer.json()["error"] == "unavailable"
            assert answer.json()["retry_after"] == RETRY_AFTER
        assert "Error" not in made.json()["message"]


# ---------------------------------------------------------------- the match end (D8)
@pytest.mark.asyncio
async def test_the_match_end_is_stored_with_the_winning_action(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server, rules="official,players=2,target_score=1")
        client = await GameClient.join(server.url, code, name="Ann")
        await client.add_bot("easy")
        # any status write apart from an action fails from now on
        broken = break_store(server, only=("set_status",))
        await client.start()
        while client.reveal is None:
            await client.wait_for(lambda c: c.reveal is not None or c.must)
            if client.reveal is not None:
                break
            choice = next((a for a in client.legal if a.endswith("!")), client.legal[0])
            await client.act(choice)  # every move acked: none refused not_stored
        assert client.reveal is not None and not client.errors
        assert "set_status" not in broken.calls
        store = broken.store
        assert await store.room_status(code) == "finished"
        [stored] = await store.load_rooms(code=code)
        room = server.rooms.get(code)
        assert room.game is not None and len(stored.actions) == len(room.game.history)
        await client.close()


# ---------------------------------------------------------------- the store (D6, D7)
@pytest.mark.asyncio
async def test_the_first_write_after_the_connection_died_succeeds(postgres_url: str) -> None:
    store = Store(postgres_url)
    other = create_engine(postgres_url)
    try:
        assert await store.ping()
        # what a database restart (or a proxy, or an idle reaper) does to the connection
        with other.begin() as connection:
            killed = connection.execute(text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()")).all()
        assert killed
        await store.create_room(_new_room("AFTER"))
        assert await store.room_status("AFTER") == "lobby"
        assert store.reconnects == 1
    finally:
        await store.close()
        other.dispose()


@pytest.mark.asyncio
async def test_a_statement_waiting_on_a_lock_gives_up(postgres_url: str) -> None:
    store = Store(postgres_url, statement_timeout=0.5)
    other = create_engine(postgres_url)
    try:
        room_id = await store.create_room(_new_room("LOCKD"))
        with other.begin() as connection:
            connection.execute(text("LOCK TABLE rooms IN ACCESS EXCLUSIVE MODE"))
            with pytest.raises(StoreError):
                await asyncio.wait_for(store.set_status(room_id, "closed"), 30)
        await store.set_status(room_id, "closed")  # the lock is gone: it goes through
        with other.connect() as connection:
            assert connection.execute(ROOMS.select().where(
                ROOMS.c.id == room_id)).one().status == "closed"
    finally:
        await store.close()
        other.dispose()


@pytest.mark.asyncio
async def test_a_database_that_never_answers_at_connect_gives_up(tmp_path: Path) -> None:
    # a port that accepts connections and never answers: only the connect timeout helps
    import socket
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    try:
        url = f"postgresql+psycopg://nobody@127.0.0.1:{port}/none"
        with pytest.raises(Exception) as caught:
            await asyncio.wait_for(asyncio.to_thread(Store, url, connect_timeout=2), 30)
        assert "timeout" in str(caught.value).lower()
    finally:
        listener.close()


def test_the_drivers_are_told_the_timeouts() -> None:
    pg = connect_args("postgresql+psycopg://u@h/db", connect_timeout=3,
                      statement_timeout=1.5)
    # an owner stopped inside a transaction holds its locks no longer than a statement
    assert pg["connect_timeout"] == 3 and pg["options"] == (
        "-c statement_timeout=1500 -c idle_in_transaction_session_timeout=1500")
    assert pg["keepalives"] == 1
    assert connect_args("sqlite:////tmp/x.db", statement_timeout=4)["timeout"] == 4.0


def test_the_timeout_settings_are_checked() -> None:
    env = {"UNOKIT_DB_CONNECT_TIMEOUT": "3", "UNOKIT_DB_STATEMENT_TIMEOUT": "2.5",
           "UNOKIT_DB_WAIT": "60"}
    settings = Settings.from_env(env)
    assert (settings.db_connect_timeout, settings.db_statement_timeout,
            settings.db_wait) == (3.0, 2.5, 60.0)
    for name, value in (("UNOKIT_DB_STATEMENT_TIMEOUT", "0"),
                        ("UNOKIT_DB_CONNECT_TIMEOUT", "nan"), ("UNOKIT_DB_WAIT", "-1")):
        with pytest.raises(SettingsError, match=name):
            Settings.from_env({name: value})


# ---------------------------------------------------------------- at start
@pytest.mark.asyncio
async def test_the_server_waits_for_the_database_and_says_so(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "later"
    folder.write_text("not a folder")  # no database can be made there yet
    url = f"sqlite:///{folder / 'unokit.db'}"
    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)
        if len(pauses) == 4:
            folder.unlink()
            folder.mkdir()  # the database comes

    caplog.set_level(logging.INFO, "unokit.server")
    store = await open_store(Settings(database_url=url), sleep=sleep)
    try:
        assert await store.ping()
    finally:
        await store.close()
    assert pauses == [0.25, 0.5, 1.0, 2.0]
    said = [r.getMessage() for r in caplog.records]
    assert said.count("waiting for the database") == 1
    assert said[-1] == "database ready"


@pytest.mark.asyncio
async def test_the_wait_for_the_database_is_bounded(tmp_path: Path) -> None:
    now = [0.0]

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    (tmp_path / "never").write_text("a file where the database's folder would be")
    url = f"sqlite:///{tmp_path / 'never' / 'unokit.db'}"
    with pytest.raises(StoreError, match="did not answer within 10 s"):
        await open_store(Settings(database_url=url, db_wait=10), sleep=sleep,
                         clock=lambda: now[0])
    assert now[0] <= 10


# ---------------------------------------------------------------- clients
@pytest.mark.asyncio
async def test_the_client_sends_a_not_stored_action_again_with_its_id(
        database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server, rules="official,players=2")
        client = await GameClient.join(server.url, code, name="Ann")
        await client.add_bot("easy")
        await client.start()
        await client.wait_for(lambda c: c.must)
        broken = break_store(server, only=("append_action",))
        saving: list[tuple[str, int]] = []
        client.on_saving = lambda msg_id, tries: saving.append((msg_id, tries))
        room = server.rooms.get(code)
        assert room.game is not None
        before = len(room.game.history)
        sent = asyncio.create_task(client.act(client.legal[0], msg_id="move-1"))
        await client.wait_for(lambda c: c.saving.get("move-1", 0) >= 2)
        assert not sent.done() and len(room.game.history) == before
        broken.broken = False
        await asyncio.wait_for(sent, 30)
        assert len(room.game.history) > before
        assert [s for s in saving if s[0] == "move-1"][:2] == [("move-1", 1), ("move-1", 2)]
        assert client.saving == {}
        # applied once: exactly one stored action carries the id
        [stored] = await broken.store.load_rooms(code=code)
        assert [a.client_id for a in stored.actions].count("move-1") == 1
        await client.close()


@pytest.mark.asyncio
async def test_a_refused_hello_is_an_error_of_the_client(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server, rules="official,players=2")
        break_store(server)
        with pytest.raises(ClientError, match="unavailable"):
            await GameClient.join(server.url, code, name="Ann", resend=False)


def test_resends_back_off_to_a_cap() -> None:
    assert [resend_pause(1.0, n) for n in range(1, 6)] == [1.0, 1.5, 1.5, 1.5, 1.5]
    assert resend_pause(None, 1) == 0.5 and resend_pause(0, 3) == 1.5


def _new_room(code: str) -> Any:
    from store_kit import new_room as kit_room
    return kit_room(code)


@pytest.mark.asyncio
async def test_unokit_bot_says_saving_and_plays_on(
        database_url: str, caplog: pytest.LogCaptureFixture) -> None:
    from unokit.client.remote_bot import run_bot
    caplog.set_level(logging.INFO, "unokit.bot")
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server, rules="official,players=2,target_score=1")
        host = await GameClient.join(server.url, code, name="Ann")
        bot = await GameClient.join(server.url, code, name="bot")
        playing = asyncio.create_task(run_bot(server.url, code, "easy", client=bot))
        broken = break_store(server, only=("append_action",))
        broken.when = lambda room_id, action, *rest: action.seat == 1  # the bot's only
        play = asyncio.create_task(_play_to_the_end(host))
        await host.start()
        await bot.wait_for(lambda c: bool(c.saving))
        assert any("saving" in r.getMessage() for r in caplog.records if r.name == "unokit.bot")
        broken.broken = False
        done = await asyncio.wait_for(playing, 120)
        assert done.reveal is not None and not done.saving
        await asyncio.wait_for(play, 60)
        await host.close()
        await bot.close()


async def _play_to_the_end(client: GameClient) -> None:
    while client.reveal is None:
        await client.wait_for(lambda c: c.reveal is not None or c.must)
        if client.reveal is None:
            choice = next((a for a in client.legal if a.endswith("!")), client.legal[0])
            try:
                await client.act(choice)
            except Exception:
                await client.snapshot()


@pytest.mark.asyncio
async def test_writes_without_a_connection_fail_together_not_one_by_one(
        tmp_path: Path) -> None:
    import threading
    store = Store(f"sqlite:///{tmp_path / 'unokit.db'}")
    connects: list[int] = []

    def refuse() -> Any:
        connects.append(1)
        raise StoreError("no route to the database")
    try:
        room_id = await store.create_room(_new_room("BATCH"))
        entered, gate = threading.Event(), threading.Event()

        def hold(connection: Any) -> None:  # keeps the writer busy while writes queue up
            entered.set()
            gate.wait(30)
        held = asyncio.ensure_future(store.run(hold))
        assert await asyncio.to_thread(entered.wait, 30)
        store._connection = refuse  # type: ignore[method-assign]
        writes = [asyncio.ensure_future(store.set_status(room_id, "closed"))
                  for _ in range(50)]
        await asyncio.sleep(0)  # each hands its write in
        gate.set()
        await held
        results = await asyncio.gather(*writes, return_exceptions=True)
        assert all(isinstance(r, StoreError) for r in results)
        # one try for the batch, not a connect (and its timeout) for each of its writes
        assert len(connects) == 1
    finally:
        await store.close()
