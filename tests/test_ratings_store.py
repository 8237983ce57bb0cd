"""Ratings as stored, on SQLite and PostgreSQL: many random matches (leavers, kicks,
people back, away seats, bots, partners, guests and seats without a session) written
through the store as a server writes them; a full re-rate from the stored entrants
reproduces every stored rating exactly; ratings are committed with the match's last
action or not at all; unrated rooms, guests and bot-only matches rate nobody; bots
never move; a leaver is placed last."""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from typing import Any

import pytest
from sqlalchemy import Connection, select, text

from store_kit import migrate_to
from test_xp import play_match
from unokit.engine.actions import format_action
from unokit.engine.driver import Driver
from unokit.engine.game import Game
from unokit.engine.phases import MATCH_OVER
from unokit.engine.rules import Rules
from unokit.store import ActionData, NewRoom, SeatData, Store, xp
from unokit.store import accounts as A
from unokit.store import boards as B
from unokit.store import ratings as R
from unokit.store.bans import add_ban
from unokit.store.db import HEAD, current_revision, open_engine
from unokit.store.rating_model import BOT_RATINGS, MU, SIGMA, display
from unokit.store.seatings import facts_of

pytestmark = pytest.mark.asyncio

MATCHES = 60


async def accounts(store: Store, count: int, guests: int = 0) -> list[int]:
    """``count`` players, all accounts but the last ``guests``."""
    players = [await A.create_guest(store, f"{n:043d}", now=0.0) for n in range(count)]
    for n, player in enumerate(players[:count - guests]):
        await A.claim(store, player, f"p{n}", "$argon2id$x", now=0.0)
    return players


async def read(store: Store, fn: Any) -> Any:
    return await store.run(fn)


