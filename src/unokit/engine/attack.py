"""UNO Attack (RULES.md section 6): the card launcher and the Attack cards.

The draw pile sits in the launcher. A press fires with ``launcher_fire_chance`` and then
ejects ``k`` cards, ``k`` uniform in ``1..launcher_max_burst`` (at most what is left);
otherwise nothing comes out. With the game's generator: ``fire = rng.random() < chance``,
then ``k = 1 + rng.below(launcher_max_burst)``. A scenario may fix the numbers instead
(``game.launcher``: the cards each successive press ejects). Every card the rules make a
player draw is a press in UNO Attack (a penalty of ``n`` cards is ``n`` presses).

>>> from unokit import Game, Rules, parse_card
>>> game = Game.from_setup(Rules.preset("attack", players=2),
...     hands=[[parse_card("G5")], [parse_card("B5")]],
...     draw_pile=[parse_card("G1"), parse_card("G2"), parse_card("G3")],
...     discard=[parse_card("R3")], current_player=0, launcher=[0, 2])
>>> press(game, 0, 1, "turn"), press(game, 0, 1, "turn")
([], [33, 34])
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unokit.engine.cards import COLOR_OF, WILD
from unokit.engine.events import EventKind

if TYPE_CHECKING:
    from unokit.engine.game import Game

K = EventKind


def _reload(game: Game) -> bool:
    """Reload an empty launcher with the shuffled discard pile but its top card; whether
    there are cards in the launcher now."""
    if game.draw_pile:
        return True
    discard = game.discard
    if len(discard) < 2:
        return False
    top = discard.pop()
    pile = discard
    game.rng.shuffle(pile)
    game.draw_pile = pile
    game.discard = [top]
    game._recycled = True
    game._emit(K.RESHUFFLED, amount=len(pile))
    return True


def press_once(game: Game, player: int) -> tuple[list[int], bool]:
    """One press of the launcher by ``player``: the cards ejected, and whether the
    launcher held any card (a press of an empty launcher cannot eject anything)."""
    loaded = _reload(game)
    if game.launcher:
        count = game.launcher.pop(0)
    else:
        rules = game.rules
        fired = game.rng.random() < rules.launcher_fire_chance
        count = 1 + game.rng.below(rules.launcher_max_burst) if fired else 0
    pile = game.draw_pile
    count = min(count, len(pile))
    got = [pile.pop() for _ in range(count)]
    game.hands[player].extend(got)
    return got, loaded


def press(game: Game, player: int, times: int, reason: str) -> list[int]:
    """``player`` presses ``times`` times; the cards ejected, in order."""
    got: list[int] = []
    for _ in range(times):
        cards, _loaded = press_once(game, player)
        got += cards
    game._emit(K.PRESSED, player=player, cards=tuple(got), amount=len(got), reason=reason,
               target=times, visible_to=game._viewers[player])
    return got


def press_until_fired(game: Game, player: int, reason: str) -> list[int]:
    """``player`` presses until cards come out (or nothing is left to eject)."""
    presses = 0
    never_fires = game.rules.launcher_fire_chance == 0
    while True:
        scripted = bool(game.launcher)
        cards, loaded = press_once(game, player)
        presses += 1
        if cards or not loaded or (never_fires and not scripted and not game.launcher):
            break  # a launcher that cannot fire is pressed once
    game._emit(K.PRESSED, player=player, cards=tuple(cards), amount=len(cards), reason=reason,
               target=presses, visible_to=game._viewers[player])
    return cards


def discard_all(game: Game, player: int, card: int) -> None:
    """A Discard All takes every card of its colour from the hand with it; the Discard
    All stays on top."""
    color = COLOR_OF[card]
    hand = game.hands[player]
    gone = [c for c in hand if c < WILD and COLOR_OF[c] == color]
    if not gone:
        return
    for c in gone:
        hand.remove(c)
    top = game.discard.pop()
    game.discard.extend(gone)
    game.discard.append(top)
    game._emit(K.DISCARDED, player=player, cards=tuple(gone), amount=len(gone))


def cards_left_after(game: Game, player: int, card: int) -> int:
    """Cards left in the hand after playing a Discard All of ``card``'s colour."""
    color = COLOR_OF[card]
    return sum(1 for c in game.hands[player] if c >= WILD or COLOR_OF[c] != color)
