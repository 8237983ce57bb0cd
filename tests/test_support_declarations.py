"""Every component that plays only some rule sets declares its support for every rule key
(:mod:`unokit.engine.support`): the simulator, the search bot's playouts and the RL
environment's ``sim`` backend. A key added to the rules fails here until each declares
what it does with it; rule sets outside a component's support are refused by name."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from unokit.bots.playout import SUPPORT as PLAYOUT_SUPPORT
from unokit.bots.playout import Plain
from unokit.engine import rules as rules_module
from unokit.engine.errors import RulesError
from unokit.engine.rules import SPEC, KeySpec, Rules
from unokit.engine.support import Declaration, check_declaration, refusals
from unokit.rl.pettingzoo_env import SIM_BACKEND_SUPPORT, resolve_backend
from unokit.sim.support import SUPPORT as SIMULATOR_SUPPORT
from unokit.sim.support import check_supported, unsupported

DECLARATIONS: dict[str, Declaration] = {
    "the simulator": SIMULATOR_SUPPORT,
    "the playouts": PLAYOUT_SUPPORT,
    "the RL sim backend": SIM_BACKEND_SUPPORT,
}


@pytest.mark.parametrize("component", DECLARATIONS)
def test_every_key_is_declared(component: str) -> None:
    check_declaration(DECLARATIONS[component], component)
    assert set(DECLARATIONS[component]) == set(SPEC)


@pytest.mark.parametrize("component", DECLARATIONS)
def test_a_new_rule_key_fails_every_declaration(component: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    fake = KeySpec("fake_rule", "bool", False, (), 4, "a rule no component knows")
    monkeypatch.setitem(rules_module.SPEC, "fake_rule", fake)
    with pytest.raises(ValueError, match="no support declared for fake_rule"):
        check_declaration(DECLARATIONS[component], component)


@pytest.mark.parametrize("component", DECLARATIONS)
def test_an_undeclared_key_is_refused_not_played(component: str) -> None:
    """A declaration without an entry refuses the key at any value (it fails closed)."""
    partial = {k: v for k, v in DECLARATIONS[component].items() if k != "players"}
    assert set(refusals(partial, Rules.preset("official"), component)) == {"players"}


# ------------------------------------------------------------------ the simulator
SIM_ACCEPTED = [
    "official", "classic_ru,players=6", "stacking,players=10", "seven_o,players=2",
    "official,draw=until_playable,dealer=seat0,play_drawn=never",
    "official,scoring=penalty,going_out_bonus={W+4:50},lone_zero_points=50",
    "official,reverse_deflects_draw=true,draw_four_on_draw_two=stack,skip_on_skip=any",
    # (Keys that would change nothing here, such as blank_card_effect without blank
    # cards, are refused by the rules themselves: see Rules.inert_keys.)
]
SIM_REFUSED = [
    ("official,players=4,silence=twos", {"silence"}),
    ("official,extra_cards={WC:4}", {"extra_cards"}),
    ("official,scoring=elimination,rounds=3", {"scoring"}),
    ("official,false_catch_penalty=2,uno_slap=true,five_exchange=true",
     {"false_catch_penalty", "uno_slap", "five_exchange"}),
]
SIM_ONLY = [
    # Played by the simulator's own game loop, not by the RL backend's.
    ("party", {"jump_in"}),
    ("h2o", {"deck"}),
    ("attack", {"deck"}),
    ("pairs", {"teams"}),
    ("online,partner_hands_visible=true", {"teams", "partner_hands_visible"}),
    ("official,wild_color=next_in_circle", {"wild_color"}),
    ("official,misplay_penalty=2", {"misplay_penalty"}),
    ("official,scoring=lazy,rounds=3", {"scoring"}),
    ("official,progressive_refill=true", {"progressive_refill"}),
]


@pytest.mark.parametrize("text", SIM_ACCEPTED)
def test_simulator_accepts(text: str) -> None:
    check_supported(Rules.load(text))
    assert resolve_backend("sim", Rules.load(text)) == "sim"


@pytest.mark.parametrize(("text", "keys"), SIM_REFUSED)
def test_simulator_and_rl_backend_refuse_by_name(text: str, keys: set[str]) -> None:
    rules = Rules.load(text)
    assert set(unsupported(rules)) == keys
    for check in (check_supported, lambda r: resolve_backend("sim", r)):
        with pytest.raises(RulesError) as caught:
            check(rules)
        assert set(caught.value.keys) == keys
        assert "use the engine" in str(caught.value)
    assert resolve_backend("auto", rules) == "engine"


@pytest.mark.parametrize(("text", "keys"), SIM_ONLY)
def test_simulator_plays_what_the_rl_backend_refuses(text: str, keys: set[str]) -> None:
    rules = Rules.load(text)
    check_supported(rules)
    with pytest.raises(RulesError) as caught:
        resolve_backend("sim", rules)
    assert set(caught.value.keys) == keys
    assert resolve_backend("auto", rules) == "engine"


def test_simulator_messages_name_the_value_and_what_it_plays() -> None:
    problems = unsupported(Rules.load("official,scoring=elimination,extra_cards={WC:1}"))
    assert problems == {
        "extra_cards": "the simulator plays the decks as they are, without extra cards; "
                       "use the engine",
        "scoring": "the simulator does not play 'elimination' (only 'lazy', 'penalty', "
                   "'standard'); "
                   "use the engine",
    }


# ------------------------------------------------------------------ the playouts
PLAIN = [
    "official", "official,players=3,wild_draw_four=strict,draw=until_playable",
    "pairs", "jump_in", "official,play_drawn=never,challenge_guilty_takes_back=true",
    # Out-of-turn actions, calls, speech and scoring play no part in a playout.
    "official,uno_slap=true,silence=twos,misplay_penalty=2,scoring=lazy,rounds=2",
    "official,extra_cards={WC:2}",
]
NOT_PLAIN = [
    ("party", {"draw_two_on_draw_two", "draw_four_on_draw_four", "draw_four_on_draw_two",
               "seven_swap", "zero_rotate"}),
    ("seven_o", {"seven_swap", "zero_rotate"}),
    ("stacking", {"draw_two_on_draw_two", "draw_four_on_draw_four"}),
    ("attack", {"deck"}),
    ("h2o", {"deck"}),
    ("official,extra_cards={WSW:1}", {"extra_cards"}),
    ("official,extra_cards={WC:2},blank_card_effect=transparent", {"blank_card_effect"}),
    ("official,progressive_refill=true,multi_play=same_number,wild_color=next_in_circle",
     {"progressive_refill", "multi_play", "wild_color"}),
    ("official,five_exchange=true,skip_on_skip=same_color,reverse_deflects_draw=true",
     {"five_exchange", "skip_on_skip", "reverse_deflects_draw"}),
]


@pytest.mark.parametrize("text", PLAIN)
def test_playouts_accept(text: str) -> None:
    rules = Rules.load(text)
    assert Plain.refusals(rules) == {}
    assert Plain.of(rules) is not None


@pytest.mark.parametrize(("text", "keys"), NOT_PLAIN)
def test_playouts_refuse_by_name(text: str, keys: set[str]) -> None:
    rules = Rules.load(text)
    assert set(Plain.refusals(rules)) == keys
    assert Plain.of(rules) is None


def test_a_new_value_of_a_key_is_refused() -> None:
    """A value the schema gains later is refused by each component until declared (the
    constructor does not validate, so the rule set can hold a value the schema lacks)."""
    novel = Rules(draw="two")
    checks: list[Callable[[Rules], dict[str, str]]] = [
        unsupported, Plain.refusals, lambda r: unsupported(r, SIM_BACKEND_SUPPORT)]
    for check in checks:
        assert set(check(novel)) == {"draw"}
