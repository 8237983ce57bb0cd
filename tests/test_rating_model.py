"""The rating model: openskill #155 still reproduces in openskill itself, and our
update fixes it (tied players get identical updates, a better place never gains less
than a worse one); bots never move; the finishing order of each scoring."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unokit.engine.driver import Driver
from unokit.engine.game import Game
from unokit.engine.phases import MATCH_OVER
from unokit.engine.rules import Rules
from unokit.store.rating_model import MODEL, SIGMA, Entrant, bot_rating, places, rate


def changes(entrants: list[Entrant]) -> list[float]:
    return [mu - e.mu for e, (mu, _) in zip(entrants, rate(entrants), strict=True)]


def test_openskill_155_still_reproduces_in_openskill() -> None:
    """Tied winners of equal priors end below the runner-up (ranks [0, 0, 1, 2, 3]):
    what the fix is for. If openskill fixes it, this test says so."""
    teams = [[MODEL.rating()] for _ in range(5)]
    out = MODEL.rate(teams, ranks=[0, 0, 1, 2, 3])
    assert out[0][0].mu < out[2][0].mu


def test_ties_with_unequal_priors_1_1_2_3() -> None:
    entrants = [Entrant(1, "", 0, 1, 30.0, SIGMA), Entrant(2, "", 1, 1, 20.0, SIGMA),
                Entrant(3, "", 2, 2, 25.0, SIGMA), Entrant(4, "", 3, 3, 25.0, 5.0)]
    raw = MODEL.rate([[MODEL.rating(e.mu, e.sigma)] for e in entrants], ranks=[1, 1, 2, 3])
    assert raw[0][0].mu - 30.0 != pytest.approx(raw[1][0].mu - 20.0)  # openskill's
    after = rate(entrants)
    delta = changes(entrants)
    assert delta[0] == delta[1]  # identical updates
    assert after[0][1] / SIGMA == after[1][1] / SIGMA
    assert delta[1] >= delta[2] >= delta[3]  # tied winners never below a lower place
    assert sum(delta) == pytest.approx(sum(r[0].mu for r in raw) - 100.0)


def test_the_155_case_is_fixed() -> None:
    entrants = [Entrant(n, "", n, rank, 25.0, SIGMA)
                for n, rank in enumerate([0, 0, 1, 2, 3])]
    after = rate(entrants)
    assert after[0] == after[1]
    assert after[0][0] >= after[2][0] > after[3][0] > after[4][0]


def test_a_bot_is_rated_against_at_its_fixed_rating_and_never_moves() -> None:
    bot = Entrant(None, "expert", 1, 0, *bot_rating("expert"))
    person = Entrant(1, "", 0, 1, 25.0, SIGMA)
    after = rate([person, bot])
    assert after[1] == bot_rating("expert")
    weaker = rate([person, Entrant(None, "random", 1, 0, *bot_rating("random"))])
    assert weaker[0][0] < after[0][0] < 25.0  # losing to a weak bot costs more


entrant_lists = st.lists(
    st.tuples(st.floats(10, 40), st.floats(1, 8.4), st.integers(0, 3), st.booleans()),
    min_size=2, max_size=6)


@given(entrant_lists)
def test_changes_never_rise_down_the_order(specs: list[tuple[float, float, int, bool]]
                                           ) -> None:
    entrants = [Entrant(None if bot else n, "hard" if bot else "", n, rank,
                        *(bot_rating("hard") if bot else (mu, sigma)))
                for n, (mu, sigma, rank, bot) in enumerate(specs)]
    if len({e.rank for e in entrants}) < 2 and len(entrants) < 2:
        return
    after = rate(entrants)
    people = [(e.rank, a[0] - e.mu, a[1] / e.sigma)
              for e, a in zip(entrants, after, strict=True) if e.player_id is not None]
    for rank, change, shrink in people:
        for other_rank, other_change, other_shrink in people:
            if rank == other_rank:
                assert change == pytest.approx(other_change, abs=1e-9)  # one change added
                assert shrink == pytest.approx(other_shrink, rel=1e-12)
            elif rank < other_rank:
                assert change >= other_change - 1e-9
    for e, a in zip(entrants, after, strict=True):
        if e.player_id is None:
            assert a == (e.mu, e.sigma)
    assert after == rate(entrants)  # a function of its inputs


def finished(rules: Rules, seed: int) -> Game:
    game = Game(rules, seed)
    driver = Driver(game)
    while game.phase is not MATCH_OVER:
        driver.apply(game.legal_actions(driver.lead())[-1])
    return game


@pytest.mark.parametrize("rules", [
    {"preset": "official", "players": 4, "hand_size": 3, "rounds": 2},
    {"preset": "official", "players": 3, "hand_size": 3, "rounds": 2, "scoring": "penalty"},
    {"preset": "official", "players": 3, "hand_size": 3, "rounds": 2, "scoring": "lazy"},
    {"preset": "official", "players": 4, "hand_size": 3, "scoring": "elimination",
     "target_score": 30},
    {"preset": "pairs", "hand_size": 3, "rounds": 2},
])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_finishing_order(rules: dict[str, object], seed: int) -> None:
    parsed = Rules.from_dict(rules)
    game = finished(parsed, seed)
    order = places(parsed, game.log)
    assert len(order) == parsed.players
    winner = game.match_winner
    assert order[winner] == 0 and sorted(set(order)) == list(range(max(order) + 1))
    if parsed.teams == "pairs":
        half = parsed.players // 2
        assert all(order[s] == order[(s + half) % parsed.players] for s in range(half))
    scores = game.scores
    others = [s for s in range(parsed.players) if order[s] > 0]
    for a in others:
        for b in others:
            if parsed.scoring == "standard" and scores[a] > scores[b] and \
                    parsed.teams != "pairs":
                assert order[a] < order[b]
            if parsed.scoring == "penalty" and scores[a] < scores[b]:
                assert order[a] < order[b]
    assert places(parsed, []) == ()
