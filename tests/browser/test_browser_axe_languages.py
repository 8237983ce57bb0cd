"""axe-core (test_browser_axe.py) in English, Russian, Georgian and Danish: on every
screen of the game, the invite link's name form and the colour picker among them, and on
the two error pages. A language's longer words, another script or a text left without
its language must not make a screen fail where English passes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from browser_flow import by_id, named_context
from browser_server import ServerProcess
from playwright.sync_api import expect
from test_browser_axe import axe_violations
from test_browser_i18n import LANGS
from test_browser_screens import Tour, invite_and_colour_picker, the_error_pages, the_match

pytestmark = pytest.mark.xdist_group("browser")

SCREENS = ["lobby", "invite", "colour-picker", "room", "table", "keys-help", "round-end",
           "match-end", "player-unknown", "match-unknown"]
"""The screens checked, in their order (test_browser_screens.py says what each is)."""


@dataclass
class AxeTour(Tour):
    """The screens tour of test_browser_screens.py, with axe run on each screen in
    English and in every other language instead of reading its words."""

    found: list[dict[str, Any]] = field(default_factory=list)

    def screen(self, name: str, show: Callable[[str], None]) -> None:
        for lang in ("en", *LANGS):
            show(lang)
            self.found += axe_violations(self.page, f"{name} in {lang}")
        self.shown.append(name)


def test_axe_in_every_language_on_the_game_screens_and_the_error_pages(
        server: ServerProcess, contexts: Any) -> None:
    """The lobby, an invite link's name form, the colour picker, the waiting room of a
    2-vs-2 match, its table, the keys help, the round end and the match end, then the
    profile of no player and the match page of no room: each in en, ru, ka and da."""
    # no animation half way through while axe measures contrast; the page's
    # Content-Security-Policy allows no injected script: bypassed for axe
    page = named_context(contexts, "Axe", reduced_motion="reduce", bypass_csp=True).new_page()
    tour = AxeTour(page, server, "desktop", {"Axe"})

    def lobby_ready() -> None:
        expect(by_id(page, "screen")).to_have_attribute("data-screen", "lobby")

    tour.screen("lobby", tour.opening("/", lobby_ready, marked=False))
    invite_and_colour_picker(tour, "click")
    the_match(tour, "click")
    the_error_pages(tour)
    assert tour.shown == SCREENS, tour.shown
    found = tour.found
    assert not found, f"{len(found)} serious or critical axe violations: " + "; ".join(
        f"{v['screen']}: {v['id']} ({v['impact']}) at "
        f"{[n['target'] for n in v['nodes']]}" for v in found)
