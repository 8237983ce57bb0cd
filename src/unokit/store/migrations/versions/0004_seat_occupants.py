"""Seat occupants: who holds a seat, and whose client ids the answers are.

Each seat gets the number of its occupant, which grows when someone new takes the seat;
the actions, the chat lines and the command answers get the occupant that sent them, so
that a room keeps answers per occupant and a new holder of a seat never gets an earlier
holder's answers. Rows from before this revision belong to occupant 0.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TABLES = ("seats", "actions", "chat", "answers")


def upgrade() -> None:
    """Add the column ``occupant`` (0 for the rows already there) to each table."""
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("occupant", sa.Integer(), nullable=False,
                                       server_default="0"))


def downgrade() -> None:
    """Drop the column ``occupant`` again."""
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("occupant")
