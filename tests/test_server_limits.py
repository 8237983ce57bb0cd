"""The limits of a public server (docs/server.md, "Limits"): settings that are checked,
bodies read only up to their limit, JSON depth on every input, binary frames, per-address
and server-wide limits on connections and rooms, Origin and POSTs a cross-origin page
cannot forge, the paginated room list, records and checks built once off the loop, and
spectators' coming and going told in few messages."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import httpx
import pytest

from asgi_driver import Socket, opened_app, request
from polling import until
from server_harness import running_server, server_settings
from test_server_match import play
from unokit.client import GameClient
from unokit.server import app as app_module
from unokit.server import protocol as P
from unokit.server.settings import Settings

pytestmark = pytest.mark.asyncio

JSON = ("content-type", "application/json")


def limits(database_url: str = "sqlite://", **changes: Any) -> Settings:
    """In-memory SQLite (unless named), no bot delay, and the limits the test names (the
    per-address ones off unless named)."""
    values: dict[str, Any] = {"handshake_rate": 0, "conns_per_address": 0, "room_rate": 0,
                              "lobbies_per_address": 0}
    values.update(changes)
    return server_settings(database_url, **values)


async def hello(sock: Socket, **fields: Any) -> dict[str, Any]:
    """Open ``sock``, say hello, and return the first message sent back."""
    sock.start()
    accept = await sock.next()
    assert accept["type"] == "websocket.accept", accept
    sock.text(json.dumps({"type": "hello", **fields}))
    return json.loads((await sock.next())["text"])


async def make_room(app: Any, **body: Any) -> str:
    answer = await request(app, "POST", "/api/rooms", headers=[JSON],
                           body=[json.dumps(body).encode()])
    assert answer.status == 201, answer.body
    return str(answer.json()["code"])


# ---------------------------------------------------------------- bodies and JSON
async def test_a_body_is_refused_while_it_is_read_not_after() -> None:
    async with opened_app(limits(max_body=64 * 1024)) as (app, rooms):
        chunk = b" " * 16 * 1024
        answer = await request(app, "POST", "/api/rooms", headers=[JSON],
                               body=[chunk] * 1000)  # 16 MB, no Content-Length
        assert answer.status == 413 and answer.json()["error"] == "too_large"
        assert answer.chunks_read <= 5
        told = await request(app, "POST", "/api/rooms",
                             headers=[JSON, ("content-length", str(10**9))], body=[chunk])
        assert told.status == 413 and told.chunks_read == 0
        bad = await request(app, "POST", "/api/rooms",
                            headers=[JSON, ("content-length", "12x")], body=[b"{}"])
        assert bad.status == 400 and bad.json()["error"] == "bad_request"
        assert rooms.rooms == {}


@pytest.mark.parametrize("depth", [33, 1000, 20000])
async def test_deep_json_gets_a_typed_error_over_http(depth: int) -> None:
    async with opened_app(limits()) as (app, rooms):
        body = ('{"rules": ' + "[" * depth + "]" * depth + "}").encode()
        for path in ("/api/rooms", "/api/play-now"):
            answer = await request(app, "POST", path, headers=[JSON], body=[body])
            assert answer.status == 400, answer.body
            assert answer.json() == {"error": "bad_request",
                                     "message": "JSON nests at most 32 levels deep"}
        assert rooms.rooms == {}


async def test_deep_json_and_binary_frames_get_typed_errors_over_the_websocket() -> None:
    async with opened_app(limits()) as (app, rooms):
        code = await make_room(app, rules="official,players=2")
        deep = Socket(app)
        deep.start()
        assert (await deep.next())["type"] == "websocket.accept"
        nested = "[" * 2000 + "]" * 2000
        deep.text(f'{{"type": "hello", "room": "{code}", "x": {nested}}}')
        error = json.loads((await deep.next())["text"])
        assert error["code"] == "bad_message" and "levels deep" in error["message"]
        binary = Socket(app)
        binary.start()
        assert (await binary.next())["type"] == "websocket.accept"
        binary.binary(b'{"type": "hello"}')
        error = json.loads((await binary.next())["text"])
        assert error["code"] == "bad_message" and "binary" in error["message"]
        watcher = Socket(app)
        welcome = await hello(watcher, room=code, spectate=True)
        assert welcome["type"] == "welcome"
        watcher.binary(json.dumps({"type": "ping", "id": "p1"}).encode())
        watcher.text('{"type": "ping", "id": "p2", "x": %s}' % ("{\"a\": " * 40 + "1"
                                                                 + "}" * 40))
        got = []
        while len(got) < 2:
            message = json.loads((await watcher.next())["text"])
            if message["type"] == "error":
                got.append(message)
        assert [m["code"] for m in got] == ["bad_message", "bad_message"]
        assert "binary" in got[0]["message"] and "levels deep" in got[1]["message"]
        for sock in (deep, binary, watcher):
            await sock.close()
        assert [s.kind for s in rooms.get(code).seats] == ["empty", "empty"]


# ---------------------------------------------------------------- connections
async def test_handshakes_and_connections_per_address_and_in_all() -> None:
    settings = limits(handshake_rate=0.001, handshake_burst=3, conns_per_address=2,
                      max_conns=4)
    async with opened_app(settings) as (app, _rooms):
        code = await make_room(app)
        a = [Socket(app, client=("198.51.100.1", 1000 + i)) for i in range(3)]
        for sock in a[:2]:
            assert (await hello(sock, room=code, spectate=True))["type"] == "welcome"
        a[2].start()
        denied = await a[2].next()
        assert denied["type"] == "websocket.http.response.start"
        assert denied["status"] == 429
        assert (b"retry-after", b"30") in denied["headers"]
        body = json.loads((await a[2].next())["body"])
        assert body["error"] == "busy" and "2 connections" in body["message"]
        await a[0].close()
        again = Socket(app, client=("198.51.100.1", 2000))  # the third handshake: allowed
        assert (await hello(again, room=code, spectate=True))["type"] == "welcome"
        fourth = Socket(app, client=("198.51.100.1", 2001))  # a fourth: too many
        fourth.start()
        denied = await fourth.next()
        assert denied["status"] == 429
        assert json.loads((await fourth.next())["body"])["error"] == "busy"
        others = [Socket(app, client=(f"203.0.113.{i}", 1)) for i in range(3)]
        for sock in others[:2]:
            assert (await hello(sock, room=code, spectate=True))["type"] == "welcome"
        others[2].start()  # 4 connections are open: the server is full
        denied = await others[2].next()
        assert denied["status"] == 503
        assert json.loads((await others[2].next())["body"])["error"] == "busy"
        for sock in (a[1], again, *others[:2]):
            await sock.close()
        assert app.state.limits.total_conns == 0 and app.state.limits.conns == {}


async def test_a_cross_origin_page_can_neither_connect_nor_post() -> None:
    settings = limits(allowed_origins="https://friend.example",
                      public_url="https://uno.example")
    async with opened_app(settings) as (app, rooms):
        code = await make_room(app)
        evil = Socket(app, headers=[("origin", "https://evil.example"),
                                    ("host", "uno.example")])
        evil.start()
        denied = await evil.next()
        assert denied["status"] == 403
        assert json.loads((await evil.next())["body"])["error"] == "bad_origin"
        for origin in ("https://uno.example", "https://friend.example/", None):
            headers = [("host", "uno.example")] + ([("origin", origin)] if origin else [])
            sock = Socket(app, headers=headers)
            assert (await hello(sock, room=code, spectate=True))["type"] == "welcome"
            await sock.close()
        plain = await request(app, "POST", "/api/rooms", body=[b'{"rules": "official"}'],
                              headers=[("content-type", "text/plain"),
                                       ("origin", "https://evil.example")])
        assert plain.status in (403, 415)
        plain = await request(app, "POST", "/api/rooms", body=[b'{"rules": "official"}'],
                              headers=[("content-type", "text/plain")])
        assert plain.status == 415 and plain.json()["error"] == "bad_request"
        forged = await request(app, "POST", "/api/play-now", body=[b"{}"],
                               headers=[JSON, ("origin", "https://evil.example")])
        assert forged.status == 403 and forged.json()["error"] == "bad_origin"
        assert list(rooms.rooms) == [code]


# ---------------------------------------------------------------- rooms
async def test_room_creation_per_address_and_in_all() -> None:
    settings = limits(room_rate=0.001, room_burst=3, lobbies_per_address=2, max_rooms=4)
    async with opened_app(settings) as (app, rooms):
        mine = ("198.51.100.9", 1)

        async def create(client: tuple[str, int] = mine) -> Any:
            return await request(app, "POST", "/api/rooms", headers=[JSON], client=client,
                                 body=[b'{"rules": "official,players=2"}'])
        first, second = await create(), await create()
        assert first.status == second.status == 201
        third = await create()  # two lobbies held
        assert third.status == 429 and third.json()["error"] == "busy"
        assert third.headers["retry-after"] == "30"
        room = rooms.get(first.json()["code"])
        # nobody came: the lobby closes
        await room.call(lambda r: r._keep_time(r.clock.wall() + 10**9))
        assert room.status == "closed"
        again = await create()  # the lobby was closed: one more may be made
        assert again.status == 201
        other = rooms.get(second.json()["code"])
        await other.call(lambda r: r._keep_time(r.clock.wall() + 10**9))
        burst = await create()  # one lobby held, but 3 rooms made at once: too fast
        assert burst.status == 429 and "try again in" in burst.json()["message"]
        assert int(burst.headers["retry-after"]) > 30
        for i in range(3):  # other addresses, until the server holds 4 rooms
            assert (await create((f"203.0.113.{50 + i}", 1))).status == 201
        full = await create(("203.0.113.60", 1))
        assert full.status == 503 and full.json()["error"] == "busy"
        assert len(rooms.rooms) == 4


async def test_the_room_list_comes_in_pages_and_is_not_rebuilt_per_request() -> None:
    async with opened_app(limits(room_list_max=3, room_list_ttl=60)) as (app, _rooms):
        codes = [await make_room(app, rules="official,players=3") for _ in range(5)]
        listing = app.state.room_list
        now = [0.0]
        listing.clock = lambda: now[0]
        first = await request(app, "GET", "/api/rooms")
        assert [r["code"] for r in first.json()] == codes[::-1][:3]
        assert first.headers["x-total-count"] == "5"
        assert first.headers["link"] == '</api/rooms?offset=3&limit=3>; rel="next"'
        rest = await request(app, "GET", "/api/rooms", query=b"offset=3&limit=3")
        assert [r["code"] for r in rest.json()] == codes[::-1][3:]
        assert "link" not in rest.headers
        builds = listing.builds
        for _ in range(50):
            await request(app, "GET", "/api/rooms", query=b"limit=1")
        assert listing.builds == builds  # served from the list built once
        joined = Socket(app)
        assert (await hello(joined, room=codes[-1], name="Ann"))["type"] == "welcome"
        shown = (await request(app, "GET", "/api/rooms", query=b"limit=1")).json()
        assert shown[0]["code"] == codes[-1] and shown[0]["free"] == 2  # checked as served
        now[0] = 61.0
        await request(app, "GET", "/api/rooms")
        assert listing.builds == builds + 1
        for query in (b"limit=4", b"limit=-1", b"offset=x", b"limit=" + b"9" * 30):
            bad = await request(app, "GET", "/api/rooms", query=query)
            assert bad.status == 400 and bad.json()["error"] == "bad_request", query
        await joined.close()


async def test_record_and_checks_are_built_once_per_match_outside_the_loop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[int] = []
    original = app_module.verify_record

    def verify(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        return original(*args, **kwargs)
    monkeypatch.setattr(app_module, "verify_record", verify)
    async with running_server(server_settings("sqlite://")) as server:
        async with httpx.AsyncClient() as http:
            made = (await http.post(server.url + "/api/rooms", json={
                "rules": "official,players=2,rounds=1,hand_size=3", "bots": ["easy"]})).json()
            code = made["code"]
            early = await http.get(f"{server.url}/api/rooms/{code}/verify")
            assert early.status_code == 409
            client = await GameClient.join(server.url, code, name="Ann")
            await client.command(P.Start)
            await play(client)
            await client.close()
            answers = await asyncio.gather(*(
                http.get(f"{server.url}/api/rooms/{code}/{kind}")
                for kind in ("verify", "record") * 16))
        assert {a.status_code for a in answers} == {200}
        assert all(a.json()["passed"] for a in answers[::2])
        assert len({a.content for a in answers[1::2]}) == 1
        assert len(threads) == 1 and threads[0] != threading.get_ident()
        assert server.server.config.app.state.published.builds == 2  # once per kind


async def test_spectators_joining_cost_linear_messages() -> None:
    spectators = 150
    async with opened_app(limits(presence_interval=0.5)) as (app, rooms):
        code = await make_room(app, rules="official,players=2")
        socks = [Socket(app, client=("192.0.2.1", i)) for i in range(spectators)]
        for sock in socks:
            sock.start()
            assert (await sock.next())["type"] == "websocket.accept"
        for sock in socks:  # all at once, as a crowd comes when a match is shared
            sock.text(json.dumps({"type": "hello", "room": code, "spectate": True}))
        room = rooms.get(code)

        # every join handled, and the room message after
        await until(lambda: room.info().spectators == spectators and not room.presence_due,
                    "every spectator seated and told", timeout=30)
        received = 0
        for sock in socks:  # each reads until it is told of all the spectators
            while True:
                message = json.loads((await sock.next())["text"])
                received += 1
                if message["room"]["spectators"] == spectators:
                    break
        # without coalescing each join is a room message to every viewer: N²/2 of them
        assert received <= 4 * spectators, received
        for sock in socks:
            await sock.close()
        assert room.info().spectators == 0


# ---------------------------------------------------------------- timeouts
@pytest.mark.parametrize("h11", [False, True], ids=["httptools", "h11"])
async def test_half_sent_request_heads_are_closed(h11: bool,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import server_harness
    from unokit.server.transport import uvicorn_options
    monkeypatch.setattr(server_harness, "uvicorn_options",
                        lambda settings: uvicorn_options(settings, h11=h11))
    settings = server_settings("sqlite://", head_timeout=0.5, idle_timeout=0.5)
    async with running_server(settings) as server:
        host, port = server.url.removeprefix("http://").split(":")
        streams = [await asyncio.open_connection(host, int(port)) for _ in range(200)]
        for _reader, writer in streams:
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            await writer.drain()
        ok_reader, ok_writer = await asyncio.open_connection(host, int(port))
        ok_writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await ok_reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
        # every half-sent head is closed by the server: each reader sees the end
        ends = await asyncio.wait_for(asyncio.gather(*(r.read() for r, _w in streams)), 30)
        assert all(end == b"" for end in ends)
        # the whole request was answered; its idle keep-alive connection is closed too
        await asyncio.wait_for(ok_reader.read(), 30)
        for _reader, writer in [*streams, (ok_reader, ok_writer)]:
            writer.close()


async def test_a_refused_room_leaves_no_row(database_url: str) -> None:
    import sqlalchemy as sa
    async with opened_app(limits(database_url)) as (app, rooms):
        engine = sa.create_engine(database_url)
        with engine.connect() as db:
            before = db.execute(sa.text("SELECT count(*) FROM rooms")).scalar_one()
        for bots in (["nonsense"], ["search:\u00b2"], ["search:" + "9" * 5000],
                     ["easy", "search:0"]):
            answer = await request(app, "POST", "/api/rooms", headers=[JSON], body=[
                json.dumps({"rules": "official,players=3", "bots": bots}).encode()])
            assert answer.status == 400 and answer.json()["error"] == "bad_request", bots
        with engine.connect() as db:
            after = db.execute(sa.text("SELECT count(*) FROM rooms")).scalar_one()
        engine.dispose()
        assert after == before and rooms.rooms == {}


async def test_a_real_server_refuses_a_foreign_origins_handshake_with_its_json() -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus
    async with running_server(server_settings("sqlite://")) as server:
        url = server.url.replace("http://", "ws://") + "/ws"
        with pytest.raises(InvalidStatus) as caught:
            async with connect(url, origin="https://evil.example"):  # type: ignore[arg-type]
                pass
        assert caught.value.response.status_code == 403
        assert json.loads(caught.value.response.body or b"{}")["error"] == "bad_origin"
        async with connect(url, origin=server.url) as ws:  # type: ignore[arg-type]
            await ws.send(json.dumps({"type": "hello", "room": "NOSUCH", "spectate": True}))
            assert json.loads(await ws.recv())["code"] == "no_room"


async def test_a_body_that_trickles_is_refused_in_time() -> None:
    async with opened_app(limits(head_timeout=0.2)) as (app, rooms):
        sent: list[Any] = []
        forever = asyncio.Event()

        async def receive() -> dict[str, Any]:
            if not sent:
                sent.append(1)
                return {"type": "http.request", "body": b'{"ru', "more_body": True}
            await forever.wait()  # the rest never comes
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)
        scope = {"type": "http", "method": "POST", "path": "/api/rooms", "raw_path": b"",
                 "query_string": b"", "root_path": "", "scheme": "http",
                 "http_version": "1.1", "client": ("192.0.2.9", 1),
                 "server": ("testserver", 80), "asgi": {"version": "3.0"},
                 "headers": [(b"content-type", b"application/json")]}
        await asyncio.wait_for(app(scope, receive, send), 30)
        start = next(m for m in sent[1:] if m["type"] == "http.response.start")
        assert start["status"] == 408
        body = json.loads(next(m for m in sent[1:] if m["type"] == "http.response.body")["body"])
        assert body["error"] == "bad_request" and rooms.rooms == {}
