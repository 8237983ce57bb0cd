"""The game state (``unokit.engine.state``): every slot documented, one ``derive()`` for
everything derived, the rule mixins in one chain, and fast paths that change speed only.

The differential test plays the same random match twice, once with the fast paths and
once with their flags forced off (the general path), and compares every seat's legal
actions and the events of every step.
"""

from __future__ import annotations

import ast
import inspect
import io
import random
import re
import tokenize
from pathlib import Path

import pytest

from strategies import pick_action
from unokit.engine import state as state_module
from unokit.engine.actions import format_action, parse_action
from unokit.engine.attack import AttackCards
from unokit.engine.cards import parse_card
from unokit.engine.game import Game
from unokit.engine.house import CardEffects
from unokit.engine.match_flow import MatchFlow
from unokit.engine.rules import SPEC, Rules
from unokit.engine.state import (
    DERIVED_FIELDS,
    FAST_PATHS,
    RECORDED_FIELDS,
    SIMPLE_SUPPORT,
    STATE_FIELDS,
    GameState,
)
from unokit.engine.support import ANY, INERT, check_declaration
from unokit.engine.table import TableRules

ENGINE = Path(state_module.__file__).resolve().parent


def cards(*codes: str) -> list[int]:
    return [parse_card(code) for code in codes]


def every_seat(game: Game) -> list[list[int]]:
    return [game.legal_actions(seat) for seat in range(game.n)]


# ----------------------------------------------------------------- derive()
def test_a_saved_state_offers_the_same_actions_as_the_game_it_was_saved_from() -> None:
    # A set-up deck with a Wild Swap Hands, added by extra_cards: the plays name a seat
    # before the round trip and after it.
    game = Game.from_setup("official,players=3,extra_cards={WSW:1}",
                           hands=[cards("WSW", "R1"), cards("G2", "G3"), cards("B2", "B3")],
                           draw_pile=cards("Y1", "Y2"), discard=cards("R5"), current_player=0)
    before = every_seat(game)
    assert "0:WSW>R@1" in [format_action(a) for a in before[0]]
    assert "0:WSW>R" not in [format_action(a) for a in before[0]]
    restored = Game.from_dict(game.to_dict())
    assert restored == game
    assert every_seat(restored) == before
    for name in FAST_PATHS:
        assert getattr(restored, name) is getattr(game, name) is False


@pytest.mark.parametrize("preset", ["official", "party", "attack", "h2o", "pairs"])
def test_round_trips_and_copies_keep_every_derived_value(preset: str) -> None:
    rules = Rules.preset(preset)
    game = Game(rules, seed=11)
    rng = random.Random(5)
    for step in range(200):
        if game.is_over():
            break
        if step % 20 == 0:
            for other in (Game.from_dict(game.to_dict()), game.copy()):
                assert other == game
                assert every_seat(other) == every_seat(game)
                for name in DERIVED_FIELDS:
                    if name not in ("_version", "_cache_version", "_cache_player", "_cache"):
                        assert getattr(other, name) == getattr(game, name), name
        game.apply(pick_action(game, rng))


def test_derive_makes_a_change_made_outside_apply_seen() -> None:
    game = Game.from_setup("official,players=2", hands=[cards("B1", "B2"), cards("G1", "G2")],
                           draw_pile=cards("Y1", "Y2"), discard=cards("R3"), current_player=0)
    assert [format_action(a) for a in game.legal_actions(0)] == ["0:draw"]
    game.hands[0].append(parse_card("R7"))
    game.derive()
    assert [format_action(a) for a in game.legal_actions(0)] == ["0:R7", "0:draw"]
    assert game.apply(parse_action("0:R7"))[0].card == parse_card("R7")


def test_a_copy_derives_its_own_values() -> None:
    game = Game.from_setup("official,players=2", hands=[cards("B1", "B2"), cards("G1", "G2")],
                           draw_pile=cards("Y1", "Y2"), discard=cards("R3"), current_player=0)
    drawn_only = game.legal_actions(0)
    game.hands[0].append(parse_card("R7"))  # not announced: the game's cache is stale
    clone = game.copy()
    assert len(clone.legal_actions(0)) == len(drawn_only) + 1
    game.restore(clone)
    assert len(game.legal_actions(0)) == len(drawn_only) + 1


