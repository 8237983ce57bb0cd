"""The server's durable state, written by one thread in group commits.

Rooms hand their writes to a :class:`Store` and await them. One writer thread takes every
write that is waiting, runs them in one transaction and commits, so that a thousand rooms
share each disk sync and no room's event loop ever waits for the disk. A write that
fails is retried alone, so one room's bad write never fails another's. Reads for a
restart (:meth:`Store.load_rooms`) go through the same thread. The table chat keeps
every line players wrote (:meth:`Store.append_chat`); a room comes back with its
:data:`RECENT_CHAT` last lines. The table answers keeps the answers to the host's and the
lobby's commands (``start``, ``add_bot``, ...): each is written in the transaction of
the command's own change (the ``answer`` of :meth:`Store.set_seats`,
:meth:`Store.start_match`, ...), and a room comes back with its :data:`RECENT_ANSWERS`
last ones.

>>> import asyncio
>>> async def demo():
...     store = Store("sqlite://")
...     room = await store.create_room(NewRoom(code="ABCD", rules="{}", turn_timer=0,
...         public=True, server_seed="00" * 32, commitment="ab" * 32, seats=2))
...     await store.append_action(room, ActionData(0, "0:R5", 0, "player", "c1", 9, 1.0))
...     await store.append_chat(room, ChatData(0, 0, "Ann", "hi all", 1700000000000,
...                                            "c2", 9))
...     await store.set_timer(room, 30, answer=AnswerData(0, 0, "h1", '{"type":"ack"}', 2.0))
...     [stored] = await store.load_rooms()
...     await store.close()
...     return ([a.action for a in stored.actions], [c.text for c in stored.chat],
...             stored.turn_timer, [a.client_id for a in stored.answers])
>>> asyncio.run(demo())
(['0:R5'], ['hi all'], 30, ['h1'])
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from sqlalchemy import (
    ColumnElement,
    Connection,
    Table,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from unokit.store.db import open_engine, prepare_schema
from unokit.store.models import (
    ActionRow,
    AnswerRow,
    ChatRow,
    ContributionRow,
    RoomRow,
    SeatRow,
)

T = TypeVar("T")
LOG = logging.getLogger("unokit.store")

ROOMS: Table = RoomRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
ACTIONS: Table = ActionRow.__table__  # type: ignore[assignment]
CONTRIBUTIONS: Table = ContributionRow.__table__  # type: ignore[assignment]
CHAT: Table = ChatRow.__table__  # type: ignore[assignment]
ANSWERS: Table = AnswerRow.__table__  # type: ignore[assignment]

BATCH = 512
"""The most writes one transaction takes."""
RECENT_CHAT = 50
"""The chat lines of each room :meth:`Store.load_rooms` brings back (its last ones)."""
RECENT_ANSWERS = 256
"""The command answers of each room :meth:`Store.load_rooms` brings back (its last ones;
older rows stay in the table)."""


class StoreError(RuntimeError):
    """A write could not be committed (the database refused it or is gone)."""


@dataclass(frozen=True)
class NewRoom:
    """What a new room is created with."""

    code: str
    rules: str
    turn_timer: int
    public: bool
    server_seed: str
    commitment: str
    seats: int


class SeatData(NamedTuple):
    """One seat as stored."""

    seat: int
    kind: str
    name: str = ""
    bot: str = ""
    token_hash: str = ""
    host: bool = False


class ActionData(NamedTuple):
    """One action as stored (see :class:`unokit.store.models.ActionRow`)."""

    n: int
    action: str
    seat: int
    origin: str
    client_id: str | None
    seq: int
    at: float


ACTION_COLUMNS = ("room_id", *ActionData._fields)
"""The columns of a stored action, in the order of its rows: a room id, then
:class:`ActionData`."""


class ChatData(NamedTuple):
    """One chat line as stored (see :class:`unokit.store.models.ChatRow`)."""

    n: int
    seat: int
    name: str
    text: str
    at: int
    """Milliseconds since the epoch."""
    client_id: str | None
    seq: int


class AnswerData(NamedTuple):
    """A room's answer to a host or lobby command, as stored (see
    :class:`unokit.store.models.AnswerRow`)."""

    n: int
    seat: int
    client_id: str
    answer: str
    """The message sent (its JSON text)."""
    at: float


@dataclass
class StoredRoom:
    """A room as loaded for a restart: its row, seats, contributions, actions and last
    chat lines."""

    id: int
    code: str
    rules: str
    status: str
    turn_timer: int
    public: bool
    server_seed: str
    commitment: str
    seed: int | None
    created_at: float
    seats: list[SeatData] = field(default_factory=list)
    contributions: dict[int, str] = field(default_factory=dict)
    actions: list[ActionData] = field(default_factory=list)
    chat: list[ChatData] = field(default_factory=list)
    """The room's :data:`RECENT_CHAT` last chat lines, oldest first."""
    answers: list[AnswerData] = field(default_factory=list)
    """The room's :data:`RECENT_ANSWERS` last command answers, oldest first."""


