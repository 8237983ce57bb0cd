"""Guests, accounts, history, replays and XP in the browser: a first visit plays at
once as a guest (no form: the session cookie comes by itself), plays a match against
a bot, sees "+N XP" with its lines at the end and its level in the lobby, claims an
account from its page (/me) and keeps the match, finds the match in its history,
opens the match's page (the record, the fair-deal check in words) and steps through
its replay (forward, back, the keys, a round, one seat's view with the other hands
hidden). Wrong passwords and bad usernames show typed errors in the page's language;
the same flow in Russian; axe finds nothing serious on the new pages."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser_flow import by_id, enter_room, named_context, seats_filled, start_match
from browser_server import ServerProcess
from browser_table import Player, on, play_until, shot
from playwright.sync_api import expect
from test_browser_axe import axe_violations

from unokit.i18n import catalogue, render

pytestmark = pytest.mark.xdist_group("browser")

RULES = "official,players=2,rounds=2,hand_size=3"
"""Two short rounds against one bot: a replay with a round to jump to."""

PASSWORD = "a long enough password"
FAST_HASH = {"UNOKIT_HASH_MEMORY_KIB": "8192"}
"""argon2id with less memory: the tests check the flow, not the hash's cost."""


def play_a_match(page: Any, server: ServerProcess, query: str = "") -> str:
    """Seat ``page`` in a new room with a bot, start it, play it to the end; the code."""
    code = server.create_room(RULES, bots=["normal"])
    enter_room(page, server, code, query=query)
    seats_filled(page, 2)
    start_match(page)
    play_until([Player(page)], on("match-end"))
    return code


def me(page: Any) -> dict[str, Any]:
    """``GET /api/me`` with the page's cookies."""
    answer = page.request.get(server_of(page) + "/api/me")
    assert answer.ok, answer.text()
    return dict(answer.json())


def claim(page: Any, name: str, password: str = PASSWORD) -> None:
    by_id(page, "claim-username").fill(name)
    by_id(page, "claim-password").fill(password)
    by_id(page, "claim-submit").click()


def step_of(page: Any) -> int:
    return int(by_id(page, "replay").get_attribute("data-step"))


def replay_flow(page: Any, code: str) -> None:
    """On the match page: the record, the checks, then the replay stepped through."""
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "match")
    expect(by_id(page, "fair-check")).to_have_attribute("data-passed", "true")
    checks = page.request.get(f"{server_of(page)}/api/rooms/{code}/verify").json()["checks"]
    assert {c["name"] for c in checks} >= {"scheme", "contributions", "commitment", "seed",
                                           "replay"}
    expect(by_id(page, "fair-check-item")).to_have_count(len(checks))
    expect(by_id(page, "fair-check-item", passed="false")).to_have_count(0)
    href = by_id(page, "record-download").get_attribute("href")
    assert href == f"/api/rooms/{code}/record"
    record = page.request.get(server_of(page) + href).json()
    steps = len(record["actions"]) + 1
    replay = by_id(page, "replay")
    expect(replay).to_have_attribute("data-steps", str(steps))
    expect(replay).to_have_attribute("data-step", "0")
    # every hand: both seats' cards are shown from the deal on
    expect(by_id(page, "replay-seat", shown="true")).to_have_count(2)
    by_id(page, "replay-forward").click()
    expect(replay).to_have_attribute("data-step", "1")
    expect(by_id(page, "replay-events").locator("li").first).to_be_visible()
    by_id(page, "replay-forward").click()
    expect(replay).to_have_attribute("data-step", "2")
    by_id(page, "replay-back").click()
    expect(replay).to_have_attribute("data-step", "1")
    # the keys, with the focus in the viewer
    by_id(page, "replay-forward").focus()
    page.keyboard.press("ArrowRight")
    expect(replay).to_have_attribute("data-step", "2")
    page.keyboard.press("ArrowLeft")
    expect(replay).to_have_attribute("data-step", "1")
    page.keyboard.press("End")
    expect(replay).to_have_attribute("data-step", str(steps - 1))
    expect(by_id(page, "replay-forward")).to_be_disabled()
    # jump to the second round: the step that starts it
    whole = page.request.get(f"{server_of(page)}/api/rooms/{code}/replay?seat=all").json()
    rounds = whole["rounds"]
    by_id(page, "replay-round").select_option("2")
    expect(replay).to_have_attribute("data-step", str(rounds["2"]))
    expect(replay).to_have_attribute("data-round", "2")
    # the bot's view (seat 1): its own hand, the player's hidden, at the same step
    by_id(page, "replay-view").select_option("1")
    expect(replay).to_have_attribute("data-view", "1")
    expect(replay).to_have_attribute("data-step", str(rounds["2"]))
    expect(by_id(page, "replay-seat", seat="1")).to_have_attribute("data-shown", "true")
    expect(by_id(page, "replay-seat", seat="0")).to_have_attribute("data-shown", "false")
    by_id(page, "replay-first").click()
    expect(replay).to_have_attribute("data-step", "0")
    expect(by_id(page, "replay-seat", seat="0").locator("[data-card]")).to_have_count(0)


