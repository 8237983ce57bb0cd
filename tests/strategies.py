"""Shared hypothesis strategies and playout helpers for the engine tests.

``rule_sets()`` draws valid rule sets within RULES.md sections 1-3 (the keys the engine
implements), with small targets and round limits so that random matches end quickly.
``pick_action`` (:func:`unokit.testing.actors.random_action`) picks among the legal actions
of every seat, so out-of-turn UNO calls and catches happen at random moments.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import strategies as st

from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.testing.actors import any_seat, random_playout
from unokit.testing.actors import random_action as pick_action
from unokit.testing.invariants import all_legal

__all__ = ["all_legal", "card_multiset", "official_rule_sets", "pick_action", "playout",
           "rule_dicts", "rule_sets", "seeds"]

CLASSIC_DECK_SIZE = 108

seeds = st.integers(min_value=0, max_value=2**64 - 1)
"""Any game seed."""


@st.composite
def rule_dicts(draw: st.DrawFn, *, small: bool = True) -> dict[str, Any]:
    """A mapping of section 1-3 rule keys that :meth:`Rules.from_dict` accepts.

    With ``small`` the match is kept short (targets up to 200, at most 3 rounds when a
    round limit is drawn) so that random playouts end within a few thousand actions,
    but for the corner of ``draw = "until_playable"`` with ``play_to_last`` and
    ``progressive_refill`` at a big table, whose random matches last up to about 40,000
    (``test_properties.MAX_STEPS``).
    """
    teams = draw(st.sampled_from(["none", "none", "pairs"]))
    if teams == "pairs":
        players = draw(st.sampled_from([4, 6, 8, 10]))
        scoring = draw(st.sampled_from(["standard", "penalty"]))
    else:
        players = draw(st.integers(min_value=2, max_value=10))
        choices = ["standard", "penalty", "lazy"] + (["elimination"] if players >= 3 else [])
        scoring = draw(st.sampled_from(choices))
    wc = draw(st.sampled_from([0, 0, 1, 4]))
    deck_size = CLASSIC_DECK_SIZE + wc
    max_hand = min(15, (deck_size - 1) // players)
    if small:
        max_hand = min(max_hand, 8)
    refill = draw(st.booleans())
    if small and refill:
        max_hand = min(max_hand, 4)
    hand_size = draw(st.integers(min_value=1, max_value=max_hand))
    data: dict[str, Any] = {
        "players": players,
        "hand_size": hand_size,
        "dealer": draw(st.sampled_from(["high_card", "random", "seat0"])),
        "first_card": draw(st.sampled_from(["official", "number_only"])),
        "draw": draw(st.sampled_from(["one", "until_playable"])),
        "play_drawn": draw(st.sampled_from(["may", "must", "never"])),
        "draw_when_playable": draw(st.booleans()),
        "two_player_reverse_skips": draw(st.booleans()),
        "wild_draw_four": draw(st.sampled_from(["challenge", "strict", "free"])),
        "challenge_guilty_draw": draw(st.integers(0, 6)),
        "challenge_innocent_draw": draw(st.integers(0, 8)),
        "challenge_guilty_takes_back": draw(st.booleans()),
        "uno_penalty": draw(st.integers(0, 4)),
        "uno_self_catch": draw(st.booleans()),
        "false_catch_penalty": draw(st.sampled_from([0, 0, 1, 2])),
        "misplay_penalty": draw(st.sampled_from([0, 0, 1, 2])),
        "scoring": scoring,
        "lone_zero_points": draw(st.sampled_from([0, 0, 50])),
        "teams": teams,
        "play_to_last": teams == "none" and draw(st.booleans()),
        "progressive_refill": refill,
    }
    if wc:
        data["extra_cards"] = {"WC": wc}
    if teams == "pairs":
        data["partner_hands_visible"] = draw(st.booleans())
    if small:
        top = 100 if scoring == "elimination" else 200
        data["target_score"] = draw(st.integers(min_value=1, max_value=top))
        rounds = draw(st.one_of(st.none(), st.integers(min_value=1, max_value=3)))
    else:
        data["target_score"] = draw(st.integers(min_value=1, max_value=2000))
        rounds = draw(st.one_of(st.none(), st.integers(min_value=1, max_value=50)))
    if scoring == "lazy" and rounds is None:
        rounds = draw(st.integers(min_value=1, max_value=3))
    data["rounds"] = rounds
    if scoring in ("penalty", "elimination") and draw(st.booleans()):
        codes = st.sampled_from(["W", "W+4", "R0", "G+2", "BS", "YR", "B9"] + ["WC"] * bool(wc))
        data["going_out_bonus"] = draw(
            st.dictionaries(codes, st.integers(min_value=1, max_value=60), max_size=3)
        )
    if scoring == "lazy":
        del data["target_score"]  # lazy scoring keeps no points: a target has no effect
    if data["wild_draw_four"] != "challenge":  # nothing to challenge: the keys have no effect
        for key in ("challenge_guilty_draw", "challenge_innocent_draw",
                    "challenge_guilty_takes_back"):
            del data[key]
    return data


def rule_sets(*, small: bool = True) -> st.SearchStrategy[Rules]:
    """Valid rule sets within RULES.md sections 1-3."""
    return rule_dicts(small=small).map(Rules.from_dict)


def official_rule_sets() -> st.SearchStrategy[Rules]:
    """The official preset with 2-10 players and small targets."""
    return st.builds(
        lambda players, target, rounds: Rules.preset(
            "official", players=players, target_score=target, rounds=rounds
        ),
        st.integers(min_value=2, max_value=10),
        st.integers(min_value=1, max_value=200),
        st.one_of(st.none(), st.integers(min_value=1, max_value=3)),
    )


# ------------------------------------------------------------------ playouts
# The random actor ships with the package (unokit.testing.actors): ``pick_action`` is its
# ``random_action``, and ``all_legal`` the invariants' own.


def card_multiset(game: Game) -> Counter[int]:
    """Every card of the game where it lies now."""
    counts: Counter[int] = Counter()
    for hand in game.hands:
        counts.update(hand)
    counts.update(game.draw_pile)
    counts.update(game.discard)
    return counts


def playout(rules: Rules, seed: int, actor_seed: int, max_steps: int = 20000) -> Game:
    """Play a whole match with the random actor; fail if it does not end."""
    return random_playout(rules, seed, actor_seed, max_steps=max_steps, actor=any_seat)
