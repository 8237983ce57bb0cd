"""Challenge progress, rewards and coins as stored, on SQLite and PostgreSQL.

Many random matches (stacking and not, catches of missed UNO calls, leavers, people
back, autopilot, bots) are written through the store as a server writes them, across
several UTC days and weeks: the stored progress equals both a recomputation from the
stored records alone and an independent count kept while playing. Rewards are paid
once, even when many claims from several processes (stores) come at once; the coin
balance never goes below zero, even under concurrent spends; a reset deletes nothing;
a stale owner's last action makes no progress; a guest keeps its progress when it
claims an account; deletion leaves nothing and the export holds it all."""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import Connection, select, text

from store_kit import LeaseClock, migrate_to, new_room
from unokit.engine.actions import CATCH, PLAY, UNO_FLAG, action_type, format_action
from unokit.engine.cards import DRAW_TWO, RANKS_PER_COLOR, WILD, WILD_DRAW_FOUR
from unokit.engine.driver import Driver
from unokit.engine.events import EventKind
from unokit.engine.game import Game
from unokit.engine.phases import MATCH_OVER, ROUND_OVER
from unokit.engine.rules import Rules
from unokit.engine.scoring import teammates
from unokit.server.rooms import Rooms
from unokit.server.settings import Settings
from unokit.store import ActionData, LeaseLost, NewRoom, SeatData, Store, StoreError, coins, xp
from unokit.store import accounts as A
from unokit.store import challenges as CH
from unokit.store import export as X
from unokit.store.catalogue import CHALLENGE_BY_ID, CHALLENGES, COSMETICS
from unokit.store.db import HEAD, current_revision, open_engine
from unokit.store.seatings import facts_of

pytestmark = pytest.mark.asyncio

RULE_SETS = [
    {"preset": "stacking", "players": 3, "hand_size": 4, "rounds": 2},
    {"preset": "official", "players": 3, "hand_size": 4, "rounds": 2},
    {"preset": "pairs", "hand_size": 3, "rounds": 2, "draw_two_on_draw_two": "stack"},
    {"preset": "official", "players": 2, "hand_size": 4, "rounds": 2},
]
TABLES, MATCHES = 4, 12
"""Tables played at once, and the matches of each."""
HOURS = 2 * 3600.0
"""How far the store's clock moves each time it is read (3 reads a match)."""
T0 = 1_796_300_000.0  # 2026-12-03 12:53 UTC


@dataclass
class Holder:
    kind: str  # human, bot
    player: int | None
    occupant: int
    token: bool = True  # False: the person left (the autopilot plays the seat)


