"""The whole path of rewards in the browser (issue 24, item 9): a guest plays a match
against a bot (unrated: the match end says so), claims an account, finds the match in
their history and steps through its replay; plays a rated match that the anti-farming
checks void (new accounts of one address group: the match end and the history say so,
in words); then plays three rated matches against two
other accounts (programs with API tokens: a rated match needs every person to be an
account), sees each one's rating and change at the match end, and their XP, level and
rating (provisional first, then settled) in the lobby; finds themselves on the
leaderboards (rating and XP, all time and this week, by rank and around them, names
linking to profiles); claims a completed challenge (its XP and coins paid once: a
second claim is refused); buys a table colour and sees it on the table. The challenge,
the shop and the leaderboards are done in Russian, axe checks the new page.

The server's settings make the leaderboards reachable in three matches: one rated match
needed (``UNOKIT_LEADERBOARD_MIN_MATCHES``) and a rating settled below sigma 8.3 (a new
one is 8.33); the last-7-days rule (3 rated matches against 2 people) is the server's
own. Coins come only from challenges, and the cheapest cosmetic costs more than a day's
challenges pay: the test adds a gift line to the coin ledger in the server's database.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from browser_client import SyncClient, first_legal
from browser_flow import (
    by_id,
    enter_room,
    named_context,
    seats_filled,
    start_at_my_turn,
    start_match,
)
from browser_server import ServerProcess
from browser_table import Player, on, play_until, shot, wait_js
from playwright.sync_api import expect
from sqlalchemy import create_engine
from test_browser_accounts import FAST_HASH, PASSWORD, claim, me, play_a_match, replay_flow
from test_browser_axe import axe_violations

from unokit.i18n import catalogue, localize, render
from unokit.store import coins

pytestmark = pytest.mark.xdist_group("browser")

SETTINGS = {**FAST_HASH, "UNOKIT_LEADERBOARD_MIN_MATCHES": "1",
            "UNOKIT_RATING_PROVISIONAL_SIGMA": "8.3"}
RATED_RULES = "official,players=3,rounds=1,hand_size=3"
"""Three people, one short round."""
BLUE = "rgb(21, 101, 192)"
"""The colour of the cosmetic ``table.blue`` (#1565c0), as the browser computes it."""


@dataclass(frozen=True)
class Account:
    """An account made over HTTP, playing as a program with its API token."""

    name: str
    id: int
    token: str


def make_account(server: ServerProcess, name: str) -> Account:
    """A guest (its session cookie), claimed as ``name``, and an API token of it."""
    cookie = ""

    def post(path: str, body: Any) -> Any:
        nonlocal cookie
        request = urllib.request.Request(
            server.url + path, data=json.dumps(body).encode(), method="POST",
            headers={"Content-Type": "application/json", "Cookie": cookie})
        with urllib.request.urlopen(request, timeout=30) as answer:
            set_cookie = answer.headers.get("Set-Cookie")
            if set_cookie:
                cookie = set_cookie.split(";", 1)[0]
            return json.loads(answer.read())
    guest = post("/api/guest", {})
    post("/api/account/claim", {"username": name, "password": PASSWORD})
    token = post("/api/account/tokens", {"label": "test"})["token"]
    return Account(name, int(guest["id"]), token)


def rated_match(page: Any, server: ServerProcess, others: list[Account]) -> str:
    """A match of ``page`` (the host, seat 0) and ``others`` (programs that play their
    first legal card), played to its end; the room's code."""
    code = server.create_room(RATED_RULES)
    enter_room(page, server, code)
    clients = [SyncClient.join(server.url, code, name=o.name, api_token=o.token)
               for o in others]
    try:
        seats_filled(page, 1 + len(others))
        for client in clients:
            client.autoplay(first_legal)
        start_match(page)
        play_until([Player(page)], on("match-end"))
    finally:
        for client in clients:
            client.close()
    return code


def said(lang: str, msgid: str) -> str:
    """A message of the web client as ``lang`` says it (English until it is
    translated)."""
    text = catalogue(lang, "web").get(msgid)
    return text if isinstance(text, str) and text else msgid


def age_accounts(server: ServerProcess, players: list[int], days: float) -> None:
    """Make ``players``' accounts ``days`` old in the server's database (its SQLite).

    Every player here connects from 127.0.0.1, one address group, and the anti-farming
    check ``fresh_account`` voids the rating of an account under a week old that loses
    to one of its own address group (unokit.store.farming): the accounts of this test
    are made older, as long-standing players' would be."""
    from sqlalchemy import text
    engine = create_engine(f"sqlite:///{server.data_dir / 'unokit.db'}",
                           connect_args={"timeout": 30})
    try:
        with engine.begin() as connection:
            for player in players:
                connection.execute(text("UPDATE players SET created_at = created_at - :s "
                                        "WHERE id = :id"), {"s": days * 86_400, "id": player})
    finally:
        engine.dispose()


def gift_coins(server: ServerProcess, player: int, amount: int) -> None:
    """A line of ``amount`` coins in the server's ledger (its SQLite database)."""
    engine = create_engine(f"sqlite:///{server.data_dir / 'unokit.db'}",
                           connect_args={"timeout": 30})
    try:
        with engine.begin() as connection:
            coins.credit(connection, player, amount, "challenge", "test:gift", time.time())
    finally:
        engine.dispose()


def test_a_guest_plays_claims_climbs_the_leaderboard_and_spends_coins(
        server_factory: Callable[..., ServerProcess], contexts: Any, artifacts: Path) -> None:
    server = server_factory(**SETTINGS)
    page = named_context(contexts, "Ann", reduced_motion="reduce", bypass_csp=True).new_page()
    page.goto(server.url + "/")
    account = by_id(page, "lobby-account")
    expect(account).to_have_attribute("data-guest", "true")
    expect(by_id(page, "lobby-coins")).to_have_attribute("data-coins", "0")
    expect(by_id(page, "lobby-rating")).to_have_attribute("data-rating", "")  # guests: unrated

    # a guest's match against a bot: XP, no rating
    first = play_a_match(page, server)
    expect(by_id(page, "match-rating")).to_have_attribute("data-rated", "false")
    by_id(page, "back-to-lobby").click()
    guest_xp = me(page)["xp"]
    expect(by_id(page, "lobby-level")).to_have_attribute("data-xp", str(guest_xp))

    # the account, the history, the replay
    account.locator('[data-testid="profile-link"]').click()
    expect(by_id(page, "history-match", code=first)).to_have_count(1)
    claim(page, "Ann")
    expect(by_id(page, "profile")).to_have_attribute("data-username", "Ann")
    expect(by_id(page, "profile-rating")).to_have_attribute("data-provisional", "true")
    by_id(page, "history-match", code=first).locator("a").click()
    replay_flow(page, first)

    # a rated match while the accounts are new, all from 127.0.0.1: the anti-farming
    # check fresh_account voids it, and the match end says so, in words
    bea, cyd = make_account(server, "Bea"), make_account(server, "Cyd")
    voided = rated_match(page, server, [bea, cyd])
    expect(by_id(page, "match-rating")).to_have_attribute("data-rated", "false")
    told = by_id(page, "match-rating-notice")
    expect(told).to_have_attribute("data-kind", "voided")
    expect(told).to_have_attribute("data-reasons", re.compile(r"(^|,)fresh_account(,|$)"))
    expect(told).to_contain_text(said("en", "This match did not count for your rating."))
    expect(told).to_contain_text(said("en", "A new account and a player on the same "
                                            "network do not rate each other at first."))
    assert me(page)["rating"]["matches"] == 0

    # three rated matches against two other people
    age_accounts(server, [me(page)["id"], bea.id, cyd.id], days=30)
    page.goto(server.url + "/")
    expect(by_id(page, "lobby-rating")).to_have_attribute("data-rating", "1500")
    expect(by_id(page, "lobby-rating")).to_have_attribute("data-provisional", "true")
    for n in range(3):
        rated_match(page, server, [bea, cyd])
        shown = by_id(page, "match-rating")
        expect(shown).to_have_attribute("data-rated", "true")
        rating = me(page)["rating"]
        assert rating["matches"] == n + 1 and not rating["provisional"]
        expect(shown).to_have_attribute("data-rating", str(rating["rating"]))
        expect(shown).to_have_attribute("data-change", str(rating["change"]))
        if n == 0:  # one rated match is not yet 3 in the last 7 days
            assert server.get("/api/leaderboards/rating")["total"] == 0
            shot(page, artifacts, "rewards-match-end")
    # the lobby: XP, level and the settled rating
    by_id(page, "back-to-lobby").click()
    now = me(page)
    assert now["xp"] >= guest_xp + 30
    expect(by_id(page, "lobby-level")).to_have_attribute("data-xp", str(now["xp"]))
    expect(by_id(page, "lobby-level")).to_have_attribute("data-level", str(now["level"]))
    expect(by_id(page, "lobby-rating")).to_have_attribute("data-rating",
                                                          str(now["rating"]["rating"]))
    expect(by_id(page, "lobby-rating")).to_have_attribute("data-provisional", "false")
    assert now["ranks"]["rating"] in (1, 2, 3)

    # the leaderboards, from the lobby, in Russian: every eligible player, paged by rank
    by_id(page, "leaderboards-link").click()
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "leaderboards")
    page.goto(server.url + "/leaderboards?lang=ru")
    expect(page.locator("html")).to_have_attribute("lang", "ru")
    expect(by_id(page, "board-entry")).to_have_count(3)
    mine = by_id(page, "board-entry", me="true")
    expect(mine).to_have_attribute("data-rank", str(now["ranks"]["rating"]))
    expect(mine).to_have_attribute("data-score", str(now["rating"]["rating"]))
    expect(page.locator(".board-table th").nth(2)).to_have_text(said("ru", "Rating"))
    assert {e.get_attribute("data-player") for e in by_id(page, "board-entry").all()} == {
        "Ann", "Bea", "Cyd"}
    found = axe_violations(page, "leaderboards")
    assert not found, found
    by_id(page, "board-kind", value="xp").press("Enter")  # the keyboard works the tabs
    expect(by_id(page, "leaderboards")).to_have_attribute("data-kind", "xp")
    expect(mine).to_have_attribute("data-score", str(now["xp"]))
    expect(mine).to_have_attribute("data-rank", str(now["ranks"]["xp"]))
    by_id(page, "board-period", value="week").click()
    expect(by_id(page, "leaderboards")).to_have_attribute("data-period", "week")
    expect(by_id(page, "leaderboards")).to_have_attribute("data-loading", "false")
    expect(by_id(page, "board-entry")).to_have_count(3)  # the week's board, not the last
    by_id(page, "board-rank").fill("2")
    by_id(page, "board-rank").press("Enter")
    expect(by_id(page, "board-entry")).to_have_count(2)
    expect(by_id(page, "board-entry").first).to_have_attribute("data-rank", "2")
    by_id(page, "board-around-me").click()
    expect(by_id(page, "board-entry", me="true")).to_have_count(1)
    assert "kind=xp" in page.url and "period=week" in page.url
    shot(page, artifacts, "rewards-leaderboards")
    by_id(page, "board-entry", player="Bea").locator("a").click()
    expect(by_id(page, "profile")).to_have_attribute("data-username", "Bea")

    # a challenge completed (3 matches today), claimed once, in Russian; the history
    # tells which match did not count
    page.goto(server.url + "/me?lang=ru#challenges")
    told = by_id(page, "history-match", code=voided).locator(
        '[data-testid="history-rating-notice"]')
    expect(told).to_have_attribute("data-kind", "voided")
    expect(told).to_contain_text(said("ru", "This match did not count for your rating."))
    expect(by_id(page, "history-rating-notice")).to_have_count(1)  # the others counted
    played = page.locator('[data-testid="challenge"][data-id="daily.play_3"]').first
    expect(played).to_have_attribute("data-claimable", "true")
    expect(played.locator("b").first).to_have_text(localize("ru", "Play 3 matches"))
    before = me(page)
    expect(by_id(page, "shop-coins")).to_have_attribute("data-coins", str(before["coins"]))
    button = played.locator('[data-testid="challenge-claim"]')
    button.focus()
    page.keyboard.press("Enter")
    expect(played).to_have_attribute("data-claimed", "true")
    expect(by_id(page, "rewards-status")).not_to_be_empty()
    after = me(page)
    assert after["coins"] == before["coins"] + 10 and after["xp"] == before["xp"] + 15
    expect(by_id(page, "shop-coins")).to_have_attribute("data-coins", str(after["coins"]))
    expect(by_id(page, "profile-level")).to_have_attribute("data-xp", str(after["xp"]))
    again = page.request.post(server.url + "/api/challenges/claim", data={
        "id": "daily.play_3", "ends_at": int(played.get_attribute("data-ends"))},
        headers={"Accept-Language": "ru"})
    assert again.status == 409 and again.json()["error"] == "claimed"
    assert again.json()["message"] == render("ru", "this reward was paid already", {})
    assert me(page)["coins"] == after["coins"]

    # the shop: too poor for a table colour, then a gift, a purchase, the table in blue
    blue = by_id(page, "shop-item", id="table.blue")
    expect(blue.locator('[data-testid="shop-buy"]')).to_be_disabled()
    gift_coins(server, after["id"], 90)
    page.reload()
    expect(by_id(page, "shop-coins")).to_have_attribute("data-coins", str(after["coins"] + 90))
    blue.locator('[data-testid="shop-buy"]').click()
    expect(blue).to_have_attribute("data-owned", "true")
    expect(by_id(page, "shop-coins")).to_have_attribute("data-coins", str(after["coins"] + 10))
    blue.locator('[data-testid="shop-use"]').click()
    expect(blue).to_have_attribute("data-chosen", "true")
    assert me(page)["cosmetics"]["chosen"]["table"] == "table.blue"
    found = axe_violations(page, "me-rewards")
    assert not found, found
    shot(page, artifacts, "rewards-shop")
    start_at_my_turn(page, server, "official,players=2,rounds=1,hand_size=3", bots=["normal"])
    expect(page.locator("html")).to_have_attribute("data-table", "table.blue")
    felt = page.locator(".felt")
    expect(felt).to_be_visible()
    # the felt's style follows data-table once the page has drawn it: wait for that
    wait_js(page, "(blue) => [...document.querySelectorAll('.felt')].some("
            "(el) => getComputedStyle(el).backgroundImage.includes(blue))", BLUE,
            what="the felt in the chosen blue")
    assert BLUE in felt.evaluate("(el) => getComputedStyle(el).backgroundImage")
    shot(page, artifacts, "rewards-blue-table")
