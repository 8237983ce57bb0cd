"""``unokit standing``: the player's level, XP, rating, coins and ranks and the page of a
leaderboard around them, read from the server with an API token and said in lines; the
top page when the player is not on the board; a bad token, a server away and a board
that does not exist give a clear error and exit 2."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import Connection
from typer.testing import CliRunner

from asgi_driver import opened_app
from test_server_accounts import Browser, settings
from unokit.cli import app as cli
from unokit.client.client import ClientError
from unokit.client.standing import read_standing, standing_lines
from unokit.store import boards as B


@pytest.mark.asyncio
async def test_the_standing_and_the_board_around_the_player(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, rooms):
        people = [Browser(app) for _ in range(3)]
        ids = [await b.account(name) for b, name in zip(people, ["Ann", "Bea", "Cyd"],
                                                         strict=True)]
        made = await people[0].call("POST", "/api/account/tokens", {"label": "term"})
        token = made.json()["token"]

        def put(connection: Connection) -> None:
            B.set_scores(connection, "rating", {ids[0]: 1600, ids[1]: 1700, ids[2]: 1500})
        await rooms.store.run(put)
        transport = httpx.ASGITransport(app=app)
        found = await read_standing("http://testserver", token, limit=2,
                                    transport=transport)
        assert found.around and found.me["username"] == "Ann"
        assert [e["player"] for e in found.board["entries"]] == ["Bea", "Ann"]
        lines = standing_lines(found)
        assert lines[0] == "Ann: level 1, 0 XP (100 XP to level 2)"
        assert lines[1] == "Rating: 1500 (0), provisional"
        assert lines[2] == "Coins: 0"
        assert lines[3] == "Ranks: rating 2; this week: —"
        assert lines[5] == "Leaderboard by rating, all time: 3 players"
        assert lines[6].startswith(" ") and "Bea" in lines[6] and "1700" in lines[6]
        assert lines[7].startswith(">    2  Ann") and lines[7].endswith("1600")
        # not on the XP board: its top page, which is empty
        xp = await read_standing("http://testserver", token, kind="xp", period="week",
                                 transport=transport)
        assert not xp.around and xp.board["entries"] == []
        assert standing_lines(xp)[-1] == "No one is on this leaderboard yet."
        # in Russian: the server's error in the asked language
        with pytest.raises(ClientError) as refused:
            await read_standing("http://testserver", "not-a-token", lang="ru",
                                transport=transport)
        assert str(refused.value) == (await Browser(app).call(
            "GET", "/api/me", headers=(("accept-language", "ru"),))).json()["message"]
        with pytest.raises(ClientError):
            await read_standing("http://testserver", token, kind="coins",
                                transport=transport)


def test_the_command_says_what_went_wrong_and_exits_2() -> None:
    runner = CliRunner()
    away = runner.invoke(cli, ["standing", "--server", "http://127.0.0.1:9",
                               "--api-token", "x"])
    assert away.exit_code == 2 and "cannot reach the server" in away.output
    bad = runner.invoke(cli, ["standing", "--server", "http://127.0.0.1:9",
                              "--api-token", "x", "--by", "coins"])
    assert bad.exit_code == 2 and "rating or xp" in bad.output
