"""One owner per room: the leases of the table ``room_leases`` and the fence of every
write.

Each room has one lease row: the process that owns it (:class:`Owner`), a fencing token
and ``lease_until``. A process claims a room when it creates it or brings it back
(:func:`claim`), renews its leases every few seconds (:func:`renew`) and releases them
when it stops cleanly (:func:`release`). A claim takes a room only if its lease is free
(released), ran out, or belongs to a process of this machine that is gone; every claim
adds one to the token.

Every write for a room is fenced: the row of an action goes in only through an
``INSERT ... SELECT`` joined with the lease row of the writer's owner and token (on
PostgreSQL with ``FOR SHARE`` of that row), and every other write begins its transaction
with :func:`fence`, which locks the lease row (PostgreSQL: ``SELECT ... FOR SHARE``;
SQLite: a no-op ``UPDATE``, which takes SQLite's write lock for the transaction). A claim
updates the lease row, so it waits for a write that holds it and a write after it sees
the new owner: a process that stalled past its lease and comes back has its writes
refused (:class:`LeaseLost`), never mixed with the new owner's.

Time: ``lease_until`` is written and compared by the database's clock
(:func:`now_sql`), so the processes' own clocks never matter; tests give a clock of
their own.

>>> owner = Owner.here()
>>> owner.same_machine(Owner.here().text), owner.text.count("/")
(True, 3)
>>> Owner.parse("box/4026531836/12/ab12").pid
12
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Float,
    Select,
    Table,
    and_,
    column,
    func,
    literal,
    literal_column,
    or_,
    select,
    table,
    update,
)

from unokit.store.models import LeaseRow, RoomRow

LEASES: Table = LeaseRow.__table__  # type: ignore[assignment]
ROOMS: Table = RoomRow.__table__  # type: ignore[assignment]

Clock = Callable[[], float]
"""A clock for the leases, in seconds (tests); ``None`` where one is taken: the
database's clock."""


class StoreError(RuntimeError):
    """A write could not be committed (the database refused it or is gone)."""


class LeaseLost(StoreError):
    """The write was refused: this process no longer owns the room (another process
    claimed it after this one's lease ran out, or it was never claimed here). Nothing of
    the write was kept."""

    def __init__(self, room_id: int) -> None:
        super().__init__(f"room {room_id} is owned by another server process now")
        self.room_id = room_id


@dataclass(frozen=True)
class Owner:
    """A server process as a lease owner: its machine (host name and PID namespace),
    its process id and a random nonce (two stores in one process are two owners)."""

    host: str
    namespace: str
    pid: int
    nonce: str

    @classmethod
    def here(cls) -> Owner:
        """A new owner for this process."""
        try:
            namespace = str(os.stat("/proc/self/ns/pid").st_ino)
        except OSError:
            namespace = "-"
        host = socket.gethostname().replace("/", "_")[:64] or "-"
        return cls(host, namespace, os.getpid(), secrets.token_hex(6))

    @classmethod
    def parse(cls, text: str) -> Owner | None:
        """The owner written as ``text`` (``None``: not one of ours, or empty)."""
        parts = text.rsplit("/", 3)
        if len(parts) != 4 or not parts[2].isdigit():
            return None
        return cls(parts[0], parts[1], int(parts[2]), parts[3])

    @property
    def text(self) -> str:
        """How it is written in ``room_leases.owner``."""
        return f"{self.host}/{self.namespace}/{self.pid}/{self.nonce}"

    def same_machine(self, other: str) -> bool:
        """Whether ``other`` (an owner's text) is a process of this machine and PID
        namespace, whose process id this one can look up."""
        them = Owner.parse(other)
        return them is not None and (them.host, them.namespace) == (self.host,
                                                                     self.namespace)


LIVE_HERE: set[str] = set()
"""The owners of the stores open in this process (a store adds itself when it opens and
goes when it closes)."""


