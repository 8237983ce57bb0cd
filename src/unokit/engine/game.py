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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unokit.engine import actions as A
from unokit.engine import attack, house, match_flow, table
from unokit.engine.cards import (
    COLOR_OF,
    DISCARD_ALL,
    DRAW_TWO,
    IS_NUMBER,
    NO_COLOR,
    NUM_KINDS,
    RANK_OF,
    WILD,
    WILD_BLANK,
    WILD_DRAW_FOUR,
    WILD_SHUFFLE_HANDS,
    WILD_SWAP_HANDS,
)
from unokit.engine.errors import IllegalActionError
from unokit.engine.events import Event, EventKind
from unokit.engine.observation import Observation, observe
from unokit.engine.phases import Phase as Phase
from unokit.engine.rng import SplitMix64
from unokit.engine.rules import Rules
from unokit.engine.scoring import partner

PLAY, DRAWN, CHOOSE_COLOR, CHALLENGE = Phase.PLAY, Phase.DRAWN, Phase.CHOOSE_COLOR, Phase.CHALLENGE
RESPOND, EXCHANGE, SLAP = Phase.RESPOND, Phase.EXCHANGE, Phase.SLAP
ROUND_OVER, MATCH_OVER = Phase.ROUND_OVER, Phase.MATCH_OVER
K = EventKind


def _playable_table() -> list[bytes]:
    """``_PLAYABLE[top * 4 + colour][kind]``: whether ``kind`` may go on ``top`` when the
    current colour is ``colour`` (matching colour, number or symbol; wilds always)."""
    table = []
    for top in range(NUM_KINDS):
        for color in range(4):
            row = bytearray(NUM_KINDS)
            for kind in range(NUM_KINDS):
                row[kind] = (
                    kind >= WILD
                    or COLOR_OF[kind] == color
                    or (top < WILD and RANK_OF[kind] == RANK_OF[top])
                )
            table.append(bytes(row))
    return table


_PLAYABLE = _playable_table()
_PLAYABLE_SETS = [frozenset(k for k in range(NUM_KINDS) if row[k]) for row in _PLAYABLE]
"""``_PLAYABLE_SETS[top * 4 + colour]``: the kinds that may be played there."""
_PLAIN = [[A.play(p, k) for k in range(NUM_KINDS)] for p in range(10)]
_PLAYS = [
    [(A.play(p, k),) if k < WILD else tuple(A.play(p, k, color=c) for c in range(4))
     for k in range(NUM_KINDS)]
    for p in range(10)
]
"""``_PLAYS[seat][kind]``: the plays of one card (a wild once per colour)."""
_PLAYS_UNO = [[plays + tuple(a | A.UNO_FLAG for a in plays) for plays in row] for row in _PLAYS]
"""As ``_PLAYS``, with the same plays calling UNO added (for a hand of two cards)."""
_DRAW = [A.draw(p) for p in range(10)]
_PASS = [A.pass_turn(p) for p in range(10)]
_CHALLENGE = [A.challenge(p) for p in range(10)]
_UNO = [A.call_uno(p) for p in range(10)]
_CATCH = [[A.catch(p, t) for t in range(10)] for p in range(10)]
_COLOR = [[A.choose_color(p, c) for c in range(4)] for p in range(10)]
_NEXT = [A.next_round(p) for p in range(10)]
_SAY = [A.say(p) for p in range(10)]
_ONE_CARD = {action: (seat, card, (action >> 15) & 7)
             for seat, row in enumerate(_PLAYS) for card, plays in enumerate(row)
             for action in plays}
"""Each play of one card without a UNO call or target: its seat, card and colour (7: none)."""
_UNO_FLAG = A.UNO_FLAG
_new_tuple = tuple.__new__
_T_PLAY, _T_DRAW, _T_PASS = A.PLAY, A.DRAW, A.PASS
# The frequent event kinds (reading a member from an enum class is slow).
_DREW, _PLAYED, _PASSED = EventKind.DREW, EventKind.PLAYED, EventKind.PASSED
_SKIPPED, _REVERSED = EventKind.SKIPPED, EventKind.REVERSED
_TURN_OVER = (ROUND_OVER, MATCH_OVER)


def _holds_color(hand: list[int], color: int) -> bool:
    """Whether ``hand`` holds a card of ``color`` (a helper, so that no caller's variable
    becomes a closure cell)."""
    return any(COLOR_OF[c] == color for c in hand)


