"""Challenge progress and rewards, stored (docs/accounts.md, "Challenges and coins").

**Progress** is derived from the match record alone, as the XP ledger is
(:mod:`unokit.store.seatings`): each challenge counts one metric of a player's finished
matches (:data:`unokit.store.catalogue.METRICS`), only matches whose rules meet its
condition. :func:`write_progress` raises it in the transaction that stores the match's
last action, fenced by the room's lease like the XP ledger; a leaver (as for XP)
counts nothing from that match, and guests count like accounts (a claimed account
keeps its id, so its progress). :func:`recompute_progress` derives it all again from
the stored records.

**Periods** are named by their end, in seconds since the epoch, UTC
(:func:`period_end`): a day ends at the next 00:00 UTC, a week at the next Monday 00:00
UTC. A match counts in the period in which it ended. A new period is a new row, so a
reset deletes nothing; old periods are not shown, and :func:`prune_progress` may
delete the rows of periods long over.

**Rewards** are claimed (:func:`claim_reward`): a completed challenge's XP and coins
are paid in one transaction whose first write is the reward's row, keyed by player,
challenge and period, so that however many claims come at once, from however many
processes, one pays and the others find it paid. A reward may be claimed until
:data:`CLAIM_DAYS` days after its period ended.

>>> period_end("daily", 1_796_342_399.5)  # 2026-12-03 23:59:59.5 UTC
1796342400
>>> period_end("weekly", 1_796_342_400.0)  # Friday 2026-12-04 00:00 -> Monday 12-07
1796601600
"""

from __future__ import annotations

import asyncio
import bisect
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Table, delete, select, tuple_, update

from unokit.engine.rules import Rules
from unokit.store import coins
from unokit.store.catalogue import CHALLENGE_BY_ID, CHALLENGES, Challenge
from unokit.store.models import ChallengeProgressRow, ChallengeRewardRow, PlayerRow, RoomRow
from unokit.store.seatings import (
    ACTIONS,
    ActionFacts,
    MatchFacts,
    PlayerResult,
    Seating,
    ledger,
    read_record,
)

if TYPE_CHECKING:  # the store calls write_progress: no import of it at run time
    from unokit.store.store import Store

PROGRESS: Table = ChallengeProgressRow.__table__  # type: ignore[assignment]
REWARDS: Table = ChallengeRewardRow.__table__  # type: ignore[assignment]
PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]
ROOMS: Table = RoomRow.__table__  # type: ignore[assignment]

DAY = 86_400
WEEK = 7 * DAY
MONDAY = 4 * DAY
"""1970-01-05 00:00 UTC, the first Monday of the epoch (1970-01-01 was a Thursday)."""
LENGTH = {"daily": DAY, "weekly": WEEK}
CLAIM_DAYS = 7
"""Days after a period's end during which its completed challenges may still be
claimed (and are listed)."""
RECOMPUTE_BATCH = 50

_LINE_OF_METRIC = {"matches_played": "played", "matches_won": "won_match",
                   "rounds_won": "won_round", "draw_twos": "draw_two",
                   "wild_draw_fours": "wild_draw_four"}
"""The metrics that are counts of an XP line (the other, ``uno_catches``, is not)."""


def period_end(period: str, at: float) -> int:
    """The end of the ``period`` (``daily``, ``weekly``) that the time ``at`` (seconds
    since the epoch) lies in: the first day or week boundary after it, UTC."""
    if period == "daily":
        return (math.floor(at / DAY) + 1) * DAY
    return (math.floor((at - MONDAY) / WEEK) + 1) * WEEK + MONDAY


def is_period_end(period: str, end: int) -> bool:
    """Whether ``end`` is the end of some ``period``.

    >>> is_period_end("weekly", 1796601600), is_period_end("weekly", 1796342400)
    (True, False)
    """
    return period_end(period, end - 1) == end


