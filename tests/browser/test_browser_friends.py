"""Two friends and a bot in real Chromium: they come by the invite link and choose their
names (one renames), chat in the room, play a short match and see the countdown to the
next round; the host's "Play again" starts a rematch in the same room (the first match
kept and replayable under CODE-1); in the rematch a turn timer the whole table sees runs
out and the player it ran out for is told that a bot played for them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browser_flow import by_id, named_context, seats_filled, start_match
from browser_server import ServerProcess
from browser_table import Player, any_on, on, play_until, shot
from playwright.sync_api import expect

pytestmark = pytest.mark.xdist_group("browser")

RULES = "official,players=3,rounds=2,hand_size=3"
"""Two short rounds: a round end with its countdown, then the match end."""


def join_by_link(page: Any, server: ServerProcess, code: str, name: str) -> None:
    """Open the invite link, see the name form prefilled, join as ``name``."""
    page.goto(f"{server.url}/r/{code}")
    expect(by_id(page, "name-form")).to_be_visible()
    field = by_id(page, "join-name")
    expect(field).to_have_value(page.evaluate("localStorage.getItem('unokit.name')"))
    field.fill(name)
    by_id(page, "join-room").click()
    expect(by_id(page, "room-code")).to_have_text(code)
    expect(by_id(page, "connection-status")).to_have_attribute("data-state", "online")
    assert page.evaluate("localStorage.getItem('unokit.name')") == name  # remembered


def test_two_friends_rename_chat_play_and_rematch_in_one_room(
        server_factory: Any, contexts: Any, artifacts: Path) -> None:
    # the turn timer runs a tenth of its time (15 s: 1.5 s), the round pause is long
    server = server_factory(UNOKIT_TIMER_SCALE="0.1", UNOKIT_ROUND_PAUSE="300")
    code = server.create_room(RULES, bots=["easy"], turn_timer=0)
    ann = named_context(contexts, "Ann").new_page()
    bob = named_context(contexts, "Bob").new_page()
    join_by_link(ann, server, code, "Ann")
    shot(bob, artifacts, "friends-name-form")
    join_by_link(bob, server, code, "Bobby")
    seats_filled(ann, 3)
    expect(by_id(ann, "seat", seat="0")).to_have_attribute("data-host", "true")

    # Bob renames before the match; Ann sees the new name
    by_id(bob, "rename-open").click()
    by_id(bob, "rename-input").fill("Bob")
    by_id(bob, "rename").click()
    expect(by_id(ann, "seat", seat="2").locator(".seat-name")).to_contain_text("Bob")
    expect(by_id(ann, "seat", seat="2").locator(".seat-name")).not_to_contain_text("Bobby")
    assert server.get(f"/api/rooms/{code}")["seats"][2]["name"] == "Bob"

    # chat in the room before the match
    by_id(ann, "chat-input").fill("ready for a quick one?")
    by_id(ann, "chat-send").click()
    expect(by_id(bob, "chat-line")).to_contain_text("ready for a quick one?")
    expect(by_id(bob, "chat-line")).to_contain_text("Ann")
    shot(ann, artifacts, "friends-room-chat")
    first = by_id(ann, "fairness-commitment").get_attribute("data-commitment")

    start_match(ann)
    players = [Player(ann), Player(bob)]
    play_until(players, any_on("round-end"))
    # the countdown from the server's deadline (300 s of round pause), on both pages
    for page in (ann, bob):
        expect(by_id(page, "screen")).to_have_attribute("data-screen", "round-end")
        expect(by_id(page, "countdown")).to_be_visible()
        left = int(by_id(page, "countdown").get_attribute("data-left"))
        assert 0 < left <= 300
    shot(bob, artifacts, "friends-round-end-countdown")
    play_until(players, on("match-end"))
    shot(ann, artifacts, "friends-match-end")

    # the host's "Play again": a rematch in the same room, Bob waits for it
    expect(by_id(bob, "rematch-wait")).to_be_visible()
    by_id(ann, "play-again").click()
    for page in (ann, bob):
        expect(by_id(page, "screen")).to_have_attribute("data-screen", "room")
        expect(by_id(page, "room-code")).to_have_text(code)
        expect(by_id(page, "fairness-commitment")).not_to_have_attribute(
            "data-commitment", first)
    assert by_id(bob, "seat", seat="2").get_attribute("data-you") == "true"
    expect(by_id(ann, "seat", seat="1")).to_have_attribute("data-kind", "bot")
    kept = server.get(f"/api/rooms/{code}-1/record")
    assert kept["fairness"]["commitment"] == first and kept["fairness"]["server_seed"]
    room = server.get(f"/api/rooms/{code}")
    assert room["status"] == "lobby" and room["commitment"] != first
    shot(ann, artifacts, "friends-rematch-room")

    # the kept match's page: its deal checked, Ann's own contribution marked for her
    kept_page = ann.context.new_page()
    kept_page.goto(f"{server.url}/matches/{code}-1")
    expect(by_id(kept_page, "fair-check")).to_have_attribute("data-passed", "true")
    expect(by_id(kept_page, "contribution")).to_have_count(2)
    expect(by_id(kept_page, "contribution", seat="0")).to_have_attribute("data-mine", "true")
    expect(by_id(kept_page, "contribution", seat="2")).not_to_have_attribute("data-mine", "true")
    shot(kept_page, artifacts, "friends-kept-match")
    kept_page.close()

    # the rematch with a turn timer: everyone sees it; nobody acts, so it runs out
    ann.select_option('[data-testid="set-timer"]', "15")
    expect(by_id(bob, "screen")).to_contain_text("15")
    seats_filled(ann, 3)
    start_match(ann)
    timer = by_id(bob, "turn-timer")
    expect(timer).to_be_visible()
    lead = timer.get_attribute("data-seat")
    expect(by_id(ann, "turn-timer")).to_have_attribute("data-seat", lead)
    late = {"0": ann, "2": bob}.get(lead)
    if late is None:  # the bot leads: the next timer is a person's
        expect(timer).not_to_have_attribute("data-seat", "1")
        late = {"0": ann, "2": bob}[timer.get_attribute("data-seat")]
    expect(by_id(late, "autopilot")).to_be_visible(timeout=20_000)
    expect(by_id(late, "autopilot")).to_contain_text("a bot played for you")
    shot(late, artifacts, "friends-timed-out")


def test_play_now_deals_with_the_browsers_contribution(
        server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    page = named_context(contexts, "Ann").new_page()
    page.goto(server.url + "/")
    by_id(page, "name-input").fill("Ann")
    by_id(page, "play-now").click()
    expect(by_id(page, "screen")).to_have_attribute(
        "data-screen", _screens("table", "round-end", "match-end"))
    code = page.url.rstrip("/").rsplit("/", 1)[-1]
    mine = page.evaluate("JSON.parse(localStorage.getItem('unokit.contributions'))")
    assert len(mine) == 1 and mine[0]
    room = server.get(f"/api/rooms/{code}")
    you = [s for s in room["seats"] if s["kind"] == "human"]
    # the room started at once with the hello's contribution
    assert room["status"] == "playing" and len(you) == 1 and you[0]["contributed"]
    shot(page, artifacts, "friends-play-now")


def _screens(*names: str) -> re.Pattern[str]:
    return re.compile("^(" + "|".join(names) + ")$")
