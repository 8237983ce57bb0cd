"""Players (guests and accounts), their sessions and API tokens, the player of each
seat, who held each seat of a match (seatings), and the XP ledger.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the new tables and the column ``seats.player_id`` (empty for the seats
    there are: they were taken without a session). Matches finished before give no XP."""
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(32), nullable=True),
        sa.Column("username_key", sa.String(32), nullable=True, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("claimed_at", sa.Float(), nullable=True),
        sa.Column("seen_at", sa.Float(), nullable=False),
        sa.Column("xp", sa.BigInteger(), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.Integer(),
                  sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("seen_at", sa.Float(), nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
        sa.Column("agent", sa.String(128), nullable=False),
    )
    op.create_index("ix_sessions_player_id", "sessions", ["player_id"])
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer(),
                  sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("label", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("used_at", sa.Float(), nullable=True),
    )
    op.create_index("ix_api_tokens_player_id", "api_tokens", ["player_id"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("player_id", sa.Integer(), nullable=True))
    op.create_table(
        "seatings",
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("occupant", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("from_action", sa.Integer(), nullable=False),
        sa.Column("left_action", sa.Integer(), nullable=True),
    )
    op.create_index("ix_seatings_player_id", "seatings", ["player_id"])
    op.create_table(
        "player_matches",
        sa.Column("player_id", sa.Integer(),
                  sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("match_id", sa.Integer(), primary_key=True),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("ended_at", sa.Float(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("left", sa.Boolean(), nullable=False),
        sa.Column("xp", sa.Integer(), nullable=False),
    )
    op.create_index("ix_player_matches_recent", "player_matches",
                    ["player_id", "ended_at", "match_id"])
    op.create_table(
        "xp_lines",
        sa.Column("player_id", sa.Integer(),
                  sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("match_id", sa.Integer(), primary_key=True),
        sa.Column("reason", sa.String(16), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("xp", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    """Drop them again (the players, sessions and XP are lost)."""
    for table in ("xp_lines", "player_matches", "seatings", "api_tokens", "sessions"):
        op.drop_table(table)
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("player_id")
    op.drop_table("players")
