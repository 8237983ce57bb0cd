"""The table room_leases: which server process owns each room, with a fencing token.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table room_leases with a free lease (token 0) for every room there is."""
    op.create_table(
        "room_leases",
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("owner", sa.String(128), nullable=False),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("lease_until", sa.Float(), nullable=False),
    )
    op.execute("INSERT INTO room_leases (room_id, owner, token, lease_until) "
               "SELECT id, '', 0, 0 FROM rooms")


def downgrade() -> None:
    """Drop the table room_leases."""
    op.drop_table("room_leases")
