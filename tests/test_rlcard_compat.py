"""RLCard compatibility mode (``unokit.rl.rlcard_compat``): each of RLCard 1.2.0's rules,
its action ids, its observation planes, determinism and a cheap statistical check. The
live comparison with RLCard itself is ``benchmarks/rlcard_parity.py``; the tests compare
with RLCard's action list and 40 replayed games recorded from it (tests/golden)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from unokit.engine.errors import IllegalActionError, UnoError
from unokit.engine.rng import SplitMix64
from unokit.rl.rlcard_compat import (
    ACTION_LIST,
    ACTION_SPACE,
    DRAW,
    NUM_ACTIONS,
    DeckExhaustedError,
    RLCardUnoEnv,
    RLCardUnoGame,
    action_id,
    encode_planes,
    init_deck,
    random_game,
)

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "tests" / "golden" / "rlcard_1.2.0.json"
S = ACTION_SPACE  # card / action ids by RLCard name


def position(hands: list[list[str]], target: str, deck: list[str] | None = None,
             played: list[str] | None = None, color: str | None = None, current: int = 0,
             direction: int = 1) -> RLCardUnoGame:
    """A game set to the given position (cards by RLCard name; deck top = end)."""
    game = RLCardUnoGame(len(hands), seed=0)
    game.hands = [[S[c] for c in hand] for hand in hands]
    game.deck = [S[c] for c in deck or []]
    game.target = S[target]
    game.played = [S[c] for c in played] if played is not None else [S[target]]
    game.color = [i // 15 for i in range(60)]
    if color is not None:
        game.color[S[target]] = "rgby".index(color)
    game.current_player, game.direction, game.winner = current, direction, None
    return game


def names(game: RLCardUnoGame, cards: list[int]) -> list[str]:
    return [ACTION_LIST[c] for c in cards]


# --- actions -------------------------------------------------------------------------------


def test_action_ids_are_rlcards() -> None:
    assert NUM_ACTIONS == len(ACTION_LIST) == len(ACTION_SPACE) == 61
    for i, name in enumerate(ACTION_LIST):
        assert action_id(name) == i == ACTION_SPACE[name] == action_id(i)
    expected = {"r-0": 0, "r-skip": 10, "r-wild": 13, "r-wild_draw_4": 14, "g-0": 15,
                "g-reverse": 26, "b-draw_2": 42, "b-wild": 43, "y-9": 54,
                "y-wild_draw_4": 59, "draw": 60}
    assert {k: ACTION_SPACE[k] for k in expected} == expected
    with pytest.raises(UnoError):
        action_id("x-1")
    with pytest.raises(UnoError):
        action_id(61)


def test_action_ids_match_rlcards_json() -> None:
    """RLCard 1.2.0's own action_space.json, recorded in tests/golden/rlcard_1.2.0.json."""
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    assert recorded["rlcard_version"] == "1.2.0"
    assert [tuple(item) for item in recorded["action_space"]] == list(ACTION_SPACE.items())


def test_deck_is_108_cards_with_printed_wild_colours() -> None:
    deck = Counter(init_deck())
    assert sum(deck.values()) == 108
    assert deck[S["r-0"]] == 1 and deck[S["g-7"]] == 2 and deck[S["y-draw_2"]] == 2
    assert [deck[S[f"{c}-wild"]] for c in "rgby"] == [1, 1, 1, 1]
    assert [deck[S[f"{c}-wild_draw_4"]] for c in "rgby"] == [1, 1, 1, 1]


# --- legal actions -------------------------------------------------------------------------


def test_legal_plays_colour_or_trait_and_wild_always() -> None:
    g = position([["b-5", "r-7", "g-wild", "r-5", "r-wild", "y-2"], ["r-1"]], "r-5")
    assert g.get_state(0)["legal_actions"] == [
        "b-5", "r-7", "r-wild", "g-wild", "b-wild", "y-wild", "r-5"]
    assert names(g, g.legal_actions()) == g.get_state(0)["legal_actions"]


def test_duplicates_listed_raw_and_once_as_ids() -> None:
    g = position([["r-7", "r-7"], ["r-1"]], "r-5")
    assert g.get_state(0)["legal_actions"] == ["r-7", "r-7"]
    assert g.legal_actions() == [S["r-7"]]


def test_wild_draw_four_only_when_nothing_else() -> None:
    g = position([["b-wild_draw_4", "y-1"], ["r-1"]], "g-5")
    assert names(g, g.legal_actions()) == [
        "r-wild_draw_4", "g-wild_draw_4", "b-wild_draw_4", "y-wild_draw_4"]
    g = position([["b-wild_draw_4", "g-1"], ["r-1"]], "g-5")
    assert names(g, g.legal_actions()) == ["g-1"]
    g = position([["b-wild_draw_4", "y-wild"], ["r-1"]], "g-5")
    assert names(g, g.legal_actions()) == ["r-wild", "g-wild", "b-wild", "y-wild"]


