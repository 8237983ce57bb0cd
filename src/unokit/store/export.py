"""A player's export: everything stored of them (docs/accounts.md, "The export"), read
a bounded page at a time.

The export is a head, read whole (the player, sessions, API tokens, coins, cosmetics,
rating and leaderboard places: each bounded by the store's limits), and the lists
that grow with play (:data:`LISTED`), each read :data:`PAGE` rows per transaction in
the order of its key (a keyset: every page costs the same however far it is). Each
page is one short job of the store's writer, so that an export of a player with years
of matches never holds up the rooms' writes, and the server streams the document as
the pages come (:mod:`unokit.server.accounts`): its memory is one page, whatever the
player's history. A list is read as it stands when its page is read (a match that
ends during an export appears, or not, whole).

>>> import asyncio
>>> from unokit.store import Store
>>> from unokit.store.accounts import create_guest
>>> async def demo() -> list[str]:
...     store = Store("sqlite://")
...     ann = await create_guest(store, "a" * 43, now=0.0)
...     data = await export(store, ann)
...     await store.close()
...     return list(data)[:4] + [name for name in data if name == "chat_lines"]
>>> asyncio.run(demo())
['player', 'sessions', 'api_tokens', 'coins', 'chat_lines']
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Select, Table, select, tuple_
from sqlalchemy.sql.elements import ColumnElement

from unokit.store import boards, coins
from unokit.store.accounts import (
    PLAYER_MATCHES,
    SESSIONS,
    TOKENS,
    XP_LINES,
    read_player,
)
from unokit.store.challenges import PROGRESS, REWARDS
from unokit.store.erasure import (
    CHAT,
    ENTRIES,
    PLAY,
    PLAY_SEATS,
    RATINGS,
    RESULTS,
    ROOMS,
    SEATINGS,
    SEATS,
)
from unokit.store.store import Store

PAGE = 500
"""The rows of one list that one transaction reads."""


@dataclass(frozen=True)
class Listed:
    """One list of the export that grows with play."""

    name: str
    query: Callable[[int], Select[Any]]
    """The player's rows, with the columns of :attr:`order` among them."""
    order: tuple[ColumnElement[Any], ...]
    """The columns the rows are listed by (unique among one player's rows, never null)."""
    shape: Callable[[Any], dict[str, Any]]
    """A row as the export shows it."""


def _of(table: Table, *more: Any) -> Callable[[int], Select[Any]]:
    """The rows of ``table`` whose ``player_id`` is the player (with ``more`` columns)."""
    return lambda player: select(table, *more).where(table.c.player_id == player)


LISTED: tuple[Listed, ...] = (
    Listed("matches", _of(PLAYER_MATCHES),
           (PLAYER_MATCHES.c.ended_at, PLAYER_MATCHES.c.match_id),
           lambda m: {"match": m.match_id, "code": m.code, "seat": m.seat,
                      "ended_at": m.ended_at, "won": m.won, "left": m.left, "xp": m.xp}),
    Listed("xp_lines", _of(XP_LINES), (XP_LINES.c.match_id, XP_LINES.c.reason),
           lambda x: {"match": x.match_id, "reason": x.reason,
                      "count": x._mapping["count"], "xp": x.xp}),
    Listed("challenge_progress", _of(PROGRESS),
           (PROGRESS.c.period_end, PROGRESS.c.challenge),
           lambda r: {"challenge": r.challenge, "ends_at": int(r.period_end),
                      "progress": int(r.progress)}),
    Listed("challenge_rewards", _of(REWARDS), (REWARDS.c.period_end, REWARDS.c.challenge),
           lambda r: {"challenge": r.challenge, "ends_at": int(r.period_end), "xp": r.xp,
                      "coins": r.coins, "claimed_at": r.claimed_at}),
    Listed("coin_lines", _of(coins.COIN_LINES), (coins.COIN_LINES.c.id,),
           lambda r: {"delta": int(r.delta), "reason": r.reason,
                      "reference": r.reference, "at": r.at}),
    Listed("rated_matches", _of(RESULTS), (RESULTS.c.ended_at, RESULTS.c.match_id),
           lambda r: {"match": r.match_id, "team": r.team, "place": r.rank + 1, "n": r.n,
                      "mu_before": r.mu_before, "sigma_before": r.sigma_before,
                      "mu_after": r.mu_after, "sigma_after": r.sigma_after,
                      "ended_at": r.ended_at}),
    Listed("match_checks",
           lambda player: select(PLAY_SEATS, PLAY.c.seq, PLAY.c.ended_at, PLAY.c.rated)
           .join(PLAY, PLAY.c.match_id == PLAY_SEATS.c.match_id)
           .where(PLAY_SEATS.c.player_id == player),
           (PLAY.c.seq, PLAY_SEATS.c.slot),
           lambda r: {"match": r.match_id, "ended_at": r.ended_at, "rated": r.rated,
                      "seat": r.seat, "team": r.team, "place": r.rank + 1, "left": r.left,
                      "turns": r.turns, "playable_turns": r.playable_turns,
                      "voluntary_draws": r.voluntary_draws, "actions": r.actions,
                      "played_for": r.played_for, "address_group": r.address,
                      "account_days": r.account_days, "rated_matches": r.rated_matches,
                      "reasons": r.reasons.split(",") if r.reasons else []}),
    Listed("seatings",
           lambda player: select(SEATINGS, ROOMS.c.code)
           .join(ROOMS, ROOMS.c.id == SEATINGS.c.room_id)
           .where(SEATINGS.c.player_id == player),
           (SEATINGS.c.room_id, SEATINGS.c.seat, SEATINGS.c.occupant),
           lambda r: {"match": r.room_id, "code": r.code, "seat": r.seat,
                      "from_action": r.from_action, "left_action": r.left_action}),
    Listed("seats",
           lambda player: select(SEATS.c.seat, ROOMS.c.code)
           .join(ROOMS, ROOMS.c.id == SEATS.c.room_id).where(SEATS.c.player_id == player),
           (ROOMS.c.code, SEATS.c.seat),
           lambda r: {"room": r.code, "seat": r.seat}),
    Listed("chat_lines",
           lambda player: select(CHAT, ROOMS.c.code)
           .join(ROOMS, ROOMS.c.id == CHAT.c.room_id).where(CHAT.c.player_id == player),
           (CHAT.c.room_id, CHAT.c.n),
           lambda r: {"room": r.code, "seat": r.seat, "name": r.name, "text": r.text,
                      "at": r.at}),
)
"""The lists of the export, in the order it gives them (after the head)."""