def server_of(page: Any) -> str:
    scheme, _, host = page.url.split("/", 3)[:3]
    return f"{scheme}//{host}"


def guest_to_account(page: Any, server: ServerProcess, artifacts: Path, name: str,
                     query: str = "", check: Callable[[str], None] | None = None) -> str:
    """The whole flow; ``check(where)`` runs on each new screen. The room's code."""
    page.goto(server.url + "/" + query)
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "lobby")
    # no form: the session cookie and the guest come by themselves
    expect(by_id(page, "lobby-account")).to_have_attribute("data-guest", "true")
    expect(by_id(page, "lobby-level")).to_have_attribute("data-xp", "0")
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["unokit_session"]["httpOnly"] and cookies["unokit_session"]["sameSite"] == "Lax"
    guest = me(page)
    assert guest["guest"] and guest["xp"] == 0

    code = play_a_match(page, server, query)
    panel = by_id(page, "match-xp")
    expect(panel).to_have_attribute("data-state", "ready")
    stored = me(page)
    match = stored["matches"][0]
    assert match["code"] == code and match["xp"] >= 10 and stored["xp"] == match["xp"]
    expect(by_id(page, "xp-gain")).to_have_attribute("data-xp", str(match["xp"]))
    lines = {line.get_attribute("data-reason"): int(line.get_attribute("data-xp"))
             for line in by_id(panel, "xp-line").all()}
    assert lines["played"] == 10 and sum(lines.values()) == match["xp"]
    assert ("won_match" in lines) == match["won"]
    if check:
        check("match-end")
    shot(page, artifacts, f"xp-{name}")

    # back in the lobby: the level and XP
    by_id(page, "back-to-lobby").click()
    expect(by_id(page, "lobby-level")).to_have_attribute("data-xp", str(match["xp"]))

    # the player's page: the match in the history, then the claim
    by_id(page, "lobby-account").locator('[data-testid="profile-link"]').click()
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "profile")
    expect(by_id(page, "profile")).to_have_attribute("data-guest", "true")
    expect(by_id(page, "history-match", code=code)).to_have_count(1)
    expect(by_id(page, "profile-rating")).to_have_text("—")
    if check:
        check("profile-guest")
    claim(page, "x")  # too short: the server's typed error
    expect(by_id(page, "account-error")).to_have_attribute("data-code", "bad_request")
    claim(page, name)
    expect(by_id(page, "profile")).to_have_attribute("data-username", name)
    expect(by_id(page, "profile")).to_have_attribute("data-guest", "false")
    expect(by_id(page, "account-error")).to_be_hidden()
    expect(by_id(page, "history-match", code=code)).to_have_attribute("data-xp", str(match["xp"]))
    assert me(page)["id"] == guest["id"]
    if check:
        check("profile-account")
    shot(page, artifacts, f"profile-{name}")

    # the match's page from the history
    by_id(page, "history-match", code=code).locator("a").click()
    replay_flow(page, code)
    if check:
        check("match")
    shot(page, artifacts, f"match-{name}")
    return code


