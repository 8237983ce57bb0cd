"""The challenges and cosmetics as data: the shipped tables load; a bad table is refused
with a typed error naming every bad key; periods end at 00:00 UTC (a day) and at Monday
00:00 UTC (a week), whatever the local clocks do; a match's metrics count for the
players who held their seats to the end, as the XP ledger does."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unokit.engine.rules import Rules
from unokit.store import catalogue as C
from unokit.store.challenges import is_period_end, metrics, period_end, progress_of
from unokit.store.seatings import ActionFacts, MatchFacts, Seating, ledger

UTC = dt.UTC


def good_challenge(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": "daily.x", "period": "daily", "metric": "matches_won",
                             "goal": 2, "xp": 5, "coins": 5, "title": "Win 2"}
    entry.update(changes)
    return entry


def test_the_shipped_tables_load_and_cover_each_metric_and_period() -> None:
    assert {c.metric for c in C.CHALLENGES} == set(C.METRICS)
    assert {c.period for c in C.CHALLENGES} == set(C.PERIODS)
    assert len(C.CHALLENGE_BY_ID) == len(C.CHALLENGE_DATA)
    assert set(C.DEFAULTS) == set(C.SLOTS)
    assert all(C.COSMETIC_BY_ID[d].price == 0 for d in C.DEFAULTS.values())
    stacking = C.CHALLENGE_BY_ID["daily.win_stacking"]
    assert stacking.counts(Rules.preset("stacking"))
    assert stacking.counts(Rules.preset("online"))
    assert not stacking.counts(Rules.preset("official"))
    assert stacking.rules_json() == {"draw_two_on_draw_two": "stack"}


@pytest.mark.parametrize(("entry", "named"), [
    (good_challenge(colour=1), ["colour: unknown key"]),
    ({"id": "daily.x"}, ["coins: missing", "goal: missing", "metric: missing",
                         "period: missing", "title: missing", "xp: missing"]),
    (good_challenge(period="hourly"), ["period: daily or weekly"]),
    (good_challenge(metric="cards"), ["metric: one of matches_played"]),
    (good_challenge(goal=0), ["goal: a whole number from 1"]),
    (good_challenge(goal=True), ["goal: a whole number from 1"]),
    (good_challenge(xp=-1, coins=10**6), ["coins: a whole number", "xp: a whole number"]),
    (good_challenge(id="Daily X"), ["id: lower-case words"]),
    (good_challenge(title=""), ["title: a text"]),
    (good_challenge(rules={"jumpin": True}), ["rules.jumpin: unknown rule key"]),
    (good_challenge(rules={"draw_two_on_draw_two": "pile"}), ["rules.draw_two_on_draw_two: "
                                                              "one of none, deflect, stack"]),
    (good_challenge(rules={"jump_in": "yes"}), ["rules.jump_in: true or false"]),
    (good_challenge(rules={"players": 11}), ["rules.players: a whole number"]),
    (good_challenge(rules={"extra_cards": "WC"}), ["rules.extra_cards: a rule that"]),
    (good_challenge(rules={"jump_in": []}), ["rules.jump_in: at least one value"]),
    (good_challenge(rules=[]), ["rules: a table"]),
    ("daily", ["entry: a table of keys"]),
])
def test_a_bad_challenge_is_refused_naming_its_keys(entry: Any, named: list[str]) -> None:
    with pytest.raises(C.CatalogueError) as caught:
        C.load_challenges([good_challenge(id="daily.ok"), entry])
    text = str(caught.value)
    for part in named:
        assert part in text
    assert "daily.ok" not in text  # only the bad entry is named


def test_a_challenge_id_is_used_once_and_conditions_take_lists() -> None:
    with pytest.raises(C.CatalogueError, match=r"challenge daily\.x: id: used twice"):
        C.load_challenges([good_challenge(), good_challenge()])
    [loaded] = C.load_challenges([good_challenge(rules={"teams": ["none", "pairs"],
                                                        "players": 4})])
    assert loaded.rules == (("players", (4,)), ("teams", ("none", "pairs")))
    assert loaded.counts(Rules.preset("pairs"))
    assert not loaded.counts(Rules.preset("official", players=3))


def test_bad_cosmetics_are_refused_naming_their_keys() -> None:
    base = [dict(c) for c in C.COSMETIC_DATA]
    bad = {"id": "table.pink", "slot": "floor", "price": -1, "colour": "pink",
           "name": "", "glow": True}
    with pytest.raises(C.CatalogueError) as caught:
        C.load_cosmetics([*base, bad])
    text = str(caught.value)
    for part in ("cosmetic table.pink", "glow: unknown key", "slot: one of card_back, table",
                 "price: a whole number", "colour: #rrggbb", "name: a text"):
        assert part in text
    with pytest.raises(C.CatalogueError, match="id: begins with its slot"):
        C.load_cosmetics([*base, {"id": "card_back.pink", "slot": "table", "price": 5,
                                  "colour": "#ff00ff", "name": "Pink"}])
    with pytest.raises(C.CatalogueError, match="table: exactly one"):  # two defaults
        C.load_cosmetics([*base, {"id": "table.grey", "slot": "table", "price": 0,
                                  "colour": "#888888", "name": "Grey"}])


@given(st.floats(0, 4e9, allow_nan=False))
def test_periods_end_at_utc_midnight_and_monday(at: float) -> None:
    when = dt.datetime.fromtimestamp(at, UTC)
    day_end = dt.datetime.combine(when.date() + dt.timedelta(days=1), dt.time(), UTC)
    assert period_end("daily", at) == int(day_end.timestamp())
    monday = when.date() + dt.timedelta(days=7 - when.weekday())
    week_end = dt.datetime.combine(monday, dt.time(), UTC)
    assert period_end("weekly", at) == int(week_end.timestamp())
    for period in ("daily", "weekly"):
        end = period_end(period, at)
        assert is_period_end(period, end) and end > at
        assert period_end(period, end) == end + C_LENGTH[period]  # the boundary is the next


C_LENGTH = {"daily": 86_400, "weekly": 7 * 86_400}


def test_a_boundary_belongs_to_the_period_it_begins_and_dst_plays_no_part() -> None:
    midnight = dt.datetime(2026, 12, 4, tzinfo=UTC).timestamp()
    assert period_end("daily", midnight - 0.001) == midnight
    assert period_end("daily", midnight) == midnight + 86_400
    # the night Europe's clocks went back (2026-10-25 01:00 UTC) is a UTC day like another
    change = dt.datetime(2026, 10, 25, 1, 30, tzinfo=UTC).timestamp()
    assert period_end("daily", change) == dt.datetime(2026, 10, 26, tzinfo=UTC).timestamp()
    sunday_night = dt.datetime(2026, 12, 6, 23, 59, 59, tzinfo=UTC).timestamp()
    monday = dt.datetime(2026, 12, 7, tzinfo=UTC).timestamp()
    assert period_end("weekly", sunday_night) == monday
    assert period_end("weekly", monday) == monday + 7 * 86_400


def test_metrics_count_like_the_xp_ledger() -> None:
    # seat 0: player 7 to action 4 (leaves), then 9; seat 1: player 8 throughout,
    # away from action 6 (its actions by the autopilot); seat 2: a bot
    facts = MatchFacts(winners=(1,), round_wins=((2, (0,)), (9, (1,))),
                       cards=((1, 0, "wild_draw_four"), (5, 0, "draw_two"),
                              (3, 1, "draw_two")),
                       catches=((1, 0), (3, 1), (5, 0), (7, 1), (8, 2)))
    actions = [ActionFacts(n, n % 3, "timeout" if n >= 6 and n % 3 == 1 else "player", n)
               for n in range(10)]
    seatings = [Seating(0, 0, 7, "human", 0, 4), Seating(0, 1, 9, "human", 4, None),
                Seating(1, 0, 8, "human", 0, None), Seating(2, 0, None, "bot", 0, None)]
    counted = metrics(facts, actions, seatings, ledger(facts, actions, seatings))
    assert counted == {
        8: {"matches_played": 1, "matches_won": 1, "rounds_won": 1, "draw_twos": 1,
            "uno_catches": 1},  # the catch at action 7 was the autopilot's
        9: {"matches_played": 1, "draw_twos": 1, "uno_catches": 1},
    }  # 7 left: nothing, though a catch and a round were theirs
    adds = progress_of(Rules.preset("stacking"), counted, 1_796_342_399.0)
    assert adds[(8, 1_796_342_400, "daily.win_stacking")] == 1
    assert adds[(8, 1_796_601_600, "weekly.catch_8")] == 1
    assert (9, 1_796_342_400, "daily.win_stacking") not in adds
    assert not any(key[2] == "daily.win_stacking" for key in progress_of(
        Rules.preset("official"), counted, 1_796_342_399.0))
