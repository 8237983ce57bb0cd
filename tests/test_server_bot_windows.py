"""A bot that lets an out-of-turn chance go (a jump-in, a catch, a late UNO call) while a
player has the turn does not stop the room: the player's action is still handled."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from server_harness import running_server, server_settings
from unokit.client import GameClient
from unokit.client.client import ActionRefused
from unokit.server import pacing as pacing_module
from unokit.server import protocol as P

pytestmark = pytest.mark.asyncio


class Declining:
    """A bot that never takes an action it may skip (the room plays the first legal one
    when it must act)."""

    def choose(self, observation: Any, legal: list[int]) -> int | None:
        return None


async def test_a_bot_that_declines_a_window_does_not_stall_the_room(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setattr(pacing_module, "make_bot", lambda *a, **k: Declining())
    settings = server_settings(f"sqlite:///{tmp_path / 'unokit.db'}", catch_grace=0.0)
    async with running_server(settings, seeds=[bytes(32)]) as server:
        async with httpx.AsyncClient() as http:
            made = (await http.post(server.url + "/api/rooms",
                                    json={"rules": "jump_in,players=3,rounds=1"})).json()
        ann = await GameClient.join(server.url, made["code"], name="Ann")
        bob = await GameClient.join(server.url, made["code"], name="Bob")
        await ann.command(P.AddBot, bot="normal")
        await ann.command(P.Start)
        windows = 0
        for _ in range(120):  # the room must answer every turn, window or not
            await ann.wait_for(lambda c: c.reveal is not None or c.must
                               or bob.must, timeout=10)
            if ann.reveal is not None:
                break
            player = ann if ann.must else bob
            room = server.rooms.get(made["code"])
            assert room.driver is not None
            windows += 2 in room.driver.windows()
            try:
                await player.act(player.legal[0])
            except ActionRefused:
                await player.snapshot()
        assert windows > 0  # the bot had chances it let go
        await ann.close()
        await bob.close()
