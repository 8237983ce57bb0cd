"""The XP ledger on SQLite and PostgreSQL: many random matches with leavers, kicks,
people back, away seats and bots, written through the store as a server writes them.
After them, for every player, the stored lines and totals equal both a recomputation
from the stored match records alone and an independent count kept while playing. The
ledger is committed in the transaction of the match's last action (a refused last
action leaves none), a player's matches come in keyset pages, and the level curve is as
documented. Challenge rewards join the totals as rows of their own: the stored totals
equal the recomputed match XP plus the rewards' XP."""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from store_kit import LeaseClock, new_room
from unokit.engine.actions import PLAY, action_type, format_action
from unokit.engine.cards import DRAW_TWO, RANKS_PER_COLOR, WILD, WILD_DRAW_FOUR
from unokit.engine.driver import Driver
from unokit.engine.events import EventKind
from unokit.engine.game import Game
from unokit.engine.phases import MATCH_OVER, ROUND_OVER
from unokit.engine.rules import Rules
from unokit.engine.scoring import teammates
from unokit.store import ActionData, LeaseLost, NewRoom, SeatData, Store, challenges, xp
from unokit.store import accounts as A
from unokit.store.catalogue import CHALLENGE_BY_ID
from unokit.store.seatings import PLAYER_MATCHES, XP, XP_LINES, facts_of

RULE_SETS = [
    {"preset": "official", "players": 2, "hand_size": 4, "rounds": 2},
    {"preset": "official", "players": 3, "hand_size": 4, "rounds": 2},
    {"preset": "official", "players": 4, "hand_size": 3, "rounds": 2},
    {"preset": "pairs", "hand_size": 3, "rounds": 2},
]
MATCHES = 72
"""Matches each test database plays (six tables of twelve)."""


@dataclass
class Holder:
    """Who holds a seat in the simulation."""

    kind: str  # human, bot, empty
    player: int | None
    occupant: int
    token: bool = True  # False: the person left (a bot plays the seat to the end)


@dataclass
class Expected:
    """The XP lines the simulation itself counted, per player of one match."""

    lines: dict[int, Counter[str]] = field(default_factory=dict)


def card_line(card: int) -> str | None:
    if card == WILD_DRAW_FOUR:
        return "wild_draw_four"
    if card < WILD and card % RANKS_PER_COLOR == DRAW_TWO:
        return "draw_two"
    return None