def test_a_set_up_deck_decides_the_fast_paths() -> None:
    # The rules' deck holds both special wilds; the set-up's cards are the deck played.
    rules = "official,players=2,extra_cards={WSW:1,WD1:1}"
    plain = Game.from_setup(rules, hands=[cards("B1"), cards("G1")],
                            draw_pile=cards("Y1"), discard=cards("R3"), current_player=0)
    swap = Game.from_setup(rules, hands=[cards("WSW"), cards("G1")],
                           draw_pile=cards("Y1"), discard=cards("R3"), current_player=0)
    downpour = Game.from_setup(rules, hands=[cards("WD1"), cards("G1")],
                               draw_pile=cards("Y1"), discard=cards("R3"), current_player=0)
    assert [getattr(plain, name) for name in FAST_PATHS] == [True] * 4
    assert [getattr(swap, name) for name in FAST_PATHS] == [False] * 4
    assert [downpour._simple, downpour._plain, downpour._plain_plays,
            downpour._turn_only] == [True, False, False, True]


# ------------------------------------------------------------------ the slots
def _documented_attributes(cls: type) -> set[str]:
    """The names annotated in the class body and followed by a docstring."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0]
    assert isinstance(body, ast.ClassDef)
    names = set()
    for node, after in zip(body.body, body.body[1:], strict=False):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str) and after.value.value.strip()):
            names.add(node.target.id)
    return names


def test_every_slot_of_a_game_is_declared_and_documented_once_in_game_state() -> None:
    slots = GameState.__slots__
    assert len(slots) == len(set(slots))
    assert set(slots) == {*STATE_FIELDS, *RECORDED_FIELDS, *DERIVED_FIELDS}
    assert _documented_attributes(GameState) == set(slots)


def test_the_rule_modules_are_mixins_in_one_chain() -> None:
    assert Game.__mro__ == (Game, TableRules, MatchFlow, CardEffects, AttackCards, GameState,
                            object)
    for cls in Game.__mro__[:-2]:
        assert cls.__dict__["__slots__"] == (), cls
    assert not hasattr(Game("official", seed=1), "__dict__")


# Compiled code keeps its own packed encodings (the simulator's state array, the RL
# kernel's results, the playouts' moves), and the generators mix bits by design (the
# engine's, and the deals' SplitMix64 in bots/deals.py).
OWN_BIT_LAYOUTS = {"actions.py", "rng.py", "rl/_sim_kernel.py", "rl/fast_backend.py",
                   "bots/playout.py", "bots/playout_compiled.py",
                   "bots/deals.py"}
# An action's fields, decoded by hand: a shift to one of them, or a mask of a seat or card.
ACTION_DECODING = re.compile(r">>\s*(4|8|15|18|23|30|33)\b|&\s*(15|127)\b")


def test_actions_are_decoded_only_in_the_actions_module() -> None:
    # In the engine no bit shift at all; elsewhere none that decodes an action.
    package = ENGINE.parent
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        engine = name.startswith("engine/")
        if name.removeprefix("engine/") in OWN_BIT_LAYOUTS or name.startswith("sim/"):
            continue
        tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text()).readline))
        if engine:
            found = [tok.start[0] for tok in tokens if tok.type == tokenize.OP
                     and tok.string in (">>", "<<", ">>=", "<<=")]
        else:
            code = [tok for tok in tokens if tok.type not in (tokenize.STRING, tokenize.COMMENT)]
            lines: dict[int, str] = {}
            for tok in code:
                lines[tok.start[0]] = lines.get(tok.start[0], "") + " " + tok.string
            found = [line for line, text in lines.items() if ACTION_DECODING.search(text)]
        assert not found, f"{name}: actions decoded by hand on lines {found}"


def test_the_decoding_check_sees_a_hand_decoded_action() -> None:
    assert ACTION_DECODING.search("seat = action & 15")
    assert ACTION_DECODING.search("card = ( action >> 8 ) & 127")
    assert not ACTION_DECODING.search("mask = 1 << 20")


# ------------------------------------------------------------ the fast paths
@pytest.mark.parametrize("flag", list(FAST_PATHS))
def test_each_fast_path_declares_every_rule_key(flag: str) -> None:
    check_declaration(FAST_PATHS[flag], f"the engine's fast path {flag}")


@pytest.mark.parametrize("flag", [flag for flag in FAST_PATHS if flag != "_simple"])
def test_each_fast_path_plays_no_more_than_the_simple_one(flag: str) -> None:
    for key, simple in SIMPLE_SUPPORT.items():
        support = FAST_PATHS[flag][key]
        if simple in (ANY, INERT):
            continue
        assert isinstance(support, frozenset) and support <= simple, (flag, key)


def test_a_rule_key_without_a_declaration_turns_the_fast_paths_off() -> None:
    declaration = {key: value for key, value in SIMPLE_SUPPORT.items() if key != "jump_in"}
    assert not state_module._supports(declaration, Rules.preset("official"))
    assert state_module._supports(SIMPLE_SUPPORT, Rules.preset("official"))
    with pytest.raises(ValueError, match="jump_in"):
        check_declaration(declaration, "example")
    assert set(SPEC) == set(SIMPLE_SUPPORT)


GENERAL_PATH = {"_simple": False, "_plain": False, "_plain_plays": False,
                "_turn_only": False, "_out_of_turn": True}
"""The flags' values that send the engine down the general path everywhere."""


