"""The leaderboards page and what it reads: ``/leaderboards`` is the page (its own HTML,
under the CSP, under a base path too), and each page of ``/api/leaderboards/{kind}``
says who may be on the boards, from the server's settings (so the page can tell a
player who is not on them why)."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from asgi_driver import opened_app
from test_server_accounts import Browser, settings
from unokit.server.app import create_app
from unokit.server.leaderboards import eligibility
from unokit.server.settings import Settings
from unokit.store import boards as B
from unokit.web import CSP, STATIC, page_under


def test_the_page_is_served_with_the_csp() -> None:
    with TestClient(create_app(Settings(database_url="sqlite://", bot_delay=0))) as client:
        answer = client.get("/leaderboards")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/html")
        assert answer.headers["content-security-policy"] == CSP
        assert '<script type="module" src="/static/leaderboards.js"></script>' in answer.text
        assert answer.text == (STATIC / "leaderboards.html").read_text(encoding="utf-8")
        assert client.get("/leaderboards/extra").status_code == 404


def test_under_a_base_path_the_page_loads_its_files_from_it() -> None:
    html = page_under("/uno", "leaderboards.html")
    assert '"/uno/static/leaderboards.js"' in html and '"/static/' not in html


def test_eligibility_says_the_policy() -> None:
    assert eligibility(B.Policy(provisional_sigma=5.0, min_matches=7)) == {
        "min_matches": 7, "provisional_sigma": 5.0, "recent_matches": 3,
        "recent_opponents": 2, "days": 7}


@pytest.mark.asyncio
async def test_every_page_of_a_board_carries_the_servers_rules(database_url: str) -> None:
    async with opened_app(settings(database_url, leaderboard_min_matches=4,
                                   rating_provisional_sigma=7.5)) as (app, _rooms):
        ann = Browser(app)
        await ann.account("Ann")
        for query in (b"", b"period=week", b"rank=5&limit=3"):
            page: dict[str, Any] = (await ann.call("GET", "/api/leaderboards/xp",
                                                   query=query)).json()
            assert page["eligibility"] == {"min_matches": 4, "provisional_sigma": 7.5,
                                           "recent_matches": 3, "recent_opponents": 2,
                                           "days": 7}, query
        # an error (not on the board) is the typed error alone
        answer = await ann.call("GET", "/api/leaderboards/rating", query=b"around=me")
        assert answer.status == 404 and "eligibility" not in answer.json()