_Job = tuple[Callable[[Connection], Any] | None, "asyncio.Future[Any]",
             tuple[Any, ...] | None]
"""A write: a function of the connection, a row of ``actions`` (which a batch inserts
all at once, before it runs the functions), or both in the same transaction; and the
future its caller waits on (of the caller's event loop, settled there: the writer hands
each loop the outcomes of a whole batch in one call)."""


_Outcome = tuple["asyncio.Future[Any]", Any, BaseException | None]


def _settle_all(outcomes: list[_Outcome]) -> None:
    """From the writer thread: settle each future in its own event loop, with one call
    into each loop for the whole list (one wake-up, not one per write)."""
    by_loop: dict[asyncio.AbstractEventLoop, list[_Outcome]] = {}
    for outcome in outcomes:
        by_loop.setdefault(outcome[0].get_loop(), []).append(outcome)
    for loop, mine in by_loop.items():
        with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits
            loop.call_soon_threadsafe(_settle, mine)


def _settle(outcomes: list[_Outcome]) -> None:
    """In the futures' loop: give each its result or exception (unless its caller has
    stopped waiting)."""
    for future, result, exc in outcomes:
        if future.done():
            continue
        if exc is None:
            future.set_result(result)
        else:
            future.set_exception(exc)


class Store:
    """The database, behind one writer thread. Create it, await its methods, then
    :meth:`close` it (which finishes every write handed in before)."""

    def __init__(self, url: str, *, schema: str = "auto") -> None:
        """Open the database ``url``; ``schema``: ``auto`` migrates it, ``check``
        raises :class:`unokit.store.db.SchemaError` unless it is current, ``off``
        leaves it (see :func:`unokit.store.db.prepare_schema`)."""
        self.url = url
        self.engine = open_engine(url)
        prepare_schema(self.engine, schema)
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._closed = False
        self._open: Connection | None = None
        style = self.engine.dialect.paramstyle
        if self.engine.dialect.name == "sqlite" or style == "qmark":
            self._mark = "?"
        elif style in ("format", "pyformat"):
            self._mark = "%s"
        else:
            raise StoreError(f"database driver paramstyle {style!r} is not supported")
        self._inserts: dict[int, str] = {}
        self.commits = 0
        """Transactions committed (each may hold many writes)."""
        self.writes = 0
        """Writes committed."""
        self._thread = threading.Thread(target=self._writer, name="unokit-store",
                                        daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ the writer
    def _writer(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                self._close_connection()
                return
            batch = [job]
            stop = False
            while len(batch) < BATCH:
                try:
                    more = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            self._run_batch(batch)
            if stop:
                self._close_connection()
                return

    def _close_connection(self) -> None:
        if self._open is not None:
            with contextlib.suppress(Exception):
                self._open.close()
            self._open = None

    def _insert_actions(self, rows: list[tuple[Any, ...]]) -> tuple[str, tuple[Any, ...]]:
        """One INSERT of every row (and its flat parameters): the database runs one
        statement, and the writer waits on it once, not once a row."""
        sql = self._inserts.get(len(rows))
        if sql is None:
            group = "(" + ", ".join([self._mark] * len(ACTION_COLUMNS)) + ")"
            sql = (f"INSERT INTO actions ({', '.join(ACTION_COLUMNS)}) VALUES "
                   + ", ".join([group] * len(rows)))
            if len(self._inserts) < BATCH:
                self._inserts[len(rows)] = sql
        return sql, tuple(value for row in rows for value in row)

    def _execute(self, connection: Connection, batch: list[_Job]) -> list[Any]:
        rows = [row for _, _, row in batch if row is not None]
        if rows:
            # the writer's hot path: one statement, no compiling, few calls into Python
            connection.exec_driver_sql(*self._insert_actions(rows))
        return [None if fn is None else fn(connection) for fn, _, _ in batch]

    def _connection(self) -> Connection:
        if self._open is None or self._open.closed:
            self._open = self.engine.connect()
        return self._open

    def _rows_only(self, connection: Connection, batch: list[_Job]) -> list[Any]:
        """A batch of nothing but actions (what a busy server mostly writes), straight
        through the database driver: one INSERT of every row and one commit, without
        SQLAlchemy's bookkeeping in between (which would cost as much as the commit)."""
        driver = connection.connection.dbapi_connection
        assert driver is not None
        try:
            cursor = driver.cursor()
            cursor.execute(*self._insert_actions(
                [row for _, _, row in batch if row is not None]))
            cursor.close()
            driver.commit()
        except Exception:
            with contextlib.suppress(Exception):
                driver.rollback()
            raise
        return [None] * len(batch)

    def _run_batch(self, batch: list[_Job]) -> None:
        """Commit ``batch`` in one transaction; if it fails, each write alone, so that a
        bad write fails only its own caller. Never raises: the writer must not stop."""
        try:
            connection = self._connection()
            if all(fn is None for fn, _, _ in batch):
                results = self._rows_only(connection, batch)
            else:
                with connection.begin():
                    results = self._execute(connection, batch)
        except Exception as exc:
            if self._open is not None:
                with contextlib.suppress(Exception):
                    self._open.close()
                self._open = None
            if len(batch) > 1:
                for job in batch:
                    self._run_batch([job])
                return
            LOG.error("write failed", extra={"error": type(exc).__name__, "room_id": (
                batch[0][2] or (None,))[0]})
            failure = StoreError(f"the database refused a write: {type(exc).__name__}")
            _settle_all([(batch[0][1], None, failure)])
            return
        self.commits += 1
        self.writes += len(batch)
        _settle_all([(future, result, None)
                     for (_, future, _), result in zip(batch, results, strict=True)])

    async def run(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(connection)`` in the writer's next transaction and return its result
        once committed.

        Raises:
            StoreError: the write was not committed.
        """
        if self._closed:
            raise StoreError("the store is closed")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._jobs.put((fn, future, None))
        return await future

    async def close(self) -> None:
        """Finish every write handed in, stop the writer and close the database."""
        if self._closed:
            return
        self._closed = True
        self._jobs.put(None)
        await asyncio.to_thread(self._thread.join)
        self.engine.dispose()

    # ------------------------------------------------------------ writes
    async def create_room(self, room: NewRoom) -> int:
        """Store a new room with ``room.seats`` empty seats; its id."""
        def write(connection: Connection) -> int:
            result = connection.execute(insert(ROOMS).values(
                code=room.code, rules=room.rules, status="lobby",
                turn_timer=room.turn_timer, public=room.public,
                server_seed=room.server_seed, commitment=room.commitment,
                created_at=time.time()))
            room_id = int(result.inserted_primary_key[0])  # type: ignore[index]
            connection.execute(insert(SEATS), [
                {"room_id": room_id, **SeatData(seat, "empty")._asdict()}
                for seat in range(room.seats)])
            return room_id
        return await self.run(write)

    @staticmethod
    def _answered(room_id: int, answer: AnswerData | None,
                  write: Callable[[Connection], T]) -> Callable[[Connection], T]:
        """``write``, and with ``answer`` also that answer's row, in one transaction."""
        if answer is None:
            return write

        def both(connection: Connection) -> T:
            result = write(connection)
            connection.execute(insert(ANSWERS).values(room_id=room_id, **answer._asdict()))
            return result
        return both

    async def set_seat(self, room_id: int, seat: SeatData, *,
                       answer: AnswerData | None = None) -> None:
        """Store what sits in one seat (see :meth:`set_seats`)."""
        await self.set_seats(room_id, [seat], answer=answer)

    async def set_seats(self, room_id: int, seats: list[SeatData], *,
                        answer: AnswerData | None = None,
                        drop_contributions: tuple[int, ...] = ()) -> None:
        """Store what sits in some seats, in one transaction; with ``answer``, the
        answer to the command that changed them too; the contributions of the seats
        ``drop_contributions`` are removed with them (a seat left before the match)."""
        def write(connection: Connection) -> None:
            for seat in seats:
                values = seat._asdict()
                del values["seat"]
                connection.execute(update(SEATS).where(
                    SEATS.c.room_id == room_id, SEATS.c.seat == seat.seat).values(values))
            if drop_contributions:
                connection.execute(delete(CONTRIBUTIONS).where(
                    CONTRIBUTIONS.c.room_id == room_id,
                    CONTRIBUTIONS.c.seat.in_(drop_contributions)))
        await self.run(self._answered(room_id, answer, write))

    async def add_contribution(self, room_id: int, seat: int, value: str, *,
                               answer: AnswerData | None = None) -> None:
        """Store a seat's contribution to the match seed (and ``answer``)."""
        def write(connection: Connection) -> None:
            connection.execute(insert(CONTRIBUTIONS).values(room_id=room_id, seat=seat,
                                                            value=value))
        await self.run(self._answered(room_id, answer, write))

    async def start_match(self, room_id: int, seed: int, *,
                          answer: AnswerData | None = None) -> None:
        """Mark the room's match as started with ``seed`` (and store ``answer``)."""
        def write(connection: Connection) -> None:
            connection.execute(update(ROOMS).where(ROOMS.c.id == room_id).values(
                status="playing", seed=str(seed), started_at=time.time()))
        await self.run(self._answered(room_id, answer, write))

    async def append_action(self, room_id: int, action: ActionData,
                            chat: ChatData | None = None) -> None:
        """Store one accepted action (after the ones before it). The actions of one batch
        go in with one statement. With ``chat``, that chat line is committed in the same
        transaction (a line that broke a silence and the ``say`` it cost)."""
        if self._closed:
            raise StoreError("the store is closed")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        write = None if chat is None else self._chat_writer(room_id, chat)
        self._jobs.put((write, future, (room_id, *action)))
        await future

    @staticmethod
    def _chat_writer(room_id: int, line: ChatData) -> Callable[[Connection], None]:
        def write(connection: Connection) -> None:
            connection.execute(insert(CHAT).values(room_id=room_id, **line._asdict()))
        return write

    async def append_chat(self, room_id: int, line: ChatData) -> None:
        """Store one chat line (after the ones before it)."""
        await self.run(self._chat_writer(room_id, line))

    async def set_timer(self, room_id: int, seconds: int, *,
                        answer: AnswerData | None = None) -> None:
        """Store a room's turn timer (and ``answer``)."""
        def write(connection: Connection) -> None:
            connection.execute(update(ROOMS).where(ROOMS.c.id == room_id).values(
                turn_timer=seconds))
        await self.run(self._answered(room_id, answer, write))

    async def set_status(self, room_id: int, status: str) -> None:
        """Mark the room ``finished`` or ``closed``."""
        def write(connection: Connection) -> None:
            values: dict[str, Any] = {"status": status}
            if status in ("finished", "closed"):
                values["ended_at"] = time.time()
            connection.execute(update(ROOMS).where(ROOMS.c.id == room_id).values(values))
        await self.run(write)

    async def delete_room(self, room_id: int) -> None:
        """Remove a room and everything of it (an empty lobby nobody came back to)."""
        def write(connection: Connection) -> None:
            for table in (ACTIONS, ANSWERS, CHAT, CONTRIBUTIONS, SEATS):
                connection.execute(delete(table).where(table.c.room_id == room_id))
            connection.execute(delete(ROOMS).where(ROOMS.c.id == room_id))
        await self.run(write)

    # ------------------------------------------------------------ reads
    async def load_rooms(self, statuses: tuple[str, ...] = ("lobby", "playing"),
                         code: str | None = None,
                         finished_since: float | None = None) -> list[StoredRoom]:
        """Every room in one of ``statuses`` (or the room ``code``, whatever its status),
        with its seats, contributions and actions in order, its :data:`RECENT_CHAT` last
        chat lines and its :data:`RECENT_ANSWERS` last command answers; with
        ``finished_since``, also the rooms finished at or after that time (seconds since
        the epoch)."""
        def read(connection: Connection) -> list[StoredRoom]:
            query = select(ROOMS)
            live: ColumnElement[bool] = ROOMS.c.status.in_(statuses)
            if finished_since is not None:
                live = or_(live, and_(ROOMS.c.status == "finished",
                                      ROOMS.c.ended_at >= finished_since))
            query = (query.where(ROOMS.c.code == code) if code is not None
                     else query.where(live))
            rooms: dict[int, StoredRoom] = {}
            for row in connection.execute(query.order_by(ROOMS.c.id)):
                rooms[row.id] = StoredRoom(
                    id=row.id, code=row.code, rules=row.rules, status=row.status,
                    turn_timer=row.turn_timer, public=row.public,
                    server_seed=row.server_seed, commitment=row.commitment,
                    seed=None if row.seed is None else int(row.seed),
                    created_at=row.created_at)
            if not rooms:
                return []
            ids = list(rooms)
            for row in connection.execute(select(SEATS).where(SEATS.c.room_id.in_(ids))
                                          .order_by(SEATS.c.room_id, SEATS.c.seat)):
                rooms[row.room_id].seats.append(SeatData(row.seat, row.kind, row.name,
                                                         row.bot, row.token_hash, row.host))
            for row in connection.execute(select(CONTRIBUTIONS).where(
                    CONTRIBUTIONS.c.room_id.in_(ids))):
                rooms[row.room_id].contributions[row.seat] = row.value
            for row in connection.execute(select(ACTIONS).where(ACTIONS.c.room_id.in_(ids))
                                          .order_by(ACTIONS.c.room_id, ACTIONS.c.n)):
                rooms[row.room_id].actions.append(ActionData(
                    row.n, row.action, row.seat, row.origin, row.client_id, row.seq, row.at))
            last = (select(CHAT.c.room_id, func.max(CHAT.c.n).label("last"))
                    .where(CHAT.c.room_id.in_(ids)).group_by(CHAT.c.room_id).subquery())
            for row in connection.execute(
                    select(CHAT).join(last, CHAT.c.room_id == last.c.room_id)
                    .where(CHAT.c.n > last.c.last - RECENT_CHAT)
                    .order_by(CHAT.c.room_id, CHAT.c.n)):
                rooms[row.room_id].chat.append(ChatData(
                    row.n, row.seat, row.name, row.text, row.at, row.client_id, row.seq))
            last = (select(ANSWERS.c.room_id, func.max(ANSWERS.c.n).label("last"))
                    .where(ANSWERS.c.room_id.in_(ids)).group_by(ANSWERS.c.room_id)
                    .subquery())
            for row in connection.execute(
                    select(ANSWERS).join(last, ANSWERS.c.room_id == last.c.room_id)
                    .where(ANSWERS.c.n > last.c.last - RECENT_ANSWERS)
                    .order_by(ANSWERS.c.room_id, ANSWERS.c.n)):
                rooms[row.room_id].answers.append(AnswerData(
                    row.n, row.seat, row.client_id, row.answer, row.at))
            return list(rooms.values())
        return await self.run(read)

    async def room_status(self, code: str) -> str | None:
        """The status of the room ``code`` (``None``: no such room)."""
        def read(connection: Connection) -> str | None:
            status = connection.execute(select(ROOMS.c.status).where(
                ROOMS.c.code == code)).scalar()
            return None if status is None else str(status)
        return await self.run(read)

    async def ping(self) -> bool:
        """Whether the database answers."""
        def read(connection: Connection) -> bool:
            return connection.execute(select(1)).scalar() == 1
        return await self.run(read)