def test_wild_target_matches_its_colour_only_and_draw_only_when_stuck() -> None:
    g = position([["g-wild", "b-3", "y-1"], ["r-1"]], "r-wild", color="b")
    g.hands[0] = [S["b-3"], S["y-1"]]
    assert names(g, g.legal_actions()) == ["b-3"]
    g.hands[0] = [S["y-1"], S["r-3"]]
    assert g.legal_actions() == [DRAW]
    with pytest.raises(IllegalActionError):
        position([["r-1"], ["r-2"]], "r-5").step("draw")


# --- playing -------------------------------------------------------------------------------


def test_reverse_with_two_players_does_not_skip() -> None:
    g = position([["r-reverse", "r-1"], ["g-1"]], "r-5")
    assert g.step("r-reverse") == 1
    assert g.direction == -1
    g = position([["r-reverse", "r-1"], ["g-1"], ["g-2"]], "r-5")
    assert g.step("r-reverse") == 2


def test_skip_draw_two_and_wild_draw_four() -> None:
    g = position([["r-skip", "r-1"], ["g-1"], ["g-2"]], "r-5")
    assert g.step("r-skip") == 2
    g = position([["r-draw_2", "r-1"], ["g-1"]], "r-5", deck=["b-1", "b-2", "b-3"])
    assert g.step("r-draw_2") == 0 and len(g.hands[1]) == 3
    g = position([["y-wild_draw_4", "y-1"], ["g-1"]], "r-5", deck=["b-1"] * 5)
    assert g.step("g-wild_draw_4") == 0 and len(g.hands[1]) == 5
    assert g.target_color == 1 and g.target == S["y-wild_draw_4"]
    assert g.get_state(0)["target"] == "y-wild_draw_4"  # printed colour kept
    assert "g-wild_draw_4" in g.get_state(0)["played_cards"]


def test_played_wild_is_the_first_of_its_kind_in_the_hand() -> None:
    g = position([["b-1", "y-wild", "r-wild"], ["g-1"]], "r-5")
    g.step("g-wild")
    assert g.hands[0] == [S["b-1"], S["r-wild"]] and g.target == S["y-wild"]
    assert g.get_state(1)["target"] == "y-wild" and g.target_color == 1


def test_last_card_wins_and_its_effect_still_happens() -> None:
    g = position([["r-draw_2"], ["g-1"]], "r-5", deck=["b-1", "b-2"])
    g.step("r-draw_2")
    assert g.is_over() and g.winner == 0 and len(g.hands[1]) == 3
    assert g.payoffs() == [1, -1]
    with pytest.raises(IllegalActionError):
        g.step("draw")


def test_payoffs_follow_rlcards_indexing() -> None:
    g = position([["r-1"], ["g-1"], ["g-2"]], "r-5")
    assert g.payoffs() == [0, 0, 0]
    g.winner = 0
    assert g.payoffs() == [1, -1, 0]
    g.winner = 2  # payoffs[2] = 1, then payoffs[1 - 2] = payoffs[-1] = -1
    assert g.payoffs() == [0, 0, -1]
    g = position([["r-1"], ["g-1"], ["g-2"], ["g-3"]], "r-5")
    g.winner = 3
    assert g.payoffs() == [0, 0, -1, 1]


def test_illegal_action_leaves_the_game_unchanged() -> None:
    g = position([["r-1", "b-2"], ["g-1"]], "r-5")
    before = g.get_state(0)
    with pytest.raises(IllegalActionError):
        g.step("b-2")
    assert g.get_state(0) == before


# --- drawing -------------------------------------------------------------------------------


def test_drawn_wild_is_played_with_a_random_colour_and_no_effect() -> None:
    colours = set()
    for seed in range(40):
        g = position([["y-1"], ["g-1"]], "r-5", deck=["b-3", "b-wild_draw_4"])
        g.rng = SplitMix64(seed)
        assert g.step("draw") == 1
        assert g.hands == [[S["y-1"]], [S["g-1"]]]  # nobody draws four
        assert g.target == S["b-wild_draw_4"] and g.played[-1] == S["b-wild_draw_4"]
        colours.add(g.target_color)
    assert colours == {0, 1, 2, 3}
    g = position([["y-1"], ["g-1"]], "r-5", deck=["g-wild"])
    g.step("draw")
    assert g.target == S["g-wild"] and g.hands[0] == [S["y-1"]]


