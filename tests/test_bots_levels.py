"""The heuristic bots (easy, normal, hard; four personalities) and their memory: legal
answers at every moment under random rule sets, determinism, full games, the registry,
and the decisions that have a clear right answer."""

from __future__ import annotations

import random
from itertools import islice

import pytest

from checked_bot import Checked
from unokit.bots import (
    BOTS,
    LEVELS,
    PERSONALITIES,
    HeuristicBot,
    PlayFirstBot,
    make_bot,
    parse_bot_spec,
    play,
)
from unokit.bots.heuristic import REACTION_DELAYS, has_color_chance, styled
from unokit.bots.memory import WILD_BIT, Tracker, failed_mask
from unokit.engine import actions as A
from unokit.engine.cards import parse_card
from unokit.engine.events import EventKind
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.testing.soak import draw_rules


def cards(*codes: str) -> list[int]:
    return [parse_card(code) for code in codes]


SPECS = [f"{level}:{personality}" for level in LEVELS for personality in PERSONALITIES]


@pytest.mark.parametrize("seed", range(10))
def test_legal_answers_under_random_rule_sets(seed: int) -> None:
    """Bot matches under random rule sets (house rules, Attack, teams...): every answer
    is legal, in turn and out of turn."""
    rng = random.Random(seed)
    rules = draw_rules(rng)
    bots = [Checked(make_bot(rng.choice(SPECS), seed * 16 + seat, rules=rules))
            for seat in range(rules.players)]
    game = Game(rules, seed)
    for _ in islice(play(game, bots), 4000):
        pass
    assert sum(bot.calls for bot in bots) > 0


def test_out_of_turn_moments() -> None:
    """At random positions of random play, every level answers every seat legally, in
    turn or not (None only when the seat need not act)."""
    from strategies import pick_action

    for seed in range(4):
        rng = random.Random(seed)
        rules = draw_rules(rng)
        game = Game(rules, seed)
        bots = [Checked(HeuristicBot(seed, level=level, rules=rules)) for level in LEVELS]
        for _ in range(150):
            if game.is_over():
                break
            for seat in range(game.n):
                legal = game.legal_actions(seat)
                if legal:
                    for bot in bots:
                        bot.choose(game.observation(seat), legal)
            game.apply(pick_action(game, rng))


@pytest.mark.parametrize("spec", SPECS)
def test_every_level_and_personality_plays_full_games(spec: str) -> None:
    for players in (2, 4):
        rules = Rules.preset("official", players=players, rounds=2)
        game = Game(rules, players)
        bots = [make_bot(spec, seat, rules=rules) for seat in range(players)]
        for _ in play(game, bots):
            pass
        assert game.is_over()


def test_same_seed_same_choices() -> None:
    def run(seed: int) -> list[int]:
        rules = Rules.preset("party", players=3, rounds=1)
        game = Game(rules, 5)
        bots = [make_bot(spec, seed + seat, rules=rules)
                for seat, spec in enumerate(["hard", "normal:chaotic", "easy"])]
        for _ in play(game, bots):
            pass
        return game.history

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_registry_and_specs() -> None:
    assert {"easy", "normal", "hard", "search", "random", "playfirst"} <= set(BOTS)
    assert parse_bot_spec("hard:aggressive") == ("hard", {"personality": "aggressive"})
    assert parse_bot_spec("search:50") == ("search", {"iterations": 50})
    bot = make_bot("normal:cautious", 3, reaction_delay=0.25)
    assert isinstance(bot, HeuristicBot)
    assert (bot.level, bot.personality, bot.reaction_delay) == ("normal", "cautious", 0.25)
    assert make_bot("easy").reaction_delay == REACTION_DELAYS["easy"]
    assert make_bot("random", 1, rules=Rules.preset("official")).name == "random"
    for bad in ("nobody", "hard:sleepy", "search:x", "random:fast"):
        with pytest.raises(ValueError):
            make_bot(bad)
    with pytest.raises(ValueError, match="rules"):
        make_bot("search")
    with pytest.raises(ValueError):
        make_bot("hard", wings=2)
    assert styled("hard", "cautious").bluff == 0.0


def _position(hands: list[list[int]], top: str, *, players: int = 2, current: int = 0,
              **rules: object) -> Game:
    deck = Rules.preset("official", players=players, **rules).deck_cards()  # type: ignore[arg-type]
    used = [c for hand in hands for c in hand] + [parse_card(top)]
    rest = list(deck)
    for card in used:
        rest.remove(card)
    return Game.from_setup(Rules.preset("official", players=players, **rules),  # type: ignore[arg-type]
                           hands=hands, draw_pile=rest, discard=[parse_card(top)],
                           current_player=current)


