"""Actions: builders, text forms that round-trip, and rejection of bad texts and ints."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unokit.engine import actions as A
from unokit.engine.cards import CODES, parse_card
from unokit.engine.errors import ActionCodeError, UnoError

CARD_CODES = [code for code in CODES if code]
COLORS = "RYGB"


def every_action() -> list[tuple[int, str]]:
    """One action of every type and shape, with its text."""
    out = []
    for p in (0, 3, 9):
        out += [
            (A.play(p, parse_card("R5")), f"{p}:R5"),
            (A.play(p, parse_card("R5"), uno=True), f"{p}:R5!"),
            (A.play(p, parse_card("G+2")), f"{p}:G+2"),
            (A.play(p, parse_card("W+4"), color=3), f"{p}:W+4>B"),
            (A.play(p, parse_card("W"), color=0, uno=True), f"{p}:W>R!"),
            (A.play(p, parse_card("Y7"), target=2), f"{p}:Y7@2"),
            (A.play(p, parse_card("WSW"), color=2, target=0, uno=True), f"{p}:WSW>G@0!"),
            (A.draw(p), f"{p}:draw"),
            (A.pass_turn(p), f"{p}:pass"),
            (A.challenge(p), f"{p}:challenge"),
            (A.call_uno(p), f"{p}:uno"),
            (A.catch(p, 1), f"{p}:catch 1"),
            (A.catch(p, 9), f"{p}:catch 9"),
            (A.choose_color(p, 1), f"{p}:color Y"),
            (A.next_round(p), f"{p}:next"),
        ]
    return out


@pytest.mark.parametrize("action, text", every_action())
def test_format_and_parse_round_trip(action: int, text: str) -> None:
    assert A.format_action(action) == text
    assert A.parse_action(text) == action
    assert A.is_valid_encoding(action)


@pytest.mark.parametrize("code", CARD_CODES)
def test_every_card_plays_round_trip(code: str) -> None:
    kind = parse_card(code)
    for p in range(10):
        for color in ([None] if not code.startswith("W") else [0, 1, 2, 3]):
            for uno in (False, True):
                action = A.play(p, kind, color=color, uno=uno)
                text = A.format_action(action)
                assert A.parse_action(text) == action
                parts = A.describe(action)
                assert parts == A.ActionParts(p, "play", kind, color, None, uno)


def test_describe_every_type() -> None:
    assert A.describe(A.draw(4)) == A.ActionParts(4, "draw", None, None, None, False)
    assert A.describe(A.pass_turn(1)).type == "pass"
    assert A.describe(A.challenge(1)).type == "challenge"
    assert A.describe(A.call_uno(1)).type == "uno"
    assert A.describe(A.catch(2, 0)) == A.ActionParts(2, "catch", None, None, 0, False)
    assert A.describe(A.choose_color(5, 2)) == A.ActionParts(5, "color", None, 2, None, False)
    assert A.describe(A.next_round(0)).type == "next"
    play = A.play(7, parse_card("W+4"), color=1, uno=True)
    assert A.describe(play) == A.ActionParts(7, "play", parse_card("W+4"), 1, None, True)
    assert A.action_player(play) == 7
    assert A.action_type(play) == A.PLAY
    assert A.action_card(play) == parse_card("W+4")
    assert A.action_color(play) == 1
    assert A.action_target(play) == 15


def test_actions_are_distinct() -> None:
    actions = [a for a, _ in every_action()]
    assert len(set(actions)) == len(actions)


def test_parse_tolerates_surrounding_spaces() -> None:
    assert A.parse_action(" 0:R5 ") == A.parse_action("0:R5")
    assert A.parse_action("2: catch 0") == A.catch(2, 0)
    assert A.parse_action("1:color  G") == A.choose_color(1, 2)


@pytest.mark.parametrize("text", [
    "", "0", "0:", ":R5", "R5", "10:R5", "-1:R5", "a:R5", "0:r5", "0:R10", "0:W+4>b",
    "0:W+4>X", "0:W>", "0:R5!!", "0:draw!", "0:catch", "0:catch x", "0:catch 10",
    "0:catch -1", "0:color", "0:color X", "0:color r", "0:R7@", "0:R7@x", "0:R7@10",
    "0:Draw", "0:PASS", "0:next round", "0 R5", "0;R5", "0:uno 1", "0:R5 R6", "٣:R5",
    "0:catch ٣", "0:R7@²", "²:R5", "0:>B", "0:@1", "0:!", "0:W+4>BB", "00:R5x",
])
def test_invalid_texts_raise(text: str) -> None:
    with pytest.raises(ActionCodeError):
        A.parse_action(text)


@pytest.mark.parametrize("value", [None, 5, b"0:R5", ["0:R5"]])
def test_non_text_raises(value: object) -> None:
    with pytest.raises(ActionCodeError):
        A.parse_action(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [
    -1, 2**23, 2**40, True, False, 1.0, "0:R5", None,
    A.draw(0) | A.UNO_FLAG,                       # UNO flag on a draw
    A.catch(0, 1) & ~(15 << 18) | (15 << 18),     # catch without a target
    (A.COLOR << 4) | (7 << 15) | (127 << 8) | (15 << 18),  # colour action without colour
    (15 << 4) | (127 << 8) | (7 << 15) | (15 << 18),  # unknown type
    A.play(0, 100),                               # no such card
    A.play(0, parse_card("W"), color=5),          # no such colour
    A.draw(0) & ~(127 << 8) | (3 << 8),           # a draw with a card
    A.draw(12),                                   # seats are 0-9
    A.play(15, parse_card("R5")),
    A.catch(0, 12),                               # no such target seat
    A.play(0, parse_card("R7"), target=11),
])
def test_bad_encodings_raise(value: object) -> None:
    assert not A.is_valid_encoding(value)
    with pytest.raises(ActionCodeError):
        A.format_action(value)  # type: ignore[arg-type]


def test_errors_are_value_errors() -> None:
    assert issubclass(ActionCodeError, UnoError)
    assert issubclass(ActionCodeError, ValueError)


@given(st.text(max_size=16))
def test_random_text_parses_or_raises_action_code_error(text: str) -> None:
    try:
        action = A.parse_action(text)
    except ActionCodeError:
        return
    assert A.parse_action(A.format_action(action)) == action


_ALPHABET = "0123456789:RYGBW+S!>@ catchdrawpassunocolornext-²"


@given(st.text(alphabet=_ALPHABET, max_size=14))
def test_action_like_text_parses_or_raises_action_code_error(text: str) -> None:
    try:
        action = A.parse_action(text)
    except ActionCodeError:
        return
    assert A.parse_action(A.format_action(action)) == action
    assert A.format_action(action) == A.format_action(A.parse_action(text.strip()))


@settings(max_examples=max(200, settings().max_examples))
@given(st.one_of(st.integers(min_value=-(2**24), max_value=2**24),
                 st.integers(min_value=0, max_value=2**56)))
def test_any_int_formats_to_a_text_that_parses_back_or_raises(value: int) -> None:
    try:
        text = A.format_action(value)
    except ActionCodeError:
        assert not A.is_valid_encoding(value)
        return
    assert A.is_valid_encoding(value)
    assert A.parse_action(text) == value


@given(player=st.integers(0, 9), card=st.sampled_from(CARD_CODES), color=st.integers(0, 3),
       target=st.one_of(st.none(), st.integers(0, 9)), uno=st.booleans())
def test_built_plays_round_trip(player: int, card: str, color: int, target: int | None,
                                uno: bool) -> None:
    kind = parse_card(card)
    action = A.play(player, kind, color=color if card.startswith("W") else None,
                    target=target, uno=uno)
    assert A.parse_action(A.format_action(action)) == action
    parts = A.describe(action)
    assert (parts.player, parts.card, parts.target, parts.uno) == (player, kind, target, uno)