def gone(owner: Owner, other: str) -> bool:
    """Whether the owner ``other`` is a process of this machine that no longer runs, so
    that its leases may be taken at once rather than when they run out.

    A process of another machine (or PID namespace) is never judged gone: its leases
    run out. In this process, an owner is gone once its store closed.

    >>> me = Owner.here()
    >>> LIVE_HERE.add(me.text)
    >>> gone(me, me.text), gone(me, "elsewhere/1/1/ab")
    (False, False)
    >>> gone(me, f"{me.host}/{me.namespace}/{me.pid}/a-store-that-closed")
    True
    >>> LIVE_HERE.discard(me.text)
    """
    them = Owner.parse(other)
    if them is None or not owner.same_machine(other):
        return False
    if them.pid == owner.pid:
        return other not in LIVE_HERE
    return not _running(them.pid)


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, killed and not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def now_sql(connection: Connection, clock: Clock | None) -> ColumnElement[float]:
    """The present time in seconds since the epoch, as the database reads its clock
    (``clock`` instead, when given)."""
    if clock is not None:
        return literal(clock(), Float)
    if connection.dialect.name == "sqlite":
        return literal_column("((julianday('now') - 2440587.5) * 86400.0)", Float)
    if connection.dialect.name == "postgresql":
        return literal_column("CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE "
                              "PRECISION)", Float)
    raise StoreError(f"leases need SQLite or PostgreSQL, not {connection.dialect.name}")


def fence(connection: Connection, owner: str, room_id: int, token: int | None) -> None:
    """Lock the lease row of ``room_id`` for this transaction if ``owner`` holds it with
    ``token``; else raise :class:`LeaseLost` (and the transaction is rolled back)."""
    if token is None:
        raise LeaseLost(room_id)
    held = and_(LEASES.c.room_id == room_id, LEASES.c.owner == owner,
                LEASES.c.token == token)
    if connection.dialect.name == "sqlite":
        # a write first: the transaction takes SQLite's write lock now, so that no other
        # process's claim can come between this check and the write that follows
        found = connection.execute(update(LEASES).where(held).values(
            token=LEASES.c.token)).rowcount
    else:
        found = len(connection.execute(select(LEASES.c.room_id).where(held)
                                       .with_for_update(read=True)).all())
    if found != 1:
        raise LeaseLost(room_id)


def insert_actions_sql(dialect: str, mark: str, columns: tuple[str, ...], rows: int) -> str:
    """One ``INSERT INTO actions`` of ``rows`` rows, each taken only where the lease row
    of its room has the row's token and the owner given as the last parameter (so a
    write of a process that lost the room inserts nothing). Each row's parameters are
    its ``columns`` and then its token.

    >>> sql = insert_actions_sql("sqlite", "?", ("room_id", "n"), 2)
    >>> sql[:sql.index(" FROM")]
    'INSERT INTO actions (room_id, n) SELECT v.column1, v.column2'
    >>> for part in sql[sql.index(" FROM"):].split(" JOIN "):
    ...     print(part.strip())
    FROM (VALUES (?, ?, ?), (?, ?, ?)) AS v
    room_leases AS l ON l.room_id = v.column1 AND l.token = v.column3 WHERE l.owner = ?
    """
    group = "(" + ", ".join([mark] * (len(columns) + 1)) + ")"
    picked = ", ".join(f"v.column{i + 1}" for i in range(len(columns)))
    sql = (f"INSERT INTO actions ({', '.join(columns)}) SELECT {picked} FROM (VALUES "
           + ", ".join([group] * rows)
           + f") AS v JOIN room_leases AS l ON l.room_id = v.column1 AND "
           f"l.token = v.column{len(columns) + 1} WHERE l.owner = {mark}")
    if dialect == "postgresql":
        sql += " FOR SHARE OF l"
    return sql


def new_lease(connection: Connection, owner: str, room_id: int, length: float,
              clock: Clock | None) -> int:
    """The lease of a room just made: ``owner`` holds it, token 1. The token."""
    connection.execute(LEASES.insert().values(
        room_id=room_id, owner=owner, token=1,
        lease_until=now_sql(connection, clock) + length))
    return 1


