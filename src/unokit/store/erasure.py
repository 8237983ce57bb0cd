"""What a player's deletion does to the rows that describe their play (docs/accounts.md,
"Deleting"); :mod:`unokit.store.export` shows them while the account lives.

Every column that holds a player's id is in :data:`PLAYER_COLUMNS`, with what a
deletion does to it:

``delete``
    the player's rows go (their sessions, tokens, matches, XP lines, challenges,
    coins, cosmetics, rating, leaderboard places: :mod:`unokit.store.accounts`; their
    chat lines here, with the lines written before revision 0014 by the seats they
    held, found by room, seat and occupant).
``forget``
    the rows stay, part of a room's record, with ``player_id`` null: the seat was held
    by a person who is nobody now (``seats``, ``seatings``); a seat the player holds
    now takes the name of a seat whose player chose none (:func:`default_name`).
``erase``
    the rows stay, because the full re-rate replays them and other players' ratings
    and verdicts rest on them (``rating_results``, ``match_play_seats``), but the
    player's id gives way to ``-n``, where ``n`` is a new row of ``erased_players``
    (:func:`erase`): one number for all of that player's rows, so that the re-rate
    still chains their matches and the checks still see the same history, and which
    nothing links to the player. The digest of their address group, and their
    account's age, are cleared in each match where no other participant shares that
    digest: there they can change no verdict, and a shared digest is the other
    participant's already.

A test walks the tables' metadata for columns named like player ids and checks that
none of a deleted player's rows is left naming them.

>>> import asyncio
>>> from sqlalchemy import insert, select
>>> from unokit.store import Store
>>> from unokit.store.accounts import create_guest, delete_player
>>> async def demo() -> list[tuple[int | None, str]]:
...     store = Store("sqlite://")
...     ann = await create_guest(store, "a" * 43, now=0.0)
...     bea = await create_guest(store, "b" * 43, now=0.0)
...     await store.run(lambda c: c.execute(insert(PLAY_SEATS), [
...         {"match_id": 7, "slot": slot, "seat": slot, "player_id": player, "bot": "",
...          "team": slot, "rank": slot, "left": False, "turns": 9, "playable_turns": 5,
...          "voluntary_draws": 0, "actions": 9, "played_for": 0, "address": address,
...          "account_days": 1.0, "rated_matches": 0, "reasons": ""}
...         for slot, (player, address) in enumerate([(ann, "x"), (bea, "y")])]))
...     await delete_player(store, ann)
...     rows = await store.run(lambda c: c.execute(select(
...         PLAY_SEATS.c.player_id, PLAY_SEATS.c.address).order_by(PLAY_SEATS.c.slot)).all())
...     await store.close()
...     return [tuple(row) for row in rows]
>>> asyncio.run(demo())
[(-1, ''), (2, 'y')]
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, Table, delete, exists, insert, select, tuple_, update

from unokit.store import boards
from unokit.store.models import (
    BoardEntryRow,
    ChatRow,
    ErasedPlayerRow,
    MatchPlayRow,
    MatchPlaySeatRow,
    PlayerRow,
    RatingResultRow,
    RatingRow,
    RoomRow,
    SeatingRow,
    SeatRow,
)
from unokit.store.room_data import ChatData, SeatData

ERASED: Table = ErasedPlayerRow.__table__  # type: ignore[assignment]
RESULTS: Table = RatingResultRow.__table__  # type: ignore[assignment]
RATINGS: Table = RatingRow.__table__  # type: ignore[assignment]
PLAY: Table = MatchPlayRow.__table__  # type: ignore[assignment]
PLAY_SEATS: Table = MatchPlaySeatRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
SEATINGS: Table = SeatingRow.__table__  # type: ignore[assignment]
ENTRIES: Table = BoardEntryRow.__table__  # type: ignore[assignment]
ROOMS: Table = RoomRow.__table__  # type: ignore[assignment]
CHAT: Table = ChatRow.__table__  # type: ignore[assignment]
PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]

PLAYER_COLUMNS: dict[str, str] = {
    "players.id": "delete",
    "sessions.player_id": "delete",
    "api_tokens.player_id": "delete",
    "player_matches.player_id": "delete",
    "xp_lines.player_id": "delete",
    "challenge_progress.player_id": "delete",
    "challenge_rewards.player_id": "delete",
    "wallets.player_id": "delete",
    "coin_lines.player_id": "delete",
    "cosmetics_owned.player_id": "delete",
    "cosmetic_choices.player_id": "delete",
    "ratings.player_id": "delete",
    "board_entries.player_id": "delete",
    "chat.player_id": "delete",
    "seats.player_id": "forget",
    "seatings.player_id": "forget",
    "rating_results.player_id": "erase",
    "match_play_seats.player_id": "erase",
}
"""Every column that holds a player's id, and what a deletion does to its rows."""


