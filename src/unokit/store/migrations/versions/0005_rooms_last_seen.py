"""When a seated person was last seen in each room: the stored clock of the lobby timeout
and of abandoned matches (``rooms.last_seen``), so that a restart neither resets nor
forgets it.

Rooms stored before this revision get the time of their last action, else of their
start, else of their creation.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``rooms.last_seen`` and fill it in for the rooms already stored."""
    op.add_column("rooms", sa.Column("last_seen", sa.Float(), nullable=True))
    op.execute("UPDATE rooms SET last_seen = COALESCE("
               "(SELECT MAX(actions.at) FROM actions WHERE actions.room_id = rooms.id), "
               "started_at, created_at)")


def downgrade() -> None:
    """Drop ``rooms.last_seen``, in place (SQLite 3.35 or newer): not by copying the
    table, whose drop would delete every row that refers to a room."""
    op.execute("ALTER TABLE rooms DROP COLUMN last_seen")
