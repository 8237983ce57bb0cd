"""Ratings as stored: each rated match's entrants (``rating_results``) and each
player's current rating (``ratings``), written in the transaction that stores the
match's last action, and the full re-rate that derives every rating again from the
stored entrants.

**Which matches are rated.** A room is rated unless it was made with
``"rated": false``. A match of a rated room is rated when every person who held a seat
at its end, and every leaver, is an account (not a guest, not a seat taken without a
session), and it has at least one such person and two teams. Bots take part at their
fixed ratings (:data:`unokit.store.rating_model.BOT_RATINGS`).

**Who enters, at which place.** Each seat's holder at the end, at the seat's place in
the finishing order (:func:`unokit.store.rating_model.places`), with its partner as
one team; each leaver last, on a team of their own; less every participant the
anti-farming checks void (:func:`unokit.store.farming.judge_match`, run here on the
play statistics and history of :mod:`unokit.store.match_play`): a voided participant's
rating does not move, and the others are rated over the order among themselves.

**The re-rate.** Each entrant row keeps the player's count of rated matches before it
(``n``), so the matches are replayed in an order that gives each player their matches
in the order they were rated (:func:`rerate`), from the first rating (mu 25, sigma 25/3) and
the bots' stored fixed ratings; the matches of revision 0011 on are judged again by the
checks first, in the order the server judged them, from their stored participants
(:func:`rerate_all`): it reproduces every stored float and verdict exactly.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy import Connection, Table, insert, select, update

from unokit.store import boards, farming, match_play
from unokit.store.models import (
    PlayerRow,
    RatingResultRow,
    RatingRow,
    RoomRow,
    SeatRow,
)
from unokit.store.rating_model import MU, SIGMA, Entrant, display, rate
from unokit.store.rating_notices import RatingNotice, notice_for, seat_notices
from unokit.store.seatings import SEATINGS, MatchFacts, PlayerResult, read_record

if TYPE_CHECKING:
    from unokit.store.store import Store

RATINGS: Table = RatingRow.__table__  # type: ignore[assignment]
RESULTS: Table = RatingResultRow.__table__  # type: ignore[assignment]
PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]
ROOMS: Table = RoomRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]


@dataclass(frozen=True)
class SeatRating:
    """A rated entrant's rating after a match, as the match end shows it."""

    player_id: int
    rating: int
    """The rating shown (:func:`unokit.store.rating_model.display`)."""
    change: int
    """How it moved in this match."""
    provisional: bool
    notice: RatingNotice | None = None
    """Why the match did not count for this seat's rating, or counted only in part
    (:mod:`unokit.store.rating_notices`; ``None``: it counted in full). A seat whose
    rating did not move shows its rating as it stands, with a change of 0."""

    @property
    def counted(self) -> bool:
        """Whether the seat's rating moved in this match."""
        return self.notice is None or self.notice.counted


@dataclass
class Rated:
    """A rated match's entrants before and after."""

    entrants: list[Entrant]
    after: list[tuple[float, float]]
    seats: list[int]
    """Each entrant's seat."""
    counts: list[int]
    """Each entrant's rated matches before this one (-1: a bot)."""


def lock_players(connection: Connection, room_id: int) -> None:
    """Lock the rows of every player who held a seat of the match (in the order of
    their ids), before its XP, ratings and leaderboards are written: two matches that
    share a player are written one after the other."""
    ids = sorted({int(p) for p in connection.execute(select(SEATINGS.c.player_id).where(
        SEATINGS.c.room_id == room_id, SEATINGS.c.player_id.is_not(None))).scalars()})
    if ids:
        connection.execute(select(PLAYERS.c.id).where(PLAYERS.c.id.in_(ids))
                           .order_by(PLAYERS.c.id).with_for_update()).all()


