"""The replay of a finished match (``GET /api/rooms/CODE/replay?seat=N|all``), on SQLite
and PostgreSQL: nothing before the match is over (409, no card in the answer); a
seat's view is exactly what that seat received live over the WebSocket, event for
event, with only its own hand; ``all`` shows every hand and ends on the record's final
state; bad views and unknown rooms get typed errors; the profile and match pages are
served with the page's security headers."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from server_harness import running_server, server_settings
from unokit.client import GameClient
from unokit.engine.cards import CODES
from unokit.engine.events import redact
from unokit.formats.record import Record, replay, replay_steps
from unokit.i18n import localize
from unokit.server import protocol as P
from unokit.web import CSP

pytestmark = pytest.mark.asyncio

RULES = "official,players=2,rounds=2,hand_size=3"


async def play(client: GameClient) -> None:
    """The first legal action whenever it is this seat's turn, until the match ends. An
    action refused because the state moved on before it arrived (``next`` after the
    round started by itself) waits for the events that moved it."""
    while client.reveal is None:
        await client.wait_for(lambda c: c.reveal is not None or c.must)
        if client.reveal is not None:
            return
        legal, seen = client.legal, client.last_seq
        try:
            await client.act(next((a for a in legal if a.endswith("!")), legal[0]))
        except Exception:  # refused: the state moved on (a round started by itself)
            await client.wait_for(lambda c, seen=seen: c.last_seq > seen or c.reveal is not None)


def hands_in(text: str, hands: list[list[str]]) -> bool:
    """Whether any card of ``hands`` is named in ``text`` (as a JSON string)."""
    return any(f'"{card}"' in text for hand in hands for card in hand)


async def test_a_finished_match_replays_as_each_seat_saw_it(database_url: str) -> None:
    async with (running_server(server_settings(database_url)) as server,
                httpx.AsyncClient(base_url=server.url) as http):
        code = (await http.post("/api/rooms", json={"rules": RULES})).json()["code"]
        ann = await GameClient.join(server.url, code, name="Ann")
        await ann.command(P.AddBot, bot="normal")
        early = await http.get(f"/api/rooms/{code}/replay?seat=0")
        assert early.status_code == 409 and early.json()["error"] == "not_started"
        await ann.command(P.Start)
        await ann.wait_for(lambda c: c.must)
        room = server.rooms.rooms[code]
        hands = [[CODES[c] for c in hand] for hand in room.game.hands]
        # while the match goes on: no view at all, and no card in the refusal
        for view in ("0", "1", "all"):
            during = await http.get(f"/api/rooms/{code}/replay?seat={view}")
            assert during.status_code == 409, during.text
            assert set(during.json()) == {"error", "message"}
            assert not hands_in(during.text, hands)
        await play(ann)
        record = Record.from_dict((await http.get(f"/api/rooms/{code}/record")).json())
        views = {view: (await http.get(f"/api/rooms/{code}/replay?seat={view}")).json()
                 for view in ("0", "1", "all")}
        await ann.close()

    steps = list(replay_steps(record))
    for data in views.values():
        assert data["code"] == code and data["players"] == ["Ann", "normal bot"]
        assert len(data["steps"]) == len(record.actions) + 1
        assert [s["action"] for s in data["steps"]] == [None, *record.actions]
        assert data["rounds"]["1"] == 0 and data["rounds"]["2"] > 0
        assert data["steps"][data["rounds"]["2"]]["action"].endswith(":next")

    # seat 0's view is what Ann's page received live, event for event
    live = [e for e in ann.events]
    shown = [e for step in views["0"]["steps"] for e in step["events"]]
    assert shown == live
    # ... and the bot's view redacts Ann's cards the same way
    seat1 = [e for step in views["1"]["steps"] for e in step["events"]]
    assert seat1 == [redact(e, 1).to_dict() for step in steps for e in step.events]
    assert any(e["kind"] == "dealt" and e["player"] == 0 and "cards" not in e for e in seat1)

    game = replay(record)
    for seat in (0, 1):
        for step in views[str(seat)]["steps"]:
            table = step["table"]
            assert "hands" not in table and table["seat"] == seat
            assert len(table["hand"]) == table["hand_sizes"][seat]
        last = views[str(seat)]["steps"][-1]["table"]
        assert sorted(last["hand"]) == sorted(CODES[c] for c in game.hands[seat])
    final = views["all"]["steps"][-1]["table"]
    assert final["phase"] == "match_over" and final["seat"] is None
    assert final["hands"] == [[CODES[c] for c in hand] for hand in game.hands]
    assert final["scores"] == list(game.scores)
    assert all("hand" not in s["table"] for s in views["all"]["steps"])
    # every hand's deal is in the 'all' view's events, none in the other seat's
    dealt = [e for e in views["all"]["steps"][0]["events"] if e["kind"] == "dealt"]
    assert all(len(e["cards"]) == 3 for e in dealt)


async def test_bad_views_and_unknown_rooms_get_typed_errors() -> None:
    async with (running_server(server_settings("sqlite://")) as server,
                httpx.AsyncClient(base_url=server.url) as http):
        code = (await http.post("/api/rooms", json={"rules": RULES})).json()["code"]
        ann = await GameClient.join(server.url, code, name="Ann")
        await ann.command(P.AddBot, bot="normal")
        await ann.command(P.Start)
        await play(ann)
        await ann.close()
        answers: dict[str, Any] = {}
        for query in ("seat=2", "seat=9", "seat=-1", "seat=x", "seat=", "seat=100",
                      "seat=0" * 40):
            answers[query] = await http.get(f"/api/rooms/{code}/replay?{query}")
        missing = await http.get("/api/rooms/NOSUCH/replay?seat=all")
        russian = await http.get(f"/api/rooms/{code}/replay?seat=7",
                                 headers={"Accept-Language": "ru"})
        good = await http.get(f"/api/rooms/{code.lower()}/replay")
    for query, answer in answers.items():
        assert answer.status_code == 400, (query, answer.text)
        assert answer.json()["error"] == "bad_request"
    assert missing.status_code == 404 and missing.json()["error"] == "no_room"
    assert russian.json()["message"] == localize("ru", "seat: a seat of the match, or all")
    assert good.status_code == 200 and good.json()["view"] == "all"


async def test_the_profile_and_match_pages_are_served_with_the_csp() -> None:
    async with (running_server(server_settings("sqlite://")) as server,
                httpx.AsyncClient(base_url=server.url) as http):
        pages = {path: await http.get(path, headers={"Accept": "text/html"})
                 for path in ("/me", "/players/ann", "/matches/ABCDEF")}
    for path, page in pages.items():
        assert page.status_code == 200, path
        assert page.headers["content-type"].startswith("text/html")
        assert page.headers["content-security-policy"] == CSP
        assert '<div id="app">' in page.text and "<script>" not in page.text
    assert '"/static/profile.js"' in pages["/me"].text
    assert '"/static/profile.js"' in pages["/players/ann"].text
    assert '"/static/match.js"' in pages["/matches/ABCDEF"].text


async def test_replays_are_built_once_off_the_event_loop() -> None:
    async with (running_server(server_settings("sqlite://")) as server,
                httpx.AsyncClient(base_url=server.url) as http):
        code = (await http.post("/api/rooms", json={"rules": RULES})).json()["code"]
        ann = await GameClient.join(server.url, code, name="Ann")
        await ann.command(P.AddBot, bot="normal")
        await ann.command(P.Start)
        await play(ann)
        await ann.close()
        published = server.server.config.app.state.replays
        before = published.builds
        answers = await asyncio.gather(*(http.get(f"/api/rooms/{code}/replay?seat=1")
                                         for _ in range(4)))
    assert {a.status_code for a in answers} == {200}
    assert len({a.content for a in answers}) == 1
    assert published.builds == before + 1
