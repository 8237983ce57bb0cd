"""The server's error texts in the client's language: the hello's ``lang``, else the
``Accept-Language`` of the WebSocket or HTTP request, else English; placeholders are
filled after the translation; the engine's refusal reasons are translated at the
server's edge (the engine itself speaks only English). SQLite only: the languages do
not depend on the database."""

# ruff: noqa: RUF001  (Russian text is Cyrillic on purpose)

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from server_harness import Running, running_server, server_settings
from unokit import i18n
from unokit.client.client import ws_url
from unokit.engine.cards import parse_card
from unokit.engine.errors import IllegalActionError, Reason, RulesError
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.i18n import localize, translate
from unokit.server.seating import RoomError

ROOT = Path(__file__).resolve().parent.parent
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]


def settings(tmp_path: Path) -> Any:
    return server_settings(f"sqlite:///{tmp_path / 'unokit.db'}")


async def new_room(server: Running, body: dict[str, Any]) -> str:
    async with httpx.AsyncClient() as http:
        answer = await http.post(server.url + "/api/rooms", json=body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["code"])


async def play_now(server: Running) -> str:
    async with httpx.AsyncClient() as http:
        answer = await http.post(server.url + "/api/play-now",
                                 json={"rules": "official,players=2", "bot": "easy"})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["code"])


