"""A player's matches through the HTTP API, as the profile page reads them (on SQLite and
PostgreSQL): an account that played three matches with its API token pages through them
newest first with ``?limit=`` and ``?before=NEXT`` (the same on ``/api/me`` and on
``/api/players/NAME``), every match once; a bad cursor or limit is a typed 400."""

from __future__ import annotations

import httpx
import pytest

from server_harness import running_server, server_settings
from unokit.client import GameClient
from unokit.server import protocol as P

pytestmark = pytest.mark.asyncio

RULES = "official,players=2,rounds=1,hand_size=2"


async def play(client: GameClient) -> None:
    """The first legal action on this seat's turn until the match ends (an action the
    state moved past waits for the events that moved it)."""
    while client.reveal is None:
        await client.wait_for(lambda c: c.reveal is not None or c.must)
        if client.reveal is not None:
            return
        legal, seen = client.legal, client.last_seq
        try:
            await client.act(next((a for a in legal if a.endswith("!")), legal[0]))
        except Exception:
            await client.wait_for(lambda c, seen=seen: c.last_seq > seen or c.reveal is not None)


async def test_an_accounts_matches_page_by_keyset(database_url: str) -> None:
    settings = server_settings(database_url, hash_memory_kib=8, hash_workers=1, login_rate=0,
                               guest_rate=0, account_rate=0)
    async with (running_server(settings) as server,
                httpx.AsyncClient(base_url=server.url, headers={"Origin": server.url}) as http):
        assert (await http.post("/api/guest", json={})).status_code == 201
        claimed = await http.post("/api/account/claim",
                                  json={"username": "Pager", "password": "long enough pw"})
        assert claimed.status_code == 200, claimed.text
        token = (await http.post("/api/account/tokens", json={"label": "t"})).json()["token"]
        codes = []
        for _ in range(3):
            code = (await http.post("/api/rooms", json={"rules": RULES})).json()["code"]
            client = await GameClient.join(server.url, code, name="Pager", api_token=token)
            await client.command(P.AddBot, bot="normal")
            await client.command(P.Start)
            await play(client)
            await client.close()
            codes.append(code)

        for path in ("/api/me", "/api/players/pager"):
            seen, cursor, pages = [], None, 0
            while True:
                query = "?limit=2" + ("" if cursor is None else f"&before={cursor}")
                page = (await http.get(path + query)).json()
                assert len(page["matches"]) == (2 if pages == 0 else 1)
                seen += [m["code"] for m in page["matches"]]
                cursor, pages = page["next"], pages + 1
                if cursor is None:
                    break
            assert seen == codes[::-1] and pages == 2, path
        whole = (await http.get("/api/players/pager")).json()
        assert [m["code"] for m in whole["matches"]] == codes[::-1] and whole["next"] is None
        assert sum(m["xp"] for m in whole["matches"]) == whole["xp"]
        bad = [await http.get("/api/players/pager" + query)
               for query in ("?before=nonsense", "?before=1:x", "?limit=0", "?limit=21",
                             "?limit=two", "?before=" + "9" * 80 + ":1")]
    for answer in bad:
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == "bad_request"