async def play_match(store: Store, rng: random.Random, code: str, pool: list[int],
                     expected: dict[int, dict[int, Counter[str]]]) -> None:
    """One random match of the players of ``pool``, stored as the server stores one,
    and the XP each player should get, counted here from the events as they come."""
    rules = Rules.from_dict(rng.choice(RULE_SETS))
    n = rules.players
    room = await store.create_room(NewRoom(
        code=code, rules=json.dumps(rules.to_dict(), sort_keys=True), turn_timer=0,
        public=True, server_seed="00" * 32, commitment="ab" * 32, seats=n))
    people = rng.sample(pool, k=min(len(pool), n))
    seats: list[Holder] = []
    for seat in range(n):
        roll = rng.random()
        if roll < 0.2:
            seats.append(Holder("bot", None, 1))
        elif roll < 0.3:
            seats.append(Holder("human", None, 1))  # came without a session
        else:
            seats.append(Holder("human", people[seat], 1))

    def data(seat: int) -> SeatData:
        h = seats[seat]
        return SeatData(seat, h.kind, f"p{seat}", "normal" if h.kind == "bot" else "",
                        "h" * 64 if h.kind == "human" and h.token else "", False,
                        h.occupant, h.player if h.kind == "human" else None)
    await store.set_seats(room, [data(s) for s in range(n)])
    seed = rng.getrandbits(64)
    await store.start_match(room, seed)
    game = Game(rules, seed)
    driver = Driver(game)
    counted: dict[int, Counter[str]] = {}
    won_by: dict[int, bool] = {}
    ever = {h.player for h in seats if h.kind == "human" and h.player is not None}

    def holder_player(seat: int) -> int | None:
        h = seats[seat]
        return h.player if h.kind == "human" and h.token else None

    while game.phase is not MATCH_OVER:
        seat = driver.lead()
        h = seats[seat]
        if h.kind == "bot":
            origin = "bot"
        elif not h.token or h.kind == "empty":
            origin = "auto"
        else:
            origin = rng.choices(["player", "timeout", "auto"], [8, 1, 1])[0]
        legal = game.legal_actions(seat)
        plays = [a for a in legal if action_type(a) == PLAY]
        action = rng.choice(plays if plays and rng.random() < 0.9 else legal)
        before = len(game.log)
        driver.apply(action)
        events = game.log[before:]
        for event in events:
            if event.kind is EventKind.PLAYED and origin == "player":
                line = card_line(event.card)
                who = holder_player(event.player)
                if line is not None and who is not None:
                    counted.setdefault(who, Counter())[line] += 1
            elif event.kind is EventKind.ROUND_ENDED and event.player >= 0:
                for winner in teammates(rules, event.player):
                    who = holder_player(winner)
                    if who is not None:
                        counted.setdefault(who, Counter())["won_round"] += 1
            elif event.kind is EventKind.MATCH_ENDED:
                for winner in teammates(rules, event.player):
                    who = holder_player(winner)
                    if who is not None:
                        won_by[who] = True
        over = game.phase is MATCH_OVER
        await store.append_action(room, ActionData(
            len(game.history) - 1, format_action(action), seat, origin, None,
            game.log[-1].seq, 1000.0 + len(game.history), h.occupant),
            finished=over, facts=facts_of(rules, game.log) if over else None)
        if over:
            break
        changed: list[int] = []
        for other in range(n):
            spot = seats[other]
            if spot.kind == "human" and spot.token and rng.random() < 0.01:
                spot.token = False  # left mid-round: a bot plays the seat to the end
                changed.append(other)
        if game.phase is ROUND_OVER:
            for other in range(n):
                spot = seats[other]
                if spot.kind == "human" and rng.random() < 0.25:
                    # sent away between rounds (or a leaver's seat taken back): someone
                    # takes the seat, maybe the same player again
                    back = rng.random() < 0.5 and spot.player is not None
                    newcomer = spot.player if back else rng.choice([*pool, None])
                    if newcomer is not None and any(
                            s.player == newcomer and s.kind == "human" and s.token
                            for i, s in enumerate(seats) if i != other):
                        newcomer = None  # a player holds one seat of a room at most
                    seats[other] = Holder("human", newcomer, spot.occupant + 1)
                    if newcomer is not None:
                        ever.add(newcomer)
                    changed.append(other)
                elif spot.kind == "bot" and rng.random() < 0.1:
                    seats[other] = Holder("bot", None, spot.occupant + 1)
                    changed.append(other)
        if changed:
            await store.set_seats(room, [data(s) for s in sorted(set(changed))])
    at_end = {h.player for h in seats if h.kind == "human" and h.token and h.player}
    mine: dict[int, Counter[str]] = {}
    for player in at_end:
        lines = counted.get(player, Counter())
        lines["played"] = 1
        if won_by.get(player):
            lines["won_match"] = 1
        mine[player] = lines
    for player in ever - at_end:  # they left and were not back: nothing
        mine[player] = Counter()
    expected[room] = mine


Ledger = dict[int, dict[int, Counter[str]]]


