"""axe-core (vendored in tests/vendor/axe-core) finds no serious or critical violation
on the lobby, the leaderboards, the room, the table, the round end and the match end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_flow import by_id, named_context, start_at_my_turn
from browser_server import ROOT, ServerProcess
from browser_table import Player, any_on, play_until
from playwright.sync_api import expect

pytestmark = pytest.mark.xdist_group("browser")

AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"

RUN_AXE = r"""
async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => ({target: n.target.join(' '),
                                          summary: n.failureSummary}))}));
}
"""


def axe_violations(page: Any, screen: str) -> list[dict[str, Any]]:
    """The serious and critical violations axe finds on ``page`` now."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(RUN_AXE)
    bad = [v for v in found if v["impact"] in ("serious", "critical")]
    for violation in bad:
        print(f"axe on {screen}: {violation['impact']} {violation['id']}: "
              f"{violation['help']}\n  " + json.dumps(violation["nodes"], ensure_ascii=False))
    return [{"screen": screen, **v} for v in bad]


def test_axe_finds_no_serious_violation(server: ServerProcess, contexts: Any,
                                        artifacts: Path) -> None:
    assert AXE.is_file(), f"axe-core is missing: {AXE}"
    # no animation half way through while axe measures contrast
    # (the page's Content-Security-Policy allows no injected script: bypassed for axe)
    page = named_context(contexts, "Axe", reduced_motion="reduce", bypass_csp=True).new_page()
    found: list[dict[str, Any]] = []

    page.goto(server.url + "/")
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "lobby")
    found += axe_violations(page, "lobby")

    page.goto(server.url + "/leaderboards")
    expect(by_id(page, "board-empty")).to_be_visible()  # the board read, empty
    found += axe_violations(page, "leaderboards")
    page.goto(server.url + "/")

    def check_room(code: str) -> None:
        found.extend(axe_violations(page, "room"))

    start_at_my_turn(page, server, "official,players=2,rounds=2,hand_size=3",
                     bots=["normal"], before_start=check_room)
    found += axe_violations(page, "table")

    play_until([Player(page)], any_on("round-end", "match-end"))
    if by_id(page, "screen").get_attribute("data-screen") == "round-end":
        found += axe_violations(page, "round-end")
        play_until([Player(page)], any_on("match-end"))
    found += axe_violations(page, "match-end")
    assert not found, f"{len(found)} serious or critical axe violations: " + "; ".join(
        f"{v['screen']}: {v['id']} ({v['impact']}) at "
        f"{[n['target'] for n in v['nodes']]}" for v in found)


def test_axe_on_the_team_screens_and_the_newer_pages(
        server_factory: Any, contexts: Any, artifacts: Path) -> None:
    """A 2-vs-2 pairs match (team marks, team totals, "Your team ..." on the round and
    match end), the player's own page (/me, a guest's and then an account's), the public
    profile (/players/NAME) and the match page (/matches/CODE), and the keyboard help."""
    from test_browser_accounts import FAST_HASH, claim

    server = server_factory(**FAST_HASH)
    page = named_context(contexts, "Axe", reduced_motion="reduce", bypass_csp=True).new_page()
    found: list[dict[str, Any]] = []
    page.goto(server.url + "/")
    expect(by_id(page, "play-now-explained")).to_be_visible()
    code = start_at_my_turn(page, server, "pairs,rounds=2,hand_size=3",
                            bots=["normal"] * 3)
    expect(by_id(page, "team-mark").first).to_be_visible()
    found += axe_violations(page, "pairs table")
    page.keyboard.press("?")
    expect(by_id(page, "keys-help")).to_be_visible()
    found += axe_violations(page, "keys help")
    page.keyboard.press("Escape")
    expect(by_id(page, "keys-help")).to_have_count(0)

    play_until([Player(page)], any_on("round-end", "match-end"))
    if by_id(page, "screen").get_attribute("data-screen") == "round-end":
        expect(by_id(page, "team-line")).to_be_visible()
        found += axe_violations(page, "pairs round-end")
        play_until([Player(page)], any_on("match-end"))
    expect(by_id(page, "team-line")).to_be_visible()
    found += axe_violations(page, "pairs match-end")

    page.goto(server.url + "/me")
    expect(by_id(page, "profile")).to_have_attribute("data-guest", "true")
    found += axe_violations(page, "/me (guest)")
    claim(page, "Axelle")
    expect(by_id(page, "profile")).to_have_attribute("data-username", "Axelle")
    found += axe_violations(page, "/me (account)")
    page.goto(server.url + "/players/axelle")
    expect(by_id(page, "history-match")).to_have_count(1)
    found += axe_violations(page, "/players/NAME")
    page.goto(server.url + f"/matches/{code}")
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "match")
    expect(by_id(page, "replay")).to_be_visible()
    found += axe_violations(page, "/matches/CODE")
    assert not found, f"{len(found)} serious or critical axe violations: " + "; ".join(
        f"{v['screen']}: {v['id']} ({v['impact']}) at "
        f"{[n['target'] for n in v['nodes']]}" for v in found)
