"""XP and levels: the level curve, a player's recent matches (keyset pages), and the
recomputation of the XP ledger from the stored match records.

The ledger itself is written with each match's last action
(:func:`unokit.store.seatings.write_ledger`); :func:`recompute` derives it again from
the records of the finished matches still stored (rules, seed, actions, seatings), and
:func:`stored_totals` reads the totals the players hold, so that a check can compare the
two.

A player's total (``players.xp``) is the XP of their matches plus the XP of the
challenge rewards they were paid (``challenge_rewards``, :mod:`unokit.store.challenges`),
which are rows of their own: the match ledger stays exactly what the match records give.
:func:`recomputed_totals` adds the two again, from the records and the reward rows.

The level curve: level ``L`` takes ``50 * L * (L - 1)`` XP in all (level 1 at 0 XP,
2 at 100, 3 at 300, 4 at 600, 10 at 4,500, 20 at 19,000): each level asks 100 XP more
than the one before, a match being worth 10 to about 40.

>>> [level(xp) for xp in (0, 99, 100, 299, 300, 4500)]
[1, 1, 2, 2, 3, 10]
>>> level_floor(3), level_floor(4)
(300, 600)
"""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table, and_, or_, select

from unokit.engine.actions import parse_action
from unokit.engine.driver import Driver
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.store.models import (
    ChallengeRewardRow,
    PlayerMatchRow,
    PlayerRow,
    RoomRow,
    XpLineRow,
)
from unokit.store.seatings import (
    ACTIONS,
    MatchFacts,
    PlayerResult,
    facts_of,
    ledger,
    read_record,
)
from unokit.store.store import Store

PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]
PLAYER_MATCHES: Table = PlayerMatchRow.__table__  # type: ignore[assignment]
XP_LINES: Table = XpLineRow.__table__  # type: ignore[assignment]
ROOMS: Table = RoomRow.__table__  # type: ignore[assignment]
REWARDS: Table = ChallengeRewardRow.__table__  # type: ignore[assignment]

LEVEL_STEP = 50
"""The curve's constant: level ``L`` begins at ``LEVEL_STEP * L * (L - 1)`` XP."""
PAGE = 20
"""Matches per page of a player's history (the default and the most)."""
RECOMPUTE_BATCH = 50
"""Rooms one read of :func:`recompute` takes."""


def level_floor(lvl: int) -> int:
    """The XP at which level ``lvl`` begins."""
    return LEVEL_STEP * lvl * (lvl - 1)


def level(xp: int) -> int:
    """The level of ``xp`` XP (1 and up)."""
    lvl = max(1, int((1 + math.sqrt(1 + 4 * max(0, xp) / LEVEL_STEP)) / 2))
    while level_floor(lvl + 1) <= xp:
        lvl += 1
    while lvl > 1 and level_floor(lvl) > xp:
        lvl -= 1
    return lvl


def progress(xp: int) -> dict[str, int]:
    """The XP, level and where the next level begins, as the API shows them.

    >>> progress(350)
    {'xp': 350, 'level': 3, 'level_xp': 300, 'next_level_xp': 600}
    """
    lvl = level(xp)
    return {"xp": xp, "level": lvl, "level_xp": level_floor(lvl),
            "next_level_xp": level_floor(lvl + 1)}


@dataclass(frozen=True)
class Cursor:
    """Where a page of a player's matches goes on from: before this match (matches are
    ordered by their end, newest first, then by id)."""

    ended_at: float
    match_id: int

    def text(self) -> str:
        """The cursor as the API writes it (``ENDED_AT:MATCH``, exact).

        >>> Cursor(1700000000.25, 12).text()
        '1700000000.25:12'
        """
        return f"{self.ended_at!r}:{self.match_id}"

    @classmethod
    def parse(cls, text: str) -> Cursor:
        """The cursor written ``text``.

        Raises:
            ValueError: not a cursor.
        """
        ended, sep, match = text.partition(":")
        if not sep or not match.isdigit() or len(text) > 64:
            raise ValueError(text)
        value = float(ended)
        if not math.isfinite(value):
            raise ValueError(text)
        return cls(value, int(match))


async def recent_matches(store: Store, player_id: int, *, before: Cursor | None = None,
                         limit: int = PAGE) -> tuple[list[dict[str, Any]], Cursor | None]:
    """A page of the player's finished matches, newest first, each with its XP lines;
    and the cursor of the next page (``None``: this is the last). A keyset page: it
    costs the same however deep."""
    def read(connection: Connection) -> list[Any]:
        query = select(PLAYER_MATCHES).where(PLAYER_MATCHES.c.player_id == player_id)
        if before is not None:
            query = query.where(or_(
                PLAYER_MATCHES.c.ended_at < before.ended_at,
                and_(PLAYER_MATCHES.c.ended_at == before.ended_at,
                     PLAYER_MATCHES.c.match_id < before.match_id)))
        rows = connection.execute(query.order_by(
            PLAYER_MATCHES.c.ended_at.desc(), PLAYER_MATCHES.c.match_id.desc())
            .limit(limit + 1)).all()
        ids = [row.match_id for row in rows[:limit]]
        lines: dict[int, dict[str, int]] = {}
        if ids:
            for line in connection.execute(select(XP_LINES).where(
                    XP_LINES.c.player_id == player_id, XP_LINES.c.match_id.in_(ids))):
                lines.setdefault(line.match_id, {})[line.reason] = line._mapping["count"]
        return [(row, lines.get(row.match_id, {})) for row in rows]
    rows = await store.run(read)
    page = [{"match": row.match_id, "code": row.code, "seat": row.seat,
             "ended_at": row.ended_at, "won": row.won, "left": row.left, "xp": row.xp,
             "lines": lines} for row, lines in rows[:limit]]
    more = len(rows) > limit
    last = rows[limit - 1][0] if more else None
    return page, None if last is None else Cursor(last.ended_at, last.match_id)


