"""Every finished match's play statistics and the anti-farming checks' verdict
(``match_play``, ``match_play_seats``; see :mod:`unokit.store.match_play`).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables. Matches finished before have no statistics: their ratings
    stand as they were rated, and the checks of later matches do not see them."""
    op.create_table(
        "match_play",
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.Integer(), nullable=False, unique=True),
        sa.Column("deal", sa.String(64), nullable=False),
        sa.Column("ended_at", sa.Float(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("flagged", sa.Boolean(), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_match_play_flagged", "match_play", ["flagged", "seq"])
    op.create_index("ix_match_play_deal", "match_play", ["deal"])
    op.create_table(
        "match_play_seats",
        sa.Column("match_id", sa.Integer(), primary_key=True),
        sa.Column("slot", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("bot", sa.String(40), nullable=False),
        sa.Column("team", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("left", sa.Boolean(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("playable_turns", sa.Integer(), nullable=False),
        sa.Column("voluntary_draws", sa.Integer(), nullable=False),
        sa.Column("actions", sa.Integer(), nullable=False),
        sa.Column("played_for", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(32), nullable=False),
        sa.Column("account_days", sa.Float(), nullable=False),
        sa.Column("rated_matches", sa.Integer(), nullable=False),
        sa.Column("reasons", sa.String(120), nullable=False),
    )
    op.create_index("ix_match_play_seats_player", "match_play_seats",
                    ["player_id", "match_id"])


def downgrade() -> None:
    """Drop them again (the statistics and verdicts are lost)."""
    op.drop_table("match_play_seats")
    op.drop_table("match_play")