def test_a_guest_plays_claims_an_account_and_replays_the_match(
        server_factory: Callable[..., ServerProcess], contexts: Any, artifacts: Path) -> None:
    server = server_factory(**FAST_HASH)
    page = named_context(contexts, "Gia").new_page()
    guest_to_account(page, server, artifacts, "Gia")

    # log out, a wrong password (typed error), then in again: the same player
    page.goto(server.url + "/me")
    by_id(page, "logout").click()
    expect(by_id(page, "profile")).to_have_attribute("data-guest", "true")
    by_id(page, "login-username").fill("Gia")
    by_id(page, "login-password").fill("not the password")
    by_id(page, "login-submit").click()
    expect(by_id(page, "account-error")).to_have_attribute("data-code", "bad_login")
    expect(by_id(page, "account-error")).to_have_text("Wrong username or password.")
    by_id(page, "login-password").fill(PASSWORD)
    by_id(page, "login-submit").click()
    expect(by_id(page, "profile")).to_have_attribute("data-username", "Gia")
    expect(by_id(page, "history-match")).to_have_count(1)
    # the public profile shows the same, to anyone
    other = contexts().new_page()
    other.goto(server.url + "/players/gia")
    expect(by_id(other, "profile")).to_have_attribute("data-username", "Gia")
    expect(by_id(other, "history-match")).to_have_count(1)
    expect(by_id(other, "account-panel")).to_have_count(0)
    other.goto(server.url + "/players/nobody_here")
    expect(by_id(other, "page-error")).to_have_attribute("data-code", "not_found")


def test_the_history_pages_with_more(server_factory: Callable[..., ServerProcess],
                                     contexts: Any) -> None:
    """Eleven matches: the first page holds ten, "More matches" brings the last."""
    server = server_factory()
    page = named_context(contexts, "Pia").new_page()
    page.goto(server.url + "/")
    expect(by_id(page, "lobby-account")).to_have_attribute("data-guest", "true")
    codes = [play_a_match(page, server) for _ in range(11)]
    page.goto(server.url + "/me")
    expect(by_id(page, "history-match")).to_have_count(10)
    first = [m.get_attribute("data-code") for m in by_id(page, "history-match").all()]
    by_id(page, "history-more").press("Enter")
    expect(by_id(page, "history-match")).to_have_count(11)
    expect(by_id(page, "history-more")).to_have_count(0)
    shown = [m.get_attribute("data-code") for m in by_id(page, "history-match").all()]
    assert shown[:10] == first and sorted(shown) == sorted(codes)
    assert shown[10] == codes[0]  # newest first: the first match comes last


def test_the_flow_in_russian(server_factory: Callable[..., ServerProcess], contexts: Any,
                             artifacts: Path) -> None:
    server = server_factory(**FAST_HASH)
    page = named_context(contexts, "Ира", locale="ru-RU").new_page()
    ru = catalogue("ru", "web")

    def said(msgid: str) -> str:
        text = ru.get(msgid)
        return text if isinstance(text, str) and text else msgid

    def check(where: str) -> None:
        assert page.evaluate("() => document.documentElement.lang") == "ru"
        if where == "profile-guest":
            expect(page.locator("#history-title")).to_have_text(said("Recent matches"))
            # the result's tag keeps its style in every language
            tag = page.locator('[data-testid="history-match"] .tag')
            won = tag.get_attribute("class") == "tag result-won"
            expect(tag).to_have_class("tag result-" + ("won" if won else "lost"))
            expect(tag).to_have_text(said("won" if won else "lost"))

    guest_to_account(page, server, artifacts, "Ira", query="?lang=ru", check=check)
    # the server's own error texts come in the page's language
    page.goto(server.url + "/me?lang=ru")
    by_id(page, "password-password").fill(PASSWORD)
    by_id(page, "password-new_password").fill("short")
    by_id(page, "password-submit").click()
    error = by_id(page, "account-error")
    expect(error).to_have_attribute("data-code", "bad_request")
    expect(error).to_have_text(render("ru", "{name}: {least} to {most} characters",
                                      {"name": "new_password", "least": 8, "most": 256}))


