"""Players, sessions and API tokens, stored: guests, the accounts they claim, the
sessions of their browsers and the tokens of their programs (docs/accounts.md).

Every function goes through the store's writer (:meth:`Store.run`), one short
transaction each. Secrets are never stored: a session's id and an API token are kept as
their SHA-256 (they are random, 128 bits and more), a password as its argon2id hash
(made by the server, :mod:`unokit.server.passwords`, never here). None of these writes
touches a room's rows, so none needs a room's lease.

>>> import asyncio
>>> from unokit.store import Store
>>> async def demo():
...     store = Store("sqlite://")
...     guest = await create_guest(store, "s1" * 16, now=100.0, address="192.0.2.1")
...     await claim(store, guest, "Ann", "$argon2id$...", now=101.0)
...     found = await session_player(store, "s1" * 16, now=102.0, idle=3600)
...     login = await find_login(store, "ann")
...     await store.close()
...     return found.id == guest, found.username, login[0] == guest
>>> asyncio.run(demo())
(True, 'Ann', True)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table, delete, func, insert, select, update

from unokit.store import challenges, erasure
from unokit.store.leases import StoreError
from unokit.store.lifecycle import in_batches
from unokit.store.models import (
    PlayerMatchRow,
    PlayerRow,
    SessionRow,
    TokenRow,
    XpLineRow,
)
from unokit.store.store import Store, StoreConflict

PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]
SESSIONS: Table = SessionRow.__table__  # type: ignore[assignment]
TOKENS: Table = TokenRow.__table__  # type: ignore[assignment]
PLAYER_MATCHES: Table = PlayerMatchRow.__table__  # type: ignore[assignment]
XP_LINES: Table = XpLineRow.__table__  # type: ignore[assignment]

SESSIONS_PER_PLAYER = 50
"""The most sessions a player keeps: a new one past it ends the least recently used."""
TOKENS_PER_PLAYER = 20
"""The most API tokens an account may hold."""
SEEN_EVERY = 3600.0
"""Seconds between two writes of when a session (and its player) was last used."""


def secret_hash(secret: str) -> str:
    """The stored form of a session id or an API token (SHA-256, hex).

    >>> len(secret_hash("abc"))
    64
    """
    return hashlib.sha256(secret.encode()).hexdigest()


class NameTaken(StoreError):
    """The username is taken already (by another account)."""


class TooMany(StoreError):
    """The account holds as many API tokens as it may."""


@dataclass(frozen=True)
class Player:
    """A player as stored (without its password hash)."""

    id: int
    username: str | None
    created_at: float
    claimed_at: float | None
    xp: int

    @property
    def guest(self) -> bool:
        """Whether it is a guest (no account claimed yet)."""
        return self.username is None


def _player(row: Any) -> Player:
    return Player(row.id, row.username, row.created_at, row.claimed_at, int(row.xp))


_PLAYER_COLUMNS = (PLAYERS.c.id, PLAYERS.c.username, PLAYERS.c.created_at,
                   PLAYERS.c.claimed_at, PLAYERS.c.xp)


def _new_session(connection: Connection, player_id: int, session: str, now: float,
                 address: str, agent: str) -> None:
    connection.execute(insert(SESSIONS).values(
        id_hash=secret_hash(session), player_id=player_id, created_at=now, seen_at=now,
        address=address[:64], agent=agent[:128]))
    extra = connection.execute(
        select(SESSIONS.c.id_hash).where(SESSIONS.c.player_id == player_id)
        .order_by(SESSIONS.c.seen_at.desc(), SESSIONS.c.created_at.desc())
        .offset(SESSIONS_PER_PLAYER)).scalars().all()
    if extra:
        connection.execute(delete(SESSIONS).where(SESSIONS.c.id_hash.in_(extra)))


async def create_guest(store: Store, session: str, *, now: float, address: str = "",
                       agent: str = "") -> int:
    """A new guest with a session of id ``session``: the guest's id."""
    def write(connection: Connection) -> int:
        result = connection.execute(insert(PLAYERS).values(
            username=None, username_key=None, password_hash="", created_at=now,
            claimed_at=None, seen_at=now, xp=0))
        player_id = int(result.inserted_primary_key[0])  # type: ignore[index]
        _new_session(connection, player_id, session, now, address, agent)
        return player_id
    return await store.run(write)


