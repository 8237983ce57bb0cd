"""The match around the turns: choosing the dealer, dealing and turning the start card,
what a played card does, going out, blocked rounds, scoring and the end of the match
(RULES.md sections 2-3).

The rules here are methods of :class:`MatchFlow`, a mixin of :class:`unokit.Game`.

>>> from unokit import Game, Rules
>>> game = Game(Rules.preset("official", players=2, dealer="seat0", rounds=1), seed=3)
>>> game.round_no, game.dealer
(1, 0)
"""

from __future__ import annotations

import hashlib
from typing import Any, TypedDict

from unokit.engine.actions import NO_TARGET
from unokit.engine.cards import (
    CODES,
    COLOR_OF,
    DRAW_TWO,
    HIT_TWO,
    IS_NUMBER,
    RANK_OF,
    REVERSE,
    SKIP,
    TRADE_HANDS,
    WILD,
    WILD_ALL_HIT,
    WILD_BLANK,
    WILD_DOWNPOUR_ONE,
    WILD_DOWNPOUR_TWO,
    WILD_DRAW_FOUR,
    WILD_HIT_FIRE,
    WILD_SHUFFLE_HANDS,
    WILD_SWAP_HANDS,
)
from unokit.engine.errors import SetupError
from unokit.engine.events import EventKind
from unokit.engine.house import CardEffects
from unokit.engine.phases import (
    CHALLENGE,
    CHOOSE_COLOR,
    EXCHANGE,
    MATCH_OVER,
    PLAY,
    RESPOND,
    ROUND_OVER,
)
from unokit.engine.scoring import best_seat, lazy_loser, lowest_hand, round_points
from unokit.engine.state import STATE_FIELDS

K = EventKind
# The frequent event kinds (reading a member from an enum class is slow).
_SKIPPED, _REVERSED = EventKind.SKIPPED, EventKind.REVERSED

# Fields left out of a repetition's position: the event counter and the counts themselves.
_NOT_POSITION = frozenset({"seq", "positions"})
REPETITION_LIMIT = 3
"""A round whose position comes back this many times is blocked (see
``MatchFlow._note_position``)."""


class RoundResult(TypedDict):
    """The ``data`` of a ``round_ended`` event."""

    round: int
    """The round's number, from 1."""
    points: list[int]
    """The points each seat scored in the round."""
    scores: list[int]
    """Each seat's match score after the round."""
    hands: list[list[str]]
    """The cards left in each hand, as codes."""
    blocked: bool
    """Whether the round was blocked (nobody could play or draw, or a position repeated)."""
    finish_order: list[int]
    """The seats in the order they went out."""


class MatchResult(TypedDict):
    """The ``data`` of a ``match_ended`` event."""

    scores: list[int]
    """Each seat's final match score."""


