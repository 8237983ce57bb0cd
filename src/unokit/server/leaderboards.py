"""The leaderboards' HTTP API.

=============================================  ==========================================
``GET /api/leaderboards/{kind}``               a page of the ``rating`` or ``xp`` board:
                                               ``?period=all|week``, ``?week=YYYY-MM-DD``
                                               (a week by its end), ``?rank=N``,
                                               ``?limit=N`` (1-100), ``?around=me``
=============================================  ==========================================

A page is ``{"board", "kind", "period", "week", "total", "rank", "entries",
"eligibility"}``, each entry ``{"rank", "player", "score"}``; ranks are exact
(:mod:`unokit.store.boards`). ``eligibility`` is who may be on the boards (the
server's :class:`unokit.store.boards.Policy`): ``{"min_matches", "provisional_sigma",
"recent_matches", "recent_opponents", "days"}``.
``?around=me`` centres the page on the player of the session (or API token). At most
:data:`READS` reads run or wait at once; past them the answer is ``503 busy``.
"""

from __future__ import annotations

import datetime
from typing import Any

from sqlalchemy import Connection
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from unokit.i18n import N_
from unokit.server.accounts import _guarded, _json, _store, _who
from unokit.server.limits import Refused
from unokit.server.seating import RoomError
from unokit.store import boards as B

PAGE_MAX = 100
"""The most entries one page holds."""
PAGE_DEFAULT = 50
RANK_MAX = 1_000_000_000
READS = 8
"""Leaderboard reads one process runs or queues at once (they share the store's
connection with the rooms' writes); past them the answer is ``503 busy``."""


def _int(request: Request, name: str, default: int, low: int, high: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 10 or not (
            low <= int(text) <= high):
        raise RoomError("bad_request", N_("{name}: a whole number from {low} to {high}"),
                        name=name, low=low, high=high)
    return int(text)


def _week(request: Request, now: float) -> str | None:
    period = request.query_params.get("period", "all")
    week = request.query_params.get("week")
    if period not in ("all", "week"):
        raise RoomError("bad_request", N_("period: all or week"))
    if week is None:
        return B.week_end(now) if period == "week" else None
    try:
        day = datetime.date.fromisoformat(week)
    except ValueError:
        day = None
    if day is None or len(week) != 10 or day.weekday() != 0 or week > B.week_end(now):
        raise RoomError("bad_request", N_("week: the Monday (YYYY-MM-DD) that ends a week "
                                          "up to this one"))
    return week


async def leaderboard(request: Request) -> Response:
    """A page of a leaderboard, by rank number or around the caller."""
    kind = request.path_params["kind"]
    if kind not in B.KINDS:
        raise RoomError("not_found", N_("no such leaderboard: rating or xp"))
    store = _store(request)
    week = _week(request, store.clock())
    board = B.board_name(kind, week)
    limit = _int(request, "limit", PAGE_DEFAULT, 1, PAGE_MAX)
    rank = _int(request, "rank", 1, 1, RANK_MAX)
    around = request.query_params.get("around")
    me = None
    if around is not None:
        if around != "me":
            raise RoomError("bad_request", N_("around: me"))
        me = (await _who(request, tokens=True)).player.id

    def read(connection: Connection) -> dict[str, Any] | None:
        start = rank
        if me is not None:
            mine = B.rank_of(connection, board, me)
            if mine is None:
                return None
            start = max(1, mine - limit // 2)
        entries = B.page(connection, board, start, limit)
        return {"board": board, "kind": kind, "period": "all" if week is None else "week",
                "week": week, "total": B.size(connection, board), "rank": start,
                "entries": [{"rank": e.rank, "player": e.username, "score": e.score}
                            for e in entries]}
    reading = getattr(request.app.state, "leaderboard_reads", 0)
    if reading >= READS:
        raise Refused("busy", 503, N_("too many leaderboard reads at once: try again "
                                      "in a second"), retry_after=1)
    request.app.state.leaderboard_reads = reading + 1
    try:
        found = await store.run(read)
    finally:
        request.app.state.leaderboard_reads -= 1
    if found is None:
        raise RoomError("not_found", N_("you are not on this leaderboard"))
    return _json({**found, "eligibility": eligibility(store.rating_policy)})


def eligibility(policy: B.Policy) -> dict[str, Any]:
    """Who may be on the leaderboards, as a page tells its readers.

    >>> eligibility(B.Policy())["recent_opponents"], eligibility(B.Policy())["days"]
    (2, 7)
    """
    return {"min_matches": policy.min_matches, "provisional_sigma": policy.provisional_sigma,
            "recent_matches": policy.recent_matches,
            "recent_opponents": policy.recent_opponents,
            "days": round(policy.window / 86400)}


def routes() -> list[BaseRoute]:
    """The routes of this module."""
    return [Route("/api/leaderboards/{kind}", _guarded(leaderboard), methods=["GET"])]