class StepClock:
    """The store's clock: each read is ``HOURS`` later than the one before."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        self.now += HOURS
        return self.now


def stacking_rules(rules: Rules) -> bool:
    return rules.draw_two_on_draw_two == "stack"


async def play_match(store: Store, rng: random.Random, code: str, pool: list[int],
                     expected: Counter[tuple[int, int, str]]) -> None:
    """One random match, stored as the server stores one; the progress it should give
    is counted here from the events as they come."""
    rules = Rules.from_dict(rng.choice(RULE_SETS))
    n = rules.players
    room = await store.create_room(NewRoom(
        code=code, rules=json.dumps(rules.to_dict(), sort_keys=True), turn_timer=0,
        public=True, server_seed="00" * 32, commitment="ab" * 32, seats=n))
    people = rng.sample(pool, k=n)
    seats = [Holder("bot", None, 1) if rng.random() < 0.2 else Holder("human", people[s], 1)
             for s in range(n)]

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
    ever = {h.player for h in seats if h.player is not None}

    def holder(seat: int) -> int | None:
        h = seats[seat]
        return h.player if h.kind == "human" and h.token else None

    def count(who: int | None, metric: str) -> None:
        if who is not None:
            counted.setdefault(who, Counter())[metric] += 1

    while True:
        seat, action = driver.lead(), None
        for other in rng.sample(range(n), n):  # a catch, out of turn, now and then
            catches = [a for a in game.legal_actions(other) if action_type(a) == CATCH]
            if catches and seats[other].token and rng.random() < 0.6:
                seat, action = other, catches[0]
                break
        h = seats[seat]
        origin = ("bot" if h.kind == "bot" else "auto" if not h.token
                  else rng.choices(["player", "timeout"], [9, 1])[0])
        if action is None:
            legal = game.legal_actions(seat)
            plays = [a for a in legal if action_type(a) == PLAY and not a & UNO_FLAG]
            action = rng.choice(plays if plays and rng.random() < 0.9 else legal)
        before = len(game.log)
        driver.apply(action)
        for event in game.log[before:]:
            if event.kind is EventKind.PLAYED and origin == "player":
                if event.card == WILD_DRAW_FOUR:
                    count(holder(event.player), "wild_draw_fours")
                elif event.card < WILD and event.card % RANKS_PER_COLOR == DRAW_TWO:
                    count(holder(event.player), "draw_twos")
            elif event.kind is EventKind.CAUGHT and origin == "player":
                count(holder(event.player), "uno_catches")
            elif event.kind is EventKind.ROUND_ENDED and event.player >= 0:
                for winner in teammates(rules, event.player):
                    count(holder(winner), "rounds_won")
            elif event.kind is EventKind.MATCH_ENDED:
                for winner in teammates(rules, event.player):
                    count(holder(winner), "matches_won")
        over = game.phase is MATCH_OVER
        await store.append_action(room, ActionData(
            len(game.history) - 1, format_action(action), seat, origin, None,
            game.log[-1].seq, 1.0, h.occupant),
            finished=over, facts=facts_of(rules, game.log) if over else None)
        if over:
            break
        changed = []
        for other, spot in enumerate(seats):
            if spot.kind == "human" and spot.token and rng.random() < 0.01:
                spot.token = False  # left mid-round
                changed.append(other)
            elif game.phase is ROUND_OVER and spot.kind == "human" and rng.random() < 0.3:
                back = spot.player if rng.random() < 0.6 else rng.choice(pool)
                if any(s.player == back and s.token for i, s in enumerate(seats)
                       if i != other):
                    back = spot.player
                seats[other] = Holder("human", back, spot.occupant + 1)
                ever.add(back)
                changed.append(other)
        if changed:
            await store.set_seats(room, [data(s) for s in changed])
    ended = await store.run(lambda c: c.execute(text(
        f"SELECT ended_at FROM rooms WHERE id = {room}")).scalar())
    at_end = {h.player for h in seats if h.kind == "human" and h.token}
    for player in at_end:
        counted.setdefault(player, Counter())["matches_played"] += 1
    for player in ever - at_end:
        counted.pop(player, None)  # a leaver: nothing from this match
    for challenge in CHALLENGES:
        if challenge.rules and not stacking_rules(rules):
            continue
        end = CH.period_end(challenge.period, ended)
        for player, mine in counted.items():
            if mine[challenge.metric]:
                expected[(player, end, challenge.id)] += mine[challenge.metric]


async def play_many(store: Store, seed: int) -> tuple[list[int], Counter[Any]]:
    rng = random.Random(seed)
    players = [await A.create_guest(store, f"{n:043d}", now=0.0) for n in range(10)]
    expected: Counter[tuple[int, int, str]] = Counter()

    async def table(t: int) -> None:
        mine = random.Random(rng.getrandbits(32))
        for m in range(MATCHES):
            await play_match(store, mine, f"T{t}M{m}", players, expected)
    await asyncio.gather(*(table(t) for t in range(TABLES)))
    return players, expected


async def test_stored_progress_equals_a_recomputation_and_rewards_join_the_xp(
        database_url: str) -> None:
    store = Store(database_url)
    store.clock = StepClock()
    try:
        players, expected = await play_many(store, 7)
        stored = await CH.stored_progress(store)
        assert stored == await CH.recompute_progress(store)
        assert stored == dict(expected)
        # the run had every challenge, several days and two weeks at least
        assert {key[2] for key in stored} == set(CHALLENGE_BY_ID)
        assert len({key[1] for key in stored if key[2].startswith("daily.")}) >= 5
        assert len({key[1] for key in stored if key[2].startswith("weekly.")}) >= 2
        # claim every completed one, each in its own period
        done = [key for key, got in stored.items() if got >= CHALLENGE_BY_ID[key[2]].goal]
        assert len(done) >= 10
        paid: Counter[int] = Counter()
        for player, end, challenge in done:
            outcome = await CH.claim_reward(store, player, challenge, end, now=end - 1.0)
            assert isinstance(outcome, CH.Paid)
            paid[player] += outcome.coins
        undone = next(key for key, got in stored.items()
                      if got < CHALLENGE_BY_ID[key[2]].goal)
        assert await CH.claim_reward(store, undone[0], undone[2], undone[1],
                                     now=undone[1] - 1.0) == "not_complete"
        # the XP totals: the match ledger recomputed plus the rewards' rows
        recomputed = await xp.recompute(store)
        totals = await xp.stored_totals(store)
        assert totals == await xp.recomputed_totals(store, recomputed)
        rewards = await CH.stored_rewards(store)
        assert sorted(rewards) == sorted(done)
        for player in players:
            mine = sum(r.xp for results in recomputed.values()
                       for p, r in results.items() if p == player)
            extra = sum(x for (p, _, _), (x, _) in rewards.items() if p == player)
            assert totals[player] == mine + extra
            held = await coins.wallet(store, player)
            assert held.coins == paid[player]
            assert sum((await coins.coin_lines(store, player)).get(player, [])) == held.coins
    finally:
        await store.close()


async def completed(store: Store, player: int, challenge: str, end: int) -> None:
    """Give ``player`` the goal of ``challenge`` in the period ending at ``end``."""
    def write(connection: Connection) -> None:
        connection.execute(CH.PROGRESS.insert().values(
            player_id=player, period_end=end, challenge=challenge,
            progress=CHALLENGE_BY_ID[challenge].goal))
    await store.run(write)


async def test_a_reward_is_paid_once_under_many_concurrent_claims(database_url: str) -> None:
    stores = [Store(database_url) for _ in range(3)]  # three processes
    try:
        ann = await A.create_guest(stores[0], "a" * 43, now=0.0)
        now = T0
        end = CH.period_end("weekly", now)
        challenge = CHALLENGE_BY_ID["weekly.win_5"]
        await completed(stores[0], ann, challenge.id, end)
        claims = [CH.claim_reward(stores[k % 3], ann, challenge.id, end, now=now)
                  for k in range(60)]
        outcomes = await asyncio.gather(*claims)
        assert sum(isinstance(o, CH.Paid) for o in outcomes) == 1
        assert Counter(o for o in outcomes if isinstance(o, str)) == {"claimed": 59}
        assert await CH.stored_rewards(stores[1]) == {
            (ann, end, challenge.id): (challenge.xp, challenge.coins)}
        assert await coins.coin_lines(stores[2]) == {ann: [challenge.coins]}
        assert (await coins.wallet(stores[2], ann)).coins == challenge.coins
        assert (await xp.stored_totals(stores[2]))[ann] == challenge.xp
    finally:
        for store in stores:
            await store.close()


async def test_claims_name_a_period_of_the_challenge_up_to_the_current_one(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, "a" * 43, now=0.0)
        now = T0
        today = CH.period_end("daily", now)
        for bad in (today + 86_400, today - 3600):  # to come; not a day's end
            with pytest.raises(CH.BadPeriod) as caught:
                await CH.claim_reward(store, ann, "daily.play_3", bad, now=now)
            assert caught.value.reason == "not_a_period"
        old = today - 8 * 86_400
        await completed(store, ann, "daily.play_3", old)
        with pytest.raises(CH.BadPeriod) as caught:
            await CH.claim_reward(store, ann, "daily.play_3", old, now=now)
        assert caught.value.reason == "expired"
        assert await CH.stored_rewards(store) == {}
        # yesterday's, completed: still to claim, and listed as such
        await completed(store, ann, "daily.play_3", today - 86_400)
        listed = await CH.player_challenges(store, ann, now=now)
        assert [e.challenge.id for e in listed if e.current] == [c.id for c in CHALLENGES]
        [late] = [e for e in listed if not e.current]
        assert (late.challenge.id, late.period_end, late.done) == ("daily.play_3",
                                                                    today - 86_400, True)
        assert late.json("t")["claimable"]
        paid = await CH.claim_reward(store, ann, "daily.play_3", today - 86_400, now=now)
        assert isinstance(paid, CH.Paid)
        listed = await CH.player_challenges(store, ann, now=now)
        assert all(e.current for e in listed)  # paid: not listed any more
    finally:
        await store.close()


async def test_coins_never_go_below_zero_under_concurrent_spends(database_url: str) -> None:
    stores = [Store(database_url) for _ in range(3)]
    try:
        ann = await A.create_guest(stores[0], "a" * 43, now=0.0)
        await stores[0].run(lambda c: coins.credit(c, ann, 400, "challenge", "gift", 1.0))
        priced = [c for c in COSMETICS if c.price]
        assert sum(c.price for c in priced) > 400
        buys = [coins.buy(stores[k % 3], ann, item.id, now=2.0)
                for k in range(5) for item in priced]
        random.Random(3).shuffle(buys)
        outcomes = await asyncio.gather(*buys)
        held = await coins.wallet(stores[1], ann)
        bought = [c for c in priced if c.id in held.owned]
        assert held.coins == 400 - sum(c.price for c in bought) >= 0
        assert sum(isinstance(o, int) for o in outcomes) == len(bought)
        # an item not bought was refused for want of coins, and there are still too few
        assert all(c.price > held.coins for c in priced if c not in bought)
        assert sorted((await coins.coin_lines(stores[2]))[ann][1:]) == sorted(
            -c.price for c in bought)
        assert sum((await coins.coin_lines(stores[2]))[ann]) == held.coins
        # and the database itself refuses a negative balance
        with pytest.raises(StoreError):
            await stores[0].run(lambda c: c.execute(coins.WALLETS.update().values(coins=-1)))
        assert (await coins.wallet(stores[0], ann)).coins == held.coins
    finally:
        for store in stores:
            await store.close()


async def test_cosmetics_are_chosen_from_ones_own_and_the_defaults(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, "a" * 43, now=0.0)
        assert await coins.buy(store, ann, "table.green", now=1.0) == "owned"  # free
        assert await coins.buy(store, ann, "table.blue", now=1.0) == "too_poor"
        assert not await coins.choose(store, ann, "table.blue")
        await store.run(lambda c: coins.credit(c, ann, 80, "challenge", "gift", 1.0))
        assert await coins.buy(store, ann, "table.blue", now=2.0) == 0
        assert await coins.buy(store, ann, "table.blue", now=3.0) == "owned"
        assert await coins.choose(store, ann, "table.blue")
        assert (await coins.wallet(store, ann)).chosen["table"] == "table.blue"
        assert await coins.choose(store, ann, "table.green")  # back to the default
        held = await coins.wallet(store, ann)
        assert held.chosen == {"card_back": "card_back.classic", "table": "table.green"}
        assert held.owned == ("table.blue",) and held.coins == 0
    finally:
        await store.close()


async def test_a_reset_deletes_nothing_and_old_periods_may_be_pruned(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, "a" * 43, now=0.0)
        day = CH.period_end("daily", T0)
        for end in (day - 40 * 86_400, day - 86_400, day):
            await completed(store, ann, "daily.play_3", end)
        await completed(store, ann, "daily.catch_2", day - 40 * 86_400)
        # the day's end passes: the next day's list starts at 0, yesterday's row stays
        listed = await CH.player_challenges(store, ann, now=float(day))
        current = {e.challenge.id: e for e in listed if e.current}
        assert current["daily.play_3"].progress == 0
        assert current["daily.play_3"].period_end == day + 86_400
        assert [e.period_end for e in listed if not e.current] == [day, day - 86_400]
        assert len(await CH.stored_progress(store)) == 4
        assert await CH.prune_progress(store, day - 30 * 86_400, batch=1) == 2
        assert sorted(k[1] for k in await CH.stored_progress(store)) == [day - 86_400, day]
    finally:
        await store.close()


async def test_a_stale_owner_makes_no_progress_and_a_guest_keeps_its_own(
        database_url: str) -> None:
    clock = LeaseClock()
    first = Store(database_url, lease_clock=clock)
    second: Store | None = None
    try:
        ann = await A.create_guest(first, "a" * 43, now=0.0)
        rules = Rules.from_dict(RULE_SETS[3])
        room = await first.create_room(new_room("LAST", seats=2))
        await first.set_seats(room, [
            SeatData(0, "human", "Ann", "", "h" * 64, True, 1, ann),
            SeatData(1, "bot", "bot", "normal", "", False, 1, None)])
        await first.start_match(room, 11)
        game = Game(rules, 11)
        driver = Driver(game)
        while True:
            seat = driver.lead()
            action = game.legal_actions(seat)[0]
            driver.apply(action)
            row = ActionData(len(game.history) - 1, format_action(action), seat,
                             "player" if seat == 0 else "bot", None, game.log[-1].seq, 1.0, 1)
            if game.phase is MATCH_OVER:
                break
            await first.append_action(room, row)
        clock.advance(60)  # the first store stalls; another process takes the room
        second = Store(database_url, lease_clock=clock)
        assert (await second.claim_rooms())[0] == [room]
        with pytest.raises(LeaseLost):
            await first.append_action(room, row, finished=True,
                                      facts=facts_of(rules, game.log))
        assert await CH.stored_progress(second) == {}
        await second.append_action(room, row, finished=True, facts=facts_of(rules, game.log))
        stored = await CH.stored_progress(second)
        assert stored[(ann, CH.period_end("daily", second.clock()), "daily.play_3")] == 1
        await A.claim(second, ann, "Ann", "$argon2id$x", now=5.0)  # the guest claims
        assert await CH.stored_progress(second) == stored
        listed = await CH.player_challenges(second, ann, now=second.clock())
        assert {e.challenge.id: e.progress for e in listed}["daily.play_3"] == 1
    finally:
        await first.close()
        if second is not None:
            await second.close()


async def test_deletion_removes_it_all_and_the_export_holds_it(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, "a" * 43, now=0.0)
        bea = await A.create_guest(store, "b" * 43, now=0.0)
        end = CH.period_end("weekly", T0)
        for player in (ann, bea):
            await completed(store, player, "weekly.win_5", end)
            await store.run(lambda c, p=player: coins.credit(c, p, 100, "gift", "g1", 1.0))
            assert isinstance(await CH.claim_reward(store, player, "weekly.win_5", end,
                                                    now=T0), CH.Paid)
            assert await coins.buy(store, player, "table.wine", now=T0) == 100 + 60 - 120
            assert await coins.choose(store, player, "table.wine")
        data = await X.export(store, ann)
        assert data["challenge_progress"] == [{"challenge": "weekly.win_5", "ends_at": end,
                                               "progress": 5}]
        assert [(r["challenge"], r["xp"], r["coins"]) for r in data["challenge_rewards"]] \
            == [("weekly.win_5", 80, 60)]
        assert data["coins"] == 40
        assert [(line["reason"], line["delta"]) for line in data["coin_lines"]] == [
            ("gift", 100), ("challenge", 60), ("buy", -120)]
        assert [c["cosmetic"] for c in data["cosmetics_owned"]] == ["table.wine"]
        assert data["cosmetics_chosen"] == {"card_back": "card_back.classic",
                                            "table": "table.wine"}
        await A.delete_player(store, ann)

        def left(connection: Connection) -> dict[str, list[int]]:
            return {table.name: sorted({int(p) for p in connection.execute(
                select(table.c.player_id)).scalars()}) for table in CH.TABLES}
        assert await store.run(left) == {table.name: [bea] for table in CH.TABLES}
    finally:
        await store.close()


@pytest.mark.parametrize("revision", [f"{n:04d}" for n in range(1, 9)])
async def test_revision_0009_goes_up_from_every_earlier_one_and_down(database_url: str,
                                                                 revision: str) -> None:
    migrate_to(database_url, revision)
    store = Store(database_url)  # migrates to the newest revision
    try:
        assert current_revision(store.engine) == HEAD
        ann = await A.create_guest(store, "a" * 43, now=0.0)
        await store.run(lambda c: coins.credit(c, ann, 5, "challenge", "gift", 1.0))
        assert (await coins.wallet(store, ann)).coins == 5
    finally:
        await store.close()
    migrate_to(database_url, "0008", down=True)
    engine = open_engine(database_url)
    assert current_revision(engine) == "0008"
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM players")).scalar() == 1
    engine.dispose()


async def test_the_retention_sweep_prunes_progress_with_the_matches(tmp_path: Any) -> None:
    rooms = Rooms(Settings(database_url=f"sqlite:///{tmp_path / 'r.db'}", keep_finished=30))
    await rooms.open()
    try:
        store = rooms.store
        assert store is not None
        ann = await A.create_guest(store, "a" * 43, now=T0)  # seen lately: no lost guest
        day = CH.period_end("daily", T0)
        await completed(store, ann, "daily.play_3", day - 31 * 86_400)
        await completed(store, ann, "weekly.win_5", CH.period_end("weekly", T0))
        await CH.claim_reward(store, ann, "weekly.win_5", CH.period_end("weekly", T0), now=T0)
        await rooms.retainer.run(now=T0)
        assert [k[2] for k in await CH.stored_progress(store)] == ["weekly.win_5"]
        assert len(await CH.stored_rewards(store)) == 1
    finally:
        await rooms.close()
