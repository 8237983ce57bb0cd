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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from unokit.cards import CODES, COLOR_LETTERS
from unokit.scoring import partner

if TYPE_CHECKING:
    from unokit.game import Game


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


def observe(game: Game, seat: int) -> Observation:
    """The observation of ``seat`` (``-1`` or ``None``-like seats see no hand)."""
    own = 0 <= seat < game.n
    mate = partner(game.rules, seat) if own and game.rules.partner_hands_visible else -1
    return Observation(
        seat=seat,
        phase=game.phase.value,
        current_player=game.current_player,
        direction=game.direction,
        top=game.discard[-1] if game.discard else -1,
        color=game.color,
        hand=tuple(sorted(game.hands[seat])) if own else (),
        hand_sizes=tuple(len(hand) for hand in game.hands),
        draw_pile_size=len(game.draw_pile),
        discard=tuple(game.discard),
        scores=tuple(game.scores),
        dealer=game.dealer,
        round=game.round_no,
        pending_draw=game.pending,
        uno_open=(game.uno_open if game.uno_open >= 0 and len(game.hands[game.uno_open]) == 1
                  else None),
        drawn_card=game.drawn if own and game.drawn >= 0 and game.current == seat else None,
        partner_hand=tuple(sorted(game.hands[mate])) if mate >= 0 else None,
        active=tuple(game.active),
        in_match=tuple(game.in_match),
        finish_order=tuple(game.finish_order),
        levels=tuple(game.levels),
        round_winner=game.round_winner if game.round_winner >= 0 else None,
        match_winner=game.match_winner if game.match_winner >= 0 else None,
        slap_left=tuple(game.slap_left),
    )
