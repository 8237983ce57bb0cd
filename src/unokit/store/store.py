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
:meth:`Store.start_match`, ...). Seats, actions, chat lines and answers carry the seat's
*occupant* (a number that grows each time someone new takes the seat): a room comes back
with the answers, and the ids of the chat lines, of its seats' current occupants only.

Each room has one owner (:mod:`unokit.store.leases`): the store that created or claimed
it holds its lease (:meth:`Store.claim_rooms`, renewed by :meth:`Store.renew_leases`),
and every write for the room is fenced with the lease's token in the write's own
statement or transaction. A write of a store that no longer holds the room raises
:class:`LeaseLost` and keeps nothing. :meth:`Store.close` releases the store's leases.

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
import math
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import (
    Connection,
    and_,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import DBAPIError, IntegrityError

from unokit.store import boards, challenges, erasure, leases, ratings, seatings
from unokit.store.db import CONNECT_TIMEOUT, STATEMENT_TIMEOUT, open_engine, prepare_schema
from unokit.store.leases import LIVE_HERE, Clock, LeaseLost, Owner, StoreError
from unokit.store.ratings import SeatRating
from unokit.store.room_data import ACTION_COLUMNS as ACTION_COLUMNS
from unokit.store.room_data import RECENT_CHAT as RECENT_CHAT
from unokit.store.room_data import ActionData as ActionData
from unokit.store.room_data import AnswerData as AnswerData
from unokit.store.room_data import ChatData as ChatData
from unokit.store.room_data import NewRoom as NewRoom
from unokit.store.room_data import SeatData as SeatData
from unokit.store.room_data import StoredRoom as StoredRoom
from unokit.store.room_reads import (
    ACTIONS,
    ANSWERS,
    CHAT,
    CONTRIBUTIONS,
    SEATS,
    live_rooms,
    read_rooms,
)
from unokit.store.room_reads import ROOMS as ROOMS

T = TypeVar("T")
LOG = logging.getLogger("unokit.store")

LEASES = leases.LEASES

BATCH = 512
"""The most writes one transaction takes."""

LEASE = 15.0
"""Seconds a room's lease lasts when it is not renewed (the default)."""


class _Refused(Exception):
    """Some rows of a batch of actions were refused by their fence: the batch is tried
    again one write at a time, to tell which."""


class StoreConflict(StoreError):
    """A write broke a unique key (a room code taken, say): trying the same again fails
    again, while the database itself is fine."""


_Job = tuple[Callable[[Connection], Any] | None, "asyncio.Future[Any]",
             tuple[Any, ...] | None]
"""A write: a function of the connection, a row of ``actions`` (which a batch inserts
all at once, before it runs the functions), or both in the same transaction; and the
future its caller waits on (of the caller's event loop, settled there: the writer hands
each loop the outcomes of a whole batch in one call)."""


_Outcome = tuple["asyncio.Future[Any]", Any, BaseException | None]


DEADLOCK_TRIES = 5
"""How many times a write is tried that keeps losing deadlocks (or serialization)."""
_TRANSIENT_STATES = frozenset({"40P01", "40001"})
"""PostgreSQL's SQLSTATEs of a deadlock's victim and of a serialization failure."""


def _transient(exc: BaseException) -> bool:
    """Whether ``exc`` is a transaction the database rolled back to break a deadlock or
    for want of serialization: the same write may well succeed when tried again.

    >>> _transient(ValueError("no"))
    False
    """
    error = getattr(exc, "orig", exc)
    return getattr(error, "sqlstate", None) in _TRANSIENT_STATES


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

    def __init__(self, url: str, *, lease: float = LEASE, lease_clock: Clock | None = None,
                 connect_timeout: float = CONNECT_TIMEOUT,
                 statement_timeout: float = STATEMENT_TIMEOUT, schema: str = "auto") -> None:
        """Open the database ``url``; ``schema``: ``auto`` migrates it, ``check``
        raises :class:`unokit.store.db.SchemaError` unless it is current, ``off``
        leaves it (see :func:`unokit.store.db.prepare_schema`)."""
        self.url = url
        self.lease = lease
        """Seconds a lease lasts past its last claim or renewal."""
        self.lease_clock = lease_clock
        """The leases' clock (tests); ``None``: the database's."""
        self.owner = Owner.here()
        """This store as the owner of rooms' leases."""
        self.rating_policy = boards.Policy()
        """When a rating is provisional, and who is on the leaderboards (the server
        sets it from its settings)."""
        self._tokens: dict[int, int] = {}
        """The rooms this store holds, and their fencing tokens (changed only by the
        writer thread)."""
        self._renewed_at = -math.inf
        self._confirmed: dict[int, float] = {}
        """When (:meth:`_lease_now`, at the start of its transaction) the last renewal
        of every lease, and the last claim or confirmation of each room's, began: a
        lease lasts at least ``lease`` seconds from then (:meth:`lease_left`)."""
        self.engine = open_engine(url, connect_timeout=connect_timeout,
                                  statement_timeout=statement_timeout)
        try:
            prepare_schema(self.engine, schema)
        except Exception:
            self.engine.dispose()
            raise
        self._dialect = self.engine.dialect.name
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._closed = False
        self._open: Connection | None = None
        self._fenced: int | None = None
        """The room of the write the writer thread runs now (as its fence named it), so
        that a failed write's log line names its room."""
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
        self.clock: Callable[[], float] = time.time
        """The clock of the times the store writes itself (a room's creation, start and
        end; tests give their own)."""
        self.reconnects = 0
        """Batches tried again on a new connection after the old one was found dead (a
        database restart, a proxy that dropped it)."""
        self.deadlocks = 0
        """Writes tried again after the database chose them as a deadlock's victim."""
        self._thread = threading.Thread(target=self._writer, name="unokit-store",
                                        daemon=True)
        LIVE_HERE.add(self.owner.text)
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
        """One INSERT of every row (and its flat parameters), each fenced by its room's
        lease (:func:`unokit.store.leases.insert_actions_sql`): the database runs one
        statement, and the writer waits on it once, not once a row."""
        sql = self._inserts.get(len(rows))
        if sql is None:
            sql = leases.insert_actions_sql(self._dialect, self._mark, ACTION_COLUMNS,
                                            len(rows))
            if len(self._inserts) < BATCH:
                self._inserts[len(rows)] = sql
        tokens = self._tokens
        params = [value for row in rows for value in (*row, tokens.get(row[0], -1))]
        params.append(self.owner.text)
        return sql, tuple(params)

    def _inserted(self, rows: list[tuple[Any, ...]], count: int) -> None:
        """Check that every row went in; the room of a refused single room's rows is
        lost, and a batch of several rooms with a refusal is tried one write at a time."""
        if count == len(rows):
            return
        rooms = {row[0] for row in rows}
        if len(rooms) == 1:
            room_id = rows[0][0]
            self._drop(room_id)
            raise LeaseLost(room_id)
        raise _Refused

    def _fence(self, connection: Connection, room_id: int) -> None:
        """The fence of a write for ``room_id``: the transaction goes on only if this
        store holds the room's lease (:func:`unokit.store.leases.fence`)."""
        self._fenced = room_id
        try:
            leases.fence(connection, self.owner.text, room_id, self._tokens.get(room_id))
        except LeaseLost:
            self._drop(room_id)
            raise

    def fence_room(self, connection: Connection, room_id: int) -> None:
        """:meth:`_fence` for the writes of other modules (run by :meth:`run`)."""
        self._fence(connection, room_id)

    def holds(self, room_id: int) -> bool:
        """Whether this store holds the lease of ``room_id`` (as far as it knows: a
        write or a renewal finds out when another process took it)."""
        return room_id in self._tokens

    def token(self, room_id: int) -> int | None:
        """The fencing token of the lease this store holds on ``room_id`` (``None``: it
        holds none, as far as it knows)."""
        return self._tokens.get(room_id)

    def lease_left(self, room_id: int) -> float:
        """The seconds that the lease of ``room_id`` lasts at least, by this machine's
        clock, counted from the start of its last claim, renewal or confirmation; 0
        when this store does not hold it. While it is above 0 no other process can have
        claimed the room, so what this process knows of the room is all there is; at 0
        (a process whose loop stalled past its lease) the room may have moved, and
        :meth:`confirm_lease` tells.

        >>> import asyncio
        >>> async def demo():
        ...     store = Store("sqlite://")
        ...     room = await store.create_room(NewRoom("ABCD", "official", 0, False, "s", "c", 2))
        ...     left = store.lease_left(room), store.lease_left(room + 1)
        ...     await store.close()
        ...     return left[0] > store.lease - 5, left[1]
        >>> asyncio.run(demo())
        (True, 0.0)
        """
        if room_id not in self._tokens:
            return 0.0
        since = max(self._renewed_at, self._confirmed.get(room_id, -math.inf))
        return max(0.0, since + self.lease - self._lease_now())

    def _lease_now(self) -> float:
        """The clock of :meth:`lease_left`: the leases' own when given (tests),
        else ``time.monotonic``."""
        return time.monotonic() if self.lease_clock is None else self.lease_clock()

    def _drop(self, room_id: int) -> None:
        """Forget the lease of ``room_id`` (lost or released)."""
        self._tokens.pop(room_id, None)
        self._confirmed.pop(room_id, None)

    def _execute(self, connection: Connection, batch: list[_Job]) -> list[Any]:
        rows = [row for _, _, row in batch if row is not None]
        if rows:
            # the writer's hot path: one statement, no compiling, few calls into Python
            result = connection.exec_driver_sql(*self._insert_actions(rows))
            self._inserted(rows, result.rowcount)
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
        rows = [row for _, _, row in batch if row is not None]
        try:
            cursor = driver.cursor()
            cursor.execute(*self._insert_actions(rows))
            count = cursor.rowcount
            cursor.close()
            self._inserted(rows, count)
            driver.commit()
        except Exception:
            with contextlib.suppress(Exception):
                driver.rollback()
            raise
        return [None] * len(batch)

    def _disconnected(self, exc: Exception) -> bool:
        """Whether ``exc`` says the open connection is dead (not that the write is bad)."""
        if isinstance(exc, DBAPIError) and exc.connection_invalidated:
            return True
        driver = None
        if self._open is not None:
            with contextlib.suppress(Exception):
                driver = self._open.connection.dbapi_connection
        error: Any = exc.orig if isinstance(exc, DBAPIError) else exc
        try:
            return bool(self.engine.dialect.is_disconnect(error, driver, None))
        except Exception:  # a dialect that cannot tell
            return False

    def _conflict(self, exc: Exception) -> bool:
        """Whether ``exc`` is a broken unique key or other constraint (SQLAlchemy's or,
        from the driver's fast path, the driver's own ``IntegrityError``)."""
        driver_error = getattr(self.engine.dialect.loaded_dbapi, "IntegrityError", None)
        return isinstance(exc, IntegrityError) or (
            isinstance(driver_error, type) and isinstance(exc, driver_error))

    def _run_batch(self, batch: list[_Job], *, retried: bool = False, tries: int = 0) -> None:
        """Commit ``batch`` in one transaction; if it fails, each write alone, so that a
        bad write fails only its own caller. A batch that fails because the connection
        it reused had died (the database restarted since) is tried once more on a new,
        checked one. A write that the database chose as the victim of a deadlock with
        another process's transaction (or could not serialize) is tried again, up to
        :data:`DEADLOCK_TRIES` times. Never raises: the writer must not stop."""
        reused = self._open is not None and not self._open.closed
        self._fenced = None
        try:
            connection = self._connection()
        except Exception as exc:  # no connection: every write of the batch fails at once
            self._open = None
            LOG.error("write failed: no database connection",
                      extra={"error": type(exc).__name__, "writes": len(batch)})
            failure = StoreError(f"no database connection: {type(exc).__name__}")
            _settle_all([(future, None, failure) for _, future, _ in batch])
            return
        try:
            if all(fn is None for fn, _, _ in batch):
                results = self._rows_only(connection, batch)
            else:
                with connection.begin():
                    results = self._execute(connection, batch)
        except Exception as exc:
            refused = isinstance(exc, LeaseLost | _Refused)
            dead = not refused and reused and not retried and self._disconnected(exc)
            if not refused and self._open is not None:
                with contextlib.suppress(Exception):
                    self._open.invalidate()
                with contextlib.suppress(Exception):
                    self._open.close()
                self._open = None
            if dead:
                self.reconnects += 1
                LOG.warning("database connection lost; trying again on a new one")
                self._run_batch(batch, retried=True)
                return
            if len(batch) > 1:
                for job in batch:
                    self._run_batch([job], retried=True)
                return
            if _transient(exc) and tries + 1 < DEADLOCK_TRIES:
                self.deadlocks += 1
                LOG.warning("write chosen as a deadlock's victim; trying it again")
                self._run_batch(batch, retried=True, tries=tries + 1)
                return
            if isinstance(exc, LeaseLost):
                LOG.warning("write refused: the room is owned by another process",
                            extra={"room_id": exc.room_id})
                failure = exc
            else:
                LOG.error("write failed", extra={"error": type(exc).__name__, "room_id": (
                    batch[0][2] or (self._fenced,))[0]})
                kind = StoreConflict if self._conflict(exc) else StoreError
                failure = kind(f"the database refused a write: {type(exc).__name__}")
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
        """Finish every write handed in, release this store's leases, stop the writer
        and close the database."""
        if self._closed:
            return
        self._closed = True
        released: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._jobs.put((self._releaser(None), released, None))
        self._jobs.put(None)
        await asyncio.to_thread(self._thread.join)
        with contextlib.suppress(StoreError):  # not released: the leases run out
            await released
        LIVE_HERE.discard(self.owner.text)
        self.engine.dispose()

    # ------------------------------------------------------------ leases
    async def claim_rooms(self, statuses: tuple[str, ...] = ("lobby", "playing"),
                          code: str | None = None, finished_since: float | None = None
                          ) -> tuple[list[int], int]:
        """Claim the rooms in one of ``statuses`` (or the room ``code``, if it is in one
        of them; with ``finished_since``, also the rooms finished at or after that time)
        whose lease is free, ran out, or belongs to a process of this machine that is
        gone: ``(the ids claimed, how many such rooms another live process holds)``."""
        wanted = live_rooms(statuses, finished_since)
        if code is not None:
            wanted = and_(ROOMS.c.code == code, wanted)

        def write(connection: Connection) -> tuple[list[int], int]:
            start = self._lease_now()
            claimed, busy = leases.claim(connection, self.owner, wanted, self.lease,
                                         self.lease_clock)
            self._tokens.update(claimed)
            self._confirmed.update(dict.fromkeys(claimed, start))
            return sorted(claimed), busy
        return await self.run(write)

    async def renew_leases(self) -> list[int]:
        """Renew every lease this store holds; the rooms it found lost (another process
        claimed them), which this store no longer writes for."""
        def write(connection: Connection) -> list[int]:
            start = self._lease_now()
            found = leases.renew(connection, self.owner, self.lease, self.lease_clock)
            lost = [room for room, token in self._tokens.items()
                    if found.get(room) != token]
            for room in lost:
                self._drop(room)
            self._renewed_at = start
            strays = [room for room in found if room not in self._tokens]
            if strays:  # held in the database but unknown here: let them go
                leases.release(connection, self.owner, strays)
            return lost
        return await self.run(write)

    def _releaser(self, room_ids: list[int] | None) -> Callable[[Connection], None]:
        def write(connection: Connection) -> None:
            leases.release(connection, self.owner, room_ids)
            for room in list(self._tokens) if room_ids is None else room_ids:
                self._drop(room)
        return write

    async def confirm_lease(self, room_id: int) -> bool:
        """Renew the lease of ``room_id`` alone if this store still holds it; whether it
        does (``False``: another process claimed the room, and this store writes for it
        no more)."""
        def write(connection: Connection) -> bool:
            start = self._lease_now()
            token = self._tokens.get(room_id)
            if token is None or not leases.renew_one(connection, self.owner.text, room_id,
                                                     token, self.lease, self.lease_clock):
                self._drop(room_id)
                return False
            self._confirmed[room_id] = start
            return True
        return await self.run(write)

    async def release_rooms(self, room_ids: list[int]) -> None:
        """Release this store's leases on ``room_ids`` (rooms it let go of), so that any
        process may claim them at once."""
        await self.run(self._releaser(room_ids))

    # ------------------------------------------------------------ writes
    async def create_room(self, room: NewRoom) -> int:
        """Store a new room with ``room.seats`` empty seats; its id."""
        def write(connection: Connection) -> int:
            now = self.clock()
            result = connection.execute(insert(ROOMS).values(
                code=room.code, rules=room.rules, status="lobby",
                turn_timer=room.turn_timer, public=room.public, rated=room.rated,
                server_seed=room.server_seed, commitment=room.commitment,
                created_at=now, last_seen=now))
            room_id = int(result.inserted_primary_key[0])  # type: ignore[index]
            connection.execute(insert(SEATS), [
                {"room_id": room_id, **SeatData(seat, "empty")._asdict()}
                for seat in range(room.seats)])
            self._confirmed[room_id] = self._lease_now()
            self._tokens[room_id] = leases.new_lease(connection, self.owner.text, room_id,
                                                     self.lease, self.lease_clock)
            return room_id
        return await self.run(write)

    async def rematch(self, room_id: int, server_seed: str, commitment: str,
                      seats: list[SeatData], *, answer: AnswerData | None = None) -> int:
        """A new match in the room of ``room_id`` (finished), in one fenced transaction:
        the finished match keeps its rows under the code ``CODE-N`` (its N-th match), and
        a new room row takes the code, the rules, the timer and ``seats``, in the lobby,
        with the new ``server_seed`` and ``commitment``, and ``answer``; this store holds
        its lease and lets the finished one's go. The new room's id."""
        def write(connection: Connection) -> int:
            self._fence(connection, room_id)
            old = connection.execute(select(ROOMS).where(ROOMS.c.id == room_id)).one()
            earlier = connection.execute(select(func.count()).select_from(ROOMS).where(
                ROOMS.c.code.like(old.code + "-%"))).scalar_one()
            connection.execute(update(ROOMS).where(ROOMS.c.id == room_id).values(
                code=f"{old.code}-{earlier + 1}"))
            now = self.clock()
            result = connection.execute(insert(ROOMS).values(
                code=old.code, rules=old.rules, status="lobby", turn_timer=old.turn_timer,
                public=old.public, rated=old.rated, server_seed=server_seed,
                commitment=commitment, created_at=now, last_seen=now))
            new_id = int(result.inserted_primary_key[0])  # type: ignore[index]
            connection.execute(insert(SEATS), [{"room_id": new_id, **seat._asdict()}
                                               for seat in seats])
            self._confirmed[new_id] = self._lease_now()
            self._tokens[new_id] = leases.new_lease(connection, self.owner.text, new_id,
                                                    self.lease, self.lease_clock)
            leases.release(connection, self.owner, [room_id])
            if answer is not None:
                connection.execute(insert(ANSWERS).values(room_id=new_id, **answer._asdict()))
            return new_id
        new_id = await self.run(write)
        self._drop(room_id)  # after the commit: a failed one kept it
        return new_id

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
        answer to the command that changed them too (each seat's ``occupant`` is stored
        as given: the room numbers its occupants); the contributions of the seats
        ``drop_contributions`` are removed with them (a seat left before the match)."""
        def write(connection: Connection) -> None:
            self._fence(connection, room_id)
            known = erasure.known_players(connection, seats)  # none deleted meanwhile
            for seat in known:
                values = seat._asdict()
                del values["seat"]
                connection.execute(update(SEATS).where(
                    SEATS.c.room_id == room_id, SEATS.c.seat == seat.seat).values(values))
            seatings.note_seats(connection, room_id, known)
            if drop_contributions:
                connection.execute(delete(CONTRIBUTIONS).where(
                    CONTRIBUTIONS.c.room_id == room_id,
                    CONTRIBUTIONS.c.seat.in_(drop_contributions)))
        await self.run(self._answered(room_id, answer, write))

    async def add_contribution(self, room_id: int, seat: int, value: str, *,
                               answer: AnswerData | None = None) -> None:
        """Store a seat's contribution to the match seed (and ``answer``)."""
        def write(connection: Connection) -> None:
            self._fence(connection, room_id)
            connection.execute(insert(CONTRIBUTIONS).values(room_id=room_id, seat=seat,
                                                            value=value))
        await self.run(self._answered(room_id, answer, write))

    async def start_match(self, room_id: int, seed: int, *,
                          answer: AnswerData | None = None) -> None:
        """Mark the room's match as started with ``seed`` (and store ``answer``)."""
        def write(connection: Connection) -> None:
            self._fence(connection, room_id)
            connection.execute(update(ROOMS).where(ROOMS.c.id == room_id).values(
                status="playing", seed=str(seed), started_at=self.clock()))
            seatings.open_seatings(connection, room_id)
        await self.run(self._answered(room_id, answer, write))

    async def append_action(self, room_id: int, action: ActionData,
                            chat: ChatData | None = None, *,
                            finished: bool = False,
                            facts: seatings.MatchFacts | None = None,
                            marks: Sequence[int] | None = None
                            ) -> dict[int, SeatRating] | None:
        """Store one accepted action (after the ones before it). The actions of one batch
        go in with one statement. With ``chat``, that chat line is committed in the same
        transaction (a line that broke a silence and the ``say`` it cost); with
        ``finished``, the room is marked finished in it too (the action that ended the
        match: its end is never stored apart from it), with the XP ledger of ``facts``
        (:func:`unokit.store.seatings.write_ledger`), the challenge progress
        (:func:`unokit.store.challenges.write_progress`) and its ratings
        (:func:`unokit.store.ratings.write_ratings`, with the anti-farming checks over
        the play ``marks`` the room made of its actions): then the new ratings, by seat
        (else ``None``)."""
        if self._closed:
            raise StoreError("the store is closed")
        future: asyncio.Future[dict[int, SeatRating] | None] = \
            asyncio.get_running_loop().create_future()
        if room_id not in self._tokens:
            raise LeaseLost(room_id)
        writes: list[Callable[[Connection], Any]] = (
            [] if chat is None else [self._chat_writer(room_id, chat)])
        if finished:
            writes.append(self._status_writer(room_id, "finished", facts, marks))

        def write(connection: Connection) -> dict[int, SeatRating]:
            shown: dict[int, SeatRating] = {}
            for each in writes:
                shown = each(connection) or shown
            return shown
        self._jobs.put((write if writes else None, future, (room_id, *action)))
        shown = await future
        return (shown or {}) if finished else None

    def _chat_writer(self, room_id: int, line: ChatData) -> Callable[[Connection], None]:
        def write(connection: Connection) -> None:
            self._fence(connection, room_id)
            known = erasure.known_writer(connection, line)  # not deleted meanwhile
            connection.execute(insert(CHAT).values(room_id=room_id, **known._asdict()))
        return write

    async def append_chat(self, room_id: int, line: ChatData) -> None:
        """Store one chat line (after the ones before it)."""
        await self.run(self._chat_writer(room_id, line))

    async def set_timer(self, room_id: int, seconds: int, *,
                        answer: AnswerData | None = None) -> None:
        """Store a room's turn timer (and ``answer``)."""
        def write(connection: Connection) -> None:
            self._fence(connection, room_id)
            connection.execute(update(ROOMS).where(ROOMS.c.id == room_id).values(
                turn_timer=seconds))
        await self.run(self._answered(room_id, answer, write))

    def _status_writer(self, room_id: int, status: str, facts: seatings.MatchFacts |
                       None = None, marks: Sequence[int] | None = None
                       ) -> Callable[[Connection], dict[int, SeatRating]]:
        def write(connection: Connection) -> dict[int, SeatRating]:
            self._fence(connection, room_id)
            values: dict[str, Any] = {"status": status}
            if status in ("finished", "abandoned", "closed"):
                values["ended_at"] = self.clock()
            connection.execute(update(ROOMS).where(ROOMS.c.id == room_id).values(values))
            if facts is None:
                return {}
            ratings.lock_players(connection, room_id)
            results = seatings.write_ledger(connection, room_id, facts, values["ended_at"])
            challenges.write_progress(connection, room_id, facts, results, values["ended_at"])
            return ratings.write_ratings(connection, room_id, facts, results,
                                         values["ended_at"], self.rating_policy, marks)
        return write

    async def set_status(self, room_id: int, status: str) -> None:
        """Mark the room ``finished`` or ``closed``."""
        await self.run(self._status_writer(room_id, status))

    async def delete_room(self, room_id: int) -> None:
        """Remove a room and everything of it (an empty lobby nobody came back to)."""
        def write(connection: Connection) -> None:
            for table in (ACTIONS, ANSWERS, CHAT, CONTRIBUTIONS, SEATS, LEASES):
                connection.execute(delete(table).where(table.c.room_id == room_id))
            connection.execute(delete(ROOMS).where(ROOMS.c.id == room_id))
        await self.run(write)

    # ------------------------------------------------------------ reads
    async def load_rooms(self, statuses: tuple[str, ...] = ("lobby", "playing"),
                         code: str | None = None,
                         finished_since: float | None = None,
                         ids: list[int] | None = None) -> list[StoredRoom]:
        """Every room in one of ``statuses`` (or the room ``code``, or the rooms ``ids``,
        whatever their status), with its seats, contributions and actions in order, its
        :data:`RECENT_CHAT` last chat lines, and the command answers and chat lines' ids of
        its seats' current occupants; with ``finished_since``, also the rooms finished or
        abandoned at or after that time (seconds since the epoch)."""
        wanted = ids
        def read(connection: Connection) -> list[StoredRoom]:
            query = select(ROOMS)
            query = (query.where(ROOMS.c.code == code) if code is not None
                     else query.where(ROOMS.c.id.in_(wanted)) if wanted is not None
                     else query.where(live_rooms(statuses, finished_since)))
            return read_rooms(connection, query, self.rating_policy)
        return await self.run(read)

    async def room_status(self, code: str) -> str | None:
        """The status of the room ``code`` (``None``: no such room)."""
        def read(connection: Connection) -> str | None:
            status = connection.execute(select(ROOMS.c.status).where(
                ROOMS.c.code == code)).scalar()
            return None if status is None else str(status)
        return await self.run(read)

    async def room_commitment(self, code: str) -> str | None:
        """The fair-deal commitment of the match the room ``code`` holds now (a rematch
        gives the code a new one; ``None``: no such room)."""
        def read(connection: Connection) -> str | None:
            found = connection.execute(select(ROOMS.c.commitment).where(
                ROOMS.c.code == code)).scalar()
            return None if found is None else str(found)
        return await self.run(read)

    async def ping(self) -> bool:
        """Whether the database answers."""
        def read(connection: Connection) -> bool:
            return connection.execute(select(1)).scalar() == 1
        return await self.run(read)