def test_drawn_card_of_the_target_colour_is_played() -> None:
    g = position([["y-1"], ["g-1"]], "r-5", deck=["r-8"])
    assert g.step("draw") == 1
    assert g.target == S["r-8"] and g.hands[0] == [S["y-1"]]
    g = position([["y-1"], ["g-1"]], "r-5", deck=["b-1", "b-2", "r-draw_2"])
    assert g.step("draw") == 0  # the Draw Two acts: seat 1 draws two and is skipped
    assert len(g.hands[1]) == 3 and g.target == S["r-draw_2"]
    g = position([["y-1"], ["g-1"]], "g-wild", color="b", deck=["b-skip"])
    assert g.step("draw") == 0 and g.target == S["b-skip"]


def test_drawn_card_matching_only_the_rank_goes_to_the_hand() -> None:
    g = position([["y-1"], ["g-1"]], "r-5", deck=["b-5"])
    assert g.step("draw") == 1
    assert g.hands[0] == [S["y-1"], S["b-5"]] and g.target == S["r-5"]


def test_empty_pile_takes_back_every_played_card_top_included() -> None:
    g = position([["y-1"], ["g-1"]], "r-5", deck=[], played=["b-2", "b-5", "r-5"])
    g.step("draw")
    cards = Counter(g.deck + g.hands[0] + g.played)
    assert cards == Counter([S["y-1"], S["b-2"], S["b-5"], S["r-5"]])
    assert g.target == S["r-5"] or g.played == [g.target]
    if g.target == S["r-5"]:  # the target is also a card of the pile or a hand now
        assert S["r-5"] in g.deck + g.hands[0]


def test_penalty_reshuffles_when_the_pile_is_short() -> None:
    g = position([["r-draw_2", "r-1"], ["g-1"]], "r-5", deck=["b-1"],
                  played=["b-7", "r-5"])
    g.step("r-draw_2")
    assert len(g.hands[1]) == 3 and g.played == [] and len(g.deck) == 2
    assert Counter(g.deck + g.hands[1]) == Counter(
        [S[c] for c in ("b-1", "b-7", "r-5", "r-draw_2", "g-1")])
    g = position([["r-draw_2", "r-1"], ["g-1"]], "r-5", deck=[], played=[])
    with pytest.raises(DeckExhaustedError):
        g.step("r-draw_2")


# --- the start -----------------------------------------------------------------------------


def first_targets(n: int, seeds: range) -> dict[int, list[RLCardUnoGame]]:
    found: dict[int, list[RLCardUnoGame]] = {}
    for seed in seeds:
        g = RLCardUnoGame(n, seed)
        found.setdefault(g.target % 15, []).append(g)
    return found


def test_start_card_handling() -> None:
    found = first_targets(3, range(400))
    assert 14 not in found  # never a Wild Draw Four
    for g in found[10]:  # Skip: seat 1 starts
        assert (g.current_player, g.direction) == (1, 1)
    for g in found[11]:  # Reverse: counter-clockwise, the last seat starts
        assert (g.current_player, g.direction) == (2, -1)
    for g in found[12]:  # Draw Two: seat 0 draws two and still plays
        assert g.current_player == 0 and [len(h) for h in g.hands] == [9, 7, 7]
    assert {g.target_color for g in found[13]} == {0, 1, 2, 3}  # a random colour
    for gs in found.values():
        for g in gs:
            assert sum(map(len, g.hands)) + len(g.deck) + len(g.played) == 108
    for g in first_targets(2, range(200))[11]:  # 2 players: seat 1 starts
        assert (g.current_player, g.direction) == (1, -1)


def test_wild_draw_four_start_card_goes_back_and_the_pile_is_reshuffled() -> None:
    for seed in range(2000):
        deck = init_deck()
        SplitMix64(seed).shuffle(deck)
        if deck[-15] % 15 == 14:  # the card after two hands of seven
            break
    else:
        pytest.fail("no seed starts with a Wild Draw Four")
    g = RLCardUnoGame(2, seed)
    assert g.target % 15 != 14 and deck[-15] in g.deck
    assert g.hands == [deck[:-8:-1], deck[-8:-15:-1]]


# --- observation ---------------------------------------------------------------------------


