"""The server's logs: JSON lines with the request, connection and room ids; no ANSI (no
uvicorn ``color_message``); a traceback in ``exc``, not in ``msg``; repeated errors
throttled (with an injected clock); an access line per HTTP request with its id, also in
the ``X-Request-Id`` header; match started and finished; short text lines at a
terminal; and ``listening`` only once the server is ready."""

from __future__ import annotations

import io
import json
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from server_harness import running_server, server_settings
from test_server_match import play
from unokit.client import GameClient
from unokit.server import protocol as P
from unokit.server.app import create_app
from unokit.server.logs import (
    CONNECTION_ID,
    REQUEST_ID,
    JsonFormatter,
    TextFormatter,
    Throttle,
    pick_format,
    setup_logging,
)
from unokit.server.settings import Settings, SettingsError
from unokit.store.db import HEAD


class Lines(logging.Handler):
    """The JSON lines written, as the server's handler formats them."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(JsonFormatter())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))

    def parsed(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.lines]


@pytest.fixture
def lines() -> Iterator[Lines]:
    handler = Lines()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    for name in ("unokit.access", "unokit.room", "unokit.rooms", "unokit.server"):
        logging.getLogger(name).setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


def record(msg: str, level: int = logging.ERROR, **extra: object) -> logging.LogRecord:
    out = logging.LogRecord("unokit.store", level, __file__, 1, msg, (), None)
    for key, value in extra.items():
        setattr(out, key, value)
    return out


def test_a_traceback_goes_in_exc_and_colours_are_dropped() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        failed = record("startup failed")
        failed.exc_info = sys.exc_info()
    line = json.loads(JsonFormatter().format(failed))
    assert line["msg"] == "startup failed"
    assert "Traceback" in str(line["exc"]) and "ValueError: boom" in str(line["exc"])
    coloured = record("Started server", logging.INFO,
                      color_message="\x1b[32mStarted\x1b[0m server")
    text = JsonFormatter().format(coloured)
    assert "color_message" not in text and "\\u001b" not in text and "\x1b" not in text


def test_ids_come_from_the_context() -> None:
    request, conn = REQUEST_ID.set("req-1"), CONNECTION_ID.set("conn-9")
    try:
        line = json.loads(JsonFormatter().format(record("x", room="ABCDEF")))
    finally:
        REQUEST_ID.reset(request)
        CONNECTION_ID.reset(conn)
    assert (line["request"], line["conn"], line["room"]) == ("req-1", "conn-9", "ABCDEF")
    assert "request" not in json.loads(JsonFormatter().format(record("x")))


def test_repeated_errors_are_throttled_per_room_with_a_count() -> None:
    now = [100.0]
    throttle = Throttle(10, clock=lambda: now[0])
    passed = [throttle.filter(record("write failed", room="AAAA")) for _ in range(863)]
    assert passed.count(True) == 1
    assert throttle.filter(record("write failed", room="BBBB"))  # another room
    assert throttle.filter(record("room created", logging.INFO, room="AAAA"))
    assert throttle.filter(record("room created", logging.INFO, room="AAAA"))  # info: never
    now[0] = 109.9
    assert not throttle.filter(record("write failed", room="AAAA"))
    now[0] = 110.0
    again = record("write failed", room="AAAA")
    assert throttle.filter(again) and again.suppressed == 863
    later = record("write failed", room="AAAA")
    now[0] = 200.0
    assert throttle.filter(later) and not hasattr(later, "suppressed")


def test_text_lines_at_a_terminal_json_elsewhere() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True
    assert pick_format("auto", Tty()) == "text"
    assert pick_format("auto", io.StringIO()) == "json"
    assert pick_format("json", Tty()) == "json"
    line = TextFormatter().format(record("write failed", room="ABCDEF"))
    assert "{" not in line and line.endswith("error unokit.store: write failed room=ABCDEF")
    out = io.StringIO()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        setup_logging("info", "text", stream=out)
        logging.getLogger("unokit.test").warning("hello", extra={"room": "QQQQ"})
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    assert out.getvalue().rstrip().endswith("warning unokit.test: hello room=QQQQ")
    with pytest.raises(SettingsError, match="UNOKIT_LOG_FORMAT"):
        Settings.from_env({"UNOKIT_LOG_FORMAT": "xml"})


def test_each_request_has_an_id_and_an_access_line(lines: Lines) -> None:
    with TestClient(create_app(Settings(database_url="sqlite://"))) as client:
        mine = client.get("/api/presets", headers={"X-Request-Id": "edge-42"})
        fresh = client.get("/api/rooms/NOSUCH?token=secret")
    assert mine.headers["x-request-id"] == "edge-42"
    assert len(fresh.headers["x-request-id"]) == 16
    access = [line for line in lines.parsed() if line["logger"] == "unokit.access"]
    assert [(a["method"], a["path"], a["status"], a["request"]) for a in access] == [
        ("GET", "/api/presets", 200, "edge-42"),
        ("GET", "/api/rooms/NOSUCH", 404, fresh.headers["x-request-id"])]
    assert all(isinstance(a["ms"], float) for a in access)
    ours = [line for line in lines.parsed() if str(line["logger"]).startswith("unokit")]
    assert "secret" not in json.dumps(ours)


@pytest.mark.asyncio
async def test_a_match_logs_its_start_and_end_with_its_room(database_url: str,
                                                            lines: Lines) -> None:
    async with running_server(server_settings(database_url)) as server:
        async with httpx.AsyncClient() as http:
            made = (await http.post(server.url + "/api/rooms", json={
                "rules": "official,players=2,rounds=1", "bots": ["easy"]})).json()
        ann = await GameClient.join(server.url, made["code"], name="Ann")
        await ann.command(P.Start)
        await play(ann)
        await ann.close()
    events = [(line["msg"], line.get("room")) for line in lines.parsed()
              if line["logger"] == "unokit.room"]
    assert ("match started", made["code"]) in events
    assert ("match finished", made["code"]) in events
    assert events.index(("match started", made["code"])) < events.index(
        ("match finished", made["code"]))
    hands = [e for e in lines.parsed() if "hand" in json.dumps(e)]
    assert hands == []


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(tmp_path: Path, *args: str,
           env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, "UNOKIT_DATA_DIR": str(tmp_path), "UNOKIT_LOG_FORMAT": "json",
           **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "unokit.cli", "serve", "--port",
                             str(_free_port()), *args], env=env, text=True,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)


def test_listening_comes_after_the_rooms_are_back(tmp_path: Path) -> None:
    server = _serve(tmp_path)
    assert server.stderr is not None
    seen = []
    try:
        for raw in server.stderr:  # waits for each line; the server writes them in order
            line = json.loads(raw)
            seen.append(line["msg"])
            if line["msg"] == "listening":
                break
    finally:
        server.terminate()
        server.wait(30)
    assert seen.index("rooms restored") < seen.index("listening")
    assert (tmp_path / "admin-token").stat().st_mode & 0o777 == 0o600


def test_a_server_that_cannot_start_says_so_in_one_line_and_never_listens(
        tmp_path: Path) -> None:
    server = _serve(tmp_path, "--migrate", "check")  # an empty database: not migrated
    _, err = server.communicate(timeout=120)
    assert server.returncode == 3
    parsed = [json.loads(line) for line in err.splitlines()]
    assert [line["msg"] for line in parsed if line["level"] == "error"] == [
        f"cannot start: the database schema is empty, this unokit needs {HEAD!r}: run "
        "`unokit migrate` (back up the database first)"]
    assert "listening" not in [line["msg"] for line in parsed]
    assert "Traceback" not in err


def test_an_unreachable_database_is_one_line_without_its_password(tmp_path: Path) -> None:
    port = _free_port()  # nothing listens there
    server = _serve(tmp_path, "--database-url",
                    f"postgresql+psycopg://unokit:hunter2secret@127.0.0.1:{port}/unokit",
                    env={"UNOKIT_DB_WAIT": "1"})  # waits 1 s for it, then gives up
    _, err = server.communicate(timeout=120)
    assert server.returncode == 3
    errors = [json.loads(line) for line in err.splitlines()]
    assert [e["msg"] for e in errors if e["level"] == "error"] == [
        "cannot start: the database cannot be used: OperationalError"]
    assert "hunter2secret" not in err and "Traceback" not in err


@pytest.mark.asyncio
async def test_a_failed_write_names_its_room(tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    # (server review S8: "write failed" named no room) the store's line for a write the
    # database refused names the room it was for
    import sqlalchemy as sa

    from store_kit import new_room
    from unokit.store import Store, StoreError
    url = f"sqlite:///{tmp_path / 'unokit.db'}"
    store = Store(url)
    other = sa.create_engine(url)
    try:
        room_id = await store.create_room(new_room("FAILS"))
        with other.begin() as connection:
            connection.execute(sa.text(
                "CREATE TRIGGER refuse BEFORE UPDATE ON rooms "
                "BEGIN SELECT RAISE(ABORT, 'refused'); END"))
        caplog.set_level(logging.ERROR, "unokit.store")
        with pytest.raises(StoreError):
            await store.set_status(room_id, "closed")
    finally:
        await store.close()
        other.dispose()
    [failed] = [r for r in caplog.records if r.getMessage() == "write failed"]
    assert failed.room_id == room_id  # type: ignore[attr-defined]
    assert json.loads(JsonFormatter().format(failed))["room_id"] == room_id


def test_the_servers_handler_throttles_repeated_errors() -> None:
    # (server review S8: 863 "write failed" lines in 10 s) the handler the server
    # logs through holds back a repeated error line
    out = io.StringIO()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        setup_logging("info", "json", stream=out)
        for _ in range(863):
            logging.getLogger("unokit.store").error("write failed", extra={"room": "AAAA"})
        logging.getLogger("unokit.store").error("write failed", extra={"room": "BBBB"})
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["room"] for line in lines] == ["AAAA", "BBBB"]