def claim(connection: Connection, me: Owner, rooms: ColumnElement[bool], length: float,
          clock: Clock | None) -> tuple[dict[int, int], int]:
    """Claim every room that matches ``rooms`` (a condition on ``rooms``) whose lease is
    free, ran out, or belongs to a process of this machine that is gone: ``(the rooms
    claimed and their new tokens, how many matching rooms other processes hold)``.
    Rooms ``me`` holds already are neither claimed nor counted.

    On PostgreSQL a lease row that a write holds (``FOR SHARE``: its owner is in the
    middle of a transaction, or stopped in one) is skipped, not waited for: it is held,
    and a later claim finds it free once that write ended. A write stopped where no
    timeout of PostgreSQL ends it is ended here (:func:`end_stalled_writes`)."""
    if connection.dialect.name == "sqlite":
        # a write first, so that the transaction holds SQLite's write lock before it
        # reads: another process's write cannot come between the reads and the claim
        connection.execute(update(LEASES).where(LEASES.c.room_id == -1).values(
            token=LEASES.c.token))
    now = now_sql(connection, clock)
    wanted = select(ROOMS.c.id).where(rooms)
    others = connection.execute(
        select(LEASES.c.owner).distinct().where(
            LEASES.c.room_id.in_(wanted), LEASES.c.owner != me.text,
            LEASES.c.owner != "", LEASES.c.lease_until > now)).scalars().all()
    dead = [other for other in others if gone(me, other)]
    free: ColumnElement[bool] = LEASES.c.lease_until <= now
    if dead:
        free = or_(free, LEASES.c.owner.in_(dead))
    claimable = and_(LEASES.c.room_id.in_(wanted), LEASES.c.owner != me.text, free)
    query = select(LEASES.c.room_id).where(claimable)
    if connection.dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    ids = connection.execute(query).scalars().all()
    if connection.dialect.name == "postgresql":
        end_stalled_writes(connection, and_(
            LEASES.c.room_id.in_(wanted), LEASES.c.owner != me.text,
            LEASES.c.owner != "", LEASES.c.lease_until <= now - length))
    claimed = connection.execute(
        update(LEASES).where(LEASES.c.room_id.in_(ids), claimable)
        .values(owner=me.text, token=LEASES.c.token + 1, lease_until=now + length)
        .returning(LEASES.c.room_id, LEASES.c.token)).all() if ids else []
    busy = connection.execute(
        select(func.count()).select_from(LEASES).where(
            LEASES.c.room_id.in_(wanted), LEASES.c.owner != me.text,
            LEASES.c.owner != "")).scalar()
    return {int(row[0]): int(row[1]) for row in claimed}, int(busy or 0)


PG_STAT_ACTIVITY = table("pg_stat_activity", column("pid"), column("backend_xid"))


def end_stalled_writes(connection: Connection, stale: ColumnElement[bool]) -> int:
    """End (``pg_terminate_backend``) the transaction that holds the lease row of a
    room matching ``stale``: a lease that ran out a whole lease ago, whose owner is
    stopped in the middle of a write. PostgreSQL ends a transaction left idle
    (``idle_in_transaction_session_timeout``) or a statement that runs too long
    (``statement_timeout``), but not one whose owner stopped halfway through sending a
    statement (SIGSTOP, a hung machine): that backend waits to read the rest, with the
    lease row locked, for as long as the owner is stopped, and no other process could
    claim the room. The owner lost the room, and nothing of that write was committed: it
    is refused like any other write of a process that lost its lease. The row lock names
    the holding transaction (the row's ``xmax``), and so its backend. How many were
    ended."""
    lockers: Select[Any] = select(literal_column("room_leases.xmax")).where(stale)
    ended = connection.execute(
        select(func.pg_terminate_backend(PG_STAT_ACTIVITY.c.pid)).where(
            PG_STAT_ACTIVITY.c.backend_xid.in_(lockers),
            PG_STAT_ACTIVITY.c.pid != func.pg_backend_pid()))
    return len(ended.all())


def renew(connection: Connection, me: Owner, length: float,
          clock: Clock | None) -> dict[int, int]:
    """Push back the end of every lease ``me`` holds: those rooms and their tokens."""
    rows = connection.execute(
        update(LEASES).where(LEASES.c.owner == me.text)
        .values(lease_until=now_sql(connection, clock) + length)
        .returning(LEASES.c.room_id, LEASES.c.token)).all()
    return {int(row[0]): int(row[1]) for row in rows}


def renew_one(connection: Connection, owner: str, room_id: int, token: int, length: float,
              clock: Clock | None) -> bool:
    """Push back the end of the lease of ``room_id`` if ``owner`` holds it with
    ``token``; whether it does."""
    held = and_(LEASES.c.room_id == room_id, LEASES.c.owner == owner,
                LEASES.c.token == token)
    return bool(connection.execute(update(LEASES).where(held).values(
        lease_until=now_sql(connection, clock) + length)).rowcount == 1)


def release(connection: Connection, me: Owner, room_ids: list[int] | None) -> None:
    """Free the leases ``me`` holds on ``room_ids`` (``None``: all of them); their tokens
    stay, so the next claim counts on from them."""
    mine: list[Any] = [LEASES.c.owner == me.text]
    if room_ids is not None:
        mine.append(LEASES.c.room_id.in_(room_ids))
    connection.execute(update(LEASES).where(*mine).values(owner="", lease_until=0.0))