# Fields that make up the state (everything but the rules, the log and caches).
STATE_FIELDS = (
    "seed", "deck", "hands", "draw_pile", "discard", "color", "direction", "current",
    "phase", "dealer", "drawn", "pending", "wd4_by", "wd4_guilty", "wd4_color",
    "uno_open", "active", "in_match", "finish_order", "levels", "idle", "scores",
    "round_no", "round_wins", "round_losses", "round_winner", "round_loser",
    "round_points", "match_winner", "seq", "first_next", "final_round", "match",
    "pending_kind", "wd4_match", "skip_from", "fresh", "exchange_from", "slap_left",
    "resume_current", "resume_phase", "silence_seat", "silence_color", "launcher",
    "positions",
)


class Game:
    """One match under a rule set. See the module docstring for an example."""

    __slots__ = (*STATE_FIELDS, "rules", "n", "rng", "log", "_version",
                 "_cache_version", "_cache_player", "_cache", "_draw_one", "_play_drawn",
                 "_dwp", "_strict",
                 "_challenge_mode", "_misplay", "_false_catch", "_self_catch", "_rev_skips",
                 "_viewers", "n_active", "history", "_simple", "_out_of_turn",
                 "_answer_two", "_answer_four", "_attack", "_plain", "_say", "_turn_only",
                 "_plain_plays", "current_player", "_recycled")

    # Methods kept in their own modules (the match around the turns; table decisions).
    _choose_dealer = match_flow._choose_dealer
    _start_round = match_flow._start_round
    _seats_from = match_flow._seats_from
    _start_card_ok = match_flow._start_card_ok
    _turn_start_card = match_flow._turn_start_card
    _went_out = match_flow._went_out
    _effect = match_flow._effect
    _penalty = match_flow._penalty
    _blocked = match_flow._blocked
    position_digest = match_flow.position_digest
    _note_position = match_flow._note_position
    _score_round = match_flow._score_round
    _close_round = match_flow._close_round
    _match_result = match_flow._match_result
    _next_round = match_flow._next_round
    _apply_other = table._apply_other
    _maybe_slap = table._maybe_slap
    _check_silence = table._check_silence
    _end_silence = table._end_silence
    _start_silence = table._start_silence
    _accept_penalty = table._accept_penalty
    _challenge = table._challenge
    _catch = table._catch
    _house_plays = table._house_plays
    _answers = table._answers
    _out_of_turn_plays = table._out_of_turn_plays

    # ------------------------------------------------------------------ set-up
    def __init__(self, rules: Rules | str | dict[str, Any] = "official", seed: int = 0,
                 *, start: bool = True) -> None:
        self.rules = rules = Rules.load(rules)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
            from unokit.engine.errors import SetupError

            raise SetupError(f"seed must be an integer 0 <= seed < 2**64, got {seed!r}")
        n = self.n = rules.players
        self.seed = seed
        self.rng = SplitMix64(seed)
        self.deck = rules.deck_cards()
        self.log: list[Event] = []
        self.history: list[int] = []
        """Every action applied so far, in order (what a game record stores)."""
        self._version = 0
        self._cache_version = -1
        self._cache_player = -1
        self._cache: tuple[int, ...] = ()
        self._configure()
        self.seq = 0
        self.scores = [0] * n
        self.round_no = 0
        self.round_wins = [0] * n
        self.round_losses = [0] * n
        self.in_match = [True] * n
        self.match_winner = -1
        self.first_next = -1
        self.final_round = False
        self.dealer = 0
        self.launcher: list[int] = []
        """Cards each successive launcher press ejects, fixed by a scenario (UNO Attack)."""
        self._recycled = False
        self._reset_round()
        if start:
            self.dealer = self._choose_dealer()
            self._start_round()
        self._recycled = False
        self._publish_turn()

    def _configure(self) -> None:
        r = self.rules
        self._draw_one = r.draw == "one"
        self._play_drawn = r.play_drawn
        self._dwp = r.draw_when_playable
        self._strict = r.wild_draw_four == "strict"
        self._challenge_mode = r.wild_draw_four == "challenge"
        self._misplay = r.misplay_penalty
        self._false_catch = r.false_catch_penalty
        self._self_catch = r.uno_self_catch
        self._rev_skips = r.two_player_reverse_skips
        self._viewers = [
            (p,) if not r.partner_hands_visible else (p, partner(r, p)) for p in range(self.n)
        ]
        self._attack = r.deck == "attack"
        self._simple = not (r.seven_swap or r.five_exchange or r.multi_play != "off"
                            or r.wild_color != "chosen" or r.blank_card_effect == "transparent"
                            or WILD_SWAP_HANDS in self.deck or self._attack)
        """Whether every play is a card and, for a wild, a colour (the precomputed tables)."""
        self._plain = (self._simple and not r.zero_rotate and r.silence == "off"
                       and not r.progressive_refill and max(self.deck) <= WILD_DRAW_FOUR)
        """Whether a plain play of a number card needs nothing but the basic steps."""
        self._say = r.silence != "off"
        self._plain_plays = self._plain and not r.misplay_penalty
        """Whether :meth:`_play_plain` takes every play of one card (out of a response)."""
        self._turn_only = (self._simple and not self._attack and not r.misplay_penalty
                           and not r.false_catch_penalty and not self._say and not r.jump_in
                           and r.skip_on_skip == "none")
        """Whether a plain turn offers only plays and a draw (nothing out of turn)."""
        self._out_of_turn = r.jump_in or r.skip_on_skip != "none" or r.silence != "off"
        self._answer_two = house.answers_exist(self, DRAW_TWO)
        self._answer_four = house.answers_exist(self, WILD_DRAW_FOUR)

    def _reset_round(self) -> None:
        n = self.n
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.draw_pile: list[int] = []
        self.discard: list[int] = []
        self.color = NO_COLOR
        self.direction = 1
        self.current = -1
        self.phase = PLAY
        self.drawn = -1
        self.pending = 0
        self.wd4_by = -1
        self.wd4_guilty = False
        self.wd4_color = NO_COLOR
        self.uno_open = -1
        self.active = list(self.in_match)
        self.n_active = sum(self.active)
        self.finish_order: list[int] = []
        self.levels = [self.rules.hand_size] * n
        self.idle = 0
        self.round_winner = -1
        self.round_loser = -1
        self.round_points = [0] * n
        self.match = -1
        self.pending_kind = -1
        self.wd4_match = -1
        self.skip_from = -1
        self.fresh = True
        self.exchange_from = -1
        self.slap_left: list[int] = []
        self.resume_current = -1
        self.resume_phase = PLAY
        self.silence_seat = -1
        self.silence_color = NO_COLOR
        self.positions: dict[str, int] = {}
        """How often each position seen after a card came back from the discard pile has
        occurred this round (digest -> count); see :meth:`_note_position`."""

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
        from unokit.engine.setup import set_up_round

        game = cls(rules, seed, start=False)
        set_up_round(game, hands=hands, draw_pile=draw_pile, discard=discard, dealer=dealer,
                     current_player=current_player, direction=direction, color=color,
                     scores=scores, launcher=launcher)
        return game

    # ------------------------------------------------------------------- state
    current_player: int | None
    """The seat whose turn or decision it is; ``None`` between rounds and at the end (an
    attribute kept equal to ``current``, -1 meaning none, by :meth:`_publish_turn`)."""

    def _publish_turn(self) -> None:
        """Set :attr:`current_player` from ``current`` (after a change made outside
        :meth:`apply`, which does the same at its end)."""
        self.current_player = None if self.current < 0 else self.current

    @property
    def top(self) -> int:
        """The top card of the discard pile (-1 if there is none)."""
        return self.discard[-1] if self.discard else -1

    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.phase is MATCH_OVER

    def is_round_over(self) -> bool:
        """Whether a round has ended (the match may go on)."""
        return self.phase in _TURN_OVER

    def pending_draw(self) -> int:
        """Cards the current player would draw on accepting a pending penalty."""
        return self.pending

    def hand_sizes(self) -> list[int]:
        """The number of cards in each hand."""
        return [len(hand) for hand in self.hands]

    # ----------------------------------------------------------- legal actions
    def _can_play(self, player: int, card: int) -> bool:
        if not _PLAYABLE[self.match * 4 + self.color][card]:
            return False
        if card == WILD_DRAW_FOUR and self._strict:
            return not _holds_color(self.hands[player], self.color)
        return True

    def legal_actions(self, player: int) -> list[int]:
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
                playable = _PLAYABLE_SETS[self.match * 4 + self.color].intersection(hand)
                if playable:
                    if (self._strict and WILD_DRAW_FOUR in playable
                            and not self._can_play(player, WILD_DRAW_FOUR)):
                        playable = playable - {WILD_DRAW_FOUR}
                    plays = (_PLAYS_UNO if len(hand) == 2 else _PLAYS)[player]
                    acts = []
                    for card in sorted(playable):
                        acts += plays[card]
                    if self._dwp or not playable:
                        acts.append(_DRAW[player])
                else:
                    acts = [_DRAW[player]]
                self._cache_version = version
                self._cache_player = player
                self._cache = tuple(acts)
                return acts
            if phase is DRAWN and type(player) is int:
                acts = list((_PLAYS_UNO if len(self.hands[player]) == 2 else _PLAYS)[player]
                            [self.drawn])
                if self._play_drawn != "must":
                    acts.append(_PASS[player])
                self._cache_version = version
                self._cache_player = player
                self._cache = tuple(acts)
                return acts
        acts = []
        phase = self.phase
        if type(player) is not int or not 0 <= player < self.n:
            return acts
        if phase is ROUND_OVER:
            acts.append(_NEXT[player])
        elif phase is not MATCH_OVER and self.active[player]:
            if player == self.current:
                if phase is PLAY:
                    hand = self.hands[player]
                    row = self.match * 4 + self.color
                    playable = _PLAYABLE_SETS[row].intersection(hand)
                    if playable:
                        if (self._strict and WILD_DRAW_FOUR in playable
                                and not self._can_play(player, WILD_DRAW_FOUR)):
                            playable = playable - {WILD_DRAW_FOUR}
                        if self._simple:
                            plays = (_PLAYS_UNO if len(hand) == 2 else _PLAYS)[player]
                            for card in sorted(playable):
                                acts.extend(plays[card])
                        else:
                            self._house_plays(player, playable, acts)
                    if self._misplay:
                        plain = _PLAIN[player]
                        for card in sorted(set(hand) - _PLAYABLE_SETS[row]):
                            acts.append(plain[card])
                    if self._dwp or not playable or self._attack:
                        acts.append(_DRAW[player])
                elif phase is DRAWN:
                    left = len(self.hands[player]) - 1
                    if self._simple:
                        acts.extend((_PLAYS_UNO if left == 1 else _PLAYS)[player][self.drawn])
                    else:
                        acts.extend(house.card_plays(self, player, self.drawn, left))
                    if self._play_drawn != "must":
                        acts.append(_PASS[player])
                elif phase is CHALLENGE or phase is RESPOND:
                    acts.append(_DRAW[player])
                    if phase is RESPOND:
                        self._answers(player, acts)
                    if self.wd4_by >= 0:
                        acts.append(_CHALLENGE[player])
                elif phase is CHOOSE_COLOR:
                    acts.extend(_COLOR[player])
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
                            acts.append(_UNO[player])
                    else:
                        acts.append(_CATCH[player][vulnerable])
                if self._false_catch:
                    active = self.active
                    for target in range(self.n):
                        if target != player and target != vulnerable and active[target]:
                            acts.append(_CATCH[player][target])
            if self._say:
                acts.append(_SAY[player])
        self._cache_version = self._version
        self._cache_player = player
        self._cache = tuple(acts)
        return acts

    def legal_tuple(self, player: int) -> tuple[int, ...]:
        """:meth:`legal_actions` as a tuple, without a copy where the game has it already
        (for callers that look the list up in a table)."""
        if self._cache_version != self._version or self._cache_player != player:
            acts = self.legal_actions(player)
            if self._cache_version != self._version or self._cache_player != player:
                return tuple(acts)
        return self._cache

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` may be applied now."""
        return A.is_valid_encoding(action) and action in self.legal_actions(action & 15)

    # ------------------------------------------------------------------- apply
    def apply(self, action: int) -> list[Event]:
        """Apply one action and return the events it caused.

        Raises:
            IllegalActionError: the action is not legal now; the game is unchanged.
        """
        # Legal if in the cached list (each action names its seat: the list's seat).
        if (type(action) is not int or self._cache_version != self._version
                or action not in self._cache):
            if type(action) is int and action >> 30:
                action = house.normalize(action)
            if not self.is_legal(action):
                raise IllegalActionError(self._action_text(action), self._why_illegal(action))
        self._version += 1
        self.history.append(action)
        log = self.log
        start = len(log)
        if action in _ONE_CARD and self._plain_plays and self.phase is not RESPOND:
            player, card, color = _ONE_CARD[action]
            self._play_plain(player, card, color)
        else:
            player = action & 15
            kind = (action >> 4) & 15
            if kind == _T_PLAY:
                card = (action >> 8) & 127
                if self._misplay and self.phase is PLAY and not self._can_play(player, card):
                    self._misplayed(player, card)
                elif action >> 18 == 15:  # one plain card: no target, give or extra cards
                    if self._plain and self.phase is not RESPOND:
                        self._play_plain(player, card, (action >> 15) & 7)
                    else:
                        self._play(player, card, (action >> 15) & 7, False)
                else:
                    self._play(player, card, (action >> 15) & 7, bool(action & _UNO_FLAG),
                               (action >> 18) & 15, A.action_give(action), A.action_extra(action))
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
        current = self.current  # _publish_turn, inline
        self.current_player = None if current < 0 else current
        return log[start:]

    def _action_text(self, action: int) -> str:
        try:
            return A.format_action(action)
        except ValueError:
            return repr(action)

    def _why_illegal(self, action: int) -> str:
        from unokit.engine.explain import why_illegal

        return why_illegal(self, action)

    # ----------------------------------------------------------------- effects
    def _emit(self, kind: EventKind, *, player: int = -1, target: int = -1, card: int = -1,
              color: int = -1, cards: tuple[int, ...] = (), amount: int = 0, reason: str = "",
              visible_to: tuple[int, ...] | None = None, data: Any = None) -> None:
        seq = self.seq
        self.seq = seq + 1
        self.log.append(_new_tuple(Event, (seq, kind, player, target, card, color, cards,
                                           amount, reason, visible_to, data)))

    def _emit_fast(self, kind: EventKind, player: int, card: int, color: int,
                   cards: tuple[int, ...], amount: int, reason: str,
                   visible_to: tuple[int, ...] | None) -> None:
        """:meth:`_emit` for the frequent events, with every field given in order."""
        event = _new_tuple(Event, (self.seq, kind, player, -1, card, color, cards, amount,
                                   reason, visible_to, None))
        self.seq += 1
        self.log.append(event)

    def _next(self, seat: int) -> int:
        n = self.n
        step = self.direction
        seat = (seat + step) % n
        if self.n_active != n:
            active = self.active
            while not active[seat]:
                seat = (seat + step) % n
        return seat

    def _set_turn(self, seat: int, phase: Phase = PLAY) -> None:
        self.current = seat
        self.phase = phase

    def _end_turn(self, player: int) -> None:
        self.current = self._next(player)
        self.phase = PLAY

    def _take(self) -> int:
        """The top card of the draw pile, reshuffling the discard pile if needed; -1 if
        there is nothing to draw."""
        pile = self.draw_pile
        if not pile:
            discard = self.discard
            # A challengeable Wild Draw Four that a guilty player takes back must leave
            # the card it covered on the pile, so that card stays out of the reshuffle.
            keep = 2 if self.wd4_by >= 0 and self.rules.challenge_guilty_takes_back else 1
            if len(discard) <= keep:
                return -1
            top = discard[-keep:]
            del discard[-keep:]
            pile = discard
            self.rng.shuffle(pile)
            self.draw_pile = pile
            self.discard = top
            self._recycled = True
            self._emit(K.RESHUFFLED, amount=len(pile))
        return pile.pop()

    def _draw(self, player: int, count: int, reason: str) -> list[int]:
        """``player`` draws up to ``count`` cards; what cannot be drawn is forgiven. In UNO
        Attack each card to draw is a press of the launcher."""
        if self._attack:
            return attack.press(self, player, count, reason)
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

    def _play(self, player: int, card: int, color: int, uno: bool, target: int = 15,
              give: int = -1, extra: tuple[int, ...] = ()) -> None:
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
        elif color == 7:
            color = house.wheel_color(self.color, self.direction)
        self.color = color
        prev_match = self.match
        if not transparent:
            self.match = last
        self.fresh = False
        seq = self.seq
        self.seq = seq + 1
        self.log.append(_new_tuple(Event, (seq, _PLAYED, player, -1 if target == 15 else target,
                                           card, color if card >= WILD else -1, extra, 0, "",
                                           None, None)))
        if self._attack and card < WILD and RANK_OF[card] == DISCARD_ALL:
            attack.discard_all(self, player, card)
        # A Wild Draw Four is judged on the hand it was put down from (before any refill).
        guilty = card == WILD_DRAW_FOUR and _holds_color(hand, prev_color)
        if uno:
            self._emit(K.UNO_CALLED, player=player)
        elif len(hand) == 1:
            self.uno_open = player
        if not hand and self.rules.progressive_refill and self.levels[player] > 1:
            level = self.levels[player] = self.levels[player] - 1
            self._draw(player, level, "refill")
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
        self.log.append(_new_tuple(Event, (seq, _PLAYED, player, -1, card,
                                           color if card >= WILD else -1, (), 0, "", None,
                                           None)))
        if len(hand) == 1:
            self.uno_open = player
        elif not hand:
            self._went_out(player, card)
            return
        if IS_NUMBER[card]:
            n = self.n
            self.current = ((player + self.direction) % n if self.n_active == n
                            else self._next(player))
            self.phase = PLAY
            return
        guilty = card == WILD_DRAW_FOUR and _holds_color(hand, prev_color)
        self._effect(player, card, 15, -1, False, guilty, prev_color, prev_match)

    def _skip_next(self, player: int) -> None:
        skipped = self._next(player)
        self._emit(_SKIPPED, player=skipped)
        self._end_turn(skipped)

    def _reverse(self, player: int) -> None:
        self.direction = -self.direction
        self._emit(_REVERSED, amount=self.direction)
        if self.n_active == 2 and self._rev_skips:
            self._skip_next(player)
        else:
            self._end_turn(player)

    def _misplayed(self, player: int, card: int) -> None:
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
        self.uno_open = -1
        self.skip_from = -1
        if self._attack:  # a press ends the turn, whatever comes out
            pressed = attack.press(self, player, 1, "turn")
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
                self.log.append(_new_tuple(Event, (seq, _DREW, player, -1, -1, -1, (card,), 1,
                                                   "turn", self._viewers[player], None)))
                if (self._play_drawn != "never"
                        and _PLAYABLE[self.match * 4 + self.color][card]
                        and (card != WILD_DRAW_FOUR or self._can_play(player, card))):
                    self.idle = 0
                    self.drawn = card
                    self.phase = DRAWN
                elif self.idle:
                    self._turn_ended_idle(player, True)
                else:
                    n = self.n
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

        # --------------------------------------------------------- copies, views
    def copy(self) -> Game:
        """An independent copy of the game, with its own event log and history."""
        clone = Game.__new__(Game)
        for name in Game.__slots__:
            value = getattr(self, name)
            if isinstance(value, list):
                value = [list(v) if isinstance(v, list) else v for v in value]
            elif type(value) is dict:
                value = dict(value)
            setattr(clone, name, value)
        clone.rng = SplitMix64(0)
        clone.rng.state = self.rng.state
        clone.log = list(self.log)
        return clone

    def snapshot(self) -> Game:
        """A copy to :meth:`restore` later (undo)."""
        return self.copy()

    def restore(self, snapshot: Game) -> None:
        """Return to a :meth:`snapshot` of this game."""
        source = snapshot.copy()
        for name in Game.__slots__:
            setattr(self, name, getattr(source, name))
        self._version += 1

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-ready data (see :mod:`unokit.engine.snapshot`)."""
        from unokit.engine.snapshot import state_to_dict

        return state_to_dict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Game:
        """A game in the state :meth:`to_dict` wrote."""
        from unokit.engine.snapshot import state_from_dict

        return state_from_dict(data)

    def observation(self, seat: int | None) -> Observation:
        """What ``seat`` may see now, ``None`` for a spectator (see
        :mod:`unokit.engine.observation`)."""
        return observe(self, seat)

    def state_key(self) -> tuple[Any, ...]:
        """Everything that makes up the state, for comparison."""
        parts: list[Any] = [self.rules, self.rng.state]
        for name in STATE_FIELDS:
            value = getattr(self, name)
            if isinstance(value, list):
                value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
            elif type(value) is dict:
                value = tuple(sorted(value.items()))
            parts.append(value)
        return tuple(parts)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.state_key() == other.state_key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"<Game {self.rules.to_string()!r} seed={self.seed} round={self.round_no} "
                f"phase={self.phase.value} current={self.current_player}>")
