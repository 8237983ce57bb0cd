"""The terminal and the browser in one room: the terminal game (``unokit play --server``
in a pseudo-terminal) plays a match with a browser and a bot; and a browser, a player
driven through ``unokit.client`` and ``unokit bot --server`` (the command line's remote
player) play a match to its end."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
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


ACTING_PHASES = ("play", "drawn", "challenge", "choose_color")


class Terminal:
    """``unokit play --server URL --room CODE`` in a pseudo-terminal of 120x40: its
    output is drained to a file, keys are written to it."""

    def __init__(self, server: ServerProcess, code: str, tmp_path: Path) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.master = master
        self.screen = tmp_path / "terminal.out"
        env = {**server.env, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40",
               "UNOKIT_LANG": "en"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "unokit.cli", "play", "--server", server.url,
             "--room", code, "--name", "Term", "--token-file", str(tmp_path / "tokens.json")],
            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.wrote = threading.Condition()
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self) -> None:
        with self.screen.open("wb") as out:
            while True:
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    return
                if not data:
                    return
                out.write(data)
                out.flush()
                with self.wrote:
                    self.wrote.notify_all()

    def wait_for_output(self, text: str, timeout: float = 30) -> None:
        """Wait until the terminal has shown ``text`` (told by the reader at each write).

        Raises:
            AssertionError: not shown within ``timeout`` seconds.
        """
        with self.wrote:
            if not self.wrote.wait_for(lambda: text in self.output(), timeout):
                raise AssertionError(f"the terminal did not show {text!r}:\n{self.output()}")

    def press(self, key: bytes) -> None:
        os.write(self.master, key)

    def output(self) -> str:
        text = self.screen.read_bytes().decode(errors="replace") if self.screen.exists() else ""
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]", "", text)[-3000:]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        os.close(self.master)


def _online_play() -> bool:
    """Whether ``unokit play`` has ``--server`` (the terminal game online)."""
    helped = subprocess.run([sys.executable, "-m", "unokit.cli", "play", "--help"],
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, "COLUMNS": "200"})
    return "--server" in helped.stdout


def test_the_terminal_game_and_a_browser_play_one_match(
        server: ServerProcess, contexts: Any, artifacts: Path, tmp_path: Path) -> None:
    assert _online_play(), "unokit play has no --server: the terminal game cannot play online"
    code = server.create_room("official,players=3,rounds=1,hand_size=4")
    page = named_context(contexts, "Web").new_page()
    enter_room(page, server, code)
    watcher = SyncClient.join(server.url, code, spectate=True)
    terminal = Terminal(server, code, tmp_path)
    try:
        watcher.wait_for(lambda c: len(c.room.get("seats", [])) > 1
                         and c.room["seats"][1].get("name") == "Term", timeout=60)
        # the host (the browser) seats a bot in the last seat and starts
        by_id(page, "add-bot").click()
        seats_filled(page, 3)
        start_match(page)
        acted = [-2]

        def terminal_turn(states: list[dict[str, Any]]) -> bool:
            """Seat 1 (the terminal) draws, and passes after drawing; a wild turned up
            at the start, it names red in the colour picker that opens for it. The
            room's own word (the watcher) says when it is to act."""
            c = watcher.c
            page_says = [o["seat"] for o in states[0]["opponents"] if o["current"]] == [1]
            if page_says and c.lead != 1 and states[0]["seq"] >= c.last_seq:
                # the watcher is a message behind the page (the log's last event): let it
                # catch up; when the page is the one behind, the page is watched next
                seen = c.last_seq
                watcher.wait_for(lambda c: c.last_seq > seen, timeout=30)
            if c.lead != 1 or c.phase not in ACTING_PHASES:
                return False
            if c.last_seq == acted[0]:  # its key was pressed: wait for its action
                seen = c.last_seq
            else:
                acted[0] = seen = c.last_seq
                if c.phase == "choose_color":  # the picker opens by itself
                    terminal.wait_for_output("Name the colour")
                    terminal.press(b"r")
                else:
                    terminal.press(b"p" if c.phase == "drawn" else b"d")
            try:
                watcher.wait_for(lambda c: c.last_seq > seen, timeout=30)
            except TimeoutError:
                raise AssertionError(f"the terminal game did not act on its key "
                                     f"(phase {c.phase}):\n{terminal.output()}") from None
            return True

        play_until([Player(page)], any_on("match-end"), others=terminal_turn)
        shot(page, artifacts, "terminal-game-and-browser")
        assert acted[0] >= 0, "the terminal never had a turn"
        watcher.wait_for(lambda c: c.reveal is not None)
        assert terminal.proc.poll() in (None, 0), terminal.output()
        assert "Term" in terminal.output() or code in terminal.output(), terminal.output()
    finally:
        terminal.close()
        watcher.close()
