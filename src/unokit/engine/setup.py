"""Setting up a round already under way: the positions of scenarios and tests.

>>> from unokit import Game, parse_card
>>> hands = [[parse_card("R5")], [parse_card("G1")]]
>>> game = Game.from_setup("official,players=2", hands=hands, draw_pile=[parse_card("Y1")],
...                        discard=[parse_card("R3")], current_player=0)
>>> game.current_player, game.hand_sizes()
(0, [1, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from unokit.engine.cards import CODES, COLOR_OF, NUM_KINDS, WILD
from unokit.engine.errors import SetupError
from unokit.engine.events import EventKind
from unokit.engine.rules import SPEC

if TYPE_CHECKING:
    from unokit.engine.game import Game


def set_up_round(
    game: Game,
    *,
    hands: Sequence[Sequence[int]],
    draw_pile: Sequence[int],
    discard: Sequence[int] | None,
    dealer: int | None,
    current_player: int | None,
    direction: int,
    color: int | None,
    scores: Sequence[int] | None,
    launcher: Sequence[int] | None = None,
) -> None:
    """Put a fresh, unstarted ``game`` into the position described (see
    :meth:`unokit.Game.from_setup`). The cards given become the game's whole deck; each
    must be a kind of card that the rules' deck holds (any number of times)."""
    n = game.n
    if len(hands) != n:
        raise SetupError(f"{len(hands)} hands for {n} players")
    if dealer is not None and not 0 <= dealer < n:
        raise SetupError(f"dealer {dealer} is not a seat")
    if current_player is not None and not 0 <= current_player < n:
        raise SetupError(f"current_player {current_player} is not a seat")
    if direction not in (1, -1):
        raise SetupError("direction must be cw or ccw")
    if color is not None and (type(color) is not int or not -1 <= color <= 3):
        raise SetupError(f"color {color!r} is not a colour 0..3 (or -1, none)")
    check_cards(game, {"hands": [c for hand in hands for c in hand], "draw_pile": draw_pile,
                       "discard": discard or []})
    game.dealer = n - 1 if dealer is None else dealer
    game.round_no = 1
    game._emit(EventKind.ROUND_STARTED, player=game.dealer, amount=1)
    game.hands = [list(hand) for hand in hands]
    if launcher is not None:
        if any(not isinstance(k, int) or isinstance(k, bool) or k < 0 for k in launcher):
            raise SetupError("launcher: expected a list of card counts >= 0")
        game.launcher = list(launcher)
    game.draw_pile = list(reversed(draw_pile))
    game.deck = sorted([c for hand in hands for c in hand] + list(draw_pile)
                       + list(discard or []))
    game.derive()  # the fast paths depend on which cards are in play
    if scores is not None:
        if len(scores) != n:
            raise SetupError(f"{len(scores)} scores for {n} players")
        game.scores = list(scores)
    for seat in range(n):
        game._emit(EventKind.DEALT, player=seat, cards=tuple(game.hands[seat]),
                   amount=len(game.hands[seat]), visible_to=game._viewers[seat])
    if discard:
        game.discard = list(discard)
        game.match = game.discard[-1]
        game.fresh = False
        game.direction = direction
        top = game.discard[-1]
        if color is None and top >= WILD:
            raise SetupError("the top card is a wild: give its colour")
        game.color = COLOR_OF[top] if color is None else color
        game._set_turn(game._next(game.dealer) if current_player is None else current_player)
    else:
        if not game.draw_pile:
            raise SetupError("no discard pile and no draw pile to turn a start card from")
        game._turn_start_card(game._next(game.dealer))
        if direction == -1 and game.direction == 1:
            game.direction = -1
        if color is not None:
            game.color = color
        if current_player is not None:
            game.current = current_player
    game.derive()


def check_cards(game: Game, places: dict[str, Sequence[int]]) -> None:
    """Every card of ``places`` (name -> cards) is a card kind of the rules' deck.

    >>> from unokit import Game, parse_card
    >>> Game.from_setup("official,players=2", hands=[[parse_card("RTH")], [parse_card("G1")]],
    ...                 draw_pile=[], discard=[parse_card("R3")])
    Traceback (most recent call last):
    ...
    unokit.engine.errors.SetupError: hands: RTH is not a card of the rules' deck (classic)

    Raises:
        SetupError: naming the place and the card.
    """
    rules = game.rules
    kinds = frozenset(rules.deck_cards())
    for where, cards in places.items():
        for card in cards:
            if type(card) is not int or not 0 <= card < NUM_KINDS:
                raise SetupError(f"{where}: {card!r} is not a card")
            if card not in kinds:
                code = CODES[card]
                hint = "; extra_cards may add it" if code in SPEC["extra_cards"].choices else ""
                raise SetupError(f"{where}: {code} is not a card of the rules' deck "
                                 f"({rules.deck}{hint})")
