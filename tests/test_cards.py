"""Cards: codes (RULES.md section 1), points, decks and hand values."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unokit.engine.cards import (
    CODES,
    COLOR_OF,
    IS_NUMBER,
    IS_WILD,
    NO_COLOR,
    NUM_KINDS,
    RANK_OF,
    build_deck,
    card_code,
    card_counts,
    card_points,
    color_letter,
    hand_points,
    kind_of,
    parse_card,
    parse_color,
)
from unokit.engine.errors import CardCodeError, UnoError

COLORS = "RYGB"
NUMBER_CODES = [f"{c}{n}" for c in COLORS for n in range(10)]
ACTION_CODES = [f"{c}{s}" for c in COLORS for s in ("S", "R", "+2")]
ATTACK_CODES = [f"{c}{s}" for c in COLORS for s in ("H2", "DA", "TH")]
WILD_CODES = ["W", "W+4", "WC", "WSW", "WSH", "WD1", "WD2", "WAH", "WHF"]
ALL_CODES = NUMBER_CODES + ACTION_CODES + ATTACK_CODES + WILD_CODES

# RULES.md section 1, the points column.
EXPECTED_POINTS = {
    **{code: int(code[1]) for code in NUMBER_CODES},
    **{f"{c}{s}": 20 for c in COLORS for s in ("S", "R", "+2", "H2")},
    **{f"{c}{s}": 30 for c in COLORS for s in ("DA", "TH")},
    "W": 50, "W+4": 50, "WC": 40, "WSW": 40, "WSH": 40, "WD1": 20, "WD2": 20,
    "WAH": 50, "WHF": 50,
}


@pytest.mark.parametrize("code", ALL_CODES)
def test_every_code_round_trips(code: str) -> None:
    kind = parse_card(code)
    assert 0 <= kind < NUM_KINDS
    assert card_code(kind) == code
    assert CODES[kind] == code


def test_codes_are_distinct_and_cover_every_kind() -> None:
    kinds = [parse_card(code) for code in ALL_CODES]
    assert len(set(kinds)) == len(ALL_CODES) == 73
    assert sorted(code for code in CODES if code) == sorted(ALL_CODES)


@pytest.mark.parametrize("code", ALL_CODES)
def test_points_of_every_card(code: str) -> None:
    assert card_points(parse_card(code)) == EXPECTED_POINTS[code]


@pytest.mark.parametrize("code", ALL_CODES)
def test_colour_rank_and_wildness(code: str) -> None:
    kind = parse_card(code)
    if code.startswith("W"):
        assert IS_WILD[kind] and COLOR_OF[kind] == NO_COLOR and not IS_NUMBER[kind]
    else:
        assert not IS_WILD[kind]
        assert COLOR_OF[kind] == COLORS.index(code[0])
        assert kind == kind_of(COLOR_OF[kind], RANK_OF[kind])
        assert IS_NUMBER[kind] == code[1:].isdigit()


def test_same_symbol_shares_a_rank_across_colours() -> None:
    for symbol in ("5", "S", "R", "+2"):
        assert len({RANK_OF[parse_card(c + symbol)] for c in COLORS}) == 1
    assert RANK_OF[parse_card("R5")] != RANK_OF[parse_card("R6")]


@pytest.mark.parametrize("bad", [
    "", "r5", "w", "w+4", "R10", "X5", "R", "RS2", "W+2", "Wc", "wc", "W4", "R+4", " R5",
    "R5 ", "RTH ", "B-2", "G+", "WD3", "0", "RH", "rs",
])
def test_unknown_and_lowercase_codes_raise(bad: str) -> None:
    with pytest.raises(CardCodeError):
        parse_card(bad)


@pytest.mark.parametrize("bad", [None, 5, 5.0, b"R5", ["R5"]])
def test_non_strings_raise_card_code_error(bad: object) -> None:
    with pytest.raises(CardCodeError):
        parse_card(bad)  # type: ignore[arg-type]


def test_card_code_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse_card("Z9")
    assert issubclass(CardCodeError, UnoError)


@pytest.mark.parametrize("kind", [-1, NUM_KINDS, 100, 127, 2**40])
def test_card_code_of_a_non_card_raises(kind: int) -> None:
    with pytest.raises(CardCodeError):
        card_code(kind)


@given(st.text(max_size=6))
def test_parse_card_accepts_exactly_the_codes(text: str) -> None:
    if text in ALL_CODES:
        assert card_code(parse_card(text)) == text
    else:
        with pytest.raises(CardCodeError):
            parse_card(text)


def test_colours() -> None:
    for index, letter in enumerate(COLORS):
        assert parse_color(letter) == index
        assert color_letter(index) == letter
    for bad in ("r", "", "RY", "W", "K", None, 0):
        with pytest.raises(CardCodeError):
            parse_color(bad)  # type: ignore[arg-type]


# ------------------------------------------------------------------ decks
def test_classic_deck_composition() -> None:
    deck = build_deck("classic")
    assert len(deck) == 108
    counts = Counter(card_code(k) for k in deck)
    expected: Counter[str] = Counter()
    for c in COLORS:
        expected[f"{c}0"] = 1
        for n in range(1, 10):
            expected[f"{c}{n}"] = 2
        for s in ("S", "R", "+2"):
            expected[f"{c}{s}"] = 2
    expected["W"] = 4
    expected["W+4"] = 4
    assert counts == expected
    assert sum(1 for k in deck if not IS_WILD[k]) == 100
    # 25 cards per colour
    for index in range(4):
        assert sum(1 for k in deck if COLOR_OF[k] == index) == 25


def test_classic_deck_points_total() -> None:
    # per colour: 0 + 2 * (1 + ... + 9) + 6 * 20 = 210; four colours; 8 wilds of 50
    assert sum(card_points(k) for k in build_deck("classic")) == 4 * 210 + 8 * 50


def test_deck_is_in_canonical_order() -> None:
    deck = build_deck("classic", {"WC": 4})
    assert deck == sorted(deck)
    assert build_deck("classic") == build_deck("classic", {})
    assert build_deck("classic") == build_deck("classic", None)


@pytest.mark.parametrize("extra, size", [
    ({"WC": 4}, 112),
    ({"WSW": 1, "WC": 3}, 112),
    ({"WSH": 1, "WC": 3}, 112),
    ({"WC": 0}, 108),
    ({"WD1": 2, "WD2": 2}, 112),
])
def test_extra_cards(extra: dict[str, int], size: int) -> None:
    deck = build_deck("classic", extra)
    assert len(deck) == size
    counts = Counter(card_code(k) for k in deck)
    for code, count in extra.items():
        assert counts[code] == count
    base = Counter(build_deck("classic"))
    assert Counter(deck) - base == Counter({parse_card(c): n for c, n in extra.items() if n})


def test_h2o_and_attack_decks() -> None:
    h2o = Counter(card_code(k) for k in build_deck("h2o"))
    assert h2o["WD1"] == 2 and h2o["WD2"] == 2 and sum(h2o.values()) == 112
    assert Counter(card_code(k) for k in build_deck("h2o", {"WD1": 3}))["WD2"] == 0
    attack = Counter(card_code(k) for k in build_deck("attack"))
    assert sum(attack.values()) == 112
    for c in COLORS:
        assert attack[f"{c}0"] == 0
        assert all(attack[f"{c}{n}"] == 2 for n in range(1, 10))
        assert attack[f"{c}H2"] == 2 and attack[f"{c}R"] == 2 and attack[f"{c}S"] == 2
        assert attack[f"{c}DA"] == 1 and attack[f"{c}TH"] == 1 and attack[f"{c}+2"] == 0
    assert attack["W"] == 4 and attack["WAH"] == 2 and attack["WHF"] == 2
    assert attack["W+4"] == 0


def test_unknown_deck_and_extra_code_raise() -> None:
    with pytest.raises(CardCodeError):
        build_deck("flip")
    with pytest.raises(CardCodeError):
        build_deck("classic", {"XX": 1})


def test_card_counts_is_a_multiset() -> None:
    assert card_counts([1, 1, 2]) == Counter({1: 2, 2: 1})


# ------------------------------------------------------------ hand points
def cards(*codes: str) -> list[int]:
    return [parse_card(c) for c in codes]


def test_hand_points() -> None:
    assert hand_points([]) == 0
    assert hand_points(cards("R5", "WC")) == 45
    assert hand_points(cards("W", "W+4", "G+2", "BS", "YR", "R9", "G0")) == 50 + 50 + 60 + 9
    assert hand_points(iter(cards("B7", "B7"))) == 14


@pytest.mark.parametrize("zero", ["R0", "Y0", "G0", "B0"])
def test_lone_zero_points(zero: str) -> None:
    assert hand_points(cards(zero)) == 0
    assert hand_points(cards(zero), lone_zero_points=50) == 50
    # only a hand of a single 0 card
    assert hand_points(cards(zero, "R0"), lone_zero_points=50) == 0
    assert hand_points(cards(zero, "R1"), lone_zero_points=50) == 1
    assert hand_points(cards("R1"), lone_zero_points=50) == 1
    assert hand_points([], lone_zero_points=50) == 0


@given(st.lists(st.sampled_from(ALL_CODES), max_size=20), st.integers(0, 1000))
def test_hand_points_is_the_sum_unless_a_lone_zero(codes: list[str], lone: int) -> None:
    value = hand_points(cards(*codes), lone_zero_points=lone)
    if len(codes) == 1 and codes[0][1:] == "0":
        assert value == lone
    else:
        assert value == sum(EXPECTED_POINTS[c] for c in codes)
