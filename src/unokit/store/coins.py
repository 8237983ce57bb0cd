"""Coins and cosmetics, stored: a ledger of coin lines whose balance never goes below
zero, the cosmetics a player bought, and the one chosen for each slot
(docs/accounts.md, "Challenges and coins").

Coins come only from challenge rewards (:mod:`unokit.store.challenges`) and buy only
cosmetics (:data:`unokit.store.catalogue.COSMETICS`): nothing here is read by a room,
so coins are never staked and never touch a match.

- Every change is a row of ``coin_lines`` (``delta``, ``reason``, a ``reference``
  unique per player) and, in the same transaction, a change of the player's
  ``wallets.coins``, which is thus the sum of the lines.
- A spend is one conditional update (``coins = coins - price WHERE coins >= price``):
  two spends at once, in one process or several, can never take the balance below 0;
  the database checks ``coins >= 0`` as well.

>>> import asyncio
>>> from unokit.store import Store
>>> from unokit.store.accounts import create_guest
>>> async def demo():
...     store = Store("sqlite://")
...     ann = await create_guest(store, "s1" * 16, now=1.0)
...     await store.run(lambda c: credit(c, ann, 120, "challenge", "gift", 2.0))
...     bought = await buy(store, ann, "table.blue", now=3.0)
...     poor = await buy(store, ann, "table.wine", now=4.0)
...     await choose(store, ann, "table.blue")
...     held = await wallet(store, ann)
...     await store.close()
...     return bought, poor, held.coins, held.owned, held.chosen["table"]
>>> asyncio.run(demo())
(40, 'too_poor', 40, ('table.blue',), 'table.blue')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Table, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from unokit.store.catalogue import COSMETIC_BY_ID, DEFAULTS
from unokit.store.models import CoinLineRow, CosmeticChoiceRow, CosmeticOwnedRow, WalletRow

if TYPE_CHECKING:  # the store's match end uses this module: no import of it at run time
    from unokit.store.store import Store

WALLETS: Table = WalletRow.__table__  # type: ignore[assignment]
COIN_LINES: Table = CoinLineRow.__table__  # type: ignore[assignment]
OWNED: Table = CosmeticOwnedRow.__table__  # type: ignore[assignment]
CHOICES: Table = CosmeticChoiceRow.__table__  # type: ignore[assignment]


def upsert(connection: Connection, table: Table) -> Any:
    """An ``INSERT`` into ``table`` that can say ``ON CONFLICT`` (SQLite, PostgreSQL)."""
    if connection.dialect.name == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


def credit(connection: Connection, player_id: int, amount: int, reason: str,
           reference: str, now: float) -> None:
    """In the caller's transaction: ``amount`` coins (more than 0) to ``player_id``,
    with their line."""
    connection.execute(insert(COIN_LINES).values(
        player_id=player_id, delta=amount, reason=reason, reference=reference, at=now))
    query = upsert(connection, WALLETS).values(player_id=player_id, coins=amount)
    connection.execute(query.on_conflict_do_update(
        index_elements=[WALLETS.c.player_id],
        set_={"coins": WALLETS.c.coins + query.excluded.coins}))


def balance(connection: Connection, player_id: int) -> int:
    """The player's coins (0: no wallet yet)."""
    found = connection.execute(select(WALLETS.c.coins).where(
        WALLETS.c.player_id == player_id)).scalar()
    return int(found or 0)


