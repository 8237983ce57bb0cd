"""Challenges, coins and cosmetics through the server: a match played in a room raises
its players' progress (a leaver's not); the API lists a player's challenges, pays a
completed one once however many claims come at once, and refuses the rest with typed
errors; the shop sells cosmetics for coins only, never below zero; ``/api/me`` shows
the coins and cosmetics. POSTs are CSRF-safe and limited per player, spending takes a
browser session, and no body makes the API fail."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st
from sqlalchemy import Connection

from asgi_driver import opened_app, request
from room_kit import Table
from test_server_accounts import Browser, settings
from test_server_xp import kind_of, play_out, seated
from unokit.server import protocol as P
from unokit.server.limits import AddressBuckets
from unokit.server.rewards import BURST, RATE
from unokit.store import Store, coins, xp
from unokit.store import accounts as A
from unokit.store import challenges as CH
from unokit.store.catalogue import CHALLENGE_BY_ID, CHALLENGES, COSMETICS

pytestmark = pytest.mark.asyncio

NOW = 1_796_300_000.0  # Thursday 2026-12-03 12:53 UTC
TODAY = CH.period_end("daily", NOW)


async def test_a_match_in_a_room_raises_its_players_progress(database_url: str) -> None:
    store = Store(database_url)
    store.clock = lambda: NOW
    try:
        players = [await A.create_guest(store, f"{n}" * 43, now=0.0) for n in range(3)]
        table = await Table.open(store, "CHLV", {"preset": "stacking", "players": 3,
                                                 "hand_size": 4, "rounds": 1})
        conns = {i: await seated(table, f"P{i}", p) for i, p in enumerate(players)}
        await table.send(conns[0], P.Start(id="go"))
        assert kind_of(await table.send(conns[2], P.Leave(id="bye"))) == "ack"
        await play_out(table, {0: conns[0], 1: conns[1]}, away={2})
        stored = await CH.stored_progress(store)
        assert stored == await CH.recompute_progress(store)
        mine = {(p, c): n for (p, end, c), n in stored.items()}
        assert mine[(players[0], "daily.play_3")] == mine[(players[1], "daily.play_3")] == 1
        assert not any(p == players[2] for p, _ in mine)  # the leaver: nothing
        winner = [players[0], players[1]][table.room.game.match_winner]  # type: ignore[union-attr]
        assert mine[(winner, "daily.win_stacking")] == 1  # the room's rules stack
        assert stored[(winner, CH.period_end("weekly", NOW), "weekly.win_5")] == 1
    finally:
        await store.close()


async def complete(store: Store, player: int, challenge: str, end: int) -> None:
    def write(connection: Connection) -> None:
        connection.execute(CH.PROGRESS.insert().values(
            player_id=player, period_end=end, challenge=challenge,
            progress=CHALLENGE_BY_ID[challenge].goal))
    await store.run(write)


async def test_challenges_are_listed_and_a_reward_is_paid_once(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, rooms):
        assert rooms.store is not None
        rooms.store.clock = lambda: NOW
        ann = Browser(app)
        await ann.call("POST", "/api/guest")
        ann_id = int((await ann.call("GET", "/api/me")).json()["id"])
        listed = (await ann.call("GET", "/api/challenges")).json()
        assert listed["now"] == NOW
        assert [c["id"] for c in listed["challenges"]] == [c.id for c in CHALLENGES]
        first = listed["challenges"][0]
        assert first == {"id": "daily.play_3", "period": "daily", "title": "Play 3 matches",
                         "metric": "matches_played", "rules": {}, "goal": 3,
                         "progress": 0, "xp": 15, "coins": 10, "ends_at": TODAY,
                         "current": True, "claimed": False, "claimable": False}
        claim = {"id": "daily.play_3", "ends_at": TODAY}
        answer = await ann.call("POST", "/api/challenges/claim", claim)
        assert answer.status == 409 and answer.json()["error"] == "not_complete"
        await complete(rooms.store, ann_id, "daily.play_3", TODAY)
        claims = await asyncio.gather(*(ann.call("POST", "/api/challenges/claim", claim)
                                        for _ in range(20)))
        assert sorted(a.status for a in claims) == [200] + [409] * 19
        [paid] = [a.json() for a in claims if a.status == 200]
        assert paid == {"id": "daily.play_3", "ends_at": TODAY, "xp": 15, "coins": 10,
                        "balance": 10}
        assert {a.json()["error"] for a in claims if a.status == 409} == {"claimed"}
        me = (await ann.call("GET", "/api/me")).json()
        assert (me["xp"], me["coins"]) == (15, 10)
        assert me["cosmetics"] == {"owned": [], "chosen": {"card_back": "card_back.classic",
                                                           "table": "table.green"}}
        listed = (await ann.call("GET", "/api/challenges")).json()["challenges"]
        assert listed[0]["claimed"] and listed[0]["progress"] == 3
        assert (await xp.stored_totals(rooms.store))[ann_id] == 15
        exported = (await ann.call("GET", "/api/account/export")).json()
        assert [r["challenge"] for r in exported["challenge_rewards"]] == ["daily.play_3"]
        assert exported["coins"] == 10


async def test_bad_claims_get_typed_errors() -> None:
    async with opened_app(settings()) as (app, rooms):
        assert rooms.store is not None
        rooms.store.clock = lambda: NOW
        ann = Browser(app)
        await ann.call("POST", "/api/guest")
        ann_id = int((await ann.call("GET", "/api/me")).json()["id"])
        old = TODAY - 9 * 86_400
        await complete(rooms.store, ann_id, "daily.play_3", old)
        for body, status, code in (
                ({"id": "daily.nothing", "ends_at": TODAY}, 404, "not_found"),
                ({"id": 3, "ends_at": TODAY}, 400, "bad_request"),
                ({"id": "daily.play_3", "ends_at": "today"}, 400, "bad_request"),
                ({"id": "daily.play_3", "ends_at": True}, 400, "bad_request"),
                ({"id": "daily.play_3", "ends_at": 2**62}, 400, "bad_request"),
                ({"id": "daily.play_3", "ends_at": TODAY + 86_400}, 400, "bad_request"),
                ({"id": "daily.play_3", "ends_at": TODAY - 60}, 400, "bad_request"),
                ({"id": "daily.play_3", "ends_at": old}, 409, "expired"),
                ({"id": "weekly.win_5", "ends_at": TODAY}, 400, "bad_request")):
            answer = await ann.call("POST", "/api/challenges/claim", body)
            assert (answer.status, answer.json()["error"]) == (status, code), body
            assert answer.json()["message"]
        assert await CH.stored_rewards(rooms.store) == {}
        # CSRF: another site's page, or a form, is refused before anything else
        evil = await ann.call("POST", "/api/challenges/claim", {"id": "daily.play_3"},
                              headers=(("origin", "https://evil.example"),))
        assert evil.status == 403 and evil.json()["error"] == "bad_origin"
        form = await request(app, "POST", "/api/shop/buy", headers=[
            ("host", "testserver"), ("content-type", "text/plain"),
            ("cookie", f"unokit_session={ann.cookie}")], body=[b'{"id": "table.blue"}'])
        assert form.status == 415
        stranger = Browser(app)
        for method, path in (("GET", "/api/challenges"), ("GET", "/api/shop"),
                             ("POST", "/api/shop/buy"), ("POST", "/api/challenges/claim")):
            answer = await stranger.call(method, path, {"id": "table.blue"})
            assert answer.status == 401 and answer.json()["error"] == "no_session", path


async def test_the_shop_sells_cosmetics_for_coins_only(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, rooms):
        assert rooms.store is not None
        ann = Browser(app)
        ann_id = await ann.account("Ann")
        shop = (await ann.call("GET", "/api/shop")).json()
        assert shop["coins"] == 0 and len(shop["items"]) == len(COSMETICS)
        blue = next(i for i in shop["items"] if i["id"] == "table.blue")
        assert blue == {"id": "table.blue", "slot": "table", "name": "Blue table",
                        "price": 80, "colour": "#1565c0", "owned": False, "chosen": False}
        assert all(i["owned"] and i["chosen"] for i in shop["items"] if i["price"] == 0)
        poor = await ann.call("POST", "/api/shop/buy", {"id": "table.blue"})
        assert poor.status == 409 and poor.json()["error"] == "too_poor"
        await rooms.store.run(lambda c: coins.credit(c, ann_id, 100, "challenge", "g", 1.0))
        bought = await ann.call("POST", "/api/shop/buy", {"id": "table.blue"})
        assert bought.status == 200 and bought.json() == {"id": "table.blue", "coins": 20}
        again = await ann.call("POST", "/api/shop/buy", {"id": "table.blue"})
        assert again.status == 409 and again.json()["error"] == "owned"
        assert (await ann.call("POST", "/api/shop/buy", {"id": "table.wine"})).json()[
            "error"] == "too_poor"
        refused = await ann.call("POST", "/api/shop/choose", {"id": "card_back.midnight"})
        assert refused.status == 409 and refused.json()["error"] == "not_owned"
        chosen = await ann.call("POST", "/api/shop/choose", {"id": "table.blue"})
        assert chosen.json() == {"chosen": {"card_back": "card_back.classic",
                                            "table": "table.blue"}}
        unknown = await ann.call("POST", "/api/shop/buy", {"id": "table.gold"})
        assert unknown.status == 404 and unknown.json()["error"] == "not_found"
        me = (await ann.call("GET", "/api/me")).json()
        assert me["coins"] == 20 and me["cosmetics"]["owned"] == ["table.blue"]
        assert me["cosmetics"]["chosen"]["table"] == "table.blue"
        # an API token reads and claims, but does not spend
        token = (await ann.call("POST", "/api/account/tokens", {"label": "t"})).json()["token"]
        program = Browser(app)
        bearer = (("authorization", f"Bearer {token}"),)
        assert (await program.call("GET", "/api/shop", headers=bearer)).json()["coins"] == 20
        assert (await program.call("GET", "/api/challenges", headers=bearer)).status == 200
        spend = await program.call("POST", "/api/shop/choose", {"id": "table.green"},
                                   headers=bearer)
        assert spend.status == 401
        assert (await coins.coin_lines(rooms.store, ann_id))[ann_id] == [100, -80]


async def test_a_players_claims_and_buys_are_limited() -> None:
    async with opened_app(settings()) as (app, _rooms):
        now = [0.0]
        app.state.reward_limits = AddressBuckets(RATE, BURST, clock=lambda: now[0])
        ann = Browser(app)
        await ann.call("POST", "/api/guest")
        statuses = [(await ann.call("POST", "/api/shop/choose", {"id": "table.green"})).status
                    for _ in range(BURST + 1)]
        assert statuses == [200] * BURST + [429]
        assert ann.last is not None and ann.last.headers["retry-after"] == "1"
        assert ann.last.json()["error"] == "rate_limited"
        bea = Browser(app)  # another player is not held back
        await bea.call("POST", "/api/guest")
        assert (await bea.call("POST", "/api/shop/choose", {"id": "table.green"})).status \
            == 200
        now[0] += 1 / RATE  # a token back
        assert (await ann.call("POST", "/api/shop/choose", {"id": "table.green"})).status \
            == 200


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=30) | st.sampled_from(["daily.play_3", "table.blue"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["id", "ends_at", "x"]), inner, max_size=3), max_leaves=8)
PATHS = ["/api/challenges/claim", "/api/shop/buy", "/api/shop/choose"]


async def test_no_body_makes_the_rewards_api_fail() -> None:
    async with opened_app(settings()) as (app, _rooms):
        ann = Browser(app)
        await ann.call("POST", "/api/guest")
        answers: list[tuple[str, Any]] = []

        @given(path=st.sampled_from(PATHS), body=JSONISH)
        @hyp_settings(max_examples=150, deadline=None)
        def examples(path: str, body: Any) -> None:
            answers.append((path, body))
        examples()
        # and, whatever was generated, an unknown id and a body that is not an object
        answers += [(path, {"id": "no.such"}) for path in PATHS]
        answers += [(path, ["id"]) for path in PATHS]
        seen: set[int] = set()
        for path, body in answers:
            app.state.reward_limits = None  # the limit is tested apart
            answer = await ann.call("POST", path, body)
            seen.add(answer.status)
            assert answer.status < 500, (path, body)
            assert answer.json()["error"] if answer.status >= 400 else True
        assert {400, 404} <= seen
