"""Observations: what one seat may see, and nothing more."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import pick_action, rule_sets, seeds
from unokit.engine.actions import parse_action
from unokit.engine.cards import card_code, parse_card
from unokit.engine.events import EventKind, redact
from unokit.engine.game import Game, Phase
from unokit.engine.observation import Observation, observe
from unokit.engine.rules import Rules
from unokit.engine.scoring import partner
from unokit.testing.invariants import permuted


def cards(text: str) -> list[int]:
    return [parse_card(code) for code in text.split()]


def position(hands: list[str], *, draw: str = "", discard: str = "R3",
             rules: dict[str, object] | None = None) -> Game:
    data = {"preset": "official", "players": len(hands), **(rules or {})}
    return Game.from_setup(Rules.from_dict(data), hands=[cards(h) for h in hands],
                           draw_pile=cards(draw), discard=cards(discard))


def test_fields_of_a_fresh_game() -> None:
    game = Game(Rules.preset("official", players=3, dealer="seat0"), 2)
    view = game.observation(1)
    assert isinstance(view, Observation) and view == observe(game, 1)
    assert view.seat == 1
    assert view.phase == game.phase.value
    assert view.current_player == game.current_player
    assert view.hand == tuple(sorted(game.hands[1]))
    assert view.hand_sizes == tuple(len(h) for h in game.hands)
    assert view.draw_pile_size == len(game.draw_pile)
    assert view.discard == tuple(game.discard) and view.top == game.discard[-1]
    assert view.color == game.color and view.direction == game.direction
    assert view.scores == (0, 0, 0) and view.dealer == 0 and view.round == 1
    assert view.partner_hand is None and view.drawn_card is None
    assert view.round_winner is None and view.match_winner is None


def test_to_dict_is_json_ready_with_codes() -> None:
    game = position(["R5 W", "G1 G2"], draw="Y1")
    data = game.observation(0).to_dict()
    json.dumps(data)
    assert data["hand"] == ["R5", "W"]
    assert data["top"] == "R3" and data["color"] == "R" and data["direction"] == "cw"
    assert data["hand_sizes"] == [2, 2] and data["draw_pile_size"] == 1
    assert data["partner_hand"] is None and data["drawn_card"] is None


def test_no_other_hand_and_no_draw_pile_order() -> None:
    game = position(["R5 W", "G1 G2", "B7 B8"], draw="Y1 Y2 Y3")
    text = json.dumps(game.observation(0).to_dict())
    for code in ("G1", "G2", "B7", "B8", "Y1", "Y2", "Y3"):
        assert f'"{code}"' not in text


def test_drawn_card_only_for_the_drawer() -> None:
    game = position(["B1 B2", "G1 G2"], draw="R7")
    game.apply(parse_action("0:draw"))
    assert game.phase is Phase.DRAWN
    assert game.observation(0).drawn_card == parse_card("R7")
    assert game.observation(1).drawn_card is None
    assert game.observation(1).hand_sizes == (3, 2)


def test_uno_open_is_public() -> None:
    game = position(["R5 R6", "G1 G2 G3", "B1 B2"], draw="Y1")
    game.apply(parse_action("0:R5"))
    assert all(game.observation(s).uno_open == 0 for s in range(3))
    game.apply(parse_action("0:uno"))
    assert all(game.observation(s).uno_open is None for s in range(3))


def test_partner_hand_visible_only_with_the_rule() -> None:
    hands = ["R5 R6", "G1 G2", "B7 B8", "Y1 Y2"]
    seen = position(hands, rules={"teams": "pairs", "partner_hands_visible": True})
    for seat in range(4):
        mate = partner(seen.rules, seat)
        assert mate == (seat + 2) % 4
        assert seen.observation(seat).partner_hand == tuple(sorted(seen.hands[mate]))
    hidden = position(hands, rules={"teams": "pairs"})
    assert all(hidden.observation(s).partner_hand is None for s in range(4))


def test_spectator_sees_no_hand() -> None:
    game = position(["R5 R6", "G1 G2"])
    view = game.observation(-1)
    assert view.hand == () and view.partner_hand is None and view.hand_sizes == (2, 2)


def test_round_and_match_results_are_public() -> None:
    game = position(["R5", "G1 W", "B1"], rules={"target_score": 10})
    game.apply(parse_action("0:R5"))
    view = game.observation(2)
    assert view.phase == "match_over" and view.match_winner == 0 and view.round_winner == 0
    assert view.scores == (52, 0, 0) and view.current_player is None


def test_challenged_hand_goes_to_the_challenger_only() -> None:
    game = position(["W+4 R5 G1", "G2 G3", "B1 B2"], draw="Y1 Y2 Y3 Y4 Y5 Y6")
    game.apply(parse_action("0:W+4>B"))
    events = game.apply(parse_action("1:challenge"))
    shown = next(e for e in events if e.kind is EventKind.HAND_SHOWN)
    assert sorted(card_code(c) for c in redact(shown, 1).cards) == ["G1", "R5"]
    assert redact(shown, 2).cards == () and redact(shown, None).cards == ()
    assert redact(shown, 2).amount == 2


@pytest.mark.parametrize("seed", range(10))
def test_hidden_cards_do_not_change_any_observation_during_a_game(seed: int) -> None:
    rules = Rules.preset("pairs", partner_hands_visible=seed % 2 == 0)
    game = Game(rules, seed)
    rng = random.Random(seed)
    for _ in range(150):
        if game.is_over():
            break
        for seat in range(game.n):
            assert permuted(game, seat, rng).observation(seat) == game.observation(seat)
        game.apply(pick_action(game, rng))


@settings(max_examples=max(5, settings().max_examples // 2))
@given(rules=rule_sets(), seed=seeds, actor_seed=st.integers(0, 2**32))
def test_redacted_log_never_shows_another_seats_private_cards(rules: Rules, seed: int,
                                                              actor_seed: int) -> None:
    game = Game(rules, seed)
    rng = random.Random(actor_seed)
    for _ in range(300):
        if game.is_over():
            break
        game.apply(pick_action(game, rng))
    for event in game.log:
        for viewer in [None, *range(game.n)]:
            seen = redact(event, viewer)
            if viewer is None and event.kind is EventKind.ROUND_ENDED:
                # a spectator sees no hand, not even at the end of a round
                assert "hands" not in seen.data
                assert seen.data == {k: v for k, v in event.data.items() if k != "hands"}
                continue
            if event.visible_to is not None and viewer not in event.visible_to:
                assert seen.cards == ()
                assert seen._replace(cards=event.cards) == event
            else:
                assert seen == event
        if event.kind in (EventKind.DEALT, EventKind.DREW):
            owners = {event.player}
            if rules.partner_hands_visible:
                owners.add(partner(rules, event.player))
            assert set(event.visible_to or ()) == owners