def is_erased(player: int | None) -> bool:
    """Whether a player id of the history stands for a deleted player.

    >>> is_erased(-3), is_erased(3), is_erased(None)
    (True, False, False)
    """
    return player is not None and player < 0


def default_name(seat: int) -> str:
    """The name of a seat whose player chose none, and of a deleted player's seat.

    >>> default_name(0)
    'Player 1'
    """
    return f"Player {seat + 1}"


def erase(connection: Connection, players: Sequence[int], now: float) -> None:
    """Before the players ``players`` are deleted: the rows of the history that name
    them are kept under a number that names nobody, the rooms' records forget them
    (and their names and chat lines), and their rating and leaderboard places go (see
    the module)."""
    ids = sorted(set(players))
    if not ids:
        return
    boards.drop_everywhere(connection, ids)
    connection.execute(delete(RATINGS).where(RATINGS.c.player_id.in_(ids)))
    held = sorted({(r.room_id, r.seat, r.occupant) for table in (SEATS, SEATINGS)
                   for r in connection.execute(select(
                       table.c.room_id, table.c.seat, table.c.occupant).where(
                       table.c.player_id.in_(ids)))})
    connection.execute(delete(CHAT).where(CHAT.c.player_id.in_(ids)))
    for start in range(0, len(held), 500):  # lines written before revision 0014
        connection.execute(delete(CHAT).where(tuple_(
            CHAT.c.room_id, CHAT.c.seat, CHAT.c.occupant).in_(held[start:start + 500])))
    for row in connection.execute(select(SEATS.c.room_id, SEATS.c.seat).where(
            SEATS.c.player_id.in_(ids))).all():
        connection.execute(update(SEATS).where(
            SEATS.c.room_id == row.room_id, SEATS.c.seat == row.seat).values(
            name=default_name(row.seat)))
    for table in (SEATS, SEATINGS):
        connection.execute(update(table).where(table.c.player_id.in_(ids))
                           .values(player_id=None))
    kept = set(connection.execute(select(RESULTS.c.player_id).where(
        RESULTS.c.player_id.in_(ids))).scalars())
    kept |= set(connection.execute(select(PLAY_SEATS.c.player_id).where(
        PLAY_SEATS.c.player_id.in_(ids))).scalars())
    other = PLAY_SEATS.alias("other")
    shared = exists().where(other.c.match_id == PLAY_SEATS.c.match_id,
                            other.c.slot != PLAY_SEATS.c.slot,
                            other.c.address == PLAY_SEATS.c.address)
    for player in sorted(kept):  # one player at a time: each sees the others' digests
        number = connection.execute(insert(ERASED).values(erased_at=now)
                                    .returning(ERASED.c.id)).scalar_one()
        alias = -int(number)
        connection.execute(update(RESULTS).where(RESULTS.c.player_id == player)
                           .values(player_id=alias))
        connection.execute(update(PLAY_SEATS).where(
            PLAY_SEATS.c.player_id == player, PLAY_SEATS.c.address != "", ~shared)
            .values(address="", account_days=0.0))
        connection.execute(update(PLAY_SEATS).where(PLAY_SEATS.c.player_id == player)
                           .values(player_id=alias))


def known_players(connection: Connection, seats: Sequence[SeatData]) -> list[SeatData]:
    """``seats`` with every player who is no longer stored made nobody (``player_id``
    ``None``): a room that still holds a deleted player's seat in memory writes it
    without them (and without their name). The players found are share-locked until
    the transaction ends, so a deletion waits for it (and then forgets the seat)."""
    ids = sorted({s.player_id for s in seats if s.player_id is not None})
    if not ids:
        return list(seats)
    live = set(connection.execute(select(PLAYERS.c.id).where(PLAYERS.c.id.in_(ids))
                                  .with_for_update(read=True)).scalars())
    return [s if s.player_id is None or s.player_id in live
            else s._replace(player_id=None, name=default_name(s.seat)) for s in seats]


def known_writer(connection: Connection, line: ChatData) -> ChatData:
    """``line`` as it is stored: a line of a player who is no longer stored (a room
    that still holds their seat in memory) names nobody, under the seat's default
    name. The player found is share-locked until the transaction ends, as in
    :func:`known_players`."""
    if line.player_id is None or connection.execute(select(PLAYERS.c.id).where(
            PLAYERS.c.id == line.player_id).with_for_update(read=True)).first() is not None:
        return line
    return line._replace(player_id=None, name=default_name(line.seat))