async def new_session(store: Store, player_id: int, session: str, *, now: float,
                      address: str = "", agent: str = "", replaces: str | None = None) -> None:
    """A new session of ``player_id`` (a login, or a session id renewed after a claim or
    a password change); with ``replaces``, that session (of whatever player) ends in the
    same transaction."""
    def write(connection: Connection) -> None:
        if replaces is not None:
            connection.execute(delete(SESSIONS).where(
                SESSIONS.c.id_hash == secret_hash(replaces)))
        _new_session(connection, player_id, session, now, address, agent)
    await store.run(write)


async def session_player(store: Store, session: str, *, now: float,
                         idle: float) -> Player | None:
    """The player of the session ``session``, if it was used in the last ``idle``
    seconds (a session idle longer ends here); when it was last used is written at
    most every :data:`SEEN_EVERY` seconds."""
    key = secret_hash(session)

    def write(connection: Connection) -> Player | None:
        row = connection.execute(
            select(*_PLAYER_COLUMNS, SESSIONS.c.seen_at.label("session_seen"))
            .join(SESSIONS, SESSIONS.c.player_id == PLAYERS.c.id)
            .where(SESSIONS.c.id_hash == key)).first()
        if row is None:
            return None
        if row.session_seen < now - idle:
            connection.execute(delete(SESSIONS).where(SESSIONS.c.id_hash == key))
            return None
        if row.session_seen < now - SEEN_EVERY:
            connection.execute(update(SESSIONS).where(SESSIONS.c.id_hash == key)
                               .values(seen_at=now))
            connection.execute(update(PLAYERS).where(PLAYERS.c.id == row.id)
                               .values(seen_at=now))
        return _player(row)
    return await store.run(write)


async def end_session(store: Store, session: str) -> None:
    """End one session (a logout)."""
    def write(connection: Connection) -> None:
        connection.execute(delete(SESSIONS).where(SESSIONS.c.id_hash == secret_hash(session)))
    await store.run(write)


async def end_sessions(store: Store, player_id: int, *, keep: str | None = None) -> int:
    """End every session of ``player_id`` but ``keep``; how many ended."""
    def write(connection: Connection) -> int:
        query = delete(SESSIONS).where(SESSIONS.c.player_id == player_id)
        if keep is not None:
            query = query.where(SESSIONS.c.id_hash != secret_hash(keep))
        return int(connection.execute(query).rowcount)
    return await store.run(write)


def read_player(connection: Connection, player_id: int) -> Player | None:
    """The player ``player_id``, read in the caller's transaction (``None``: none)."""
    row = connection.execute(select(*_PLAYER_COLUMNS).where(
        PLAYERS.c.id == player_id)).first()
    return None if row is None else _player(row)


async def get_player(store: Store, player_id: int) -> Player | None:
    """The player ``player_id`` (``None``: no such player)."""
    return await store.run(lambda connection: read_player(connection, player_id))


async def find_player(store: Store, username_key: str) -> Player | None:
    """The account of the folded username ``username_key`` (``None``: none)."""
    def read(connection: Connection) -> Player | None:
        row = connection.execute(select(*_PLAYER_COLUMNS).where(
            PLAYERS.c.username_key == username_key)).first()
        return None if row is None else _player(row)
    return await store.run(read)


async def find_login(store: Store, username_key: str) -> tuple[int, str] | None:
    """The id and password hash of the account ``username_key`` (``None``: none)."""
    def read(connection: Connection) -> tuple[int, str] | None:
        row = connection.execute(select(PLAYERS.c.id, PLAYERS.c.password_hash).where(
            PLAYERS.c.username_key == username_key)).first()
        return None if row is None else (int(row.id), str(row.password_hash))
    return await store.run(read)


