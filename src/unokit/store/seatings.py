"""Who held each seat of a match (the table ``seatings``) and the XP ledger derived from
the match record.

A match's record is its rules and seed, its actions in order (with who chose each:
``origin``) and its seatings: for each holder of each seat, the player (if any), and
from which action to which they held it. Everything the XP ledger says is derived from
that record alone (:func:`ledger`), so that it can be recomputed
(:func:`unokit.store.xp.recompute`).

The XP of a match (seed 002, docs/accounts.md):

=========================  ====  ==============================================
line                       XP    when
=========================  ====  ==============================================
``played``                 10    the player held a seat at the end of the match
``won_match``              18    ... and that seat's team won the match
``won_round``              2     each round a seat the player held then won
``draw_two``               1     each Draw Two the player chose to play
``wild_draw_four``         1     each Wild Draw Four the player chose to play
=========================  ====  ==============================================

A winner thus gets 10 + 18. A player who *left* gets nothing for the match: they left,
or were sent away, or lost the seat's token, before the end, and did not take a seat of
the room again before the end. Being away (a bot playing the seat on autopilot after
timeouts or a lost connection) is not leaving: the seat is still theirs. Cards a bot
played for an away seat (``origin`` ``timeout`` or ``auto``) give no card XP; rounds the
seat won while away still count. Bots and seats without a player earn nothing.

>>> facts = MatchFacts(winners=(1,), round_wins=((5, (1,)),), cards=((2, 0, "draw_two"),))
>>> actions = [ActionFacts(n, n % 2, "player", n) for n in range(6)]
>>> seatings = [Seating(0, 0, 7, "human", 0, None), Seating(1, 0, 8, "human", 0, None)]
>>> result = ledger(facts, actions, seatings)
>>> result[7].lines, result[8].lines
({'played': 1, 'draw_two': 1}, {'played': 1, 'won_match': 1, 'won_round': 1})
>>> result[7].xp, result[8].xp
(11, 30)
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import Connection, Table, func, insert, select, update

from unokit.engine.cards import DRAW_TWO, RANKS_PER_COLOR, WILD, WILD_DRAW_FOUR
from unokit.engine.events import Event, EventKind
from unokit.engine.rules import Rules
from unokit.engine.scoring import teammates
from unokit.store.models import (
    ActionRow,
    PlayerMatchRow,
    PlayerRow,
    RoomRow,
    SeatingRow,
    SeatRow,
    XpLineRow,
)
from unokit.store.rating_model import places

SEATINGS: Table = SeatingRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
ROOMS: Table = RoomRow.__table__  # type: ignore[assignment]
ACTIONS: Table = ActionRow.__table__  # type: ignore[assignment]
PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]
PLAYER_MATCHES: Table = PlayerMatchRow.__table__  # type: ignore[assignment]
XP_LINES: Table = XpLineRow.__table__  # type: ignore[assignment]

XP = {"played": 10, "won_match": 18, "won_round": 2, "draw_two": 1, "wild_draw_four": 1}
"""The XP of one of each line (seed 002)."""


class Seating(NamedTuple):
    """One holder of one seat of a match (a row of ``seatings``)."""

    seat: int
    occupant: int
    player_id: int | None
    kind: str
    from_action: int
    left_action: int | None

    def held_at(self, n: int) -> bool:
        """Whether this holder held the seat when action ``n`` was applied."""
        return self.from_action <= n and (self.left_action is None or n < self.left_action)


class ActionFacts(NamedTuple):
    """What the ledger needs of a stored action."""

    n: int
    seat: int
    origin: str
    seq: int
    """The number of the last event it caused."""


@dataclass(frozen=True)
class MatchFacts:
    """What the engine's events of a finished match say, as the ledger needs it: each
    a function of the match's rules, seed and actions (:func:`facts_of`)."""

    winners: tuple[int, ...]
    """The seats of the team that won the match."""
    round_wins: tuple[tuple[int, tuple[int, ...]], ...] = ()
    """For each round: the event number of its end and the seats of the team that won it."""
    cards: tuple[tuple[int, int, str], ...] = ()
    """Each Draw Two and Wild Draw Four played: its event number, seat and line name."""
    catches: tuple[tuple[int, int], ...] = ()
    """Each missed UNO call caught: its event number and the catcher's seat (the
    challenges count them, :mod:`unokit.store.challenges`)."""
    places: tuple[int, ...] = ()
    """Each seat's place in the finishing order (:func:`unokit.store.rating_model.places`)."""
    teams: tuple[int, ...] = ()
    """Each seat's team: the lowest seat of its partners."""

    def team_of(self, seat: int) -> tuple[int, ...]:
        """The seats of ``seat``'s team (the seat alone without :attr:`teams`)."""
        if not self.teams:
            return (seat,)
        return tuple(s for s, t in enumerate(self.teams) if t == self.teams[seat])


