"""Which rule sets the fast simulator plays, and the numbers its kernel reads them from.

The simulator plays the classic, UNO Attack and H2O decks with every rule of RULES.md
sections 2, 3 and 6 that a match of the presets ``official``, ``classic_ru``,
``stacking``, ``seven_o``, ``jump_in``, ``party``, ``attack``, ``h2o``, ``pairs`` and
``online`` can use (and ``draw = "until_playable"``, ``wild_color = "next_in_circle"``,
``progressive_refill``, the launcher's two keys), with ``standard``, ``penalty`` or
``lazy`` scoring. Anything else is refused, naming the keys, rather than played under
simpler rules:

>>> from unokit.engine.rules import Rules
>>> check_supported(Rules.preset("party", players=6))
>>> check_supported(Rules.load("attack,launcher_fire_chance=0.5,seven_swap=true"))
>>> check_supported(Rules.load("attack,players=4,uno_slap=true"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
unokit.engine.errors.RulesError: invalid rule set: uno_slap: the simulator ...

What it plays of each key is declared in :data:`SUPPORT`: a key added to the rules is
refused until it is declared there. Keys that only matter for cards the simulator's deck
does not hold (``blank_card_effect``, ``silence_penalty`` without ``silence``), and
``partner_hands_visible`` (the simulator's policies look at no other hand), change
nothing there and are accepted.

:data:`CORE_SUPPORT` is the part that components driving the kernel's actions themselves
(the RL environment's ``sim`` backend) play: it leaves out the keys whose play the
simulator's own game loop adds (jump-ins are offered by :func:`unokit.sim.loop.jump_in`),
and those whose effects such a component has not been checked against.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from unokit.engine.cards import parse_card
from unokit.engine.errors import Reason, RulesError
from unokit.engine.rules import Rules
from unokit.engine.support import ANY, INERT, Declaration, only_default, refusals

SUPPORTED_PRESETS = ("official", "classic_ru", "stacking", "seven_o", "jump_in", "party",
                     "attack", "h2o", "pairs", "online")
"""The presets the simulator plays as they are (with any number of players)."""

_DEALER = {"high_card": 0, "random": 1, "seat0": 2}
_PLAY_DRAWN = {"may": 0, "must": 1, "never": 2}
_WD4 = {"challenge": 0, "strict": 1, "free": 2}
_CHAIN = {"none": 0, "deflect": 1, "stack": 2}
_SKIP_ON_SKIP = {"none": 0, "same_color": 1, "any": 2}

SUPPORT: Declaration = {
    "players": ANY,
    "hand_size": ANY,
    "deck": frozenset({"classic", "h2o", "attack"}),
    "extra_cards": frozenset({()}),
    "dealer": frozenset(_DEALER),
    "first_card": frozenset({"official", "number_only"}),
    "draw": frozenset({"one", "until_playable"}),
    "play_drawn": frozenset(_PLAY_DRAWN),
    "draw_when_playable": ANY,
    "two_player_reverse_skips": ANY,
    "wild_draw_four": frozenset(_WD4),
    "challenge_guilty_draw": ANY,
    "challenge_innocent_draw": ANY,
    "challenge_guilty_takes_back": ANY,
    "uno_penalty": ANY,
    "uno_self_catch": ANY,
    "false_catch_penalty": only_default("false_catch_penalty"),
    "misplay_penalty": ANY,
    "scoring": frozenset({"standard", "penalty", "lazy"}),
    "target_score": ANY,
    "rounds": ANY,
    "lone_zero_points": ANY,
    "going_out_bonus": ANY,
    "teams": ANY,
    "partner_hands_visible": INERT,  # what a seat sees: no policy looks at other hands
    "play_to_last": only_default("play_to_last"),
    "progressive_refill": ANY,
    "draw_two_on_draw_two": frozenset(_CHAIN),
    "draw_four_on_draw_four": frozenset({"none", "stack"}),
    "draw_two_on_draw_four": frozenset(_CHAIN),
    "draw_four_on_draw_two": frozenset({"none", "stack"}),
    "reverse_deflects_draw": ANY,
    "skip_on_skip": frozenset(_SKIP_ON_SKIP),
    "jump_in": ANY,
    "seven_swap": ANY,
    "zero_rotate": ANY,
    "seven_zero_last_card": frozenset({"no_effect", "apply"}),
    "five_exchange": only_default("five_exchange"),
    "multi_play": only_default("multi_play"),
    "uno_slap": only_default("uno_slap"),
    "silence": only_default("silence"),
    "silence_penalty": INERT,  # silence is always off
    "wild_color": ANY,
    "blank_card_effect": INERT,  # the classic deck holds no blank card
    "launcher_fire_chance": ANY,
    "launcher_max_burst": ANY,
}
"""What the simulator plays of each rule key (see :mod:`unokit.engine.support`)."""

CORE_SUPPORT: Declaration = dict(SUPPORT) | {
    "deck": frozenset({"classic"}),
    "teams": only_default("teams"),
    "partner_hands_visible": only_default("partner_hands_visible"),
    "jump_in": only_default("jump_in"),
    "wild_color": only_default("wild_color"),
    "misplay_penalty": only_default("misplay_penalty"),
    "scoring": frozenset({"standard", "penalty"}),
    "progressive_refill": only_default("progressive_refill"),
}
"""What the kernel plays for a component that drives its actions itself (see the
module docstring): :data:`SUPPORT` less the Attack and H2O decks, teams, jump-ins, the
colour wheel, misplays, lazy scoring and the refills of ``progressive_refill``."""

_WHY = {
    "extra_cards": Reason("the simulator plays the decks as they are, without extra cards"),
}
"""Reasons clearer than the generic one, by key."""

# Indices into the kernel's rule parameters (an int64 array). The codes of the keys with
# choices are in the tables above (R_ROUNDS 0: no limit; the four chain keys R_D2D2 to
# R_D4D2 by _CHAIN).
(R_N, R_HAND, R_DEALER, R_NUMBER_ONLY, R_DRAW_ONE, R_PLAY_DRAWN, R_DWP, R_REV_SKIPS, R_WD4,
 R_GUILTY_DRAW, R_INNOCENT_DRAW, R_TAKES_BACK, R_UNO_PENALTY, R_SELF_CATCH,
 R_PENALTY_SCORING, R_TARGET, R_ROUNDS, R_LONE_ZERO, R_D2D2, R_D4D4, R_D2D4, R_D4D2,
 R_REV_DEFLECT, R_SKIP_ON_SKIP, R_SEVEN_SWAP, R_ZERO_ROTATE, R_SEVEN_ZERO_APPLY,
 R_ANSWER_TWO, R_ANSWER_FOUR, R_DECK_SIZE, R_TEAMS, R_JUMP_IN, R_WHEEL, R_MISPLAY, R_LAZY,
 R_REFILL, R_ATTACK, R_FIRE, R_BURST, N_PARAMS) = range(40)


def unsupported(rules: Rules, support: Declaration = SUPPORT) -> dict[str, str]:
    """Every key of ``rules`` the simulator does not play, with the reason (empty if
    it plays them all), in the order of RULES.md: the keys outside :data:`SUPPORT`, or
    outside ``support``, the declaration of a component running the simulator's kernel."""
    return {key: Reason("{why}; use the engine", why=_WHY.get(key, why))
            for key, why in refusals(support, rules, Reason("the simulator")).items()}