def write_ratings(connection: Connection, room_id: int, facts: MatchFacts,
                  results: Mapping[int, PlayerResult], ended_at: float,
                  policy: boards.Policy, marks: Sequence[int] | None = None
                  ) -> dict[int, SeatRating]:
    """In the transaction that stores a match's last action: store its participants and
    their play (:mod:`unokit.store.match_play`; ``marks``: the play marks the room made
    of its actions, else the record is replayed here), run the anti-farming checks if it
    is rated, rate the participants they leave alone, store the entrants and the
    players' new ratings, and bring the leaderboards of every player of the match up
    to date. The rated players' new ratings, by seat, and the seats of a rated match
    whose rating the checks kept from moving, each with its :attr:`SeatRating.notice`."""
    actions, seatings = read_record(connection, room_id)
    if marks is None or len(marks) != len(actions):
        marks = match_play.replayed_marks(connection, room_id, strict=False)
    room = connection.execute(select(ROOMS.c.rules, ROOMS.c.seed).where(
        ROOMS.c.id == room_id)).one()
    deal = match_play.deal_digest(room.rules, int(room.seed))
    parts = match_play.participants_of(connection, room_id, facts, seatings, results,
                                       marks, ended_at)
    rated = bool(facts.places) and match_play.rateable(connection, room_id, parts)
    reasons: dict[int, tuple[str, ...]] = {}
    if rated:
        players = [p.player for p in parts if p.player is not None]
        history = match_play.load_history(connection, players,
                                          ended_at - farming.PAIR_DAYS * farming.DAY, deal)
        reasons = farming.judge_match(room_id, ended_at, deal, parts, history)
    match_play.write_play(connection, room_id, deal, ended_at, parts, rated, reasons)
    shown: dict[int, SeatRating] = {}
    if rated:
        ids = sorted({p.player for p in parts if p.player is not None})
        held = {row.player_id: row for row in connection.execute(select(
            RATINGS.c.player_id, RATINGS.c.mu, RATINGS.c.sigma, RATINGS.c.matches).where(
                RATINGS.c.player_id.in_(ids)))}
        found = farming.rated_entrants(
            parts, reasons,
            lambda p: (held[p].mu, held[p].sigma) if p in held else (MU, SIGMA))
        entrants = [e for _, e in found]
        after = rate(entrants) if entrants else []
        rows = []
        for slot, ((index, entrant), (mu, sigma)) in enumerate(zip(found, after, strict=True)):
            player = entrant.player_id
            n = -1 if player is None else (held[player].matches if player in held else 0)
            rows.append({"match_id": room_id, "slot": slot, "player_id": player,
                         "bot": entrant.bot, "team": entrant.team, "rank": entrant.rank,
                         "n": n, "mu_before": entrant.mu, "sigma_before": entrant.sigma,
                         "mu_after": mu, "sigma_after": sigma, "ended_at": ended_at})
            if player is None:
                continue
            change = display(mu) - display(entrant.mu)
            values = {"mu": mu, "sigma": sigma, "matches": n + 1, "change": change,
                      "updated_at": ended_at}
            if player in held:
                connection.execute(update(RATINGS).where(
                    RATINGS.c.player_id == player).values(values))
            else:
                connection.execute(insert(RATINGS).values(player_id=player,
                                                           active_until=0.0, **values))
            seat = parts[index].seat
            if seat not in shown and not parts[index].left:
                shown[seat] = SeatRating(player, display(mu), change,
                                         sigma >= policy.provisional_sigma)
        if rows:
            connection.execute(insert(RESULTS), rows)
        if reasons:
            _tell(shown, parts, reasons, bool(found), held, policy)
    boards.refresh(connection, sorted(results), ended_at, policy)
    return shown


