"""Leaderboards: by rating and by XP, all time and this week, with exact ranks.

**Boards.** ``rating`` and ``xp`` (all time), and ``rating:END`` and ``xp:END`` for the
UTC week (Monday 00:00 to Monday 00:00) that ends on the date ``END`` (:func:`week_end`):
a new week starts empty, and a past week's board stays as it was. A week's rating board
shows the rating of the players who played a rated match that week; its XP board the
XP earned in the matches that ended that week.

**Who is on them** (:func:`eligible`, with the server's :class:`Policy`): a player whose
sigma is below ``provisional_sigma``, with at least ``min_matches`` rated matches and, in
the last 7 days, at least 3 rated matches against at least 2 distinct people (the
players on other teams; bots do not count), whose name is not banned. Bots are never
players. A player's entries are brought up to date in the transaction that stores
each match of theirs (:func:`refresh`); when their last 7 days no longer qualify
(``ratings.active_until``), :func:`expire` takes them off.

**Exact ranks without counting rows.** Each entry has a *sort key* (lower is better:
``2**41 - score``) and ties are ordered by player id; it holds the player's name, so
that a page is read from the index alone. ``board_counts`` holds, for each
level ``L`` of 0 to 6, how many entries have each value of ``sort_key >> (6 * L)``,
kept in the same transaction as the entries. The entries before a sort key are the
sum of at most 63 counts per level (:func:`count_before`), and the entry at rank *r*
is found by going down the levels (:func:`entry_at`); within one score, an index range
of the tied entries. Pages are keyset pages from there.

>>> week_end(1796256000.0)  # Thursday 2026-12-03 00:00 UTC
'2026-12-07'
>>> sort_key(1500) == BASE - 1500
True
"""

from __future__ import annotations

import datetime
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Table, delete, func, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from unokit.store.models import (
    BanRow,
    BoardCountRow,
    BoardEntryRow,
    PlayerMatchRow,
    PlayerRow,
    RatingResultRow,
    RatingRow,
)
from unokit.store.rating_model import display

ENTRIES: Table = BoardEntryRow.__table__  # type: ignore[assignment]
COUNTS: Table = BoardCountRow.__table__  # type: ignore[assignment]
PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]
RATINGS: Table = RatingRow.__table__  # type: ignore[assignment]
RESULTS: Table = RatingResultRow.__table__  # type: ignore[assignment]
PLAYER_MATCHES: Table = PlayerMatchRow.__table__  # type: ignore[assignment]
BANS: Table = BanRow.__table__  # type: ignore[assignment]

SHIFT = 6
"""Each level's counts group ``2**SHIFT`` keys of the level below."""
LEVELS = 7
"""Levels 0 to 6: the top level's keys are ``sort_key >> 36``."""
BASE = 1 << 41
"""A sort key is ``BASE - score``: lower first, never negative."""
WEEK = 7 * 86400.0
KINDS = ("rating", "xp")


@dataclass(frozen=True)
class Policy:
    """Who is on the leaderboards, and when a rating stops being provisional."""

    provisional_sigma: float = 6.5
    """A rating is provisional, and off the leaderboards, while sigma is at least this."""
    min_matches: int = 20
    """Rated matches a player needs to be on the leaderboards."""
    recent_matches: int = 3
    """Rated matches in the last :attr:`window` seconds ..."""
    recent_opponents: int = 2
    """... against at least this many distinct people."""
    window: float = WEEK


def sort_key(score: int) -> int:
    """The order of a score on a board: lower first."""
    return BASE - score


def week_end(now: float) -> str:
    """The date (UTC, ``YYYY-MM-DD``) of the Monday that ends the week of ``now``."""
    day = datetime.datetime.fromtimestamp(now, datetime.UTC).date()
    return (day + datetime.timedelta(days=7 - day.weekday())).isoformat()


def week_start(end: str) -> float:
    """The time the week ending on ``end`` began."""
    stop = datetime.datetime.fromisoformat(end).replace(tzinfo=datetime.UTC)
    return stop.timestamp() - WEEK