def check_supported(rules: Rules, support: Declaration = SUPPORT) -> None:
    """Raise :class:`~unokit.engine.errors.RulesError` naming every key of ``rules`` that the
    simulator does not play (see :func:`unsupported`); return ``None`` if it plays them
    all."""
    problems = unsupported(rules, support)
    if problems:
        raise RulesError(problems)


def _answers_exist(rules: Rules, two: bool) -> bool:
    """As :func:`unokit.engine.house.answers_exist`: whether any card may answer a Draw Two
    (``two``) or a Wild Draw Four."""
    if rules.reverse_deflects_draw:
        return True
    if two:
        return rules.draw_two_on_draw_two != "none" or rules.draw_four_on_draw_two == "stack"
    return rules.draw_four_on_draw_four == "stack" or rules.draw_two_on_draw_four != "none"


def fire_threshold(chance: float) -> int:
    """The launcher fires when ``(next_u64 >> 11) / 2**53 < chance`` (the engine's
    ``rng.random() < launcher_fire_chance``): exactly when the integer ``next_u64 >> 11``
    is below this threshold, ``ceil(chance * 2**53)`` (``chance * 2**53`` is exact, a
    power of two times a float).

    >>> fire_threshold(0.0), fire_threshold(1.0) == 2**53, fire_threshold(0.3)
    (0, True, 2702159776422298)
    """
    return math.ceil(chance * 2**53)