def _card_line(card: int) -> str | None:
    if card == WILD_DRAW_FOUR:
        return "wild_draw_four"
    if 0 <= card < WILD and card % RANKS_PER_COLOR == DRAW_TWO:
        return "draw_two"
    return None


def facts_of(rules: Rules, log: Iterable[Event]) -> MatchFacts:
    """The facts of a finished match, from its event log (``game.log``)."""
    log = list(log)
    winners: tuple[int, ...] = ()
    rounds: list[tuple[int, tuple[int, ...]]] = []
    cards: list[tuple[int, int, str]] = []
    catches: list[tuple[int, int]] = []
    for event in log:
        kind = event.kind
        if kind is EventKind.PLAYED:
            line = _card_line(event.card)
            if line is not None:
                cards.append((event.seq, event.player, line))
        elif kind is EventKind.ROUND_ENDED and event.player >= 0:
            rounds.append((event.seq, teammates(rules, event.player)))
        elif kind is EventKind.MATCH_ENDED and event.player >= 0:
            winners = teammates(rules, event.player)
        elif kind is EventKind.CAUGHT:
            catches.append((event.seq, event.player))
    return MatchFacts(winners, tuple(rounds), tuple(cards), tuple(catches), places(rules, log),
                      tuple(min(teammates(rules, seat)) for seat in range(rules.players)))


@dataclass
class PlayerResult:
    """What one player got from one match."""

    seat: int
    """The seat they held at the end (or last held, for a leaver)."""
    left: bool = False
    won: bool = False
    lines: dict[str, int] = field(default_factory=dict)
    """How many of each line (none for a leaver)."""

    @property
    def xp(self) -> int:
        """The XP of the lines."""
        return sum(XP[reason] * count for reason, count in self.lines.items())


def ledger(facts: MatchFacts, actions: Sequence[ActionFacts],
           seatings: Iterable[Seating]) -> dict[int, PlayerResult]:
    """Each player's result of a finished match, from its record: the facts of its
    events, its actions (in order) and its seatings (see the module for the rules)."""
    by_player: dict[int, list[Seating]] = {}
    for seating in seatings:
        if seating.kind == "human" and seating.player_id is not None:
            by_player.setdefault(seating.player_id, []).append(seating)
    seqs = [a.seq for a in actions]

    def action_of(seq: int) -> int:
        """The action that caused event ``seq`` (-1: the deal before any action)."""
        n = bisect.bisect_left(seqs, seq)
        return actions[n].n if n < len(actions) else -1

    results: dict[int, PlayerResult] = {}
    for player, held in by_player.items():
        final = [s for s in held if s.left_action is None]
        if not final:
            last = max(held, key=lambda s: (s.left_action or 0, s.occupant))
            results[player] = PlayerResult(last.seat, left=True)
            continue
        result = PlayerResult(final[0].seat, lines={"played": 1})
        if any(s.seat in facts.winners for s in final):
            result.won = True
            result.lines["won_match"] = 1

        def holds(seat: int, n: int, held: list[Seating] = held) -> bool:
            return any(s.seat == seat and s.held_at(n) for s in held)
        for seq, seats in facts.round_wins:
            n = action_of(seq)
            if any(holds(seat, n) for seat in seats):
                result.lines["won_round"] = result.lines.get("won_round", 0) + 1
        for seq, seat, line in facts.cards:
            n = action_of(seq)
            if n >= 0 and actions[n].origin == "player" and holds(seat, n):
                result.lines[line] = result.lines.get(line, 0) + 1
        results[player] = result
    return results


# ---------------------------------------------------------------- writing the record
def _holds(kind: str, token_hash: str) -> bool:
    """Whether a stored seat has a holder (a bot, or a person whose token works)."""
    return kind == "bot" or (kind == "human" and bool(token_hash))


def _action_count(connection: Connection, room_id: int) -> int:
    return int(connection.execute(select(func.count()).select_from(ACTIONS).where(
        ACTIONS.c.room_id == room_id)).scalar() or 0)