async def buy(store: Store, player_id: int, cosmetic_id: str, *, now: float) -> int | str:
    """Buy the cosmetic ``cosmetic_id`` (a known one, see
    :data:`unokit.store.catalogue.COSMETIC_BY_ID`) for its price, in one transaction:
    the coins left, or ``"owned"`` (bought before, or a free default) or
    ``"too_poor"`` (not enough coins); then nothing changed."""
    item = COSMETIC_BY_ID[cosmetic_id]

    def write(connection: Connection) -> int | str:
        if item.price == 0:
            return "owned"
        # the wallet first, then the item's row, in every write that touches both
        # (credit() has only the wallet), so that two buys cannot lock them in
        # opposite orders
        spent = connection.execute(update(WALLETS).where(
            WALLETS.c.player_id == player_id, WALLETS.c.coins >= item.price).values(
            coins=WALLETS.c.coins - item.price)).rowcount
        held = select(OWNED.c.player_id).where(OWNED.c.player_id == player_id,
                                               OWNED.c.cosmetic == item.id)
        if spent != 1:
            return "owned" if connection.execute(held).first() is not None else "too_poor"
        query = upsert(connection, OWNED).values(player_id=player_id, cosmetic=item.id,
                                                 bought_at=now)
        if connection.execute(query.on_conflict_do_nothing().returning(
                OWNED.c.player_id)).first() is None:
            connection.execute(update(WALLETS).where(WALLETS.c.player_id == player_id)
                               .values(coins=WALLETS.c.coins + item.price))
            return "owned"
        connection.execute(insert(COIN_LINES).values(
            player_id=player_id, delta=-item.price, reason="buy",
            reference=f"buy:{item.id}", at=now))
        return balance(connection, player_id)
    return await store.run(write)


async def choose(store: Store, player_id: int, cosmetic_id: str) -> bool:
    """Choose the cosmetic ``cosmetic_id`` (a known one) for its slot: whether the
    player may (it is theirs, or the slot's free default)."""
    item = COSMETIC_BY_ID[cosmetic_id]

    def write(connection: Connection) -> bool:
        if item.price > 0 and connection.execute(select(OWNED.c.cosmetic).where(
                OWNED.c.player_id == player_id, OWNED.c.cosmetic == item.id)).first() is None:
            return False
        query = upsert(connection, CHOICES).values(player_id=player_id, slot=item.slot,
                                                   cosmetic=item.id)
        connection.execute(query.on_conflict_do_update(
            index_elements=[CHOICES.c.player_id, CHOICES.c.slot],
            set_={"cosmetic": query.excluded.cosmetic}))
        return True
    return await store.run(write)


@dataclass(frozen=True)
class Wallet:
    """A player's coins and cosmetics."""

    coins: int
    owned: tuple[str, ...]
    """The cosmetics bought (the free defaults are everyone's and not listed)."""
    chosen: dict[str, str]
    """Each slot's cosmetic (the default where none was chosen)."""

    def json(self) -> dict[str, Any]:
        """As ``/api/me`` shows it."""
        return {"coins": self.coins, "cosmetics": {"owned": list(self.owned),
                                                   "chosen": self.chosen}}


def read_wallet(connection: Connection, player_id: int) -> Wallet:
    """The player's wallet, read in the caller's transaction."""
    owned = tuple(str(c) for c in connection.execute(select(OWNED.c.cosmetic).where(
        OWNED.c.player_id == player_id).order_by(OWNED.c.cosmetic)).scalars())
    chosen = dict(DEFAULTS)
    for row in connection.execute(select(CHOICES).where(CHOICES.c.player_id == player_id)):
        if row.cosmetic in COSMETIC_BY_ID:  # one withdrawn from the table since: default
            chosen[row.slot] = row.cosmetic
    return Wallet(balance(connection, player_id), owned, chosen)


async def wallet(store: Store, player_id: int) -> Wallet:
    """The player's coins, the cosmetics they bought and the ones chosen."""
    return await store.run(lambda connection: read_wallet(connection, player_id))


async def coin_lines(store: Store, player_id: int | None = None) -> dict[int, list[int]]:
    """The coin lines' deltas, per player (of ``player_id`` only, if given), in order."""
    def read(connection: Connection) -> dict[int, list[int]]:
        query = select(COIN_LINES.c.player_id, COIN_LINES.c.delta).order_by(COIN_LINES.c.id)
        if player_id is not None:
            query = query.where(COIN_LINES.c.player_id == player_id)
        out: dict[int, list[int]] = {}
        for row in connection.execute(query):
            out.setdefault(int(row.player_id), []).append(int(row.delta))
        return out
    return await store.run(read)


TABLES = (COIN_LINES, WALLETS, OWNED, CHOICES)
"""The tables of a player's coins and cosmetics (deleted with the player)."""
