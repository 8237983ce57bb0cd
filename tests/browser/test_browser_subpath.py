"""The web client under a sub-path (``UNOKIT_BASE_PATH=/uno``, as behind a proxy at
``example.org/uno/``): the invite link opens the room, the socket connects, the match
starts, and the page asks for nothing outside ``/uno/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_flow import by_id, enter_room, named_context, seats_filled, start_match
from browser_server import ServerProcess
from browser_table import shot
from playwright.sync_api import expect

pytestmark = pytest.mark.xdist_group("browser")


class SubPathServer(ServerProcess):
    """A server whose every address is under ``/uno``."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/uno"


def test_a_match_under_a_sub_path(contexts: Any, tmp_path: Path, artifacts: Path) -> None:
    server = SubPathServer(tmp_path / "server", settings={"UNOKIT_BASE_PATH": "/uno"})
    server.start()
    try:
        code = server.create_room("official,players=2", bots=["easy"])
        page = named_context(contexts, "Ann").new_page()
        asked: list[str] = []
        sockets: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        page.on("websocket", lambda socket: sockets.append(socket.url))
        enter_room(page, server, code)
        seats_filled(page, 2)
        start_match(page)
        shot(page, artifacts, "sub-path-table")
        # a click of the link itself: a dialog the bot's move opened (a Wild Draw Four to
        # challenge) would hold a pointer's click, and this test is about the address
        page.locator("a.brand").evaluate("link => link.click()")
        expect(by_id(page, "screen")).to_have_attribute("data-screen", "lobby")
        assert page.url == server.url + "/"
        ws = server.url.replace("http://", "ws://")
        outside = [url for url in asked if not url.startswith((server.url + "/", ws + "/"))]
        assert asked and outside == []
        assert sockets and set(sockets) == {ws + "/ws"}
    finally:
        server.stop()
