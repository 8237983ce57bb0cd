"""UNO Attack (RULES.md section 6): the card launcher and the Attack cards.

The draw pile sits in the launcher. A press fires with ``launcher_fire_chance`` and then
ejects ``k`` cards, ``k`` uniform in ``1..launcher_max_burst`` (at most what is left);
otherwise nothing comes out. With the game's generator: ``fire = rng.random() < chance``,
then ``k = 1 + rng.below(launcher_max_burst)``. A scenario may fix the numbers instead
(``game.launcher``: the cards each successive press ejects). Every card the rules make a
player draw is a press in UNO Attack (a penalty of ``n`` cards is ``n`` presses), but for
the ``progressive_refill`` refill, which takes its ``k-1`` cards from the launcher.

The rules here are methods of :class:`AttackCards`, a mixin of :class:`unokit.Game`.

>>> from unokit import Game, Rules, parse_card, parse_action
>>> game = Game.from_setup(Rules.preset("attack", players=2),
...     hands=[[parse_card("G5"), parse_card("G6")], [parse_card("B5"), parse_card("B6")]],
...     draw_pile=[parse_card("G1"), parse_card("G2"), parse_card("G3")],
...     discard=[parse_card("R3")], current_player=0, launcher=[0, 2])
>>> [(e.kind.value, e.cards) for e in game.apply(parse_action("0:draw"))]
[('pressed', ())]
>>> [(e.kind.value, e.cards) for e in game.apply(parse_action("1:draw"))]
[('pressed', (33, 34))]
"""

from __future__ import annotations

from unokit.engine.cards import COLOR_OF, WILD
from unokit.engine.events import EventKind
from unokit.engine.state import GameState

K = EventKind


class AttackCards(GameState):
    """UNO Attack's launcher and cards: the first of the rule mixins over
    :class:`~unokit.engine.state.GameState`."""

    __slots__ = ()

    def _reload(self) -> bool:
        """Reload an empty launcher with the shuffled discard pile but its top card;
        whether there are cards in the launcher now."""
        if self.draw_pile:
            return True
        discard = self.discard
        if len(discard) < 2:
            return False
        top = discard.pop()
        pile = discard
        self.rng.shuffle(pile)
        self.draw_pile = pile
        self.discard = [top]
        self._recycled = True
        self._emit(K.RESHUFFLED, amount=len(pile))
        return True

    def _press_once(self, player: int) -> tuple[list[int], bool]:
        """One press of the launcher by ``player``: the cards ejected, and whether the
        launcher held any card (a press of an empty launcher cannot eject anything)."""
        loaded = self._reload()
        if self.launcher:
            count = self.launcher.pop(0)
        else:
            rules = self.rules
            fired = self.rng.random() < rules.launcher_fire_chance
            count = 1 + self.rng.below(rules.launcher_max_burst) if fired else 0
        pile = self.draw_pile
        count = min(count, len(pile))
        got = [pile.pop() for _ in range(count)]
        self.hands[player].extend(got)
        return got, loaded

    def _press(self, player: int, times: int, reason: str) -> list[int]:
        """``player`` presses ``times`` times; the cards ejected, in order."""
        got: list[int] = []
        for _ in range(times):
            cards, _loaded = self._press_once(player)
            got += cards
        self._emit(K.PRESSED, player=player, cards=tuple(got), amount=len(got), reason=reason,
                   target=times, visible_to=self._viewers[player])
        return got

    def _press_until_fired(self, player: int, reason: str) -> list[int]:
        """``player`` presses until cards come out (or nothing is left to eject)."""
        presses = 0
        never_fires = self.rules.launcher_fire_chance == 0
        while True:
            scripted = bool(self.launcher)
            cards, loaded = self._press_once(player)
            presses += 1
            if cards or not loaded or (never_fires and not scripted and not self.launcher):
                break  # a launcher that cannot fire is pressed once
        self._emit(K.PRESSED, player=player, cards=tuple(cards), amount=len(cards),
                   reason=reason, target=presses, visible_to=self._viewers[player])
        return cards

    def _discard_all(self, player: int, card: int) -> None:
        """A Discard All takes every card of its colour from the hand with it; the
        Discard All stays on top."""
        color = COLOR_OF[card]
        hand = self.hands[player]
        gone = [c for c in hand if c < WILD and COLOR_OF[c] == color]
        if not gone:
            return
        for c in gone:
            hand.remove(c)
        top = self.discard.pop()
        self.discard.extend(gone)
        self.discard.append(top)
        self._emit(K.DISCARDED, player=player, cards=tuple(gone), amount=len(gone))

    def _cards_left_after(self, player: int, card: int) -> int:
        """Cards left in the hand after playing a Discard All of ``card``'s colour."""
        color = COLOR_OF[card]
        return sum(1 for c in self.hands[player] if c >= WILD or COLOR_OF[c] != color)
