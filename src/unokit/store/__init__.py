"""The game server's durable state: SQLAlchemy 2 models, Alembic migrations and the
:class:`Store` that commits rooms' actions in groups from one writer thread.

Each room has one owner process at a time, by a lease with a fencing token that every
write checks (:mod:`unokit.store.leases`).

SQLite in WAL mode is the default (a file in the data directory); PostgreSQL works by
URL. See docs/server.md.
"""

from unokit.store.db import default_url, migrate, open_engine
from unokit.store.leases import LeaseLost, StoreError
from unokit.store.store import (
    RECENT_CHAT,
    ActionData,
    AnswerData,
    ChatData,
    NewRoom,
    SeatData,
    Store,
    StoreConflict,
    StoredRoom,
)

__all__ = [
    "RECENT_CHAT",
    "ActionData",
    "AnswerData",
    "ChatData",
    "LeaseLost",
    "NewRoom",
    "SeatData",
    "Store",
    "StoreConflict",
    "StoreError",
    "StoredRoom",
    "default_url",
    "migrate",
    "open_engine",
]
