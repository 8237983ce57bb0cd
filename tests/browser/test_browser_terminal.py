"""The terminal and the browser in one room: a browser player, a player driven through
``unokit.client`` (what the terminal game speaks) and ``unokit bot --server`` (the
command line's remote player) play a match to its end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from browser_client import SyncClient, first_legal
from browser_flow import by_id, enter_room, named_context, seats_filled, start_match
from browser_server import ServerProcess
from browser_table import Player, any_on, play_until, shot
from playwright.sync_api import expect

pytestmark = pytest.mark.xdist_group("browser")


def test_the_terminal_and_a_browser_play_in_one_room(server: ServerProcess, contexts: Any,
                                                     artifacts: Path, tmp_path: Path) -> None:
    code = server.create_room("official,players=3,rounds=1,hand_size=4")
    page = named_context(contexts, "Web").new_page()
    enter_room(page, server, code)
    tess = SyncClient.join(server.url, code, name="Tess")
    out = (tmp_path / "bot.out").open("w+b")
    bot = subprocess.Popen(
        [sys.executable, "-m", "unokit.cli", "bot", "--server", server.url, "--room", code,
         "--bot", "normal", "--name", "Termbot"],
        env=server.env, stdout=out, stderr=subprocess.STDOUT)
    try:
        seats_filled(page, 3)
        names = [s.get("name") for s in server.get(f"/api/rooms/{code}")["seats"]]
        assert names[1:] == ["Tess", "Termbot"], names
        expect(by_id(page, "seat", seat="0")).to_have_attribute("data-you", "true")
        tess.autoplay(first_legal)
        start_match(page)
        expect(by_id(page, "opponent")).to_have_count(2)
        play_until([Player(page)], any_on("match-end"))
        shot(page, artifacts, "terminal-and-browser")
        assert bot.wait(timeout=60) == 0, out.seek(0) or out.read().decode(errors="replace")
        out.seek(0)
        said = out.read().decode(errors="replace")
        assert f"match over in room {code}" in said, said
        tess.wait_for(lambda c: c.reveal is not None)
        # the browser and the terminal's client saw the same match end
        final = tess.run(tess.c.snapshot())
        assert final is not None
        shown = {int(s.get_attribute("data-seat")): int(s.get_attribute("data-points"))
                 for s in by_id(page, "final-scores").locator('[data-testid="score"]').all()}
        assert shown == dict(enumerate(final["scores"])), (shown, final["scores"])
    finally:
        tess.close()
        if bot.poll() is None:
            bot.kill()
            bot.wait(10)
        out.close()
