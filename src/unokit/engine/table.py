"""Decisions around the turns: penalties accepted or challenged, UNO catches, exchanges,
slaps, silence, and the house-rule plays (RULES.md sections 2 and 4).

The rules here are methods of :class:`TableRules`, a mixin of :class:`unokit.Game`.

>>> from unokit import Game, Rules, parse_card, parse_action
>>> game = Game.from_setup(Rules.preset("official", players=3),
...     hands=[[parse_card("R5"), parse_card("R6")], [parse_card("G1")], [parse_card("B1")]],
...     draw_pile=[parse_card("Y1"), parse_card("Y2")], discard=[parse_card("R3")],
...     current_player=0)
>>> _ = game.apply(parse_action("0:R5"))
>>> [e.kind.value for e in game.apply(parse_action("2:catch 0"))]
['caught', 'drew']
"""

from __future__ import annotations

from unokit.engine import actions as A
from unokit.engine.cards import (
    DRAW_TWO,
    NO_COLOR,
    RANK_OF,
    WILD,
    WILD_DRAW_FOUR,
)
from unokit.engine.events import EventKind
from unokit.engine.match_flow import MatchFlow
from unokit.engine.phases import PLAY, SLAP, TURN_OVER

K = EventKind
_SKIPPED = EventKind.SKIPPED  # (reading a member from an enum class is slow)


