"""Every finished match's play statistics and the anti-farming checks' verdict, as
stored (``match_play``, ``match_play_seats``): what :mod:`unokit.store.farming` reads at
a match end, what the full re-rate reads again, and what an operator lists.

**What is stored.** At the end of every finished match (rated or not), in the
transaction that stores its last action: its deal (the SHA-256 of its canonical rules
and seed), its end, whether it was to be rated, and one row per *participant*
(:class:`~unokit.store.farming.Participant`): each seat's holder at the end, then each
leaver, with their team and place, their play (:class:`~unokit.store.farming.SeatPlay`,
summed from the *play marks* of the actions they made while they held the seat), what
the checks read of their account then (a digest of their network address group, the
account's age, their rated matches before), and the checks' reasons.

**Where the play comes from.** The room marks each action as it applies it
(:func:`unokit.store.farming.play_mark`, O(1) per action, no replay at the end) and
passes the marks with the match's last action; without them (a tool, a test) the store
replays the record here (:func:`replayed_marks`). Either way they are a function of the
record (rules, seed, actions and their origins): :func:`replayed_play` derives them
again.

**The order of judging.** ``seq`` numbers the matches in the order they were judged.
The match end locks the rows of its players before it judges (:func:`unokit.store.
ratings.lock_players`), so each match is judged after every match of its players
committed before it, and those are exactly the matches of its players with a lower
``seq``: the re-rate judges again in ``seq`` order and sees the same history.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Table, insert, select

from unokit.engine.actions import parse_action
from unokit.engine.rules import Rules
from unokit.store.erasure import is_erased
from unokit.store.farming import (
    DAY,
    MARK_SEAT,
    RECENT_LIMIT,
    MemoryHistory,
    Participant,
    SeatPlay,
    deal_key,
    past_match,
    play_marks,
    seat_play,
)
from unokit.store.models import (
    ActionRow,
    MatchPlayRow,
    MatchPlaySeatRow,
    PlayerRow,
    RatingRow,
    RoomRow,
    SeatRow,
    SessionRow,
)
from unokit.store.seatings import MatchFacts, PlayerResult, Seating

PLAY: Table = MatchPlayRow.__table__  # type: ignore[assignment]
PLAY_SEATS: Table = MatchPlaySeatRow.__table__  # type: ignore[assignment]
ACTIONS: Table = ActionRow.__table__  # type: ignore[assignment]
PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]
RATINGS: Table = RatingRow.__table__  # type: ignore[assignment]
ROOMS: Table = RoomRow.__table__  # type: ignore[assignment]
SESSIONS: Table = SessionRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]

LOG = logging.getLogger("unokit.store")

FLAGGED_PAGE = 50
"""The most flagged matches one page lists."""


def address_group(address: str) -> str:
    """A digest of an address's network group (IPv4 /24, IPv6 /48): what the
    ``fresh_account`` check compares, without storing the address again ('' for none).

    >>> address_group("192.0.2.7") == address_group("192.0.2.200") != address_group("192.0.3.1")
    True
    >>> address_group(""), address_group("not an address")
    ('', '')
    """
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return ""
    prefix = 24 if ip.version == 4 else 48
    network = ipaddress.ip_network(f"{ip}/{prefix}", strict=False)
    return hashlib.sha256(str(network).encode()).hexdigest()[:32]


def deal_digest(rules_json: str, seed: int) -> str:
    """The stored key of a deal: the SHA-256 of :func:`unokit.store.farming.deal_key`."""
    rules = Rules.from_dict(json.loads(rules_json))
    return hashlib.sha256(deal_key(rules, seed).encode()).hexdigest()


def _play_of(marks: Sequence[int], held: Iterable[Seating]) -> SeatPlay:
    """The play of the actions a holder made while holding its seatings."""
    spans = list(held)
    return seat_play(mark for n, mark in enumerate(marks)
                     if mark >= 0 and any(s.seat == mark // MARK_SEAT and s.held_at(n)
                                          for s in spans))


def participants_of(connection: Connection, room_id: int, facts: MatchFacts,
                    seatings: Sequence[Seating], results: Mapping[int, PlayerResult],
                    marks: Sequence[int], ended_at: float) -> list[Participant]:
    """The participants of a finished match (see the module), from its record."""
    bots = {row.seat: row.bot for row in connection.execute(select(
        SEATS.c.seat, SEATS.c.bot).where(SEATS.c.room_id == room_id, SEATS.c.kind == "bot"))}
    finals = sorted((s for s in seatings if s.left_action is None), key=lambda s: s.seat)
    leavers = sorted(p for p, r in results.items() if r.left)
    people = sorted({s.player_id for s in finals if s.kind == "human"
                     and s.player_id is not None} | set(leavers))
    accounts = _accounts(connection, people, ended_at)
    if len(accounts) < len(people):  # deleted during the match: a person who is nobody
        finals = [s._replace(player_id=None)
                  if s.player_id is not None and s.player_id not in accounts else s
                  for s in finals]
        leavers = [p for p in leavers if p in accounts]
    last = max(facts.places) + 1 if facts.places else 0

    def person(seat: int, player: int | None, team: int, rank: int, left: bool,
               play: SeatPlay) -> Participant:
        address, days, matches = accounts.get(player, ("", 0.0, 0)) if player else ("", 0.0, 0)
        return Participant(seat, player, "", team, rank, play, address, days, matches, left)
    out: list[Participant] = []
    for final in finals:
        team = min(facts.team_of(final.seat))
        rank = facts.places[final.seat] if facts.places else 0
        if final.kind == "bot":
            out.append(Participant(final.seat, None, bots.get(final.seat, "normal") or "normal",
                                   team, rank, _play_of(marks, [final])))
        else:
            held = [s for s in seatings if final.player_id is not None
                    and s.player_id == final.player_id] or [final]
            out.append(person(final.seat, final.player_id, team, rank, False,
                              _play_of(marks, held)))
    for number, player in enumerate(leavers):
        held = [s for s in seatings if s.player_id == player]
        out.append(person(results[player].seat, player, 1000 + number, last, True,
                          _play_of(marks, held)))
    return out


def _accounts(connection: Connection, players: Sequence[int],
              ended_at: float) -> dict[int, tuple[str, float, int]]:
    """Each player's (address group digest, account age in days, rated matches); a
    player deleted since is left out."""
    if not players:
        return {}
    created = {row.id: row.created_at for row in connection.execute(
        select(PLAYERS.c.id, PLAYERS.c.created_at).where(PLAYERS.c.id.in_(players)))}
    players = [p for p in players if p in created]
    matches = {row.player_id: row.matches for row in connection.execute(
        select(RATINGS.c.player_id, RATINGS.c.matches).where(
            RATINGS.c.player_id.in_(players)))}
    addresses: dict[int, str] = {}
    for row in connection.execute(select(SESSIONS.c.player_id, SESSIONS.c.address).where(
            SESSIONS.c.player_id.in_(players)).order_by(SESSIONS.c.player_id,
                                                         SESSIONS.c.seen_at,
                                                         SESSIONS.c.created_at)):
        addresses[row.player_id] = row.address  # the last one seen
    return {p: (address_group(addresses.get(p, "")),
                max(0.0, (ended_at - created.get(p, ended_at)) / DAY), matches.get(p, 0))
            for p in players}


def rateable(connection: Connection, room_id: int,
             participants: Sequence[Participant]) -> bool:
    """Whether a finished match is to be rated, before the checks: a rated room, every
    person an account (no guest, no seat taken without a session), and two teams."""
    rated = connection.execute(select(ROOMS.c.rated).where(ROOMS.c.id == room_id)).scalar()
    people = [p for p in participants if not p.bot]
    if not rated or not people or any(p.player is None for p in people):
        return False
    ids = sorted({p.player for p in people if p.player is not None})
    accounts = set(connection.execute(select(PLAYERS.c.id).where(
        PLAYERS.c.id.in_(ids), PLAYERS.c.username_key.is_not(None))).scalars())
    return accounts == set(ids) and len({p.team for p in participants}) >= 2


def load_history(connection: Connection, players: Sequence[int], since: float,
                 deal: str) -> MemoryHistory:
    """What the checks read of ``players``' earlier matches: each one's last
    :data:`~unokit.store.farming.RECENT_LIMIT` matches that ended at ``since`` or later,
    and whether they had ``deal`` before (any time)."""
    found: dict[int, Any] = {}
    for player in sorted(set(players)):
        for row in connection.execute(
                select(PLAY.c.seq, PLAY.c.match_id, PLAY.c.ended_at, PLAY.c.deal)
                .join(PLAY_SEATS, PLAY_SEATS.c.match_id == PLAY.c.match_id)
                .where(PLAY_SEATS.c.player_id == player, PLAY.c.ended_at >= since)
                .distinct().order_by(PLAY.c.seq.desc()).limit(RECENT_LIMIT)):
            found[row.seq] = row
    parts = _participants(connection, [row.match_id for row in found.values()])
    history = MemoryHistory()
    for seq in sorted(found):
        row = found[seq]
        history.add(past_match(row.match_id, row.ended_at, row.deal, parts[row.match_id]))
    for player in sorted(set(players)):
        had = connection.execute(
            select(PLAY.c.seq).join(PLAY_SEATS, PLAY_SEATS.c.match_id == PLAY.c.match_id)
            .where(PLAY.c.deal == deal, PLAY_SEATS.c.player_id == player).limit(1)).first()
        if had is not None:
            history.saw(player, deal)
    return history


def _participant(row: Any) -> Participant:
    return Participant(row.seat, row.player_id, row.bot, row.team, row.rank,
                       SeatPlay(row.turns, row.playable_turns, row.voluntary_draws,
                                row.actions, row.played_for),
                       row.address, row.account_days, row.rated_matches, row.left)


def _participants(connection: Connection, matches: Sequence[int]
                  ) -> dict[int, list[Participant]]:
    out: dict[int, list[Participant]] = {m: [] for m in matches}
    ids = sorted(out)
    for start in range(0, len(ids), 500):
        for row in connection.execute(select(PLAY_SEATS).where(
                PLAY_SEATS.c.match_id.in_(ids[start:start + 500]))
                .order_by(PLAY_SEATS.c.match_id, PLAY_SEATS.c.slot)):
            out[row.match_id].append(_participant(row))
    return out


def write_play(connection: Connection, room_id: int, deal: str, ended_at: float,
               participants: Sequence[Participant], rated: bool,
               reasons: Mapping[int, Sequence[str]]) -> None:
    """Store a finished match's participants and verdict (its ``seq`` is given here,
    after its players' rows were locked)."""
    connection.execute(insert(PLAY).values(match_id=room_id, deal=deal, ended_at=ended_at,
                                           rated=rated, flagged=bool(reasons)))
    connection.execute(insert(PLAY_SEATS), [
        {"match_id": room_id, "slot": slot, "seat": p.seat, "player_id": p.player,
         "bot": p.bot, "team": p.team, "rank": p.rank, "left": p.left,
         "turns": p.play.turns, "playable_turns": p.play.playable_turns,
         "voluntary_draws": p.play.voluntary_draws, "actions": p.play.actions,
         "played_for": p.play.played_for, "address": p.address,
         "account_days": p.account_days, "rated_matches": p.rated_matches,
         "reasons": ",".join(reasons.get(slot, ()))}
        for slot, p in enumerate(participants)])