async def signed_in_from(store: Store, username_key: str, address: str) -> bool:
    """Whether the account ``username_key`` has a session opened from ``address``."""
    def read(connection: Connection) -> bool:
        return connection.execute(
            select(SESSIONS.c.id_hash).join(PLAYERS, PLAYERS.c.id == SESSIONS.c.player_id)
            .where(PLAYERS.c.username_key == username_key, SESSIONS.c.address == address)
            .limit(1)).first() is not None
    return await store.run(read)


async def password_hash(store: Store, player_id: int) -> str:
    """The stored password hash of ``player_id`` (empty for a guest or no player)."""
    def read(connection: Connection) -> str:
        found = connection.execute(select(PLAYERS.c.password_hash).where(
            PLAYERS.c.id == player_id)).scalar()
        return "" if found is None else str(found)
    return await store.run(read)


async def claim(store: Store, player_id: int, username: str, hashed: str, *,
                now: float) -> None:
    """Make the guest ``player_id`` an account named ``username`` with the password
    hash ``hashed``; its id, matches and XP stay.

    Raises:
        NameTaken: the name (folded) is another account's.
        StoreError: the player is no guest (or is gone).
    """
    key = username.lower()

    def write(connection: Connection) -> str:
        # a write's exception reaches its caller only as a StoreError: say what went
        # wrong by the result (a claim racing with another process's for the same name
        # breaks the unique key: StoreConflict)
        if connection.execute(select(PLAYERS.c.id).where(
                PLAYERS.c.username_key == key)).first() is not None:
            return "taken"
        done = connection.execute(update(PLAYERS).where(
            PLAYERS.c.id == player_id, PLAYERS.c.username_key.is_(None)).values(
            username=username, username_key=key, password_hash=hashed,
            claimed_at=now)).rowcount
        return "done" if done == 1 else "not_guest"
    try:
        outcome = await store.run(write)
    except StoreConflict:
        raise NameTaken(username) from None
    if outcome == "taken":
        raise NameTaken(username)
    if outcome != "done":
        raise StoreError("not a guest")


async def set_password(store: Store, player_id: int, hashed: str) -> None:
    """Store a new password hash for the account ``player_id``."""
    def write(connection: Connection) -> None:
        connection.execute(update(PLAYERS).where(PLAYERS.c.id == player_id).values(
            password_hash=hashed))
    await store.run(write)


async def change_password(store: Store, player_id: int, hashed: str, session: str,
                          renewed: str, *, now: float, address: str = "",
                          agent: str = "") -> bool:
    """The account ``player_id`` gets the password hash ``hashed``; its every session
    ends and ``renewed`` replaces ``session``, all in one transaction, and only while
    ``session`` is still one of the player's: a "log out everywhere" that ended it
    first (while the new password was being hashed) wins, and nothing changes
    (``False``).

    >>> import asyncio
    >>> async def demo() -> tuple[bool, bool]:
    ...     store = Store("sqlite://")
    ...     ann = await create_guest(store, "s" * 43, now=0.0)
    ...     first = await change_password(store, ann, "h", "s" * 43, "t" * 43, now=1.0)
    ...     again = await change_password(store, ann, "h", "s" * 43, "u" * 43, now=2.0)
    ...     await store.close()
    ...     return first, again
    >>> asyncio.run(demo())
    (True, False)
    """
    def write(connection: Connection) -> bool:
        if connection.execute(delete(SESSIONS).where(
                SESSIONS.c.id_hash == secret_hash(session),
                SESSIONS.c.player_id == player_id)).rowcount != 1:
            return False
        connection.execute(update(PLAYERS).where(PLAYERS.c.id == player_id).values(
            password_hash=hashed))
        connection.execute(delete(SESSIONS).where(SESSIONS.c.player_id == player_id))
        _new_session(connection, player_id, renewed, now, address, agent)
        return True
    return await store.run(write)


async def delete_player(store: Store, player_id: int) -> None:
    """Delete a player and everything that is theirs: sessions, API tokens, matches,
    XP lines, challenge progress and rewards, coins and cosmetics, rating and
    leaderboard places. The rooms' records forget them (the seat's player becomes
    null), and the rating and anti-farming history that other players' ratings rest on
    keeps their matches under a number that names nobody (:mod:`unokit.store.erasure`)."""
    now = store.clock()
    await store.run(lambda connection: _delete_players(connection, [player_id], now))


