"""Round trips of a position: ``copy()``, the saved state (``to_dict`` -> JSON ->
``from_dict``) and the record (rules, seed and actions replayed) each give a game with
the same legal actions for every seat, the same state (``==`` and ``to_dict()``), the
same derived state, and the same events for the next action.

Positions are drawn by seeded random play under every preset and under random rule sets
(a seeded loop, so the file takes a few seconds and always checks the same positions).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from unokit.engine import actions as A
from unokit.engine.cards import parse_card
from unokit.engine.errors import SetupError
from unokit.engine.game import Game
from unokit.engine.rules import PRESETS, Rules
from unokit.formats.record import Record, replay
from unokit.testing.soak import draw_rules

_NOT_DERIVED = {"log", "history", "rng", "_version", "_cache_version", "_cache_player",
                "_cache"}
"""Attributes that are not state: the log, the history, the caches (and the generator,
compared through its state)."""


def derived(game: Game) -> dict[str, Any]:
    """Every attribute of the game but the log, history and caches."""
    out = {name: getattr(game, name) for name in Game.__slots__ if name not in _NOT_DERIVED}
    out["rng_state"] = game.rng.state
    return out


def all_legal(game: Game) -> list[list[int]]:
    return [game.legal_actions(seat) for seat in range(game.n)]


def random_action(game: Game, rng: random.Random) -> int:
    """Mostly a move of the seat whose turn it is; now and then any seat's action."""
    legal = [(seat, acts) for seat, acts in enumerate(all_legal(game)) if acts]
    current = game.current_player
    if current is not None and rng.random() < 0.9:
        turn = [a for a in game.legal_actions(current)
                if A.describe(a).type not in ("uno", "catch")]
        if turn:
            return rng.choice(turn)
    return rng.choice(rng.choice(legal)[1])


def check_same(original: Game, again: Game, how: str) -> None:
    assert again == original, how
    assert again.to_dict() == original.to_dict(), how
    assert derived(again) == derived(original), how
    assert all_legal(again) == all_legal(original), how


def check_round_trips(game: Game, rng: random.Random) -> None:
    """The three round trips of ``game``, and the next action on each."""
    copied = game.copy()
    check_same(game, copied, "copy")
    loaded = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    check_same(game, loaded, "from_dict")
    record = Record.from_game(game)
    replayed = replay(Record.from_json(record.to_json()))
    check_same(game, replayed, "record")
    if game.is_over():
        return
    action = random_action(game, rng)
    events = game.copy().apply(action)
    for other, how in ((copied, "copy"), (loaded, "from_dict"), (replayed, "record")):
        assert other.apply(action) == events, how


def check_positions(rules: Rules, seed: int, checks: int, max_steps: int) -> None:
    """Play one seeded game; check the round trips at ``checks`` random moments."""
    rng = random.Random(seed)
    game = Game(rules, seed)
    stops = sorted(rng.sample(range(max_steps), checks))
    step = 0
    for stop in stops:
        while step < stop and not game.is_over():
            game.apply(random_action(game, rng))
            step += 1
        check_round_trips(game, rng)
        if game.is_over():
            break


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_positions_of_every_preset_round_trip(preset: str) -> None:
    for seed in range(4):
        paired = Rules.preset(preset).teams == "pairs"
        rules = Rules.preset(preset, players=4 + 2 * (seed % 2) if paired else 2 + seed)
        check_positions(rules, seed, checks=5, max_steps=400)


def test_positions_of_random_rule_sets_round_trip() -> None:
    rng = random.Random(2026)
    for seed in range(24):
        check_positions(draw_rules(rng), seed, checks=3, max_steps=300)


# ----------------------------------------------------------- set-up positions
def _swap_position(rules: str, hand: str) -> Game:
    return Game.from_setup(rules, hands=[[parse_card(c) for c in hand.split()],
                                         [parse_card("B1"), parse_card("B2")],
                                         [parse_card("G1"), parse_card("G2")]],
                           draw_pile=[parse_card("Y1"), parse_card("Y2")],
                           discard=[parse_card("R3")], current_player=0)


def test_a_wild_swap_hands_position_round_trips_with_its_targets() -> None:
    game = _swap_position("official,players=3,extra_cards={WSW:1}", "WSW R5")
    texts = [A.format_action(a) for a in game.legal_actions(0)]
    assert "0:WSW>R@1" in texts and "0:WSW>R@2" in texts
    again = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    check_same(game, again, "from_dict")


def test_the_derived_state_of_a_set_up_position_is_computed_again_on_load() -> None:
    # A set-up deck without the Wild Swap Hands of the rules' deck plays the plain way;
    # the loaded game must derive the same from the cards it holds, not from the rules.
    game = _swap_position("official,players=3,extra_cards={WSW:1}", "R7 R5")
    again = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    check_same(game, again, "from_dict")
    action = game.legal_actions(0)[0]
    assert again.apply(action) == game.apply(action)


def test_a_wild_swap_hands_position_of_the_classic_deck_is_refused() -> None:
    # Without extra_cards the rules' deck holds no Wild Swap Hands: such a position was
    # built, and its saved state loaded into a game that offered the card without targets.
    with pytest.raises(SetupError, match="WSW is not a card of the rules' deck"):
        _swap_position("official,players=3", "WSW R5")
