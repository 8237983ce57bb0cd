"""Phones first, on a 360x640 touch screen: the host's Start button is in view when the
room opens, and after Start the table (top card, UNO button, "Your turn") is in view
without scrolling; a hand of 15 cards shows every card, a fingertip's worth of each, with
the playable ones marked, and no sideways scrolling; every control of the lobby, the
room and the table is a touch target of at least 44x44 px; the log, below the table on a
phone, is one tap away (beside the table on a desktop, it needs none); with a Wild Draw
Four to answer, the tallest table, the top card, the UNO button and "Your turn" are
still in view in every language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_client import SyncClient, drawing
from browser_flow import (
    animations_done,
    by_id,
    enter_room,
    named_context,
    seats_filled,
    start_at_my_turn,
)
from browser_server import ServerProcess
from browser_table import Player, any_on, play_until, state
from playwright.sync_api import expect
from test_browser_i18n import LANGS, switch

pytestmark = pytest.mark.xdist_group("browser")

PHONE: dict[str, Any] = {"viewport": {"width": 360, "height": 640}, "is_mobile": True,
                         "has_touch": True, "device_scale_factor": 2}
RULES = "official,players=2,rounds=1"
TOUCH = 44
"""The smallest touch target, in CSS pixels (each side)."""

PLACES_JS = r"""
(ids) => Object.fromEntries(ids.map((id) => {
  const el = document.querySelector(`[data-testid="${id}"]`);
  if (!el) return [id, 'missing'];
  const b = el.getBoundingClientRect();
  const inside = b.width > 0 && b.height > 0 && b.top >= 0 && b.left >= 0
    && b.bottom <= innerHeight && b.right <= innerWidth;
  return [id, inside ? 'in view' : `at ${Math.round(b.left)},${Math.round(b.top)}`
    + `-${Math.round(b.right)},${Math.round(b.bottom)} of ${innerWidth}x${innerHeight}`];
}))
"""

EXPOSED = r"""
// Whether a size x size square of `el` shows (the hit test finds el at its corners and
// middle): the part of a card that a finger can press.
const exposed = (el, size) => {
  const b = el.getBoundingClientRect();
  const hit = (x, y) => { const top = document.elementFromPoint(x, y);
                          return !!top && (top === el || el.contains(top)); };
  for (let y = b.top + 1; y + size - 1 <= b.bottom; y += 2) {
    for (let x = b.left + 1; x + size - 1 <= b.right; x += 2) {
      const pts = [[x, y], [x + size - 2, y], [x, y + size - 2], [x + size - 2, y + size - 2],
                   [x + size / 2, y + size / 2]];
      if (pts.every(([px, py]) => hit(px, py))) return true;
    }
  }
  return false;
};
// Where a card is, and what a finger finds at its middle: why it is not exposed.
const under = (el) => {
  const b = el.getBoundingClientRect();
  const top = document.elementFromPoint((b.left + b.right) / 2, (b.top + b.bottom) / 2);
  return `${el.dataset.card} at ${Math.round(b.left)},${Math.round(b.top)} `
    + `${Math.round(b.width)}x${Math.round(b.height)} of ${innerWidth}x${innerHeight} under `
    + (top ? `${top.tagName} ${top.className} ${top.dataset.card || ''}` : 'nothing');
};
"""

HAND_JS = "(size) => {" + EXPOSED + r"""
  const cards = [...document.querySelectorAll('[data-testid="hand"] [data-testid="card"]')];
  const hand = document.querySelector('[data-testid="hand"]');
  const ring = (el) => getComputedStyle(el).boxShadow;
  return {
    count: cards.length,
    hidden: cards.filter((c) => !exposed(c, size)).map((c) => c.dataset.card),
    // what a finger finds at the middle of each hidden card instead
    covers: cards.filter((c) => !exposed(c, size)).map(under),
    outside: cards.filter((c) => { const b = c.getBoundingClientRect();
                                   return b.left < 0 || b.right > innerWidth; })
      .map((c) => c.dataset.card),
    sideways: document.documentElement.scrollWidth > innerWidth
      || hand.scrollWidth > hand.clientWidth + 1,
    playableRings: [...new Set(cards.filter((c) => c.dataset.playable === 'true').map(ring))],
    otherRings: [...new Set(cards.filter((c) => c.dataset.playable !== 'true').map(ring))],
  };
}
"""

SMALL_TARGETS_JS = "(size) => {" + EXPOSED + r"""
  const shown = (el) => el.checkVisibility({visibilityProperty: true, opacityProperty: true})
    && !el.closest('.visually-hidden');
  const small = [];
  const modal = document.querySelector('[aria-modal="true"]');
  for (const el of document.querySelectorAll('button, select, input, a[href], [role="button"]')) {
    if (!shown(el)) continue;
    // while a dialog is up (a colour to choose for a first Wild) only its controls count
    if (modal && !modal.contains(el)) continue;
    // a checkbox is pressed with its label: the row they make is the target
    const target = el.type === 'checkbox' ? el.closest('.check') || el : el;
    if (el.matches('[data-testid="hand"] [data-testid="card"]')) {
      // a card below the fold (the turn's line or a question took the room above the
      // hand) is pressed once scrolled to: the hit test looks at it there
      const b = el.getBoundingClientRect();
      const at = [scrollX, scrollY];
      if (b.top < 0 || b.bottom > innerHeight) {
        el.scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});
      }
      const ok = exposed(el, size);
      const why = ok ? '' : under(el);
      scrollTo({left: at[0], top: at[1], behavior: 'instant'});
      if (!ok) small.push('card ' + why);
      continue;
    }
    const b = target.getBoundingClientRect();
    if (b.width < size - 0.5 || b.height < size - 0.5) {
      const testid = el.dataset.testid ? '[' + el.dataset.testid + ']' : '';
      small.push(`${el.tagName.toLowerCase()}${testid}`
        + `${el.id ? '#' + el.id : ''} "${(el.textContent || el.value || '').trim().slice(0, 20)}"`
        + ` ${Math.round(b.width)}x${Math.round(b.height)}`);
    }
  }
  return small;
}
"""


def _phone_page(contexts: Any, name: str) -> Any:
    return named_context(contexts, name, **PHONE).new_page()


def _scrolled(page: Any) -> list[int]:
    return list(page.evaluate("() => [scrollX, scrollY]"))


def _in_view(page: Any, *ids: str) -> None:
    places = page.evaluate(PLACES_JS, list(ids))
    assert all(v == "in view" for v in places.values()), places


def test_on_a_phone_start_and_then_the_table_are_in_view_without_scrolling(
        server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    page = _phone_page(contexts, "Pia")
    code = server.create_room(RULES, bots=["normal"])
    enter_room(page, server, code)
    seats_filled(page, 2)
    expect(by_id(page, "start-match")).to_be_enabled()
    assert _scrolled(page) == [0, 0]
    _in_view(page, "start-match")
    page.screenshot(path=str(artifacts / "phone-room.png"))
    page.evaluate("() => window.scrollBy(0, 120)")  # a look at the seats first
    assert _scrolled(page) == [0, 120]
    by_id(page, "start-match").tap()
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "table")
    expect(by_id(page, "your-turn")).to_be_visible()  # the bot may play first
    assert _scrolled(page) == [0, 0]
    _in_view(page, "top-card", "uno-button", "your-turn", "draw-pile")
    page.screenshot(path=str(artifacts / "phone-table.png"))


def test_a_hand_of_15_cards_on_a_phone_shows_every_card_and_the_playable_ones(
        server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    page = _phone_page(contexts, "Fay")
    start_at_my_turn(page, server, RULES + ",hand_size=15", bots=["normal"])
    animations_done(page)  # the dealt cards fly in, scaled down, for a moment
    # the hit test sees what is on the screen: the hand in the middle of it
    page.evaluate("() => document.querySelector('[data-testid=\"hand\"]')"
                  ".scrollIntoView({block: 'center'})")
    hand = page.evaluate(HAND_JS, TOUCH)
    page.screenshot(path=str(artifacts / "phone-hand-15.png"))
    assert hand["count"] >= 15, hand
    assert hand["hidden"] == [], f"cards without a {TOUCH} px square showing: {hand}"
    assert hand["outside"] == [] and not hand["sideways"], hand
    playable = [c for c in state(page)["hand"] if c["playable"]]
    assert playable, f"no playable card in 15 at the page's turn: {state(page)['hand']}"
    # the playable cards wear a ring that the others do not
    assert len(hand["playableRings"]) == 1, hand
    assert hand["playableRings"][0] not in hand["otherRings"], hand


def test_every_control_on_a_phone_is_a_44_px_touch_target(
        server: ServerProcess, contexts: Any) -> None:
    page = _phone_page(contexts, "Tom")
    page.goto(server.url + "/")
    expect(by_id(page, "play-now")).to_be_visible()
    animations_done(page)
    small = {"lobby": page.evaluate(SMALL_TARGETS_JS, TOUCH)}
    code = server.create_room(RULES, bots=["normal"])
    enter_room(page, server, code)
    seats_filled(page, 2)
    animations_done(page)
    small["room"] = page.evaluate(SMALL_TARGETS_JS, TOUCH)
    by_id(page, "start-match").tap()
    expect(by_id(page, "your-turn")).to_be_visible()
    animations_done(page)  # the dealt cards fly in, scaled down, for a moment
    small["table"] = page.evaluate(SMALL_TARGETS_JS, TOUCH)
    assert small == {"lobby": [], "room": [], "table": []}, small


LOG_JS = r"""
() => {
  const box = document.querySelector('.log-box').getBoundingClientRect();
  return {inView: box.top >= 0 && box.top < innerHeight && box.bottom > 0,
          focused: document.activeElement && document.activeElement.dataset.testid,
          lines: document.querySelectorAll('[data-testid="log-line"]').length};
}
"""


def test_the_log_is_one_tap_away_on_a_phone(
        server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    page = _phone_page(contexts, "Lou")
    start_at_my_turn(page, server, RULES, bots=["normal"])
    animations_done(page)
    assert _scrolled(page) == [0, 0]
    assert page.evaluate(LOG_JS)["inView"] is False, "the log is below the table on a phone"
    _in_view(page, "log-jump")
    by_id(page, "log-jump").tap()
    log = page.evaluate(LOG_JS)
    assert log["inView"] and log["focused"] == "log" and log["lines"] > 0, log
    page.screenshot(path=str(artifacts / "phone-log.png"))
    # on a desktop the log is beside the table: no button for it
    desk = contexts().new_page()
    start_at_my_turn(desk, server, RULES, bots=["normal"])
    expect(by_id(desk, "log-jump")).to_be_hidden()
    assert desk.evaluate(LOG_JS)["inView"]


PENALTY_RULES = "stacking,players=2,rounds=1"
"""Wild Draw Fours stack: one played on the page's seat leaves it a penalty to draw or
answer, and the question whether to challenge it."""


def wild_draw_four_first(client: Any) -> str | None:
    """A choice for the program's seat: a Wild Draw Four whenever it may play one (as
    soon as it holds or draws one), else draw or pass."""
    fours = [a for a in client.legal if a.startswith("W+4")]
    return fours[0] if fours else drawing(client)


def test_a_penalty_to_answer_on_a_phone_in_every_language(
        server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    """The table with a Wild Draw Four to answer is the tallest there is: the turn's line
    says the penalty ("You face 4 cards: draw or answer them."), and the question whether
    to challenge comes under it; Russian and Georgian words are longer than English. Still
    the top card, the UNO button and "Your turn" are in view without scrolling, and every
    control is a touch target (the hand, pushed below the fold, once scrolled to)."""
    page = _phone_page(contexts, "Pia")
    # the page never plays (it draws or keeps the drawn card): the program draws until
    # a Wild Draw Four comes to it, and plays it
    player = Player(page, "tap", prefer=lambda st: "pass" if st["pass"] else "draw")
    programs = []
    try:
        for _ in range(3):  # the four Wild Draw Fours may all be the page's: another room
            code = server.create_room(PENALTY_RULES)
            enter_room(page, server, code)
            programs.append(SyncClient.join(server.url, code, name="Cy"))
            seats_filled(page, 2)
            programs[-1].autoplay(wild_draw_four_first)
            by_id(page, "start-match").tap()
            states = play_until([player], lambda states: states[0]["challenge"]
                                or any_on("round-end", "match-end")(states))
            if states[0]["challenge"]:
                break
        else:
            raise AssertionError("in 3 rooms no Wild Draw Four was played on the page's seat")
        expect(page.locator(".status .faced")).to_be_visible()
        problems = {}
        for lang in ("en", *LANGS):
            switch(page, lang)
            animations_done(page)
            page.screenshot(path=str(artifacts / f"phone-penalty-{lang}.png"))
            places = page.evaluate(PLACES_JS, ["top-card", "uno-button", "your-turn"])
            faults = [f"{testid} {where}" for testid, where in places.items()
                      if where != "in view"]
            faults += page.evaluate(SMALL_TARGETS_JS, TOUCH)
            if _scrolled(page) != [0, 0]:
                faults.append(f"scrolled to {_scrolled(page)}")
            if faults:
                problems[lang] = faults
        assert not problems, problems
    finally:
        for program in programs:
            program.close()