def _tell(shown: dict[int, SeatRating], parts: Sequence[farming.Participant],
          reasons: Mapping[int, Sequence[str]], rated_any: bool, held: Mapping[int, Any],
          policy: boards.Policy) -> None:
    """Give each seat of a flagged match its notice (:mod:`unokit.store.rating_notices`):
    a rated seat that the rest were rated without, and a seat whose rating did not
    move (shown as it stands)."""
    for seat, rating in list(shown.items()):
        shown[seat] = dataclasses.replace(rating, notice=notice_for((), True, rated_any))
    for index, part in enumerate(parts):
        if part.player is None or part.bot or part.left or part.seat in shown:
            continue
        notice = notice_for(reasons.get(index, ()), True, rated_any)
        if notice is None:
            continue
        mu, sigma = ((held[part.player].mu, held[part.player].sigma)
                     if part.player in held else (MU, SIGMA))
        shown[part.seat] = SeatRating(part.player, display(mu), 0,
                                      sigma >= policy.provisional_sigma, notice)


def shown_ratings(connection: Connection, match_ids: Sequence[int],
                  policy: boards.Policy) -> dict[int, dict[int, SeatRating]]:
    """What the end of each of the matches ``match_ids`` showed (as
    :func:`write_ratings` returned it), read back from the stored entrants and the
    checks' verdicts, by match and seat: a room rebuilt after its match ended (a
    restart, a takeover) shows the reveal's ratings and notices again. A match that
    was not rated has none. A seat whose rating did not move shows the rating its
    player holds now."""
    out: dict[int, dict[int, SeatRating]] = {m: {} for m in match_ids}
    if not out:
        return out
    ids = sorted(out)
    seat_of: dict[tuple[int, int], int] = {}
    for row in connection.execute(select(
            match_play.PLAY_SEATS.c.match_id, match_play.PLAY_SEATS.c.player_id,
            match_play.PLAY_SEATS.c.seat).where(
            match_play.PLAY_SEATS.c.match_id.in_(ids),
            match_play.PLAY_SEATS.c.player_id.is_not(None),
            match_play.PLAY_SEATS.c.left.is_(False)).order_by(
            match_play.PLAY_SEATS.c.match_id, match_play.PLAY_SEATS.c.slot)):
        seat_of.setdefault((row.match_id, row.player_id), row.seat)
    for row in connection.execute(select(RESULTS).where(
            RESULTS.c.match_id.in_(ids), RESULTS.c.player_id.is_not(None))
            .order_by(RESULTS.c.match_id, RESULTS.c.slot)):
        seat = seat_of.get((row.match_id, row.player_id))
        if seat is not None and seat not in out[row.match_id]:
            out[row.match_id][seat] = SeatRating(
                row.player_id, display(row.mu_after),
                display(row.mu_after) - display(row.mu_before),
                row.sigma_after >= policy.provisional_sigma)
    told = seat_notices(connection, ids)
    players = sorted({p.player for found in told.values() for p, _ in found
                      if p.player is not None})
    held = {row.player_id: row for row in connection.execute(select(
        RATINGS.c.player_id, RATINGS.c.mu, RATINGS.c.sigma).where(
            RATINGS.c.player_id.in_(players)))}
    for match, found in told.items():
        shown = out[match]
        for part, notice in found:
            if part.player is None or part.bot or part.left:
                continue
            if part.seat in shown:
                shown[part.seat] = dataclasses.replace(shown[part.seat], notice=notice)
            else:
                mu, sigma = ((held[part.player].mu, held[part.player].sigma)
                             if part.player in held else (MU, SIGMA))
                shown[part.seat] = SeatRating(part.player, display(mu), 0,
                                              sigma >= policy.provisional_sigma, notice)
    return out


# ---------------------------------------------------------------- the re-rate
class _Entry(NamedTuple):
    """One entrant to rate again: as stored (a match judged before revision 0011) or
    as the checks judge it again."""

    slot: int
    player_id: int | None
    bot: str
    team: int
    rank: int
    n: int
    mu_before: float
    sigma_before: float


