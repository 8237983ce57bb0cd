"""Steps the browser scenarios share: a player's page in a room, the host's start, the
room's record and fairness check."""

from __future__ import annotations

import json
from typing import Any

from browser_server import ServerProcess
from playwright.sync_api import expect


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
    match runs)."""
    page.goto(f"{server.url}/r/{code}{query}")
    expect(by_id(page, "screen")).to_have_attribute(
        "data-screen", _one_of("room", "table", "round-end", "match-end"))
    expect(by_id(page, "connection-status")).to_have_attribute("data-state", "online")


def start_match(page: Any, *, press: Any = None) -> None:
    """The host starts the match (every seat taken) and the table comes."""
    expect(by_id(page, "start-match")).to_be_enabled()
    if press is None:
        by_id(page, "start-match").click()
    else:
        press()
    expect(by_id(page, "screen")).to_have_attribute("data-screen",
                                                     _one_of("table", "round-end"))


def seats_filled(page: Any, count: int) -> None:
    """Wait until the room screen shows ``count`` seats, none empty."""
    expect(by_id(page, "seat")).to_have_count(count)
    expect(page.locator('[data-testid="seat"][data-kind="empty"]')).to_have_count(0)


def verify(server: ServerProcess, code: str) -> dict[str, Any]:
    """``GET /api/rooms/CODE/verify``: the fairness checks of the room's record."""
    return dict(server.get(f"/api/rooms/{code}/verify"))


def _one_of(*values: str) -> Any:
    import re
    return re.compile("^(" + "|".join(re.escape(v) for v in values) + ")$")
