"""The round end on a desktop (1280x800): the "Next round" button and the countdown to
the next round are in view without scrolling, in every language, at a table of four
whose hands are shown with their cards and whose partners' scores are totalled above
the seats' (the tallest round end there is: the review found "Next round" below the
fold)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_flow import by_id, named_context, start_at_my_turn
from browser_server import ServerProcess
from browser_table import Player, any_on, play_until, shot
from playwright.sync_api import expect
from test_browser_i18n import LANGS, switch
from test_browser_phone import PLACES_JS

pytestmark = pytest.mark.xdist_group("browser")

RULES = "online,rounds=2,hand_size=7,target_score=500"
"""Two pairs, seven cards each: hands still full of cards when the round ends, the team
line and the team totals; a score of 500, out of reach of one round, so that the first
round ends in a round end."""


def test_next_round_and_the_countdown_are_in_view_at_the_round_end(
        server: ServerProcess, contexts: Any, artifacts: Path) -> None:
    page = named_context(contexts, "Ada", reduced_motion="reduce").new_page()
    assert page.viewport_size == {"width": 1280, "height": 800}
    start_at_my_turn(page, server, RULES, bots=["normal"] * 3)
    states = play_until([Player(page)], any_on("round-end", "match-end"))
    assert states[0]["screen"] == "round-end", states
    expect(by_id(page, "countdown")).to_be_visible()
    expect(by_id(page, "next-round")).to_be_enabled()
    assert len(page.locator('[data-testid="round-hand"] .card').all()) > 0
    for lang in ("en", *LANGS):
        switch(page, lang)
        assert page.evaluate("() => [scrollX, scrollY]") == [0, 0]
        places = page.evaluate(PLACES_JS, ["next-round", "countdown"])
        shot(page, artifacts, f"desktop-round-end-{lang}")
        assert all(v == "in view" for v in places.values()), (lang, places)
