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
one team; each leaver last, on a team of their own.

**The re-rate.** Each entrant row keeps the player's count of rated matches before it
(``n``), so the matches are replayed in an order that gives each player their matches
in the order they were rated (:func:`rerate`), from the first rating (mu 25, sigma 25/3) and
the bots' stored fixed ratings: it reproduces every stored float exactly.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Table, insert, select, update

from unokit.store import boards
from unokit.store.models import (
    PlayerRow,
    RatingResultRow,
    RatingRow,
    RoomRow,
    SeatRow,
)
from unokit.store.rating_model import MU, SIGMA, Entrant, bot_rating, display, rate
from unokit.store.seatings import SEATINGS, MatchFacts, PlayerResult, Seating, read_record

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


@dataclass
class Rated:
    """A rated match's entrants before and after."""

    entrants: list[Entrant]
    after: list[tuple[float, float]]
    seats: list[int]
    """Each entrant's seat."""
    counts: list[int]
    """Each entrant's rated matches before this one (-1: a bot)."""


def entrants_of(connection: Connection, room_id: int, facts: MatchFacts,
                seatings: Sequence[Seating], results: Mapping[int, PlayerResult]
                ) -> list[tuple[int, Entrant]] | None:
    """The seats and entrants of a finished match at the ratings they hold now, or
    ``None`` if the match is not rated (see the module)."""
    rated = connection.execute(select(ROOMS.c.rated).where(ROOMS.c.id == room_id)).scalar()
    if not rated or not facts.places:
        return None
    finals = [s for s in seatings if s.left_action is None]
    people = [s.player_id for s in finals if s.kind == "human"]
    leavers = sorted(p for p, r in results.items() if r.left)
    if None in people:
        return None
    ids = sorted({int(p) for p in people if p is not None} | set(leavers))
    accounts = set(connection.execute(select(PLAYERS.c.id).where(
        PLAYERS.c.id.in_(ids), PLAYERS.c.username_key.is_not(None))).scalars())
    if not ids or accounts != set(ids):
        return None
    bots = {row.seat: row.bot for row in connection.execute(select(
        SEATS.c.seat, SEATS.c.bot).where(SEATS.c.room_id == room_id, SEATS.c.kind == "bot"))}
    held = {row.player_id: (row.mu, row.sigma) for row in connection.execute(
        select(RATINGS.c.player_id, RATINGS.c.mu, RATINGS.c.sigma).where(
            RATINGS.c.player_id.in_(ids)))}
    out: list[tuple[int, Entrant]] = []
    for seating in sorted(finals, key=lambda s: s.seat):
        place = facts.places[seating.seat]
        team = min(facts.team_of(seating.seat))
        if seating.kind == "human" and seating.player_id is not None:
            mu, sigma = held.get(seating.player_id, (MU, SIGMA))
            out.append((seating.seat, Entrant(seating.player_id, "", team, place, mu, sigma)))
        elif seating.kind == "bot":
            spec = bots.get(seating.seat, "normal")
            mu, sigma = bot_rating(spec)
            out.append((seating.seat, Entrant(None, spec, team, place, mu, sigma)))
    last = max(facts.places) + 1
    for number, player in enumerate(leavers):
        mu, sigma = held.get(player, (MU, SIGMA))
        out.append((results[player].seat,
                    Entrant(player, "", 1000 + number, last, mu, sigma)))
    if len({e.team for _, e in out}) < 2:
        return None
    return out


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
                  policy: boards.Policy) -> dict[int, SeatRating]:
    """In the transaction that stores a match's last action: rate it (if it is rated),
    store its entrants and the players' new ratings, and bring the leaderboards of
    every player of the match up to date. The rated players' new ratings, by seat."""
    _, seatings = read_record(connection, room_id)
    found = entrants_of(connection, room_id, facts, seatings, results)
    shown: dict[int, SeatRating] = {}
    if found is not None:
        entrants = [e for _, e in found]
        after = rate(entrants)
        ids = [e.player_id for e in entrants if e.player_id is not None]
        counts = {row.player_id: row.matches for row in connection.execute(
            select(RATINGS.c.player_id, RATINGS.c.matches).where(
                RATINGS.c.player_id.in_(ids)))}
        rows = []
        for slot, ((seat, entrant), (mu, sigma)) in enumerate(zip(found, after, strict=True)):
            player = entrant.player_id
            n = -1 if player is None else counts.get(player, 0)
            rows.append({"match_id": room_id, "slot": slot, "player_id": player,
                         "bot": entrant.bot, "team": entrant.team, "rank": entrant.rank,
                         "n": n, "mu_before": entrant.mu, "sigma_before": entrant.sigma,
                         "mu_after": mu, "sigma_after": sigma, "ended_at": ended_at})
            if player is None:
                continue
            change = display(mu) - display(entrant.mu)
            values = {"mu": mu, "sigma": sigma, "matches": n + 1, "change": change,
                      "updated_at": ended_at}
            if player in counts:
                connection.execute(update(RATINGS).where(
                    RATINGS.c.player_id == player).values(values))
            else:
                connection.execute(insert(RATINGS).values(player_id=player,
                                                           active_until=0.0, **values))
            if seat not in shown and not (player in results and results[player].left):
                shown[seat] = SeatRating(player, display(mu), change,
                                         sigma >= policy.provisional_sigma)
        connection.execute(insert(RESULTS), rows)
    boards.refresh(connection, sorted(results), ended_at, policy)
    return shown


# ---------------------------------------------------------------- the re-rate
def _stored(connection: Connection) -> dict[int, list[Any]]:
    matches: dict[int, list[Any]] = {}
    for row in connection.execute(select(RESULTS).order_by(RESULTS.c.match_id,
                                                           RESULTS.c.slot)):
        matches.setdefault(row.match_id, []).append(row)
    return matches


def rerate(connection: Connection) -> tuple[dict[int, tuple[float, float, int]],
                                             dict[tuple[int, int], tuple[float, float]]]:
    """Rate every stored rated match again, from the first rating of each player and
    the bots' stored ratings, each player's matches in the order they were rated:
    ``({player: (mu, sigma, matches)}, {(match, slot): (mu_after, sigma_after)})``,
    players deleted since among them. A check to run offline: it reads every row."""
    matches = _stored(connection)
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
