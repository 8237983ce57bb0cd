"""The rules engine: one match of UNO, round after round.

A game is ``(rules, seed, actions)``. Any seat may ask for its legal actions at any
moment (out-of-turn actions such as calling UNO or catching a missed call included),
and :meth:`Game.apply` takes one action, checks it and returns the typed events it
caused. An illegal action raises :class:`~unokit.engine.errors.IllegalActionError` and changes
nothing.

>>> from unokit import Game, Rules, format_action
>>> game = Game(Rules.preset("official", players=2, dealer="seat0"), seed=7)
>>> game.phase, game.current_player
(<Phase.PLAY: 'play'>, 1)
>>> acts = game.legal_actions(1)
>>> [format_action(a) for a in acts][-1]
'1:draw'
>>> events = game.apply(acts[-1])
>>> events[0].kind
<EventKind.DREW: 'drew'>

:class:`Game` is the last of a chain of mixins, each adding the rules of one module:
:class:`~unokit.engine.state.GameState` (every field, the primitives) <-
:class:`~unokit.engine.attack.AttackCards` <- :class:`~unokit.engine.house.CardEffects`
<- :class:`~unokit.engine.match_flow.MatchFlow` <- :class:`~unokit.engine.table.TableRules`
<- :class:`Game` (legal actions, :meth:`Game.apply`, the plays and the draw of a turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unokit.engine import actions as A
from unokit.engine.actions import Action, Seat
from unokit.engine.cards import (
    COLOR_OF,
    DISCARD_ALL,
    IS_NUMBER,
    RANK_OF,
    WILD,
    WILD_BLANK,
    WILD_DRAW_FOUR,
    WILD_SHUFFLE_HANDS,
)
from unokit.engine.errors import IllegalActionError
from unokit.engine.events import Event, EventKind
from unokit.engine.explain import why_illegal
from unokit.engine.house import normalize, wheel_color
from unokit.engine.observation import Observation, observe
from unokit.engine.phases import (
    CHALLENGE,
    CHOOSE_COLOR,
    DRAWN,
    EXCHANGE,
    MATCH_OVER,
    PLAY,
    RESPOND,
    ROUND_OVER,
    SLAP,
    TURN_OVER,
)
from unokit.engine.phases import Phase as Phase
from unokit.engine.rules import Rules
from unokit.engine.setup import set_up_round
from unokit.engine.state import STATE_FIELDS as STATE_FIELDS
from unokit.engine.state import holds_color
from unokit.engine.table import TableRules
from unokit.engine.tables import (
    CATCHES,
    CHALLENGES,
    COLOR_CHOICES,
    DRAWS,
    NEXT_ROUNDS,
    ONE_CARD,
    PASSES,
    PLAIN_PLAYS,
    PLAYABLE,
    PLAYABLE_SETS,
    PLAYS,
    PLAYS_UNO,
    SAYS,
    UNO_CALLS,
)

K = EventKind
assert len(Event._fields) == 11, "Event tuples are built positionally below: update them"
_new_tuple = tuple.__new__
_T_PLAY, _T_DRAW, _T_PASS = A.PLAY, A.DRAW, A.PASS
_NO_TARGET, _NO_COLOR_ARG = A.NO_TARGET, A.NO_COLOR_ARG
# Bound lookups of the action tables (cheaper than a method lookup on every action).
_one_card, _bare = ONE_CARD.get, A.BARE.get
_action_player, _action_type, _action_card = A.action_player, A.action_type, A.action_card
# The frequent event kinds (reading a member from an enum class is slow).
_DREW, _PLAYED, _PASSED = EventKind.DREW, EventKind.PLAYED, EventKind.PASSED


class Game(TableRules):
    """One match under a rule set: the legal actions of every seat and :meth:`apply`.
    See the module docstring for an example, and :class:`~unokit.engine.state.GameState`
    for every field."""

    __slots__ = ()

    # ------------------------------------------------------------------ set-up
    def __init__(self, rules: Rules | str | dict[str, Any] = "official", seed: int = 0,
                 *, start: bool = True) -> None:
        """A match under ``rules`` from ``seed``; with ``start`` (the default) the dealer
        is chosen and the first round dealt."""
        super().__init__(rules, seed)
        if start:
            self.dealer = self._choose_dealer()
            self._start_round()
        self._recycled = False
        self.derive()

    @classmethod
    def from_setup(
        cls,
        rules: Rules | str | dict[str, Any],
        *,
        hands: Sequence[Sequence[int]],
        draw_pile: Sequence[int],
        discard: Sequence[int] | None = None,
        dealer: int | None = None,
        current_player: int | None = None,
        direction: int = 1,
        color: int | None = None,
        scores: Sequence[int] | None = None,
        seed: int = 0,
        launcher: Sequence[int] | None = None,
    ) -> Game:
        """A round already dealt: ``hands`` by seat, ``draw_pile`` with the first card to
        be drawn first, ``discard`` bottom to top (absent: the start card is turned from
        the draw pile and ``first_card`` applies). The cards given are the whole deck.
        """
        game = cls(rules, seed, start=False)
        set_up_round(game, hands=hands, draw_pile=draw_pile, discard=discard, dealer=dealer,
                     current_player=current_player, direction=direction, color=color,
                     scores=scores, launcher=launcher)
        return game

    # --------------------------------------------------------------- reading
    @property
    def top(self) -> int:
        """The top card of the discard pile (-1 if there is none)."""
        return self.discard[-1] if self.discard else -1

    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.phase is MATCH_OVER

    def is_round_over(self) -> bool:
        """Whether a round has ended (the match may go on)."""
        return self.phase in TURN_OVER

    def pending_draw(self) -> int:
        """Cards the current player would draw on accepting a pending penalty."""
        return self.pending

    def hand_sizes(self) -> list[int]:
        """The number of cards in each hand."""
        return [len(hand) for hand in self.hands]

    # ----------------------------------------------------------- legal actions
    def legal_actions(self, player: Seat) -> list[Action]:
        """Every action seat ``player`` may take now, in turn or out of turn.

        The list is empty only for a seat that can do nothing at this moment (and for
        everyone once the match is over)."""
        version = self._version
        if self._cache_version == version and self._cache_player == player:
            return list(self._cache)
        acts: list[int]
        if self._turn_only and player == self.current and self.uno_open < 0:
            # The common cases: a plain turn, with nothing any seat may do out of turn.
            phase = self.phase
            if phase is PLAY:
                hand = self.hands[player]
                playable = PLAYABLE_SETS[self.match * 4 + self.color].intersection(hand)
                if playable:
                    if (self._strict and WILD_DRAW_FOUR in playable
                            and not self._can_play(player, WILD_DRAW_FOUR)):
                        playable = playable - {WILD_DRAW_FOUR}
                    plays = (PLAYS_UNO if len(hand) == 2 else PLAYS)[player]
                    acts = []
                    for card in sorted(playable):
                        acts += plays[card]
                    if self._draw_while_playable or not playable:
                        acts.append(DRAWS[player])
                else:
                    acts = [DRAWS[player]]
                self._cache_version = version
                self._cache_player = player
                self._cache = tuple(acts)
                return acts
            if phase is DRAWN and type(player) is int:
                acts = list((PLAYS_UNO if len(self.hands[player]) == 2 else PLAYS)[player]
                            [self.drawn])
                if self._play_drawn != "must":
                    acts.append(PASSES[player])
                self._cache_version = version
                self._cache_player = player
                self._cache = tuple(acts)
                return acts
        acts = []
        phase = self.phase
        if type(player) is not int or not 0 <= player < self.n:
            return acts
        if phase is ROUND_OVER:
            acts.append(NEXT_ROUNDS[player])
        elif phase is not MATCH_OVER and self.active[player]:
            if player == self.current:
                if phase is PLAY:
                    hand = self.hands[player]
                    row = self.match * 4 + self.color
                    playable = PLAYABLE_SETS[row].intersection(hand)
                    if playable:
                        if (self._strict and WILD_DRAW_FOUR in playable
                                and not self._can_play(player, WILD_DRAW_FOUR)):
                            playable = playable - {WILD_DRAW_FOUR}
                        if self._simple:
                            plays = (PLAYS_UNO if len(hand) == 2 else PLAYS)[player]
                            for card in sorted(playable):
                                acts.extend(plays[card])
                        else:
                            self._house_plays(player, playable, acts)
                    if self._misplay:
                        plain = PLAIN_PLAYS[player]
                        for card in sorted(set(hand) - PLAYABLE_SETS[row]):
                            acts.append(plain[card])
                    if self._draw_while_playable or not playable or self._attack:
                        acts.append(DRAWS[player])
                elif phase is DRAWN:
                    left = len(self.hands[player]) - 1
                    if self._simple:
                        acts.extend((PLAYS_UNO if left == 1 else PLAYS)[player][self.drawn])
                    else:
                        acts.extend(self._card_plays(player, self.drawn, left))
                    if self._play_drawn != "must":
                        acts.append(PASSES[player])
                elif phase is CHALLENGE or phase is RESPOND:
                    acts.append(DRAWS[player])
                    if phase is RESPOND:
                        self._answers(player, acts)
                    if self.wd4_by >= 0:
                        acts.append(CHALLENGES[player])
                elif phase is CHOOSE_COLOR:
                    acts.extend(COLOR_CHOICES[player])
                elif phase is EXCHANGE:
                    for card in sorted(set(self.hands[player])):
                        acts.append(A.give_back(player, card))
            if phase is SLAP:
                if player in self.slap_left:
                    acts.append(A.slap(player))
            else:
                if self._out_of_turn:
                    self._out_of_turn_plays(player, acts)
                vulnerable = self.uno_open
                if vulnerable >= 0:
                    if len(self.hands[vulnerable]) != 1:
                        vulnerable = -1
                    elif player == vulnerable:
                        if self._self_catch:
                            acts.append(UNO_CALLS[player])
                    else:
                        acts.append(CATCHES[player][vulnerable])
                if self._false_catch:
                    active = self.active
                    for target in range(self.n):
                        if target != player and target != vulnerable and active[target]:
                            acts.append(CATCHES[player][target])
            if self._say:
                acts.append(SAYS[player])
        self._cache_version = self._version
        self._cache_player = player
        self._cache = tuple(acts)
        return acts

    def legal_tuple(self, player: Seat) -> tuple[Action, ...]:
        """:meth:`legal_actions` as a tuple, without a copy where the game has it already
        (for callers that look the list up in a table)."""
        if self._cache_version != self._version or self._cache_player != player:
            acts = self.legal_actions(player)
            if self._cache_version != self._version or self._cache_player != player:
                return tuple(acts)
        return self._cache

    def is_legal(self, action: Action) -> bool:
        """Whether ``action`` may be applied now.

        Every legal action is a valid encoding, so membership in the seat's legal list
        decides it (after a check that ``action`` is an int naming a seat of the table).
        """
        if type(action) is not int or action < 0:
            return False
        player = _action_player(action)
        return player < self.n and action in self.legal_actions(player)


    # ------------------------------------------------------------------- apply
    def apply(self, action: Action) -> list[Event]:
        """Apply one action and return the events it caused.

        Raises:
            IllegalActionError: the action is not legal now; the game is unchanged.
        """
        # Legal if in the cached list (each action names its seat: the list's seat).
        if (type(action) is not int or self._cache_version != self._version
                or action not in self._cache):
            if type(action) is int:
                action = normalize(action)
            if not self.is_legal(action):
                raise IllegalActionError(self._action_text(action), why_illegal(self, action))
        self._version += 1
        self.history.append(action)
        log = self.log
        start = len(log)
        one = _one_card(action)  # a play of one card: no call, target, give or extra
        if one is not None and self._plain_plays and self.phase is not RESPOND:
            player, card, color = one
            self._play_plain(player, card, color)
        else:
            if one is not None:
                player, card, color = one
                kind = _T_PLAY
                if self._misplay and self.phase is PLAY and not self._can_play(player, card):
                    self._misplayed(player, card)
                elif self._plain and self.phase is not RESPOND:
                    self._play_plain(player, card, color)
                else:
                    self._play(player, card, color, False)
            else:
                bare = _bare(action)  # an action without arguments
                if bare is not None:
                    player, kind = bare
                else:
                    player, kind = _action_player(action), _action_type(action)
                if kind == _T_PLAY:
                    card = _action_card(action)
                    if (self._misplay and self.phase is PLAY
                            and not self._can_play(player, card)):
                        self._misplayed(player, card)
                    else:
                        self._play(player, card, A.action_color(action), A.action_uno(action),
                                   A.action_target(action), A.action_give(action),
                                   A.action_extra(action))
                elif kind == _T_DRAW:
                    if self.phase is CHALLENGE or self.phase is RESPOND:
                        self._accept_penalty(player)
                    else:
                        self._turn_draw(player)
                elif kind == _T_PASS:
                    self.drawn = -1
                    self._emit_fast(_PASSED, player, -1, -1, (), 0, "", None)
                    self.current = self._next(player)
                    self.phase = PLAY
                else:
                    self._apply_other(player, kind, action)
            if self._say and (self.silence_seat >= 0 or self.silence_color >= 0):
                self._check_silence(player, kind)
        if self._recycled:
            self._recycled = False
            self._note_position()
        current = self.current  # derive()'s current_player, inline
        self.current_player = None if current < 0 else current
        return log[start:]

    def _action_text(self, action: int) -> str:
        try:
            return A.format_action(action)
        except ValueError:
            return repr(action)

    # ------------------------------------------------------------------- plays
    def _play(self, player: int, card: int, color: int, uno: bool, target: int = _NO_TARGET,
              give: int = -1, extra: tuple[int, ...] = ()) -> None:
        """``player`` plays ``card`` (and ``extra``): the general path, every rule."""
        hand = self.hands[player]
        prev_color = self.color
        responding = self.phase is RESPOND
        self.uno_open = -1
        self.drawn = -1
        self.idle = 0
        self.skip_from = -1
        if player != self.current:  # a jump-in or a skip passed on: the turn moves here
            self.current = player
        hand.remove(card)
        self.discard.append(card)
        for other in extra:
            hand.remove(other)
            self.discard.append(other)
        last = extra[-1] if extra else card
        transparent = card == WILD_BLANK and self.rules.blank_card_effect == "transparent"
        if card < WILD:
            color = COLOR_OF[last]
        elif transparent:
            color = self.color
        elif color == _NO_COLOR_ARG:
            color = wheel_color(self.color, self.direction)
        self.color = color
        prev_match = self.match
        if not transparent:
            self.match = last
        self.fresh = False
        seq = self.seq
        self.seq = seq + 1
        # Positional, as Event's fields (checked at import above).
        self.log.append(_new_tuple(Event, (seq, _PLAYED, player,
                                           -1 if target == _NO_TARGET else target, card,
                                           color if card >= WILD else -1, extra, 0, "",
                                           None, None)))
        if self._attack and card < WILD and RANK_OF[card] == DISCARD_ALL:
            self._discard_all(player, card)
        # A Wild Draw Four is judged on the hand it was put down from (before any refill).
        guilty = card == WILD_DRAW_FOUR and holds_color(hand, prev_color)
        if uno:
            self._emit(K.UNO_CALLED, player=player)
        elif len(hand) == 1:
            self.uno_open = player
        if not hand and self.rules.progressive_refill and self.levels[player] > 1:
            level = self.levels[player] = self.levels[player] - 1
            # A count of cards, not of presses, in UNO Attack too: the level says what
            # the hand holds again.
            self._take_cards(player, level, "refill")
            self._emit(K.REFILLED, player=player, amount=level)
        if self.rules.silence != "off":
            self._start_silence(player, card)
        if not hand and card != WILD_SHUFFLE_HANDS:
            self._went_out(player, card, target, responding)
        else:
            self._effect(player, card, target, give, responding, guilty, prev_color, prev_match)
        if uno and self.phase is not MATCH_OVER:
            self._maybe_slap(player)

    def _play_plain(self, player: int, card: int, color: int) -> None:
        """:meth:`_play` for one card without UNO call, target or house-rule effect."""
        hand = self.hands[player]
        self.uno_open = -1
        self.drawn = -1
        self.idle = 0
        self.skip_from = -1
        self.current = player
        hand.remove(card)
        self.discard.append(card)
        prev_color = self.color
        if card < WILD:
            color = COLOR_OF[card]
        self.color = color
        prev_match = self.match
        self.match = card
        self.fresh = False
        seq = self.seq
        self.seq = seq + 1
        # Positional, as Event's fields (checked at import above).
        self.log.append(_new_tuple(Event, (seq, _PLAYED, player, -1, card,
                                           color if card >= WILD else -1, (), 0, "", None,
                                           None)))
        if len(hand) == 1:
            self.uno_open = player
        elif not hand:
            self._went_out(player, card)
            return
        if IS_NUMBER[card]:
            n = self.n  # GameState._next, inline
            self.current = ((player + self.direction) % n if self.n_active == n
                            else self._next(player))
            self.phase = PLAY
            return
        guilty = card == WILD_DRAW_FOUR and holds_color(hand, prev_color)
        self._effect(player, card, _NO_TARGET, -1, False, guilty, prev_color, prev_match)

    def _misplayed(self, player: int, card: int) -> None:
        """``player`` tried a card that does not match: it stays in hand, and a penalty is drawn."""
        self.uno_open = -1
        self.skip_from = -1
        self._emit(K.MISPLAYED, player=player, card=card)
        got = self._draw(player, self._misplay, "misplay")
        self._turn_ended_idle(player, bool(got))

    def _turn_ended_idle(self, player: int, progressed: bool) -> None:
        """End a turn in which ``player`` did not play; a round in which every active
        player in turn could neither play nor draw is blocked and ends."""
        self.idle = 0 if progressed else self.idle + 1
        if self.idle >= self.n_active:
            self._blocked()
        else:
            self._end_turn(player)

    def _turn_draw(self, player: int) -> None:
        """``player`` draws on their turn (``draw``: one card, or until playable)."""
        self.uno_open = -1
        self.skip_from = -1
        if self._attack:  # a press ends the turn, whatever comes out
            pressed = self._press(player, 1, "turn")
            # A launcher that holds cards and can fire counts as a draw that was possible.
            can_fire = self.rules.launcher_fire_chance > 0 or bool(self.launcher)
            self._turn_ended_idle(player, bool(pressed) or (bool(self.draw_pile) and can_fire))
            return
        if self._draw_one:
            card = self.draw_pile.pop() if self.draw_pile else self._take()
            if card >= 0:
                self.hands[player].append(card)
                seq = self.seq
                self.seq = seq + 1
                # Positional, as Event's fields (checked at import above).
                self.log.append(_new_tuple(Event, (seq, _DREW, player, -1, -1, -1, (card,), 1,
                                                   "turn", self._viewers[player], None)))
                if (self._play_drawn != "never"
                        and PLAYABLE[self.match * 4 + self.color][card]
                        and (card != WILD_DRAW_FOUR or self._can_play(player, card))):
                    self.idle = 0
                    self.drawn = card
                    self.phase = DRAWN
                elif self.idle:
                    self._turn_ended_idle(player, True)
                else:
                    n = self.n  # GameState._next, inline
                    self.current = ((player + self.direction) % n if self.n_active == n
                                    else self._next(player))
                    self.phase = PLAY
                return
            got: list[int] = []
            self._emit_fast(_DREW, player, -1, -1, (), 0, "turn", self._viewers[player])
        else:
            got = []
            while True:
                card = self._take()
                if card < 0:
                    break
                got.append(card)
                if self._can_play(player, card):
                    break
            self.hands[player].extend(got)
            self._emit_fast(_DREW, player, -1, -1, tuple(got), len(got), "turn",
                            self._viewers[player])
        if got and self._play_drawn != "never" and self._can_play(player, got[-1]):
            self.idle = 0
            self.drawn = got[-1]
            self.phase = DRAWN
        else:
            self._turn_ended_idle(player, bool(got))

    # ------------------------------------------------------------ views, data
    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-ready data (see :mod:`unokit.engine.snapshot`)."""
        from unokit.engine.snapshot import state_to_dict

        return state_to_dict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Game:
        """A game in the state :meth:`to_dict` wrote."""
        from unokit.engine.snapshot import state_from_dict

        return state_from_dict(data)

    def observation(self, seat: Seat | None) -> Observation:
        """What ``seat`` may see now, ``None`` for a spectator (see
        :mod:`unokit.engine.observation`)."""
        return observe(self, seat)

    def __repr__(self) -> str:
        return (f"<Game {self.rules.to_string()!r} seed={self.seed} round={self.round_no} "
                f"phase={self.phase.value} current={self.current_player}>")