def test_calls_uno_and_catches() -> None:
    game = _position([cards("R5", "G7"), cards("Y1", "Y2", "Y3")], "R3")
    bot = HeuristicBot(0, level="normal")
    action = bot.choose(game.observation(0), game.legal_actions(0))
    assert action is not None and action & A.UNO_FLAG and A.action_card(action) == parse_card("R5")
    # The other seat plays its second-to-last card without calling: it is caught.
    game = _position([cards("B5", "G7", "G8"), cards("R1", "Y2")], "R3", current=1)
    game.apply(A.play(1, parse_card("R1")))
    assert game.observation(0).uno_open == 1
    for level in ("normal", "hard"):
        catcher = HeuristicBot(0, level=level)
        assert catcher.choose(game.observation(0), game.legal_actions(0)) == A.catch(0, 1)


def test_easy_forgets_uno_sometimes() -> None:
    game = _position([cards("R5", "G7"), cards("Y1", "Y2", "Y3")], "R3")
    calls = 0
    for seed in range(60):
        action = HeuristicBot(seed, level="easy").choose(game.observation(0),
                                                          game.legal_actions(0))
        assert action is not None
        calls += bool(action & A.UNO_FLAG)
    assert 0 < calls < 60


def test_jumps_in() -> None:
    game = _position([cards("R5", "G7", "Y9"), cards("R5", "B2", "B3"), cards("G1", "G2")],
                     "Y5", players=3, jump_in=True)
    game.apply(A.play(0, parse_card("R5")))
    legal = game.legal_actions(1)
    assert A.play(1, parse_card("R5")) in legal
    assert HeuristicBot(0, level="hard").choose(game.observation(1), legal) \
        == A.play(1, parse_card("R5"))


def test_draw_two_against_a_player_about_to_go_out() -> None:
    game = _position([cards("R+2", "R4", "G6", "B7"), cards("Y1")], "R3")
    action = HeuristicBot(0, level="normal").choose(game.observation(0), game.legal_actions(0))
    assert action == A.play(0, parse_card("R+2"))


def test_keeps_the_wild_while_other_plays_exist() -> None:
    game = _position([cards("W", "R4", "G6", "G7", "G8"), cards("Y1", "Y2", "Y3", "Y4")], "R3")
    action = HeuristicBot(0, level="hard").choose(game.observation(0), game.legal_actions(0))
    assert action == A.play(0, parse_card("R4"))


def test_wild_names_a_colour_the_hand_holds() -> None:
    game = _position([cards("W", "G6", "G7", "B8"), cards("Y1", "Y2", "Y3", "Y4")], "R3")
    action = HeuristicBot(0, level="hard").choose(game.observation(0), game.legal_actions(0))
    assert action is not None and A.action_card(action) == parse_card("W")
    assert A.action_color(action) == 2  # green


def test_challenges_by_the_odds() -> None:
    """A Wild Draw Four from a big hand is likely a bluff: challenged; from a hand of one
    card it is not worth it."""
    for size, expected in ((9, "challenge"), (1, "draw")):
        accused = cards("W+4", "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9")[:size + 1]
        game = _position([accused, cards("Y1", "Y2", "G3")], "R3")
        game.apply(A.play(0, parse_card("W+4"), color=1, uno=size == 1))
        assert game.phase.value == "challenge"
        action = HeuristicBot(0, level="hard").choose(game.observation(1), game.legal_actions(1))
        assert action == (A.challenge(1) if expected == "challenge" else A.draw(1))
        easy = HeuristicBot(0, level="easy").choose(game.observation(1), game.legal_actions(1))
        assert easy == A.draw(1)


def test_answers_a_stack() -> None:
    game = _position([cards("R+2", "G5"), cards("B+2", "Y1", "Y2")], "R3",
                     draw_two_on_draw_two="stack")
    game.apply(A.play(0, parse_card("R+2"), uno=True))
    assert game.phase.value == "respond"
    action = HeuristicBot(0, level="normal").choose(game.observation(1), game.legal_actions(1))
    assert action == A.play(1, parse_card("B+2"))


def test_seven_swap_names_the_smallest_hand() -> None:
    game = _position([cards("R7", "G5", "G6", "B1", "B2"), cards("Y1", "Y2", "Y3", "Y4", "Y5"),
                      cards("G1")], "R3", players=3, seven_swap=True)
    action = HeuristicBot(0, level="hard").choose(game.observation(0), game.legal_actions(0))
    assert action is not None and A.action_card(action) == parse_card("R7")
    assert A.action_target(action) == 2