# ---------------------------------------------------------------- what a match counts
def metrics(facts: MatchFacts, actions: Sequence[ActionFacts], seatings: Iterable[Seating],
            results: dict[int, PlayerResult]) -> dict[int, dict[str, int]]:
    """Each player's metrics of a finished match: the counts of its XP lines
    (``results``, from :func:`unokit.store.seatings.ledger`), and the missed UNO calls
    the player caught (a catch they chose, ``origin`` ``player``, in a seat they held
    then). A leaver gets none.

    >>> facts = MatchFacts(winners=(1,), catches=((3, 1),))
    >>> actions = [ActionFacts(n, n % 2, "player", n) for n in range(5)]
    >>> seatings = [Seating(0, 0, 7, "human", 0, 2), Seating(1, 0, 8, "human", 0, None)]
    >>> metrics(facts, actions, seatings, ledger(facts, actions, seatings))
    {8: {'matches_played': 1, 'matches_won': 1, 'uno_catches': 1}}
    """
    out: dict[int, dict[str, int]] = {}
    for player, result in results.items():
        if result.left:
            continue
        counted = {metric: result.lines.get(line, 0)
                   for metric, line in _LINE_OF_METRIC.items()}
        out[player] = {k: v for k, v in counted.items() if v}
    if not facts.catches:
        return out
    seqs = [a.seq for a in actions]
    holders = [s for s in seatings if s.kind == "human" and s.player_id in out]
    for seq, seat in facts.catches:
        n = bisect.bisect_left(seqs, seq)
        if n >= len(actions) or actions[n].origin != "player":
            continue
        for holder in holders:
            if holder.seat == seat and holder.held_at(actions[n].n):
                mine = out[holder.player_id]  # type: ignore[index]
                mine["uno_catches"] = mine.get("uno_catches", 0) + 1
                break
    return out


def progress_of(rules: Rules, counted: dict[int, dict[str, int]], ended_at: float,
                table: Iterable[Challenge] = CHALLENGES) -> dict[tuple[int, int, str], int]:
    """What a match ending at ``ended_at`` adds to each challenge of each player:
    ``{(player, period end, challenge): amount}`` (amounts above 0 only)."""
    out: dict[tuple[int, int, str], int] = {}
    for challenge in table:
        if not challenge.counts(rules):
            continue
        end = period_end(challenge.period, ended_at)
        for player, mine in counted.items():
            amount = mine.get(challenge.metric, 0)
            if amount:
                out[(player, end, challenge.id)] = amount
    return out


def write_progress(connection: Connection, room_id: int, facts: MatchFacts,
                   results: dict[int, PlayerResult], ended_at: float) -> None:
    """In the transaction that stores a match's last action, after its XP ledger
    (``results``: :func:`unokit.store.seatings.write_ledger`'s): raise each player's
    progress in the challenges the match counts for."""
    if not any(not r.left for r in results.values()):
        return
    actions: list[ActionFacts] = []
    seatings: list[Seating] = []
    if facts.catches:
        actions, seatings = read_record(connection, room_id)
    rules_text = connection.execute(select(ROOMS.c.rules).where(
        ROOMS.c.id == room_id)).scalar()
    rules = Rules.from_dict(json.loads(str(rules_text)))
    adds = progress_of(rules, metrics(facts, actions, seatings, results), ended_at)
    if not adds:
        return
    query = coins.upsert(connection, PROGRESS).values([
        {"player_id": p, "period_end": end, "challenge": c, "progress": amount}
        for (p, end, c), amount in sorted(adds.items())])
    connection.execute(query.on_conflict_do_update(
        index_elements=[PROGRESS.c.player_id, PROGRESS.c.period_end, PROGRESS.c.challenge],
        set_={"progress": PROGRESS.c.progress + query.excluded.progress}))


# ---------------------------------------------------------------- the player's list
@dataclass(frozen=True)
class Entry:
    """One challenge of one period, as a player sees it."""

    challenge: Challenge
    period_end: int
    progress: int
    claimed: bool
    current: bool

    @property
    def done(self) -> bool:
        """Whether the goal is reached."""
        return self.progress >= self.challenge.goal

    def json(self, title: str) -> dict[str, Any]:
        """As the API shows it (``title``: in the client's language)."""
        c = self.challenge
        return {"id": c.id, "period": c.period, "title": title, "metric": c.metric,
                "rules": c.rules_json(), "goal": c.goal,
                "progress": min(self.progress, c.goal), "xp": c.xp, "coins": c.coins,
                "ends_at": self.period_end, "current": self.current,
                "claimed": self.claimed, "claimable": self.done and not self.claimed}


