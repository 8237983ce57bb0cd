"""``unokit standing``: a player's level, XP, rating and coins, and a page of a
leaderboard, read from a unokit server with an account's API token (docs/accounts.md).

:func:`read_standing` asks ``GET /api/me`` and ``GET /api/leaderboards/{kind}`` (the
page around the player, or the top page when they are not on the board);
:func:`standing_lines` says it in the terminal's language:

>>> me = {"username": "Ann", "guest": False, "xp": 130, "level": 2, "level_xp": 100,
...       "next_level_xp": 300, "coins": 15,
...       "rating": {"rating": 1523, "change": 12, "provisional": True, "matches": 2},
...       "ranks": {"rating": None, "xp": 4, "rating_week": None, "xp_week": 2}}
>>> board = {"kind": "xp", "period": "all", "total": 5, "entries": [
...     {"rank": 4, "player": "Ann", "score": 130}, {"rank": 5, "player": "Bo", "score": 90}]}
>>> print("\\n".join(standing_lines(Standing(me, board, True))))
Ann: level 2, 130 XP (170 XP to level 3)
Rating: 1523 (+12), provisional
Coins: 15
Ranks: XP 4; this week: XP 2
<BLANKLINE>
Leaderboard by XP, all time: 5 players
>    4  Ann                     130
     5  Bo                       90
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import httpx
import typer

from unokit.client.client import ClientError
from unokit.i18n import N_, _, current_language, ngettext

KINDS = ("rating", "xp")
PERIODS = ("all", "week")


@dataclass(frozen=True)
class Standing:
    """What the server said: the player (``/api/me``), a page of a board, and whether
    that page is the one around the player."""

    me: dict[str, Any]
    board: dict[str, Any]
    around: bool


async def read_standing(base: str, api_token: str, *, kind: str = "rating",
                        period: str = "all", limit: int = 10, lang: str = "en",
                        transport: httpx.AsyncBaseTransport | None = None) -> Standing:
    """Read the player of ``api_token`` and the page of the ``kind`` board of
    ``period`` around them (the top page when they are not on it).

    Raises:
        ClientError: the server could not be reached, or refused (its message).
    """
    headers = {"Authorization": f"Bearer {api_token}", "Accept-Language": lang}
    base = base.rstrip("/")
    try:
        async with httpx.AsyncClient(timeout=30, headers=headers,
                                     transport=transport) as http:
            me = _answer(await http.get(base + "/api/me", params={"limit": 1}))
            query: dict[str, str | int] = {"period": period, "limit": limit}
            found = await http.get(f"{base}/api/leaderboards/{kind}",
                                   params={**query, "around": "me"})
            if found.status_code == 404:
                return Standing(me, _answer(await http.get(
                    f"{base}/api/leaderboards/{kind}", params={**query, "rank": 1})), False)
            return Standing(me, _answer(found), True)
    except httpx.HTTPError as exc:
        raise ClientError(_("cannot reach the server {base}: {error}", base=base,
                            error=exc)) from None


def _answer(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.status_code >= 400 or not isinstance(data, dict):
        message = data.get("message") if isinstance(data, dict) else None
        raise ClientError(str(message or _("the server answered {status}",
                                           status=response.status_code)))
    return data


def _kind_name(kind: str) -> str:
    return _("XP") if kind == "xp" else _("rating")


def standing_lines(standing: Standing) -> list[str]:
    """The standing in words, one line each (the board's lines with ``>`` at the
    player's; when the player's last match did not count for their rating, or counted
    in part, why, in the server's words)."""
    me = standing.me
    name = me.get("username") or _("Guest {n}", n=me.get("id", "?"))
    xp, level = int(me.get("xp", 0)), int(me.get("level", 1))
    lines = [_("{name}: level {level}, {xp} XP ({left} XP to level {next})", name=name,
               level=level, xp=xp, left=int(me.get("next_level_xp", xp)) - xp,
               next=level + 1)]
    rating = me.get("rating") or {}
    if me.get("guest") or "rating" not in rating:
        lines.append(_("Rating: none (guests play unrated)"))
    else:
        change = int(rating.get("change", 0))
        shown = f"{rating['rating']} ({'+' if change > 0 else ''}{change})"
        lines.append(_("Rating: {rating}, provisional", rating=shown)
                     if rating.get("provisional") else _("Rating: {rating}", rating=shown))
    last = (me.get("matches") or [{}])[0]
    notice = last.get("rating_notice") if isinstance(last, dict) else None
    if isinstance(notice, dict) and notice.get("text"):  # the server's words
        lines.append(_("Last match {code}: {notice}", code=last.get("code", "?"),
                       notice=notice["text"]))
    lines.append(_("Coins: {n}", n=me.get("coins", 0)))
    ranks = me.get("ranks") or {}
    now = [f"{_kind_name(k)} {ranks[k]}" for k in KINDS if ranks.get(k)]
    week = [f"{_kind_name(k)} {ranks[k + '_week']}" for k in KINDS if ranks.get(k + "_week")]
    if now or week:
        lines.append(_("Ranks: {now}; this week: {week}", now=", ".join(now) or "—",
                       week=", ".join(week) or "—"))
    else:
        lines.append(_("Not on the leaderboards yet."))
    board = standing.board
    total = int(board.get("total", 0))
    period = _("this week") if board.get("period") == "week" else _("all time")
    lines += ["", _("Leaderboard by {kind}, {period}: {players}",
                    kind=_kind_name(str(board.get("kind"))), period=period,
                    players=ngettext("{n} player", "{n} players", total))]
    for entry in board.get("entries", []):
        mark = ">" if entry.get("player") == me.get("username") else " "
        lines.append(f"{mark}{entry['rank']:>5}  {entry['player']!s:<20}"
                     f"{entry['score']:>7}")
    if not board.get("entries"):
        lines.append(_("No one is on this leaderboard yet."))
    return lines


def standing_command(
    server: Annotated[str, typer.Option("--server", help=N_("the server, e.g. "
                                        "http://127.0.0.1:8000"))],
    api_token: Annotated[str, typer.Option(
        "--api-token", envvar="UNOKIT_API_TOKEN",
        help=N_("an account's API token (POST /api/account/tokens)"))],
    kind: Annotated[str, typer.Option("--by", help=N_("the leaderboard: rating or xp"))]
    = "rating",
    week: Annotated[bool, typer.Option("--week", help=N_("this week's leaderboard"))]
    = False,
    limit: Annotated[int, typer.Option("--limit", min=1, max=100,
                                       help=N_("lines of the leaderboard"))] = 10,
) -> None:
    """Show your level, XP, rating and coins on a unokit server, and the leaderboard
    around you."""
    import asyncio

    if kind not in KINDS:
        raise typer.BadParameter(_("rating or xp"), param_hint="--by")
    try:
        standing = asyncio.run(read_standing(server, api_token, kind=kind,
                                             period="week" if week else "all",
                                             limit=limit, lang=current_language()))
    except ClientError as exc:
        typer.echo(_("error: {message}", message=exc), err=True)
        raise typer.Exit(2) from None
    for line in standing_lines(standing):
        typer.echo(line)