def general_path(game: Game) -> Game:
    """``game`` with every fast path off (until the next ``derive()``)."""
    for name, value in GENERAL_PATH.items():
        setattr(game, name, value)
    game._version += 1
    return game


DIFFERENTIAL = [
    ("official", {}),
    ("official", {"players": 2, "draw": "until_playable", "wild_draw_four": "strict"}),
    ("official", {"players": 3, "misplay_penalty": 2, "false_catch_penalty": 1}),
    ("official", {"players": 5, "play_drawn": "must", "draw_when_playable": False,
                  "play_to_last": True}),
    ("classic_ru", {}),
    ("stacking", {"players": 3}),
    ("jump_in", {"players": 3}),
    ("h2o", {}),
    ("pairs", {"partner_hands_visible": True}),
    ("party", {}),
]


@pytest.mark.parametrize(("preset", "changes"), DIFFERENTIAL)
def test_the_fast_paths_change_nothing_but_speed(preset: str, changes: dict[str, object]
                                                 ) -> None:
    rules = Rules.preset(preset, **changes, target_score=300)
    for seed in range(5):
        fast = Game(rules, seed=seed)
        slow = general_path(Game(rules, seed=seed))
        assert fast.log == slow.log
        rng = random.Random(seed)
        for _ in range(1500):
            if fast.is_over():
                break
            assert every_seat(fast) == every_seat(slow)
            action = pick_action(fast, rng)
            assert fast.apply(action) == slow.apply(action)
            assert fast == slow
        assert all(getattr(slow, name) == value for name, value in GENERAL_PATH.items())


def test_the_official_game_takes_the_fast_paths() -> None:
    game = Game("official", seed=3)
    assert [getattr(game, name) for name in FAST_PATHS] == [True] * 4
    assert not game._out_of_turn


def test_round_and_match_results_have_the_keys_their_types_name() -> None:
    from unokit.engine.events import EventKind
    from unokit.engine.match_flow import MatchResult, RoundResult

    game = Game(Rules.preset("official", players=3, rounds=2), seed=2)
    rng = random.Random(2)
    while not game.is_over():
        game.apply(pick_action(game, rng))
    rounds = [e.data for e in game.log if e.kind is EventKind.ROUND_ENDED]
    ends = [e.data for e in game.log if e.kind is EventKind.MATCH_ENDED]
    assert len(rounds) == 2 and len(ends) == 1
    assert all(set(data) == set(RoundResult.__annotations__) for data in rounds)
    assert set(ends[0]) == set(MatchResult.__annotations__)
