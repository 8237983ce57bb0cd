"""The whole game from the keyboard: from the lobby's form through a round and into the
next, with ``keyboard.press`` only (Tab, Enter, arrows and the table's shortcuts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_flow import by_id, named_context
from browser_server import ServerProcess
from browser_table import Player, any_on, play_until, shot, tab_to
from playwright.sync_api import expect

pytestmark = pytest.mark.xdist_group("browser")


def _choose(page: Any, testid_name: str, value: str, limit: int = 30) -> None:
    """Set a ``<select>`` with the arrow keys (focused by Tab)."""
    selector = f'[data-testid="{testid_name}"]'
    tab_to(page, selector)
    read = f"() => document.querySelector('{selector}').value"
    options = page.evaluate(f"() => [...document.querySelector('{selector}').options]"
                            ".map(o => o.value)")
    assert value in options, f"{testid_name} offers {options}, not {value!r}"
    for _ in range(limit):
        now = page.evaluate(read)
        if now == value:
            return
        key = "ArrowDown" if options.index(value) > options.index(now) else "ArrowUp"
        page.keyboard.press(key)
    raise AssertionError(f"the arrow keys do not set {testid_name} to {value}")


def test_a_game_played_only_with_the_keyboard(server: ServerProcess, contexts: Any,
                                              artifacts: Path) -> None:
    page = named_context(contexts, "Kim").new_page()
    page.goto(server.url + "/")
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "lobby")
    shot(page, artifacts, "lobby")
    keys = page.keyboard

    tab_to(page, '[data-testid="name-input"]')
    keys.press("Control+a")
    for letter in "Kim":
        keys.press(letter)
    _choose(page, "preset-select", "official")
    _choose(page, "seats-select", "2")
    tab_to(page, '[data-testid="create-submit"]')
    keys.press("Enter")
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "room")
    expect(by_id(page, "seat")).to_have_count(2)
    expect(by_id(page, "seat", seat="0")).to_have_attribute("data-you", "true")
    # the host fills the free seat with a bot
    if page.locator('[data-testid="seat"][data-kind="empty"]').count():
        tab_to(page, '[data-testid="add-bot"]')
        keys.press("Enter")
    expect(page.locator('[data-testid="seat"][data-kind="empty"]')).to_have_count(0)
    expect(by_id(page, "seat", seat="1")).to_have_attribute("data-kind", "bot")

    tab_to(page, '[data-testid="start-match"]')
    keys.press("Enter")
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "table")

    # "?" shows the keys
    keys.press("?")
    expect(page.locator('[data-testid="keys-help"], dialog[open], [role="dialog"]')
           .filter(visible=True).first).to_be_visible()
    keys.press("Escape")

    # the table's letter keys as a Russian layout types them (keys.js reads their place);
    # "?" above and "n" below are typed in Latin
    player = Player(page, "keys-ru")
    play_until([player], any_on("round-end", "match-end"))
    assert any(a.startswith("play ") for a in player.actions), player.actions
    shot(page, artifacts, "keyboard-round-end")
    if by_id(page, "screen").get_attribute("data-screen") == "round-end":
        keys.press("n")
        expect(by_id(page, "screen")).to_have_attribute("data-screen", "table")
        expect(by_id(page, "hand").locator('[data-testid="card"]').first).to_be_visible()
