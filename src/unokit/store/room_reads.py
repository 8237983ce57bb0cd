"""Rooms as the database holds them, read back whole: each with its seats,
contributions and actions in order, its last chat lines, and the answers and chat ids
of its seats' current occupants (what :meth:`unokit.store.Store.load_rooms` gives a
process that brings rooms back).

>>> str(live_rooms(("lobby",), None).compile(compile_kwargs={"literal_binds": True}))
"rooms.status IN ('lobby')"
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Connection, Select, Table, and_, func, or_, select

from unokit.store import ratings
from unokit.store.boards import Policy
from unokit.store.models import (
    ActionRow,
    AnswerRow,
    ChatRow,
    ContributionRow,
    RoomRow,
    SeatRow,
)
from unokit.store.room_data import (
    RECENT_CHAT,
    ActionData,
    AnswerData,
    ChatData,
    SeatData,
    StoredRoom,
)

ROOMS: Table = RoomRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
ACTIONS: Table = ActionRow.__table__  # type: ignore[assignment]
CONTRIBUTIONS: Table = ContributionRow.__table__  # type: ignore[assignment]
CHAT: Table = ChatRow.__table__  # type: ignore[assignment]
ANSWERS: Table = AnswerRow.__table__  # type: ignore[assignment]


def live_rooms(statuses: tuple[str, ...], finished_since: float | None
               ) -> ColumnElement[bool]:
    """The rooms in one of ``statuses``, or finished or abandoned at or after
    ``finished_since``."""
    live: ColumnElement[bool] = ROOMS.c.status.in_(statuses)
    if finished_since is not None:
        live = or_(live, and_(ROOMS.c.status.in_(("finished", "abandoned")),
                              ROOMS.c.ended_at >= finished_since))
    return live


def chat_data(row: Any) -> ChatData:
    """A chat row as the store gives it."""
    return ChatData(row.n, row.seat, row.name, row.text, row.at, row.client_id, row.seq,
                    row.occupant, row.player_id)


def of_occupants(table: Table, ids: list[int]) -> Select[Any]:
    """The rows of ``table`` (of the rooms ``ids``) written by their seats' current
    occupants: the rows of earlier holders of a seat are never loaded."""
    return select(table).join(SEATS, and_(
        SEATS.c.room_id == table.c.room_id, SEATS.c.seat == table.c.seat,
        SEATS.c.occupant == table.c.occupant)).where(table.c.room_id.in_(ids))


def read_rooms(connection: Connection, query: Select[Any], policy: Policy
               ) -> list[StoredRoom]:
    """The rooms that ``query`` (a select of ``rooms``) finds, whole, in id order; the
    ratings shown at the end of the finished ones follow ``policy``."""
    rooms: dict[int, StoredRoom] = {}
    for row in connection.execute(query.order_by(ROOMS.c.id)):
        rooms[row.id] = StoredRoom(
            id=row.id, code=row.code, rules=row.rules, status=row.status,
            turn_timer=row.turn_timer, public=row.public,
            server_seed=row.server_seed, commitment=row.commitment,
            seed=None if row.seed is None else int(row.seed),
            created_at=row.created_at,
            last_seen=(row.created_at if row.last_seen is None
                       else row.last_seen))
    if not rooms:
        return []
    ids = list(rooms)
    for row in connection.execute(select(SEATS).where(SEATS.c.room_id.in_(ids))
                                  .order_by(SEATS.c.room_id, SEATS.c.seat)):
        rooms[row.room_id].seats.append(SeatData(row.seat, row.kind, row.name,
                                                 row.bot, row.token_hash, row.host,
                                                 row.occupant, row.player_id))
    for row in connection.execute(select(CONTRIBUTIONS).where(
            CONTRIBUTIONS.c.room_id.in_(ids))):
        rooms[row.room_id].contributions[row.seat] = row.value
    for row in connection.execute(select(ACTIONS).where(ACTIONS.c.room_id.in_(ids))
                                  .order_by(ACTIONS.c.room_id, ACTIONS.c.n)):
        rooms[row.room_id].actions.append(ActionData(
            row.n, row.action, row.seat, row.origin, row.client_id, row.seq, row.at,
            row.occupant))
    last = (select(CHAT.c.room_id, func.max(CHAT.c.n).label("last"))
            .where(CHAT.c.room_id.in_(ids)).group_by(CHAT.c.room_id).subquery())
    for row in connection.execute(
            select(CHAT).join(last, CHAT.c.room_id == last.c.room_id)
            .where(CHAT.c.n > last.c.last - RECENT_CHAT)
            .order_by(CHAT.c.room_id, CHAT.c.n)):
        rooms[row.room_id].chat.append(chat_data(row))
    for row in connection.execute(
            select(ANSWERS.c.room_id, func.max(ANSWERS.c.n).label("last"))
            .where(ANSWERS.c.room_id.in_(ids)).group_by(ANSWERS.c.room_id)):
        rooms[row.room_id].next_answer = row.last + 1
    for row in connection.execute(of_occupants(ANSWERS, ids)
                                  .order_by(ANSWERS.c.room_id, ANSWERS.c.n)):
        rooms[row.room_id].answers.append(AnswerData(
            row.n, row.seat, row.client_id, row.answer, row.at, row.occupant))
    for row in connection.execute(of_occupants(CHAT, ids)
                                  .where(CHAT.c.client_id.is_not(None))
                                  .order_by(CHAT.c.room_id, CHAT.c.n)):
        rooms[row.room_id].chat_answers.append(chat_data(row))
    ended = [r.id for r in rooms.values() if r.status == "finished"]
    for room_id, shown in ratings.shown_ratings(connection, ended,
                                                policy).items():
        rooms[room_id].ratings = shown
    return list(rooms.values())
