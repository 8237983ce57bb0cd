"""Steps the browser scenarios share: a player's page in a room, the host's start, the
room's record and fairness check."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from browser_server import ServerProcess
from browser_table import Player, any_on, my_turn, play_until
from playwright.sync_api import expect

ROOMS_TRIED = 5
"""Rooms :func:`start_at_my_turn` makes at most, each with a new deal."""


def by_id(page: Any, name: str, **attrs: str) -> Any:
    """The locator of ``data-testid=name`` with ``data-*`` attributes ``attrs``."""
    extra = "".join(f'[data-{k.replace("_", "-")}="{v}"]' for k, v in attrs.items())
    return page.locator(f'[data-testid="{name}"]{extra}')


def named_context(contexts: Any, name: str, **options: Any) -> Any:
    """A browser context whose player is called ``name`` (``localStorage`` ``unokit.name``,
    set before the page's own scripts run)."""
    context = contexts(**options)
    context.add_init_script(
        "try { if (!localStorage.getItem('unokit.name')) "
        f"localStorage.setItem('unokit.name', {json.dumps(name)}); }} catch (e) {{}}")
    return context


def enter_room(page: Any, server: ServerProcess, code: str, *, query: str = "") -> None:
    """Open the invite link ``/r/CODE`` and wait for the room (or the table, once the
    match runs). A page without a seat there gets the name form first (prefilled with
    its ``unokit.name``), joins with it and waits for its seat."""
    page.goto(f"{server.url}/r/{code}{query}")
    form = by_id(page, "name-form")
    joined = page.locator('[data-testid="room-code"], [data-screen="table"], '
                          '[data-screen="round-end"], [data-screen="match-end"]')
    expect(form.or_(joined).first).to_be_visible()
    if form.is_visible():
        by_id(page, "join-room").click()
        # the room screen may come before the join is taken: wait for the page's own
        # seat, so that whoever joins next cannot take it first
        seated = page.locator('[data-testid="seat"][data-you="true"], [data-screen="table"], '
                              '[data-screen="round-end"], [data-screen="match-end"]')
        expect(seated.first).to_be_visible()
    expect(by_id(page, "screen")).to_have_attribute(
        "data-screen", _one_of("room", "table", "round-end", "match-end"))
    expect(by_id(page, "connection-status")).to_have_attribute("data-state", "online")


def start_match(page: Any, *, press: Any = None) -> None:
    """The host starts the match (every seat taken) and the table comes (or the end of a
    round or of the match, where bots went out at once)."""
    expect(by_id(page, "start-match")).to_be_enabled()
    if press is None:
        by_id(page, "start-match").click()
    else:
        press()
    expect(by_id(page, "screen")).to_have_attribute(
        "data-screen", _one_of("table", "round-end", "match-end"))


FINITE_ANIMATIONS_DONE_JS = r"""
() => Promise.all(document.getAnimations()
  .filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
  .map((a) => a.finished.catch(() => null)))
  .then(() => true)
"""


def animations_done(page: Any) -> None:
    """Wait until every animation on the page that ends has ended (a card dealt into the
    hand flies in scaled down and moved up for a moment; a glow that never ends is left
    running): the page as it stands still, for measuring what a finger can press."""
    assert page.evaluate(FINITE_ANIMATIONS_DONE_JS) is True


def seats_filled(page: Any, count: int) -> None:
    """Wait until the room screen shows ``count`` seats, none empty."""
    expect(by_id(page, "seat")).to_have_count(count)
    expect(page.locator('[data-testid="seat"][data-kind="empty"]')).to_have_count(0)


def start_at_my_turn(page: Any, server: ServerProcess, rules: str, *, bots: list[str],
                     before_start: Callable[[str], None] | None = None,
                     **room: Any) -> str:
    """Make a room of ``rules`` with ``bots`` (and ``room``'s other fields), seat
    ``page`` in it, start the match and play until the page's seat must play; the
    room's code. ``before_start(code)`` runs once the seats are filled.

    A deal may let the bots go out before the page's first turn (a Skip, a Reverse or a
    Draw Two gives a bot of two seats the next turn too), and the match then ends first:
    another room is made, with a new deal, up to :data:`ROOMS_TRIED` rooms in all.
    """
    ended = any_on("match-end")
    for _ in range(ROOMS_TRIED):
        code = server.create_room(rules, bots=bots, **room)
        enter_room(page, server, code)
        seats_filled(page, 1 + len(bots))
        if before_start is not None:
            before_start(code)
        start_match(page)
        states = play_until([Player(page)], lambda states: my_turn(states) or ended(states))
        if my_turn(states):
            return code
    raise AssertionError(f"in {ROOMS_TRIED} rooms in a row the bots went out before the "
                         f"page's first turn")


def verify(server: ServerProcess, code: str) -> dict[str, Any]:
    """``GET /api/rooms/CODE/verify``: the fairness checks of the room's record."""
    return dict(server.get(f"/api/rooms/{code}/verify"))


def _one_of(*values: str) -> Any:
    import re
    return re.compile("^(" + "|".join(re.escape(v) for v in values) + ")$")
