"""A player is told when a rated match did not count for their rating, or counted only
in part, and why (unokit.store.rating_notices), on SQLite and PostgreSQL: the match
end shows each seat its own notice and never another seat's, ``/api/me``'s matches
carry it in the request's language, a public profile does not; the words name no
threshold and every check has words."""

from __future__ import annotations

import inspect
import random
import re
from typing import Any

import msgspec
import pytest
from sqlalchemy import select

from asgi_driver import opened_app
from room_kit import Table
from test_farming_store import RULES, accounts, choose, stored_match
from test_server_accounts import Browser, settings
from test_server_xp import seated
from unokit.client.standing import Standing, standing_lines
from unokit.engine.actions import format_action
from unokit.engine.phases import MATCH_OVER
from unokit.i18n import localize
from unokit.server import protocol as P
from unokit.store import Store, farming
from unokit.store import match_play as M
from unokit.store import ratings as R
from unokit.store.rating_model import display
from unokit.store.rating_notices import (
    KIND_WORDS,
    REASON_WORDS,
    RatingNotice,
    match_notices,
    notice_for,
)

pytestmark = pytest.mark.asyncio


def reveals(conn: Any) -> list[dict[str, Any]]:
    return [m for m in map(msgspec.json.decode, conn.sent) if m.get("type") == "reveal"]


async def test_every_check_has_words_and_no_words_give_a_threshold() -> None:
    checks = set(re.findall(r'void\([a-z]+, "([a-z_]+)"\)', inspect.getsource(farming)))
    assert checks == set(REASON_WORDS) and len(checks) == 6
    for lang in ("en", "ru", "da", "ka"):
        for kind in KIND_WORDS:
            text = RatingNotice(kind, tuple(REASON_WORDS) if kind == "voided" else ()).text(
                lang)
            assert not re.search(r"\d", text), text  # no share, count or day in it
            assert text.startswith(localize(lang, KIND_WORDS[kind]))
    assert notice_for(("sitting", "sitting"), True, True) == RatingNotice("voided",
                                                                        ("sitting",))


