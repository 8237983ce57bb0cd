"""Transcripts: readable lines, and a viewer never sees cards hidden from them."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.text import Text

from strategies import pick_action, rule_sets, seeds
from unokit.engine.cards import parse_card
from unokit.engine.events import Event, EventKind
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.text.transcript import _HANDLERS, EVERYONE, describe_event, seat_names, transcript

NAMES = ["Alice", "Bob", "Cara", "Dan"]
K = EventKind


def ev(kind: EventKind, **fields: object) -> Event:
    return Event(0, kind, **fields)  # type: ignore[arg-type]


def cards(*codes: str) -> tuple[int, ...]:
    return tuple(parse_card(code) for code in codes)


def test_examples() -> None:
    says = [
        (ev(K.ROUND_STARTED, player=0, amount=1), "Round 1: Alice deals."),
        (ev(K.PLAYED, player=1, card=parse_card("R5")), "Bob plays R5."),
        (ev(K.DREW, player=2, cards=cards("G7", "B1"), amount=2, reason="draw_two",
            visible_to=(2,)), "Cara draws 2 cards (Draw Two)."),
        (ev(K.PLAYED, player=3, card=parse_card("W+4"), color=3),
         "Dan plays W+4 and names blue."),
        (ev(K.UNO_CALLED, player=1), "Bob calls UNO!"),
        (ev(K.ROUND_ENDED, player=0, data={"round": 1, "points": [72, 0, 0, 0],
                                           "scores": [72, 0, 0, 0], "blocked": False}),
         "Round 1 ends: Alice wins 72 points. Scores: Alice 72, Bob 0, Cara 0, Dan 0."),
        (ev(K.START_CARD, card=parse_card("Y+2")), "The start card is Y+2."),
        (ev(K.SKIPPED, player=2), "Cara is skipped."),
        (ev(K.REVERSED, amount=-1), "Play reverses: now counter-clockwise."),
        (ev(K.CAUGHT, player=0, target=3), "Alice catches Dan, who did not call UNO!"),
        (ev(K.CHALLENGED, player=1, target=0, reason="guilty"),
         "Bob challenges Alice's Wild Draw Four: Alice is guilty!"),
        (ev(K.COLOR_CHOSEN, player=1, color=2), "Bob names green."),
        (ev(K.MATCH_ENDED, player=2, data={"scores": [1, 2, 503, 4]}),
         "The match is over: Cara wins. Final scores: Alice 1, Bob 2, Cara 503, Dan 4."),
    ]
    for event, text in says:
        assert describe_event(event, None, NAMES) == text


def test_drawn_cards_shown_to_the_drawer_only() -> None:
    drew = ev(K.DREW, player=1, cards=cards("G7"), amount=1, reason="turn", visible_to=(1,))
    assert describe_event(drew, None, NAMES) == "Bob draws 1 card."
    assert describe_event(drew, 0, NAMES) == "Bob draws 1 card."
    assert describe_event(drew, 1, NAMES) == "Bob draws 1 card: G7."
    assert describe_event(drew, EVERYONE, NAMES) == "Bob draws 1 card: G7."


def test_dealt_and_shown_hands() -> None:
    dealt = ev(K.DEALT, player=2, cards=cards("R1", "W"), amount=2, visible_to=(2,))
    assert describe_event(dealt, 3, NAMES) == "Cara is dealt 2 cards."
    assert describe_event(dealt, 2, NAMES) == "Cara is dealt 2 cards: R1 W."
    shown = ev(K.HAND_SHOWN, player=1, target=0, cards=cards("B2"), amount=1,
               visible_to=(0, 1))
    assert describe_event(shown, 1, NAMES) == "Alice shows the hand to Bob: B2."
    assert describe_event(shown, 2, NAMES) == "Alice shows the hand to Bob (1 card)."


def test_default_names_and_penalty_rounds() -> None:
    ended = ev(K.ROUND_ENDED, player=1, data={"round": 3, "points": [12, -20, 0],
                                              "scores": [40, 5, 7], "blocked": True})
    assert describe_event(ended) == (
        "Round 3 is blocked: Seat 1 has the lowest hand and wins. "
        "Points: Seat 0 12, Seat 1 -20, Seat 2 0. Scores: Seat 0 40, Seat 1 5, Seat 2 7.")
    assert seat_names(3, ["Ann"]) == ["Ann", "Seat 1", "Seat 2"]


def test_every_event_kind_has_a_line() -> None:
    assert set(_HANDLERS) == set(EventKind)


def test_nothing_left_to_draw() -> None:
    drew = ev(K.DREW, player=0, amount=0, reason="uno_penalty", visible_to=(0,))
    assert describe_event(drew, None, NAMES) == (
        "Alice draws no card (nothing left to draw; missed UNO call).")


def test_markup_colours_cards_and_escapes_names() -> None:
    played = ev(K.PLAYED, player=0, card=parse_card("R5"))
    assert describe_event(played, names=["[b]x"], markup=True) == "\\[b]x plays [bold red]R5[/]."


def random_log(rules: Rules, seed: int, actor_seed: int, steps: int = 400) -> Game:
    game = Game(rules, seed)
    rng = random.Random(actor_seed)
    for _ in range(steps):
        if game.is_over():
            break
        game.apply(pick_action(game, rng))
    return game


def _other_cards(count: int) -> tuple[int, ...]:
    return (parse_card("Y3"),) * count


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), seed=seeds, actor_seed=st.integers(0, 2**32))
def test_viewer_never_sees_hidden_cards(rules: Rules, seed: int, actor_seed: int) -> None:
    game = random_log(rules, seed, actor_seed)
    names = [f"P{seat}" for seat in range(game.n)]
    for event in game.log:
        for viewer in (None, *range(game.n)):
            line = describe_event(event, viewer, names)
            hidden = event.visible_to is not None and viewer not in event.visible_to
            if hidden:
                # The line reads the same whatever the hidden cards are.
                swapped = event._replace(cards=_other_cards(len(event.cards)))
                assert describe_event(swapped, viewer, names) == line
                assert ":" not in line
            elif event.cards:
                assert describe_event(event, EVERYONE, names) == line


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), seed=seeds, actor_seed=st.integers(0, 2**32))
def test_markup_renders_to_the_plain_line(rules: Rules, seed: int, actor_seed: int) -> None:
    game = random_log(rules, seed, actor_seed, steps=150)
    names = ["A[b]", "B", "C", "D", "E", "F", "G", "H", "I", "J"][: game.n]
    plain = transcript(game.log, 0, names)
    rich = transcript(game.log, 0, names, markup=True)
    assert [Text.from_markup(line).plain for line in rich] == plain


def test_transcript_is_deterministic() -> None:
    rules = Rules.preset("official", players=3, rounds=1)
    one = transcript(random_log(rules, 5, 5).log, EVERYONE)
    two = transcript(random_log(rules, 5, 5).log, EVERYONE)
    assert one == two
    assert all(line and line.isprintable() for line in one)


# ------------------------------------------------------------------ untrusted names
def test_names_are_printed_without_controls_markup_or_emoji() -> None:
    import io

    from rich.console import Console

    from unokit.text.safe import NAME_LIMIT, display_name, display_text

    names = ["A\x1b[31mRED", "B\nSeat 1 plays W+4.", ":smile: [bold]x[/]", "y" * 10_000]
    event = Event(5, EventKind.CAUGHT, player=0, target=1)
    for markup in (False, True):
        line = describe_event(event, names=names, markup=markup)
        console = Console(record=True, width=500, emoji=False, highlight=False,
                          file=io.StringIO())
        console.print(line, markup=markup)
        shown = console.export_text()
        assert shown.count("\n") == 1 and "\x1b" not in shown
        assert shown.startswith("A\\x1b[31mRED catches B\\nSeat 1 plays W+4., who")
    said = describe_event(Event(6, EventKind.PLAYED, player=2, card=1), names=names,
                          markup=True)
    assert said.startswith(r":smile: \[bold]x\[/] plays")
    long = describe_event(Event(7, EventKind.SKIPPED, player=3), names=names)
    assert long == display_name("y" * 10_000) + " is skipped." and len(long) < NAME_LIMIT + 20
    assert seat_names(2, ["\u202eevil", "ok"]) == ["\\u202eevil", "ok"]
    assert display_text("\ud800x") == "\\ud800x"  # a lone surrogate cannot reach stdout
    assert display_text("a\u2028b\u2029c\x7f") == "a\\u2028b\\u2029c\\x7f"
    assert display_text("é 漢字 😀") == "é 漢字 😀"  # ordinary text is left alone
    assert len(display_text("z" * 5000)) == 2000 and display_text("z" * 5000).endswith("…")
