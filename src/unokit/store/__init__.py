"""The game server's durable state: SQLAlchemy 2 models, Alembic migrations and the
:class:`Store` that commits rooms' actions in groups from one writer thread.

SQLite in WAL mode is the default (a file in the data directory); PostgreSQL works by
URL. See docs/server.md.
"""

from unokit.store.db import default_url, migrate, open_engine
from unokit.store.store import (
    RECENT_ANSWERS,
    RECENT_CHAT,
    ActionData,
    AnswerData,
    ChatData,
    NewRoom,
    SeatData,
    Store,
    StoreConflict,
    StoredRoom,
    StoreError,
)

__all__ = [
    "RECENT_ANSWERS",
    "RECENT_CHAT",
    "ActionData",
    "AnswerData",
    "ChatData",
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