class Socket:
    """A bare WebSocket client: the raw messages, to see each error's text."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    @classmethod
    async def hello(cls, server: Running, code: str, *, lang: str = "",
                    headers: dict[str, str] | None = None) -> tuple[Socket, dict[str, Any]]:
        ws = await websockets.connect(ws_url(server.url), additional_headers=headers or {},
                                      open_timeout=30, compression=None)
        hello: dict[str, Any] = {"type": "hello", "room": code, "name": "Ann"}
        if lang:
            hello["lang"] = lang
        await ws.send(json.dumps(hello))
        sock = cls(ws)
        return sock, await sock.next_of("welcome", "error")

    async def next_of(self, *types: str) -> dict[str, Any]:
        while True:
            message = json.loads(await self.ws.recv())
            if message["type"] in types:
                return dict(message)

    async def act(self, action: str, msg_id: str = "a1") -> dict[str, Any]:
        await self.ws.send(json.dumps({"type": "act", "id": msg_id, "action": action}))
        while True:
            message = await self.next_of("ack", "error")
            if message.get("id") == msg_id:
                return message

    async def close(self) -> None:
        await self.ws.close()


@pytest.mark.asyncio
async def test_a_refused_action_comes_in_the_hellos_language(tmp_path: Path) -> None:
    async with running_server(settings(tmp_path)) as server:
        code = await new_room(server, {"rules": "official,players=2"})
        sock, welcome = await Socket.hello(server, code, lang="da")
        assert welcome["type"] == "welcome"
        error = await sock.act("draw")
        assert error["code"] == "not_started"
        assert error["message"] == "kampen er ikke startet"
        await sock.close()


@pytest.mark.asyncio
async def test_the_accept_language_header_is_the_fallback(tmp_path: Path) -> None:
    async with running_server(settings(tmp_path)) as server:
        code = await new_room(server, {"rules": "official,players=2"})
        ru, _welcome = await Socket.hello(server, code,
                                          headers={"Accept-Language": "ru-RU,ru;q=0.9"})
        assert (await ru.act("draw"))["message"] == "партия ещё не началась"
        # the hello's lang wins over the header; no language at all is English
        ka, _welcome = await Socket.hello(server, code, lang="ka",
                                          headers={"Accept-Language": "ru"})
        en, _refused = await Socket.hello(server, code)
        assert (await ka.act("draw"))["message"] == "მატჩი ჯერ არ დაწყებულა"
        assert _refused["type"] == "error"  # both seats are taken: refused, in English
        assert _refused["message"] == "every seat is taken: watch with spectate"
        for sock in (ru, ka, en):
            await sock.close()


@pytest.mark.asyncio
async def test_a_refused_hello_with_a_placeholder_is_translated(tmp_path: Path) -> None:
    async with running_server(settings(tmp_path)) as server:
        code = await new_room(server, {"rules": "official,players=2"})
        first, _welcome = await Socket.hello(server, code)
        ws = await websockets.connect(ws_url(server.url), open_timeout=30)
        await ws.send(json.dumps({"type": "hello", "room": code, "seat": 0, "lang": "da"}))
        error = json.loads(await ws.recv())
        assert (error["code"], error["message"]) == ("room_full", "plads 0 er ikke ledig")
        await ws.close()
        await first.close()


@pytest.mark.asyncio
async def test_the_engines_refusal_is_translated_at_the_edge(tmp_path: Path) -> None:
    async with running_server(settings(tmp_path)) as server:
        code = await play_now(server)
        sock, _welcome = await Socket.hello(server, code, lang="ru")
        await sock.next_of("events")
        error = await sock.act("next")
        assert error["code"] == "illegal"
        assert error["message"] == "раунд ещё не окончен"
        await sock.close()


@pytest.mark.asyncio
async def test_the_http_api_answers_in_the_accept_language(tmp_path: Path) -> None:
    async with running_server(settings(tmp_path)) as server, httpx.AsyncClient() as http:
        for lang, text in [("en", "no room has that code"),
                           ("ru", "комнаты с таким кодом нет"),
                           ("ka", "ასეთი კოდის ოთახი არ არსებობს"),
                           ("da", "intet rum har den kode")]:
            answer = await http.get(server.url + "/api/rooms/ZZZZZZ",
                                    headers={"Accept-Language": lang})
            assert answer.status_code == 404
            assert answer.json() == {"error": "no_room", "message": text}
        answer = await http.post(server.url + "/api/rooms", json={"seats": "two"},
                                 headers={"Accept-Language": "da-DK,da;q=0.9"})
        assert answer.json()["message"] == "seats: forkert type"


def test_a_placeholder_message_renders_in_every_language() -> None:
    error = RoomError("bad_request", "no seat {seat}: seats 0..{last}", seat=7, last=3)
    assert error.message == "no seat 7: seats 0..3"  # the English, for the logs
    assert [error.text(lang) for lang in i18n.LANGUAGES] == [
        "no seat 7: seats 0..3", "места 7 нет: места 0..3",
        "ადგილი 7 არ არსებობს: ადგილები 0..3", "ingen plads 7: pladserne 0..3"]


def _refusal(game: Game, text: str) -> IllegalActionError:
    from unokit.engine.actions import parse_action

    with pytest.raises(IllegalActionError) as caught:
        game.apply(parse_action(text))
    return caught.value


def test_common_engine_refusals_are_translated() -> None:
    game = Game(Rules.preset("official", players=2, dealer="seat0"), seed=7)
    turn = _refusal(game, "0:draw")
    assert turn.reason == "it is seat 1's turn (phase play), not seat 0's"
    assert (turn.template, turn.params) == (
        "it is seat {current}'s turn (phase {phase}), not seat {seat}'s",
        {"current": 1, "phase": "play", "seat": 0})
    assert localize("ru", turn) == "сейчас ход места 1 (фаза play), а не места 0"
    assert localize("da", turn) == "det er plads 1s tur (fase play), ikke plads 0s"
    hand = game.hands[1]
    missing = next(code for code in ("R0", "Y0", "G0", "B0", "R1", "Y1")
                   if parse_card(code) not in hand)
    absent = _refusal(game, f"1:{missing}")
    assert localize("ka", absent) == f"ადგილ 1-ს არ აქვს {missing}"
    assert localize("en", _refusal(game, "1:next")) == "the round is not over"
    assert localize("ru", _refusal(game, "1:uno")).startswith("объявить может только")


ENGINE_REASONS = sorted({
    "not an action", "not an action ({problem})",
    "there is no seat {seat} with {players} players", "the match is over",
    "the round is over: the only action is to start the next round",
    "the round is not over", "seat {seat} is out of the round",
    "seat {seat} is out of the match",
    "only a player who just played down to one card without calling may call",
    "a late call is not safe under uno_self_catch = false",
    "it is seat {current}'s turn (phase {phase}), not seat {seat}'s",
    "play a card or draw", "play the drawn card or pass",
    "accept the Wild Draw Four (draw) or challenge", "name a colour",
    "drawing is not allowed while holding a playable card (draw_when_playable)",
    "the drawn card must be played (play_drawn = must)", "phase {phase}: {expected}",
    "catch another seat", "cannot be caught",
    "seat {target} cannot be caught (only a player who played down to one card without "
    "calling, before the next turn begins)",
    "seat {seat} holds no {card}", "only the drawn card {card} may be played now",
    "a wild needs a colour; other cards take none",
    "UNO can be called only with a play that leaves one card",
    "{card} does not match the top card and colour",
    "a Wild Draw Four may not be played while holding the current colour",
})
"""Every reason the engine gives for a refusal (src/unokit/engine/explain.py), each with
its template, so that the server says it in the client's language."""


