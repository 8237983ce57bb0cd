"""Saved states from outside are checked in full (engine/state_check.py), and positions
set up with ``Game.from_setup`` or a scenario file hold only cards of the rules' deck.

Each tampered state must raise ``SetupError`` on load, with a message that starts with
the offending field's name; before the checks existed, each of them loaded and then
crashed, looped or played a game that cannot happen.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from unokit.engine import actions as A
from unokit.engine.cards import card_code, parse_card
from unokit.engine.errors import SetupError
from unokit.engine.game import STATE_FIELDS, Game, Phase
from unokit.engine.rules import Rules
from unokit.formats.state_io import state_from_json, state_to_json
from unokit.testing.scenario import run_file, run_scenario

State = dict[str, Any]


# ------------------------------------------------------------------ helpers
def _turn_action(game: Game, rng: random.Random) -> int:
    """A random action of the seat whose turn it is (any seat's between rounds), without
    UNO calls and catches, so that the game moves on."""
    seat = game.current_player
    if seat is None:
        seats = [s for s in range(game.n) if game.legal_actions(s)]
        seat = seats[0]
    acts = game.legal_actions(seat)
    moves = [a for a in acts if A.describe(a).type not in ("uno", "catch")]
    return rng.choice(moves or acts)


@cache
def _reached(rules: str, phase: Phase) -> str:
    """The JSON state of the first seeded game under ``rules`` to reach ``phase``."""
    for seed in range(1, 200):
        game, rng = Game(rules, seed), random.Random(seed)
        for _ in range(3000):
            if game.phase is phase:
                return state_to_json(game)
            if game.is_over():
                break
            game.apply(_turn_action(game, rng))
    raise AssertionError(f"no game under {rules} reached phase {phase.value}")


def state(phase: Phase = Phase.PLAY, rules: str = "official,players=3") -> State:
    """A fresh copy of a saved state in ``phase``."""
    data: State = json.loads(_reached(rules, phase))
    assert Game.from_dict(data).phase is phase  # the untampered state loads
    return data


def refused(data: State, field: str) -> str:
    """Load a state that must be refused; the message, which must start with ``field``."""
    with pytest.raises(SetupError) as info:
        Game.from_dict(data)
    message = str(info.value)
    assert message.startswith(field), message
    return message


def _rebuild_deck(data: State) -> None:
    """Make ``deck`` hold exactly the cards of the hands and piles again."""
    cards = [c for hand in data["hands"] for c in hand] + data["draw_pile"] + data["discard"]
    data["deck"] = [card_code(k) for k in sorted(parse_card(c) for c in cards)]


def _cards_not_in(data: State, seat: int) -> str:
    """A card of the deck that seat ``seat`` does not hold."""
    return next(c for c in data["deck"] if c not in data["hands"][seat])


# ------------------------------------------------------- each field on its own
Tamper = Callable[[State], None]


def _set(field: str, value: Any) -> Tamper:
    def tamper(data: State) -> None:
        data[field] = value
    return tamper


def _set_item(field: str, index: int, value: Any) -> Tamper:
    def tamper(data: State) -> None:
        data[field][index] = value
    return tamper


def _extra_cards(data: State) -> None:
    data["hands"][0] += ["R5"] * 10_000


def _duplicate(data: State) -> None:
    data["hands"][0].append(data["hands"][0][0])


def _remove(data: State) -> None:
    data["draw_pile"].pop()


def _cut_deck(data: State) -> None:
    data["deck"] = data["deck"][:50]


def _foreign(data: State) -> None:
    data["hands"][0][0] = "RTH"
    _rebuild_deck(data)


def _too_many(data: State) -> None:
    data["hands"][0] += ["W+4"] * 4  # 8 with the deck's 4
    data["draw_pile"] = [c for c in data["draw_pile"] if c != "W+4"]
    _rebuild_deck(data)


def _shuffled_deck(data: State) -> None:
    data["deck"] = data["deck"][::-1]


def _bad_code(data: State) -> None:
    data["hands"][1][0] = "R99"


SINGLE_FIELD: list[tuple[str, Tamper, str]] = [
    # the cards
    ("a hand of 10,000 extra cards", _extra_cards, "deck"),
    ("a duplicated card", _duplicate, "deck"),
    ("a card removed", _remove, "deck"),
    ("a deck cut to 50", _cut_deck, "deck"),
    ("an Attack card in a classic game", _foreign, "deck"),
    ("more Wild Draw Fours than the deck has", _too_many, "deck"),
    ("a deck out of canonical order", _shuffled_deck, "deck"),
    ("an unknown card code", _bad_code, "hands[1][0]"),
    ("hands for two of three seats", lambda d: d["hands"].pop(), "hands"),
    ("a hand that is a string", _set_item("hands", 0, "R5"), "hands[0]"),
    ("draw_pile not a list", _set("draw_pile", {"R5": 1}), "draw_pile"),
    # numbers and their types
    ("a negative score", _set_item("scores", 1, -5), "scores[1]"),
    ("a score that is text", _set_item("scores", 1, "abc"), "scores[1]"),
    ("a score that is a bool", _set_item("scores", 1, True), "scores[1]"),
    ("scores that are text", _set("scores", "abc"), "scores"),
    ("a negative round_points", _set_item("round_points", 0, -1), "round_points[0]"),
    ("rng_state 2**70", _set("rng_state", 2**70), "rng_state"),
    ("rng_state -1", _set("rng_state", -1), "rng_state"),
    ("rng_state a float", _set("rng_state", 5.0), "rng_state"),
    ("seed 2**64", _set("seed", 2**64), "seed"),
    ("seed true", _set("seed", True), "seed"),
    ("direction 0", _set("direction", 0), "direction"),
    ("direction 5", _set("direction", 5), "direction"),
    ("direction true", _set("direction", True), "direction"),
    ("pending -4", _set("pending", -4), "pending"),
    ("pending larger than the deck can ask", _set("pending", 10**6), "pending"),
    ("seq -1", _set("seq", -1), "seq"),
    ("idle a float", _set("idle", 0.0), "idle"),
    ("round_no 0", _set("round_no", 0), "round_no"),
    ("round_wins -1", _set_item("round_wins", 2, -1), "round_wins[2]"),
    ("round_losses of two seats", _set("round_losses", [0, 0]), "round_losses"),
    ("levels 0", _set_item("levels", 0, 0), "levels[0]"),
    ("levels above the hand size", _set_item("levels", 0, 8), "levels[0]"),
    ("launcher with a negative count", _set("launcher", [1, -1]), "launcher[1]"),
    ("a bool that is a number", _set("wd4_guilty", 1), "wd4_guilty"),
    ("fresh that is text", _set("fresh", "no"), "fresh"),
    # seats, colours, cards as numbers, phases
    ("dealer 99", _set("dealer", 99), "dealer"),
    ("dealer -1", _set("dealer", -1), "dealer"),
    ("current true", _set("current", True), "current"),
    ("uno_open 99", _set("uno_open", 99), "uno_open"),
    ("wd4_by 3 of three seats", _set("wd4_by", 3), "wd4_by"),
    ("round_winner -2", _set("round_winner", -2), "round_winner"),
    ("silence_seat 10", _set("silence_seat", 10), "silence_seat"),
    ("finish_order [7, 7]", _set("finish_order", [7, 7]), "finish_order[0]"),
    ("finish_order [1, 1]", _set("finish_order", [1, 1]), "finish_order"),
    ("slap_left [0, 0]", _set("slap_left", [0, 0]), "slap_left"),
    ("color 9", _set("color", 9), "color"),
    ("wd4_color 4", _set("wd4_color", 4), "wd4_color"),
    ("silence_color -2", _set("silence_color", -2), "silence_color"),
    ("match 200", _set("match", 200), "match"),
    ("wd4_match a code", _set("wd4_match", "R5"), "wd4_match"),
    ("pending_kind 3", _set("pending_kind", 3), "pending_kind"),
    ("drawn not a code", _set("drawn", 5), "drawn"),
    ("phase unknown", _set("phase", "dancing"), "phase"),
    ("resume_phase unknown", _set("resume_phase", None), "resume_phase"),
    ("active of the wrong length", _set("active", [True, True]), "active"),
    ("active not bools", _set("active", [1, 1, 1]), "active[0]"),
    ("in_match of the wrong length", _set("in_match", [True] * 4), "in_match"),
    # the file itself
    ("a broken rule set", _set("rules", {"preset": "official", "players": 1}), "rules"),
    ("rules for four players", _set("rules", {"preset": "official", "players": 4}), "hands"),
    ("an unknown field", _set("cheat", 1), "state fields unknown"),
    ("format_version true", _set("format_version", True), "unknown state format version"),
]


@pytest.mark.parametrize(("what", "tamper", "field"), SINGLE_FIELD,
                         ids=[case[0] for case in SINGLE_FIELD])
def test_a_tampered_field_is_refused(what: str, tamper: Tamper, field: str) -> None:
    data = state()
    tamper(data)
    refused(data, field)


def test_a_missing_field_is_named() -> None:
    data = state()
    del data["launcher"]
    assert refused(data, "state fields missing") == "state fields missing: launcher"


def test_long_values_are_cut_in_messages() -> None:
    data = state()
    data["phase"] = "x" * 10_000
    assert len(refused(data, "phase")) < 200
    data = state()
    data["seed"] = 10**5000
    assert "bits" in refused(data, "seed")


# --------------------------------------------------------- fields together
def _all_out(data: State) -> None:
    data["active"] = [False, False, False]


def _one_left(data: State) -> None:
    data["active"] = [True, False, False]
    data["current"] = 0


def _current_out(data: State) -> None:
    data["active"][data["current"]] = False


def _not_in_match(data: State) -> None:
    data["in_match"][data["current"]] = False


def _first_next_out(data: State) -> None:
    seat = (data["current"] + 1) % 3
    data["active"][seat] = data["in_match"][seat] = False
    data["first_next"] = seat


def _drawn_elsewhere(data: State) -> None:
    data["drawn"] = _cards_not_in(data, data["current"])


def _exchange_from_none(data: State) -> None:
    data["phase"] = "exchange"
    data["exchange_from"] = -1


def _slap_alone(data: State) -> None:
    data["slap_left"] = data["slap_left"][:1]


def _top_not_wd4(data: State) -> None:
    data["discard"][-1], data["discard"][0] = data["discard"][0], data["discard"][-1]
    assert data["discard"][-1] != "W+4"


OFFICIAL_3 = "official,players=3"
TOGETHER: list[tuple[str, Phase, str, Tamper, str]] = [
    ("no seat in the round", Phase.PLAY, OFFICIAL_3, _all_out, "active"),
    ("one seat in the round", Phase.PLAY, OFFICIAL_3, _one_left, "active"),
    ("the current player out of the round", Phase.PLAY, OFFICIAL_3, _current_out, "current"),
    ("a seat in the round but not the match", Phase.PLAY, OFFICIAL_3, _not_in_match, "active"),
    ("first_next out of the match", Phase.PLAY, OFFICIAL_3, _first_next_out, "first_next"),
    ("no current player in play", Phase.PLAY, OFFICIAL_3, _set("current", -1), "current"),
    ("round_no past the rounds", Phase.PLAY, "official,players=3,rounds=2",
     _set("round_no", 3), "round_no"),
    ("challenge with nothing pending", Phase.PLAY, OFFICIAL_3,
     _set("phase", "challenge"), "pending"),
    ("challenge without the player of the Wild Draw Four", Phase.CHALLENGE, OFFICIAL_3,
     _set("wd4_by", -1), "wd4_by"),
    ("challenge by the player of the Wild Draw Four", Phase.CHALLENGE, OFFICIAL_3,
     lambda d: d.update(wd4_by=d["current"]), "wd4_by"),
    ("challenge with another card on top", Phase.CHALLENGE, OFFICIAL_3, _top_not_wd4,
     "discard"),
    ("challenge with a Draw Two pending", Phase.CHALLENGE, OFFICIAL_3,
     _set("pending_kind", 12), "pending"),
    ("respond with nothing pending", Phase.RESPOND, "stacking,players=3",
     _set("pending", 0), "pending"),
    ("drawn not in the current hand", Phase.DRAWN, OFFICIAL_3, _drawn_elsewhere, "drawn"),
    ("drawn none in phase drawn", Phase.DRAWN, OFFICIAL_3, _set("drawn", None), "drawn"),
    ("choose_color with no discard pile", Phase.PLAY, OFFICIAL_3,
     lambda d: d.update(phase="choose_color", draw_pile=d["draw_pile"] + d["discard"],
                        discard=[]), "discard"),
    ("exchange with nobody to give back to", Phase.PLAY, OFFICIAL_3, _exchange_from_none,
     "exchange_from"),
    ("a slap with one seat left to slap", Phase.SLAP, "official,players=3,uno_slap=true",
     _slap_alone, "slap_left"),
    ("a slap that returns to the end of the round", Phase.SLAP,
     "official,players=3,uno_slap=true", _set("resume_phase", "round_over"), "resume_phase"),
    ("a slap that returns to nobody", Phase.SLAP, "official,players=3,uno_slap=true",
     _set("resume_current", -1), "resume_current"),
    ("a slap with a current player", Phase.SLAP, "official,players=3,uno_slap=true",
     _set("current", 0), "current"),
    ("a match winner while the match goes on", Phase.PLAY, OFFICIAL_3,
     _set("match_winner", 0), "match_winner"),
    ("a finished match without a winner", Phase.MATCH_OVER, "official,players=3,rounds=1",
     _set("match_winner", -1), "match_winner"),
    ("a finished round without a winner", Phase.ROUND_OVER, "official,players=3,rounds=2",
     _set("round_winner", -1), "round_winner"),
    ("a current player between rounds", Phase.ROUND_OVER, "official,players=3,rounds=2",
     _set("current", 1), "current"),
    ("one seat left in a match that goes on", Phase.ROUND_OVER, "official,players=3,rounds=2",
     _set("in_match", [True, False, False]), "in_match"),
]


@pytest.mark.parametrize(("what", "phase", "rules", "tamper", "field"), TOGETHER,
                         ids=[case[0] for case in TOGETHER])
def test_fields_that_do_not_fit_together_are_refused(what: str, phase: Phase, rules: str,
                                                     tamper: Tamper, field: str) -> None:
    data = state(phase, rules)
    tamper(data)
    refused(data, field)


def test_no_seat_in_the_round_is_refused_before_it_can_loop() -> None:
    # Loaded, this state made the next action search for ever for a seat to play.
    data = state()
    data["active"] = [False] * 3
    assert refused(data, "active") == "active: 0 seats are in the round: a round needs two"


def test_state_json_goes_through_the_same_checks() -> None:
    data = state()
    data["direction"] = 5
    with pytest.raises(SetupError, match=r"^direction: expected 1 or -1, got 5$"):
        state_from_json(json.dumps(data))


def test_every_state_field_has_a_check() -> None:
    from unokit.engine.state_check import READERS

    assert set(READERS) == set(STATE_FIELDS)


# ------------------------------------------------------ what still loads
def test_cards_moved_between_places_still_load_and_play() -> None:
    data = state()
    data["hands"][0].append(data["draw_pile"].pop(0))
    game = Game.from_dict(data)
    assert game.hand_sizes()[0] == len(data["hands"][0])
    rng = random.Random(3)
    for _ in range(50):
        if game.is_over():
            break
        game.apply(_turn_action(game, rng))


def test_a_position_with_part_of_the_deck_round_trips() -> None:
    game = Game.from_setup("official,players=2", hands=[[parse_card("R5")], [parse_card("G1")]],
                           draw_pile=[parse_card("Y1")], discard=[parse_card("R3")])
    again = Game.from_dict(json.loads(state_to_json(game)))
    assert again == game and again.legal_actions(0) == game.legal_actions(0)


def test_a_position_with_more_cards_than_the_deck_does_not_load() -> None:
    # from_setup takes any number of each card; a saved state holds at most the deck's.
    game = Game.from_setup("official,players=2", hands=[[parse_card("R5")] * 3,
                                                        [parse_card("G1")]],
                           draw_pile=[parse_card("Y1")], discard=[parse_card("R3")])
    with pytest.raises(SetupError, match=r"^deck: 3 R5, but the rules' deck has 2$"):
        Game.from_dict(game.to_dict())


def test_a_going_out_bonus_allows_negative_totals() -> None:
    data = state(rules="official,players=3,scoring=penalty,going_out_bonus={W:50}")
    data["scores"] = [-50, 10, 0]
    assert Game.from_dict(data).scores == [-50, 10, 0]


# ------------------------------------------------ set-ups: only the deck's cards
def _setup(rules: str, hand: str, **more: Any) -> Game:
    return Game.from_setup(rules, hands=[[parse_card(c) for c in hand.split()],
                                         [parse_card("B1"), parse_card("B2")]],
                           draw_pile=[parse_card("Y1"), parse_card("Y2")],
                           discard=[parse_card("R3")], current_player=0, **more)


@pytest.mark.parametrize(("rules", "hand", "card"), [
    ("official,players=2", "RTH R5", "RTH"),
    ("official,players=2", "RH2 R5", "RH2"),
    ("official,players=2", "WSW R5", "WSW"),
    ("h2o,players=2", "WAH R5", "WAH"),
    ("attack,players=2", "W+4 R5", "W+4"),
    ("attack,players=2", "R0 R5", "R0"),
])
def test_a_set_up_card_outside_the_rules_deck_is_refused(rules: str, hand: str,
                                                         card: str) -> None:
    with pytest.raises(SetupError, match=f"^hands: {re.escape(card)} is not a card of "):
        _setup(rules, hand)


def test_the_refusal_says_when_extra_cards_can_add_the_card() -> None:
    with pytest.raises(SetupError, match=r"\(classic; extra_cards may add it\)$"):
        _setup("official,players=2", "WSW R5")
    game = _setup("official,players=2,extra_cards={WSW:1}", "WSW R5")
    assert "0:WSW>R@1" in [A.format_action(a) for a in game.legal_actions(0)]


def test_set_up_cards_in_every_place_are_checked() -> None:
    for place in ("draw_pile", "discard"):
        cards = {"draw_pile": [parse_card("Y1")], "discard": [parse_card("R3")]}
        cards[place] = [parse_card("GDA"), *cards[place]]
        with pytest.raises(SetupError, match=f"^{place}: GDA is not a card"):
            Game.from_setup("official,players=2", hands=[[parse_card("R5")],
                                                         [parse_card("B1")]], **cards)


def test_a_set_up_card_number_out_of_range_is_refused() -> None:
    with pytest.raises(SetupError, match=r"^hands: 99 is not a card$"):
        Game.from_setup("official,players=2", hands=[[99], [parse_card("B1")]],
                        draw_pile=[], discard=[parse_card("R3")])


def test_a_set_up_colour_out_of_range_is_refused() -> None:
    with pytest.raises(SetupError, match=r"^color 9 is not a colour"):
        _setup("official,players=2", "R5 R6", color=9)


def test_more_copies_of_a_deck_card_are_still_accepted() -> None:
    game = _setup("official,players=2", " ".join(["R5"] * 12))
    assert game.hand_sizes() == [12, 2] and len(game.deck) == 17


def test_a_scenario_with_a_card_outside_the_deck_fails_with_its_name(tmp_path: Path) -> None:
    scenario = {"name": "f", "setup": {"hands": [["RTH", "R5"], ["B1", "B2"]],
                                       "discard": ["R3"], "draw_pile": ["Y1", "Y2"],
                                       "current_player": 0},
                "steps": [{"do": {"player": 0, "play": "RTH", "target": 1}}]}
    result = run_scenario(scenario)
    assert not result.passed and "RTH is not a card of the rules' deck" in result.message
    path = tmp_path / "f.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    assert "RTH is not a card of the rules' deck" in run_file(path).line()
    scenario["rules"] = {"preset": "attack"}
    assert run_scenario(scenario).passed


def test_loaded_rules_keep_their_identity() -> None:
    data = state()
    assert Game.from_dict(data).rules == Rules.from_dict(data["rules"])