async def test_the_match_end_and_the_history_say_which_match_did_not_count(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        ann, bea, cid, dan, eve = await accounts(store, ["Ann", "Bea", "Cid", "Dan", "Eve"])
        rng = random.Random(7)
        first = await stored_match(store, "D1", [ann, bea, cid], 40, rng=rng)
        assert all(s.notice is None and s.counted for s in first.values())
        before = await store.run(R.stored_ratings)
        # Ann had this deal before: her rating does not move; Dan and Eve are rated
        # between themselves only
        shown = await stored_match(store, "D2", [ann, dan, eve], 40, rng=rng)
        assert shown[0].notice == RatingNotice("voided", ("repeat_deal",))
        assert not shown[0].counted and shown[0].change == 0
        assert shown[0].rating == display(before[ann][0])
        assert [shown[s].notice for s in (1, 2)] == [RatingNotice("partial")] * 2
        assert all(shown[s].counted for s in (1, 2))
        # Ann again, alone with Cid: nobody is left to rate Cid against
        await stored_match(store, "E1", [ann, bea], 50, rng=rng)
        shown = await stored_match(store, "E2", [ann, cid], 50, rng=rng)
        assert shown[0].notice == RatingNotice("voided", ("repeat_deal",))
        assert shown[1].notice == RatingNotice("none_counted") and not shown[1].counted

        async def notices(player: int) -> dict[str, str]:
            def read(connection: Any) -> dict[str, str]:
                codes = {row.id: row.code for row in connection.execute(
                    select(M.ROOMS.c.id, M.ROOMS.c.code))}
                found = match_notices(connection, player, sorted(codes))
                return {codes[m]: n.kind for m, n in found.items()}
            return await store.run(read)
        assert await notices(ann) == {"D2": "voided", "E2": "voided"}
        assert await notices(dan) == {"D2": "partial"}
        assert await notices(cid) == {"E2": "none_counted"}
        assert await notices(bea) == {}  # her matches counted in full
    finally:
        await store.close()


async def test_each_seat_is_told_its_own_notice_alone(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann, bea = await accounts(store, ["Ann", "Bea"])
        table = await Table.open(store, "THRN", RULES)
        conns = {0: await seated(table, "Ann", ann), 1: await seated(table, "Bea", bea)}
        await table.send(conns[0], P.Start(id="go"))
        room, step, threw = table.room, 0, [False, False]
        while room.game is not None and room.game.phase is not MATCH_OVER:
            assert room.driver is not None
            seat = room.driver.lead()  # Bea throws the match
            action = choose(room.game, seat, 1.0 if seat == 1 else 0.0, random.Random(step),
                            threw)
            step += 1
            await table.send(conns[seat], P.Act(
                id=f"a{step}", action=format_action(action).split(":", 1)[1]))
        for seat, conn in conns.items():
            [reveal] = reveals(conn)
            assert "ratings" not in reveal  # nobody's rating moved
            assert reveal["notice"] == {"kind": "voided",
                                        "reasons": ["thrown", "thrown_pattern"]}, seat
        # a room that comes back finished (a restart) tells each seat its notice again
        await table.restart()
        assert table.room.status == "finished"
        for seat, conn in conns.items():
            again = msgspec.json.decode(table.room._reveal_message(seat))
            assert again == reveals(conn)[0], seat
        assert "notice" not in msgspec.json.decode(table.room._reveal_message(-1))
        room = table.room
        # one seat voided, the other rated: each gets its own notice, a spectator none
        room.ratings = {0: R.SeatRating(ann, 1500, 0, True,
                                        RatingNotice("voided", ("sitting",))),
                        1: R.SeatRating(bea, 1512, 12, True, RatingNotice("partial"))}
        mine, theirs, watcher = (msgspec.json.decode(room._reveal_message(v))
                                 for v in (0, 1, -1))
        assert mine["notice"] == {"kind": "voided", "reasons": ["sitting"]}
        assert theirs["notice"] == {"kind": "partial", "reasons": []}
        assert "notice" not in watcher
        for reveal in (mine, theirs, watcher):  # the rating that moved, for all to see
            assert list(reveal["ratings"]) == ["1"]
    finally:
        await store.close()


async def test_api_me_tells_the_player_and_a_profile_tells_nobody(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, rooms):
        store: Store = rooms.store
        ann, bea = Browser(app, ("198.51.100.1", 5000)), Browser(app, ("203.0.113.1", 5000))
        ids = [await ann.account("Ann"), await bea.account("Bea")]
        rng = random.Random(3)
        await stored_match(store, "F1", ids, 60, rng=rng)
        await stored_match(store, "F2", ids[::-1], 60, rng=rng)  # the same deal again
        for lang in ("en", "ru"):
            got = (await ann.call("GET", "/api/me",
                                  headers=(("accept-language", lang),))).json()
            [again, once] = got["matches"]
            assert once["code"] == "F1" and once["rating_notice"] is None
            assert again["code"] == "F2"
            assert again["rating_notice"] == {
                "kind": "voided", "reasons": ["repeat_deal"],
                "text": localize(lang, KIND_WORDS["voided"]) + " "
                + localize(lang, REASON_WORDS["repeat_deal"])}
        public = (await bea.call("GET", "/api/players/Ann")).json()
        assert [m["code"] for m in public["matches"]] == ["F2", "F1"]
        assert all("rating_notice" not in m for m in public["matches"])


async def test_the_terminal_standing_says_why_the_last_match_did_not_count() -> None:
    me = {"id": 1, "username": "Ann", "xp": 10, "level": 1, "next_level_xp": 100,
          "rating": {"rating": 1500, "change": 0, "provisional": True}, "coins": 0,
          "matches": [{"code": "F2", "rating_notice": RatingNotice(
              "voided", ("repeat_deal",)).as_dict("en")}]}
    lines = standing_lines(Standing(me, {"entries": []}, False))
    assert lines[2] == ("Last match F2: This match did not count for your rating. You "
                        "had played this same deal before.")
    counted = standing_lines(Standing({**me, "matches": [{"code": "F1",
                                                          "rating_notice": None}]},
                                      {"entries": []}, False))
    assert not any("Last match" in line for line in counted)