async def player_challenges(store: Store, player_id: int, *, now: float) -> list[Entry]:
    """The player's challenges: each one's current period, then the completed,
    unclaimed ones of periods that ended in the last :data:`CLAIM_DAYS` days (newest
    first). At most one row per challenge and period of that window is read."""
    since = now - CLAIM_DAYS * DAY

    def read(connection: Connection) -> tuple[dict[tuple[int, str], int], set[tuple[int, str]]]:
        progress = {(int(row.period_end), str(row.challenge)): int(row.progress)
                    for row in connection.execute(select(PROGRESS).where(
                        PROGRESS.c.player_id == player_id, PROGRESS.c.period_end > since))}
        claimed = {(int(row.period_end), str(row.challenge))
                   for row in connection.execute(select(
                       REWARDS.c.period_end, REWARDS.c.challenge).where(
                       REWARDS.c.player_id == player_id, REWARDS.c.period_end > since))}
        return progress, claimed
    progress, claimed = await store.run(read)
    entries = []
    for challenge in CHALLENGES:
        end = period_end(challenge.period, now)
        entries.append(Entry(challenge, end, progress.get((end, challenge.id), 0),
                             (end, challenge.id) in claimed, True))
    past = sorted(((end, cid) for end, cid in progress
                   if end <= now and cid in CHALLENGE_BY_ID
                   and progress[(end, cid)] >= CHALLENGE_BY_ID[cid].goal
                   and (end, cid) not in claimed), key=lambda k: (-k[0], k[1]))
    entries += [Entry(CHALLENGE_BY_ID[cid], end, progress[(end, cid)], False, False)
                for end, cid in past]
    return entries


# ---------------------------------------------------------------- claims
class BadPeriod(ValueError):
    """A claim names no period of the challenge that may be claimed now: ``reason``
    is ``not_a_period`` (not an end of that challenge's periods, or one to come) or
    ``expired`` (it ended more than :data:`CLAIM_DAYS` days ago)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Paid:
    """A reward paid: its XP and coins, and the player's coins after it."""

    xp: int
    coins: int
    balance: int


def check_period(challenge: Challenge, end: int, now: float) -> None:
    """Whether a reward of ``challenge`` for the period ending at ``end`` may be
    claimed at ``now``.

    Raises:
        BadPeriod: not one of its periods up to the current one, or claimed too late.
    """
    if not is_period_end(challenge.period, end) or end > period_end(challenge.period, now):
        raise BadPeriod("not_a_period")
    if end <= now - CLAIM_DAYS * DAY:
        raise BadPeriod("expired")


async def claim_reward(store: Store, player_id: int, challenge_id: str, end: int, *,
                       now: float) -> Paid | str:
    """Pay the reward of the challenge ``challenge_id`` (a known one) for the period
    ending at ``end`` (checked with :func:`check_period`), once: :class:`Paid`, or
    ``"not_complete"`` (its goal not reached) or ``"claimed"`` (paid before, maybe by
    a claim a moment ago); then nothing changed.

    The reward's row goes in first, ``ON CONFLICT DO NOTHING`` on its key: of claims
    at once, one inserts it and pays in the same transaction, and the others find it
    (PostgreSQL makes them wait for the first to commit; SQLite runs one writer at a
    time)."""
    challenge = CHALLENGE_BY_ID[challenge_id]
    check_period(challenge, end, now)

    def write(connection: Connection) -> Paid | str:
        progress = connection.execute(select(PROGRESS.c.progress).where(
            PROGRESS.c.player_id == player_id, PROGRESS.c.period_end == end,
            PROGRESS.c.challenge == challenge.id)).scalar()
        if progress is None or int(progress) < challenge.goal:
            return "not_complete"
        query = coins.upsert(connection, REWARDS).values(
            player_id=player_id, period_end=end, challenge=challenge.id, xp=challenge.xp,
            coins=challenge.coins, claimed_at=now)
        if connection.execute(query.on_conflict_do_nothing().returning(
                REWARDS.c.player_id)).first() is None:
            return "claimed"
        if challenge.coins:
            coins.credit(connection, player_id, challenge.coins, "challenge",
                         f"challenge:{challenge.id}:{end}", now)
        if challenge.xp:
            connection.execute(update(PLAYERS).where(PLAYERS.c.id == player_id).values(
                xp=PLAYERS.c.xp + challenge.xp))
        return Paid(challenge.xp, challenge.coins, coins.balance(connection, player_id))
    return await store.run(write)


