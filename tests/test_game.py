"""Targeted engine tests for the official rules (RULES.md sections 2 and 3).

Positions are built with ``Game.from_setup``: hands by seat, the draw pile with the first
card to be drawn first, the discard pile bottom to top. Actions are written in their text
form (``"0:R5"``, ``"1:draw"``, ``"2:catch 0"``).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unokit.engine import actions as A
from unokit.engine.actions import format_action, parse_action
from unokit.engine.cards import card_code, parse_card
from unokit.engine.errors import IllegalActionError, SetupError
from unokit.engine.events import Event, EventKind, redact
from unokit.engine.game import Game, Phase
from unokit.engine.rng import SplitMix64
from unokit.engine.rules import Rules

K = EventKind


# ----------------------------------------------------------------- helpers
def cards(text: str) -> list[int]:
    """``"R5 G+2 W"`` -> card kinds."""
    return [parse_card(code) for code in text.split()]


def position(hands: list[str], *, draw: str = "", discard: str | None = "Y3",
             rules: dict[str, Any] | None = None, **setup: Any) -> Game:
    data: dict[str, Any] = {"preset": "official", "players": len(hands), **(rules or {})}
    return Game.from_setup(
        Rules.from_dict(data),
        hands=[cards(hand) for hand in hands],
        draw_pile=cards(draw),
        discard=None if discard is None else cards(discard),
        **setup,
    )


def do(game: Game, text: str) -> list[Event]:
    return game.apply(parse_action(text))


def rejected(game: Game, text: str | int) -> str:
    """Apply an action that must be illegal; the game must not change. The reason."""
    before = game.copy()
    log_size = len(game.log)
    action = parse_action(text) if isinstance(text, str) else text
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)
    assert game == before
    assert len(game.log) == log_size
    assert info.value.reason
    return info.value.reason


def legal(game: Game, seat: int) -> list[str]:
    return [format_action(a) for a in game.legal_actions(seat)]


def hand(game: Game, seat: int) -> list[str]:
    return sorted(card_code(c) for c in game.hands[seat])


def kinds(events: list[Event]) -> list[EventKind]:
    return [e.kind for e in events]


def conserved(game: Game) -> bool:
    pool: Counter[int] = Counter(game.draw_pile) + Counter(game.discard)
    for h in game.hands:
        pool.update(h)
    return pool == Counter(game.deck)


# ------------------------------------------------------------ dealer choice
def test_seat0_dealer() -> None:
    for seed in range(5):
        game = Game(Rules.preset("official", dealer="seat0"), seed)
        assert game.dealer == 0
        assert not any(e.kind is K.DEALER_DRAW for e in game.log)
        assert game.log[0].kind is K.ROUND_STARTED and game.log[0].player == 0
        assert game.round_no == 1


def test_random_dealer_is_seeded_and_covers_every_seat() -> None:
    rules = Rules.preset("official", players=5, dealer="random")
    dealers = [Game(rules, seed).dealer for seed in range(100)]
    assert set(dealers) == set(range(5))
    assert dealers == [Game(rules, seed).dealer for seed in range(100)]
    # the dealer is the generator's first number
    for seed in range(10):
        assert Game(rules, seed).dealer == SplitMix64(seed).below(5)


def replay_high_card(game: Game) -> int:
    """The dealer that the DEALER_DRAW events of a game select, by the rules."""
    draws = [e for e in game.log if e.kind is K.DEALER_DRAW]
    assert draws, "high_card draws cards"
    contenders = list(range(game.n))
    index = 0
    while True:
        numbers = {}
        for seat in contenders:
            while True:
                event = draws[index]
                index += 1
                assert event.player == seat, "seats draw in seat order"
                rank = card_code(event.card)[1:]
                if rank.isdigit():
                    numbers[seat] = int(rank)
                    break
                # action and wild cards are drawn again
        best = max(numbers.values())
        contenders = [s for s in contenders if numbers[s] == best]
        if len(contenders) == 1:
            assert index == len(draws), "no draws after the dealer is found"
            return contenders[0]


@pytest.mark.parametrize("players", [2, 3, 4, 10])
def test_high_card_dealer(players: int) -> None:
    rules = Rules.preset("official", players=players)
    saw_redraw = saw_tie = False
    for seed in range(40):
        game = Game(rules, seed)
        assert replay_high_card(game) == game.dealer
        draws = [e for e in game.log if e.kind is K.DEALER_DRAW]
        saw_redraw |= any(not card_code(e.card)[1:].isdigit() for e in draws)
        saw_tie |= len(draws) > players + sum(
            not card_code(e.card)[1:].isdigit() for e in draws)
        # the dealer-draw cards are not the round's: every card is in play once
        assert conserved(game)
        assert game.current_player is not None
    assert saw_redraw and saw_tie


def test_dealer_draw_events_are_public() -> None:
    game = Game(Rules.preset("official"), 3)
    for event in game.log:
        if event.kind is K.DEALER_DRAW:
            assert event.visible_to is None and event.card >= 0


# ------------------------------------------------------------------ deal
@pytest.mark.parametrize("players, hand_size, dealer", [
    (2, 7, "seat0"), (4, 7, "seat0"), (10, 10, "seat0"), (3, 1, "random"), (5, 15, "random"),
])
def test_deal_sizes_and_order(players: int, hand_size: int, dealer: str) -> None:
    rules = Rules.preset("official", players=players, hand_size=hand_size, dealer=dealer)
    for seed in range(5):
        game = Game(rules, seed)
        rng = SplitMix64(seed)
        first_dealer = rng.below(players) if dealer == "random" else 0
        assert game.dealer == first_dealer
        pile = list(rules.deck_cards())
        rng.shuffle(pile)
        hands: list[list[int]] = [[] for _ in range(players)]
        for _ in range(hand_size):
            for offset in range(1, players + 1):
                hands[(first_dealer + offset) % players].append(pile.pop())
        dealt = {e.player: list(e.cards) for e in game.log if e.kind is K.DEALT}
        assert dealt == dict(enumerate(hands))
        for seat in range(players):
            # hands may have changed only by a start Draw Two
            assert game.hands[seat][:hand_size] == hands[seat]
        start = [e.card for e in game.log if e.kind is K.START_CARD]
        if not any(e.kind is K.PUT_BACK for e in game.log):
            assert start == [pile[-1]]
        assert len(game.deck) == 108
        assert conserved(game)


def test_dealt_cards_are_private() -> None:
    game = Game(Rules.preset("official", dealer="seat0"), 1)
    for event in game.log:
        if event.kind is K.DEALT:
            assert event.visible_to == (event.player,)
            assert event.amount == 7 and len(event.cards) == 7
            for viewer in range(4):
                seen = redact(event, viewer)
                assert seen.cards == (event.cards if viewer == event.player else ())
            assert redact(event, None).cards == ()


def test_first_player_is_left_of_the_dealer() -> None:
    rules = Rules.preset("official", players=5, dealer="random")
    for seed in range(30):
        game = Game(rules, seed)
        start = next(e for e in game.log if e.kind is K.START_CARD)
        code = card_code(start.card)
        if code[1:].isdigit():
            assert game.current_player == (game.dealer + 1) % 5
            assert game.direction == 1


# ------------------------------------------------------------ start card
def test_start_number() -> None:
    game = position(["R1 R2", "G1 G2", "B1 B2"], draw="Y5 Y6", discard=None, dealer=0)
    assert game.discard == cards("Y5") and game.color == 1
    assert game.current_player == 1 and game.direction == 1 and game.phase is Phase.PLAY


def test_start_skip() -> None:
    game = position(["R1 R2", "G1 G2", "B1 B2"], draw="YS Y6", discard=None, dealer=0)
    assert game.current_player == 2
    assert [e.player for e in game.log if e.kind is K.SKIPPED] == [1]


def test_start_reverse_dealer_plays_ccw() -> None:
    game = position(["R1 R2", "G1 G2", "B1 B2", "Y1 Y2"], draw="YR G6", discard=None,
                    dealer=1)
    assert game.current_player == 1 and game.direction == -1
    do(game, "1:draw")
    assert game.current_player == 0


def test_start_reverse_two_players() -> None:
    game = position(["R1 R2", "G1 G2"], draw="GR Y6", discard=None, dealer=0)
    assert game.current_player == 0 and game.direction == -1


def test_start_draw_two() -> None:
    game = position(["R1 R2", "G1 G2", "B1 B2"], draw="Y+2 Y6 Y7 Y8", discard=None,
                    dealer=0)
    assert hand(game, 1) == sorted(["G1", "G2", "Y6", "Y7"])
    assert game.current_player == 2 and game.pending == 0


def test_start_wild_first_player_names_the_colour() -> None:
    game = position(["R1 R2", "G1 G2", "B1 B2"], draw="W Y6", discard=None, dealer=0)
    assert game.phase is Phase.CHOOSE_COLOR and game.current_player == 1
    assert legal(game, 1) == ["1:color R", "1:color Y", "1:color G", "1:color B"]
    assert legal(game, 0) == [] and legal(game, 2) == []
    rejected(game, "1:G1")
    rejected(game, "1:draw")
    rejected(game, "0:color R")
    events = do(game, "1:color B")
    assert kinds(events) == [K.COLOR_CHOSEN]
    assert game.phase is Phase.PLAY and game.current_player == 1 and game.color == 3


@pytest.mark.parametrize("special", ["W+4", "WC"])
def test_start_special_wild_is_put_back(special: str) -> None:
    for seed in range(10):
        game = position(["R1 R2", "G1 G2", "B1 B2"], draw=f"{special} Y6 G7 R9 B4",
                        discard=None, dealer=0, seed=seed,
                        rules={"extra_cards": {"WC": 1}} if special == "WC" else None)
        assert kinds(game.log).count(K.PUT_BACK) >= 1
        assert next(e.card for e in game.log if e.kind is K.PUT_BACK) == parse_card(special)
        assert card_code(game.discard[-1]) in ("Y6", "G7", "R9", "B4")
        assert len(game.discard) == 1 and conserved(game)
        assert game.phase is Phase.PLAY


@pytest.mark.parametrize("start", ["RS", "RR", "R+2", "W", "W+4"])
def test_start_number_only_puts_back_non_numbers(start: str) -> None:
    game = position(["R1 R2", "G1 G2", "B1 B2"], draw=f"{start} Y6", discard=None, dealer=0,
                    rules={"first_card": "number_only"})
    assert game.discard == cards("Y6")
    assert game.current_player == 1 and game.direction == 1
    assert next(e.card for e in game.log if e.kind is K.PUT_BACK) == parse_card(start)


def test_start_card_cannot_be_challenged_or_caught() -> None:
    game = position(["R1 R2", "G1 G2", "B1 B2"], draw="Y+2 Y6 Y7 Y8", discard=None,
                    dealer=0)
    for seat in range(3):
        assert all(A.describe(a).type not in ("challenge", "catch", "uno")
                   for a in game.legal_actions(seat))


def test_no_start_card_possible_is_a_setup_error() -> None:
    with pytest.raises(SetupError):
        position(["R1 R2", "G1 G2"], draw="W+4 W+4", discard=None, dealer=0)


# ------------------------------------------------------------- playing
def test_matching_colour_number_symbol_and_wild() -> None:
    game = position(["R5 G7 B3 Y+2 W W+4 GS", "G1 G2"], discard="G+2 R7")
    assert sorted(legal(game, 0)) == sorted([
        "0:R5", "0:G7", "0:W>R", "0:W>Y", "0:W>G", "0:W>B",
        "0:W+4>R", "0:W+4>Y", "0:W+4>G", "0:W+4>B", "0:draw",
    ])
    game = position(["R5 G7 B3 Y+2 GS", "G1 G2"], discard="R7 G+2")
    assert sorted(legal(game, 0)) == sorted(["0:G7", "0:Y+2", "0:GS", "0:draw"])


def test_wild_names_any_colour_including_the_current_one() -> None:
    game = position(["W R5 G5", "G1 G2"], discard="R3")
    do(game, "0:W>R")
    assert game.color == 0 and game.current_player == 1


@pytest.mark.parametrize("text, why", [
    ("1:G1", "turn"), ("0:B4", "match"), ("0:R9", "holds no"), ("0:W", "colour"),
    ("0:R5>B", "colour"), ("0:pass", "phase"), ("0:challenge", "phase"),
    ("0:color R", "phase"), ("0:next", "round is not over"), ("0:catch 1", "caught"),
    ("0:uno", "call"), ("0:R5!", "UNO"), ("5:draw", "seat"),
])
def test_illegal_actions_are_rejected_with_a_reason(text: str, why: str) -> None:
    game = position(["R5 W B4", "G1 G2"], discard="R3")
    assert why in rejected(game, text)


@pytest.mark.parametrize("value", [-1, 2**23, 2**64, 1.5, "0:R5", None, True])
def test_non_actions_are_rejected(value: Any) -> None:
    game = position(["R5 W B3", "G1 G2"], discard="R3")
    before = game.copy()
    with pytest.raises(IllegalActionError, match="not an action"):
        game.apply(value)
    assert game == before


@pytest.mark.parametrize("preset", ["official", "party"])
@settings(max_examples=300)
@given(value=st.one_of(st.integers(-(2**48), 2**48), st.integers(2**30, 2**40)))
def test_any_int_applies_or_raises_illegal_action_error(preset: str, value: int) -> None:
    """Regression: ints with high bits set (the multi-play field) and no card used to
    fail an internal assertion instead of raising IllegalActionError."""
    game = Game(Rules.preset(preset, players=3), 1)
    before = game.copy()
    if game.is_legal(value):
        game.apply(value)
        return
    with pytest.raises(IllegalActionError):
        game.apply(value)
    assert game == before


def test_skip_reverse_draw_two() -> None:
    game = position(["RS R1", "G1 R2", "B1 B2", "Y1 Y2"], discard="R3")
    do(game, "0:RS")
    assert game.current_player == 2
    game = position(["RR R1", "G1 R2", "B1 B2", "Y1 Y2"], discard="R3")
    do(game, "0:RR")
    assert game.current_player == 3 and game.direction == -1
    game = position(["R+2 R1", "G1 R2", "B1 B2", "Y1 Y2"], discard="R3", draw="G5 G6")
    do(game, "0:R+2")
    assert game.current_player == 2 and hand(game, 1) == ["G1", "G5", "G6", "R2"]


def test_two_reverses_cancel() -> None:
    game = position(["RR R1 R4", "GR R2 G8", "B1 B2", "Y1 Y2"], discard="R3")
    do(game, "0:RR")
    assert game.current_player == 3
    game2 = position(["RR R1 R4", "G1 R2", "B1 B2", "YR Y2 Y5"], discard="R3")
    do(game2, "0:RR")
    do(game2, "3:YR")
    assert game2.direction == 1 and game2.current_player == 0


@pytest.mark.parametrize("skips, expected", [(True, 0), (False, 1)])
def test_two_player_reverse(skips: bool, expected: int) -> None:
    game = position(["RR R1 R4", "G1 G2"], discard="R3",
                    rules={"two_player_reverse_skips": skips})
    do(game, "0:RR")
    assert game.current_player == expected and game.direction == -1


# -------------------------------------------------------------- drawing
def test_draw_one_playable_may_play_or_pass() -> None:
    game = position(["B1 B2", "G1 G2", "Y1 Y2"], draw="R7 G5", discard="R3")
    events = do(game, "0:draw")
    assert kinds(events) == [K.DREW]
    assert events[0].cards == tuple(cards("R7")) and events[0].visible_to == (0,)
    assert redact(events[0], 1).cards == () and redact(events[0], 1).amount == 1
    assert game.phase is Phase.DRAWN and game.current_player == 0
    assert legal(game, 0) == ["0:R7", "0:pass"]
    rejected(game, "0:B1")
    rejected(game, "0:draw")
    assert game.observation(0).drawn_card == parse_card("R7")
    assert game.observation(1).drawn_card is None
    do(game, "0:pass")
    assert game.current_player == 1 and game.phase is Phase.PLAY
    assert hand(game, 0) == ["B1", "B2", "R7"]


def test_draw_one_playable_then_played() -> None:
    game = position(["B1 B2", "G1 G2", "Y1 Y2"], draw="R7 G5", discard="R3")
    do(game, "0:draw")
    do(game, "0:R7")
    assert game.discard[-1] == parse_card("R7") and game.current_player == 1


def test_draw_one_unplayable_ends_the_turn() -> None:
    game = position(["B1 B2", "G1 G2", "Y1 Y2"], draw="G7 G5", discard="R3")
    do(game, "0:draw")
    assert game.current_player == 1 and game.phase is Phase.PLAY


def test_play_drawn_must() -> None:
    game = position(["B1 B2", "G1 G2"], draw="R7", discard="R3", rules={"play_drawn": "must"})
    do(game, "0:draw")
    assert legal(game, 0) == ["0:R7"]
    rejected(game, "0:pass")
    game = position(["B1 B2", "G1 G2"], draw="W", discard="R3", rules={"play_drawn": "must"})
    do(game, "0:draw")
    assert legal(game, 0) == ["0:W>R", "0:W>Y", "0:W>G", "0:W>B"]
    game = position(["B1 B2", "G1 G2"], draw="G7", discard="R3", rules={"play_drawn": "must"})
    do(game, "0:draw")
    assert game.current_player == 1


def test_play_drawn_never() -> None:
    game = position(["B1 B2", "G1 G2"], draw="R7", discard="R3", rules={"play_drawn": "never"})
    do(game, "0:draw")
    assert game.current_player == 1 and game.phase is Phase.PLAY
    assert hand(game, 0) == ["B1", "B2", "R7"]


def test_draw_until_playable() -> None:
    game = position(["B1 B2", "G1 G2"], draw="G7 B9 Y4 R8 R9", discard="R3",
                    rules={"draw": "until_playable"})
    events = do(game, "0:draw")
    assert kinds(events) == [K.DREW]
    assert events[0].cards == tuple(cards("G7 B9 Y4 R8")) and events[0].amount == 4
    assert game.phase is Phase.DRAWN and game.drawn == parse_card("R8")
    assert legal(game, 0) == ["0:R8", "0:pass"]


def test_draw_until_playable_runs_out() -> None:
    game = position(["B1 B2", "G1 G2"], draw="G7 B9", discard="R3",
                    rules={"draw": "until_playable"})
    do(game, "0:draw")
    assert hand(game, 0) == ["B1", "B2", "B9", "G7"]
    assert game.current_player == 1 and game.phase is Phase.PLAY


def test_draw_until_playable_with_play_drawn_never() -> None:
    game = position(["B1 B2", "G1 G2"], draw="G7 R8 R9", discard="R3",
                    rules={"draw": "until_playable", "play_drawn": "never"})
    do(game, "0:draw")
    assert hand(game, 0) == ["B1", "B2", "G7", "R8"] and game.current_player == 1


def test_draw_when_playable_true_allows_drawing_anyway() -> None:
    game = position(["R1 B2", "G1 G2"], draw="Y7", discard="R3")
    assert "0:draw" in legal(game, 0)
    do(game, "0:draw")
    assert game.current_player == 1


def test_draw_when_playable_false() -> None:
    rules = {"draw_when_playable": False}
    game = position(["R1 B2 B7", "G1 G2"], draw="Y7", discard="R3", rules=rules)
    assert legal(game, 0) == ["0:R1"]
    assert "draw_when_playable" in rejected(game, "0:draw")
    game = position(["B1 B2", "G1 G2"], draw="Y7", discard="R3", rules=rules)
    assert legal(game, 0) == ["0:draw"]
    # a wild counts as playable
    game = position(["W B2", "G1 G2"], draw="Y7", discard="R3", rules=rules)
    assert "0:draw" not in legal(game, 0)


def test_draw_when_playable_false_with_strict_wild_draw_four() -> None:
    rules = {"draw_when_playable": False, "wild_draw_four": "strict"}
    game = position(["W+4 R2 B7", "G1 G2"], draw="Y7", discard="R3", rules=rules)
    assert legal(game, 0) == ["0:R2"]
    game = position(["W+4 B2", "G1 G2"], draw="Y7", discard="G3 R3", rules=rules)
    assert "0:draw" not in legal(game, 0)


# ---------------------------------------------------------- reshuffle
def test_reshuffle_only_when_a_card_must_be_drawn() -> None:
    game = position(["B1 B2", "G1 G2"], draw="G7", discard="R1 R2 R3 R4")
    do(game, "0:draw")  # takes the last card: no reshuffle yet
    assert game.draw_pile == [] and len(game.discard) == 4
    assert K.RESHUFFLED not in kinds(game.log)
    events = do(game, "1:draw")
    assert kinds(events)[0] is K.RESHUFFLED and events[0].amount == 3
    assert game.discard == cards("R4") and len(game.draw_pile) == 2
    assert len(game.hands[1]) == 3 and conserved(game)


def test_reshuffle_is_seeded() -> None:
    piles = set()
    for seed in range(20):
        game = position(["B1 B2", "G1 G2"], discard="R1 R2 R5 R6 R7 R4", seed=seed)
        do(game, "0:draw")
        piles.add(tuple(game.draw_pile + game.hands[0]))
        again = position(["B1 B2", "G1 G2"], discard="R1 R2 R5 R6 R7 R4", seed=seed)
        do(again, "0:draw")
        assert again == game
    assert len(piles) > 1


def test_nothing_to_draw_is_forgiven() -> None:
    game = position(["R+2 B2", "G1 G2", "Y1 Y2"], draw="G7", discard="R3")
    do(game, "0:R+2")
    assert hand(game, 1) == ["G1", "G2", "G7", "R3"]
    game = position(["R+2 B2", "G1 G2", "Y1 Y2"], draw="", discard="R3")
    events = do(game, "0:R+2")
    drew = next(e for e in events if e.kind is K.DREW)
    assert drew.amount == 1 and hand(game, 1) == ["G1", "G2", "R3"]
    assert game.current_player == 2


def test_turn_draw_of_nothing_ends_the_turn() -> None:
    game = position(["B1 B2", "G1 G2", "Y1 Y2"], draw="", discard="R3")
    events = do(game, "0:draw")
    assert [e.amount for e in events if e.kind is K.DREW] == [0]
    assert game.current_player == 1 and game.phase is Phase.PLAY


# --------------------------------------------------------- blocked round
def test_blocked_round_lowest_hand_wins() -> None:
    game = position(["B1 B9", "G1 G2", "Y5 Y2"], draw="", discard="R3", dealer=2)
    do(game, "0:draw")
    do(game, "1:draw")
    assert game.phase is Phase.PLAY
    events = do(game, "2:draw")
    ended = next(e for e in events if e.kind is K.ROUND_ENDED)
    assert ended.data["blocked"] is True
    assert game.round_winner == 1 and ended.player == 1
    assert game.round_points == [0, 17, 0]
    assert game.scores == [0, 17, 0]
    assert game.phase is Phase.ROUND_OVER


def test_blocked_round_ties() -> None:
    # equal value: fewer cards wins
    game = position(["B1 B2", "G3", "Y5 Y6"], draw="", discard="R7", dealer=2)
    for seat in range(3):
        do(game, f"{seat}:draw")
    assert game.round_winner == 1
    # equal value and size: the earlier seat after the dealer
    game = position(["B1 B2", "G1 G2", "Y5 Y6"], draw="", discard="R7", dealer=0)
    for seat in (1, 2, 0):
        do(game, f"{seat}:draw")
    assert game.round_winner == 1
    game = position(["B1 B2", "G1 G2", "Y5 Y6"], draw="", discard="R7", dealer=1,
                    current_player=0)
    for seat in (0, 1, 2):
        do(game, f"{seat}:draw")
    assert game.round_winner == 0


def test_a_play_resets_the_blocked_count() -> None:
    game = position(["B1 B9", "G1 G2", "Y5 R2"], draw="", discard="R3", dealer=2)
    do(game, "0:draw")
    do(game, "1:draw")
    do(game, "2:R2!")
    assert game.phase is Phase.PLAY and game.current_player == 0
    assert game.idle == 0


# ------------------------------------------------------- Wild Draw Four
def test_strict_wild_draw_four() -> None:
    rules = {"wild_draw_four": "strict"}
    game = position(["W+4 R5 G1", "G2 G3", "B1 B2"], draw="Y1 Y2 Y3 Y4", discard="R3",
                    rules=rules)
    assert not any(a.startswith("0:W+4") for a in legal(game, 0))
    assert "current colour" in rejected(game, "0:W+4>G")
    game = position(["W+4 B5 G1", "G2 G3", "B1 B2"], draw="Y1 Y2 Y3 Y4", discard="R3",
                    rules=rules)
    events = do(game, "0:W+4>G")
    assert K.CHALLENGED not in kinds(events)
    assert hand(game, 1) == ["G2", "G3", "Y1", "Y2", "Y3", "Y4"]
    assert game.current_player == 2 and game.phase is Phase.PLAY and game.color == 2


def test_free_wild_draw_four() -> None:
    game = position(["W+4 R5 G1", "G2 G3", "B1 B2"], draw="Y1 Y2 Y3 Y4", discard="R3",
                    rules={"wild_draw_four": "free"})
    do(game, "0:W+4>B")
    assert len(game.hands[1]) == 6 and game.current_player == 2 and game.pending == 0


def test_challenge_phase_actions() -> None:
    game = position(["W+4 R5 G1", "G2 G3", "B1 B2"], draw="Y1 Y2 Y3 Y4 Y5 Y6",
                    discard="R3")
    do(game, "0:W+4>B")
    assert game.phase is Phase.CHALLENGE and game.current_player == 1 and game.pending == 4
    assert legal(game, 1) == ["1:draw", "1:challenge"]
    assert legal(game, 2) == [] and legal(game, 0) == []
    rejected(game, "1:G2")
    rejected(game, "2:challenge")
    assert game.observation(2).pending_draw == 4


def test_wild_draw_four_accepted() -> None:
    game = position(["W+4 R5 G1", "G2 G3", "B1 B2"], draw="Y1 Y2 Y3 Y4", discard="R3")
    do(game, "0:W+4>B")
    events = do(game, "1:draw")
    assert kinds(events) == [K.DREW, K.SKIPPED]
    assert events[0].amount == 4 and game.current_player == 2 and game.pending == 0


@pytest.mark.parametrize("takes_back", [False, True])
def test_guilty_challenge(takes_back: bool) -> None:
    game = position(["W+4 R5 G1", "G2 G3", "B1 B2"], draw="Y1 Y2 Y3 Y4 Y5 Y6",
                    discard="R3", rules={"challenge_guilty_takes_back": takes_back,
                                         "challenge_guilty_draw": 3})
    do(game, "0:W+4>B")
    events = do(game, "1:challenge")
    challenged = next(e for e in events if e.kind is K.CHALLENGED)
    assert challenged.reason == "guilty" and challenged.target == 0
    shown = next(e for e in events if e.kind is K.HAND_SHOWN)
    assert sorted(shown.cards) == sorted(cards("R5 G1"))
    assert set(shown.visible_to or ()) == {0, 1}
    assert redact(shown, 2).cards == ()
    assert game.current_player == 1 and game.phase is Phase.PLAY
    if takes_back:
        assert K.TOOK_BACK in kinds(events)
        assert hand(game, 0) == sorted(["W+4", "R5", "G1", "Y1", "Y2", "Y3"])
        assert game.discard == cards("R3") and game.color == 0
    else:
        assert hand(game, 0) == sorted(["R5", "G1", "Y1", "Y2", "Y3"])
        assert game.discard[-1] == parse_card("W+4") and game.color == 3
    assert len(game.hands[1]) == 2


def test_innocent_challenge() -> None:
    # same number (G3 on R3) and other wilds do not make it guilty
    game = position(["W+4 W G3", "G2 G7", "B1 B2"], draw="Y1 Y2 Y3 Y4 Y5 Y6 Y7",
                    discard="R3", rules={"challenge_innocent_draw": 5})
    do(game, "0:W+4>B")
    events = do(game, "1:challenge")
    assert [e.reason for e in events if e.kind is K.CHALLENGED] == ["innocent"]
    assert len(game.hands[1]) == 7 and game.current_player == 2
    assert game.color == 3 and len(game.hands[0]) == 2


@pytest.mark.parametrize("second_hand, verdict", [
    ("W+4 R1 R2", "innocent"),  # red was in force before the first W+4, not before this one
    ("W+4 G1 R2", "guilty"),    # green, named by the first W+4, was in force
])
def test_wild_draw_four_on_wild_draw_four_is_judged_on_the_named_colour(
        second_hand: str, verdict: str) -> None:
    game = position(["W+4 B5 B1", "Y7 Y8", second_hand], discard="R3",
                    draw="Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 B9 B8",
                    rules={"challenge_guilty_takes_back": True})
    do(game, "0:W+4>G")
    do(game, "1:draw")  # accepts
    assert game.current_player == 2 and game.color == 2
    do(game, "2:W+4>B")
    assert game.wd4_color == 2
    events = do(game, "0:challenge")
    assert [e.reason for e in events if e.kind is K.CHALLENGED] == [verdict]
    if verdict == "guilty":
        # the top card and colour return to the first W+4 and the green it named
        assert game.discard[-1] == parse_card("W+4") and game.color == 2
        assert game.current_player == 0
    else:
        assert game.color == 3 and game.current_player == 1


def test_challenge_takes_back_after_a_reshuffle_keeps_the_covered_card() -> None:
    """A reshuffle while a challenge is pending (here to pay an UNO penalty) must not take
    the card under the W+4: a guilty player who takes the W+4 back uncovers it."""
    game = position(["W+4 R5 G1", "G2 G3", "B1 B2"], draw="", discard="Y1 Y2 R3",
                    rules={"challenge_guilty_takes_back": True, "uno_penalty": 1,
                           "false_catch_penalty": 1})
    do(game, "0:W+4>B")
    do(game, "2:catch 1")  # a false catch: seat 2 draws, which reshuffles
    assert game.discard == cards("R3 W+4")
    do(game, "1:challenge")
    assert game.discard == cards("R3") and game.color == 0
    assert game.current_player == 1 and conserved(game)
    assert game.legal_actions(1)


# ---------------------------------------------------------------- UNO
def test_uno_called_with_the_play_cannot_be_caught() -> None:
    game = position(["R5 R6", "G1 G2 G3", "B1 B2 B3"], discard="R3")
    events = do(game, "0:R5!")
    assert kinds(events)[:2] == [K.PLAYED, K.UNO_CALLED]
    assert "1:catch 0" not in legal(game, 1)
    rejected(game, "1:catch 0")
    assert game.observation(1).uno_open is None


def test_uno_window_is_open_until_the_next_turn_begins() -> None:
    game = position(["R5 R6", "G1 G2 G3", "B1 B2 B3"], draw="Y1 Y2 Y3", discard="R3")
    do(game, "0:R5")
    assert game.observation(2).uno_open == 0
    assert "1:catch 0" in legal(game, 1) and "2:catch 0" in legal(game, 2)
    assert "0:uno" in legal(game, 0)
    do(game, "1:draw")  # the next turn begins
    assert "2:catch 0" not in legal(game, 2)
    rejected(game, "2:catch 0")
    rejected(game, "0:uno")


def test_uno_window_survives_an_automatic_draw_two() -> None:
    game = position(["R+2 R6", "G1 G2 G3", "B1 B2 B3"], draw="Y1 Y2 Y3 Y4 Y5",
                    discard="R3")
    do(game, "0:R+2")
    assert game.current_player == 2
    events = do(game, "2:catch 0")
    assert kinds(events) == [K.CAUGHT, K.DREW]
    assert len(game.hands[0]) == 3 and game.current_player == 2


def test_uno_caught_draws_the_penalty_and_the_turn_stays() -> None:
    game = position(["R5 R6", "G1 G2 G3", "B1 B2 B3"], draw="Y1 Y2 Y3 Y4 Y5",
                    discard="R3", rules={"uno_penalty": 4})
    do(game, "0:R5")
    events = do(game, "2:catch 0")
    assert events[0].kind is K.CAUGHT and events[0].player == 2 and events[0].target == 0
    assert events[1].amount == 4 and len(game.hands[0]) == 5
    assert game.current_player == 1 and game.phase is Phase.PLAY
    rejected(game, "1:catch 0")


def test_late_uno_call_is_safe_with_self_catch() -> None:
    game = position(["R5 R6", "G1 G2 G3", "B1 B2 B3"], draw="Y1 Y2", discard="R3")
    do(game, "0:R5")
    assert legal(game, 0) == ["0:uno"]
    events = do(game, "0:uno")
    assert kinds(events) == [K.UNO_CALLED]
    rejected(game, "1:catch 0")
    assert game.current_player == 1


def test_no_late_call_without_self_catch() -> None:
    game = position(["R5 R6", "G1 G2 G3", "B1 B2 B3"], draw="Y1 Y2", discard="R3",
                    rules={"uno_self_catch": False})
    do(game, "0:R5")
    assert legal(game, 0) == []
    assert "uno_self_catch" in rejected(game, "0:uno")
    do(game, "1:catch 0")
    assert len(game.hands[0]) == 3


def test_false_catch() -> None:
    game = position(["R5 R6 R7", "G1 G2 G3", "B1 B2 B3"], draw="Y1 Y2", discard="R3")
    rejected(game, "1:catch 0")
    assert not any("catch" in a for seat in range(3) for a in legal(game, seat))
    game = position(["R5 R6 R7", "G1 G2 G3", "B1 B2 B3"], draw="Y1 Y2", discard="R3",
                    rules={"false_catch_penalty": 2})
    assert legal(game, 1) == ["1:catch 0", "1:catch 2"]
    events = do(game, "1:catch 0")
    assert kinds(events) == [K.FALSE_CATCH, K.DREW]
    assert len(game.hands[1]) == 5 and len(game.hands[0]) == 3
    assert game.current_player == 0
    rejected(game, "1:catch 1")  # never oneself


def test_uno_flag_needs_a_hand_of_two() -> None:
    game = position(["R5 R6 R7", "G1 G2 G3"], discard="R3")
    assert "UNO" in rejected(game, "0:R5!")


# --------------------------------------------------------------- misplay
def test_misplay_penalty() -> None:
    game = position(["B5 R6", "G1 G2 G3", "Y7 Y8"], draw="Y1 Y2 Y3", discard="R3",
                    rules={"misplay_penalty": 2})
    assert "0:B5" in legal(game, 0)
    events = do(game, "0:B5")
    assert kinds(events) == [K.MISPLAYED, K.DREW]
    assert hand(game, 0) == ["B5", "R6", "Y1", "Y2"]
    assert game.discard == cards("R3") and game.current_player == 1
    # a card not held, or a play out of turn, is still rejected
    rejected(game, "1:B9")
    rejected(game, "2:Y7")


def test_no_misplay_in_the_drawn_phase_or_without_penalty() -> None:
    game = position(["B5 R6", "G1 G2"], draw="R1", discard="R3", rules={"misplay_penalty": 2})
    do(game, "0:draw")
    rejected(game, "0:B5")
    game = position(["B5 R6", "G1 G2"], draw="R1", discard="R3")
    assert "0:B5" not in legal(game, 0)
    assert "match" in rejected(game, "0:B5")


# ------------------------------------------------------- last-card effects
def test_last_card_draw_two_still_draws_and_is_scored() -> None:
    game = position(["R+2", "G1 G2", "B1 B2"], draw="Y9 W", discard="R3")
    do(game, "0:R+2")
    assert game.phase is Phase.ROUND_OVER and game.round_winner == 0
    assert hand(game, 1) == ["G1", "G2", "W", "Y9"]
    assert game.round_points == [1 + 2 + 9 + 50 + 1 + 2, 0, 0]


def test_last_card_wild_draw_four_is_not_challenged() -> None:
    game = position(["W+4", "G1 G2", "B1 B2"], draw="Y1 Y2 Y3 Y4", discard="R3")
    events = do(game, "0:W+4>G")
    assert K.CHALLENGED not in kinds(events)
    assert game.phase is Phase.ROUND_OVER and len(game.hands[1]) == 6
    assert game.round_points[0] == 3 + 10 + 3


# --------------------------------------------------------------- scoring
def test_standard_scoring_and_target() -> None:
    game = position(["R5", "G1 W", "B+2 B9"], discard="R3", rules={"target_score": 80})
    events = do(game, "0:R5")
    ended = next(e for e in events if e.kind is K.ROUND_ENDED)
    assert ended.data["points"] == [80, 0, 0] and game.scores == [80, 0, 0]
    assert game.is_over() and game.match_winner == 0
    assert [e.kind for e in events][-1] is K.MATCH_ENDED
    assert all(game.legal_actions(seat) == [] for seat in range(3))


def test_standard_scoring_below_target_goes_on() -> None:
    game = position(["R5", "G1 W", "B+2 B9"], discard="R3")
    do(game, "0:R5")
    assert game.phase is Phase.ROUND_OVER and not game.is_over()
    assert game.current_player is None
    for seat in range(3):
        assert legal(game, seat) == [f"{seat}:next"]
    rejected(game, "0:draw")
    assert game.round_winner == 0


def test_penalty_scoring() -> None:
    game = position(["R5", "G1 W", "B+2 B9"], discard="R3",
                    rules={"scoring": "penalty", "target_score": 60})
    do(game, "0:R5")
    assert game.round_points == [0, 51, 29]
    assert game.phase is Phase.ROUND_OVER
    game = position(["R5", "G1 W", "B+2 B9"], discard="R3", scores=[0, 0, 40],
                    rules={"scoring": "penalty", "target_score": 60})
    do(game, "0:R5")
    assert game.scores == [0, 51, 69]
    assert game.is_over() and game.match_winner == 0


def test_penalty_lowest_total_wins_even_if_not_round_winner() -> None:
    game = position(["R5", "G1 G2", "B+2 B9"], discard="R3", scores=[50, 0, 40],
                    rules={"scoring": "penalty", "target_score": 60})
    do(game, "0:R5")
    assert game.scores == [50, 3, 69] and game.match_winner == 1


def test_lone_zero_points() -> None:
    game = position(["R5", "G0", "B+2 B0"], discard="R3", rules={"lone_zero_points": 50})
    do(game, "0:R5")
    assert game.round_points == [70, 0, 0]
    game = position(["R5", "G0", "B+2 B0"], discard="R3", rules={"scoring": "penalty",
                                                                 "lone_zero_points": 50})
    do(game, "0:R5")
    assert game.round_points == [0, 50, 20]


def test_going_out_bonus() -> None:
    rules = {"scoring": "penalty", "going_out_bonus": {"W+4": 50, "R5": 7}}
    game = position(["W+4", "G1 G2", "B1"], draw="Y1 Y2 Y3 Y4", discard="R3", rules=rules)
    do(game, "0:W+4>R")
    assert game.round_points == [-50, 13, 1]
    game = position(["R5", "G1 G2", "B1"], discard="R3", rules=rules)
    do(game, "0:R5")
    assert game.round_points == [-7, 3, 1]
    game = position(["R6", "G1 G2", "B1"], discard="R3", rules=rules)
    do(game, "0:R6")
    assert game.round_points == [0, 3, 1]


def test_rounds_end_the_match() -> None:
    game = position(["R5", "G1 W", "B+2 B9"], discard="R3", rules={"rounds": 1})
    do(game, "0:R5")
    assert game.is_over() and game.match_winner == 0 and game.round_no == 1


def test_elimination() -> None:
    rules = {"scoring": "elimination", "target_score": 30, "hand_size": 2}
    game = position(["R5", "G1 W", "B1 B9", "Y1 Y2"],
                    draw="R1 R2 R4 R6 R7 R8 G3 G4 G5 G6 Y5 Y6", discard="R3", rules=rules)
    events = do(game, "0:R5")
    assert game.scores == [0, 51, 10, 3]
    assert [e.player for e in events if e.kind is K.ELIMINATED] == [1]
    assert game.in_match == [True, False, True, True]
    assert game.phase is Phase.ROUND_OVER
    do(game, "2:next")
    assert game.round_no == 2 and game.dealer == 0  # dealer 3 -> 0
    assert game.hands[1] == [] and all(len(game.hands[s]) == 2 for s in (0, 2, 3))
    assert game.legal_actions(1) == []
    assert conserved(game)


def test_elimination_final_round_winner_wins() -> None:
    rules = {"scoring": "elimination", "target_score": 100, "hand_size": 2}
    for seed in range(5):
        game = position(["R5", "G1 W", "B1 B9"], draw="R1 R2 R4 R6 R7 G3 G4 G5 Y8 Y9",
                        discard="R3", scores=[90, 95, 0], rules=rules, seed=seed)
        do(game, "0:R5")
        assert game.in_match == [True, False, True] and game.scores == [90, 146, 10]
        do(game, "1:next")
        assert game.final_round and game.round_no == 2
        rng = random.Random(seed)
        while game.phase is not Phase.MATCH_OVER:
            assert game.phase is not Phase.ROUND_OVER, "the final round ends the match"
            seat = game.current_player
            assert seat in (0, 2)
            acts = game.legal_actions(seat)
            plays = [a for a in acts if A.describe(a).type == "play"]
            game.apply(rng.choice(plays or acts))
        assert game.match_winner == game.round_winner


def test_lazy_scoring() -> None:
    rules = {"scoring": "lazy", "rounds": 2, "hand_size": 2}
    game = position(["R5", "G1 W", "B+2 B9", "Y1 Y2"],
                    draw="R1 R2 R4 R6 R7 R8 G3 G4 G5 G6 Y5 Y6", discard="R3", dealer=3,
                    rules=rules)
    do(game, "0:R5")
    assert game.round_points == [0, 0, 0, 0] and game.scores == [0, 0, 0, 0]
    assert game.round_winner == 0 and game.round_loser == 1
    do(game, "3:next")
    assert game.dealer == 1
    start = [e for e in game.log if e.kind is K.START_CARD][-1]
    if card_code(start.card)[1:].isdigit():
        assert game.current_player == 0


def test_lazy_loser_ties() -> None:
    rules = {"scoring": "lazy", "rounds": 3}
    # equal points: more cards loses
    game = position(["R5", "G1 G9", "B+2", "Y4 Y6"], discard="R3", dealer=3, rules=rules)
    do(game, "0:R5")
    assert game.round_loser == 2
    game = position(["R5", "G1 G9", "B4 B6", "Y4 Y6"], discard="R3", dealer=3, rules=rules)
    do(game, "0:R5")
    assert game.round_loser == 3
    # equal points and cards: the later seat after the dealer (0, 1, 2, 3 -> 3)
    game = position(["R5", "G1 G9", "B4 B6", "Y4 Y6 Y0"], discard="R3", dealer=3,
                    rules=rules)
    do(game, "0:R5")
    assert game.round_loser == 3
    game = position(["R5", "G4 G6", "B4 B6", "Y1"], discard="R3", dealer=3, rules=rules)
    do(game, "0:R5")
    assert game.round_loser == 2


# ----------------------------------------------------------------- teams
def test_pairs_standard_scoring_skips_the_partner() -> None:
    game = position(["R5", "G1 W", "B9 B8", "Y1 Y2"], discard="R3", rules={"teams": "pairs"})
    do(game, "0:R5")
    assert game.round_points == [54, 0, 54, 0]
    assert game.scores == [54, 0, 54, 0]


def test_pairs_partner_hands_visible() -> None:
    rules = {"teams": "pairs", "players": 6, "partner_hands_visible": True}
    game = position(["R5 R6", "G1 W", "B9 B8", "Y1 Y2", "G4 G5", "B1 B2"], discard="R3",
                    draw="Y7", rules=rules)
    view = game.observation(0)
    assert view.partner_hand == tuple(sorted(cards("Y1 Y2")))
    assert game.observation(4).partner_hand == tuple(sorted(cards("G1 W")))
    dealt = [e for e in game.log if e.kind is K.DEALT]
    assert [set(e.visible_to or ()) for e in dealt] == [
        {0, 3}, {1, 4}, {2, 5}, {3, 0}, {4, 1}, {5, 2}]
    events = do(game, "0:draw")
    assert set(events[0].visible_to or ()) == {0, 3}
    assert redact(events[0], 3).cards == tuple(cards("Y7"))
    assert redact(events[0], 1).cards == ()
    hidden = position(["R5 R6", "G1 W", "B9 B8", "Y1 Y2"], discard="R3",
                      rules={"teams": "pairs"})
    assert hidden.observation(0).partner_hand is None


# ---------------------------------------------------------- play to last
def test_play_to_last() -> None:
    game = position(["R5", "R6 R8", "R2 R9", "Y1 Y2"], draw="Y7 G8 G9", discard="R3",
                    rules={"play_to_last": True})
    events = do(game, "0:R5")
    assert [e.amount for e in events if e.kind is K.WENT_OUT] == [1]
    assert game.phase is Phase.PLAY and game.finish_order == [0]
    assert game.round_winner == 0
    assert game.round_points == [6 + 8 + 2 + 9 + 1 + 2, 0, 0, 0] and game.scores[0] == 28
    assert game.current_player == 1
    assert game.legal_actions(0) == [] and game.active == [False, True, True, True]
    do(game, "1:R6!")
    do(game, "2:R2!")
    do(game, "3:draw")
    assert game.current_player == 1  # seat 0 is passed over
    do(game, "1:R8")
    assert game.finish_order == [0, 1] and game.current_player == 2
    do(game, "2:R9")
    assert game.phase is Phase.ROUND_OVER
    assert game.finish_order == [0, 1, 2]
    assert game.round_winner == 0 and game.scores == [28, 0, 0, 0]


def test_play_to_last_lazy_last_one_left_loses() -> None:
    game = position(["R5", "R6", "B1 B9"], discard="R3",
                    rules={"play_to_last": True, "scoring": "lazy", "rounds": 2})
    do(game, "0:R5")
    do(game, "1:R6")
    assert game.phase is Phase.ROUND_OVER
    assert game.finish_order == [0, 1] and game.round_loser == 2 and game.round_winner == 0


# ------------------------------------------------------ progressive refill
def test_progressive_refill() -> None:
    game = position(["R5", "G1 G2", "B1 B2"], draw="R7 R8 G5 G6 G7", discard="R3",
                    rules={"progressive_refill": True, "hand_size": 3})
    assert game.levels == [3, 3, 3]
    events = do(game, "0:R5")
    assert K.REFILLED in kinds(events) and game.levels[0] == 2
    assert hand(game, 0) == ["R7", "R8"]
    assert game.phase is Phase.PLAY and game.current_player == 1
    assert "1:catch 0" not in legal(game, 1)


def test_progressive_refill_level_one_wins() -> None:
    game = position(["R5", "G1 G2", "B1 B2"], draw="R7 R8", discard="R3",
                    rules={"progressive_refill": True, "hand_size": 1})
    do(game, "0:R5")
    assert game.phase is Phase.ROUND_OVER and game.round_winner == 0


# ------------------------------------------------------- next round / deal
def test_next_round_dealer_rotates_clockwise() -> None:
    rules = Rules.preset("official", players=3, dealer="seat0", target_score=10**6)
    game = Game(rules, 5)
    dealers = [game.dealer]
    rng = random.Random(1)
    while len(dealers) < 5:
        if game.phase is Phase.ROUND_OVER:
            do(game, f"{rng.randrange(3)}:next")
            dealers.append(game.dealer)
            assert game.round_no == len(dealers)
            continue
        seat = game.current_player
        assert seat is not None
        acts = game.legal_actions(seat)
        plays = [a for a in acts if A.describe(a).type == "play"]
        game.apply(rng.choice(plays or acts))
    assert dealers == [0, 1, 2, 0, 1]


def test_next_is_rejected_during_a_round_and_after_the_match() -> None:
    game = position(["R5", "G1 W", "B+2 B9"], discard="R3", rules={"target_score": 10})
    rejected(game, "0:next")
    do(game, "0:R5")
    assert game.is_over()
    assert "match is over" in rejected(game, "1:next")


# ------------------------------------------------------------------ API
def test_game_accepts_rule_strings_and_mappings() -> None:
    assert Game("official,players=3", 4) == Game(Rules.preset("official", players=3), 4)
    assert Game({"players": 3}, 4) == Game(Rules.preset("official", players=3), 4)
    assert Game().rules == Rules() and Game().seed == 0


@pytest.mark.parametrize("seed", [-1, 2**64, 1.0, "1", True, None])
def test_bad_seeds_are_refused(seed: Any) -> None:
    with pytest.raises(ValueError):
        Game("official", seed)


def test_equality_state_key_and_repr() -> None:
    a = Game("official", 11)
    b = Game("official", 11)
    assert a == b and a.state_key() == b.state_key()
    assert a != Game("official", 12)
    assert (a == "game") is False
    with pytest.raises(TypeError):
        hash(a)
    seat = a.current_player
    assert seat is not None
    action = a.legal_actions(seat)[-1]
    assert a.is_legal(action) and not a.is_legal(action + 2**40)
    a.apply(action)
    assert a != b and a.state_key() != b.state_key()
    assert "seed=11" in repr(a)


def test_copy_is_independent() -> None:
    game = position(["R5 R6 B1", "G1 G2", "B7 B8"], draw="Y1 Y2", discard="R3")
    clone = game.copy()
    assert clone == game and clone is not game
    do(clone, "0:R5")
    assert game.discard == cards("R3") and clone.discard == cards("R3 R5")
    assert game != clone
    assert len(game.log) < len(clone.log)
    assert hand(game, 0) == ["B1", "R5", "R6"]
    clone.hands[1].append(parse_card("W"))
    assert hand(game, 1) == ["G1", "G2"]


def test_snapshot_and_restore() -> None:
    game = position(["R5 R6 B1", "G1 G2 R2", "B7 B8"], draw="Y1 Y2", discard="R3")
    snap = game.snapshot()
    do(game, "0:R5")
    do(game, "1:R2")
    assert game != snap
    game.restore(snap)
    assert game == snap
    assert legal(game, 0) == legal(snap, 0)
    # the snapshot stays usable after the game moves on again
    do(game, "0:R6")
    game.restore(snap)
    assert game == snap and hand(game, 0) == ["B1", "R5", "R6"]


def test_accessors() -> None:
    game = position(["W+4 R5 G1", "G2 G3", "B1 B2"], draw="Y1 Y2 Y3 Y4")
    assert game.top == parse_card("Y3") and game.hand_sizes() == [3, 2, 2]
    assert not game.is_over() and not game.is_round_over()
    do(game, "0:W+4>B")
    assert game.pending_draw() == 4
    assert [format_action(a) for a in game.history] == ["0:W+4>B"]


# ------------------------------------------------------------------ repetition
def _forced_loop() -> Game:
    """Three players who cannot match the top card, one card to reshuffle, ``zero_rotate``
    and ``play_drawn = "must"``: every turn draws the one card, must play it, and the 0
    passes the same hands on (docs/rules.md, Blocked rounds, repetition)."""
    return position(["G5 B3", "G7 B9", "G2 B4 B6"], discard="R0 Y0", dealer=2,
                    rules={"zero_rotate": True, "play_drawn": "must"})


def _forced_step(game: Game) -> list[Event]:
    """Draw, or play the drawn card."""
    seat = game.current_player
    assert seat is not None
    acts = game.legal_actions(seat)
    return game.apply(acts[0] if game.phase is Phase.DRAWN else acts[-1])


def _play_forced(game: Game) -> list[Event]:
    events: list[Event] = []
    while not game.is_round_over():
        events += _forced_step(game)
    return events


def test_repetition_blocks_a_forced_loop() -> None:
    game = _forced_loop()
    events = _play_forced(game)
    assert kinds(events).count(EventKind.REPEATED) == 1
    assert kinds(events)[-2:] == [EventKind.REPEATED, EventKind.ROUND_ENDED]
    assert events[-1].data["blocked"] is True
    # each turn reshuffled; the loop is 6 positions long, the 13th draw saw the third visit
    assert kinds(events).count(EventKind.RESHUFFLED) == 13
    assert max(game.positions.values()) == 3 and len(game.positions) == 6
    assert game.round_winner == 0 and game.round_points == [28, 0, 0]
    assert conserved(game)


def test_repetition_counts_only_after_cards_come_back() -> None:
    game = position(["R5 R6 B1", "G1 G2 R2", "B7 B8"], draw="Y1 Y2", discard="R3")
    do(game, "0:R5")
    do(game, "1:R2")
    do(game, "2:draw")
    assert game.positions == {}
    game = _forced_loop()
    do(game, "0:draw")
    assert list(game.positions.values()) == [1]
    assert game.positions == {game.position_digest(): 1}


def test_repetition_counts_a_wild_draw_four_taken_back() -> None:
    """A guilty Wild Draw Four taken back with nothing to draw leaves the position as it
    was: two players doing it in turn would loop without any reshuffle."""
    game = position(["W+4 R2", "W+4 R8"], draw="G1 G2", discard="R7", dealer=1,
                    rules={"challenge_guilty_takes_back": True, "challenge_guilty_draw": 0})
    seen: list[EventKind] = []
    for _ in range(2):
        seen += kinds(do(game, "0:W+4>B")) + kinds(do(game, "1:challenge"))
        seen += kinds(do(game, "1:W+4>G")) + kinds(do(game, "0:challenge"))
    assert EventKind.REPEATED not in seen and sorted(game.positions.values()) == [2, 2]
    do(game, "0:W+4>B")
    assert kinds(do(game, "1:challenge"))[-2:] == [EventKind.REPEATED, EventKind.ROUND_ENDED]
    assert game.is_round_over() and game.round_winner == 0  # R2 against R8


def test_repetition_counts_travel_with_copies_and_state_json() -> None:
    game = _forced_loop()
    for _ in range(8):
        _forced_step(game)
    counts = dict(game.positions)
    assert counts and game.to_dict()["positions"] == counts
    again = Game.from_dict(game.to_dict())
    assert again == game and again.positions == counts
    clone = game.copy()
    _play_forced(clone)
    assert game.positions == counts  # the copy's counts are its own
    # a state written before the rule existed has no counts: it reads as none
    data = game.to_dict()
    del data["positions"]
    assert Game.from_dict(data).positions == {}
    for bad in ([1], {"abc": 0}, {"abc": "2"}, {"abc": True}):
        data["positions"] = bad
        with pytest.raises(SetupError, match="positions"):
            Game.from_dict(data)


def test_repetition_is_told_in_the_transcript() -> None:
    from unokit.text.transcript import describe_event

    game = _forced_loop()
    repeated = [e for e in _play_forced(game) if e.kind is EventKind.REPEATED]
    assert "has come back 3 times" in describe_event(repeated[0], game)
