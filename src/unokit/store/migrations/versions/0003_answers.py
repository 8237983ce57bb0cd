"""The answers to the host's and the lobby's commands, kept across restarts.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table answers (the tables of 0001 and 0002 and their rows stay)."""
    op.create_table(
        "answers",
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("n", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("client_id", sa.String(64), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    """Drop the table answers."""
    op.drop_table("answers")
