"""Ratings and leaderboards through the server: a rated match's reveal carries each
seat's new rating and its change, as stored; ``POST /api/rooms`` makes an unrated room;
``/api/me`` and profiles show the rating and the ranks; ``/api/leaderboards/{kind}``
pages by rank and around the caller, and refuses bad input with typed errors."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from sqlalchemy import Connection, select

from asgi_driver import opened_app
from room_kit import Table
from test_server_accounts import Browser, settings
from test_server_xp import play_out, seated
from unokit.server import protocol as P
from unokit.server.leaderboards import READS
from unokit.store import Store
from unokit.store import accounts as A
from unokit.store import boards as B
from unokit.store import ratings as R
from unokit.store.models import RoomRow
from unokit.store.rating_model import display

pytestmark = pytest.mark.asyncio


def reveals(conn: Any) -> list[dict[str, Any]]:
    return [m for m in map(msgspec.json.decode, conn.sent) if m.get("type") == "reveal"]


async def test_the_reveal_shows_each_rated_seat_its_new_rating(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, "a" * 43, now=0.0)
        bea = await A.create_guest(store, "b" * 43, now=0.0)
        await A.claim(store, ann, "Ann", "$argon2id$x", now=0.0)
        await A.claim(store, bea, "Bea", "$argon2id$x", now=0.0)
        table = await Table.open(store, "RTAB")
        conns = {0: await seated(table, "Ann", ann), 1: await seated(table, "Bea", bea)}
        await table.send(conns[0], P.Start(id="go"))
        await play_out(table, conns, set())
        stored = await store.run(R.stored_ratings)
        for conn in conns.values():
            [reveal] = reveals(conn)
            assert set(reveal["ratings"]) == {"0", "1"}
            for seat, player in (("0", ann), ("1", bea)):
                shown = reveal["ratings"][seat]
                assert shown["rating"] == display(stored[player][0])
                assert shown["change"] == shown["rating"] - 1500
                assert shown["provisional"] is True
        winner = table.room.game.match_winner  # type: ignore[union-attr]
        assert reveals(conns[0])[0]["ratings"][str(winner)]["change"] > 0
        # a room that comes back finished (a restart) shows the same reveal again
        shown = {v: table.room._reveal_message(v) for v in (0, 1, -1)}
        await table.restart()
        assert table.room.status == "finished"
        assert {v: table.room._reveal_message(v) for v in (0, 1, -1)} == shown
        assert msgspec.json.decode(shown[-1])["ratings"]
    finally:
        await store.close()


async def test_an_unrated_match_reveals_no_rating(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, "a" * 43, now=0.0)  # a guest: not rated
        bea = await A.create_guest(store, "b" * 43, now=0.0)
        await A.claim(store, bea, "Bea", "$argon2id$x", now=0.0)
        table = await Table.open(store, "RTGU")
        conns = {0: await seated(table, "Ann", ann), 1: await seated(table, "Bea", bea)}
        await table.send(conns[0], P.Start(id="go"))
        await play_out(table, conns, set())
        assert "ratings" not in reveals(conns[1])[0]  # left out when empty
        assert await store.run(R.stored_ratings) == {}
    finally:
        await store.close()


async def test_a_room_is_made_unrated_on_request(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, rooms):
        ann = Browser(app)
        made = await ann.call("POST", "/api/rooms", {"rated": False})
        assert made.status == 201
        plain = await ann.call("POST", "/api/rooms", {})
        bad = await ann.call("POST", "/api/rooms", {"rated": "yes"})
        assert bad.status == 400 and bad.json()["error"] == "bad_request"

        def rated(connection: Connection) -> dict[str, bool]:
            return {row.code: bool(row.rated) for row in connection.execute(
                select(RoomRow.__table__.c.code, RoomRow.__table__.c.rated))}
        found = await rooms.store.run(rated)
        assert found == {made.json()["code"]: False, plain.json()["code"]: True}


async def test_leaderboards_over_http(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, rooms):
        store: Store = rooms.store
        ann, bea, cy = Browser(app), Browser(app), Browser(app)
        ids = [await ann.account("Ann"), await bea.account("Bea"), await cy.account("Cyd")]
        me = (await ann.call("GET", "/api/me")).json()
        assert me["rating"]["rating"] == 1500 and me["rating"]["provisional"]
        assert me["rating"]["matches"] == 0
        assert me["ranks"] == {"rating": None, "rating_week": None, "xp": None,
                               "xp_week": None}

        def put(connection: Connection) -> None:  # Bea first, Ann and Cy tied
            B.set_scores(connection, "rating", {ids[0]: 1600, ids[1]: 1700, ids[2]: 1600})
        await store.run(put)
        page = (await ann.call("GET", "/api/leaderboards/rating")).json()
        assert page["total"] == 3 and page["period"] == "all" and page["week"] is None
        assert [(e["rank"], e["player"], e["score"]) for e in page["entries"]] == [
            (1, "Bea", 1700), (2, "Ann", 1600), (3, "Cyd", 1600)]
        second = (await ann.call("GET", "/api/leaderboards/rating",
                                 query=b"rank=3&limit=1")).json()
        assert [e["player"] for e in second["entries"]] == ["Cyd"]
        around = (await cy.call("GET", "/api/leaderboards/rating",
                                query=b"around=me&limit=2")).json()
        assert around["rank"] == 2 and [e["player"] for e in around["entries"]] == [
            "Ann", "Cyd"]
        assert (await ann.call("GET", "/api/players/Cyd")).json()["ranks"]["rating"] == 3
        week = (await ann.call("GET", "/api/leaderboards/xp", query=b"period=week")).json()
        assert week["entries"] == [] and week["week"] == B.week_end(store.clock())
        for query, status, code in [
                (b"limit=0", 400, "bad_request"), (b"limit=101", 400, "bad_request"),
                (b"rank=abc", 400, "bad_request"), (b"rank=0", 400, "bad_request"),
                (b"period=month", 400, "bad_request"),
                (b"week=2026-12-08", 400, "bad_request"),  # a Tuesday
                (b"week=2999-01-07", 400, "bad_request"),  # a week to come
                (b"week=nonsense", 400, "bad_request"), (b"around=you", 400, "bad_request"),
                (b"around=me", 404, "not_found")]:  # Ann is on no XP board
            answer = await ann.call("GET", "/api/leaderboards/xp", query=query)
            assert (answer.status, answer.json()["error"]) == (status, code), query
        stranger = Browser(app)
        answer = await stranger.call("GET", "/api/leaderboards/rating", query=b"around=me")
        assert (answer.status, answer.json()["error"]) == (401, "no_session")
        answer = await ann.call("GET", "/api/leaderboards/coins")
        assert (answer.status, answer.json()["error"]) == (404, "not_found")
        past = await ann.call("GET", "/api/leaderboards/rating", query=b"week=2026-11-30")
        assert past.status == 200 and past.json()["board"] == "rating:2026-11-30"
        app.state.leaderboard_reads = READS  # as many reads as it takes at once
        answer = await ann.call("GET", "/api/leaderboards/rating")
        assert (answer.status, answer.json()["error"]) == (503, "busy")
        assert answer.headers["retry-after"] == "1"
        app.state.leaderboard_reads = 0
        assert (await ann.call("GET", "/api/leaderboards/rating")).status == 200


async def test_any_leaderboard_query_gets_a_page_or_a_typed_error() -> None:
    rng = random.Random(5)
    names = ["rank", "limit", "period", "week", "around", "x", ""]
    values = ["1", "0", "-1", "100", "101", "1e3", "99999999999999999999", "", "me", "you",
              "all", "week", "2026-11-30", "2026-13-01", "٣", "%00", "a" * 300, "2026-11-30T"]
    async with opened_app(settings()) as (app, _rooms):
        ann = Browser(app)
        await ann.account("Ann")
        for _ in range(150):
            kind = rng.choice(["rating", "xp", "coins", "%2e%2e", "RATING"])
            query = "&".join(f"{rng.choice(names)}={rng.choice(values)}"
                             for _ in range(rng.randrange(4)))
            answer = await ann.call("GET", f"/api/leaderboards/{kind}",
                                    query=query.encode())
            body = answer.json()
            assert answer.status in (200, 400, 404), (kind, query, body)
            if answer.status == 200:
                assert body["kind"] == kind and len(body["entries"]) <= 100
            else:
                assert body["error"] in ("bad_request", "not_found"), (kind, query)
