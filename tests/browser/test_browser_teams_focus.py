"""Teams you can see, and a table for the keyboard and screen readers, in real Chromium.

A 2-vs-2 pairs match with three bots marks the partners on the seat tiles (the same team
mark on both, "partner" on the page's own), adds the teams' totals to the scores and says
"Your team wins ..." or "Your team loses ..." on the round and match end. Played by the
keyboard alone, no game event leaves the focus on ``<body>``. The keyboard's focus ring
is not the playable cards' ring (computed styles compared). After a language switch the
screen reader's announcer speaks the new language. A player the host kicks while the
page is in Russian forgets the seat token: the next visit does not send it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from browser_flow import by_id, enter_room, named_context, seats_filled, start_at_my_turn
from browser_server import ServerProcess
from browser_table import Player, any_on, my_turn, play_until, shot, tab_to
from playwright.sync_api import expect

pytestmark = pytest.mark.xdist_group("browser")

PAIRS = "pairs,rounds=2,hand_size=3"
"""Two teams of two (seats 0 and 2, seats 1 and 3), two short rounds."""
BOTS = ["normal"] * 3
CYRILLIC = re.compile("[\u0400-\u04ff]")


def winner_of_round(page: Any) -> int:
    won = page.locator('[data-testid="round-hand"].won')
    expect(won).to_have_count(1)
    return int(won.get_attribute("data-seat"))


def check_end(page: Any, what: str, winner: int) -> None:
    """The end screen's team line and team totals (the page sits at seat 0; its partner,
    seat 2, is "Bot 3")."""
    line = by_id(page, "team-line", what=what)
    expected = (f"Your team wins the {what} with Bot 3." if winner in (0, 2)
                else f"Your team loses the {what}.")
    expect(line).to_have_text(expected)
    teams = by_id(page, "team-score")
    expect(teams).to_have_count(2)
    points = {int(s.get_attribute("data-seat")): int(s.get_attribute("data-points"))
              for s in page.locator('[data-testid="score"]').all()}
    totals = [int(t.get_attribute("data-points")) for t in teams.all()]
    assert totals == [max(points[0], points[2]), max(points[1], points[3])], (totals, points)
    # partners on the end screen: each hand's row carries its team's mark
    for seat, team in ((0, 0), (1, 1), (2, 0), (3, 1)):
        expect(by_id(page, "round-hand", seat=str(seat)).locator('[data-testid="team-mark"]')
               ).to_have_attribute("data-team", str(team))


def test_a_pairs_match_shows_partners_scores_and_your_team(server: ServerProcess,
                                                          contexts: Any,
                                                          artifacts: Path) -> None:
    page = named_context(contexts, "Ann").new_page()
    page.goto(server.url + "/")
    # the lobby says what "Play now" is: the seeds' 2-vs-2 match to 100
    expect(by_id(page, "play-now-explained")).to_contain_text("two pairs")
    expect(by_id(page, "play-now-explained")).to_contain_text("100")

    def room_marks(_code: str) -> None:
        # the room's seat tiles show the teams before the match
        for seat, team in ((0, 0), (1, 1), (2, 0), (3, 1)):
            expect(by_id(page, "seat", seat=str(seat)).locator('[data-testid="team-mark"]')
                   ).to_have_attribute("data-team", str(team))
        expect(by_id(page, "seat", seat="2").locator('[data-testid="partner-tag"]')
               ).to_have_count(1)

    start_at_my_turn(page, server, PAIRS, bots=BOTS, before_start=room_marks)
    for seat, team in ((1, 1), (2, 0), (3, 1)):
        mark = by_id(page, "opponent", seat=str(seat)).locator('[data-testid="team-mark"]')
        expect(mark).to_have_attribute("data-team", str(team))
    expect(by_id(page, "partner-tag")).to_have_count(1)
    expect(by_id(page, "opponent", seat="2").locator('[data-testid="partner-tag"]')
           ).to_have_count(1)
    expect(page.locator('.me [data-testid="team-mark"]')).to_have_attribute("data-team", "0")
    # a screen reader hears the team in the seat's name
    expect(by_id(page, "opponent", seat="2")).to_have_attribute(
        "aria-label", re.compile(r"^Bot 3, Team 1, partner, "))
    expect(by_id(page, "opponent", seat="1")).to_have_attribute(
        "aria-label", re.compile(r"^Bot 2, Team 2, "))
    expect(by_id(page, "team-score")).to_have_count(2)
    expect(by_id(page, "team-score", team="0")).to_have_attribute("data-mine", "true")
    shot(page, artifacts, "teams-table")

    play_until([Player(page)], any_on("round-end", "match-end"))
    if by_id(page, "screen").get_attribute("data-screen") == "round-end":
        check_end(page, "round", winner_of_round(page))
        shot(page, artifacts, "teams-round-end")
        play_until([Player(page)], any_on("match-end"))
    winner = int(by_id(page, "winner").get_attribute("data-seat"))
    check_end(page, "match", winner)
    shot(page, artifacts, "teams-match-end")


WATCH_FOCUS_JS = r"""
() => {
  // after every batch of changes that adds a log line (a game event), where the focus is
  const seen = window.__focusWatch = {events: 0, lost: []};
  new MutationObserver((records) => {
    const events = records.some((r) => [...r.addedNodes].some((n) => n.nodeType === 1
      && (n.matches('[data-testid="log-line"]') || n.querySelector('[data-testid="log-line"]'))));
    const screen = document.querySelector('[data-testid="screen"]');
    if (!events) return;
    seen.events += 1;
    if (!document.activeElement || document.activeElement === document.body) {
      seen.lost.push(screen ? screen.dataset.screen : null);
    }
  }).observe(document.getElementById('app'), {childList: true, subtree: true});
  return true;
}
"""


def test_keyboard_play_never_leaves_the_focus_on_body(server: ServerProcess, contexts: Any,
                                                      artifacts: Path) -> None:
    page = named_context(contexts, "Kim").new_page()
    code = server.create_room(PAIRS, bots=BOTS)
    enter_room(page, server, code)
    seats_filled(page, 4)
    tab_to(page, '[data-testid="start-match"]')
    assert page.evaluate(WATCH_FOCUS_JS)
    page.keyboard.press("Enter")
    expect(by_id(page, "screen")).not_to_have_attribute("data-screen", "room")

    def focused(_player: Player, st: dict[str, Any]) -> None:
        where = page.evaluate("() => document.activeElement === document.body ? null : "
                              "(document.activeElement.dataset.testid || "
                              "document.activeElement.tagName)")
        assert where is not None, f"the focus is on <body> on the {st['screen']} screen"

    player = Player(page, "keys")
    play_until([player], any_on("match-end"), on_state=focused)
    watch = page.evaluate("() => window.__focusWatch")
    assert watch["events"] > 0, "no game event was seen"
    assert watch["lost"] == [], f"the focus fell to <body> after events on {watch['lost']}"
    assert any(a.startswith("play ") for a in player.actions), player.actions
    shot(page, artifacts, "teams-keyboard-match-end")


RING_JS = r"""
(card) => {
  const el = document.querySelector(
    `[data-testid="hand"] [data-testid="card"][data-card="${card}"]`);
  const s = getComputedStyle(el);
  return {outline: s.outlineStyle, outlineColor: s.outlineColor, outlineWidth: s.outlineWidth,
          shadow: s.boxShadow, focused: document.activeElement === el,
          visible: el.matches(':focus-visible')};
}
"""


def _rgb(text: str) -> tuple[int, ...]:
    found = re.search(r"rgba?\((\d+), (\d+), (\d+)", text)
    assert found, text
    return tuple(int(found.group(i)) for i in (1, 2, 3))


def test_the_focus_ring_is_not_the_playable_ring(server: ServerProcess, contexts: Any,
                                                 artifacts: Path) -> None:
    page = named_context(contexts, "Fay", reduced_motion="reduce").new_page()
    start_at_my_turn(page, server, "official,players=2", bots=["normal"])
    playable = lambda states: my_turn(states) and any(  # noqa: E731
        c["playable"] for c in states[0]["hand"])
    states = play_until([Player(page)], playable)
    card = next(c["card"] for c in states[0]["hand"] if c["playable"])
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    before = page.evaluate(RING_JS, card)
    assert not before["focused"] and before["outline"] == "none", before
    # the arrow key focuses the first playable card: a keyboard focus (:focus-visible)
    page.keyboard.press("ArrowRight")
    card = page.evaluate("() => document.activeElement.dataset.card")
    after = page.evaluate(RING_JS, card)
    assert after["focused"] and after["visible"], after
    ring = _rgb(before["shadow"])  # the playable ring: a solid gold box-shadow
    focus = _rgb(after["outlineColor"])
    distance = sum((a - b) ** 2 for a, b in zip(ring, focus, strict=True)) ** 0.5
    assert distance > 120, f"the focus ring {focus} looks like the playable ring {ring}"
    assert after["outline"] not in ("none", "solid"), after  # another shape: dashed
    assert float(after["outlineWidth"].removesuffix("px")) >= 3, after
    # a plain button's focus ring is the same dashed one
    tab_to(page, '[data-testid="chat-send"]')
    button = page.evaluate("() => { const s = getComputedStyle(document.activeElement); "
                           "return [s.outlineStyle, s.outlineColor]; }")
    assert button[0] == after["outline"] and _rgb(button[1]) == focus, button
    shot(page, artifacts, "focus-ring")


def test_the_announcer_speaks_the_new_language_after_a_switch(server: ServerProcess,
                                                              contexts: Any) -> None:
    page = named_context(contexts, "Lev").new_page()
    start_at_my_turn(page, server, "official,players=2,hand_size=3", bots=["normal"])
    announcer = by_id(page, "announcer")
    last_line = page.locator('[data-testid="log-line"]').last
    english = announcer.text_content()
    assert english and english == last_line.text_content(), (english, last_line.text_content())
    by_id(page, "lang-switch").select_option("ru")
    expect(page.locator("html")).to_have_attribute("lang", "ru")
    expect(announcer).not_to_have_text(english)
    said = announcer.text_content() or ""
    assert CYRILLIC.search(said), said
    assert said == last_line.text_content(), "the last event, said again in Russian"


def test_a_player_kicked_in_russian_forgets_the_seat_token(server: ServerProcess,
                                                           contexts: Any) -> None:
    code = server.create_room("official,players=3")
    host = named_context(contexts, "Ann").new_page()
    enter_room(host, server, code)
    expect(by_id(host, "seat", seat="0")).to_have_attribute("data-host", "true")
    guest = named_context(contexts, "Борис", locale="ru-RU").new_page()
    enter_room(guest, server, code)
    expect(guest.locator("html")).to_have_attribute("lang", "ru")
    key = f"unokit.token.{code}"
    expect(by_id(host, "seat", seat="1")).to_have_attribute("data-kind", "human")
    token = guest.evaluate("(k) => localStorage.getItem(k)", key)
    assert token, "the seat's token is kept while the seat is the guest's"

    by_id(host, "kick", seat="1").click()
    # the page goes back to the lobby and the dead token is forgotten
    expect(by_id(guest, "screen")).to_have_attribute("data-screen", "lobby")
    guest.wait_for_function("(k) => localStorage.getItem(k) === null", arg=key)

    hellos: list[dict[str, Any]] = []

    def watch(ws: Any) -> None:
        def sent(payload: Any) -> None:
            msg = json.loads(payload) if isinstance(payload, str) else {}
            if msg.get("type") == "hello":
                hellos.append(msg)
        ws.on("framesent", sent)

    guest.on("websocket", watch)
    enter_room(guest, server, code)
    expect(by_id(guest, "seat", seat="1")).to_have_attribute("data-you", "true")
    assert hellos, "the next visit said hello"
    assert all("token" not in h for h in hellos), hellos
