"""What one seat may see: :func:`observe` builds it from a game, and nothing else
(bots, servers, environments) looks at the full state on a player's behalf.

A seat sees its own hand, its partner's hand where ``partner_hands_visible`` allows,
the discard pile, the number of cards in every hand and in the draw pile, and the
public state of the table. It never sees another hand or the order of the draw pile.

>>> from unokit import Game, Rules
>>> game = Game(Rules.preset("official", players=3, dealer="seat0"), seed=2)
>>> view = observe(game, 0)
>>> len(view.hand), view.hand_sizes
(7, (7, 7, 7))
>>> view.to_dict()["seat"]
0

:func:`view_fields` gives the same values without building an :class:`Observation`
(for encoders that run at every step): the one place that decides what a seat sees.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from unokit.engine.cards import CODES, COLOR_LETTERS
from unokit.engine.errors import UnoError
from unokit.engine.phases import Phase
from unokit.engine.scoring import partner

if TYPE_CHECKING:
    from unokit.engine.game import Game


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of the game. Cards are kinds (ints); :meth:`to_dict` gives codes."""

    seat: int
    phase: str
    current_player: int | None
    direction: int
    top: int
    color: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    draw_pile_size: int
    discard: tuple[int, ...]
    scores: tuple[int, ...]
    dealer: int
    round: int
    pending_draw: int
    uno_open: int | None
    drawn_card: int | None
    partner_hand: tuple[int, ...] | None
    active: tuple[bool, ...]
    in_match: tuple[bool, ...]
    finish_order: tuple[int, ...]
    levels: tuple[int, ...]
    round_winner: int | None
    match_winner: int | None
    slap_left: tuple[int, ...] = ()
    """Seats that still have to slap (phase ``slap``)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with card codes and colour letters."""
        return {
            "seat": self.seat,
            "phase": self.phase,
            "current_player": self.current_player,
            "direction": "cw" if self.direction == 1 else "ccw",
            "top": CODES[self.top] if self.top >= 0 else None,
            "color": COLOR_LETTERS[self.color] if self.color >= 0 else None,
            "hand": [CODES[c] for c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "draw_pile_size": self.draw_pile_size,
            "discard": [CODES[c] for c in self.discard],
            "scores": list(self.scores),
            "dealer": self.dealer,
            "round": self.round,
            "pending_draw": self.pending_draw,
            "uno_open": self.uno_open,
            "drawn_card": CODES[self.drawn_card] if self.drawn_card is not None else None,
            "partner_hand": (None if self.partner_hand is None
                             else [CODES[c] for c in self.partner_hand]),
            "active": list(self.active),
            "in_match": list(self.in_match),
            "finish_order": list(self.finish_order),
            "levels": list(self.levels),
            "round_winner": self.round_winner,
            "match_winner": self.match_winner,
            "slap_left": list(self.slap_left),
        }


VIEW_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Observation))
"""The names of :func:`view_fields`' values, in order (those of :class:`Observation`)."""

SeatView = tuple[
    int, Phase, int | None, int, int, int, Sequence[int], Sequence[int], int, Sequence[int],
    Sequence[int], int, int, int, int | None, int | None, Sequence[int] | None,
    Sequence[bool], Sequence[bool], Sequence[int], Sequence[int], int | None, int | None,
    Sequence[int],
]
"""The type of :func:`view_fields`' result."""