class MatchFlow(CardEffects):
    """The match around the turns: the mixin after
    :class:`~unokit.engine.house.CardEffects`."""

    __slots__ = ()

    def _choose_dealer(self) -> int:
        how = self.rules.dealer
        if how == "seat0":
            return 0
        if how == "random":
            return self.rng.below(self.n)
        contenders = list(range(self.n))
        pile: list[int] = []
        while True:
            drawn: dict[int, int] = {}
            for seat in contenders:
                while True:
                    if not pile:
                        pile = list(self.deck)
                        self.rng.shuffle(pile)
                    card = pile.pop()
                    self._emit(K.DEALER_DRAW, player=seat, card=card)
                    if IS_NUMBER[card]:
                        drawn[seat] = RANK_OF[card]
                        break
            best = max(drawn.values())
            contenders = [seat for seat in contenders if drawn[seat] == best]
            if len(contenders) == 1:
                return contenders[0]

    def _start_round(self) -> None:
        """Shuffle, deal and turn the start card."""
        self._reset_round()
        self.round_no += 1
        self.final_round = self.rules.scoring == "elimination" and sum(self.in_match) == 2
        self._emit(K.ROUND_STARTED, player=self.dealer, amount=self.round_no)
        seats = self._seats_from(self._next(self.dealer))
        while True:
            pile = list(self.deck)
            self.rng.shuffle(pile)
            for _ in range(self.rules.hand_size):
                for seat in seats:
                    if pile:
                        self.hands[seat].append(pile.pop())
            if any(self._start_card_ok(card) for card in pile):
                break
            # A misdeal: no card left could start the round, so shuffle and deal again.
            if not pile or not any(self._start_card_ok(card) for card in self.deck):
                raise SetupError("no card of the deck is left to start the round")
            self.hands = [[] for _ in range(self.n)]
        self.draw_pile = pile
        for seat in range(self.n):
            if self.active[seat]:
                self._emit(K.DEALT, player=seat, cards=tuple(self.hands[seat]),
                           amount=len(self.hands[seat]), visible_to=self._viewers[seat])
        first = self.first_next if self.first_next >= 0 else self._next(self.dealer)
        self.first_next = -1
        self._turn_start_card(first)

    def _start_card_ok(self, card: int) -> bool:
        if self.rules.first_card == "number_only":
            return IS_NUMBER[card]
        if self._attack:
            return card >= WILD or RANK_OF[card] != TRADE_HANDS
        return card == WILD or (card < WILD and RANK_OF[card] <= DRAW_TWO)

    def _turn_start_card(self, first: int) -> None:
        """Turn the start card (RULES.md section 2, ``first_card``); ``first`` would play
        first after a plain number."""
        pile = self.draw_pile
        if not any(self._start_card_ok(card) for card in pile):
            raise SetupError("no card in the draw pile can start the round")
        while True:
            card = pile.pop()
            if self._start_card_ok(card):
                break
            pile.append(card)
            self.rng.shuffle(pile)
            self._emit(K.PUT_BACK, card=card)
        self.discard.append(card)
        self.match = card
        self._emit(K.START_CARD, card=card)
        self.color = COLOR_OF[card]
        rank = RANK_OF[card]
        if card == WILD:
            self._set_turn(first, CHOOSE_COLOR)
        elif rank == SKIP:
            self._emit(K.SKIPPED, player=first)
            self._set_turn(self._next(first))
        elif rank == REVERSE:
            self.direction = -1
            self._emit(K.REVERSED, amount=-1)
            self._set_turn(self._next(first))
        elif rank in (DRAW_TWO, HIT_TWO):
            self._draw(first, 2, "draw_two" if rank == DRAW_TWO else "hit_two")
            self._emit(K.SKIPPED, player=first)
            self._set_turn(self._next(first))
        elif card == WILD_ALL_HIT:
            for seat in self._seats_from(self._next(self.dealer)):
                if seat != self.dealer:
                    self._press(seat, 1, "all_hit")
            self._set_turn(first, CHOOSE_COLOR)
        elif card == WILD_HIT_FIRE:
            self._press_until_fired(first, "hit_fire")
            self._emit(K.SKIPPED, player=first)
            self._set_turn(self._next(first), CHOOSE_COLOR)
        else:
            self._set_turn(first)

    def _went_out(self, player: int, card: int, target: int = NO_TARGET,
                  responding: bool = False) -> None:
        """``player`` has played their last card."""
        rank = RANK_OF[card]
        rules = self.rules
        victim = self._next(player)
        penalty = 0
        reason = "draw_two"
        if rank == DRAW_TWO and card < WILD:
            penalty = self._new_pending(card) if responding else 2
        elif card == WILD_DRAW_FOUR:
            penalty = self.pending + 4 if responding else 4
            reason = "wild_draw_four"
        elif card == WILD_BLANK and rules.blank_card_effect == "draw_ten":
            penalty = 10
            reason = "draw_ten"
        elif rank == HIT_TWO and card < WILD:
            penalty = 2
            reason = "hit_two"
        self.pending = 0
        self.pending_kind = -1
        self.wd4_by = -1
        if penalty:
            self._draw(victim, penalty, reason)
        elif card in (WILD_DOWNPOUR_ONE, WILD_DOWNPOUR_TWO, WILD_ALL_HIT):
            self._downpour(player, 2 if card == WILD_DOWNPOUR_TWO else 1)
        elif card == WILD_HIT_FIRE:
            self._press_until_fired(victim, "hit_fire")
        elif card < WILD and rules.seven_zero_last_card == "apply":
            if rank == 7 and target != NO_TARGET:
                self._swap_hands(player, target)
            elif rank == 0 and rules.zero_rotate:
                self._rotate_hands()
        self.finish_order.append(player)
        self._emit(K.WENT_OUT, player=player, amount=len(self.finish_order))
        if len(self.finish_order) == 1:
            self.round_winner = player
            self._score_round(player, card)
        if not rules.play_to_last:
            self._close_round()
            return
        self.active[player] = False
        self.n_active -= 1
        if self.n_active <= 1:
            self._close_round(loser=self._next(player))
            return
        if penalty:
            self._emit(K.SKIPPED, player=victim)
            self._end_turn(victim)
        elif rank == SKIP:
            self._skip_next(player)
        elif rank == REVERSE:
            self._reverse(player)
        else:
            self._end_turn(player)

    def _effect(self, player: int, card: int, target: int, give: int, responding: bool,
                guilty: bool, prev_color: int, prev_match: int) -> None:
        """What a card does once played (not as the last card)."""
        rank = RANK_OF[card]
        if card < WILD and rank <= 9:
            if rank == 7 and target != NO_TARGET:
                self._swap_hands(player, target)
            elif rank == 0 and self.rules.zero_rotate:
                self._rotate_hands()
            elif rank == 5 and give >= 0:
                self.hands[player].remove(give)
                self.hands[target].append(give)
                self._emit(K.GAVE, player=player, target=target, cards=(give,), amount=1,
                           visible_to=tuple(sorted({player, target})))
                self.exchange_from = player
                self._set_turn(target, EXCHANGE)
                return
            n = self.n  # GameState._next, inline
            self.current = ((player + self.direction) % n if self.n_active == n
                            else self._next(player))
            self.phase = PLAY
        elif rank == SKIP:
            skipped = self._next(player)
            self._emit(_SKIPPED, player=skipped)
            self._end_turn(skipped)
            if self.rules.skip_on_skip != "none":
                self.skip_from = skipped
        elif rank == REVERSE:
            if responding:
                self.direction = -self.direction
                self._emit(_REVERSED, amount=self.direction)
                self._set_turn(self._next(player), RESPOND)
                self._emit(K.PENALTY, player=self.current, amount=self.pending)
            else:
                self._reverse(player)
        elif rank == DRAW_TWO:
            self._penalty(player, DRAW_TWO, self._new_pending(card) if responding else 2)
        elif rank == HIT_TWO:
            victim = self._next(player)
            self._press(victim, 2, "hit_two")
            self._emit(_SKIPPED, player=victim)
            self._end_turn(victim)
        elif rank == TRADE_HANDS:
            self._swap_hands(player, target)
            self._end_turn(player)
        elif card == WILD_ALL_HIT:
            for seat in self._others(player):
                self._press(seat, 1, "all_hit")
            self._end_turn(player)
        elif card == WILD_HIT_FIRE:
            victim = self._next(player)
            self._press_until_fired(victim, "hit_fire")
            self._emit(_SKIPPED, player=victim)
            self._end_turn(victim)
        elif card == WILD_DRAW_FOUR:
            self.wd4_by = player if self._challenge_mode else -1
            self.wd4_color = prev_color
            self.wd4_guilty = guilty
            self.wd4_match = prev_match
            self._penalty(player, WILD_DRAW_FOUR, self.pending + 4 if responding else 4)
        elif card == WILD_SWAP_HANDS:
            self._swap_hands(player, target)
            self._end_turn(player)
        elif card == WILD_SHUFFLE_HANDS:
            self._shuffle_hands(player)
            self._end_turn(player)
        elif card in (WILD_DOWNPOUR_ONE, WILD_DOWNPOUR_TWO):
            self._downpour(player, 1 if card == WILD_DOWNPOUR_ONE else 2)
            self._end_turn(player)
        elif card == WILD_BLANK and self.rules.blank_card_effect == "draw_ten":
            victim = self._next(player)
            self._draw(victim, 10, "draw_ten")
            self._emit(_SKIPPED, player=victim)
            self._end_turn(victim)
        else:
            self._end_turn(player)

    def _penalty(self, player: int, kind: int, amount: int) -> None:
        """A Draw Two or Wild Draw Four (``kind``) now asks ``amount`` cards of the next
        player: answered, challenged or drawn at once, as the rules allow."""
        victim = self._next(player)
        answerable = self._answer_two if kind == DRAW_TWO else self._answer_four
        if answerable or (kind == WILD_DRAW_FOUR and self._challenge_mode):
            self.pending = amount
            self.pending_kind = kind
            if kind != WILD_DRAW_FOUR:
                self.wd4_by = -1
            self._set_turn(victim, RESPOND if answerable else CHALLENGE)
            if answerable:
                self._emit(K.PENALTY, player=victim, amount=amount)
        else:
            self.pending = 0
            self.pending_kind = -1
            self._draw(victim, amount, "draw_two" if kind == DRAW_TWO else "wild_draw_four")
            self._emit(_SKIPPED, player=victim)
            self._end_turn(victim)

    def position_digest(self) -> str:
        """A digest of the position: every state field but the event counter, the RNG
        state and the repetition counts, with each hand taken as a set of cards.

        >>> from unokit import Game
        >>> a, b = Game("official", seed=3), Game("official", seed=3)
        >>> a.position_digest() == b.position_digest(), len(a.position_digest())
        (True, 20)
        """
        parts: list[Any] = []
        for name in STATE_FIELDS:
            if name in _NOT_POSITION:
                continue
            value = getattr(self, name)
            if name == "hands":
                value = [sorted(hand) for hand in value]
            parts.append(value)
        return hashlib.blake2b(repr(parts).encode(), digest_size=10).hexdigest()

    def _note_position(self) -> None:
        """Count the position after an action that brought cards back from the discard
        pile (a reshuffle, or a Wild Draw Four taken back). Only such actions can close a
        cycle, since every other move only adds to the discard pile; a round whose
        position comes back :data:`REPETITION_LIMIT` times cannot be sure to end, and is
        blocked (the lowest hand wins)."""
        if self.phase is ROUND_OVER or self.phase is MATCH_OVER:
            return
        digest = self.position_digest()
        seen = self.positions.get(digest, 0) + 1
        self.positions[digest] = seen
        if seen >= REPETITION_LIMIT:
            self._emit(K.REPEATED, amount=seen)
            self._blocked()

    def _blocked(self) -> None:
        """Nobody can play or draw: the lowest hand wins the round."""
        candidates = self._seats_from(self._next(self.dealer))
        winner = lowest_hand(self.hands, candidates, self.rules)
        self.finish_order.append(winner)
        if self.round_winner < 0:  # with play_to_last the first one out has already scored
            self.round_winner = winner
            self._score_round(winner, -1, blocked=True)
        self._close_round(blocked=True)

    def _score_round(self, winner: int, last_card: int, blocked: bool = False) -> None:
        points = round_points(self.rules, self.hands, winner, last_card, went_out=not blocked)
        self.round_points = points
        for seat in range(self.n):
            self.scores[seat] += points[seat]
        self.round_wins[winner] += 1

    def _close_round(self, loser: int = -1, blocked: bool = False) -> None:
        rules = self.rules
        winner = self.round_winner
        self.current = -1
        self.uno_open = -1
        if rules.scoring == "lazy":
            if loser < 0:
                seats = [s for s in self._seats_from(self._next(self.dealer)) if s != winner]
                loser = lazy_loser(self.hands, seats, rules)
            self.round_loser = loser
            self.round_losses[loser] += 1
        result: RoundResult = {
            "round": self.round_no,
            "points": list(self.round_points),
            "scores": list(self.scores),
            "hands": [[CODES[c] for c in hand] for hand in self.hands],
            "blocked": blocked,
            "finish_order": list(self.finish_order),
        }
        self._emit(K.ROUND_ENDED, player=winner, target=self.round_loser, data=result)
        winner_of_match = self._match_result()
        if winner_of_match >= 0:
            self.match_winner = winner_of_match
            self.phase = MATCH_OVER
            final: MatchResult = {"scores": list(self.scores)}
            self._emit(K.MATCH_ENDED, player=winner_of_match, data=final)
        else:
            self.phase = ROUND_OVER

    def _match_result(self) -> int:
        """The match winner if the match is over after this round, else -1."""
        rules = self.rules
        scores = self.scores
        winner = self.round_winner
        last = rules.rounds is not None and self.round_no >= rules.rounds
        seats = [s for s in range(self.n) if self.in_match[s]]
        if rules.scoring == "lazy":
            if not last:
                return -1
            values = [self.round_wins[s] * 1000 - self.round_losses[s] for s in range(self.n)]
            return best_seat(values, seats, highest=True, prefer=-1)
        if rules.scoring == "standard":
            if last or max(scores) >= rules.target_score:
                return best_seat(scores, seats, highest=True, prefer=winner)
            return -1
        if rules.scoring == "penalty":
            if last or max(scores) >= rules.target_score:
                return best_seat(scores, seats, highest=False, prefer=winner)
            return -1
        # elimination
        if self.final_round:
            return winner
        out = [seat for seat in seats if scores[seat] >= rules.target_score]
        if len(out) == len(seats):  # everyone reached the target at once: the lowest total wins
            out.remove(best_seat(scores, seats, highest=False, prefer=winner))
        for seat in out:
            self.in_match[seat] = False
            self._emit(K.ELIMINATED, player=seat)
        remaining = [s for s in range(self.n) if self.in_match[s]]
        if len(remaining) == 1:
            return remaining[0]
        if last:
            return best_seat(scores, remaining, highest=False, prefer=winner)
        return -1

    def _next_round(self) -> None:
        if self.rules.scoring == "lazy":
            self.dealer = self.round_loser
            self.first_next = self.round_winner
        else:
            seat = (self.dealer + 1) % self.n
            while not self.in_match[seat]:
                seat = (seat + 1) % self.n
            self.dealer = seat
        self._start_round()
