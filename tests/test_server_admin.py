"""The admin API and ``unokit admin``, on SQLite and PostgreSQL: nothing without the
bearer token (401, nothing changed); list rooms, close a room mid-match (its players
told why), remove a player, ban an address (refused at hello and at room creation) or a
name (refused when taking a seat), list and lift bans; every admin action logged; the
token file is written owner-only."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from server_harness import Running, running_server, server_settings
from unokit.cli import app
from unokit.client import ClientError, GameClient
from unokit.server import protocol as P
from unokit.server.access import admin_token, read_token
from unokit.store.bans import list_bans

TOKEN = "test-admin-token-0123456789"


def settings(database_url: str, **changes: Any) -> Any:
    return server_settings(database_url, admin_token=TOKEN, **changes)


async def admin(server: Running, method: str, path: str, body: Any = None,
                token: str | None = TOKEN) -> httpx.Response:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient() as http:
        return await http.request(method, server.url + path, json=body, headers=headers)


async def new_room(server: Running, **body: Any) -> str:
    async with httpx.AsyncClient() as http:
        answer = await http.post(server.url + "/api/rooms", json=body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["code"])


@pytest.mark.asyncio
async def test_nothing_without_the_token(database_url: str) -> None:
    async with running_server(settings(database_url)) as server:
        code = await new_room(server)
        calls = [("GET", "/admin/rooms", None), ("GET", "/admin/bans", None),
                 ("POST", f"/admin/rooms/{code}/close", {"reason": "x"}),
                 ("POST", f"/admin/rooms/{code}/kick", {"seat": 0}),
                 ("POST", "/admin/bans", {"kind": "address", "value": "127.0.0.1"}),
                 ("DELETE", "/admin/bans/1", None)]
        for token in (None, "wrong-token", TOKEN + "x", "x"):
            for method, path, body in calls:
                answer = await admin(server, method, path, body, token=token)
                assert answer.status_code == 401, (token, path)
                assert answer.headers["www-authenticate"] == "Bearer"
        assert server.rooms.get(code).status == "lobby"
        assert server.rooms.store is not None
        assert await list_bans(server.rooms.store) == []
        basic = await admin(server, "GET", "/admin/rooms", token=None)
        assert basic.status_code == 401


@pytest.mark.asyncio
async def test_no_token_set_means_no_admin_api(database_url: str, tmp_path: Path) -> None:
    quiet = server_settings(database_url, data_dir=str(tmp_path))
    async with running_server(quiet) as server:
        answer = await admin(server, "GET", "/admin/rooms", token="anything-at-all")
    assert answer.status_code == 503
    assert not (tmp_path / "admin-token").exists()


@pytest.mark.asyncio
async def test_list_close_and_kick(database_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="unokit.admin")
    async with running_server(settings(database_url)) as server:
        code = await new_room(server, rules="official,players=3")
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob")
        listed = (await admin(server, "GET", "/admin/rooms")).json()
        assert [(r["code"], r["status"], r["connections"]) for r in listed] == [
            (code, "lobby", 2)]
        assert [(s["name"], s["connected"]) for s in listed[0]["seats"]] == [
            ("Ann", True), ("Bob", True), ("", False)]
        assert "token" not in str(listed)
        # kick Bob (a person); seat 2 is empty, seat 9 does not exist
        assert (await admin(server, "POST", f"/admin/rooms/{code}/kick",
                            {"seat": 2})).status_code == 400
        assert (await admin(server, "POST", f"/admin/rooms/{code}/kick",
                            {"seat": 9})).status_code == 400
        assert (await admin(server, "POST", f"/admin/rooms/{code}/kick",
                            {"seat": "1"})).status_code == 400
        kicked = await admin(server, "POST", f"/admin/rooms/{code}/kick", {"seat": 1})
        assert kicked.status_code == 200
        await bob.closed.wait()
        assert bob.bye is not None and bob.bye["reconnect"] is False
        assert "operator removed you" in bob.bye["reason"] and bob.bye["code"] == "removed"
        assert server.rooms.get(code).seats[1].kind == "empty"
        # close the room mid-match: Ann is told why, the room is gone, a hello is refused
        await ann.add_bot("easy")
        await ann.add_bot("easy")
        await ann.start()
        closed = await admin(server, "POST", f"/admin/rooms/{code}/close",
                             {"reason": "maintenance"})
        assert closed.status_code == 200
        await ann.closed.wait()
        assert ann.bye is not None and ann.bye["reconnect"] is False
        assert ann.bye["reason"] == "an operator closed this room: maintenance"
        assert ann.bye["code"] == "closed"
        assert code not in server.rooms.rooms
        assert server.rooms.store is not None
        assert await server.rooms.store.room_status(code) == "closed"
        with pytest.raises(ClientError):
            await GameClient.join(server.url, code, name="Cid")
        missing = await admin(server, "POST", "/admin/rooms/NOSUCH/close", {})
        assert missing.status_code == 404
    said = [(r.getMessage(), getattr(r, "room", None)) for r in caplog.records
            if r.name == "unokit.admin"]
    assert said == [("admin removed a player", code), ("admin closed room", code)]
    assert TOKEN not in caplog.text


@pytest.mark.asyncio
async def test_bans_of_addresses_and_names(database_url: str) -> None:
    async with running_server(settings(database_url)) as server:
        code = await new_room(server)
        for bad in ({"kind": "person", "value": "x"}, {"kind": "address", "value": "nowhere"},
                    {"kind": "name", "value": ""}, {"kind": "name", "value": "x" * 65},
                    [1, 2]):
            assert (await admin(server, "POST", "/admin/bans", bad)).status_code == 400, bad
        mallory = (await admin(server, "POST", "/admin/bans",
                               {"kind": "name", "value": "Mallory", "reason": "abuse"}))
        assert mallory.status_code == 201
        with pytest.raises(ClientError, match="banned"):
            await GameClient.join(server.url, code, name="MALLORY")
        ann = await GameClient.join(server.url, code, name="Ann")
        ban = (await admin(server, "POST", "/admin/bans",
                           {"kind": "address", "value": "127.0.0.1"})).json()
        with pytest.raises(ClientError, match="banned"):
            await GameClient.join(server.url, code, spectate=True)
        async with httpx.AsyncClient() as http:
            refused = await http.post(server.url + "/api/rooms", json={})
            refused_now = await http.post(server.url + "/api/play-now", json={})
        assert (refused.status_code, refused.json()["error"]) == (403, "banned")
        assert refused_now.status_code == 403
        assert "127.0.0.1" not in refused.text
        listed = (await admin(server, "GET", "/admin/bans")).json()
        assert [(b["kind"], b["value"]) for b in listed] == [("name", "mallory"),
                                                             ("address", "127.0.0.1")]
        assert (await admin(server, "DELETE", f"/admin/bans/{ban['id']}")).status_code == 200
        assert (await admin(server, "DELETE", f"/admin/bans/{ban['id']}")).status_code == 404
        assert (await admin(server, "DELETE", "/admin/bans/x")).status_code == 400
        watcher = await GameClient.join(server.url, code, spectate=True)
        await watcher.close()
        await ann.close()
    # the bans are kept in the database: a restart still refuses the name
    async with running_server(settings(database_url)) as server:
        code = await new_room(server)
        with pytest.raises(ClientError, match="banned"):
            await GameClient.join(server.url, code, name="mallory")


@pytest.mark.asyncio
async def test_the_admin_command_calls_the_server(database_url: str, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    runner = CliRunner()

    async def run(*args: str) -> Any:
        return await asyncio.to_thread(runner.invoke, app, [
            "admin", *args, "--server", server.url, "--token-file", str(token_file)])
    async with running_server(settings(database_url)) as server:
        code = await new_room(server)
        ann = await GameClient.join(server.url, code, name="Ann")
        rooms = await run("rooms")
        assert rooms.exit_code == 0 and code in rooms.output and "0:Ann*" in rooms.output
        banned = await run("ban", "name", "Eve", "--reason", "spam")
        assert banned.exit_code == 0 and "name eve" in banned.output
        bans = await run("bans")
        assert '"value": "eve"' in bans.output
        assert (await run("unban", "1")).exit_code == 0
        assert (await run("unban", "1")).exit_code == 1
        closed = await run("close", code, "--reason", "bye")
        assert closed.exit_code == 0
        await ann.closed.wait()
        token_file.write_text("wrong-token\n")
        refused = await run("rooms")
        assert refused.exit_code == 1 and "401" in refused.output


def test_the_token_file_is_made_owner_only_once(tmp_path: Path) -> None:
    assert read_token("", tmp_path) == ""
    token = admin_token("", tmp_path / "data")
    path = tmp_path / "data" / "admin-token"
    assert path.stat().st_mode & 0o777 == 0o600 and len(token) >= 32
    assert admin_token("", tmp_path / "data") == token == read_token("", tmp_path / "data")
    assert admin_token("from-the-setting-123", tmp_path) == "from-the-setting-123"


def test_kick_of_a_match_seat_gives_it_to_a_bot() -> None:
    """A person removed mid-match: a bot plays the seat to the end, the token stops."""
    asyncio.run(_kick_mid_match())


async def _kick_mid_match() -> None:
    from unokit.server.rooms import Rooms
    rooms = Rooms(server_settings("sqlite://", admin_token=TOKEN))
    await rooms.open()
    try:
        room = await rooms.create("official,players=2", bots=["easy"])
        from unokit.server.seating import HUMAN, Seat
        room.seats[0] = Seat(kind=HUMAN, name="Ann", token_hash="abc")

        async def start(r: Any) -> None:
            await r._start_match()
        await room.call(start)
        from unokit.server.admin import in_room

        async def kick(r: Any) -> None:
            await r.remove_person(0, "bye")
        await in_room(room, kick)
        assert room.seats[0].away and room.seats[0].token_hash == ""
        assert room.status == "playing"
    finally:
        await rooms.close()


def test_protocol_names_the_new_codes() -> None:
    assert "``banned``" in (P.Error.__doc__ or "")
    assert "``not_allowed``" in (P.Error.__doc__ or "")


def test_behind_a_trusted_proxy_the_forwarded_address_is_the_client() -> None:
    """uvicorn rewrites the client from ``X-Forwarded-For`` for the proxies of
    ``forwarded_allow_ips`` only; bans (and the access log) use that address."""
    from starlette.testclient import TestClient
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    from unokit.server.app import create_app
    from unokit.server.serve import uvicorn_config
    from unokit.server.settings import Settings

    behind = Settings(database_url="sqlite://", forwarded_allow_ips="10.0.0.1")
    config = uvicorn_config(behind, None)
    assert config.proxy_headers and config.forwarded_allow_ips == "10.0.0.1"
    for proxy, forwarded, status in (("10.0.0.1", "203.0.113.9", 403),
                                     ("10.0.0.1", "198.51.100.7", 201),
                                     ("192.0.2.50", "203.0.113.9", 201)):
        app = create_app(behind)
        wrapped = ProxyHeadersMiddleware(app, trusted_hosts="10.0.0.1")
        with TestClient(wrapped, client=(proxy, 40000)) as client:
            app.state.rooms.oversight.set_bans([("address", "203.0.113.9")])
            answer = client.post("/api/rooms", json={},
                                 headers={"X-Forwarded-For": forwarded})
        assert answer.status_code == status, (proxy, forwarded)