def test_never_speaks_and_slaps() -> None:
    rules = Rules.preset("official", players=3, uno_slap=True, silence="twos", rounds=1)
    for seed in range(3):
        game = Game(rules, seed)
        for _ in play(game, [make_bot("hard", seed + s, rules=rules) for s in range(3)]):
            pass
        kinds = [event.kind for event in game.log]
        assert EventKind.SAID not in kinds


# ------------------------------------------------------------------------ memory
def test_memory_learns_a_colour_the_opponent_lacks() -> None:
    """Seat 1 draws on red: the tracker of seat 0 binds every card of seat 1 to not red."""
    game = _position([cards("R5", "G5", "G6"), cards("Y1", "Y2", "B3")], "R3")
    tracker = Tracker(game.rules)
    obs = game.observation(0)
    tracker.update(obs)
    action = A.play(0, parse_card("R5"))
    tracker.chose(obs, action)
    game.apply(action)
    game.apply(A.draw(1))  # seat 1 has no red, no 5 and no wild
    if game.phase.value == "drawn":
        game.apply(A.pass_turn(1))
    tracker.update(game.observation(0))
    mask = failed_mask(parse_card("R5"), 0)
    assert mask & WILD_BIT and mask & 1
    assert all(slot & mask == mask for slot in tracker.slots(1))
    assert len(tracker.slots(1)) == 4
    unseen = tracker.unseen(game.observation(0))
    assert tracker.has_chance(1, 0, unseen) == 0.0
    assert tracker.has_chance(1, 1, unseen) > 0.5
    assert tracker.lack(1, 0) == 1.0


def test_memory_is_cleared_by_a_new_round() -> None:
    rules = Rules.preset("official", players=2, rounds=3)
    game = Game(rules, 1)
    bot = HeuristicBot(0, level="hard", rules=rules)
    keys = set()
    for _ in play(game, [bot, PlayFirstBot(1)]):
        if bot.tracker.key is not None:
            keys.add(bot.tracker.key)
            assert len(bot.tracker.hands) == 2
    assert len(keys) >= 2
    bot.reset()
    assert bot.tracker.key is None and bot.tracker.hands == []


def _unmatched(masks: list[int], hand: list[int]) -> int:
    """Slots left without a card of ``hand`` that fits them, in a maximum matching."""
    from unokit.bots.memory import FEATURES

    owner: dict[int, int] = {}  # card index -> slot index

    def assign(slot: int, seen: set[int]) -> bool:
        for index, card in enumerate(hand):
            if FEATURES[card] & masks[slot] or index in seen:
                continue
            seen.add(index)
            if index not in owner or assign(owner[index], seen):
                owner[index] = slot
                return True
        return False

    return sum(1 for slot in range(len(masks)) if not assign(slot, set()))


def test_the_memory_never_contradicts_the_real_hands_much() -> None:
    """Against a bot that never draws while it can play, the slots fit the real hands:
    the cards of a hand can be matched to slots they fit, but for a few."""
    rules = Rules.preset("official", players=2, rounds=1)
    misfits = total = 0
    for seed in range(6):
        game = Game(rules, seed)
        bot = HeuristicBot(seed, level="hard", rules=rules)
        for _ in play(game, [bot, PlayFirstBot(seed)]):
            if game.current_player == 0 and game.phase.value == "play":
                bot.tracker.update(game.observation(0))
                masks = bot.tracker.slots(1)
                total += len(masks)
                misfits += _unmatched(masks, game.hands[1])
    assert total > 100
    assert misfits <= total * 0.02


def test_colour_chances() -> None:
    from collections import Counter

    unseen = Counter(cards("R1", "R2", "G1", "G2"))
    assert has_color_chance(unseen, 0, 4) == 1.0
    assert has_color_chance(unseen, 3, 2) == 0.0
    assert has_color_chance(unseen, 0, 1) == pytest.approx(0.5)


def test_never_misplays() -> None:
    """Where ``misplay_penalty`` lets any card be tried, the levels only play matching
    cards (the search too)."""
    rules = Rules.preset("official", players=3, misplay_penalty=2, rounds=1)
    for seed in range(3):
        game = Game(rules, seed)
        bots = [make_bot(spec, seed, rules=rules) for spec in ("easy", "hard", "search:20")]
        for _ in play(game, bots):
            pass
        assert EventKind.MISPLAYED not in {event.kind for event in game.log}
