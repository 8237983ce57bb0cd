"""The fast simulator on the presets beyond the classic four: ``jump_in``, ``party``,
``attack``, ``h2o``, ``pairs`` and ``online``, and the house-rule keys they bring
(jump-ins, UNO Attack's launcher and cards, the H2O deck's Wild Downpours, teams,
``wild_color = "next_in_circle"``; ``tests/test_sim_attack.py`` has more of UNO Attack).

Each preset plays at least 200 games with consecutive seeds on the kernel and on the
engine (:func:`sim_parity_kit.check_games`); a hypothesis property draws presets, table
sizes, policies and seeds at random; and each test checks that what it is about happens
in the games compared (jump-ins are taken, Downpours played, partners share their score),
so that a kernel that ignored the rule would fail (UNO Attack: every Attack card played,
Discard Alls taking cards with them, the launcher firing and not, pressed until it fires,
reloaded). ``UNOKIT_PARITY_GAMES=K`` multiplies
the number of games by ``K``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim_parity_kit import check_games, kernel_outcomes
from unokit.engine import actions as A
from unokit.engine.cards import CODES, WILD, WILD_DOWNPOUR_ONE, WILD_DOWNPOUR_TWO
from unokit.engine.errors import RulesError
from unokit.engine.events import EventKind
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.engine.scoring import partner
from unokit.sim.policies import Outcome, play_reference
from unokit.sim.support import SUPPORTED_PRESETS, check_supported, unsupported

SCALE = max(1, int(os.environ.get("UNOKIT_PARITY_GAMES", "1")))

# (rule set, [(players, games with playfirst, games with random), ...]). Random play of
# the official draw rules makes long games (random players draw half the time), and
# under draw = "until_playable" (party) very long ones, so fewer of them.
PRESETS = [
    ("jump_in,rounds=1", [(2, 120, 20), (3, 80, 10), (4, 80, 10), (7, 40, 4)]),
    ("party,rounds=1", [(2, 120, 3), (3, 80, 2), (4, 80, 2), (6, 40, 2)]),
    ("attack,rounds=1", [(2, 120, 20), (3, 80, 10), (4, 60, 6), (8, 30, 4)]),
    ("h2o,rounds=1", [(2, 120, 16), (3, 80, 8), (5, 60, 4), (9, 40, 2)]),
    ("pairs,rounds=1", [(4, 150, 16), (6, 60, 4), (10, 40, 2)]),
    ("online", [(4, 130, 4), (6, 50, 2), (8, 20, 1)]),
]

# Other values and combinations of the keys these presets bring, whole matches included.
VARIANTS = [
    ("pairs", 4, "playfirst", 12),
    ("online,scoring=penalty,target_score=250,going_out_bonus={W:20},lone_zero_points=30",
     4, "playfirst", 40),
    ("pairs,players=8,draw_when_playable=false,rounds=2", 8, "random", 20),
    ("party,draw_when_playable=false,rounds=1", 3, "random", 60),
    ("party,draw_when_playable=false,seven_zero_last_card=apply,rounds=1", 5, "random", 40),
    ("jump_in,skip_on_skip=any,reverse_deflects_draw=true,rounds=1", 4, "random,playfirst",
     80),
    ("classic_ru,jump_in=true,rounds=1", 4, "random", 80),
    ("official,wild_color=next_in_circle,rounds=1", 3, "random", 30),
    ("h2o,wild_color=next_in_circle,jump_in=true,draw_when_playable=false,rounds=1", 4,
     "random", 60),
    ("h2o,draw_two_on_draw_two=stack,draw_four_on_draw_four=stack,"
     "seven_swap=true,zero_rotate=true,rounds=1", 3, "playfirst", 80),
    ("h2o,teams=pairs,players=4,scoring=penalty,going_out_bonus={WD2:25},rounds=1", 4,
     "playfirst", 60),
    ("official,misplay_penalty=2,rounds=1", 3, "random", 40),
    ("jump_in,misplay_penalty=1,wild_draw_four=strict,rounds=1", 4, "playfirst", 60),
    ("classic_ru,misplay_penalty=3,draw=until_playable,rounds=1", 2, "random,playfirst", 40),
    ("official,scoring=lazy,rounds=3", 3, "playfirst", 40),
    ("jump_in,scoring=lazy,rounds=4,draw_when_playable=false", 5, "random", 30),
]


ATTACK_SEEN = ("H2", "DA", "TH", "WAH", "WHF", "discard_all", "fired", "not_fired",
               "until_fired", "reload")
"""What :func:`_tally` counts of UNO Attack: plays of each Attack card (by the code's
symbol), Discard Alls that took cards with them, presses that ejected cards and presses
that did not, a Wild Hit-Fire pressed more than once, and launcher reloads."""


def _tally(rules: Rules, outcomes: Sequence[Outcome]) -> Counter[str]:
    """Replays the engine's games and counts the plays the new rules make: jump-ins
    (a play by a seat whose turn it is not, other than a skip passed on), Wild
    Downpours, wilds whose colour the wheel sets, misplays, and UNO Attack's
    (:data:`ATTACK_SEEN`)."""
    seen: Counter[str] = Counter()
    for outcome in outcomes:
        game = Game(rules, outcome.seed)
        for action in outcome.history:
            if A.action_type(action) == A.PLAY:
                player, card = A.action_player(action), A.action_card(action)
                if player != game.current and player != game.skip_from:
                    seen["jump_in"] += 1
                if card in (WILD_DOWNPOUR_ONE, WILD_DOWNPOUR_TWO):
                    seen["downpour"] += 1
                if card >= WILD and A.action_color(action) == A.NO_COLOR_ARG:
                    seen["wheel"] += 1
                symbol = CODES[card] if card >= WILD else CODES[card][1:]
                if symbol in ATTACK_SEEN:
                    seen[symbol] += 1
            for event in game.apply(action):
                kind = event.kind
                seen["misplay"] += kind is EventKind.MISPLAYED
                seen["discard_all"] += kind is EventKind.DISCARDED
                seen["reload"] += kind is EventKind.RESHUFFLED and rules.deck == "attack"
                if kind is EventKind.PRESSED:
                    seen["fired" if event.amount else "not_fired"] += 1
                    seen["until_fired"] += event.reason == "hit_fire" and event.target > 1
    return seen


def _partners_share(rules: Rules, outcomes: Sequence[Outcome]) -> None:
    for outcome in outcomes:
        for seat in range(rules.players):
            assert outcome.scores[seat] == outcome.scores[partner(rules, seat)]


@pytest.mark.parametrize(("text", "plan"), PRESETS, ids=[p[0].split(",")[0] for p in PRESETS])
def test_presets_play_the_engine_games(text: str, plan: list[tuple[int, int, int]]) -> None:
    played = 0
    sample: list[tuple[Rules, list[Outcome]]] = []
    for players, playfirst, random in plan:
        rules = Rules.load(text).with_(players=players)
        for policy, count, seed in (("playfirst", playfirst, 1000 * players),
                                    ("random", random, 700_000 + 1000 * players)):
            outcomes = check_games(rules, policy, seed, count * SCALE)
            played += len(outcomes)
            sample.append((rules, outcomes[:15]))
    assert played >= 200
    preset = text.split(",")[0]
    tally: Counter[str] = Counter()
    for rules, outcomes in sample:
        tally += _tally(rules, outcomes)
        if rules.teams == "pairs":
            _partners_share(rules, outcomes)
    if preset in ("jump_in", "party"):
        assert tally["jump_in"] > 0
    else:
        assert tally["jump_in"] == 0
    assert (tally["downpour"] > 0) == (preset == "h2o")
    for seen in ATTACK_SEEN:
        assert (tally[seen] > 0) == (preset == "attack"), seen


@pytest.mark.parametrize(("text", "players", "policies", "games"), VARIANTS,
                         ids=[f"variant{i}" for i in range(len(VARIANTS))])
def test_house_rule_variants_play_the_engine_games(text: str, players: int, policies: str,
                                                   games: int) -> None:
    rules = Rules.load(text).with_(players=players)
    outcomes = check_games(rules, policies, 31, games * SCALE)
    tally = _tally(rules, outcomes[:20])
    assert (tally["jump_in"] > 0) == rules.jump_in
    assert (tally["wheel"] > 0) == (rules.wild_color == "next_in_circle")
    assert (tally["misplay"] > 0) == (rules.misplay_penalty > 0)
    if rules.deck == "h2o":
        assert tally["downpour"] > 0
    if rules.teams == "pairs":
        _partners_share(rules, outcomes)
    if rules.scoring == "lazy":  # no points; the match lasts its rounds
        assert all(o.scores == [0] * players and o.rounds == rules.rounds for o in outcomes)
        assert len({o.winner for o in outcomes}) > 1


def test_lazy_rounds_are_dealt_by_the_loser_and_opened_by_the_winner() -> None:
    """Under lazy scoring the loser of a round deals the next and its winner plays first;
    the kernel plays the engine's games, in which that differs from the plain rotation
    of the dealer."""
    rules = Rules.load("official,scoring=lazy,rounds=4,players=4")
    outcomes = check_games(rules, "playfirst", 900, 25)
    moved = 0
    for outcome in outcomes:
        game = Game(rules, outcome.seed)
        for action in outcome.history:
            rotation = (game.dealer + 1) % rules.players
            game.apply(action)
            if A.action_type(action) == A.NEXT_ROUND:
                moved += game.dealer != rotation
    assert moved > 10


_TABLES = {"pairs": (4, 6, 8, 10), "online": (4, 6, 8, 10)}


@st.composite
def _games(draw: st.DrawFn) -> tuple[Rules, str, int]:
    preset = draw(st.sampled_from(SUPPORTED_PRESETS))
    players = draw(st.sampled_from(_TABLES.get(preset, tuple(range(2, 11)))))
    policy = draw(st.sampled_from(["playfirst", "random,playfirst", "playfirst,random"]))
    seed = draw(st.integers(min_value=0, max_value=2**64 - 1))
    return Rules.load(f"{preset},rounds=1").with_(players=players), policy, seed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_games())
def test_any_supported_preset_plays_the_engine_game(game: tuple[Rules, str, int]) -> None:
    rules, policy, seed = game
    check_games(rules, policy, seed, 1)


def test_jump_ins_follow_the_specified_offer() -> None:
    """The first seat after the current player that takes a jump-in plays it, and the
    kernel's game is that game: the engine's history shows jump-ins by playfirst, which
    always jumps in, right after the play of the identical card."""
    rules = Rules.load("jump_in,players=3,rounds=1")
    outcomes = check_games(rules, "playfirst", 5, 20)
    for outcome in outcomes:
        game = Game(rules, outcome.seed)
        for action in outcome.history:
            if (A.action_type(action) == A.PLAY and A.action_player(action) != game.current
                    and game.discard):
                assert A.action_card(action) == game.discard[-1]
            game.apply(action)
    assert _tally(rules, outcomes)["jump_in"] >= 5


def test_same_games_without_the_rule_differ() -> None:
    """The new rules change the games: the kernel's games under jump_in, h2o and pairs are
    not the official ones for the same seeds."""
    for text in ("jump_in,players=4,rounds=1", "pairs,rounds=1", "h2o,players=4,rounds=1",
                 "official,wild_color=next_in_circle,players=4,rounds=1"):
        rules = Rules.load(text)
        plain = rules.with_(jump_in=False, teams="none", deck="classic",
                            wild_color="chosen")
        mine = [o.digest for o in kernel_outcomes(rules, "playfirst", 0, 40)]
        base = [o.digest for o in kernel_outcomes(plain, "playfirst", 0, 40)]
        if text.startswith("pairs"):  # the same plays; only the scores differ
            mine_scores = [o.scores for o in kernel_outcomes(rules, "playfirst", 0, 40)]
            base_scores = [o.scores for o in kernel_outcomes(plain, "playfirst", 0, 40)]
            assert mine == base and mine_scores != base_scores
        else:
            assert mine != base
        assert play_reference(rules, 0, "playfirst").digest == mine[0]


def test_the_other_keys_are_refused_by_name() -> None:
    refused = {
        "attack,players=4,uno_slap=true": {"uno_slap"},
        "official,extra_cards={WD1:2}": {"extra_cards"},
        "official,five_exchange=true,multi_play=same_number": {"five_exchange", "multi_play"},
        "official,players=4,uno_slap=true,silence=twos,false_catch_penalty=1":
            {"uno_slap", "silence", "false_catch_penalty"},
        "official,play_to_last=true,progressive_refill=true": {"play_to_last"},
        "official,scoring=elimination": {"scoring"},
        "official,scoring=elimination,rounds=3": {"scoring"},
    }
    for text, keys in refused.items():
        rules = Rules.load(text)
        assert set(unsupported(rules)) == keys
        with pytest.raises(RulesError) as caught:
            check_supported(rules)
        assert set(caught.value.keys) == keys
    check_supported(Rules.load("attack,launcher_fire_chance=0.5,launcher_max_burst=2"))