@dataclass
class Rerate:
    """What the full re-rate derives from the stored history (:func:`rerate_all`)."""

    ratings: dict[int, tuple[float, float, int]]
    """``{player: (mu, sigma, matches)}``, players deleted since among them."""
    afters: dict[tuple[int, int], tuple[float, float]]
    """``{(match, slot): (mu_after, sigma_after)}``."""
    reasons: dict[int, dict[int, tuple[str, ...]]]
    """The checks' reasons, ``{match: {participant: reasons}}`` (flagged matches only)."""


def _judged_again(connection: Connection, counts: dict[int, int]
                  ) -> tuple[dict[int, list[_Entry]], dict[int, dict[int, tuple[str, ...]]]]:
    """Every judged match's entrants and reasons, judged again in the order the server
    judged them, from the stored participants alone (their rated matches counted here).
    ``counts``: each player's rated matches before the first judged match; raised."""
    history = farming.MemoryHistory()
    entries: dict[int, list[_Entry]] = {}
    flagged: dict[int, dict[int, tuple[str, ...]]] = {}
    for row, parts, _ in match_play.judged(connection):
        if row.rated:
            seen = [dataclasses.replace(p, rated_matches=counts.get(p.player, 0))
                    if p.player is not None else p for p in parts]
            reasons = farming.judge_match(row.match_id, row.ended_at, row.deal, seen, history)
            if reasons:
                flagged[row.match_id] = reasons
            found = farming.rated_entrants(parts, reasons, lambda p: (MU, SIGMA))
            rows = []
            for slot, (_, e) in enumerate(found):
                n = -1 if e.player_id is None else counts.get(e.player_id, 0)
                rows.append(_Entry(slot, e.player_id, e.bot, e.team, e.rank, n, e.mu, e.sigma))
                if e.player_id is not None:
                    counts[e.player_id] = n + 1
            if rows:
                entries[row.match_id] = rows
        history.add(farming.past_match(row.match_id, row.ended_at, row.deal, parts))
    return entries, flagged


def rerate_all(connection: Connection) -> Rerate:
    """Judge and rate every stored match again, from the first rating of each player:
    the matches judged before revision 0011 from their stored entrants, every later
    one judged again by the anti-farming checks from its stored participants and
    history (in the order the server judged them) and rated over the participants they
    leave alone; each player's matches in the order they were rated, bots at their
    fixed ratings. A check to run offline: it reads every row."""
    judged = {row.match_id for row in connection.execute(select(match_play.PLAY.c.match_id))}
    matches: dict[int, list[Any]] = {}
    for row in connection.execute(select(RESULTS).order_by(RESULTS.c.match_id,
                                                           RESULTS.c.slot)):
        if row.match_id not in judged:
            matches.setdefault(row.match_id, []).append(row)
    counts: dict[int, int] = {}
    for rows in matches.values():
        for row in rows:
            if row.player_id is not None:
                counts[row.player_id] = counts.get(row.player_id, 0) + 1
    again, flagged = _judged_again(connection, counts)
    matches.update(again)
    state, after = _rate_chain(matches)
    return Rerate(state, after, flagged)


