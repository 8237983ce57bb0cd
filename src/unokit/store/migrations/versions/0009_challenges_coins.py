"""Challenges and coins: each player's progress per challenge and period, the rewards
paid, the coin wallets and their ledger, the cosmetics owned and chosen.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def _player() -> sa.Column[int]:
    return sa.Column("player_id", sa.Integer(),
                     sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)


def upgrade() -> None:
    """Create the new tables (empty: matches finished before made no progress)."""
    op.create_table(
        "challenge_progress",
        _player(),
        sa.Column("period_end", sa.BigInteger(), primary_key=True),
        sa.Column("challenge", sa.String(40), primary_key=True),
        sa.Column("progress", sa.Integer(), nullable=False),
    )
    op.create_table(
        "challenge_rewards",
        _player(),
        sa.Column("period_end", sa.BigInteger(), primary_key=True),
        sa.Column("challenge", sa.String(40), primary_key=True),
        sa.Column("xp", sa.Integer(), nullable=False),
        sa.Column("coins", sa.Integer(), nullable=False),
        sa.Column("claimed_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "wallets",
        _player(),
        sa.Column("coins", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("coins >= 0", name="ck_wallets_coins"),
    )
    op.create_table(
        "coin_lines",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer(),
                  sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
        sa.Column("delta", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("reference", sa.String(80), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.UniqueConstraint("player_id", "reference", name="uq_coin_lines_reference"),
    )
    op.create_table(
        "cosmetics_owned",
        _player(),
        sa.Column("cosmetic", sa.String(40), primary_key=True),
        sa.Column("bought_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "cosmetic_choices",
        _player(),
        sa.Column("slot", sa.String(16), primary_key=True),
        sa.Column("cosmetic", sa.String(40), nullable=False),
    )


def downgrade() -> None:
    """Drop them again (progress, rewards, coins and cosmetics are lost; the XP the
    rewards paid stays in ``players.xp``)."""
    for table in ("cosmetic_choices", "cosmetics_owned", "coin_lines", "wallets",
                  "challenge_rewards", "challenge_progress"):
        op.drop_table(table)
