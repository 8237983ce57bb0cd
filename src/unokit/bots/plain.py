"""The rules the search bot's playouts play (:class:`Plain`, declared key by key in
:data:`SUPPORT`), and the position a search deals from (:class:`Position`); the playouts
themselves are :mod:`unokit.bots.playout`.

>>> from unokit.engine.rules import Rules
>>> Plain.of(Rules.preset("official", players=2)) is not None
True
>>> Plain.of(Rules.preset("party")) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from unokit.engine.cards import WILD, WILD_BLANK, WILD_DRAW_FOUR
from unokit.engine.errors import Reason
from unokit.engine.rules import Rules
from unokit.engine.support import ANY, INERT, Declaration, only_default, refusals

SUPPORT: Declaration = {
    "players": ANY,
    "hand_size": INERT,  # a playout starts from the hands of the position
    "deck": frozenset({"classic"}),  # the deck check below refuses other wilds
    "extra_cards": ANY,
    "dealer": INERT,
    "first_card": INERT,
    "draw": frozenset({"one", "until_playable"}),
    "play_drawn": frozenset({"may", "must", "never"}),  # the policy plays a card it may
    "draw_when_playable": INERT,  # the policy draws only with nothing to play
    "two_player_reverse_skips": ANY,
    "wild_draw_four": frozenset({"free", "challenge", "strict"}),
    "challenge_guilty_draw": ANY,
    "challenge_innocent_draw": ANY,
    "challenge_guilty_takes_back": ANY,
    "uno_penalty": INERT,  # calls and catches play no part in a playout
    "uno_self_catch": INERT,
    "false_catch_penalty": INERT,
    "misplay_penalty": INERT,  # the policy never misplays
    "scoring": INERT,  # a playout ends when a hand is empty: who went out first
    "target_score": INERT,
    "rounds": INERT,
    "lone_zero_points": INERT,
    "going_out_bonus": INERT,
    "teams": ANY,  # Position.team
    "partner_hands_visible": ANY,  # Position.known
    "play_to_last": INERT,  # changes only what follows the first player out
    "progressive_refill": only_default("progressive_refill"),
    "draw_two_on_draw_two": only_default("draw_two_on_draw_two"),
    "draw_four_on_draw_four": only_default("draw_four_on_draw_four"),
    "draw_two_on_draw_four": only_default("draw_two_on_draw_four"),
    "draw_four_on_draw_two": only_default("draw_four_on_draw_two"),
    "reverse_deflects_draw": only_default("reverse_deflects_draw"),
    "skip_on_skip": only_default("skip_on_skip"),
    "jump_in": INERT,  # out-of-turn plays play no part in a playout
    "seven_swap": only_default("seven_swap"),
    "zero_rotate": only_default("zero_rotate"),
    "seven_zero_last_card": INERT,  # no 7 swaps, no 0 rotates
    "five_exchange": only_default("five_exchange"),
    "multi_play": only_default("multi_play"),
    "uno_slap": INERT,
    "silence": INERT,  # speech plays no part in a playout
    "silence_penalty": INERT,
    "wild_color": only_default("wild_color"),
    "blank_card_effect": ANY,  # the deck check below: a blank must play as a wild
    "launcher_fire_chance": INERT,  # the classic deck has no launcher
    "launcher_max_burst": INERT,
}
"""What the playouts play of each rule key (see :mod:`unokit.engine.support`); beyond
it, :meth:`Plain.refusals` checks the cards of the deck: wilds only ``W``, ``W+4`` and
blanks (``WC``) played as wilds."""

_PLAYED_WILDS = frozenset({WILD, WILD_DRAW_FOUR, WILD_BLANK})


class Plain:
    """A rule set the playouts can play: the official game and the variants that change
    nothing a playout does (house rules that add plays or effects are not plain; calls,
    catches, speech and other out-of-turn actions play no part in a playout), as
    declared in :data:`SUPPORT`.

    >>> Plain.of(Rules.preset("official")) is not None, Plain.of(Rules.preset("party"))
    (True, None)
    >>> Plain.refusals(Rules.preset("official", extra_cards={"WC": 2},
    ...                             blank_card_effect="draw_ten"))
    {'blank_card_effect': "the playouts play a blank card as a wild only, not 'draw_ten'"}
    """

    __slots__ = ("draw_one", "guilty_draw", "innocent_draw", "play_drawn", "rev_skips",
                 "takes_back", "wd4")

    def __init__(self, rules: Rules) -> None:
        self.draw_one = rules.draw == "one"
        self.play_drawn = rules.play_drawn != "never"
        self.rev_skips = rules.two_player_reverse_skips
        self.wd4 = ("free", "challenge", "strict").index(rules.wild_draw_four)
        self.guilty_draw = rules.challenge_guilty_draw
        self.innocent_draw = rules.challenge_innocent_draw
        self.takes_back = rules.challenge_guilty_takes_back

    @staticmethod
    def refusals(rules: Rules) -> dict[str, str]:
        """Every key of ``rules`` the playouts do not play, with the reason (empty when
        they are plain)."""
        problems = refusals(SUPPORT, rules, Reason("the playouts"))
        wilds = {card for card in rules.deck_cards() if card >= WILD}
        if not wilds <= _PLAYED_WILDS:
            problems.setdefault("extra_cards" if rules.extra_cards else "deck",
                                Reason("the playouts play no wild but W, W+4 and WC"))
        if WILD_BLANK in wilds and rules.blank_card_effect != "wild":
            problems["blank_card_effect"] = Reason(
                "the playouts play a blank card as a wild only, not {effect}",
                effect=repr(rules.blank_card_effect))
        return problems

    @classmethod
    def of(cls, rules: Rules) -> Plain | None:
        """The settings of ``rules`` if they are plain (:meth:`refusals` is empty), else
        ``None``."""
        return None if cls.refusals(rules) else cls(rules)

    def params(self) -> list[int]:
        """The settings as integers, for the compiled playouts."""
        return [int(self.draw_one), int(self.play_drawn), int(self.rev_skips), self.wd4,
                self.guilty_draw, self.innocent_draw, int(self.takes_back)]


@dataclass
class Position:
    """What a seat knows of a position, for :func:`search_wins`."""

    pool: list[int]
    """The cards it cannot see (the other hands and the draw pile)."""
    sizes: list[int]
    """Cards in each hand."""
    known: list[list[int] | None]
    """Each hand it sees (its own, a visible partner's), else ``None``."""
    slots: list[list[int]]
    """Per seat, the masks of its slots (one per card), or ``[]`` for no constraint."""
    discard: list[int]
    """The discard pile, bottom to top."""
    color: int
    direction: int
    seat: int
    """The seat to move."""
    team: list[bool]
    """Whether each seat is on the side of ``seat``."""
    evidence: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    """Plays to weigh each deal by (:mod:`unokit.bots.likelihood`); none: every deal
    weighs 1."""
    draw_slack: float = 0.0
    """The share of deals in which a hand with slots is dealt as if it had none (see
    :mod:`unokit.bots.likelihood`)."""
    name_slack: float = 0.2
    """The weight of a deal in which a colour named is not the most held (see
    :data:`unokit.bots.likelihood.NAME_SLACK`)."""
    mix: int = 0
    """Swaps tried per hidden card after a deal is filled, each kept only if both cards
    fit their slots (:func:`unokit.bots.deals.mix_deal`): 0 leaves the deal as filled;
    more makes the deals closer to uniform over those that respect every slot."""


__all__ = ["SUPPORT", "Plain", "Position"]
