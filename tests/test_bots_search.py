"""The search bot: legal answers under random rule sets, determinism, no use of hidden
cards, and its playouts (compiled and plain Python agree)."""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from itertools import islice

import pytest

from unokit.bots import PlayFirstBot, SearchBot, make_bot, must_act, play
from unokit.bots.playout import Plain, Position, compiled, search_wins
from unokit.bots.search import (
    DEFAULT_ITERATIONS,
    DEFAULT_ITERATIONS_MANY,
    DEFAULT_POLICY_MANY,
)
from unokit.engine import actions as A
from unokit.engine.cards import parse_card
from unokit.engine.game import Game
from unokit.engine.observation import Observation
from unokit.engine.rules import Rules
from unokit.testing.invariants import permuted
from unokit.testing.soak import draw_rules


class Checked:
    def __init__(self, bot: SearchBot | PlayFirstBot) -> None:
        self.bot = bot
        self.name = bot.name

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        action = self.bot.choose(observation, legal_actions)
        if action is None:
            assert not must_act(observation)
        else:
            assert action in legal_actions
        return action


def test_needs_the_rules() -> None:
    with pytest.raises(ValueError, match="rules"):
        SearchBot(1)
    with pytest.raises(ValueError):
        SearchBot(1, rules=Rules.preset("official"), iterations=0)


def test_defaults_by_number_of_players() -> None:
    two = SearchBot(0, rules=Rules.preset("official", players=2))
    four = SearchBot(0, rules=Rules.preset("official", players=4))
    party = SearchBot(0, rules=Rules.preset("party", players=4))
    assert (two.iterations, two.policy) == (DEFAULT_ITERATIONS, 0)
    assert (four.iterations, four.policy) == (DEFAULT_ITERATIONS_MANY, DEFAULT_POLICY_MANY)
    assert party.iterations == DEFAULT_ITERATIONS  # engine playouts: no more deals
    chosen = SearchBot(0, rules=Rules.preset("official", players=4), iterations=30, policy=0)
    assert (chosen.iterations, chosen.policy) == (30, 0)


@pytest.mark.parametrize("seed", range(6))
def test_legal_answers_under_random_rule_sets(seed: int) -> None:
    """Under random rule sets (the slow path with the engine where the quick playouts
    cannot play the rules) every answer is legal, out of turn too."""
    rng = random.Random(100 + seed)
    rules = draw_rules(rng)
    while rules.players > 4:
        rules = draw_rules(rng)
    bots = [Checked(SearchBot(seed + seat, rules=rules, iterations=3)) if seat % 2 == 0
            else Checked(PlayFirstBot(seed + seat)) for seat in range(rules.players)]
    game = Game(rules, seed)
    for _ in islice(play(game, bots), 300):
        pass


def test_plays_full_official_games() -> None:
    for players in (2, 4):
        rules = Rules.preset("official", players=players, rounds=1)
        game = Game(rules, players)
        bots: list[SearchBot | PlayFirstBot] = [SearchBot(1, rules=rules, iterations=20)]
        bots += [PlayFirstBot(seat) for seat in range(1, players)]
        for _ in play(game, [Checked(bot) for bot in bots]):
            pass
        assert game.is_over()
        assert isinstance(bots[0], SearchBot) and bots[0].searched > 0


def test_same_seed_same_choices() -> None:
    def run(seed: int) -> list[int]:
        rules = Rules.preset("official", players=3, rounds=1)
        game = Game(rules, 4)
        bots = [make_bot("search:10", seed + seat, rules=rules) for seat in range(3)]
        for _ in play(game, bots):
            pass
        return game.history

    assert run(3) == run(3)


