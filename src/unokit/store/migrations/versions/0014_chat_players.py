"""The column chat.player_id: the player (guest or account) who wrote the line, so that
a deletion takes the player's chat lines with it (``unokit.store.erasure``). Lines
written before it name nobody; a deletion still finds those of the seats the player
held (by room, seat and occupant).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add chat.player_id (null for the lines already written), with an index."""
    with op.batch_alter_table("chat") as batch:
        batch.add_column(sa.Column("player_id", sa.Integer(), nullable=True))
    op.create_index("ix_chat_player_id", "chat", ["player_id"])


def downgrade() -> None:
    """Drop chat.player_id and its index."""
    op.drop_index("ix_chat_player_id", table_name="chat")
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("player_id")