def _delete_players(connection: Connection, ids: list[int], now: float) -> None:
    """Delete the players ``ids`` and every row of theirs, children first."""
    erasure.erase(connection, ids, now)
    for table in (SESSIONS, TOKENS, XP_LINES, PLAYER_MATCHES, *challenges.TABLES):
        connection.execute(delete(table).where(table.c.player_id.in_(ids)))
    connection.execute(delete(PLAYERS).where(PLAYERS.c.id.in_(ids)))


async def delete_lost_guests(store: Store, seen_before: float, *, batch: int = 100) -> int:
    """Delete the guests last seen before ``seen_before`` (whose sessions have all run
    out, so that nobody can ever be them again), with everything of theirs, at most
    ``batch`` per transaction; how many."""
    now = store.clock()

    def write(connection: Connection) -> int:
        ids = list(connection.execute(select(PLAYERS.c.id).where(
            PLAYERS.c.username_key.is_(None), PLAYERS.c.seen_at < seen_before)
            .order_by(PLAYERS.c.id).limit(batch)).scalars())
        if ids:
            _delete_players(connection, ids, now)
        return len(ids)
    return await in_batches(store, write, batch)


# ---------------------------------------------------------------- API tokens
@dataclass(frozen=True)
class ApiToken:
    """An API token as listed (never the token itself)."""

    id: int
    label: str
    created_at: float
    used_at: float | None


async def create_token(store: Store, player_id: int, token: str, label: str, *,
                       now: float) -> int:
    """Store the API token ``token`` (its hash) for ``player_id``; its id.

    Raises:
        TooMany: the account holds :data:`TOKENS_PER_PLAYER` already.
    """
    def write(connection: Connection) -> int | None:
        held = connection.execute(select(func.count()).select_from(TOKENS).where(
            TOKENS.c.player_id == player_id)).scalar()
        if int(held or 0) >= TOKENS_PER_PLAYER:
            return None
        result = connection.execute(insert(TOKENS).values(
            player_id=player_id, token_hash=secret_hash(token), label=label[:64],
            created_at=now, used_at=None))
        return int(result.inserted_primary_key[0])  # type: ignore[index]
    made = await store.run(write)
    if made is None:
        raise TooMany("too many API tokens")
    return made


async def token_player(store: Store, token: str, *, now: float) -> Player | None:
    """The player of the API token ``token`` (``None``: no such token); when it was
    last used is written at most every :data:`SEEN_EVERY` seconds."""
    key = secret_hash(token)

    def write(connection: Connection) -> Player | None:
        row = connection.execute(
            select(*_PLAYER_COLUMNS, TOKENS.c.used_at, TOKENS.c.id.label("token_id"))
            .join(TOKENS, TOKENS.c.player_id == PLAYERS.c.id)
            .where(TOKENS.c.token_hash == key)).first()
        if row is None:
            return None
        if row.used_at is None or row.used_at < now - SEEN_EVERY:
            connection.execute(update(TOKENS).where(TOKENS.c.id == row.token_id)
                               .values(used_at=now))
        return _player(row)
    return await store.run(write)


async def list_tokens(store: Store, player_id: int) -> list[ApiToken]:
    """The API tokens of ``player_id``, oldest first."""
    def read(connection: Connection) -> list[ApiToken]:
        return [ApiToken(row.id, row.label, row.created_at, row.used_at)
                for row in connection.execute(select(TOKENS).where(
                    TOKENS.c.player_id == player_id).order_by(TOKENS.c.id))]
    return await store.run(read)


async def revoke_token(store: Store, player_id: int, token_id: int) -> bool:
    """Delete the API token ``token_id`` of ``player_id``; whether there was one."""
    def write(connection: Connection) -> bool:
        return int(connection.execute(delete(TOKENS).where(
            TOKENS.c.id == token_id, TOKENS.c.player_id == player_id)).rowcount) > 0
    return await store.run(write)
