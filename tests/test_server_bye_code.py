"""The ``bye`` message's ``code``: a client decides on it (forget the seat token, come
back, stop), never on the words of ``reason``, which are in the connection's language.
Each code the server sends is tested where the server sends it; the codes that say the
seat is gone are the ones a client forgets its token on."""

from __future__ import annotations

import typing
from pathlib import Path

import httpx
import msgspec
import pytest

from server_harness import running_server, server_settings
from unokit.client import GameClient
from unokit.server import protocol as P


async def new_room(url: str, **body: object) -> str:
    async with httpx.AsyncClient() as http:
        answer = await http.post(url + "/api/rooms", json=body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["code"])


def test_every_code_is_documented_and_the_seat_gone_codes_are_codes() -> None:
    codes = set(typing.get_args(P.ByeCode))
    assert codes >= P.SEAT_GONE
    assert {"kicked", "left", "removed", "closed"} == P.SEAT_GONE
    page = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
    for code in codes:
        assert f"| `{code}` |" in page, f"docs/protocol.md's bye table lacks {code}"


def test_a_bye_without_a_code_or_with_an_unknown_one_does_not_decode() -> None:
    with pytest.raises(msgspec.ValidationError, match="code"):
        P.decode_server(b'{"type": "bye", "reason": "x", "reconnect": false}')
    with pytest.raises(msgspec.ValidationError):
        P.decode_server(b'{"type": "bye", "reason": "x", "code": "vanished"}')
    bye = P.decode_server(b'{"type": "bye", "reason": "x", "code": "kicked"}')
    assert bye == P.Bye(reason="x", reconnect=True, code="kicked")


@pytest.mark.asyncio
async def test_kicked_and_left_say_their_code_in_russian_too(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server.url, rules="official,players=3")
        ann = await GameClient.join(server.url, code, name="Ann")
        bob = await GameClient.join(server.url, code, name="Bob", lang="ru")
        cat = await GameClient.join(server.url, code, name="Cat", lang="ru")
        await ann.command(P.Kick, seat=bob.seat)
        await bob.closed.wait()
        assert bob.bye is not None
        assert bob.bye["code"] == "kicked" and bob.bye["reconnect"] is False
        assert "sent you away" not in bob.bye["reason"]  # in Russian: the code decides
        await cat.send_raw(P.encode(P.Leave(id="cat-leaves")).decode())
        await cat.closed.wait()
        assert cat.bye is not None
        assert cat.bye["code"] == "left" and cat.bye["reconnect"] is False
        assert {bob.bye["code"], cat.bye["code"]} <= P.SEAT_GONE
        for client in (ann, bob, cat):
            await client.close()


@pytest.mark.asyncio
async def test_a_restart_says_restarting_and_keeps_the_seat(database_url: str) -> None:
    async with running_server(server_settings(database_url)) as server:
        code = await new_room(server.url, rules="official,players=2")
        ann = await GameClient.join(server.url, code, name="Ann")
        await server.rooms.close()
        await ann.closed.wait()
        assert ann.bye is not None
        assert ann.bye["code"] == "restarting" and ann.bye.get("reconnect", True) is True
        assert ann.bye["code"] not in P.SEAT_GONE
        await ann.close()