@pytest.mark.parametrize("preset", ["official", "seven_o"])
def test_hidden_cards_play_no_part(preset: str) -> None:
    """At positions along a match, a copy of the bot (its memory included) chooses the
    same on the real game and on one whose hidden cards lie differently."""
    rules = Rules.preset(preset, players=3, rounds=1)
    rng = random.Random(5)
    game = Game(rules, 11)
    bot = SearchBot(2, rules=rules, iterations=12)
    others = [PlayFirstBot(1), PlayFirstBot(2)]
    checked = 0
    for _ in play(game, [bot, *others]):
        if game.is_over() or game.current_player != 0:
            continue
        legal = game.legal_actions(0)
        twin = copy.deepcopy(bot)
        other = permuted(game, 0, rng)
        assert other.observation(0) == game.observation(0)
        mine = copy.deepcopy(bot).choose(game.observation(0), legal)
        assert twin.choose(other.observation(0), other.legal_actions(0)) == mine
        checked += 1
    assert checked > 5


def test_falls_back_where_the_position_cannot_be_rebuilt() -> None:
    rules = Rules.preset("official", players=3, play_to_last=True, rounds=1)
    bot = SearchBot(0, rules=rules, iterations=5)
    game = Game(rules, 3)
    for _ in play(game, [Checked(bot), Checked(PlayFirstBot(1)), Checked(PlayFirstBot(2))]):
        pass
    assert game.is_over()


# --------------------------------------------------------------------- playouts
def _spot(seed: int, players: int = 2) -> tuple[Plain, Position, list[int]]:
    rules = Rules.preset("official", players=players)
    plain = Plain.of(rules)
    assert plain is not None
    game = Game(rules, seed)
    me = game.current_player
    assert me is not None
    hidden = [c for s in range(players) if s != me for c in game.hands[s]]
    rng = random.Random(seed)
    slots = [[rng.choice([0, 0, 1 | 1 << 20, 2 | 1 << 9]) for _ in game.hands[s]]
             if s != me else [] for s in range(players)]
    spot = Position(pool=sorted(hidden + game.draw_pile), sizes=[len(h) for h in game.hands],
                    known=[list(game.hands[s]) if s == me else None for s in range(players)],
                    slots=slots, discard=list(game.discard), color=game.color,
                    direction=game.direction, seat=me, team=[s == me for s in range(players)])
    firsts = [*sorted({c for c in game.hands[me] if c < 64})[:2], -1]
    return plain, spot, firsts


@pytest.mark.skipif(compiled() is None, reason="numba is not installed")
@pytest.mark.parametrize("policy", [0, 1, 3])
def test_compiled_and_plain_playouts_agree(policy: int) -> None:
    for seed, players in ((1, 2), (2, 3), (3, 4)):
        plain, spot, firsts = _spot(seed, players)
        fast = search_wins(plain, spot, firsts, 20, seed, policy=policy)
        slow = search_wins(plain, spot, firsts, 20, seed, policy=policy, use_compiled=False)
        assert fast == slow


def test_playouts_score_a_sure_win() -> None:
    c = parse_card
    plain = Plain.of(Rules.preset("official", players=2))
    assert plain is not None
    spot = Position(pool=[c("G1"), c("G2"), c("Y3"), c("Y4")], sizes=[1, 2],
                    known=[[c("R5")], None], slots=[[], []], discard=[c("R3")], color=0,
                    direction=1, seat=0, team=[True, False])
    for compiled_ in (True, False):
        assert search_wins(plain, spot, [c("R5")], 8, 1, use_compiled=compiled_) == [8.0]


def test_plain_rules() -> None:
    assert Plain.of(Rules.preset("official")) is not None
    assert Plain.of(Rules.preset("official", wild_draw_four="strict", draw="until_playable"))
    for name in ("party", "attack", "seven_o", "stacking", "h2o"):
        assert Plain.of(Rules.preset(name)) is None


def test_search_takes_the_winning_card() -> None:
    """A Skip then the last card wins at once (with two players a Skip plays again)."""
    c = parse_card
    rules = Rules.preset("official", players=2)
    deck = rules.deck_cards()
    hands = [[c("RS"), c("R5")], [c("Y1"), c("Y2")]]
    rest = list(deck)
    for card in [*hands[0], *hands[1], c("R3")]:
        rest.remove(card)
    game = Game.from_setup(rules, hands=hands, draw_pile=rest, discard=[c("R3")],
                           current_player=0)
    bot = SearchBot(0, rules=rules, iterations=40)
    action = bot.choose(game.observation(0), game.legal_actions(0))
    assert action is not None and A.action_card(action) == c("RS")
