"""The table turn_clocks: how much of the turn under way a room had used when the
process that served it stopped and let another take it (a restart).

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table turn_clocks."""
    op.create_table(
        "turn_clocks",
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("actions", sa.Integer(), nullable=False),
        sa.Column("used", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    """Drop the table turn_clocks."""
    op.drop_table("turn_clocks")
