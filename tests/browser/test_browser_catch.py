"""A catch race under the catch grace: two players catch a browser player who played
down to one card without calling UNO; the seat nearest after the target wins, however
the catches arrive (docs/fairness.md, "The grace")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_client import SyncClient, drawing
from browser_flow import by_id, enter_room, named_context, seats_filled, start_match
from browser_server import ServerProcess
from browser_table import Player, play_until, shot, state
from playwright.sync_api import expect

from unokit.client.client import ActionRefused

pytestmark = pytest.mark.xdist_group("browser")

GRACE = "4"
"""Seconds of catch grace: long enough for both catches to be held on a slow machine."""


def test_the_nearest_seat_after_the_target_wins_a_catch_race(
        server_factory: Any, contexts: Any, artifacts: Path) -> None:
    server: ServerProcess = server_factory(UNOKIT_CATCH_GRACE=GRACE)
    # seat 0: the target (a browser); seat 1: a browser catcher; seat 2: a GameClient
    # catcher, the farther seat, which sends its catch first
    code = server.create_room("official,players=3,hand_size=2")
    ann = named_context(contexts, "Ann").new_page()
    bob = named_context(contexts, "Bob").new_page()
    enter_room(ann, server, code)
    enter_room(bob, server, code)
    cy = SyncClient.join(server.url, code, name="Cy")
    try:
        assert cy.c.seat == 2
        seats_filled(ann, 3)
        start_match(ann)
        # the catchers never play a card: only the target does; and Cy, who may be next
        # after a Skip or a Reverse, leaves its turn while the target can be caught, so
        # that its draw does not end the catch window before the browser catcher sees it
        cy.autoplay(lambda c: None if "catch 0" in c.legal else drawing(c))

        def catcher(st: dict[str, Any]) -> str | None:
            return "draw" if st["draw"] else "pass"

        states = play_until(
            # the target plays whatever it can and never calls UNO
            [Player(ann, call_uno=False), Player(bob, prefer=catcher)],
            lambda states: 0 in states[1]["catch_targets"])
        assert [o["count"] for o in states[1]["opponents"] if o["seat"] == 0] == [1]

        # the farther seat catches first, then the nearer one
        cy.wait_for(lambda c: "catch 0" in c.legal)
        far = cy.submit(cy.c.act("catch 0"))
        Player(bob).press("catch-button", target="0")
        shot(bob, artifacts, "catch-held")  # both catches wait for the grace's end
        with pytest.raises(ActionRefused) as refused:
            far.result(timeout=30)
        assert refused.value.code == "caught", refused.value

        penalty = 1 + 2  # one card left, plus the rules' uno_penalty
        expect(by_id(bob, "opponent", seat="0").locator('[data-testid="card-count"]')
               ).to_have_attribute("data-count", str(penalty))
        expect(by_id(ann, "hand").locator('[data-testid="card"]')).to_have_count(penalty)
        assert state(bob)["toast"] in (None, ""), f"the winner got an error: {state(bob)}"
        cy.wait_for(lambda c: any(e["kind"] == "caught" for e in c.events))
        caught = [e for e in cy.c.events if e["kind"] == "caught"]
        assert [(e["player"], e.get("target")) for e in caught] == [(1, 0)], caught
        shot(ann, artifacts, "caught")
    finally:
        cy.close()