async def test_a_full_rerate_reproduces_every_stored_rating(database_url: str) -> None:
    store = Store(database_url)
    try:
        rng = random.Random(155)
        players = await accounts(store, 12, guests=1)
        expected: dict[int, Any] = {}

        async def table(t: int) -> None:
            mine = random.Random(rng.getrandbits(32))
            for m in range(MATCHES // 4):
                await play_match(store, mine, f"T{t}M{m}", players, expected)
        await asyncio.gather(*(table(t) for t in range(4)))
        stored = await read(store, R.stored_ratings)
        again, afters = await read(store, R.rerate)
        assert again == stored  # exactly: the same floats
        assert afters == await read(store, R.stored_afters)

        def entrants(connection: Connection) -> list[Any]:
            return list(connection.execute(select(R.RESULTS)))
        rows = await read(store, entrants)
        rated = {row.match_id for row in rows}
        # the run rated many matches and left others unrated (guests, seats without a
        # session); it had bots, partners, ties and leavers
        assert 10 <= len(rated) < MATCHES
        assert any(row.bot for row in rows)
        for row in rows:
            if row.bot:  # a bot never moves
                assert (row.mu_after, row.sigma_after) == BOT_RATINGS[row.bot] == (
                    row.mu_before, row.sigma_before)
        teams = Counter((row.match_id, row.team) for row in rows)
        assert max(teams.values()) == 2
        assert sum(stored[p][2] for p in stored) == sum(1 for r in rows if r.player_id)
        guest = players[-1]
        assert guest not in stored
    finally:
        await store.close()


async def finish(store: Store, room: int, rules: Rules, seed: int,
                 origins: str = "player") -> None:
    """Play the started match of ``room`` to its end with the first legal action."""
    game = Game(rules, seed)
    driver = Driver(game)
    while game.phase is not MATCH_OVER:
        seat = driver.lead()
        action = game.legal_actions(seat)[0]
        driver.apply(action)
        over = game.phase is MATCH_OVER
        await store.append_action(room, ActionData(
            len(game.history) - 1, format_action(action), seat, origins, None,
            game.log[-1].seq, 1.0, 1), finished=over,
            facts=facts_of(rules, game.log) if over else None)


async def seated_match(store: Store, code: str, holders: list[tuple[str, int | None]],
                       *, rated: bool = True, rules: dict[str, Any] | None = None,
                       leave: int | None = None) -> dict[int, R.SeatRating]:
    """A match of ``holders`` (("human", player) or ("bot", None)) played to its end;
    with ``leave``, that seat's person leaves after the first action."""
    parsed = Rules.from_dict(rules or {"preset": "official", "players": len(holders),
                                       "hand_size": 3, "rounds": 1})
    room = await store.create_room(NewRoom(
        code=code, rules=json.dumps(parsed.to_dict()), turn_timer=0, public=True,
        server_seed="00" * 32, commitment="ab" * 32, seats=parsed.players, rated=rated))
    await store.set_seats(room, [
        SeatData(seat, kind, f"s{seat}", "hard" if kind == "bot" else "", "h" * 64, False,
                 1, player) for seat, (kind, player) in enumerate(holders)])
    await store.start_match(room, 7)
    game = Game(parsed, 7)
    driver = Driver(game)
    shown: dict[int, R.SeatRating] = {}
    while game.phase is not MATCH_OVER:
        seat = driver.lead()
        action = game.legal_actions(seat)[0]
        driver.apply(action)
        over = game.phase is MATCH_OVER
        shown = await store.append_action(room, ActionData(
            len(game.history) - 1, format_action(action), seat, "player", None,
            game.log[-1].seq, 1.0, 1), finished=over,
            facts=facts_of(parsed, game.log) if over else None)
        if leave is not None and len(game.history) == 1 and not over:
            await store.set_seats(room, [SeatData(leave, "human", "", "", "", False, 1,
                                                  None)])
    return shown


async def test_who_is_rated(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann, bea, guest = await accounts(store, 3, guests=1)
        # unrated room: nobody
        assert await seated_match(store, "U1", [("human", ann), ("human", bea)],
                                  rated=False) == {}
        # a guest at the table: nobody
        assert await seated_match(store, "U2", [("human", ann), ("human", guest)]) == {}
        # a seat taken without a session: nobody
        assert await seated_match(store, "U3", [("human", ann), ("human", None)]) == {}
        # bots alone: nobody
        assert await seated_match(store, "U4", [("bot", None), ("bot", None)]) == {}
        assert await read(store, R.stored_ratings) == {}
        # two accounts and a bot: both people, each seat shown with its change
        shown = await seated_match(store, "R1", [("human", ann), ("human", bea),
                                                 ("bot", None)])
        assert sorted(shown) == [0, 1]
        stored = await read(store, R.stored_ratings)
        assert set(stored) == {ann, bea}
        for seat, player in ((0, ann), (1, bea)):
            rating = shown[seat]
            assert rating.player_id == player and rating.provisional
            assert rating.change == rating.rating - 1500
            assert stored[player][2] == 1
        assert {shown[0].change > 0, shown[1].change > 0} == {True, False} or \
            shown[0].change == shown[1].change
    finally:
        await store.close()


async def test_a_leaver_is_placed_last(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann, bea, cy = await accounts(store, 3)
        shown = await seated_match(store, "L1", [("human", ann), ("human", bea),
                                                 ("human", cy)], leave=2)
        assert 2 not in shown  # the leaver's seat shows nobody: a bot played it

        def rows(connection: Connection) -> list[Any]:
            return list(connection.execute(select(R.RESULTS).order_by(R.RESULTS.c.slot)))
        found = await read(store, rows)
        by_player = {row.player_id: row for row in found if row.player_id is not None}
        assert by_player[cy].rank == max(row.rank for row in found)
        assert by_player[cy].rank > max(by_player[ann].rank, by_player[bea].rank)
        assert by_player[cy].mu_after < MU
        assert by_player[cy].sigma_before == SIGMA
    finally:
        await store.close()


async def test_partners_are_one_team_and_share_their_change(database_url: str) -> None:
    store = Store(database_url)
    try:
        players = await accounts(store, 4)
        await seated_match(store, "P1", [("human", p) for p in players],
                           rules={"preset": "pairs", "hand_size": 3, "rounds": 1})
        stored = await read(store, R.stored_ratings)
        # seats 0 and 2 are partners, and so are 1 and 3
        assert stored[players[0]][0] == stored[players[2]][0]
        assert stored[players[1]][0] == stored[players[3]][0]
        assert stored[players[0]][0] != stored[players[1]][0]
    finally:
        await store.close()


@pytest.mark.parametrize("revision", ["0001", "0004", "0007", "0008", "0009"])
async def test_revision_0010_goes_up_from_every_earlier_one(database_url: str,
                                                            revision: str) -> None:
    migrate_to(database_url, revision)
    engine = open_engine(database_url)
    with engine.begin() as connection:  # a room of that revision
        connection.execute(text(
            "INSERT INTO rooms (code, rules, status, turn_timer, public, server_seed, "
            "commitment, created_at) VALUES ('OLD1', '{}', 'lobby', 0, true, 'aa', 'bb', 1.0)"))
        connection.execute(text(
            "INSERT INTO seats (room_id, seat, kind, name, bot, token_hash, host) "
            "SELECT id, 0, 'human', 'Ann', '', 'h', true FROM rooms"))
    engine.dispose()
    store = Store(database_url)  # migrates to the newest revision
    try:
        assert current_revision(store.engine) == HEAD == "0011"
        [room] = await store.load_rooms(code="OLD1")
        assert [seat.name for seat in room.seats] == ["Ann"]  # the room's rows stay

        def rated(connection: Connection) -> list[Any]:
            return list(connection.execute(text("SELECT rated FROM rooms")).scalars())
        assert [bool(r) for r in await store.run(rated)] == [True]
        assert await read(store, R.stored_ratings) == {}
    finally:
        await store.close()
    migrate_to(database_url, "0009", down=True)  # and back down
    engine = open_engine(database_url)
    assert current_revision(engine) == "0009"
    with engine.connect() as connection:
        assert connection.execute(text("SELECT code FROM rooms")).scalars().all() == ["OLD1"]
        assert connection.execute(text("SELECT name FROM seats")).scalars().all() == ["Ann"]
    engine.dispose()


def board_check(connection: Connection) -> dict[str, list[tuple[int, int]]]:
    """Every board's entries in rank order, each rank and count checked against the
    entries themselves: ``{board: [(player, score)]}``."""
    entries = B.ENTRIES
    out: dict[str, list[tuple[int, int]]] = {}
    for row in connection.execute(select(entries).order_by(
            entries.c.board, entries.c.sort_key, entries.c.player_id)):
        out.setdefault(row.board, []).append((row.player_id, B.BASE - row.sort_key))
    for board, listed in out.items():
        assert B.size(connection, board) == len(listed)
        for rank, (player, _) in enumerate(listed, start=1):
            assert B.rank_of(connection, board, player) == rank
        counts = Counter[tuple[int, int]]()
        for row in connection.execute(select(entries.c.sort_key).where(
                entries.c.board == board)):
            for level in range(B.LEVELS):
                counts[(level, row.sort_key >> (B.SHIFT * level))] += 1
        stored = {(row.level, row.key): row.n for row in connection.execute(
            select(B.COUNTS).where(B.COUNTS.c.board == board)) if row.n}
        assert stored == dict(counts)
    return out


async def test_match_ends_keep_the_leaderboards_exact(database_url: str) -> None:
    store = Store(database_url)
    store.rating_policy = B.Policy(provisional_sigma=100.0, min_matches=2)
    try:
        rng = random.Random(24)
        players = await accounts(store, 6)
        expected: dict[int, Any] = {}
        for m in range(16):
            await play_match(store, rng, f"B{m}", players, expected)
        boards = await store.run(board_check)
        stored = await read(store, R.stored_ratings)
        week = B.week_end(store.clock())
        listed = {p for p, _ in boards.get("rating", [])}
        assert listed and listed <= set(stored)
        for player, score in boards["rating"]:
            assert score == display(stored[player][0]) and stored[player][2] >= 2
        assert {p for p, _ in boards[f"rating:{week}"]} == listed
        totals = await xp.stored_totals(store)
        assert boards["xp"] == sorted(((p, totals[p]) for p in listed),
                                      key=lambda e: (-e[1], e[0]))
        # a name banned now is off every current board at once
        first = boards["rating"][0][0]
        await add_ban(store, "name", f"p{players.index(first)}")
        after = await store.run(board_check)
        assert all(first not in {p for p, _ in after.get(b, [])}
                   for b in ("rating", "xp", f"rating:{week}", f"xp:{week}"))
    finally:
        await store.close()