def board_name(kind: str, week: str | None) -> str:
    """A board's name: ``rating``, ``xp``, ``rating:2026-12-07``, ...."""
    return kind if week is None else f"{kind}:{week}"


def _fold(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


# ---------------------------------------------------------------- the counts
def _upsert(connection: Connection, table: Table, rows: list[dict[str, int | str]],
            keys: Sequence[str], add: str | None, values: Sequence[str] = ()) -> None:
    """Insert ``rows``, or on a clash of ``keys`` add the column ``add`` (or set
    ``values``), in one statement (``ON CONFLICT``, SQLite and PostgreSQL)."""
    if not rows:
        return
    maker = pg_insert if connection.dialect.name == "postgresql" else sqlite_insert
    statement = maker(table).values(rows)
    excluded = statement.excluded
    new = {add: table.c[add] + excluded[add]} if add else {v: excluded[v] for v in values}
    connection.execute(statement.on_conflict_do_update(index_elements=list(keys), set_=new))


def _count_changes(changes: dict[tuple[str, int, int], int], board: str, key: int,
                   step: int) -> None:
    for level in range(LEVELS):
        at = (board, level, key >> (SHIFT * level))
        changes[at] = changes.get(at, 0) + step


def _apply(connection: Connection, changes: dict[tuple[str, int, int], int]) -> None:
    rows: list[dict[str, int | str]] = [
        {"board": b, "level": level, "key": k, "n": n}
        for (b, level, k), n in sorted(changes.items()) if n]
    _upsert(connection, COUNTS, rows, ("board", "level", "key"), "n")


def set_scores(connection: Connection, board: str,
               scores: dict[int, int | None]) -> None:
    """Put players on ``board`` with a score, or take them off (``None``), keeping the
    counts (the caller holds the players' rows)."""
    players = sorted(scores)
    names = {row.id: row.username or "" for row in connection.execute(select(
        PLAYERS.c.id, PLAYERS.c.username).where(PLAYERS.c.id.in_(
            [p for p in players if scores[p] is not None])))}
    held = {row.player_id: row.sort_key for row in connection.execute(
        select(ENTRIES.c.player_id, ENTRIES.c.sort_key).where(
            ENTRIES.c.board == board, ENTRIES.c.player_id.in_(players)))}
    changes: dict[tuple[str, int, int], int] = {}
    upserts: list[dict[str, int | str]] = []
    gone: list[int] = []
    for player in players:
        score, old = scores[player], held.get(player)
        key = None if score is None else sort_key(score)
        if key == old:
            continue
        if old is not None:
            _count_changes(changes, board, old, -1)
        if key is None:
            gone.append(player)
        else:
            _count_changes(changes, board, key, +1)
            upserts.append({"board": board, "player_id": player, "sort_key": key,
                            "name": names.get(player, "")})
    if gone:
        connection.execute(delete(ENTRIES).where(ENTRIES.c.board == board,
                                                 ENTRIES.c.player_id.in_(gone)))
    _upsert(connection, ENTRIES, upserts, ("board", "player_id"), None, ("sort_key", "name"))
    _apply(connection, changes)


# ---------------------------------------------------------------- eligibility
def active_until(connection: Connection, player: int, now: float, policy: Policy) -> float:
    """When the player's last 7 days stop holding ``recent_matches`` rated matches
    against ``recent_opponents`` distinct people, if they play no more (0: they do not
    hold now)."""
    mine = connection.execute(select(RESULTS.c.match_id, RESULTS.c.team, RESULTS.c.ended_at)
                              .where(RESULTS.c.player_id == player,
                                     RESULTS.c.ended_at > now - policy.window)
                              .order_by(RESULTS.c.ended_at, RESULTS.c.match_id)).all()
    if len(mine) < policy.recent_matches:
        return 0.0
    teams = {row.match_id: row.team for row in mine}
    against: dict[int, set[int]] = {m: set() for m in teams}
    for row in connection.execute(select(RESULTS.c.match_id, RESULTS.c.player_id,
                                         RESULTS.c.team).where(
            RESULTS.c.match_id.in_(sorted(teams)), RESULTS.c.player_id.is_not(None),
            RESULTS.c.player_id != player)):
        if row.team != teams[row.match_id]:
            against[row.match_id].add(int(row.player_id))

    def holds(rows: Sequence[object]) -> bool:
        people: set[int] = set()
        for row in rows:
            people |= against[row.match_id]  # type: ignore[attr-defined]
        return len(rows) >= policy.recent_matches and len(people) >= policy.recent_opponents
    if not holds(mine):
        return 0.0
    for i, row in enumerate(mine):  # the oldest go first
        if not holds(mine[i + 1:]):
            return float(row.ended_at) + policy.window
    return 0.0  # pragma: no cover - the empty window never holds


def _banned(connection: Connection, names: Iterable[str]) -> set[str]:
    folded = {_fold(n) for n in names}
    if not folded:
        return set()
    return set(connection.execute(select(BANS.c.value).where(
        BANS.c.kind == "name", BANS.c.value.in_(sorted(folded)))).scalars())


def _lock(connection: Connection, players: Sequence[int]) -> None:
    """Lock the players' rows, in the order of their ids (whoever changes a player's
    entries holds them)."""
    connection.execute(select(PLAYERS.c.id).where(PLAYERS.c.id.in_(sorted(players)))
                       .order_by(PLAYERS.c.id).with_for_update()).all()


def refresh(connection: Connection, players: Sequence[int], now: float,
            policy: Policy) -> None:
    """Bring every board entry of ``players`` up to date as of ``now`` (in the
    transaction of the change that moved them): on the boards with their rating and XP
    if they are eligible, off them if not. Locks the players' rows first."""
    players = sorted(set(players))
    if not players:
        return
    rows = {row.id: row for row in connection.execute(
        select(PLAYERS.c.id, PLAYERS.c.username, PLAYERS.c.xp).where(
            PLAYERS.c.id.in_(players)).order_by(PLAYERS.c.id).with_for_update())}
    rated = {row.player_id: row for row in connection.execute(
        select(RATINGS).where(RATINGS.c.player_id.in_(sorted(rows))))}
    banned = _banned(connection, [r.username for r in rows.values() if r.username])
    week = week_end(now)
    start = week_start(week)
    scores: dict[str, dict[int, int | None]] = {
        board_name(kind, w): {} for kind in KINDS for w in (None, week)}
    for player in players:
        rating = rated.get(player)
        row = rows.get(player)
        until = 0.0
        if (rating is not None and row is not None and row.username
                and _fold(row.username) not in banned
                and rating.sigma < policy.provisional_sigma
                and rating.matches >= policy.min_matches):
            until = active_until(connection, player, now, policy)
        on = until > now
        scores["rating"][player] = display(rating.mu) if on and rating else None
        scores["xp"][player] = int(row.xp) if on and row is not None else None
        week_xp = int(connection.execute(select(func.coalesce(func.sum(
            PLAYER_MATCHES.c.xp), 0)).where(PLAYER_MATCHES.c.player_id == player,
                                          PLAYER_MATCHES.c.ended_at >= start)).scalar()
                      or 0) if on else 0
        played_week = on and rating is not None and rating.updated_at >= start
        scores[board_name("rating", week)][player] = (
            display(rating.mu) if played_week and rating else None)
        scores[board_name("xp", week)][player] = week_xp if on and week_xp > 0 else None
        if rating is not None and rating.active_until != until:
            connection.execute(update(RATINGS).where(RATINGS.c.player_id == player)
                               .values(active_until=until))
    for board in sorted(scores):
        set_scores(connection, board, scores[board])


EXPIRE_BATCH = 100
"""The most players one expiring transaction looks at."""


def expire(connection: Connection, now: float, policy: Policy,
           batch: int = EXPIRE_BATCH) -> int:
    """Take off the boards up to ``batch`` players whose last 7 days no longer
    qualify; how many were looked at."""
    due = list(connection.execute(select(RATINGS.c.player_id).where(
        RATINGS.c.active_until > 0, RATINGS.c.active_until <= now)
        .order_by(RATINGS.c.active_until).limit(batch)).scalars())
    refresh(connection, due, now, policy)
    return len(due)


def drop(connection: Connection, players: Sequence[int], now: float) -> None:
    """Take ``players`` off every current board (deleted or banned players)."""
    if not players:
        return
    _lock(connection, players)
    week = week_end(now)
    for board in sorted(board_name(k, w) for k in KINDS for w in (None, week)):
        set_scores(connection, board, dict.fromkeys(players))
    connection.execute(update(RATINGS).where(RATINGS.c.player_id.in_(sorted(players)))
                       .values(active_until=0.0))


def drop_name(connection: Connection, folded: str, now: float) -> None:
    """Take the account whose name folds to ``folded`` (a name just banned) off the
    current boards."""
    key = folded.lower()
    found = [int(row.id) for row in connection.execute(select(
        PLAYERS.c.id, PLAYERS.c.username).where(PLAYERS.c.username_key == key))
             if row.username and _fold(row.username) == folded]
    drop(connection, found, now)


def drop_everywhere(connection: Connection, players: Sequence[int]) -> None:
    """Take ``players`` off every board, past weeks too (deleted players)."""
    _lock(connection, players)
    boards = sorted(set(connection.execute(select(ENTRIES.c.board).where(
        ENTRIES.c.player_id.in_(sorted(players)))).scalars()))
    for board in boards:
        set_scores(connection, board, dict.fromkeys(players))


# ---------------------------------------------------------------- reading
_COUNT_BEFORE = text("SELECT coalesce(sum(n), 0) FROM (" + " UNION ALL ".join(
    f"SELECT n FROM board_counts WHERE board = :board AND level = {level} "
    f"AND key >= :low{level} AND key < :key{level}" for level in range(LEVELS)) + ") AS below")
_MINE = ("(SELECT sort_key FROM board_entries WHERE board = :board "
         "AND player_id = :player)")


def _rank_sql() -> str:
    """One statement for a player's rank: their sort key, the tied entries before
    them, and the counts below their key at each level (the bounds of
    :func:`count_before`, worked out by the database from the key)."""
    levels = []
    for level in range(LEVELS):
        key = f"({_MINE} >> {SHIFT * level})"
        low = "0" if level == LEVELS - 1 else f"(({key} >> {SHIFT}) << {SHIFT})"
        levels.append(f"SELECT n FROM board_counts WHERE board = :board AND level = {level} "
                      f"AND key >= {low} AND key < {key}")
    return (f"SELECT {_MINE} AS sort_key, (SELECT count(*) FROM board_entries "
            f"WHERE board = :board AND sort_key = {_MINE} AND player_id < :player) AS ties, "
            f"(SELECT coalesce(sum(n), 0) FROM ({' UNION ALL '.join(levels)}) AS below) "
            f"AS below")


_RANK = text(_rank_sql())
_LEVEL = text("SELECT key, n FROM board_counts WHERE board = :board AND level = :level "
              "AND key >= :low AND key <= :high AND n > 0 ORDER BY key")
_NTH_TIED = text("SELECT player_id FROM board_entries WHERE board = :board "
                 "AND sort_key = :key ORDER BY player_id LIMIT 1 OFFSET :offset")
_SIZE = text(f"SELECT coalesce(sum(n), 0) FROM board_counts WHERE board = :board "
             f"AND level = {LEVELS - 1}")
def _entries(where: str, order: str) -> str:
    """A page of entries, from the index alone (the score is ``BASE - sort_key``)."""
    return (f"SELECT player_id, {BASE} - sort_key AS score, name FROM board_entries "
            f"WHERE board = :board {where} ORDER BY {order}")


_PAGE_TOP = text(_entries("", "sort_key, player_id LIMIT :limit"))
_PAGE_TIED = text(_entries("AND sort_key = :key",
                           "player_id LIMIT :limit OFFSET :offset"))
_PAGE_AFTER = text(_entries("AND sort_key > :key", "sort_key, player_id LIMIT :limit"))
TOP_KEY = (1 << 62) - 1
"""Above every count key of every level."""


def count_before(connection: Connection, board: str, key: int) -> int:
    """How many entries of ``board`` have a sort key below ``key``: at each level, the
    counts of the keys beside ``key``'s own under one parent (at most 63), and at the
    top level all those below."""
    bounds: dict[str, int | str] = {"board": board}
    for level in range(LEVELS):
        k = key >> (SHIFT * level)
        bounds[f"key{level}"] = k
        bounds[f"low{level}"] = 0 if level == LEVELS - 1 else (k >> SHIFT) << SHIFT
    return int(connection.execute(_COUNT_BEFORE, bounds).scalar() or 0)


def rank_of(connection: Connection, board: str, player: int) -> int | None:
    """The player's rank on ``board`` (1 first), or ``None`` if they are not on it (one
    statement: see :func:`count_before` for the counts)."""
    row = connection.execute(_RANK, {"board": board, "player": player}).one()
    if row.sort_key is None:
        return None
    return 1 + int(row.below or 0) + int(row.ties or 0)


def size(connection: Connection, board: str) -> int:
    """How many entries ``board`` has."""
    return int(connection.execute(_SIZE, {"board": board}).scalar() or 0)


UPPER = 2
"""The levels from this one up are read in one query when they hold few keys."""
UPPER_ROWS = 512
_UPPER = text(f"SELECT level, key, n FROM board_counts WHERE board = :board "
              f"AND level >= {UPPER} AND n > 0 ORDER BY level DESC, key LIMIT :rows")


def _find(connection: Connection, board: str, rank: int) -> tuple[int, int] | None:
    """The sort key holding ``rank`` and how many entries of that key come before it:
    down the levels, each time into the key whose counts hold the rank. The upper
    levels (few keys) come in one query, the lower ones one query each."""
    left = rank - 1
    if left < 0:
        return None
    upper = list(connection.execute(_UPPER, {"board": board, "rows": UPPER_ROWS}))
    by_level: dict[int, list[tuple[int, int]]] | None = None
    if len(upper) < UPPER_ROWS:
        by_level = {}
        for row in upper:
            by_level.setdefault(int(row.level), []).append((int(row.key), int(row.n)))
    low, high, key = 0, TOP_KEY, 0
    for level in reversed(range(LEVELS)):
        if by_level is not None and level >= UPPER:
            rows: Iterable[tuple[int, int]] = [
                (k, n) for k, n in by_level.get(level, []) if low <= k <= high]
        else:
            rows = ((int(r.key), int(r.n)) for r in connection.execute(
                _LEVEL, {"board": board, "level": level, "low": low, "high": high}))
        for k, n in rows:
            if left < n:
                key = k
                low, high = key << SHIFT, (key << SHIFT) + (1 << SHIFT) - 1
                break
            left -= n
        else:
            return None
    return key, left


def entry_at(connection: Connection, board: str, rank: int) -> tuple[int, int] | None:
    """The (sort key, player) at ``rank`` (1 first), or ``None`` past the last."""
    found = _find(connection, board, rank)
    if found is None:
        return None
    key, left = found
    player = connection.execute(_NTH_TIED, {"board": board, "key": key,
                                            "offset": left}).scalar()
    return None if player is None else (key, int(player))


@dataclass(frozen=True)
class Entry:
    """One line of a leaderboard page."""

    rank: int
    player_id: int
    username: str
    score: int


def page(connection: Connection, board: str, rank: int, limit: int) -> list[Entry]:
    """Up to ``limit`` entries of ``board`` from ``rank`` on (1 first)."""
    if rank == 1:  # the top page: the first entries of the index
        rows = list(connection.execute(_PAGE_TOP, {"board": board, "limit": limit}))
    else:
        found = _find(connection, board, rank)
        if found is None:
            return []
        key, left = found
        rows = list(connection.execute(_PAGE_TIED, {"board": board, "key": key,
                                                    "offset": left, "limit": limit}))
        if len(rows) < limit:
            rows += connection.execute(_PAGE_AFTER, {"board": board, "key": key,
                                                     "limit": limit - len(rows)})
    return [Entry(rank + i, int(r.player_id), str(r.name), int(r.score))
            for i, r in enumerate(rows)]