def open_seatings(connection: Connection, room_id: int) -> None:
    """At the start of a match: a seating for every held seat, from action 0."""
    rows = connection.execute(select(SEATS).where(SEATS.c.room_id == room_id)).all()
    values = [{"room_id": room_id, "seat": row.seat, "occupant": row.occupant,
               "player_id": row.player_id if row.kind == "human" else None,
               "kind": row.kind, "from_action": 0, "left_action": None}
              for row in rows if _holds(row.kind, row.token_hash)]
    if values:
        connection.execute(insert(SEATINGS), values)


def note_seats(connection: Connection, room_id: int, seats: Sequence[Any]) -> None:
    """After some seats of a room changed (``seats``: their new
    :class:`~unokit.store.SeatData`), in the same transaction: if the match is under
    way, close the seating of each holder who went (another occupant, an empty seat,
    a person whose token was taken) and open one for each new holder."""
    status = connection.execute(select(ROOMS.c.status).where(
        ROOMS.c.id == room_id)).scalar()
    if status != "playing":
        return
    count = _action_count(connection, room_id)
    for seat in seats:
        open_row = connection.execute(select(SEATINGS.c.occupant).where(
            SEATINGS.c.room_id == room_id, SEATINGS.c.seat == seat.seat,
            SEATINGS.c.left_action.is_(None))).first()
        holds = _holds(seat.kind, seat.token_hash)
        if open_row is not None and (open_row.occupant != seat.occupant or not holds):
            connection.execute(update(SEATINGS).where(
                SEATINGS.c.room_id == room_id, SEATINGS.c.seat == seat.seat,
                SEATINGS.c.occupant == open_row.occupant).values(left_action=count))
        if holds and (open_row is None or open_row.occupant != seat.occupant):
            connection.execute(insert(SEATINGS).values(
                room_id=room_id, seat=seat.seat, occupant=seat.occupant,
                player_id=seat.player_id if seat.kind == "human" else None,
                kind=seat.kind, from_action=count, left_action=None))


def read_record(connection: Connection, room_id: int
                ) -> tuple[list[ActionFacts], list[Seating]]:
    """The stored actions (in order) and seatings of a room."""
    actions = [ActionFacts(row.n, row.seat, row.origin, row.seq) for row in connection.execute(
        select(ACTIONS.c.n, ACTIONS.c.seat, ACTIONS.c.origin, ACTIONS.c.seq)
        .where(ACTIONS.c.room_id == room_id).order_by(ACTIONS.c.n))]
    seatings = [Seating(row.seat, row.occupant, row.player_id, row.kind, row.from_action,
                        row.left_action)
                for row in connection.execute(select(SEATINGS).where(
                    SEATINGS.c.room_id == room_id).order_by(SEATINGS.c.seat,
                                                            SEATINGS.c.occupant))]
    return actions, seatings


def write_ledger(connection: Connection, room_id: int, facts: MatchFacts,
                 ended_at: float) -> dict[int, PlayerResult]:
    """In the transaction that stores a match's last action: each player's result and
    XP lines, and their totals raised (players deleted since are left out). The
    results written."""
    actions, seatings = read_record(connection, room_id)
    results = ledger(facts, actions, seatings)
    if not results:
        return results
    live = set(connection.execute(select(PLAYERS.c.id).where(
        PLAYERS.c.id.in_(sorted(results)))).scalars())
    results = {p: r for p, r in results.items() if p in live}
    code = connection.execute(select(ROOMS.c.code).where(ROOMS.c.id == room_id)).scalar()
    if not results:
        return results
    connection.execute(insert(PLAYER_MATCHES), [
        {"player_id": p, "match_id": room_id, "code": code, "seat": r.seat,
         "ended_at": ended_at, "won": r.won, "left": r.left, "xp": r.xp}
        for p, r in sorted(results.items())])
    lines = [{"player_id": p, "match_id": room_id, "reason": reason, "count": count,
              "xp": XP[reason] * count}
             for p, r in sorted(results.items()) for reason, count in sorted(r.lines.items())]
    if lines:
        connection.execute(insert(XP_LINES), lines)
    for p, r in sorted(results.items()):
        if r.xp:
            connection.execute(update(PLAYERS).where(PLAYERS.c.id == p).values(
                xp=PLAYERS.c.xp + r.xp))
    return results