def kernel_params(rules: Rules) -> npt.NDArray[np.int64]:
    """The rule parameters of the kernel (see the ``R_*`` indices).

    Raises:
        RulesError: the simulator does not play some key of ``rules``.
    """
    check_supported(rules)
    values: dict[int, Any] = {
        R_N: rules.players,
        R_HAND: rules.hand_size,
        R_DEALER: _DEALER[rules.dealer],
        R_NUMBER_ONLY: rules.first_card == "number_only",
        R_DRAW_ONE: rules.draw == "one" and rules.deck != "attack",  # (a press instead)
        R_PLAY_DRAWN: _PLAY_DRAWN[rules.play_drawn],
        R_DWP: rules.draw_when_playable,
        R_REV_SKIPS: rules.two_player_reverse_skips,
        R_WD4: _WD4[rules.wild_draw_four],
        R_GUILTY_DRAW: rules.challenge_guilty_draw,
        R_INNOCENT_DRAW: rules.challenge_innocent_draw,
        R_TAKES_BACK: rules.challenge_guilty_takes_back,
        R_UNO_PENALTY: rules.uno_penalty,
        R_SELF_CATCH: rules.uno_self_catch,
        R_PENALTY_SCORING: rules.scoring == "penalty",
        R_TARGET: rules.target_score,
        R_ROUNDS: rules.rounds or 0,
        R_LONE_ZERO: rules.lone_zero_points,
        R_D2D2: _CHAIN[rules.draw_two_on_draw_two],
        R_D4D4: _CHAIN[rules.draw_four_on_draw_four],
        R_D2D4: _CHAIN[rules.draw_two_on_draw_four],
        R_D4D2: _CHAIN[rules.draw_four_on_draw_two],
        R_REV_DEFLECT: rules.reverse_deflects_draw,
        R_SKIP_ON_SKIP: _SKIP_ON_SKIP[rules.skip_on_skip],
        R_SEVEN_SWAP: rules.seven_swap,
        R_ZERO_ROTATE: rules.zero_rotate,
        R_SEVEN_ZERO_APPLY: rules.seven_zero_last_card == "apply",
        R_ANSWER_TWO: _answers_exist(rules, two=True),
        R_ANSWER_FOUR: _answers_exist(rules, two=False),
        R_DECK_SIZE: len(rules.deck_cards()),
        R_TEAMS: rules.teams == "pairs",
        R_JUMP_IN: rules.jump_in,
        R_WHEEL: rules.wild_color == "next_in_circle",
        R_MISPLAY: rules.misplay_penalty,
        R_LAZY: rules.scoring == "lazy",
        R_REFILL: rules.progressive_refill,
        R_ATTACK: rules.deck == "attack",
        R_FIRE: fire_threshold(rules.launcher_fire_chance),
        R_BURST: rules.launcher_max_burst,
    }
    params = np.zeros(N_PARAMS, dtype=np.int64)
    for index, value in values.items():
        params[index] = int(value)
    return params


def kernel_bonus(rules: Rules) -> npt.NDArray[np.int64]:
    """``going_out_bonus`` as an array indexed by card kind."""
    bonus = np.zeros(80, dtype=np.int64)
    for code, points in rules.going_out_bonus:
        bonus[parse_card(code)] = points
    return bonus


def kernel_deck(rules: Rules) -> npt.NDArray[np.int64]:
    """The deck in canonical order, as the kernel shuffles it."""
    return np.array(rules.deck_cards(), dtype=np.int64)


__all__ = ["CORE_SUPPORT", "SUPPORT", "SUPPORTED_PRESETS", "check_supported", "kernel_bonus",
           "kernel_deck", "kernel_params", "unsupported"]
