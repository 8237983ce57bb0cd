"""The table erased_players, and the rating and anti-farming history of the players
deleted before it made to name them no more.

A deleted player's rows in ``rating_results`` and ``match_play_seats`` are kept (the
full re-rate replays them) but get ``-id`` of a new ``erased_players`` row in place of
the player's id; the digest of their address group (and their account's age) is
cleared where no other participant of the same match shares it; ``seats`` and
``seatings`` forget them (``player_id`` null; ``seats.player_id`` gets an index, for a
deletion to find them). See ``unokit.store.erasure``: this revision does the same for
every player deleted before it.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table erased_players; erase the players deleted already."""
    op.create_table(
        "erased_players",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("erased_at", sa.Float(), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_seats_player_id", "seats", ["player_id"])
    bind = op.get_bind()
    gone = sorted({int(p) for p in bind.execute(sa.text(
        "SELECT player_id FROM rating_results WHERE player_id > 0 AND player_id NOT IN "
        "(SELECT id FROM players) UNION SELECT player_id FROM match_play_seats "
        "WHERE player_id > 0 AND player_id NOT IN (SELECT id FROM players)")).scalars()})
    erased = sa.table("erased_players", sa.column("id", sa.Integer),
                      sa.column("erased_at", sa.Float))
    now = time.time()
    for player in gone:
        number = bind.execute(sa.insert(erased).values(erased_at=now)
                              .returning(erased.c.id)).scalar_one()
        values = {"player": player, "alias": -int(number)}
        bind.execute(sa.text("UPDATE rating_results SET player_id = :alias "
                             "WHERE player_id = :player"), values)
        bind.execute(sa.text(
            "UPDATE match_play_seats SET address = '', account_days = 0 "
            "WHERE player_id = :player AND address <> '' AND NOT EXISTS (SELECT 1 FROM "
            "match_play_seats AS other WHERE other.match_id = match_play_seats.match_id "
            "AND other.slot <> match_play_seats.slot "
            "AND other.address = match_play_seats.address)"), values)
        bind.execute(sa.text("UPDATE match_play_seats SET player_id = :alias "
                             "WHERE player_id = :player"), values)
    for table in ("seats", "seatings"):
        bind.execute(sa.text(f"UPDATE {table} SET player_id = NULL WHERE player_id IS NOT "
                             "NULL AND player_id NOT IN (SELECT id FROM players)"))


def downgrade() -> None:
    """Drop the table erased_players and the index of the seats' players (the history
    keeps the numbers that stand for deleted players: they name nobody)."""
    op.drop_index("ix_seats_player_id", table_name="seats")
    op.drop_table("erased_players")
