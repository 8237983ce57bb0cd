"""Rule sets: defaults (RULES.md section 8), presets (section 7), loading, round trips
and the errors that name the offending keys."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given

from strategies import rule_dicts
from unokit.engine.errors import RulesError, UnoError
from unokit.engine.rules import KEYS, PRESET_MEANINGS, PRESETS, SPEC, Rules, rule_fields

# RULES.md section 8, written out: key -> (default, section).
DEFAULTS: dict[str, Any] = {
    "players": 4,
    "hand_size": 7,
    "deck": "classic",
    "extra_cards": (),
    "dealer": "high_card",
    "first_card": "official",
    "draw": "one",
    "play_drawn": "may",
    "draw_when_playable": True,
    "two_player_reverse_skips": True,
    "wild_draw_four": "challenge",
    "challenge_guilty_draw": 4,
    "challenge_innocent_draw": 6,
    "challenge_guilty_takes_back": False,
    "uno_penalty": 2,
    "uno_self_catch": True,
    "false_catch_penalty": 0,
    "misplay_penalty": 0,
    "scoring": "standard",
    "target_score": 500,
    "rounds": None,
    "lone_zero_points": 0,
    "going_out_bonus": (),
    "teams": "none",
    "partner_hands_visible": False,
    "play_to_last": False,
    "progressive_refill": False,
    "draw_two_on_draw_two": "none",
    "draw_four_on_draw_four": "none",
    "draw_two_on_draw_four": "none",
    "draw_four_on_draw_two": "none",
    "reverse_deflects_draw": False,
    "skip_on_skip": "none",
    "jump_in": False,
    "seven_swap": False,
    "zero_rotate": False,
    "seven_zero_last_card": "no_effect",
    "five_exchange": False,
    "multi_play": "off",
    "uno_slap": False,
    "silence": "off",
    "silence_penalty": 2,
    "wild_color": "chosen",
    "blank_card_effect": "wild",
    "launcher_fire_chance": 0.3,
    "launcher_max_burst": 6,
}

# The "values" column of section 8 for the keys with a fixed set of values.
CHOICES = {
    "deck": ("classic", "h2o", "attack"),
    "dealer": ("high_card", "random", "seat0"),
    "first_card": ("official", "number_only"),
    "draw": ("one", "until_playable"),
    "play_drawn": ("may", "must", "never"),
    "wild_draw_four": ("challenge", "strict", "free"),
    "scoring": ("standard", "penalty", "elimination", "lazy"),
    "teams": ("none", "pairs"),
    "draw_two_on_draw_two": ("none", "deflect", "stack"),
    "draw_four_on_draw_four": ("none", "stack"),
    "draw_two_on_draw_four": ("none", "deflect", "stack"),
    "draw_four_on_draw_two": ("none", "stack"),
    "skip_on_skip": ("none", "same_color", "any"),
    "seven_zero_last_card": ("no_effect", "apply"),
    "multi_play": ("off", "same_number"),
    "silence": ("off", "twos", "wilds"),
    "wild_color": ("chosen", "next_in_circle"),
    "blank_card_effect": ("wild", "transparent", "draw_ten"),
}

# RULES.md section 7.
EXPECTED_PRESETS: dict[str, dict[str, Any]] = {
    "official": {},
    "classic_ru": {
        "first_card": "number_only", "draw_when_playable": False,
        "draw_two_on_draw_two": "deflect", "draw_two_on_draw_four": "deflect",
        "skip_on_skip": "same_color", "challenge_guilty_takes_back": True,
    },
    "stacking": {"draw_two_on_draw_two": "stack", "draw_four_on_draw_four": "stack"},
    "seven_o": {"seven_swap": True, "zero_rotate": True},
    "jump_in": {"jump_in": True},
    "party": {
        "draw_two_on_draw_two": "stack", "draw_four_on_draw_four": "stack",
        "draw_four_on_draw_two": "stack", "seven_swap": True, "zero_rotate": True,
        "jump_in": True, "draw": "until_playable",
    },
    "attack": {"deck": "attack"},
    "h2o": {"deck": "h2o"},
    "pairs": {"teams": "pairs", "players": 4},
    # beyond section 7: the seeds' online game (seed 002), the game server's first preset
    "online": {"teams": "pairs", "players": 4, "draw_two_on_draw_two": "stack",
               "target_score": 100},
}
SUPPORTED_PRESETS = set(PRESETS)


def named_keys(error: RulesError) -> set[str]:
    """Every key an error names (a combination problem names several, comma-separated)."""
    return {part.strip() for key in error.keys for part in key.split(",")}


def raises_naming(data: Any, *keys: str) -> RulesError:
    with pytest.raises(RulesError) as info:
        Rules.from_dict(data)
    assert set(keys) <= named_keys(info.value), info.value
    for key in keys:
        assert key in str(info.value)
    return info.value


# ---------------------------------------------------------------- defaults
def test_defaults_equal_section_8() -> None:
    rules = Rules()
    assert rule_fields() == list(DEFAULTS), "keys in the order of section 8"
    assert [spec.name for spec in KEYS] == list(DEFAULTS)
    for key, value in DEFAULTS.items():
        assert getattr(rules, key) == value, key
        assert SPEC[key].default == value, key
    assert Rules.from_dict({}) == rules
    assert Rules.preset("official") == rules
    assert Rules.from_string("official") == rules
    assert rules.preset_name == "official"


def test_choices_equal_section_8() -> None:
    for key, choices in CHOICES.items():
        assert SPEC[key].kind == "choice", key
        assert SPEC[key].choices == choices, key
    assert SPEC["players"].choices == (2, 10)
    assert SPEC["hand_size"].choices == (1, 15)
    assert SPEC["launcher_fire_chance"].choices == (0.0, 1.0)
    for key, default in DEFAULTS.items():
        if isinstance(default, bool):
            assert SPEC[key].kind == "bool", key


def test_sections() -> None:
    section_2 = {"players", "hand_size", "deck", "extra_cards", "dealer", "first_card", "draw",
                 "play_drawn", "draw_when_playable", "two_player_reverse_skips",
                 "wild_draw_four", "challenge_guilty_draw", "challenge_innocent_draw",
                 "challenge_guilty_takes_back", "uno_penalty", "uno_self_catch",
                 "false_catch_penalty", "misplay_penalty"}
    section_3 = {"scoring", "target_score", "rounds", "lone_zero_points", "going_out_bonus",
                 "teams", "partner_hands_visible", "play_to_last", "progressive_refill"}
    for spec in KEYS:
        if spec.name in section_2:
            assert spec.section == 2, spec.name
        elif spec.name in section_3:
            assert spec.section == 3, spec.name
        else:
            assert spec.section >= 4, spec.name
        assert spec.meaning


# ----------------------------------------------------------------- presets
def test_preset_table_equals_section_7() -> None:
    assert PRESETS == EXPECTED_PRESETS
    assert set(PRESET_MEANINGS) == set(PRESETS)


@pytest.mark.parametrize("name", sorted(SUPPORTED_PRESETS))
def test_supported_presets_load(name: str) -> None:
    rules = Rules.preset(name)
    assert rules.preset_name == name
    for key, value in EXPECTED_PRESETS[name].items():
        assert getattr(rules, key) == value
    for key, value in DEFAULTS.items():
        if key not in EXPECTED_PRESETS[name]:
            assert getattr(rules, key) == value
    assert Rules.from_string(name) == rules
    assert Rules.from_dict({"preset": name}) == rules
    assert rules.to_string() == name
    assert rules.to_dict() == {"preset": name}


def test_pairs_preset_overrides() -> None:
    rules = Rules.preset("pairs", players=6, partner_hands_visible=True)
    assert (rules.teams, rules.players, rules.partner_hands_visible) == ("pairs", 6, True)
    assert rules.to_string() == "pairs,players=6,partner_hands_visible=true"
    assert Rules.from_string(rules.to_string()) == rules


def test_unknown_preset() -> None:
    raises_naming({"preset": "house"}, "preset")
    raises_naming({"preset": 3}, "preset")
    with pytest.raises(RulesError):
        Rules.from_string("Official")


# ------------------------------------------------------- loading and output
def test_from_dict_json_toml_string_agree() -> None:
    expected = Rules.preset("official", players=3, target_score=200, extra_cards={"WC": 4},
                            rounds=5, dealer="seat0")
    assert Rules.from_json(
        '{"preset": "official", "players": 3, "target_score": 200, '
        '"extra_cards": {"WC": 4}, "rounds": 5, "dealer": "seat0"}'
    ) == expected
    toml = (
        'preset = "official"\nplayers = 3\ntarget_score = 200\nrounds = 5\n'
        'dealer = "seat0"\nextra_cards = { WC = 4 }\n'
    )
    assert Rules.from_toml(toml) == expected
    assert Rules.from_toml("[rules]\n" + toml) == expected
    assert Rules.from_string(
        "official, players=3, target_score=200, extra_cards={WC:4}, rounds=5, dealer=seat0"
    ) == expected
    assert expected.to_string() == (
        "official,players=3,extra_cards={WC:4},dealer=seat0,target_score=200,rounds=5"
    )


def test_load_accepts_everything() -> None:
    rules = Rules.preset("official", players=2)
    assert Rules.load(rules) is rules
    assert Rules.load({"players": 2}) == rules
    assert Rules.load("official,players=2") == rules
    assert Rules.load(' {"players": 2} ') == rules
    assert Rules.load("pairs") == Rules.preset("pairs")


def test_to_dict_full_and_with() -> None:
    rules = Rules.preset("official", scoring="penalty", going_out_bonus={"W+4": 50})
    full = rules.to_dict(full=True)
    assert set(full) == {"preset", *DEFAULTS}
    assert full["going_out_bonus"] == {"W+4": 50}
    assert Rules.from_dict(full) == rules
    assert rules.to_dict() == {"preset": "official", "scoring": "penalty",
                               "going_out_bonus": {"W+4": 50}}
    assert rules.with_(players=5).players == 5
    assert rules.with_(players=5).going_out_bonus == (("W+4", 50),)
    with pytest.raises(RulesError):
        rules.with_(players=1)
    assert json.loads(rules.to_json()) == rules.to_dict()


def test_rounds_none_and_maps_in_strings() -> None:
    rules = Rules.from_string("official,rounds=3,scoring=lazy")
    assert rules.rounds == 3
    assert Rules.from_string("official,rounds=none") == Rules()
    two = Rules.from_string("official,extra_cards={WC:3},scoring=penalty,"
                            "going_out_bonus={W:20,R0:5}")
    assert two.extra_cards == (("WC", 3),)
    assert two.going_out_bonus_dict() == {"W": 20, "R0": 5}
    assert two.extra_cards_dict() == {"WC": 3}
    assert len(two.deck_cards()) == 111


def test_zero_counts_are_dropped() -> None:
    assert Rules.preset("official", extra_cards={"WC": 0}) == Rules()


def toml_of(data: dict[str, Any]) -> str:
    """A tiny TOML writer for rule mappings (the standard library only reads TOML)."""
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, dict):
            return "{ " + ", ".join(f'"{k}" = {value(x)}' for k, x in v.items()) + " }"
        if isinstance(v, str):
            return json.dumps(v)
        return repr(v)
    return "".join(f"{k} = {value(v)}\n" for k, v in data.items() if v is not None)


@given(rule_dicts(small=False))
def test_round_trips_over_random_rule_sets(data: dict[str, Any]) -> None:
    rules = Rules.from_dict(data)
    assert Rules.from_string(rules.to_string()) == rules
    assert Rules.from_json(rules.to_json()) == rules
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_dict(rules.to_dict(full=True)) == rules
    assert Rules.from_toml(toml_of(rules.to_dict())) == rules
    assert Rules.load(rules.to_string()) == rules
    assert rules.to_string() == Rules.from_string(rules.to_string()).to_string()
    assert hash(rules) == hash(Rules.from_string(rules.to_string()))
    for key, value in data.items():
        expected = tuple(sorted(value.items())) if isinstance(value, dict) else value
        if isinstance(value, dict):
            assert dict(getattr(rules, key)) == {k: v for k, v in value.items() if v}
        else:
            assert getattr(rules, key) == expected, key


# ------------------------------------------------------------------ errors
def test_unknown_keys() -> None:
    error = raises_naming({"colour": 1, "jump_in": "yes"}, "colour", "jump_in")
    assert error.problems["colour"].startswith("unknown key")
    raises_naming({"Players": 3}, "Players")
    with pytest.raises(RulesError) as info:
        Rules.from_string("official,stack=true")
    assert info.value.keys == ("stack",)
    with pytest.raises(RulesError) as info:
        Rules.from_toml('preset = "official"\n[house]\njump_in = true\n')
    assert "house" in info.value.keys


@pytest.mark.parametrize("key, value", [
    ("players", "4"), ("players", 4.0), ("players", True), ("players", None),
    ("hand_size", [7]), ("jump_in", "yes"), ("draw_when_playable", 1),
    ("uno_self_catch", "true"), ("target_score", True), ("target_score", 1.5),
    ("rounds", "3"), ("rounds", 2.0), ("dealer", 0), ("dealer", "HIGH_CARD"),
    ("scoring", "points"), ("deck", 1), ("extra_cards", [["WC", 1]]),
    ("extra_cards", "WC"), ("extra_cards", {"WC": "1"}), ("extra_cards", {"WC": True}),
    ("extra_cards", {"XX": 1}), ("extra_cards", {"W": 1}), ("going_out_bonus", {"W": 1.5}),
    ("going_out_bonus", {"w": 10}), ("launcher_fire_chance", "0.3"),
    ("launcher_fire_chance", True), ("teams", True), ("draw", None),
])
def test_wrong_types_name_the_key(key: str, value: Any) -> None:
    raises_naming({key: value}, key)


@pytest.mark.parametrize("key, value", [
    ("players", 1), ("players", 11), ("players", 0), ("players", -4), ("hand_size", 0),
    ("hand_size", 16), ("challenge_guilty_draw", -1), ("challenge_guilty_draw", 51),
    ("challenge_innocent_draw", -1), ("uno_penalty", -1), ("uno_penalty", 51),
    ("false_catch_penalty", -2), ("misplay_penalty", 51), ("target_score", 0),
    ("target_score", -500), ("rounds", 0), ("lone_zero_points", -1),
    ("lone_zero_points", 1001), ("extra_cards", {"WC": -1}), ("extra_cards", {"WC": 1001}),
    ("launcher_fire_chance", 1.5), ("launcher_fire_chance", -0.1),
    ("launcher_max_burst", 0), ("silence_penalty", -1),
])
def test_out_of_range_values_name_the_key(key: str, value: Any) -> None:
    error = raises_naming({key: value}, key)
    assert str(value) in error.problems[key] or key in ("extra_cards",)


def test_every_problem_is_reported_at_once() -> None:
    error = raises_naming({"players": 11, "jump_in": "yes", "colour": 1, "hand_size": 0},
                          "players", "jump_in", "colour", "hand_size")
    assert error.keys == tuple(sorted(error.keys))
    assert isinstance(error, UnoError) and isinstance(error, ValueError)


@pytest.mark.parametrize("data, keys", [
    ({"teams": "pairs", "players": 3}, ("teams", "players")),
    ({"teams": "pairs", "players": 2}, ("teams", "players")),
    ({"teams": "pairs", "players": 5}, ("teams", "players")),
    ({"teams": "pairs", "players": 9}, ("teams", "players")),
    ({"scoring": "lazy"}, ("scoring", "rounds")),
    ({"partner_hands_visible": True}, ("partner_hands_visible", "teams")),
    ({"players": 10, "hand_size": 11}, ("players", "hand_size")),
    ({"players": 9, "hand_size": 12}, ("players", "hand_size")),
    ({"players": 8, "hand_size": 14}, ("players", "hand_size")),
    ({"going_out_bonus": {"W+4": 50}}, ("going_out_bonus", "scoring")),
    ({"going_out_bonus": {"WD1": 20}, "scoring": "lazy", "rounds": 2},
     ("going_out_bonus", "scoring")),
    ({"teams": "pairs", "scoring": "elimination"}, ("teams", "scoring")),
    ({"teams": "pairs", "scoring": "lazy", "rounds": 3}, ("teams", "scoring")),
    ({"teams": "pairs", "play_to_last": True}, ("teams", "play_to_last")),
    ({"scoring": "elimination", "players": 2}, ("scoring", "players")),
])
def test_impossible_combinations_name_the_keys(data: dict[str, Any],
                                               keys: tuple[str, ...]) -> None:
    raises_naming(data, *keys)


@pytest.mark.parametrize("data", [
    {"teams": "pairs", "players": 4},
    {"teams": "pairs", "players": 10, "partner_hands_visible": True},
    {"scoring": "lazy", "rounds": 1},
    {"players": 10, "hand_size": 10},
    {"players": 9, "hand_size": 11},
    {"players": 9, "hand_size": 12, "extra_cards": {"WC": 1}},
    {"players": 2, "hand_size": 15},
    {"going_out_bonus": {"W+4": 50}, "scoring": "penalty"},
    {"going_out_bonus": {"WD1": 20, "WD2": 40}, "scoring": "elimination", "deck": "h2o"},
    {"scoring": "elimination", "players": 3},
    {"play_to_last": True, "progressive_refill": True, "players": 10},
])
def test_possible_combinations_are_accepted(data: dict[str, Any]) -> None:
    Rules.from_dict(data).validate()


def non_default(name: str) -> list[Any]:
    spec = SPEC[name]
    if spec.kind == "bool":
        return [not spec.default]
    if spec.kind == "choice":
        return [c for c in spec.choices if c != spec.default]
    if spec.kind == "float":
        return [0.5, 1.0]
    if spec.kind == "int":
        return [spec.default + 1]
    raise AssertionError(name)


EFFECTIVE_WITH: dict[str, dict[str, Any]] = {
    "scoring": {"rounds": 3},
    "partner_hands_visible": {"teams": "pairs"},
    "seven_zero_last_card": {"seven_swap": True},
    "silence_penalty": {"silence": "twos"},
    "blank_card_effect": {"extra_cards": {"WC": 4}},
    "launcher_fire_chance": {"deck": "attack"},
    "launcher_max_burst": {"deck": "attack"},
}
"""The other keys under which a key's value has an effect (a value without effect is
refused)."""

SUPPORTED = [(spec.name, value) for spec in KEYS if spec.section >= 4
             for value in non_default(spec.name)]
SUPPORTED += [("deck", "h2o"), ("deck", "attack"), ("extra_cards", {"WSW": 1, "WC": 3}),
              ("extra_cards", {"WSH": 1}), ("extra_cards", {"WD1": 2, "WD2": 2})]


@pytest.mark.parametrize("key, value", SUPPORTED)
def test_house_rules_are_supported(key: str, value: Any) -> None:
    rules = Rules.from_dict({key: value, **EFFECTIVE_WITH.get(key, {})})
    assert Rules.from_string(rules.to_string()) == rules


def test_every_key_and_value_is_played() -> None:
    """No key of RULES.md is refused as unplayed: each non-default value builds."""
    for spec in KEYS:
        if spec.kind == "cards":
            continue  # maps: see test_house_rules_are_supported
        values = [3] if spec.kind == "optional_int" else non_default(spec.name)
        for value in values:
            extra = EFFECTIVE_WITH.get(spec.name, {})
            rules = Rules.from_dict({spec.name: value, **extra})
            assert getattr(rules, spec.name) == value


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{v}" for k, v in value.items()) + "}"
    return str(value)


@pytest.mark.parametrize("spec", [s for s in KEYS if s.section >= 4], ids=lambda s: s.name)
def test_keys_of_sections_4_to_6_at_their_defaults_are_fine(spec: Any) -> None:
    assert getattr(Rules.from_dict({spec.name: spec.default}), spec.name) == spec.default


@pytest.mark.parametrize("text", [
    "official,players", "official,players=3,players=4", "official,,=3", "official,=3",
    "official,players=three", "official,hand_size=7.5", "official,extra_cards={WC}",
    "nonsense", "official,rounds=-1",
])
def test_bad_strings_raise_rules_error(text: str) -> None:
    with pytest.raises(RulesError):
        Rules.from_string(text)


@pytest.mark.parametrize("bad", ["{", "[1, 2]", '"official"', "3", "{\"players\": }"])
def test_bad_json_raises_rules_error(bad: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_json(bad)
    assert info.value.keys == ("rules",)


@pytest.mark.parametrize("bad", ["players = ", "players = 3\nplayers = 4", "[rules"])
def test_bad_toml_raises_rules_error(bad: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_toml(bad)
    assert info.value.keys == ("rules",)


@pytest.mark.parametrize("bad", [None, 3, ["official"], ("official",)])
def test_non_mappings_raise_rules_error(bad: Any) -> None:
    with pytest.raises(RulesError):
        Rules.from_dict(bad)


def test_rules_are_frozen_and_hashable() -> None:
    rules = Rules()
    with pytest.raises(AttributeError):
        rules.players = 3  # type: ignore[misc]
    assert {rules: 1}[Rules.preset("official")] == 1


@pytest.mark.parametrize("key, value", [
    ("draw", "until_playable"), ("play_drawn", "must"), ("draw_when_playable", False),
    ("draw_two_on_draw_two", "stack"), ("draw_four_on_draw_four", "stack"),
    ("draw_two_on_draw_four", "deflect"), ("draw_four_on_draw_two", "stack"),
    ("reverse_deflects_draw", True),
])
def test_attack_refuses_drawing_rules(key: str, value: Any) -> None:
    """UNO Attack presses instead of drawing and has no draw cards: such keys are refused."""
    with pytest.raises(RulesError) as info:
        Rules.from_dict({"preset": "attack", key: value})
    assert {"deck", key} <= set(info.value.keys)
    assert "UNO Attack" in str(info.value)


def test_choice_value_none_round_trips_in_the_compact_form() -> None:
    rules = Rules.preset("stacking", draw_four_on_draw_four="none", players=3, rounds=1)
    assert "draw_four_on_draw_four=none" in rules.to_string()
    assert Rules.from_string(rules.to_string()) == rules
