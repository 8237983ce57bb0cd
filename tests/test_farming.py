"""The anti-farming checks (unokit.store.farming): each check on its own, the replayed
play statistics of real games, and the simulation of benchmarks/anti_farming.py."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

from unokit.bots import make_bot
from unokit.bots.base import play
from unokit.engine.actions import DRAW, PASS, PLAY, action_type
from unokit.engine.game import Game
from unokit.store.farming import (
    DAY,
    PAIR_MATCHES,
    MatchView,
    MemoryHistory,
    PastMatch,
    SeatPlay,
    SeatView,
    deal_key,
    judge,
    play_stats,
)

ROOT = Path(__file__).resolve().parent.parent
HONEST = SeatPlay(turns=20, playable_turns=14, voluntary_draws=1, actions=22)


def view(*seats: SeatView, deal: str = "official,players=2|1", at: float = 30 * DAY) -> MatchView:
    return MatchView(99, at, deal, seats)


def seat(player: int, place: int, play: SeatPlay = HONEST, **kw: object) -> SeatView:
    return SeatView(player, place, play, **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- each check
def test_an_honest_match_is_rated() -> None:
    verdict = judge(view(seat(1, 1), seat(2, 2)), MemoryHistory())
    assert verdict.rated == {0, 1} and not verdict.flagged


@pytest.mark.parametrize(("playable", "drawn", "thrown"), [
    (3, 3, False),   # too few turns to judge
    (4, 2, False),   # half, but fewer than three draws
    (4, 3, True),
    (10, 4, False),
    (10, 5, True),
])
def test_a_match_with_a_seat_that_drew_instead_of_playing_is_unrated(
        playable: int, drawn: int, thrown: bool) -> None:
    loser = SeatPlay(turns=playable, playable_turns=playable, voluntary_draws=drawn,
                     actions=playable)
    verdict = judge(view(seat(1, 1), seat(2, 2, loser)), MemoryHistory())
    assert (verdict.rated == frozenset()) is thrown
    if thrown:
        assert verdict.reasons == {0: ("thrown",), 1: ("thrown",)}


@pytest.mark.parametrize(("played_for", "sitting"), [(1, False), (3, False), (4, True)])
def test_a_seat_played_for_is_unrated_and_the_others_rated(played_for: int,
                                                           sitting: bool) -> None:
    sat = SeatPlay(turns=8, playable_turns=6, actions=8, played_for=played_for)
    verdict = judge(view(seat(1, 1, sat), seat(2, 2)), MemoryHistory())
    assert verdict.rated == ({1} if sitting else {0, 1})
    assert verdict.reasons == ({0: ("sitting",)} if sitting else {})


def test_a_deal_the_player_had_before_is_unrated_for_that_player() -> None:
    history = MemoryHistory()
    history.saw(1, "official,players=2|5")
    verdict = judge(view(seat(1, 1), seat(2, 2), deal="official,players=2|5"), history)
    assert verdict.rated == {1} and verdict.reasons == {0: ("repeat_deal",)}
    other = judge(view(seat(1, 1), seat(2, 2), deal="official,players=2|6"), history)
    assert other.rated == {0, 1}


@pytest.mark.parametrize(("winner_address", "age", "matches", "voided"), [
    ("a", 1.0, 0, True),
    ("b", 1.0, 0, False),     # another address
    ("a", 8.0, 0, False),     # not new
    ("a", 1.0, 10, False),    # has played enough
    ("", 1.0, 0, False),      # unknown addresses are never shared
])
def test_a_new_account_losing_to_its_own_address_is_unrated(
        winner_address: str, age: float, matches: int, voided: bool) -> None:
    verdict = judge(view(seat(1, 1, address=winner_address),
                         seat(2, 2, address="a" if winner_address else "",
                              account_days=age, rated_matches=matches)), MemoryHistory())
    assert (verdict.reasons == {0: ("fresh_account",), 1: ("fresh_account",)}) is voided


def test_a_new_account_winning_at_its_own_address_is_rated() -> None:
    verdict = judge(view(seat(1, 2, address="a"),
                         seat(2, 1, address="a", account_days=1.0, rated_matches=0)),
                    MemoryHistory())
    assert verdict.rated == {0, 1}


def _met(history: MemoryHistory, times: int, a_wins: int, at: float = 29 * DAY) -> None:
    for k in range(times):
        first = k < a_wins
        history.add(PastMatch(k, at + k, f"d{k}", {1: 1 if first else 2, 2: 2 if first else 1},
                              {1: (0, 10), 2: (0, 10)}))


@pytest.mark.parametrize(("times", "a_wins", "voided"), [
    (PAIR_MATCHES - 1, PAIR_MATCHES - 1, False),
    (PAIR_MATCHES, PAIR_MATCHES, True),
    (PAIR_MATCHES, PAIR_MATCHES // 2, False),
])
def test_a_pair_that_always_ends_the_same_way_is_unrated(times: int, a_wins: int,
                                                         voided: bool) -> None:
    history = MemoryHistory()
    _met(history, times, a_wins)
    verdict = judge(view(seat(1, 1), seat(2, 2), seat(3, 3)), history)
    assert ("lopsided_pair" in verdict.reasons.get(0, ())) is voided
    assert ("lopsided_pair" in verdict.reasons.get(1, ())) is voided
    assert 2 in verdict.rated


def test_old_meetings_do_not_count() -> None:
    history = MemoryHistory()
    _met(history, PAIR_MATCHES, PAIR_MATCHES, at=10 * DAY)  # three weeks before
    assert judge(view(seat(1, 1), seat(2, 2)), history).rated == {0, 1}


def test_a_little_throwing_in_every_match_adds_up() -> None:
    little = SeatPlay(turns=8, playable_turns=8, voluntary_draws=2, actions=8)
    history = MemoryHistory()
    assert judge(view(seat(1, 1), seat(2, 2, little)), history).rated == {0, 1}
    history.add(PastMatch(1, 29 * DAY, "d1", {1: 1, 2: 2}, {1: (0, 9), 2: (5, 9)}))
    verdict = judge(view(seat(1, 1), seat(2, 2, little), seat(3, 3)), history)
    assert verdict.reasons == {0: ("thrown_pattern",), 1: ("thrown_pattern",),
                               2: ("thrown_pattern",)}
    # the players placed above the beneficiary are not touched
    above = judge(view(seat(3, 1), seat(1, 2), seat(2, 3, little)), history)
    assert 0 in above.rated and 1 not in above.rated


# ---------------------------------------------------------------------- play_stats
class _Throwing:
    """Draws whenever it could play, then passes."""

    name = "throwing"

    def choose(self, observation: object, legal: list[int]) -> int | None:
        types = [action_type(a) for a in legal]
        for wanted in (PASS, DRAW):
            if wanted in types and (wanted == DRAW or PLAY in types or DRAW not in types):
                return legal[types.index(wanted)]
        return legal[0]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_play_stats_count_the_draws_instead_of_a_play(seed: int) -> None:
    rules = "official,players=2,rounds=1"
    game = Game(rules, seed=seed)
    steps = list(play(game, [make_bot("playfirst", seed=seed), _Throwing()]))
    actions = [(step.action, "player") for step in steps if step.action is not None]
    stats = play_stats(rules, seed, actions)
    assert stats[0].voluntary_draws == 0 and stats[0].playable_turns > 0
    assert stats[1].playable_turns > 0
    assert stats[1].voluntary_draws == stats[1].playable_turns
    assert sum(s.actions for s in stats) == len(actions)
    origins = [(a, "timeout" if n % 2 else "player") for n, a in enumerate(x for x, _ in actions)]
    timed = play_stats(rules, seed, origins)
    assert sum(s.played_for for s in timed) == len(actions) // 2


def test_deal_keys_name_the_canonical_rules() -> None:
    assert deal_key("official,players=2", 3) == deal_key("official, players=2", 3)
    assert deal_key("official,players=2", 3) != deal_key("official,players=2", 4)


# ---------------------------------------------------------------------- the simulation
def _benchmark() -> ModuleType:
    path = ROOT / "benchmarks" / "anti_farming.py"
    spec = importlib.util.spec_from_file_location("anti_farming", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["anti_farming"] = module
    spec.loader.exec_module(module)
    return module


def test_the_simulation_voids_the_abusers_gain_and_spares_honest_matches() -> None:
    report = _benchmark().simulate(honest=240, abuse=5, players=40, seed=3)
    assert report["honest_matches"] == 240 + 80
    assert set(report["abuse"]) == {"win_trading", "fresh_dumping", "bot_farm",
                                    "seat_sitting", "leaving"}
    for kind, row in report["abuse"].items():
        assert row["gain_naive"] > 0, kind  # each abuse pays without the checks
    assert report["abusive_gain_voided"] >= 0.95, report
    assert report["honest_flagged_share"] <= 0.02, report


def test_the_thrower_of_the_simulation_throws() -> None:
    bench = _benchmark()
    played = bench.play_match([bench.Seat(1, "normal"), bench.Seat(2, "normal", throw=1.0)],
                              5, random.Random(1))
    stats = play_stats(played.rules, played.seed, played.origins)
    assert stats[1].voluntary_draws == stats[1].playable_turns > 0