def test_encoding_of_a_known_state() -> None:
    env = RLCardUnoEnv({"seed": 4})
    env.reset()
    env.game = position([["r-5", "r-5", "g-0", "b-wild", "y-wild", "b-wild_draw_4"], ["g-1"]],
                        "g-wild", color="y")
    state = env.get_state(0)
    obs = state["obs"]
    assert obs.shape == (4, 4, 15) and obs.dtype == np.dtype(int)
    assert obs[2, 0, 5] == 1 and obs[1, 0, 5] == 0 and obs[0, 0, 5] == 0
    assert obs[1, 1, 0] == 1 and obs[0, 1, 0] == 0
    assert obs[1, :, 13].tolist() == [1] * 4 and obs[1, :, 14].tolist() == [1] * 4
    assert obs[0, :, 13].tolist() == [0] * 4 and obs[2].sum() == 1
    assert obs[0].sum() == 60 - 2 - 8
    # the target plane shows the wild's printed colour (g), not the chosen one (y)
    assert obs[3].sum() == 1 and obs[3, 1, 13] == 1
    assert state["raw_obs"]["target"] == "g-wild" and env.game.target_color == 3
    assert list(state["legal_actions"]) == [13, 28, 43, 58]
    assert state["raw_legal_actions"] == ["r-wild", "g-wild", "b-wild", "y-wild"]
    assert (encode_planes(env.game.hands[0], env.game.target) == obs).all()
    other = env.get_state(1)  # RLCard gives the current player's legal ids here too
    assert list(other["legal_actions"]) == [13, 28, 43, 58]
    assert other["raw_legal_actions"] == ["draw"]


def test_env_api() -> None:
    env = RLCardUnoEnv({"seed": 8, "allow_step_back": True})
    state, player = env.reset()
    assert set(state) == {"obs", "legal_actions", "raw_obs", "raw_legal_actions",
                          "action_record"}
    assert env.num_actions == 61 and env.state_shape == [[4, 4, 15], [4, 4, 15]]
    before = env.get_perfect_information()
    illegal = next(a for a in range(61) if a not in state["legal_actions"])
    env.step(illegal)  # replaced by a random legal action, as in RLCard
    assert env.action_recorder[0][0] == player
    assert ACTION_SPACE[env.action_recorder[0][1]] in state["legal_actions"]
    back = env.step_back()
    assert back is not False and env.get_perfect_information() == before
    assert env.step_back() is False

    class First:
        use_raw = False

        def step(self, state: dict[str, object]) -> int:
            return int(next(iter(state["legal_actions"])))  # type: ignore[call-overload]

        def eval_step(self, state: dict[str, object]) -> tuple[int, dict[str, object]]:
            return self.step(state), {}

    env.set_agents([First(), First()])
    trajectories, payoffs = env.run()
    assert sorted(payoffs.tolist()) == [-1, 1] and env.is_over()
    assert len(trajectories) == 2 and all(t for t in trajectories)


# --- whole games ---------------------------------------------------------------------------


def test_games_end_and_conserve_cards() -> None:
    rng = SplitMix64(11)
    for n in (2, 3, 4, 7):
        game = RLCardUnoGame(n, seed=n)
        for _ in range(60):
            steps, winner = random_game(game, rng.below)
            assert 0 < steps < 10_000 and game.hands[winner] == []
            assert sum(map(len, game.hands)) + len(game.deck) + len(game.played) == 108
            game.init_game()


def test_determinism_per_seed() -> None:
    def trace(seed: int) -> list[object]:
        env = RLCardUnoEnv({"seed": seed})
        pick = SplitMix64(99)
        out: list[object] = []
        for _ in range(5):
            state, player = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, player = env.step(legal[pick.below(len(legal))])
                out.append((player, state["raw_obs"]))
        return out

    assert trace(3) == trace(3)
    assert trace(3) != trace(4)


def test_random_play_statistics() -> None:
    """RLCard 1.2.0 measures (``benchmarks/rlcard_parity.py``, 20,000 games): mean length
    46.2 actions (sd 33), seat 0 wins 50.4%. 1,500 games must land near both."""
    game = RLCardUnoGame(2, seed=2024)
    rng = SplitMix64(7)
    lengths, wins0 = [], 0
    for i in range(1500):
        if i:
            game.init_game()
        steps, winner = random_game(game, rng.below)
        lengths.append(steps)
        wins0 += winner == 0
    mean = sum(lengths) / len(lengths)
    assert 42.0 < mean < 51.0  # about 5 standard errors of the mean
    assert 0.45 < wins0 / 1500 < 0.56  # about 4.5 standard errors


# --- against RLCard's recorded games ---------------------------------------------


def test_replays_rlcard_step_by_step() -> None:
    """The states and payoffs of 40 games that RLCard 1.2.0 played with SplitMix64 random
    numbers (recorded in tests/golden/rlcard_1.2.0.json by ``_rlcard_parity_worker.py
    --mode exact``; ``benchmarks/rlcard_parity.py`` repeats the comparison live)."""
    exact = json.loads(RECORDED.read_text(encoding="utf-8"))["exact"]
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from rlcard_parity import exact_digests
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert len(exact["digests"]) == exact["games"] == 40
    assert exact_digests(exact["games"], exact["seed"]) == exact["digests"]
