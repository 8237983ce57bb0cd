"""Whole matches in the browser: two people and a bot to the end of a match (its deal
checked and its record replayed), a round on a phone, the colour-blind symbols."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from browser_flow import by_id, enter_room, named_context, seats_filled, start_match, verify
from browser_server import ServerProcess
from browser_table import Player, any_on, on, play_until, shot
from playwright.sync_api import expect

from unokit.formats.fairdeal import verify_record
from unokit.formats.record import Record, replay

pytestmark = pytest.mark.xdist_group("browser")

MATCH_RULES = "official,players=3,rounds=2,hand_size=4"
"""Two short rounds: the round-end screen, then the match end."""


def test_two_browsers_and_a_bot_play_a_match_to_its_end(
        server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    code = server.create_room(MATCH_RULES, bots=["normal"])
    ann = named_context(contexts, "Ann").new_page()
    bob = named_context(contexts, "Bob").new_page()
    enter_room(ann, server, code)
    enter_room(bob, server, code)
    seats_filled(ann, 3)
    expect(by_id(ann, "seat", seat="0")).to_have_attribute("data-you", "true")
    expect(by_id(ann, "seat", seat="0")).to_have_attribute("data-host", "true")
    expect(by_id(bob, "seat", seat="2")).to_have_attribute("data-you", "true")
    expect(by_id(ann, "seat", seat="1")).to_have_attribute("data-kind", "bot")
    expect(by_id(ann, "room-code")).to_have_text(code)
    commitment = by_id(ann, "fairness-commitment").get_attribute("data-commitment")
    assert commitment == server.get(f"/api/rooms/{code}")["commitment"]
    shot(ann, artifacts, "room")
    start_match(ann)
    expect(by_id(bob, "screen")).to_have_attribute("data-screen", "table")
    shot(ann, artifacts, "table-desktop")

    seen: set[str] = set()

    def screens(player: Player, st: dict[str, Any]) -> None:
        if st["screen"] == "round-end" and "round-end" not in seen:
            seen.add("round-end")
            shot(player.page, artifacts, "round-end")

    states = play_until([Player(ann), Player(bob)], on("match-end"), on_state=screens)
    assert "round-end" in seen, "the first of two rounds ended without a round-end screen"
    shot(ann, artifacts, "match-end")

    # the end screen: final scores, a winner, the commitment and the verify link
    for page in (ann, bob):
        expect(by_id(page, "winner")).to_be_visible()
        expect(by_id(page, "back-to-lobby")).to_be_visible()
        expect(by_id(page, "verify-link")).to_be_visible()
        expect(by_id(page, "final-scores").locator('[data-testid="score"]')).to_have_count(3)
    expect(by_id(ann, "play-again")).to_be_visible()  # the host's rematch
    assert by_id(ann, "fairness-commitment").get_attribute("data-commitment") == commitment

    # follow the verify link: the match's page says in words that every fairness check
    # passes (not the API's JSON), and offers the record to download
    href = by_id(ann, "verify-link").get_attribute("href")
    assert href, "the verify link has no address"
    check = ann.context.new_page()
    answer = check.goto(href if href.startswith("http") else server.url + href)
    assert answer is not None and answer.ok
    assert "html" in answer.headers.get("content-type", ""), answer.headers
    expect(by_id(check, "fair-check")).to_have_attribute("data-passed", "true")
    expect(by_id(check, "fair-verdict")).to_be_visible()
    expect(by_id(check, "record-download")).to_have_attribute("href", f"/api/rooms/{code}/record")
    report = verify(server, code)
    assert report["passed"], report
    check.close()

    # the record replays to the scores shown
    record = Record.from_dict(server.get(f"/api/rooms/{code}/record"))
    assert verify_record(record, published=commitment).passed
    game = replay(record)
    final = game.observation(None).to_dict()
    assert final["phase"] == "match_over"
    shown = {int(s.get_attribute("data-seat")): int(s.get_attribute("data-points"))
             for s in by_id(ann, "final-scores").locator('[data-testid="score"]').all()}
    assert shown == dict(enumerate(final["scores"])), (shown, final["scores"])
    assert states[0]["screen"] == states[1]["screen"] == "match-end"


def test_a_phone_plays_a_round(server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    code = server.create_room("official,players=2,rounds=1,hand_size=5", bots=["normal"])
    context = named_context(contexts, "Pia", viewport={"width": 360, "height": 640},
                            is_mobile=True, has_touch=True, device_scale_factor=2)
    page = context.new_page()
    enter_room(page, server, code)
    seats_filled(page, 2)
    _fits(page, 360)
    start_match(page, press=lambda: by_id(page, "start-match").tap())
    expect(by_id(page, "hand").locator('[data-testid="card"]').first).to_be_visible()
    _fits(page, 360)
    # The bot may play meanwhile and the table redraws its parts, so the four boxes are
    # read in one evaluation, once all four are drawn, rather than one locator at a time.
    boxes = page.wait_for_function(BOXES_JS, arg=["hand", "top-card", "draw-pile", "uno-button"])
    for name, box in boxes.json_value().items():
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360 + 1, (name, box)
    shot(page, artifacts, "table-phone")
    player = Player(page, "tap")
    play_until([player], any_on("round-end", "match-end"))
    assert any(a.startswith("play ") for a in player.actions), player.actions
    shot(page, artifacts, "end-phone")
    _fits(page, 360)


def _fits(page: Any, width: int) -> None:
    """Nothing on the page is wider than the phone (no sideways scrolling)."""
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= width + 1, f"the page is {wide} px wide on a {width} px phone"


BOXES_JS = r"""
names => {
  const boxes = {};
  for (const name of names) {
    const el = document.querySelector(`[data-testid="${name}"]`);
    const r = el ? el.getBoundingClientRect() : null;
    if (!r || r.width === 0 || r.height === 0) return null;
    boxes[name] = {x: r.x, y: r.y, width: r.width, height: r.height};
  }
  return boxes;
}
"""


SYMBOLS_JS = r"""
() => {
  const shape = el => {
    if (!el) return null;
    const text = el.textContent.trim();
    if (text) return 'text:' + text;
    if (el.dataset.shape) return 'shape:' + el.dataset.shape;
    const svg = el.querySelector('svg, use, path, polygon, circle, rect');
    if (svg) return 'svg:' + (svg.getAttribute('href') || svg.getAttribute('d')
                              || svg.getAttribute('points') || svg.outerHTML);
    const before = getComputedStyle(el, '::before').content;
    if (before && before !== 'none' && before !== 'normal') return 'css:' + before;
    const clip = getComputedStyle(el).clipPath;
    return clip && clip !== 'none' ? 'clip:' + clip : 'class:' + el.className;
  };
  const cards = [...document.querySelectorAll(
      '[data-testid="hand"] [data-testid="card"], [data-testid="top-card"]')];
  return cards.map(c => {
    const sym = c.querySelector('[data-testid="colour-symbol"]');
    const box = sym ? sym.getBoundingClientRect() : null;
    const hidden = c.querySelector('.visually-hidden, .sr-only');
    const label = (sym && sym.getAttribute('aria-label')) || c.getAttribute('aria-label')
                  || (hidden && hidden.textContent.trim()) || '';
    return {card: c.dataset.card, shape: shape(sym), label: label,
            shown: !!box && box.width > 0 && box.height > 0};
  });
}
"""

CONTRACT_SYMBOLS = {"R": "●", "Y": "▲", "G": "■", "B": "◆", "W": "★"}


def test_every_card_has_a_colour_symbol(server: ServerProcess, contexts: Any,
                                        artifacts: Path) -> None:
    code = server.create_room("official,players=2,rounds=1", bots=["normal"])
    page = named_context(contexts, "Cai").new_page()
    enter_room(page, server, code)
    seats_filled(page, 2)
    start_match(page)
    shapes: dict[str, set[str]] = defaultdict(set)
    problems: list[str] = []

    def look(player: Player, st: dict[str, Any]) -> None:
        if st["screen"] != "table":
            return
        for card in player.page.evaluate(SYMBOLS_JS):
            if card["card"] is None:
                continue
            colour = card["card"][0]
            if card["shape"] is None or not card["shown"]:
                problems.append(f"{card['card']}: no colour symbol shown")
                continue
            if not card["label"]:
                problems.append(f"{card['card']}: no aria-label naming colour and value")
            shapes[colour].add(card["shape"])

    play_until([Player(page)], any_on("round-end", "match-end"), on_state=look)
    assert not problems, sorted(set(problems))
    assert len(shapes) >= 3, f"only the colours {sorted(shapes)} came in a whole round"
    for colour, seen in shapes.items():
        assert len(seen) == 1, f"colour {colour} has several symbols: {seen}"
    symbols = {colour: next(iter(seen)) for colour, seen in shapes.items()}
    assert len(set(symbols.values())) == len(symbols), f"two colours share a symbol: {symbols}"
    for colour, symbol in symbols.items():
        if symbol.startswith("text:"):
            assert symbol == "text:" + CONTRACT_SYMBOLS[colour], (colour, symbol)


TURNED_JS = r"""
async (codes) => {
  const { cardFace } = await import("/static/cards.js");
  const shelf = document.createElement("div");
  document.body.append(shelf);
  const found = {};
  for (const code of codes) {
    const card = cardFace(code);
    shelf.append(card);
    found[code] = [...card.querySelectorAll(".corner, .val")].map(
      (el) => getComputedStyle(el).textDecorationLine);
  }
  shelf.remove();
  return found;
}
"""


def test_a_six_and_a_nine_are_underlined(server: ServerProcess, contexts: Any) -> None:
    # turned upside down in the lower corner, a 6 reads as a 9: printed cards underline both
    page = named_context(contexts, "Ida").new_page()
    page.goto(server.url + "/")
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "lobby")
    codes = ["R6", "Y9", "G6", "B9", "R8", "Y0", "G1", "BS", "W+4"]
    found = page.evaluate(TURNED_JS, codes)
    for code in codes:
        lines = found[code]
        assert len(lines) == 3, (code, lines)  # two corners and the middle
        underlined = code[1:] in ("6", "9")
        assert all(("underline" in line) == underlined for line in lines), (code, lines)