def read_head(connection: Connection, player_id: int) -> dict[str, Any] | None:
    """The bounded part of the export (see the module); ``None``: no such player."""
    player = read_player(connection, player_id)
    if player is None:
        return None
    sessions = [{"created_at": s.created_at, "seen_at": s.seen_at, "address": s.address,
                 "agent": s.agent}
                for s in connection.execute(select(SESSIONS).where(
                    SESSIONS.c.player_id == player_id).order_by(SESSIONS.c.created_at))]
    tokens = [{"id": t.id, "label": t.label, "created_at": t.created_at,
               "used_at": t.used_at}
              for t in connection.execute(select(TOKENS).where(
                  TOKENS.c.player_id == player_id).order_by(TOKENS.c.id))]
    held = coins.read_wallet(connection, player_id)
    bought = [{"cosmetic": r.cosmetic, "bought_at": r.bought_at}
              for r in connection.execute(select(coins.OWNED).where(
                  coins.OWNED.c.player_id == player_id).order_by(coins.OWNED.c.cosmetic))]
    rated = connection.execute(select(RATINGS).where(
        RATINGS.c.player_id == player_id)).first()
    rating = None if rated is None else {
        "mu": rated.mu, "sigma": rated.sigma, "matches": rated.matches,
        "change": rated.change, "updated_at": rated.updated_at,
        "active_until": rated.active_until}
    places = [{"board": r.board, "score": boards.BASE - int(r.sort_key),
               "rank": boards.rank_of(connection, r.board, player_id)}
              for r in connection.execute(select(ENTRIES).where(
                  ENTRIES.c.player_id == player_id).order_by(ENTRIES.c.board))]
    return {"player": {"id": player.id, "username": player.username,
                       "guest": player.guest, "created_at": player.created_at,
                       "claimed_at": player.claimed_at, "xp": player.xp},
            "sessions": sessions, "api_tokens": tokens, "coins": held.coins,
            "cosmetics_owned": bought, "cosmetics_chosen": held.chosen,
            "rating": rating, "leaderboards": places}


def read_page(connection: Connection, listed: Listed, player_id: int,
              after: tuple[Any, ...] | None, limit: int = PAGE
              ) -> tuple[list[dict[str, Any]], tuple[Any, ...] | None]:
    """Up to ``limit`` rows of ``listed`` after the key ``after`` (``None``: from the
    first), and the key of the last one (``None``: the list is over)."""
    query = listed.query(player_id)
    if after is not None:
        query = query.where(tuple_(*listed.order) > tuple_(*after))
    rows = connection.execute(query.order_by(*listed.order).limit(limit)).all()
    last = (tuple(rows[-1]._mapping[c] for c in listed.order)
            if len(rows) == limit else None)
    return [listed.shape(r) for r in rows], last


async def pages(store: Store, player_id: int, listed: Listed, *,
                page: int = PAGE) -> AsyncIterator[list[dict[str, Any]]]:
    """The rows of one list, a page (one transaction) at a time."""
    after: tuple[Any, ...] | None = None
    while True:
        rows, after = await store.run(functools.partial(
            read_page, listed=listed, player_id=player_id, after=after, limit=page))
        if rows:
            yield rows
        if after is None:
            return


async def export(store: Store, player_id: int, *, page: int = PAGE) -> dict[str, Any]:
    """The whole export as one JSON-ready value (``{}``: no such player); the server
    streams the same (:func:`head` and :func:`pages`) instead of holding it."""
    found = await head(store, player_id)
    if found is None:
        return {}
    for listed in LISTED:
        found[listed.name] = [row async for rows in pages(store, player_id, listed,
                                                          page=page) for row in rows]
    return found


async def head(store: Store, player_id: int) -> dict[str, Any] | None:
    """The export's head (:func:`read_head`)."""
    return await store.run(lambda connection: read_head(connection, player_id))