def replay_facts(rules_json: str, seed: int, actions: list[str]) -> tuple[Rules, MatchFacts]:
    """A finished match replayed from its rules, seed and actions: its rules and the
    facts of its events (CPU work: run it off the event loop)."""
    rules = Rules.from_dict(json.loads(rules_json))
    game = Game(rules, seed)
    driver = Driver(game)
    for text in actions:
        driver.apply(parse_action(text))
    return rules, facts_of(rules, game.log)


def replay_results(rules_json: str, seed: int, actions: list[str],
                   record: tuple[Any, Any]) -> dict[int, PlayerResult]:
    """A finished match's results derived again from its record: the match replayed
    from its rules, seed and actions, and the ledger of its events, actions and
    seatings (CPU work: run it off the event loop)."""
    facts, seatings = record
    return ledger(replay_facts(rules_json, seed, actions)[1], facts, seatings)


async def recompute(store: Store) -> dict[int, dict[int, PlayerResult]]:
    """Every finished match still stored, its players' results derived again from its
    record alone: ``{match id: {player id: result}}`` (players deleted since left out).
    Rooms are read :data:`RECOMPUTE_BATCH` at a time and replayed in a worker thread."""
    out: dict[int, dict[int, PlayerResult]] = {}
    after = 0
    while True:
        def read(connection: Connection, after: int = after) -> list[Any]:
            rooms = connection.execute(
                select(ROOMS.c.id, ROOMS.c.rules, ROOMS.c.seed).where(
                    ROOMS.c.status == "finished", ROOMS.c.id > after)
                .order_by(ROOMS.c.id).limit(RECOMPUTE_BATCH)).all()
            found = []
            for room in rooms:
                facts, seatings = read_record(connection, room.id)
                found.append((room, facts, seatings, _action_texts(connection, room.id)))
            return found
        batch = await store.run(read)
        if not batch:
            break
        live = await store.run(_live_players)
        for room, facts, seatings, texts in batch:
            results = await asyncio.to_thread(replay_results, room.rules, int(room.seed),
                                              texts, (facts, seatings))
            out[room.id] = {p: r for p, r in results.items() if p in live}
        after = batch[-1][0].id
    return out


def _action_texts(connection: Connection, room_id: int) -> list[str]:
    return [str(text) for text in connection.execute(
        select(ACTIONS.c.action).where(ACTIONS.c.room_id == room_id)
        .order_by(ACTIONS.c.n)).scalars()]


def _live_players(connection: Connection) -> set[int]:
    return {int(p) for p in connection.execute(select(PLAYERS.c.id)).scalars()}


async def stored_totals(store: Store) -> dict[int, int]:
    """Every player's XP as stored (``players.xp``: their matches' and their rewards')."""
    def read(connection: Connection) -> dict[int, int]:
        return {int(row.id): int(row.xp) for row in connection.execute(
            select(PLAYERS.c.id, PLAYERS.c.xp))}
    return await store.run(read)


async def stored_lines(store: Store) -> dict[int, dict[int, dict[str, int]]]:
    """The ledger as stored: ``{match id: {player id: {reason: count}}}``."""
    def read(connection: Connection) -> dict[int, dict[int, dict[str, int]]]:
        out: dict[int, dict[int, dict[str, int]]] = {}
        for row in connection.execute(select(PLAYER_MATCHES.c.match_id,
                                             PLAYER_MATCHES.c.player_id)):
            out.setdefault(row.match_id, {}).setdefault(row.player_id, {})
        for row in connection.execute(select(XP_LINES)):
            out.setdefault(row.match_id, {}).setdefault(row.player_id, {})[row.reason] = \
                row._mapping["count"]
        return out
    return await store.run(read)


async def reward_xp(store: Store) -> dict[int, int]:
    """The XP of the challenge rewards each player was paid (players with some)."""
    def read(connection: Connection) -> dict[int, int]:
        out: dict[int, int] = {}
        for row in connection.execute(select(REWARDS.c.player_id, REWARDS.c.xp)):
            out[int(row.player_id)] = out.get(int(row.player_id), 0) + int(row.xp)
        return out
    return await store.run(read)


async def recomputed_totals(store: Store, recomputed: dict[int, dict[int, PlayerResult]]
                            | None = None) -> dict[int, int]:
    """Every player's XP as the records give it: the XP of their matches derived again
    (``recomputed``, or :func:`recompute`) plus that of the rewards they were paid.
    Equal to :func:`stored_totals` while no finished match was pruned."""
    matches = await recompute(store) if recomputed is None else recomputed
    totals = {player: 0 for player in await store.run(_live_players)}
    for results in matches.values():
        for player, result in results.items():
            if player in totals:
                totals[player] += result.xp
    for player, points in (await reward_xp(store)).items():
        if player in totals:
            totals[player] += points
    return totals
