"""Ratings (each player's current rating, and every rated match's entrants with their
ratings before and after) and leaderboards (their entries and the counts that give an
exact rank); rooms are rated or not.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables and the column ``rooms.rated`` (true for the rooms there are).
    Matches finished before are not rated."""
    # a plain ADD COLUMN: a batch (copy and drop) of the rooms would cascade to their rows
    op.add_column("rooms", sa.Column("rated", sa.Boolean(), nullable=False,
                                     server_default=sa.true()))
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.Integer(),
                  sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("change", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.Column("active_until", sa.Float(), nullable=False),
    )
    op.create_index("ix_ratings_active_until", "ratings", ["active_until"])
    op.create_table(
        "rating_results",
        sa.Column("match_id", sa.Integer(), primary_key=True),
        sa.Column("slot", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("bot", sa.String(40), nullable=False),
        sa.Column("team", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("ended_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_rating_results_player", "rating_results", ["player_id", "ended_at"])
    op.create_table(
        "board_entries",
        sa.Column("board", sa.String(24), primary_key=True),
        sa.Column("player_id", sa.Integer(), primary_key=True),
        sa.Column("sort_key", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
    )
    op.create_index("ix_board_entries_order", "board_entries",
                    ["board", "sort_key", "player_id", "name"])
    op.create_table(
        "board_counts",
        sa.Column("board", sa.String(24), primary_key=True),
        sa.Column("level", sa.Integer(), primary_key=True),
        sa.Column("key", sa.BigInteger(), primary_key=True),
        sa.Column("n", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    """Drop them again (the ratings and leaderboards are lost)."""
    for table in ("board_counts", "board_entries", "rating_results", "ratings"):
        op.drop_table(table)
    op.drop_column("rooms", "rated")  # SQLite 3.35+: a plain DROP COLUMN
