"""``unokit serve`` and ``unokit bot`` from the command line: their help, one-line errors
for bad settings, and a match played end to end against a server process with a bot in
another process."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from unokit.cli import app
from unokit.client import GameClient
from unokit.client.client import ActionRefused
from unokit.server import protocol as P

runner = CliRunner()
SRC = str(Path(__file__).resolve().parent.parent / "src")


def test_serve_help_names_its_settings() -> None:
    result = runner.invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for flag in ("--host", "--port", "--database-url", "--data-dir", "--log-level",
                 "--turn-timer", "--catch-grace", "--bot-delay", "--round-pause",
                 "--public-url", "--seat-timeout", "--lobby-timeout"):
        assert flag in result.output, flag


@pytest.mark.parametrize(("args", "env", "named"), [
    (["--turn-timer", "20"], {}, "UNOKIT_TURN_TIMER"),
    (["--port", "0"], {}, "UNOKIT_PORT"),
    (["--log-level", "loud"], {}, "UNOKIT_LOG_LEVEL"),
    (["--round-pause", "-1"], {}, "UNOKIT_ROUND_PAUSE"),
    ([], {"UNOKIT_TURN_TIMER": "abc"}, "UNOKIT_TURN_TIMER"),
    ([], {"UNOKIT_CATCH_GRACE": "soon"}, "UNOKIT_CATCH_GRACE"),
    (["--seat-timeout", "0"], {}, "UNOKIT_SEAT_TIMEOUT"),
    ([], {"UNOKIT_LOBBY_TIMEOUT": "never"}, "UNOKIT_LOBBY_TIMEOUT"),
    (["--lobby-timeout", "1e9"], {}, "UNOKIT_LOBBY_TIMEOUT"),
    ([], {"UNOKIT_LEASE": "0.5"}, "UNOKIT_LEASE:"),
    ([], {"UNOKIT_LEASE": "nan"}, "UNOKIT_LEASE:"),
    ([], {"UNOKIT_LEASE_RENEW": "10"}, "UNOKIT_LEASE_RENEW"),  # over half the lease
    ([], {"UNOKIT_LEASE": "60", "UNOKIT_LEASE_RENEW": "0"}, "UNOKIT_LEASE_RENEW"),
])
def test_bad_settings_are_one_line_errors(args: list[str], env: dict[str, str],
                                          named: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["serve", "--data-dir", str(tmp_path), *args], env=env)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and named in lines[0]
    assert not list(tmp_path.iterdir())  # nothing was created


def test_bot_help_and_a_bad_bot() -> None:
    result = runner.invoke(app, ["bot", "--help"])
    assert result.exit_code == 0
    assert "--server" in result.output and "--room" in result.output
    result = runner.invoke(app, ["bot", "--server", "http://127.0.0.1:9", "--room", "ABC",
                                 "--bot", "nonsense"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "nonsense" in lines[0]


def test_bot_that_cannot_reach_the_server() -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = runner.invoke(app, ["bot", "--server", f"http://127.0.0.1:{port}",
                                 "--room", "ABC", "--bot", "easy"])
    assert result.exit_code == 2
    assert result.output.strip().startswith("error: cannot reach")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNOKIT_")}
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return env


async def _wait_ready(url: str, server: asyncio.subprocess.Process) -> None:
    """Poll /readyz until it answers ready (or the server process ends)."""
    async with httpx.AsyncClient() as http, asyncio.timeout(60):
        while True:
            assert server.returncode is None, "the server exited"
            try:
                answer = await http.get(url + "/readyz")
                if answer.status_code == 200 and answer.json()["ready"]:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)  # poll: no event crosses processes


@pytest.mark.asyncio
async def test_serve_and_a_remote_bot_play_a_match(tmp_path: Path) -> None:
    port = _free_port()
    # the processes write to files: a pipe nobody reads while the match runs would fill
    # and stop them
    server_log = (tmp_path / "server.log").open("wb")
    server_out = (tmp_path / "server.out").open("wb")
    bot_log = (tmp_path / "bot.log").open("wb")
    url = f"http://127.0.0.1:{port}"
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "unokit.cli", "serve", "--port", str(port), "--data-dir",
        str(tmp_path / "data"), "--bot-delay", "0", "--round-pause", "0",
        "--catch-grace", "0.05", "--log-level", "info", env=_env(),
        stdout=server_out, stderr=server_log)
    bot: asyncio.subprocess.Process | None = None
    try:
        await _wait_ready(url, server)
        async with httpx.AsyncClient() as http:
            made = (await http.post(url + "/api/rooms",
                                    json={"rules": "official,players=3"})).json()
        code = made["code"]
        host = await GameClient.join(url, code, name="Ann")
        bot = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "unokit.cli", "bot", "--server", url, "--room", code,
            "--bot", "easy", env=_env(), stdout=bot_log, stderr=asyncio.subprocess.STDOUT)
        await host.wait_for(lambda c: c.room["seats"][1]["kind"] == "human")
        assert host.room["seats"][1]["name"] == "easy bot"
        await host.command(P.AddBot, bot="normal")
        await host.command(P.Start)
        while host.reveal is None:
            await host.wait_for(lambda c: c.reveal is not None or c.must)
            if host.reveal is not None:
                break
            choice = next((a for a in host.legal if a.endswith("!")), host.legal[0])
            try:
                await host.act(choice)
            except ActionRefused:
                await host.snapshot()
        await asyncio.wait_for(bot.wait(), 60)
        out = (tmp_path / "bot.log").read_text()
        assert bot.returncode == 0, out[-2000:]
        assert f"match over in room {code}; seat 1" in out
        await host.close()
    finally:
        if bot is not None and bot.returncode is None:
            bot.kill()
            await bot.wait()
        if server.returncode is None:
            server.send_signal(signal.SIGINT)
        await asyncio.wait_for(server.wait(), 60)
        server_log.close()
        server_out.close()
        bot_log.close()
    logs = (tmp_path / "server.log").read_text()
    # stopped by Ctrl-C: uvicorn ends with 0, or with 130 (128 + SIGINT) after a clean
    # shutdown in newer versions
    assert server.returncode in (0, 130), logs[-2000:]
    assert "Application shutdown complete." in logs
    assert (tmp_path / "data" / "unokit.db").exists()
    # the address to open, for a person, on stdout
    said = (tmp_path / "server.out").read_text().splitlines()
    assert said == [f"unokit is serving the game: open {url}/ in a browser (Ctrl-C stops it)"]
    # structured logs on stderr: one JSON object a line
    records = [json.loads(line) for line in logs.splitlines() if line.strip()]
    assert any(r.get("msg") == "listening" for r in records), records[:5]
    # "listening" only once the database is open and the rooms are back
    said = [r.get("msg") for r in records]
    assert said.index("database ready") < said.index("rooms restored") < said.index(
        "listening"), said
