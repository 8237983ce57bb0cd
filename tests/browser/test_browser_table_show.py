"""A table that shows the game, on desktop Chromium and a 360x640 phone: the opponents
sit around the table in play order from the page's seat, with the direction drawn and
the next seat marked, as the engine has them; a card flies from the seat that played it
to the pile (none under prefers-reduced-motion); the UNO button invites the call at two
cards; the mute is remembered across a reload and every sound cue is recorded; a turn
that comes while the tab is hidden flashes the tab's title.

What the page did besides drawing is read from its effects layer
(``[data-testid="table-fx"]``: data-flights, data-last-cue, data-cue-sound,
data-last-notice, data-notice-via) and from a MutationObserver that records each card in
flight as it is added to that layer (where it starts, where it lands, its animations).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from browser_client import SyncClient
from browser_flow import animations_done, by_id, enter_room, start_at_my_turn
from browser_server import ServerProcess
from browser_table import (
    Player,
    any_on,
    my_seat,
    my_turn,
    play_until,
    shot,
    state,
    wait_js,
)
from playwright.sync_api import expect
from test_browser_phone import PHONE, SMALL_TARGETS_JS, TOUCH

pytestmark = pytest.mark.xdist_group("browser")

FOUR = "official,players=4,rounds=1"

RECORD_FLIGHTS_JS = r"""
(() => {
  // every card put in flight: what it is, where it starts (its box as the animation
  // begins), where it lands (the box it is placed at), the seat tiles and the pile then
  const seen = window.__flights = [];
  const box = (el) => { if (!el) return null; const b = el.getBoundingClientRect();
                        return {left: b.left, top: b.top, right: b.right, bottom: b.bottom}; };
  new MutationObserver((records) => {
    for (const r of records) for (const node of r.addedNodes) {
      if (!(node instanceof HTMLElement) || !node.classList.contains('flight')) continue;
      const tiles = {};
      for (const t of document.querySelectorAll('[data-testid="opponent"]')) {
        tiles[t.dataset.seat] = box(t);
      }
      seen.push({what: node.dataset.flight, start: box(node),
                 land: {left: parseFloat(node.style.left), top: parseFloat(node.style.top)},
                 animations: node.getAnimations().length, tiles,
                 pile: box(document.querySelector('[data-testid="top-card"]')),
                 hand: box(document.querySelector('[data-testid="hand"]')),
                 drawPile: box(document.querySelector('[data-testid="draw-pile"] .card'))});
    }
  }).observe(document, {childList: true, subtree: true});
})();
"""
"""An init script: records the flights in ``window.__flights`` (test code, watching the
page's DOM)."""

AROUND_JS = r"""
() => {
  const around = document.querySelector('[data-testid="around"]');
  const pile = document.querySelector('[data-testid="top-card"]').getBoundingClientRect();
  const cx = (pile.left + pile.right) / 2, cy = (pile.top + pile.bottom) / 2;
  const tiles = [...document.querySelectorAll('[data-testid="opponent"]')].map((t) => {
    const b = t.getBoundingClientRect();
    return {seat: Number(t.dataset.seat), place: t.dataset.place, next: t.dataset.next === 'true',
            current: t.dataset.current === 'true',
            // the angle around the pile, clockwise from straight down (where you sit)
            angle: (Math.atan2((b.top + b.bottom) / 2 - cy, (b.left + b.right) / 2 - cx)
                    * 180 / Math.PI - 90 + 720) % 360};
  });
  const num = (v) => (v === undefined ? null : Number(v));
  return {tiles, direction: around.dataset.direction, next: num(around.dataset.next),
          lead: num(around.dataset.lead),
          ring: document.querySelector('[data-testid="direction-ring"]').dataset.direction,
          label: document.querySelector('[data-testid="direction"]').dataset.direction};
}
"""

FX_JS = "() => ({...document.querySelector('[data-testid=\"table-fx\"]').dataset})"


def _fx(page: Any) -> dict[str, str]:
    return dict(page.evaluate(FX_JS))


def _engine_next(view: dict[str, Any]) -> int:
    """The seat after the current one in the engine's direction, over the active seats."""
    n = len(view["hand_sizes"])
    step = 1 if view["direction"] == "cw" else -1
    seat = view["current_player"]
    for _ in range(n):
        seat = (seat + step) % n
        if view["active"][seat]:
            return int(seat)
    raise AssertionError(f"no next seat in {view}")


def _watch(server: ServerProcess, code: str, watchers: list[SyncClient]) -> None:
    watchers.append(SyncClient.join(server.url, code, name="Watcher", spectate=True))


def _check_around(page: Any, watcher: SyncClient, *, phone: bool = False) -> dict[str, Any]:
    """The page's table against the engine's view (the page's turn: the engine waits).
    On a desktop the three opponents sit on your left, across and on your right; on a
    phone they sit in a row above the centre, left to right in play order."""
    st = state(page)
    me = my_seat(st)
    view = watcher.run(watcher.c.snapshot())
    assert view is not None
    assert view["current_player"] == me, (view["current_player"], me)
    n = len(view["hand_sizes"])
    around = page.evaluate(AROUND_JS)
    seats = [t["seat"] for t in around["tiles"]]
    assert seats == [(me + i) % n for i in range(1, n)], (me, seats)
    assert [t["place"] for t in around["tiles"]] == ["left", "top", "right"], around
    # around the pile clockwise from your seat, in play order
    angles = [t["angle"] for t in around["tiles"]]
    assert angles == sorted(angles), around
    sides = [(90, 270)] * 3 if phone else [(45, 135), (135, 225), (225, 315)]
    assert all(low < a < high for a, (low, high) in zip(angles, sides, strict=True)), around
    assert around["direction"] == around["ring"] == around["label"] == view["direction"], around
    assert around["lead"] == me
    expected = _engine_next(view)
    assert around["next"] == expected, (around, view["direction"])
    assert [t["seat"] for t in around["tiles"] if t["next"]] == [expected], around
    assert not any(t["current"] for t in around["tiles"]), around
    return around


def test_opponents_sit_around_in_play_order_and_a_card_flies_from_a_seat_to_the_pile(
        server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    context = contexts()
    context.add_init_script(RECORD_FLIGHTS_JS)
    page = context.new_page()
    watchers: list[SyncClient] = []
    try:
        start_at_my_turn(page, server, FOUR, bots=["normal"] * 3,
                         before_start=lambda code: _watch(server, code, watchers))
        watcher = watchers[-1]
        shot(page, artifacts, "table-show-around")
        checked = 0
        for _ in range(3):
            _check_around(page, watcher)
            checked += 1
            before = state(page)["seq"]
            states = play_until([Player(page)], lambda sts, before=before: any_on(
                "round-end", "match-end")(sts) or (my_turn(sts) and sts[0]["seq"] > before))
            if not my_turn(states):
                break
        assert checked >= 1
        flights = page.evaluate("() => window.__flights")
        fx = _fx(page)
        assert int(fx["flights"]) == len(flights) > 0, fx
        me = my_seat(state(page)) if state(page)["opponents"] else None
        plays = [f for f in flights if f["what"].startswith("play ")
                 and f["what"].split()[1] != str(me)]
        assert plays, f"no card flew from a bot's seat: {[f['what'] for f in flights]}"
        for flight in plays:
            seat = flight["what"].split()[1]
            tile, start, pile = flight["tiles"][seat], flight["start"], flight["pile"]
            middle = ((start["left"] + start["right"]) / 2, (start["top"] + start["bottom"]) / 2)
            assert tile["left"] <= middle[0] <= tile["right"], flight
            assert tile["top"] <= middle[1] <= tile["bottom"], flight
            assert math.isclose(flight["land"]["left"], pile["left"], abs_tol=1)
            assert math.isclose(flight["land"]["top"], pile["top"], abs_tol=1)
            assert flight["animations"] == 1, flight
        draws = [f for f in flights if f["what"].startswith(("draw ", "deal "))]
        assert draws, "no card came from the draw pile"
        for flight in draws:
            seat = flight["what"].split()[1]
            start, pile = flight["start"], flight["drawPile"]
            assert math.isclose(start["left"], pile["left"], abs_tol=1), flight
            assert math.isclose(start["top"], pile["top"], abs_tol=1), flight
            land = flight["land"]
            into = flight["hand"] if seat == str(me) else flight["tiles"][seat]
            assert into["left"] - 1 <= land["left"] <= into["right"], (flight, into)
            assert into["top"] - 1 <= land["top"] <= into["bottom"], (flight, into)
        # the layer never takes a pointer
        assert page.evaluate("() => getComputedStyle(document.querySelector("
                             "'[data-testid=\"table-fx\"]')).pointerEvents") == "none"
    finally:
        for watcher in watchers:
            watcher.close()


def test_no_card_flies_and_nothing_glows_under_reduced_motion(
        server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    context = contexts(reduced_motion="reduce")
    context.add_init_script(RECORD_FLIGHTS_JS)
    page = context.new_page()
    start_at_my_turn(page, server, "official,players=2,rounds=1", bots=["normal"])
    # "Your turn" shows without its glow (start_at_my_turn ends at the page's turn)
    assert my_turn([state(page)])
    assert page.evaluate(ANIMATION_OF_JS, "your-turn") == "none"
    shot(page, artifacts, "table-show-reduced-motion")
    # the page plays or draws and the bot answers, twice (or the round ends first, when
    # the bot's Skips and Draw Twos let it go out): still nothing moved
    for _ in range(2):
        before = state(page)["seq"]
        states = play_until([Player(page)], lambda sts, before=before: any_on(
            "round-end", "match-end")(sts) or (my_turn(sts) and sts[0]["seq"] > before + 1))
        if not my_turn(states):
            break
    log = page.evaluate(LOG_KINDS_JS)
    assert "dealt" in log and {"played", "drew"} & set(log), log
    assert page.evaluate("() => window.__flights") == []
    assert _fx(page)["flights"] == "0"
    assert page.evaluate("() => document.getAnimations().length") == 0


LOG_KINDS_JS = "() => [...document.querySelectorAll('[data-testid=\"log-line\"]')]" \
    ".map((l) => l.dataset.kind)"
ANIMATION_OF_JS = "(id) => getComputedStyle(document.querySelector(" \
    "`[data-testid=\"${id}\"]`)).animationName"


def _two_cards_to_play(states: list[dict[str, Any]]) -> bool:
    st = states[0]
    return my_turn(states) and len(st["hand"]) == 2 and any(c["playable"] for c in st["hand"])


def test_the_uno_button_invites_the_call_at_two_cards(
        server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    page = contexts().new_page()
    seen: list[tuple[int, str | None]] = []

    def note(_player: Player, st: dict[str, Any]) -> None:
        if st["screen"] == "table" and st["my_turn"] and not st["picker"]:
            seen.append((len(st["hand"]), by_id(page, "uno-button").get_attribute("data-invite")))

    for _ in range(5):  # a bot may go out first: a new room, a new deal
        start_at_my_turn(page, server, "official,players=2,rounds=1,hand_size=3", bots=["normal"])
        states = play_until([Player(page, call_uno=False)], lambda sts: _two_cards_to_play(sts)
                            or any_on("round-end", "match-end")(sts), on_state=note)
        if _two_cards_to_play(states):
            break
    else:
        raise AssertionError("never at the page's turn with two cards, one playable")
    uno = by_id(page, "uno-button")
    expect(uno).to_have_attribute("data-invite", "true")
    expect(uno).to_be_enabled()
    assert "invite" in (uno.get_attribute("class") or "")
    assert page.evaluate(ANIMATION_OF_JS, "uno-button") == "invite"
    shot(page, artifacts, "table-show-uno-invite")
    # no invite at a turn with another count of cards
    assert [n for n, invite in seen if invite == "true" and n != 2] == [], seen
    assert any(n != 2 and invite is None for n, invite in seen), seen
    # pressed, the call is armed and the invite gives way
    uno.click()
    expect(uno).to_have_attribute("aria-pressed", "true")
    expect(uno).not_to_have_attribute("data-invite", "true")


def test_the_mute_is_remembered_and_every_cue_is_recorded(
        server: ServerProcess, contexts: Any) -> None:
    page = contexts().new_page()
    start_at_my_turn(page, server, FOUR, bots=["normal"] * 3)
    # the clicks so far unlocked the audio: the turn's cue sounded
    wait_js(page, "() => document.querySelector('[data-testid=\"table-fx\"]').dataset.lastCue"
            " === 'turn'", what="the turn cue")
    assert _fx(page)["cueSound"] == "sound", _fx(page)
    mute = by_id(page, "mute-button")
    expect(mute).to_have_attribute("aria-pressed", "false")
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    page.reload()
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "table")
    expect(by_id(page, "mute-button")).to_have_attribute("aria-pressed", "true")
    # the next turn's cue is recorded, muted
    cues = int(_fx(page)["cues"])

    def turn_cue(sts: list[dict[str, Any]]) -> bool:
        fx = _fx(page)
        return (my_turn(sts) and int(fx["cues"]) > cues and fx["lastCue"] == "turn") \
            or any_on("round-end", "match-end")(sts)

    play_until([Player(page)], turn_cue)
    fx = _fx(page)
    assert fx["lastCue"] == "turn" and fx["cueSound"] == "muted", fx
    # unmuted again, and remembered so
    by_id(page, "mute-button").click()
    expect(by_id(page, "mute-button")).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("() => localStorage.getItem('unokit.muted')") == "0"


HIDE_JS = r"""
(hidden) => {
  Object.defineProperty(document, 'hidden', {configurable: true, get: () => hidden});
  Object.defineProperty(document, 'visibilityState', {configurable: true,
                        get: () => (hidden ? 'hidden' : 'visible')});
  document.dispatchEvent(new Event('visibilitychange'));
}
"""
"""Makes the page's document say it is hidden (or seen again), as a tab left for another
does, and tells the page so."""


def test_a_turn_that_comes_while_the_tab_is_hidden_flashes_the_title(
        server: ServerProcess, contexts: Any) -> None:
    page = contexts().new_page()
    start_at_my_turn(page, server, FOUR, bots=["normal"] * 3)
    assert "lastNotice" not in _fx(page), "no notice while the tab is seen"
    page.evaluate(HIDE_JS, True)  # the player leaves the tab, then the turn goes round

    def noticed(sts: list[dict[str, Any]]) -> bool:
        return "lastNotice" in _fx(page) or any_on("round-end", "match-end")(sts)

    play_until([Player(page)], noticed)
    fx = _fx(page)
    assert fx["lastNotice"] == "turn" and fx["noticeVia"] == "title", fx
    assert fx["titleFlash"] == "true", fx
    assert page.title().startswith("●"), page.title()
    page.evaluate(HIDE_JS, False)
    assert _fx(page)["titleFlash"] == "false"


def test_on_a_phone_the_table_shows_the_seats_around_and_every_control_is_a_touch_target(
        server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    context = contexts(**PHONE)
    context.add_init_script(RECORD_FLIGHTS_JS)
    page = context.new_page()
    watchers: list[SyncClient] = []
    try:
        start_at_my_turn(page, server, FOUR, bots=["normal"] * 3,
                         before_start=lambda code: _watch(server, code, watchers))
        animations_done(page)
        _check_around(page, watchers[-1], phone=True)
        page.screenshot(path=str(artifacts / "phone-table-show.png"))
        # every tile and the centre in view, nothing wider than the screen
        assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
        outside = page.evaluate(
            "() => [...document.querySelectorAll('[data-testid=\"opponent\"], "
            "[data-testid=\"top-card\"], [data-testid=\"uno-button\"], "
            "[data-testid=\"mute-button\"]')].filter((el) => { const b = "
            "el.getBoundingClientRect(); return b.left < 0 || b.right > innerWidth "
            "|| b.top < 0 || b.bottom > innerHeight; }).map((el) => el.dataset.testid)")
        assert outside == [], outside
        assert page.evaluate(SMALL_TARGETS_JS, TOUCH) == []
        # the turn goes round: a card flew from a bot's seat to the pile on the phone too
        before = state(page)["seq"]
        play_until([Player(page, "tap")], lambda sts: any_on("round-end", "match-end")(sts)
                   or (my_turn(sts) and sts[0]["seq"] > before + 2))
        flights = page.evaluate("() => window.__flights")
        assert any(f["what"].startswith("play ") for f in flights), flights
    finally:
        for watcher in watchers:
            watcher.close()


def test_a_friend_joining_while_the_tab_is_hidden_is_a_system_notification(
        server: ServerProcess, contexts: Any) -> None:
    host_context = contexts()
    host_context.grant_permissions(["notifications"])
    host = host_context.new_page()
    code = server.create_room("official,players=3", bots=["normal"])
    enter_room(host, server, code)
    notify = by_id(host, "notify-button")
    expect(notify).to_have_attribute("aria-pressed", "false")
    notify.click()  # the permission is granted already: the button turns on
    expect(notify).to_have_attribute("aria-pressed", "true")
    host.evaluate(HIDE_JS, True)
    friend = contexts().new_page()
    enter_room(friend, server, code)
    wait_js(host, "() => document.querySelector('[data-testid=\"table-fx\"]')"
            ".dataset.lastNotice === 'join'", what="the join notice")
    assert _fx(host)["noticeVia"] == "notification", _fx(host)
    assert "lastNotice" not in _fx(friend), "the friend's own joining is no notice to them"
    host.reload()
    expect(by_id(host, "notify-button")).to_have_attribute("aria-pressed", "true")
