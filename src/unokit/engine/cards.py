"""Cards as small integers, their text codes, points and the decks.

A card *kind* is an ``int``. Coloured cards are ``colour * 16 + rank``; wild
("black") cards are numbered from :data:`WILD` = 64 on. Every kind has a text code
(RULES.md section 1) that round-trips exactly:

>>> from unokit.engine.cards import parse_card, card_code, R, G, SKIP
>>> parse_card("R5")
5
>>> card_code(parse_card("G+2"))
'G+2'
>>> parse_card("GS") == G * 16 + SKIP
True
>>> [card_code(k) for k in (parse_card("W"), parse_card("W+4"))]
['W', 'W+4']
>>> card_points(parse_card("Y7")), card_points(parse_card("W+4"))
(7, 50)
>>> len(build_deck("classic")), len(build_deck("attack")), len(build_deck("h2o"))
(108, 112, 112)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TypeAlias

from unokit.engine.errors import CardCodeError

CardKind: TypeAlias = int
"""A card kind: an index into :data:`CODES` (``parse_card("R5")``); cards are ints."""
Color: TypeAlias = int
"""A colour: 0..3 (:data:`RED` .. :data:`BLUE`), or :data:`NO_COLOR`."""

# Colours, in the order of RULES.md section 1.
RED, YELLOW, GREEN, BLUE = 0, 1, 2, 3
R, Y, G, B = RED, YELLOW, GREEN, BLUE
COLORS: tuple[int, ...] = (RED, YELLOW, GREEN, BLUE)
COLOR_LETTERS = "RYGB"
NO_COLOR = -1

# Ranks of coloured cards.
SKIP = 10
REVERSE = 11
DRAW_TWO = 12
HIT_TWO = 13
DISCARD_ALL = 14
TRADE_HANDS = 15
RANKS_PER_COLOR = 16

# Wild kinds.
WILD = 64
WILD_DRAW_FOUR = 65
WILD_BLANK = 66  # WC, the blank / customizable card
WILD_SWAP_HANDS = 67
WILD_SHUFFLE_HANDS = 68
WILD_DOWNPOUR_ONE = 69
WILD_DOWNPOUR_TWO = 70
WILD_ALL_HIT = 71
WILD_HIT_FIRE = 72
NUM_KINDS = 73

_RANK_CODES = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2", "H2", "DA", "TH"]
_WILD_CODES = ["W", "W+4", "WC", "WSW", "WSH", "WD1", "WD2", "WAH", "WHF"]
_RANK_POINTS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 20, 20, 20, 30, 30]
_WILD_POINTS = [50, 50, 40, 40, 40, 20, 20, 50, 50]


def _build_tables() -> tuple[list[str], list[int], list[int], list[int]]:
    codes = [""] * NUM_KINDS
    points = [0] * NUM_KINDS
    colors = [NO_COLOR] * NUM_KINDS
    ranks = [-1] * NUM_KINDS
    for color in COLORS:
        for rank in range(RANKS_PER_COLOR):
            kind = color * RANKS_PER_COLOR + rank
            codes[kind] = COLOR_LETTERS[color] + _RANK_CODES[rank]
            points[kind] = _RANK_POINTS[rank]
            colors[kind] = color
            ranks[kind] = rank
    for offset, code in enumerate(_WILD_CODES):
        codes[WILD + offset] = code
        points[WILD + offset] = _WILD_POINTS[offset]
        ranks[WILD + offset] = WILD + offset
    return codes, points, colors, ranks


CODES, POINTS, COLOR_OF, RANK_OF = _build_tables()
"""``CODES[kind]`` is the text code, ``POINTS[kind]`` the points, ``COLOR_OF[kind]`` the
colour (``NO_COLOR`` for wilds) and ``RANK_OF[kind]`` the rank (wilds: their own kind)."""

_KIND_OF_CODE = {code: kind for kind, code in enumerate(CODES) if code}

IS_WILD: list[bool] = [kind >= WILD for kind in range(NUM_KINDS)]
IS_NUMBER: list[bool] = [0 <= RANK_OF[kind] <= 9 and kind < WILD for kind in range(NUM_KINDS)]


def parse_card(code: str) -> int:
    """The card kind of a text code such as ``"R5"``, ``"B+2"`` or ``"W+4"``.

    Raises:
        CardCodeError: the code names no card (codes are case-sensitive).
    """
    try:
        return _KIND_OF_CODE[code]
    except (KeyError, TypeError):
        raise CardCodeError(f"unknown card code {code!r}") from None


def card_code(kind: int) -> str:
    """The text code of a card kind; the inverse of :func:`parse_card`."""
    if not 0 <= kind < NUM_KINDS or not CODES[kind]:
        raise CardCodeError(f"no card has the number {kind!r}")
    return CODES[kind]


def parse_color(letter: str) -> int:
    """The colour of a letter ``R``, ``Y``, ``G`` or ``B``.

    >>> parse_color("G") == GREEN
    True
    """
    if not isinstance(letter, str) or len(letter) != 1 or letter not in COLOR_LETTERS:
        raise CardCodeError(f"unknown colour {letter!r}: use one of R, Y, G, B")
    return COLOR_LETTERS.index(letter)


def color_letter(color: int) -> str:
    """The letter of a colour; the inverse of :func:`parse_color`."""
    return COLOR_LETTERS[color]


def card_points(kind: int) -> int:
    """The points a card is worth in a hand at the end of a round."""
    return POINTS[kind]


def kind_of(color: int, rank: int) -> int:
    """The kind of a coloured card."""
    return color * RANKS_PER_COLOR + rank


def hand_points(hand: Iterable[int], lone_zero_points: int = 0) -> int:
    """Points of a hand; a hand of a single ``0`` is worth ``lone_zero_points``.

    >>> hand_points([parse_card("R5"), parse_card("WC")])
    45
    >>> hand_points([parse_card("G0")], lone_zero_points=50)
    50
    """
    cards = list(hand)
    if len(cards) == 1 and IS_NUMBER[cards[0]] and RANK_OF[cards[0]] == 0:
        return lone_zero_points
    return sum(POINTS[k] for k in cards)


def _classic_colored(zero: bool) -> list[int]:
    cards: list[int] = []
    for color in COLORS:
        if zero:
            cards.append(kind_of(color, 0))
        for rank in range(1, 10):
            cards += [kind_of(color, rank)] * 2
    return cards


def build_deck(deck: str, extra_cards: Mapping[str, int] | None = None) -> list[int]:
    """The cards of a deck (``classic``, ``h2o`` or ``attack``) plus ``extra_cards``.

    The order is canonical (by colour, then rank, wilds last), so that a seeded shuffle of
    it is reproducible. ``h2o`` is the classic deck plus ``{"WD1": 2, "WD2": 2}`` unless
    ``extra_cards`` says otherwise.
    """
    cards: list[int]
    if deck in ("classic", "h2o"):
        cards = _classic_colored(zero=True)
        for color in COLORS:
            cards += [kind_of(color, SKIP), kind_of(color, REVERSE), kind_of(color, DRAW_TWO)] * 2
        cards += [WILD] * 4 + [WILD_DRAW_FOUR] * 4
        extras = dict(extra_cards or {})
        if deck == "h2o" and not any(code in extras for code in ("WD1", "WD2")):
            extras.update({"WD1": 2, "WD2": 2})
    elif deck == "attack":
        cards = _classic_colored(zero=False)
        for color in COLORS:
            cards += [kind_of(color, HIT_TWO), kind_of(color, REVERSE), kind_of(color, SKIP)] * 2
            cards += [kind_of(color, DISCARD_ALL), kind_of(color, TRADE_HANDS)]
        cards += [WILD] * 4 + [WILD_ALL_HIT] * 2 + [WILD_HIT_FIRE] * 2
        extras = dict(extra_cards or {})
    else:
        raise CardCodeError(f"unknown deck {deck!r}")
    for code, count in sorted(extras.items(), key=lambda item: parse_card(item[0])):
        cards += [parse_card(code)] * count
    cards.sort()
    return cards


def card_counts(cards: Iterable[int]) -> Counter[int]:
    """A multiset of card kinds, for checking that every card is accounted for."""
    return Counter(cards)