def _rate_chain(matches: Mapping[int, Sequence[Any]]
                ) -> tuple[dict[int, tuple[float, float, int]],
                           dict[tuple[int, int], tuple[float, float]]]:
    """Rate ``matches`` (entrants with ``n``: each player's rated matches before), each
    player's in the order of their ``n``."""
    waiting: dict[tuple[int, int], int] = {}  # (player, n) -> match
    for match_id, rows in matches.items():
        for row in rows:
            if row.player_id is not None:
                waiting[(row.player_id, row.n)] = match_id

    def ready(match_id: int) -> bool:
        return all(row.player_id is None or state.get(row.player_id, (0, 0, 0))[2] == row.n
                   for row in matches[match_id])
    state: dict[int, tuple[float, float, int]] = {}
    after: dict[tuple[int, int], tuple[float, float]] = {}
    heap = [m for m in matches if ready(m)]
    heapq.heapify(heap)
    done: set[int] = set()
    while heap:
        match_id = heapq.heappop(heap)
        if match_id in done or not ready(match_id):
            continue
        done.add(match_id)
        rows = matches[match_id]
        entrants = [Entrant(r.player_id, r.bot, r.team, r.rank,
                            *(state.get(r.player_id, (MU, SIGMA, 0))[:2]
                              if r.player_id is not None else (r.mu_before, r.sigma_before)))
                    for r in rows]
        for row, (mu, sigma) in zip(rows, rate(entrants), strict=True):
            after[(match_id, row.slot)] = (mu, sigma)
            if row.player_id is not None:
                state[row.player_id] = (mu, sigma, row.n + 1)
                following = waiting.get((row.player_id, row.n + 1))
                if following is not None and ready(following):
                    heapq.heappush(heap, following)
    return state, after


def rerate(connection: Connection) -> tuple[dict[int, tuple[float, float, int]],
                                             dict[tuple[int, int], tuple[float, float]]]:
    """The ratings and entrants' afters of :func:`rerate_all`:
    ``({player: (mu, sigma, matches)}, {(match, slot): (mu_after, sigma_after)})``."""
    again = rerate_all(connection)
    return again.ratings, again.afters


def stored_reasons(connection: Connection) -> dict[int, dict[int, tuple[str, ...]]]:
    """The checks' reasons as stored, ``{match: {participant: reasons}}``."""
    return {row.match_id: reasons for row, _, reasons in match_play.judged(connection)
            if reasons}


def stored_ratings(connection: Connection) -> dict[int, tuple[float, float, int]]:
    """Every player's rating as stored: ``{player: (mu, sigma, matches)}``."""
    return {row.player_id: (row.mu, row.sigma, row.matches)
            for row in connection.execute(select(RATINGS))}


def stored_afters(connection: Connection) -> dict[tuple[int, int], tuple[float, float]]:
    """Every stored entrant's rating after its match."""
    return {(row.match_id, row.slot): (row.mu_after, row.sigma_after)
            for row in connection.execute(select(RESULTS))}


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating as the API shows it."""

    rating: int
    change: int
    provisional: bool
    matches: int
    mu: float
    sigma: float

    def as_dict(self) -> dict[str, Any]:
        """The fields of ``/api/me``'s ``rating``."""
        return {"rating": self.rating, "change": self.change,
                "provisional": self.provisional, "matches": self.matches,
                "mu": self.mu, "sigma": self.sigma}


def player_rating(connection: Connection, player_id: int,
                  policy: boards.Policy) -> PlayerRating:
    """A player's rating (the first one, provisional, if they have played no rated
    match)."""
    row = connection.execute(select(RATINGS).where(RATINGS.c.player_id == player_id)).first()
    if row is None:
        return PlayerRating(display(MU), 0, True, 0, MU, SIGMA)
    return PlayerRating(display(row.mu), row.change, row.sigma >= policy.provisional_sigma,
                        row.matches, row.mu, row.sigma)


async def profile_rating(store: Store, player_id: int) -> dict[str, Any]:
    """A player's ``rating`` (:meth:`PlayerRating.as_dict`) and their ``ranks`` on the
    current boards (``rating``, ``rating_week``, ``xp``, ``xp_week``; ``None``: not on
    it), as ``/api/me`` and profiles show them."""
    week = boards.week_end(store.clock())

    def read(connection: Connection) -> dict[str, Any]:
        rating = player_rating(connection, player_id, store.rating_policy)
        ranks = {f"{kind}{'_week' if w else ''}":
                 boards.rank_of(connection, boards.board_name(kind, w), player_id)
                 for kind in boards.KINDS for w in (None, week)}
        return {"rating": rating.as_dict(), "ranks": ranks}
    return await store.run(read)