def test_axe_finds_nothing_serious_on_the_new_pages(
        server_factory: Callable[..., ServerProcess], contexts: Any, artifacts: Path) -> None:
    server = server_factory(**FAST_HASH)
    page = named_context(contexts, "Axe", reduced_motion="reduce", bypass_csp=True).new_page()
    found: list[dict[str, Any]] = []
    guest_to_account(page, server, artifacts, "Axel",
                     check=lambda where: found.extend(axe_violations(page, where)))
    page.goto(server.url + "/players/axel")
    expect(by_id(page, "history-match")).to_have_count(1)
    found += axe_violations(page, "public-profile")
    assert not found, f"{len(found)} serious or critical axe violations: " + "; ".join(
        f"{v['screen']}: {v['id']} ({v['impact']}) at "
        f"{[n['target'] for n in v['nodes']]}" for v in found)


def test_the_account_panel_manages_the_account(
        server_factory: Callable[..., ServerProcess], contexts: Any) -> None:
    """Claim, a name taken, the export, a password change, log out everywhere, log in
    with the new password, and the deletion (after which the page is a new guest's)."""
    server = server_factory(**FAST_HASH)
    rival = contexts().new_page()
    rival.goto(server.url + "/me")
    claim(rival, "Taken")
    expect(by_id(rival, "profile")).to_have_attribute("data-username", "Taken")

    page = contexts().new_page()
    page.goto(server.url + "/me")
    expect(by_id(page, "profile")).to_have_attribute("data-guest", "true")
    expect(by_id(page, "history-empty")).to_be_visible()
    first = me(page)["id"]
    claim(page, "taken")  # names are unique without regard to case
    expect(by_id(page, "account-error")).to_have_attribute("data-code", "name_taken")
    claim(page, "Owner")
    expect(by_id(page, "profile")).to_have_attribute("data-username", "Owner")
    exported = page.request.get(server.url + "/api/account/export")
    assert exported.ok and '"Owner"' in exported.text() and "password" not in exported.text()

    by_id(page, "password-password").fill(PASSWORD)
    by_id(page, "password-new_password").fill("a new long password")
    by_id(page, "password-submit").click()
    # the claim's words are still there: wait for the change's own
    expect(by_id(page, "account-status")).to_have_text(
        "The password is changed. Your other devices are signed out.")
    expect(by_id(page, "account-error")).to_be_hidden()
    by_id(page, "logout-all").click()
    expect(by_id(page, "profile")).to_have_attribute("data-guest", "true")
    by_id(page, "login-username").fill("owner")
    by_id(page, "login-password").fill(PASSWORD)  # the old one no longer works
    by_id(page, "login-submit").click()
    expect(by_id(page, "account-error")).to_have_attribute("data-code", "bad_login")
    by_id(page, "login-password").fill("a new long password")
    by_id(page, "login-submit").press("Enter")
    expect(by_id(page, "profile")).to_have_attribute("data-username", "Owner")
    assert me(page)["id"] == first

    by_id(page, "delete-password").fill("a new long password")
    by_id(page, "delete-sure").check()
    by_id(page, "delete-submit").click()
    expect(by_id(page, "profile")).to_have_attribute("data-guest", "true")
    assert me(page)["id"] != first
    rival.goto(server.url + "/players/owner")
    expect(by_id(rival, "page-error")).to_have_attribute("data-code", "not_found")
