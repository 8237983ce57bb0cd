"""House rules (RULES.md section 4): the plays they add and the effects they have.

The rules here are methods of :class:`CardEffects`, a mixin of :class:`unokit.Game`: the
plays a card offers and the effects of the cards, with the draws that penalties make.
The engine calls the house-rule ones only when a house rule is on, so the official game
keeps its short path; the choices where RULES.md is silent are in ``docs/rules.md``.

>>> from unokit import Game, Rules, parse_card
>>> game = Game.from_setup(Rules.preset("seven_o", players=3),
...     hands=[[parse_card("R7"), parse_card("G1")], [parse_card("Y1")], [parse_card("B1")]],
...     draw_pile=[parse_card("G3")], discard=[parse_card("R3")], current_player=0)
>>> from unokit import format_action
>>> [format_action(a) for a in game.legal_actions(0)][:3]
['0:R7@1', '0:R7@2', '0:R7@1!']
"""

from __future__ import annotations

from itertools import permutations

from unokit.engine import actions as A
from unokit.engine.attack import AttackCards
from unokit.engine.cards import (
    COLOR_OF,
    DISCARD_ALL,
    DRAW_TWO,
    IS_NUMBER,
    RANK_OF,
    REVERSE,
    SKIP,
    TRADE_HANDS,
    WILD,
    WILD_BLANK,
    WILD_DRAW_FOUR,
    WILD_SWAP_HANDS,
)
from unokit.engine.events import EventKind
from unokit.engine.state import answers_exist as answers_exist

K = EventKind
_DREW = EventKind.DREW  # (reading a member from an enum class is slow)

# The colour wheel of ``wild_color = "next_in_circle"``: R -> B -> G -> Y -> R.
_WHEEL = (0, 3, 2, 1)
_NEXT_ON_WHEEL = {_WHEEL[i]: _WHEEL[(i + 1) % 4] for i in range(4)}
_PREV_ON_WHEEL = {_WHEEL[(i + 1) % 4]: _WHEEL[i] for i in range(4)}


def wheel_color(color: int, direction: int) -> int:
    """The colour a wild sets under ``next_in_circle``.

    >>> wheel_color(0, 1), wheel_color(0, -1)
    (3, 1)
    """
    if color < 0:
        return 0
    return (_NEXT_ON_WHEEL if direction == 1 else _PREV_ON_WHEEL)[color]


def normalize(action: int) -> int:
    """The canonical form of a multi-play (middle cards in card order)."""
    extra = A.action_extra(action)
    if len(extra) < 3:
        return action
    middle = tuple(sorted(extra[:-1]))
    if middle == extra[:-1]:
        return action
    parts = A.describe(action)
    if action < 0 or parts.card is None or parts.type != "play":
        return action  # not a play: apply() rejects it as it is
    return A.play(parts.player, parts.card, color=parts.color, target=parts.target,
                  uno=parts.uno, give=parts.give, extra=(*middle, extra[-1]))