def judged(connection: Connection) -> list[tuple[Any, list[Participant],
                                                 dict[int, tuple[str, ...]]]]:
    """Every stored match in the order it was judged: its row, its participants and the
    stored reasons by participant. A check to run offline: it reads every row."""
    rows = list(connection.execute(select(PLAY).order_by(PLAY.c.seq)))
    reasons: dict[int, dict[int, tuple[str, ...]]] = {}
    parts: dict[int, list[Participant]] = {row.match_id: [] for row in rows}
    for row in connection.execute(select(PLAY_SEATS).order_by(PLAY_SEATS.c.match_id,
                                                              PLAY_SEATS.c.slot)):
        if row.match_id in parts:
            parts[row.match_id].append(_participant(row))
            if row.reasons:
                reasons.setdefault(row.match_id, {})[row.slot] = tuple(row.reasons.split(","))
    return [(row, parts[row.match_id], reasons.get(row.match_id, {})) for row in rows]


def replayed_marks(connection: Connection, room_id: int, *, strict: bool = True
                   ) -> list[int]:
    """The play marks of a room's stored actions, replayed from its record (CPU work:
    the server's rooms pass the marks they made instead). Not ``strict``: a record that
    does not replay (rules or actions that do not match) gives no marks, and a warning
    is logged, rather than failing the match end it comes with.

    Raises:
        ValueError: ``strict``, and the record does not replay (an UnoError).
    """
    room = connection.execute(select(ROOMS.c.rules, ROOMS.c.seed).where(
        ROOMS.c.id == room_id)).one()
    rows = list(connection.execute(
        select(ACTIONS.c.action, ACTIONS.c.origin).where(ACTIONS.c.room_id == room_id)
        .order_by(ACTIONS.c.n)))
    try:
        actions = [(parse_action(row.action), row.origin) for row in rows]
        return play_marks(Rules.from_dict(json.loads(room.rules)), int(room.seed), actions)
    except ValueError as exc:  # UnoError among them
        if strict:
            raise
        LOG.warning("a finished match's record does not replay: no play statistics",
                    extra={"room_id": room_id, "error": str(exc)})
        return [-MARK_SEAT] * len(rows)