def test_every_engine_reason_has_a_template_and_every_language() -> None:
    source = (ROOT / "src" / "unokit" / "engine" / "explain.py").read_text()
    calls = re.findall(r'Reason\(((?:\s*"[^"]*")+)', source)
    found = {"".join(re.findall(r'"([^"]*)"', call)) for call in calls}
    assert found == set(ENGINE_REASONS), "a new engine reason: list it and translate it"
    for template in ENGINE_REASONS:
        for lang in TRANSLATED:
            assert translate(lang, template) != template, (lang, template)


def test_a_nested_reason_is_said_in_one_language() -> None:
    why = Reason("phase {phase}: {expected}", phase="choose_color",
                 expected=Reason("name a colour"))
    assert str(why) == "phase choose_color: name a colour"
    assert localize("ru", why) == "фаза choose_color: закажите цвет"


@pytest.mark.asyncio
async def test_the_client_library_asks_for_a_language(tmp_path: Path) -> None:
    from unokit.client import GameClient
    from unokit.client.client import ActionRefused

    async with running_server(settings(tmp_path)) as server:
        code = await new_room(server, {"rules": "official,players=2"})
        ann = await GameClient.join(server.url, code, name="Ann", lang="ka")
        with pytest.raises(ActionRefused) as refused:
            await ann.act("draw")
        assert refused.value.message == "მატჩი ჯერ არ დაწყებულა"
        await ann.close()


@pytest.mark.asyncio
async def test_a_goodbye_is_said_in_the_language_too(tmp_path: Path) -> None:
    async with running_server(settings(tmp_path)) as server:
        code = await new_room(server, {"rules": "official,players=2"})
        sock, _welcome = await Socket.hello(server, code, lang="da")
        await sock.ws.send(json.dumps({"type": "leave", "id": "l1"}))
        bye = await sock.next_of("bye")
        assert bye["reason"] == "du forlod rummet"
        await sock.close()


@pytest.mark.asyncio
async def test_a_remote_bot_reports_the_refusal_in_the_terminals_language(
        tmp_path: Path) -> None:
    from unokit.client.client import ClientError
    from unokit.client.remote_bot import run_bot

    async with running_server(settings(tmp_path)) as server:
        i18n.set_language("da")
        with pytest.raises(ClientError) as refused:
            await run_bot(server.url, "ZZZZZZ", "easy")
        assert str(refused.value) == "no_room: intet rum har den kode"


@pytest.mark.asyncio
async def test_a_bad_rule_set_is_refused_in_the_accept_language(tmp_path: Path) -> None:
    body = {"rules": "official,jump_in=maybe,players=12"}
    async with running_server(settings(tmp_path)) as server, httpx.AsyncClient() as http:
        answer = await http.post(server.url + "/api/rooms", json=body,
                                 headers={"Accept-Language": "da"})
        assert answer.status_code == 400
        assert answer.json() == {
            "error": "bad_request",
            "message": "ugyldigt regelsæt: jump_in: forventede true eller false, fik 'maybe'; "
                       "players: 12 er uden for intervallet 2..10"}
        answer = await http.post(server.url + "/api/rooms", json=body)
        assert answer.json()["message"] == (
            "invalid rule set: jump_in: expected true or false, got 'maybe'; "
            "players: 12 is out of range 2..10")


def test_every_rules_problem_is_said_in_every_language() -> None:
    cases = ["official,jump_in=maybe", "official,colr=1", "officail", "official,,",
             "official,players=3,official", "official,rounds=x", "official,wild_color=1",
             "official,extra_cards={XX:1}", "official,teams=pairs,players=3",
             "official,silence_penalty=2,silence=off,going_out_bonus={WC:1}",
             "official,players=1_0", "official,scoring=lazy", "attack,zero_rotate=true",
             "official,extra_cards={WC:x}", "official,players=20,hand_size=20"]
    for text in cases:
        with pytest.raises(RulesError) as caught:
            Rules.load(text)
        for why in caught.value.problems.values():
            assert isinstance(why, Reason), (text, why)
            for lang in TRANSLATED:
                assert localize(lang, why) != str(why), (lang, text, why)
