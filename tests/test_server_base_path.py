"""Hosting under a sub-path (the setting ``base_path``, e.g. ``/uno`` behind a proxy at
``example.org/uno/``): the page, its files, the API, the translations, invite links and
the game's socket all live under it, and the page names no address outside it."""

from __future__ import annotations

import re

import httpx
import pytest

from server_harness import running_server, server_settings
from unokit.client import GameClient
from unokit.server import protocol as P
from unokit.server.settings import Settings, SettingsError
from unokit.web import STATIC

ADDRESS = re.compile(r"""(?:href|src)="([^"]+)\"""")


@pytest.mark.asyncio
async def test_everything_lives_under_the_base_path(tmp_path: object) -> None:
    settings = server_settings("sqlite://", base_path="/uno",
                               public_url="https://example.org/uno")
    async with running_server(settings) as server:
        base = server.url + "/uno"
        async with httpx.AsyncClient() as http:
            page = await http.get(base + "/")
            assert page.status_code == 200
            addresses = ADDRESS.findall(page.text)
            assert addresses and all(a.startswith("/uno/static/") for a in addresses)
            assert '<meta name="unokit-base" content="/uno">' in page.text
            for address in addresses:
                assert (await http.get(server.url + address)).status_code == 200, address
            made = await http.post(base + "/api/rooms", json={"rules": "official,players=2"})
            assert made.status_code == 201
            code = made.json()["code"]
            assert made.json()["invite"] == f"https://example.org/uno/r/{code}"
            invite = await http.get(f"{base}/r/{code}", headers={"Accept": "text/html"})
            assert '"/uno/static/app.js"' in invite.text
            assert (await http.get(f"{base}/api/rooms/{code}")).json()["code"] == code
            assert (await http.get(base + "/i18n/da.json")).json()["lang"] == "da"
            assert (await http.get(base + "/healthz")).json() == {"ok": True}
            assert (await http.get(base + "/metrics")).status_code == 200
            for outside in ("/", "/api/presets", "/static/app.js", "/healthz"):
                assert (await http.get(server.url + outside)).status_code == 404, outside
        ann = await GameClient.join(base, code, name="Ann")
        await ann.add_bot("easy")
        await ann.command(P.Start)
        await ann.wait_for(lambda c: bool(c.events))
        await ann.close()


def test_the_scripts_build_every_address_on_the_base() -> None:
    """The client's scripts reach the server only through ``BASE`` (from the page's
    meta tag): no absolute ``/api``, ``/ws``, ``/i18n``, ``/r/`` or ``/static`` path is
    written without it."""
    for script in STATIC.glob("*.js"):
        source = script.read_text(encoding="utf-8")
        for match in re.finditer(r"""["'`](/(?:api|ws|i18n|r/|static)[^"'`]*)["'`]""", source):
            before = source[max(0, match.start() - 40):match.start()]
            assert "BASE +" in before or "api(" in before, (script.name, match.group(1))
    net = (STATIC / "net.js").read_text(encoding="utf-8")
    assert "fetch(BASE + path" in net and 'location.host + BASE + "/ws"' in net


def test_the_base_path_setting() -> None:
    assert Settings(base_path="/uno").base_url == "http://127.0.0.1:8000/uno"
    assert Settings(base_path="/uno", public_url="https://x.org").base_url == \
        "https://x.org/uno"
    for bad in ("uno", "/uno/", "/a b", "//uno"):
        with pytest.raises(SettingsError, match="UNOKIT_BASE_PATH"):
            Settings.from_env({"UNOKIT_BASE_PATH": bad})