# ---------------------------------------------------------------- checks and upkeep
async def stored_progress(store: Store) -> dict[tuple[int, int, str], int]:
    """Every progress row: ``{(player, period end, challenge): progress}``."""
    def read(connection: Connection) -> dict[tuple[int, int, str], int]:
        return {(int(row.player_id), int(row.period_end), str(row.challenge)):
                int(row.progress) for row in connection.execute(select(PROGRESS))}
    return await store.run(read)


async def stored_rewards(store: Store) -> dict[tuple[int, int, str], tuple[int, int]]:
    """Every reward paid: ``{(player, period end, challenge): (xp, coins)}``."""
    def read(connection: Connection) -> dict[tuple[int, int, str], tuple[int, int]]:
        return {(int(row.player_id), int(row.period_end), str(row.challenge)):
                (int(row.xp), int(row.coins)) for row in connection.execute(select(REWARDS))}
    return await store.run(read)


def _replay_progress(room: Any, record: tuple[list[ActionFacts], list[Seating]],
                     texts: list[str], live: set[int]) -> dict[tuple[int, int, str], int]:
    from unokit.store.xp import replay_facts  # xp needs the store, which needs this

    rules, facts = replay_facts(room.rules, int(room.seed), texts)
    actions, seatings = record
    results = {p: r for p, r in ledger(facts, actions, seatings).items() if p in live}
    return progress_of(rules, metrics(facts, actions, seatings, results), room.ended_at)


async def recompute_progress(store: Store) -> dict[tuple[int, int, str], int]:
    """The progress of every player derived again from the records of the finished
    matches still stored alone (replayed in a worker thread, :data:`RECOMPUTE_BATCH`
    rooms a read): what :func:`stored_progress` holds while no match was pruned."""
    out: dict[tuple[int, int, str], int] = {}
    after = 0
    while True:
        def read(connection: Connection, after: int = after) -> list[Any]:
            rooms = connection.execute(
                select(ROOMS.c.id, ROOMS.c.rules, ROOMS.c.seed, ROOMS.c.ended_at).where(
                    ROOMS.c.status == "finished", ROOMS.c.id > after)
                .order_by(ROOMS.c.id).limit(RECOMPUTE_BATCH)).all()
            return [(room, read_record(connection, room.id), [
                str(text) for text in connection.execute(select(ACTIONS.c.action).where(
                    ACTIONS.c.room_id == room.id).order_by(ACTIONS.c.n)).scalars()])
                for room in rooms]
        batch = await store.run(read)
        if not batch:
            return out
        live = await store.run(lambda c: {int(p) for p in c.execute(
            select(PLAYERS.c.id)).scalars()})
        for room, record, texts in batch:
            adds = await asyncio.to_thread(_replay_progress, room, record, texts, live)
            for key, amount in adds.items():
                out[key] = out.get(key, 0) + amount
        after = batch[-1][0].id


async def prune_progress(store: Store, ended_before: float, *, batch: int = 500) -> int:
    """Delete the progress of periods that ended before ``ended_before``, at most
    ``batch`` rows a transaction (their rewards stay: they are the record of what was
    paid); how many rows."""
    from unokit.store.lifecycle import in_batches  # it needs the store, which needs this

    key = tuple_(PROGRESS.c.player_id, PROGRESS.c.period_end, PROGRESS.c.challenge)

    def write(connection: Connection) -> int:
        old = select(PROGRESS.c.player_id, PROGRESS.c.period_end, PROGRESS.c.challenge) \
            .where(PROGRESS.c.period_end < ended_before).limit(batch)
        return int(connection.execute(delete(PROGRESS).where(
            key.in_(old.subquery().select()))).rowcount)
    return await in_batches(store, write, batch)


TABLES = (PROGRESS, REWARDS, *coins.TABLES)
"""Every table of a player's challenges, coins and cosmetics (deleted with them)."""
