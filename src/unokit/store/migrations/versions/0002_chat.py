"""The table chat: every line a player wrote at a room's table.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table chat (the tables of 0001 and their rows stay as they are)."""
    op.create_table(
        "chat",
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("n", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("at", sa.BigInteger(), nullable=False),
        sa.Column("client_id", sa.String(64), nullable=True),
        sa.Column("seq", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    """Drop the table chat."""
    op.drop_table("chat")