class CardEffects(AttackCards):
    """The plays of a card and what cards do: the mixin after
    :class:`~unokit.engine.attack.AttackCards`."""

    __slots__ = ()

    def _draw(self, player: int, count: int, reason: str) -> list[int]:
        """``player`` draws up to ``count`` cards; what cannot be drawn is forgiven. In
        UNO Attack each card to draw is a press of the launcher."""
        if self._attack:
            return self._press(player, count, reason)
        return self._take_cards(player, count, reason)

    def _take_cards(self, player: int, count: int, reason: str) -> list[int]:
        """``player`` takes up to ``count`` cards from the draw pile (the launcher),
        reshuffling the discard pile when it is empty; what is not there is forgiven.
        Under every deck a count of cards, not of presses: the ``progressive_refill``
        refill (see :meth:`_draw` for the draws that are presses in UNO Attack)."""
        got = []
        for _ in range(count):
            card = self._take()
            if card < 0:
                break
            got.append(card)
        self.hands[player].extend(got)
        self._emit_fast(_DREW, player, -1, -1, tuple(got), len(got), reason,
                        self._viewers[player])
        return got

    def _answer_allowed(self, card: int) -> bool:
        """Whether ``card`` may answer the pending penalty (phase ``respond``)."""
        rules = self.rules
        kind = self.pending_kind
        if card < WILD:
            rank = RANK_OF[card]
            if rank == REVERSE:
                return rules.reverse_deflects_draw and COLOR_OF[card] == self.color
            if rank != DRAW_TWO:
                return False
            if kind == DRAW_TWO:
                return rules.draw_two_on_draw_two != "none"
            return rules.draw_two_on_draw_four != "none" and COLOR_OF[card] == self.color
        if card != WILD_DRAW_FOUR:
            return False
        if kind == DRAW_TWO:
            return rules.draw_four_on_draw_two == "stack"
        return rules.draw_four_on_draw_four == "stack"

    def _new_pending(self, card: int) -> int:
        """The pending penalty after ``card`` answers (or starts) a chain."""
        rules = self.rules
        pending = self.pending
        if card == WILD_DRAW_FOUR:
            return pending + 4
        if pending == 0:
            return 2
        mode = (rules.draw_two_on_draw_two if self.pending_kind == DRAW_TWO
                else rules.draw_two_on_draw_four)
        return 2 if mode == "deflect" else pending + 2

    def _others(self, player: int) -> list[int]:
        """The other seats still in the round, from the next one on."""
        return [seat for seat in self._seats_from(self._next(player)) if seat != player]

    def _card_plays(self, player: int, card: int, cards_left: int) -> list[int]:
        """Every way ``player`` may play ``card`` (colours, targets, exchanges), each with
        and without an UNO call when it leaves one card. ``cards_left``: cards in hand
        after it."""
        rules = self.rules
        variants: list[int] = []
        # A card that empties the hand is the last one unless a refill follows it.
        last = cards_left == 0 and not (rules.progressive_refill and self.levels[player] > 1)
        if card >= WILD:
            if card == WILD_BLANK and rules.blank_card_effect == "transparent":
                colors: tuple[int | None, ...] = (None,)
            elif rules.wild_color == "next_in_circle":
                colors = (None,)
            else:
                colors = (0, 1, 2, 3)
            targets: list[int | None] = [None]
            if card == WILD_SWAP_HANDS and not last:
                targets = list(self._others(player))
            for color in colors:
                for target in targets:
                    variants.append(A.play(player, card, color=color, target=target))
        else:
            rank = RANK_OF[card]
            seven = rank == 7 and rules.seven_swap and (
                not last or rules.seven_zero_last_card == "apply")
            if rank == DISCARD_ALL and self._attack:
                cards_left = self._cards_left_after(player, card)
            if rank == TRADE_HANDS:
                if not last:  # Trade Hands cannot be the last card
                    variants.extend(A.play(player, card, target=t) for t in self._others(player))
            elif seven:
                variants.extend(A.play(player, card, target=t) for t in self._others(player))
            else:
                variants.append(A.play(player, card))
            if rank == 5 and rules.five_exchange and not last:
                hand = list(self.hands[player])
                hand.remove(card)
                for target in self._others(player):
                    for give in sorted(set(hand)):
                        variants.append(A.play(player, card, target=target, give=give))
        if cards_left == 1:
            variants += [v | A.UNO_FLAG for v in variants]
        return variants

    def _multi_plays(self, player: int, playable: set[int] | frozenset[int]) -> list[int]:
        """Plays of several number cards of one number (``multi_play = "same_number"``):
        the first playable, the last setting the colour, the middle ones in card order."""
        hand = self.hands[player]
        out: list[int] = []
        by_number: dict[int, list[int]] = {}
        for card in hand:
            if IS_NUMBER[card]:
                by_number.setdefault(RANK_OF[card], []).append(card)
        for cards in by_number.values():
            if len(cards) < 2:
                continue
            seen: set[tuple[int, ...]] = set()
            for size in range(2, min(len(cards), A.MAX_EXTRA + 1) + 1):
                for combo in permutations(cards, size):
                    first, *middle, last = combo
                    key = (first, *sorted(middle), last)
                    if first not in playable or key in seen:
                        continue
                    seen.add(key)
                    left = len(hand) - size
                    extra = (*sorted(middle), last)
                    out.extend(self._multi_variants(player, first, extra, left))
        return out

    def _multi_variants(self, player: int, first: int, extra: tuple[int, ...],
                        left: int) -> list[int]:
        rules = self.rules
        rank = RANK_OF[first]
        variants: list[int] = []
        refill = rules.progressive_refill and self.levels[player] > 1
        if rank == 7 and rules.seven_swap and (left or refill
                                               or rules.seven_zero_last_card == "apply"):
            variants = [A.play(player, first, target=t, extra=extra)
                        for t in self._others(player)]
        else:
            variants = [A.play(player, first, extra=extra)]
        if rank == 5 and rules.five_exchange and left:
            hand = list(self.hands[player])
            for card in (first, *extra):
                hand.remove(card)
            for target in self._others(player):
                variants += [A.play(player, first, target=target, give=give, extra=extra)
                             for give in sorted(set(hand))]
        if left == 1:
            variants += [v | A.UNO_FLAG for v in variants]
        return variants

    def _jump_in_plays(self, player: int) -> list[int]:
        """The jump-ins open to ``player``: a card identical to the top card."""
        top = self.discard[-1] if self.discard else -1
        if top < 0 or top == WILD_DRAW_FOUR or self.fresh or top not in self.hands[player]:
            return []
        return self._card_plays(player, top, len(self.hands[player]) - 1)

    def _skip_answers(self, player: int) -> list[int]:
        """The Skips with which a skipped player may pass the skip on."""
        top = self.discard[-1]
        same = self.rules.skip_on_skip == "same_color"
        cards = {c for c in self.hands[player]
                 if c < WILD and RANK_OF[c] == SKIP and (not same or c == top)}
        left = len(self.hands[player]) - 1
        out: list[int] = []
        for card in sorted(cards):
            out += self._card_plays(player, card, left)
        return out

    # -------------------------------------------------------------- effects
    def _swap_hands(self, player: int, target: int) -> None:
        """``player`` and ``target`` swap hands."""
        hands = self.hands
        hands[player], hands[target] = hands[target], hands[player]
        self._emit(K.HANDS_SWAPPED, player=player, target=target)

    def _rotate_hands(self) -> None:
        """Every hand passes to the next player in the direction of play."""
        seats = [seat for seat in range(self.n) if self.active[seat]]
        old = {seat: self.hands[seat] for seat in seats}
        for seat in seats:
            self.hands[self._next(seat)] = old[seat]
        self._emit(K.HANDS_ROTATED, amount=self.direction)

    def _shuffle_hands(self, player: int) -> None:
        """All hands are gathered, shuffled and dealt one by one from ``next(player)``."""
        seats = [s for s in range(self.n) if self.active[s]]
        cards = [card for seat in seats for card in self.hands[seat]]
        self.rng.shuffle(cards)
        for seat in seats:
            self.hands[seat] = []
        order = self._seats_from(self._next(player))
        index = 0
        while cards:
            self.hands[order[index % len(order)]].append(cards.pop())
            index += 1
        self._emit(K.HANDS_SHUFFLED, player=player)
        for seat in seats:
            self._emit(K.DEALT, player=seat, cards=tuple(self.hands[seat]),
                       amount=len(self.hands[seat]), visible_to=self._viewers[seat])

    def _downpour(self, player: int, count: int) -> None:
        """Every other player in the round draws ``count`` cards."""
        for seat in self._others(player):
            self._draw(seat, count, "downpour")