class TableRules(MatchFlow):
    """Decisions around the turns: the mixin after
    :class:`~unokit.engine.match_flow.MatchFlow`."""

    __slots__ = ()

    def _apply_other(self, player: int, kind: int, action: int) -> None:
        """The less frequent actions."""
        if kind == A.CHALLENGE:
            self.skip_from = -1
            self._challenge(player)
        elif kind == A.UNO:
            self.uno_open = -1
            self._emit(K.UNO_CALLED, player=player)
            self._maybe_slap(player)
        elif kind == A.CATCH:
            self._catch(player, A.action_target(action))
        elif kind == A.COLOR:
            self.color = A.action_color(action)
            self._emit(K.COLOR_CHOSEN, player=player, color=self.color)
            self.phase = PLAY
        elif kind == A.NEXT_ROUND:
            self._next_round()
        elif kind == A.GIVE:
            card = A.action_card(action)
            receiver = self.exchange_from
            self.hands[player].remove(card)
            self.hands[receiver].append(card)
            self._emit(K.GAVE, player=player, target=receiver, cards=(card,), amount=1,
                       visible_to=tuple(sorted({player, receiver})))
            self.exchange_from = -1
            self._end_turn(receiver)
        elif kind == A.SLAP:
            self.slap_left.remove(player)
            self._emit(K.SLAPPED, player=player)
            if len(self.slap_left) == 1:
                last = self.slap_left.pop()
                self._draw(last, self.rules.uno_penalty, "slap")
                self.current = self.resume_current
                self.phase = self.resume_phase
        elif kind == A.SAY:
            self._emit(K.SAID, player=player)
            if self.silence_seat >= 0 or self.silence_color >= 0:
                self._draw(player, self.rules.silence_penalty, "silence")
                self._end_silence()

    def _maybe_slap(self, caller: int) -> None:
        """With ``uno_slap``, an UNO call makes everyone else slap."""
        if not self.rules.uno_slap or self.n_active < 3 or self.phase in TURN_OVER:
            return
        self.slap_left = [seat for seat in range(self.n) if self.active[seat] and seat != caller]
        self.resume_current = self.current
        self.resume_phase = self.phase
        self.current = -1
        self.phase = SLAP
        self._emit(K.SLAP_STARTED, player=caller)

    def _check_silence(self, player: int, kind: int) -> None:
        """End a silence whose time is up (``silence``)."""
        if self.phase in TURN_OVER:
            self._end_silence()
        elif self.silence_seat >= 0:
            if self.current == self.silence_seat and player != self.silence_seat:
                self._end_silence()
        elif self.color != self.silence_color:
            self._end_silence()

    def _end_silence(self) -> None:
        if self.silence_seat >= 0 or self.silence_color >= 0:
            self.silence_seat = -1
            self.silence_color = NO_COLOR
            self._emit(K.SILENCE, amount=0)

    def _start_silence(self, player: int, card: int) -> None:
        mode = self.rules.silence
        if mode == "twos" and card < WILD and RANK_OF[card] == 2:
            self.silence_seat = player
            self.silence_color = NO_COLOR
            self._emit(K.SILENCE, player=player, amount=1, reason="twos")
        elif mode == "wilds" and card >= WILD:
            self.silence_seat = -1
            self.silence_color = self.color
            self._emit(K.SILENCE, player=player, amount=1, reason="wilds")

    def _accept_penalty(self, player: int) -> None:
        self.uno_open = -1
        self.skip_from = -1
        reason = "draw_two" if self.pending_kind == DRAW_TWO else "wild_draw_four"
        self._draw(player, self.pending, reason)
        self.pending = 0
        self.pending_kind = -1
        self.wd4_by = -1
        self._emit(_SKIPPED, player=player)
        self._end_turn(player)

    def _challenge(self, player: int) -> None:
        self.uno_open = -1
        accused = self.wd4_by
        guilty = self.wd4_guilty
        rules = self.rules
        self._emit(K.CHALLENGED, player=player, target=accused,
                   reason="guilty" if guilty else "innocent")
        shown_to = tuple(sorted({player, *self._viewers[accused]}))
        self._emit(K.HAND_SHOWN, player=player, target=accused,
                   cards=tuple(self.hands[accused]), amount=len(self.hands[accused]),
                   visible_to=shown_to)
        stacked = self.pending - 4
        self.pending = 0
        self.pending_kind = -1
        self.wd4_by = -1
        if guilty:
            if rules.challenge_guilty_takes_back:
                card = self.discard.pop()
                self.hands[accused].append(card)
                self._recycled = True
                self.color = self.wd4_color
                self.match = self.wd4_match
                self._emit(K.TOOK_BACK, player=accused, card=card, color=self.color)
            self._draw(accused, stacked + rules.challenge_guilty_draw, "challenge_guilty")
            self._set_turn(player)
        else:
            self._draw(player, stacked + rules.challenge_innocent_draw, "challenge_innocent")
            self._emit(_SKIPPED, player=player)
            self._end_turn(player)

    def _catch(self, player: int, target: int) -> None:
        if target == self.uno_open and len(self.hands[target]) == 1:
            self.uno_open = -1
            self._emit(K.CAUGHT, player=player, target=target)
            self._draw(target, self.rules.uno_penalty, "uno_penalty")
        else:
            self._emit(K.FALSE_CATCH, player=player, target=target)
            self._draw(player, self._false_catch, "false_catch")

    def _house_plays(self, player: int, playable: frozenset[int], acts: list[int]) -> None:
        left = len(self.hands[player]) - 1
        for card in sorted(playable):
            acts.extend(self._card_plays(player, card, left))
        if self.rules.multi_play != "off":
            acts.extend(self._multi_plays(player, playable))

    def _answers(self, player: int, acts: list[int]) -> None:
        """The cards that may answer the pending penalty."""
        hand = self.hands[player]
        left = len(hand) - 1
        for card in sorted(set(hand)):
            if self._answer_allowed(card) and (
                    card != WILD_DRAW_FOUR or not self._strict or self._can_play(player, card)):
                acts.extend(self._card_plays(player, card, left))

    def _out_of_turn_plays(self, player: int, acts: list[int]) -> None:
        """Jump-ins and skip answers open to ``player``."""
        if self.phase is not PLAY:
            return
        if player == self.skip_from:
            acts.extend(self._skip_answers(player))
        if self.rules.jump_in and player != self.current:
            acts.extend(a for a in self._jump_in_plays(player) if a not in acts)