def view_fields(game: Game, seat: int) -> SeatView:
    """What ``seat`` may see: the values of :class:`Observation`'s fields, in the order of
    :data:`VIEW_FIELDS`, before they are copied. :func:`observe` builds its
    :class:`Observation` from them and nothing else.

    Differences from the :class:`Observation`: ``phase`` is the :class:`~unokit.engine.phases.Phase`
    itself (a ``str`` equal to the value); the sequences are the game's own lists (``hand``
    and ``partner_hand`` unsorted), to be read at once and never changed or kept, since the
    game changes them as it goes on; ``hand_sizes`` is a new list.

    >>> from unokit import Game, Rules
    >>> game = Game(Rules.preset("official", players=2, dealer="seat0"), seed=2)
    >>> values = dict(zip(VIEW_FIELDS, view_fields(game, 1)))
    >>> sorted(values["hand"]) == list(observe(game, 1).hand), values["hand_sizes"]
    (True, [7, 7])
    """
    n = game.n
    hands = game.hands
    discard = game.discard
    own = 0 <= seat < n
    drawn = game.drawn
    uno = game.uno_open
    mate_hand = None
    if own and game.rules.partner_hands_visible:
        mate = partner(game.rules, seat)
        if mate >= 0:
            mate_hand = hands[mate]
    round_winner = game.round_winner
    match_winner = game.match_winner
    return (
        seat,
        game.phase,
        game.current_player,
        game.direction,
        discard[-1] if discard else -1,
        game.color,
        hands[seat] if own else (),
        list(map(len, hands)),
        len(game.draw_pile),
        discard,
        game.scores,
        game.dealer,
        game.round_no,
        game.pending,
        uno if uno >= 0 and len(hands[uno]) == 1 else None,
        drawn if own and drawn >= 0 and game.current == seat else None,
        mate_hand,
        game.active,
        game.in_match,
        game.finish_order,
        game.levels,
        round_winner if round_winner >= 0 else None,
        match_winner if match_winner >= 0 else None,
        game.slap_left,
    )


_PHASE_VALUE = {phase: phase.value for phase in Phase}
_new = object.__new__
# Observation's slots, set directly: an observation is built at every step of every bot
# and environment, and the frozen dataclass's own __init__ is several times slower.
(_SEAT, _PHASE, _CURRENT, _DIRECTION, _TOP, _COLOR, _HAND, _SIZES, _PILE, _DISCARD, _SCORES,
 _DEALER, _ROUND, _PENDING, _UNO, _DRAWN, _MATE, _ACTIVE, _IN_MATCH, _FINISH, _LEVELS,
 _R_WIN, _M_WIN, _SLAP) = (getattr(Observation, name).__set__ for name in VIEW_FIELDS)


def spectator_seat(seat: int | None) -> int:
    """``seat`` as a seat number: ``None`` is the spectator, ``-1``; an integer-like value
    (a NumPy integer) is its int.

    >>> spectator_seat(None), spectator_seat(2)
    (-1, 2)
    >>> spectator_seat("0")
    Traceback (most recent call last):
    ...
    unokit.engine.errors.UnoError: seat: expected a seat number or None, got str

    Raises:
        UnoError: anything else (text, a float, a bool).
    """
    if seat is None:
        return -1
    if not isinstance(seat, bool):
        try:
            return operator.index(seat)
        except TypeError:
            pass
    raise UnoError(f"seat: expected a seat number or None, got {type(seat).__name__}")


def observe(game: Game, seat: int | None) -> Observation:
    """The observation of ``seat``: ``None``, ``-1`` or a number that is no seat is the
    spectator's view, which holds no hand.

    >>> from unokit import Game
    >>> observe(Game("official", 3), None).hand
    ()

    Raises:
        UnoError: ``seat`` is neither a seat number nor ``None``.
    """
    if type(seat) is not int:
        seat = spectator_seat(seat)
    (seat, phase, current, direction, top, color, hand, sizes, pile, discard, scores, dealer,
     round_no, pending, uno, drawn, mate_hand, active, in_match, finish, levels, r_win, m_win,
     slap) = view_fields(game, seat)
    view: Observation = _new(Observation)
    _SEAT(view, seat)
    _PHASE(view, _PHASE_VALUE[phase])
    _CURRENT(view, current)
    _DIRECTION(view, direction)
    _TOP(view, top)
    _COLOR(view, color)
    _HAND(view, tuple(sorted(hand)))
    _SIZES(view, tuple(sizes))
    _PILE(view, pile)
    _DISCARD(view, tuple(discard))
    _SCORES(view, tuple(scores))
    _DEALER(view, dealer)
    _ROUND(view, round_no)
    _PENDING(view, pending)
    _UNO(view, uno)
    _DRAWN(view, drawn)
    _MATE(view, None if mate_hand is None else tuple(sorted(mate_hand)))
    _ACTIVE(view, tuple(active))
    _IN_MATCH(view, tuple(in_match))
    _FINISH(view, tuple(finish))
    _LEVELS(view, tuple(levels))
    _R_WIN(view, r_win)
    _M_WIN(view, m_win)
    _SLAP(view, tuple(slap))
    return view