def replayed_play(connection: Connection, room_id: int,
                  seatings: Sequence[Seating]) -> list[SeatPlay]:
    """Each stored participant's play of a finished match derived again from its
    record: the stored statistics are a function of it."""
    marks = replayed_marks(connection, room_id)
    out = []
    for row in connection.execute(select(PLAY_SEATS).where(
            PLAY_SEATS.c.match_id == room_id).order_by(PLAY_SEATS.c.slot)):
        if row.bot or row.player_id is None:
            held = [s for s in seatings if s.seat == row.seat and s.left_action is None]
        else:
            held = [s for s in seatings if s.player_id == row.player_id]
        out.append(_play_of(marks, held))
    return out


def flagged_matches(connection: Connection, before: int | None = None,
                    limit: int = FLAGGED_PAGE) -> tuple[list[dict[str, Any]], int | None]:
    """The flagged matches, newest first, from before ``before`` (a ``seq``): each with
    its room's code, its end and its participants' players, places and reasons; and the
    ``before`` of the next page (``None``: no more)."""
    limit = max(1, min(limit, FLAGGED_PAGE))
    query = select(PLAY.c.seq, PLAY.c.match_id, PLAY.c.ended_at, ROOMS.c.code).outerjoin(
        ROOMS, ROOMS.c.id == PLAY.c.match_id).where(PLAY.c.flagged.is_(True))
    if before is not None:
        query = query.where(PLAY.c.seq < before)
    rows = list(connection.execute(query.order_by(PLAY.c.seq.desc()).limit(limit + 1)))
    page = rows[:limit]
    seats: dict[int, list[dict[str, Any]]] = {row.match_id: [] for row in page}
    for seat in connection.execute(
            select(PLAY_SEATS.c.match_id, PLAY_SEATS.c.seat, PLAY_SEATS.c.player_id,
                   PLAY_SEATS.c.bot, PLAY_SEATS.c.rank, PLAY_SEATS.c.reasons,
                   PLAYERS.c.username)
            .outerjoin(PLAYERS, PLAYERS.c.id == PLAY_SEATS.c.player_id)
            .where(PLAY_SEATS.c.match_id.in_(sorted(seats)))
            .order_by(PLAY_SEATS.c.match_id, PLAY_SEATS.c.slot)):
        seats[seat.match_id].append({
            "seat": seat.seat,
            "player": None if is_erased(seat.player_id) else seat.player_id,
            "name": seat.username,
            "bot": seat.bot or None, "place": seat.rank + 1,
            "reasons": seat.reasons.split(",") if seat.reasons else []})
    out = [{"match": row.match_id, "code": row.code, "ended_at": row.ended_at,
            "seq": row.seq, "seats": seats[row.match_id]} for row in page]
    return out, (page[-1].seq if len(rows) > limit else None)