async def play_many(store: Store, seed: int) -> tuple[list[int], Ledger]:
    rng = random.Random(seed)
    players = [await A.create_guest(store, f"{n:043d}", now=0.0) for n in range(12)]
    expected: dict[int, dict[int, Counter[str]]] = {}

    async def table(t: int) -> None:
        mine = random.Random(rng.getrandbits(32))
        for m in range(MATCHES // 6):
            await play_match(store, mine, f"T{t}M{m}", players, expected)
    await asyncio.gather(*(table(t) for t in range(6)))
    return players, expected


@pytest.mark.asyncio
async def test_stored_xp_equals_a_recomputation_for_every_player(database_url: str) -> None:
    store = Store(database_url)
    try:
        players, expected = await play_many(store, 24)
        stored_lines = await xp.stored_lines(store)
        recomputed = await xp.recompute(store)
        assert len(recomputed) == MATCHES
        # the ledger derived again from the stored records alone is the stored ledger
        again = {m: {p: r.lines for p, r in results.items()}
                 for m, results in recomputed.items() if results}
        assert again == stored_lines
        # ... and what the simulation counted itself, line by line
        counted = {m: {p: {k: v for k, v in lines.items() if v} for p, lines in mine.items()}
                   for m, mine in expected.items() if mine}
        assert again == counted
        match_totals = Counter[int]()
        for results in recomputed.values():
            for p, r in results.items():
                match_totals[p] += r.xp
        assert await xp.stored_totals(store) == {p: match_totals[p] for p in players}
        # challenge rewards join the totals as rows of their own: the match ledger stays
        # what the records give, and the totals are the two added again
        progress = await challenges.stored_progress(store)
        done = [key for key, got in progress.items()
                if got >= CHALLENGE_BY_ID[key[2]].goal]
        assert done
        for player, end, challenge in done:
            assert isinstance(await challenges.claim_reward(
                store, player, challenge, end, now=end - 1.0), challenges.Paid)
        rewards = await xp.reward_xp(store)
        assert sum(rewards.values()) > 0
        totals = await xp.stored_totals(store)
        assert totals == {p: match_totals[p] + rewards.get(p, 0) for p in players}
        assert totals == await xp.recomputed_totals(store)
        assert {m: {p: r.lines for p, r in results.items()}
                for m, results in (await xp.recompute(store)).items() if results} == again
        # the run had every kind of line, leavers, winners and people back
        kinds = Counter(k for mine in stored_lines.values() for lines in mine.values()
                        for k in lines)
        assert set(kinds) == set(XP)
        assert any(lines == {} for mine in stored_lines.values() for lines in mine.values())
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_the_ledger_is_committed_with_the_last_action_or_not_at_all(
        database_url: str) -> None:
    clock = LeaseClock()
    first = Store(database_url, lease_clock=clock)
    second: Store | None = None
    try:
        ann = await A.create_guest(first, "a" * 43, now=0.0)
        rules = Rules.from_dict(RULE_SETS[0])
        room = await first.create_room(new_room("LAST", seats=2))
        await first.set_seats(room, [
            SeatData(0, "human", "Ann", "", "h" * 64, True, 1, ann),
            SeatData(1, "bot", "bot", "normal", "", False, 1, None)])
        await first.start_match(room, 7)
        game = Game(rules, 7)
        driver = Driver(game)
        while True:
            seat = driver.lead()
            action = game.legal_actions(seat)[0]
            driver.apply(action)
            row = ActionData(len(game.history) - 1, format_action(action), seat,
                             "player" if seat == 0 else "bot", None, game.log[-1].seq, 1.0,
                             1)
            if game.phase is MATCH_OVER:
                break
            await first.append_action(room, row)
        clock.advance(60)  # the first store stalls past its lease; another takes the room
        second = Store(database_url, lease_clock=clock)
        assert (await second.claim_rooms())[0] == [room]
        with pytest.raises(LeaseLost):
            await first.append_action(room, row, finished=True,
                                      facts=facts_of(rules, game.log))
        assert await xp.stored_lines(second) == {}
        assert (await xp.stored_totals(second))[ann] == 0
        assert await second.room_status("LAST") == "playing"
        await second.append_action(room, row, finished=True, facts=facts_of(rules, game.log))
        [[player, lines]] = (await xp.stored_lines(second))[room].items()
        assert player == ann and lines["played"] == 1
        assert await second.room_status("LAST") == "finished"
    finally:
        await first.close()
        if second is not None:
            await second.close()


@given(st.integers(0, 10**7))
def test_the_level_curve(points: int) -> None:
    lvl = xp.level(points)
    assert xp.level_floor(lvl) <= points < xp.level_floor(lvl + 1)
    assert xp.level_floor(lvl + 1) - xp.level_floor(lvl) == 100 * lvl
    assert xp.level(points + 1) in (lvl, lvl + 1)


def test_a_winner_gets_ten_and_eighteen() -> None:
    assert XP["played"] + XP["won_match"] == 28
    assert (XP["won_round"], XP["draw_two"], XP["wild_draw_four"]) == (2, 1, 1)


@pytest.mark.asyncio
async def test_recent_matches_come_in_keyset_pages(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, "a" * 43, now=0.0)
        bea = await A.create_guest(store, "b" * 43, now=0.0)
        ends = [100.0, 100.0, 100.0, 250.5, 300.0, 300.0, 50.0, 1e9 + 0.1]

        def insert(connection: Any) -> None:
            for match, ended in enumerate(ends):
                for player in (ann, bea):
                    connection.execute(PLAYER_MATCHES.insert().values(
                        player_id=player, match_id=match + 1, code=f"M{match}", seat=0,
                        ended_at=ended, won=match % 2 == 0, left=False, xp=10 + match))
                connection.execute(XP_LINES.insert().values(
                    player_id=ann, match_id=match + 1, reason="played", count=1, xp=10))
        await store.run(insert)
        seen: list[int] = []
        cursor = None
        while True:
            page, cursor = await xp.recent_matches(store, ann, before=cursor, limit=3)
            assert len(page) <= 3
            seen += [m["match"] for m in page]
            assert all(m["lines"] == {"played": 1} for m in page)
            if cursor is None:
                break
            assert xp.Cursor.parse(cursor.text()) == cursor
        newest_first = sorted(range(1, len(ends) + 1),
                              key=lambda m: (ends[m - 1], m), reverse=True)
        assert seen == newest_first  # each once, newest first, ties by id
        whole, last = await xp.recent_matches(store, ann, limit=20)
        assert [m["match"] for m in whole] == newest_first and last is None
    finally:
        await store.close()
