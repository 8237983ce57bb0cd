"""The state of a game, every field in one place, and the primitives the rules are built on.

:class:`GameState` holds every slot of a :class:`~unokit.engine.game.Game`: the state
proper (:data:`STATE_FIELDS`, what a saved state stores and ``==`` compares), the rules
and the generator, the event log and the action history, and the values *derived* from
them (fast-path flags, rule switches, :attr:`~GameState.current_player`, the legal-action
cache). The derived values are never kept in step by hand: :meth:`GameState.derive`
recomputes all of them, and every way a game comes into being calls it (a new game,
:meth:`~unokit.engine.game.Game.from_setup`, :meth:`~unokit.engine.game.Game.from_dict`,
:meth:`~GameState.copy`, :meth:`~GameState.restore`).

The rules themselves are mixins over this class, one chain in dependency order:
``GameState`` <- ``AttackCards`` (:mod:`~unokit.engine.attack`) <- ``CardEffects``
(:mod:`~unokit.engine.house`) <- ``MatchFlow`` (:mod:`~unokit.engine.match_flow`) <-
``TableRules`` (:mod:`~unokit.engine.table`) <- ``Game`` (:mod:`~unokit.engine.game`).

>>> from unokit import Game, Rules
>>> game = Game(Rules.preset("official", players=2), seed=4)
>>> isinstance(game, GameState), game.copy() == game
(True, True)
>>> game.hands[0].append(game.draw_pile.pop())  # a change made outside apply() ...
>>> game.derive()  # ... is announced, so that nothing derived goes stale
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Self

from unokit.engine.cards import COLOR_OF, DRAW_TWO, NO_COLOR, WILD_DRAW_FOUR, WILD_SWAP_HANDS
from unokit.engine.errors import SetupError
from unokit.engine.events import Event, EventKind
from unokit.engine.phases import PLAY, Phase
from unokit.engine.rng import SplitMix64
from unokit.engine.rules import Rules
from unokit.engine.scoring import partner
from unokit.engine.support import ANY, INERT, Declaration, only_default, refusals
from unokit.engine.tables import PLAYABLE

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
"""The fields that make up the state: what a saved state stores and ``==`` compares
(besides the rules and the generator's state). Everything else is the log, the history
or derived."""

RECORDED_FIELDS = ("rules", "n", "rng", "log", "history")
"""The fields beside the state: the rules, the seat count, the generator, the event log
and the action history."""

DERIVED_FIELDS = (
    "n_active", "current_player", "_version", "_cache_version", "_cache_player", "_cache",
    "_recycled", "_draw_one", "_play_drawn", "_draw_while_playable", "_strict",
    "_challenge_mode", "_misplay", "_false_catch", "_self_catch", "_rev_skips", "_viewers",
    "_attack", "_say", "_out_of_turn", "_answer_two", "_answer_four", "_simple", "_plain",
    "_plain_plays", "_turn_only",
)
"""The fields computed from the others by :meth:`GameState.derive` (and the caches it
invalidates)."""

assert len(Event._fields) == 11, "Event tuples are built positionally below: update them"
_new_tuple = tuple.__new__
_SKIPPED, _REVERSED = EventKind.SKIPPED, EventKind.REVERSED  # (enum member reads are slow)


# ----------------------------------------------------------- fast-path support
SIMPLE_SUPPORT: Declaration = {
    # Every play is one card and, for a wild, a colour: the plays come from the
    # precomputed tables (:data:`~unokit.engine.tables.PLAYS`).
    "players": ANY, "hand_size": ANY,
    "deck": frozenset({"classic", "h2o"}),  # Attack cards target seats, press, discard
    # The cards are checked on the game's deck itself (a set-up position's deck need not
    # be the rules'): no Wild Swap Hands, see :meth:`GameState.derive`.
    "extra_cards": ANY,
    "dealer": ANY, "first_card": ANY, "draw": ANY, "play_drawn": ANY,
    "draw_when_playable": ANY, "two_player_reverse_skips": ANY, "wild_draw_four": ANY,
    "challenge_guilty_draw": ANY, "challenge_innocent_draw": ANY,
    "challenge_guilty_takes_back": ANY, "uno_penalty": ANY, "uno_self_catch": ANY,
    "false_catch_penalty": ANY, "misplay_penalty": ANY, "scoring": ANY,
    "target_score": ANY, "rounds": ANY, "lone_zero_points": ANY, "going_out_bonus": ANY,
    "teams": ANY, "partner_hands_visible": ANY, "play_to_last": ANY,
    "progressive_refill": ANY, "draw_two_on_draw_two": ANY, "draw_four_on_draw_four": ANY,
    "draw_two_on_draw_four": ANY, "draw_four_on_draw_two": ANY,
    "reverse_deflects_draw": ANY, "skip_on_skip": ANY, "jump_in": ANY,
    "seven_swap": only_default("seven_swap"),  # a 7 names a seat
    "zero_rotate": ANY,
    "seven_zero_last_card": INERT,  # acts with seven_swap (refused) or after the play
    "five_exchange": only_default("five_exchange"),  # a 5 names a seat and a card
    "multi_play": only_default("multi_play"),
    "uno_slap": ANY, "silence": ANY, "silence_penalty": ANY,
    "wild_color": only_default("wild_color"),  # next_in_circle: a wild names no colour
    "blank_card_effect": frozenset({"wild", "draw_ten"}),  # transparent: no colour
    "launcher_fire_chance": INERT, "launcher_max_burst": INERT,  # the Attack deck only
}
"""Where the plays of a card are the precomputed ones (the flag ``_simple``)."""

PLAIN_SUPPORT: Declaration = {
    **SIMPLE_SUPPORT,
    # A plain play of one card needs nothing but the basic steps (``Game._play_plain``):
    # no rotation, silence or refill, and (checked on the deck) no special wild.
    "zero_rotate": only_default("zero_rotate"),
    "silence": only_default("silence"),
    "silence_penalty": INERT,
    "progressive_refill": only_default("progressive_refill"),
    "uno_slap": INERT,  # a slap follows an UNO call, which is never a plain play
}
"""Where a plain play of one card takes the short path (the flag ``_plain``)."""

PLAIN_PLAYS_SUPPORT: Declaration = {
    **PLAIN_SUPPORT,
    "misplay_penalty": only_default("misplay_penalty"),  # every play matches
}
"""Where :meth:`~unokit.engine.game.Game.apply` takes every plain play of one card on
the short path without checking it against the top card (the flag ``_plain_plays``)."""

TURN_ONLY_SUPPORT: Declaration = {
    **SIMPLE_SUPPORT,
    # A plain turn offers only plays and a draw: nothing out of turn, for any seat.
    "misplay_penalty": only_default("misplay_penalty"),
    "false_catch_penalty": only_default("false_catch_penalty"),
    "silence": only_default("silence"),
    "silence_penalty": INERT,
    "jump_in": only_default("jump_in"),
    "skip_on_skip": only_default("skip_on_skip"),
}
"""Where the legal actions of the player in turn are only plays and a draw (the flag
``_turn_only``; a seat open to a catch still takes the general path)."""

FAST_PATHS: dict[str, Declaration] = {
    "_simple": SIMPLE_SUPPORT,
    "_plain": PLAIN_SUPPORT,
    "_plain_plays": PLAIN_PLAYS_SUPPORT,
    "_turn_only": TURN_ONLY_SUPPORT,
}
"""Each fast-path flag and the rules it runs under (besides the deck's cards, see
:meth:`GameState.derive`). A flag set to ``False`` sends the engine down the general
path, which plays every rule set: the flags change speed, never behaviour."""


def _supports(declaration: Declaration, rules: Rules) -> bool:
    return not refusals(declaration, rules, "the fast path")


def answers_exist(rules: Rules, kind: int) -> bool:
    """Whether the rules let any card answer a penalty of this kind (``DRAW_TWO`` or
    ``WILD_DRAW_FOUR``), whatever the victim holds.

    >>> from unokit.engine.cards import DRAW_TWO
    >>> answers_exist(Rules.preset("official"), DRAW_TWO)
    False
    >>> answers_exist(Rules.preset("stacking"), DRAW_TWO)
    True
    """
    if rules.reverse_deflects_draw:
        return True
    if kind == WILD_DRAW_FOUR:
        return rules.draw_four_on_draw_four == "stack" or rules.draw_two_on_draw_four != "none"
    return rules.draw_two_on_draw_two != "none" or rules.draw_four_on_draw_two == "stack"


_BY_RULES: dict[int, tuple[Rules, tuple[Any, ...]]] = {}
"""``_from_rules`` by the rule set's ``id`` (hashing a rule set costs more than deriving
from it), with the rule set itself kept so that its ``id`` stays its own."""


def _from_rules(rules: Rules) -> tuple[Any, ...]:
    """What :meth:`GameState.derive` takes from the rules alone, computed once per rule set."""
    entry = _BY_RULES.get(id(rules))
    if entry is not None and entry[0] is rules:
        return entry[1]
    if len(_BY_RULES) >= 256:
        _BY_RULES.clear()
    values = _compute_from_rules(rules)
    _BY_RULES[id(rules)] = (rules, values)
    return values


@lru_cache(maxsize=256)
def _compute_from_rules(rules: Rules) -> tuple[Any, ...]:
    n = rules.players
    viewers = tuple((p,) if not rules.partner_hands_visible else (p, partner(rules, p))
                    for p in range(n))
    return (
        rules.draw == "one", rules.play_drawn, rules.draw_when_playable,
        rules.wild_draw_four == "strict", rules.wild_draw_four == "challenge",
        rules.misplay_penalty, rules.false_catch_penalty, rules.uno_self_catch,
        rules.two_player_reverse_skips, viewers, rules.deck == "attack",
        rules.silence != "off",
        rules.jump_in or rules.skip_on_skip != "none" or rules.silence != "off",
        answers_exist(rules, DRAW_TWO), answers_exist(rules, WILD_DRAW_FOUR),
        *(_supports(declaration, rules) for declaration in FAST_PATHS.values()),
    )


def holds_color(hand: list[int], color: int) -> bool:
    """Whether ``hand`` holds a card of ``color`` (a function, so that no caller's
    variable becomes a closure cell)."""
    return any(COLOR_OF[c] == color for c in hand)


class GameState:
    """Every slot of a game, and the primitives the rule mixins build on.

    A ``GameState`` on its own is a match before its first deal; :class:`unokit.Game`
    (the last of the mixins) deals and plays it. Cards are kinds (``int``, see
    :mod:`unokit.engine.cards`), seats are ``0 .. n - 1``, ``-1`` means "none" for a
    seat or a card and :data:`~unokit.engine.cards.NO_COLOR` for a colour.
    """

    __slots__ = (*STATE_FIELDS, *RECORDED_FIELDS, *DERIVED_FIELDS)

    # ------------------------------------------------------------- the state
    seed: int
    """The seed the match was started with (``0 <= seed < 2**64``)."""
    deck: list[int]
    """Every card of the match: the rules' deck, or the cards a set-up gave."""
    hands: list[list[int]]
    """Each seat's cards, in the order they came."""
    draw_pile: list[int]
    """The draw pile; its top card (the next one drawn) is the **end** of the list."""
    discard: list[int]
    """The discard pile, bottom to top (the top card is the end of the list)."""
    color: int
    """The colour in play (0-3 for R, Y, G, B); ``NO_COLOR`` while a ``W`` start card
    waits for its colour."""
    direction: int
    """1: play passes to seat + 1 (clockwise); -1: to seat - 1."""
    current: int
    """The seat whose turn or decision it is; -1 between rounds and while everyone slaps."""
    phase: Phase
    """What the game waits for (see :class:`~unokit.engine.phases.Phase`)."""
    dealer: int
    """The seat that dealt this round."""
    drawn: int
    """The card just drawn that may be played now (phase ``drawn``); -1 otherwise."""
    pending: int
    """The cards the current player would draw on accepting a pending penalty (a Draw
    Two or Wild Draw Four, stacked or not); 0 when none."""
    wd4_by: int
    """The seat whose Wild Draw Four may be challenged now; -1 when none."""
    wd4_guilty: bool
    """Whether that Wild Draw Four was played while holding the colour in play."""
    wd4_color: int
    """The colour in play before that Wild Draw Four (it comes back if taken back)."""
    uno_open: int
    """The seat that played down to one card without calling UNO and may be caught;
    -1 when none."""
    active: list[bool]
    """Whether each seat still plays in this round (``play_to_last`` takes out the
    seats that went out; elimination the seats out of the match)."""
    in_match: list[bool]
    """Whether each seat is still in the match (elimination scoring takes seats out)."""
    finish_order: list[int]
    """The seats in the order they went out this round (a blocked round adds its winner)."""
    levels: list[int]
    """Each seat's ``progressive_refill`` level: the cards an emptied hand draws, plus one."""
    idle: int
    """Turns in a row in which the player could neither play nor draw; a round blocks
    when every active seat has had one."""
    scores: list[int]
    """The match score of each seat."""
    round_no: int
    """The round under way, from 1 (0 before the first deal)."""
    round_wins: list[int]
    """Rounds each seat has won."""
    round_losses: list[int]
    """Rounds each seat has lost (``lazy`` scoring)."""
    round_winner: int
    """The seat that won this round; -1 while it goes on."""
    round_loser: int
    """The seat that lost this round (``lazy`` scoring); -1 otherwise."""
    round_points: list[int]
    """The points each seat scored in the last round."""
    match_winner: int
    """The seat that won the match; -1 while it goes on."""
    seq: int
    """The ``seq`` of the next event (the number of events so far)."""
    first_next: int
    """The seat that plays first next round (``lazy`` scoring: the round's winner); -1:
    the dealer's neighbour."""
    final_round: bool
    """Whether this is an elimination match's final round (two seats left)."""
    match: int
    """The card to match: the top card of the discard pile, unless a transparent blank
    card lies on it (saved states call the field ``match``)."""
    pending_kind: int
    """``DRAW_TWO`` or ``WILD_DRAW_FOUR``: the card that started the pending penalty; -1."""
    wd4_match: int
    """The card to match before the Wild Draw Four that may be challenged."""
    skip_from: int
    """The seat just skipped, who may pass the skip on (``skip_on_skip``); -1 when none."""
    fresh: bool
    """Whether the discard pile holds only the start card (nobody may jump in on it)."""
    exchange_from: int
    """The seat that gave a card with a 5 and waits for one back (phase ``exchange``); -1."""
    slap_left: list[int]
    """The seats that have still to slap (phase ``slap``); the last one draws."""
    resume_current: int
    """The seat whose turn it is once everyone has slapped."""
    resume_phase: Phase
    """The phase the game returns to once everyone has slapped."""
    silence_seat: int
    """The seat whose 2 started a silence (``silence = "twos"``; it ends when that seat's
    turn comes back); -1 when none."""
    silence_color: int
    """The colour whose wild started a silence (``silence = "wilds"``; it ends when the
    colour changes); ``NO_COLOR`` when none."""
    launcher: list[int]
    """The cards each successive launcher press ejects, fixed by a scenario (UNO Attack);
    empty: the generator decides."""
    positions: dict[str, int]
    """How often each position seen after cards came back from the discard pile has
    occurred this round (digest -> count); see ``MatchFlow._note_position``."""

    # ---------------------------------------------------------- beside the state
    rules: Rules
    """The rule set (immutable)."""
    n: int
    """The number of seats (``rules.players``)."""
    rng: SplitMix64
    """The generator every random choice comes from (see :mod:`unokit.engine.rng`)."""
    log: list[Event]
    """Every event of the match so far, the set-up included."""
    history: list[int]
    """Every action applied so far, in order (what a game record stores)."""

    # ------------------------------------------------------------------ derived
    n_active: int
    """The number of seats still playing this round (``sum(active)``)."""
    current_player: int | None
    """The seat whose turn or decision it is; ``None`` between rounds, while everyone
    slaps and at the end (``current``, with ``None`` for -1)."""
    _version: int
    """Bumped by every action and by :meth:`derive`: the legal-action cache is valid while
    ``_cache_version`` equals it."""
    _cache_version: int
    """The ``_version`` the cached legal actions were computed at."""
    _cache_player: int
    """The seat the cached legal actions are for."""
    _cache: tuple[int, ...]
    """The cached legal actions."""
    _recycled: bool
    """Set by an action that brought cards back from the discard pile: ``apply`` counts
    the position once the action is done."""
    _draw_one: bool
    """``rules.draw == "one"``."""
    _play_drawn: str
    """``rules.play_drawn``."""
    _draw_while_playable: bool
    """``rules.draw_when_playable``."""
    _strict: bool
    """``rules.wild_draw_four == "strict"``."""
    _challenge_mode: bool
    """``rules.wild_draw_four == "challenge"``."""
    _misplay: int
    """``rules.misplay_penalty``."""
    _false_catch: int
    """``rules.false_catch_penalty``."""
    _self_catch: bool
    """``rules.uno_self_catch``."""
    _rev_skips: bool
    """``rules.two_player_reverse_skips``."""
    _viewers: tuple[tuple[int, ...], ...]
    """``_viewers[seat]``: the seats that see ``seat``'s cards (itself, and its partner
    when partners' hands are visible)."""
    _attack: bool
    """Whether the deck is UNO Attack's (every draw is a press of the launcher)."""
    _say: bool
    """Whether ``silence`` is on (every seat may say something)."""
    _out_of_turn: bool
    """Whether any play may come out of turn (jump-in, a skip passed on, silence)."""
    _answer_two: bool
    """Whether any card may answer a Draw Two (it then waits in phase ``respond``)."""
    _answer_four: bool
    """Whether any card may answer a Wild Draw Four."""
    _simple: bool
    """Fast path: every play is a card and, for a wild, a colour (the precomputed
    tables); see :data:`SIMPLE_SUPPORT`."""
    _plain: bool
    """Fast path: a plain play of one card needs nothing but the basic steps; see
    :data:`PLAIN_SUPPORT`."""
    _plain_plays: bool
    """Fast path: ``apply`` takes every plain play of one card (out of a response) on the
    short path; see :data:`PLAIN_PLAYS_SUPPORT`."""
    _turn_only: bool
    """Fast path: a plain turn offers only plays and a draw (nothing out of turn); see
    :data:`TURN_ONLY_SUPPORT`."""

    # ------------------------------------------------------------------ set-up
    def __init__(self, rules: Rules | str | dict[str, Any] = "official", seed: int = 0) -> None:
        """A match under ``rules`` before its first deal."""
        self.rules = rules = Rules.load(rules)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
            raise SetupError(f"seed must be an integer 0 <= seed < 2**64, got {seed!r}")
        n = self.n = rules.players
        self.seed = seed
        self.rng = SplitMix64(seed)
        self.deck = rules.deck_cards()
        self.log = []
        self.history = []
        self._version = 0
        self._cache_version = -1
        self._cache_player = -1
        self._cache = ()
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
        self.launcher = []
        self._recycled = False
        self._reset_round()
        self.derive()

    def _reset_round(self) -> None:
        """Every field of a round to its value before the deal."""
        n = self.n
        self.hands = [[] for _ in range(n)]
        self.draw_pile = []
        self.discard = []
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
        self.finish_order = []
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
        self.slap_left = []
        self.resume_current = -1
        self.resume_phase = PLAY
        self.silence_seat = -1
        self.silence_color = NO_COLOR
        self.positions = {}

    def derive(self) -> None:
        """Recompute everything derived from the state and the rules, and drop the cached
        legal actions.

        Every way a game comes into being calls it. Call it after changing a game's
        state from outside :meth:`~unokit.engine.game.Game.apply` (a test position, a
        tool that edits hands): the engine caches legal actions and picks its fast paths
        from the cards in play, and would not see such a change otherwise.

        The fast-path flags come from the declarations in :data:`FAST_PATHS` and from
        the cards in play: ``_simple`` and ``_turn_only`` need a deck without a Wild Swap
        Hands, ``_plain`` and ``_plain_plays`` also one without special wilds.
        """
        (self._draw_one, self._play_drawn, self._draw_while_playable, self._strict,
         self._challenge_mode, self._misplay, self._false_catch, self._self_catch,
         self._rev_skips, self._viewers, self._attack, self._say, self._out_of_turn,
         self._answer_two, self._answer_four, simple, plain, plain_plays,
         turn_only) = _from_rules(self.rules)
        deck = self.deck
        classic = max(deck, default=0) <= WILD_DRAW_FOUR  # no special wild
        no_swap = classic or WILD_SWAP_HANDS not in deck
        self._simple = simple and no_swap
        self._plain = plain and classic
        self._plain_plays = plain_plays and classic
        self._turn_only = turn_only and no_swap
        self.n_active = sum(self.active)
        self.current_player = None if self.current < 0 else self.current
        self._version += 1

    # -------------------------------------------------------------- primitives
    def _emit(self, kind: EventKind, *, player: int = -1, target: int = -1, card: int = -1,
              color: int = -1, cards: tuple[int, ...] = (), amount: int = 0, reason: str = "",
              visible_to: tuple[int, ...] | None = None, data: Any = None) -> None:
        """Log one event (the next ``seq``)."""
        seq = self.seq
        self.seq = seq + 1
        # Positional, as Event's fields (checked at import above).
        self.log.append(_new_tuple(Event, (seq, kind, player, target, card, color, cards,
                                           amount, reason, visible_to, data)))

    def _emit_fast(self, kind: EventKind, player: int, card: int, color: int,
                   cards: tuple[int, ...], amount: int, reason: str,
                   visible_to: tuple[int, ...] | None) -> None:
        """:meth:`_emit` for the frequent events, with every field given in order."""
        # Positional, as Event's fields (checked at import above).
        event = _new_tuple(Event, (self.seq, kind, player, -1, card, color, cards, amount,
                                   reason, visible_to, None))
        self.seq += 1
        self.log.append(event)

    def _next(self, seat: int) -> int:
        """The next active seat after ``seat`` in the direction of play.

        For speed the step is also written out inline, for a game where every seat is
        active, in ``Game._play_plain``, ``Game._turn_draw`` and ``MatchFlow._effect``
        (``(seat + direction) % n if n_active == n``): change all four together."""
        n = self.n
        step = self.direction
        seat = (seat + step) % n
        if self.n_active != n:
            active = self.active
            while not active[seat]:
                seat = (seat + step) % n
        return seat

    def _seats_from(self, start: int) -> list[int]:
        """Active seats in the current direction, starting with ``start``."""
        seats = [start]
        seat = self._next(start)
        while seat != start:
            seats.append(seat)
            seat = self._next(seat)
        return seats

    def _set_turn(self, seat: int, phase: Phase = PLAY) -> None:
        self.current = seat
        self.phase = phase

    def _end_turn(self, player: int) -> None:
        """The turn passes from ``player`` to the next seat."""
        self.current = self._next(player)
        self.phase = PLAY

    def _skip_next(self, player: int) -> None:
        """The seat after ``player`` is skipped."""
        skipped = self._next(player)
        self._emit(_SKIPPED, player=skipped)
        self._end_turn(skipped)

    def _reverse(self, player: int) -> None:
        """The direction turns (with two seats, as a skip where the rules say so)."""
        self.direction = -self.direction
        self._emit(_REVERSED, amount=self.direction)
        if self.n_active == 2 and self._rev_skips:
            self._skip_next(player)
        else:
            self._end_turn(player)

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
            self._emit(EventKind.RESHUFFLED, amount=len(pile))
        return pile.pop()

    def _can_play(self, player: int, card: int) -> bool:
        """Whether ``player`` may put ``card`` on the pile now (a strict Wild Draw Four
        only without the colour in play)."""
        if not PLAYABLE[self.match * 4 + self.color][card]:
            return False
        if card == WILD_DRAW_FOUR and self._strict:
            return not holds_color(self.hands[player], self.color)
        return True

    # -------------------------------------------------------- copies, equality
    def copy(self) -> Self:
        """An independent copy of the game, with its own event log and history."""
        clone = object.__new__(type(self))
        for name in _SLOTS:
            value = getattr(self, name)
            if isinstance(value, list):
                value = [list(v) if isinstance(v, list) else v for v in value]
            elif type(value) is dict:
                value = dict(value)
            setattr(clone, name, value)
        clone.rng = SplitMix64(0)
        clone.rng.state = self.rng.state
        clone.log = list(self.log)
        clone.derive()
        return clone

    def snapshot(self) -> Self:
        """A copy to :meth:`restore` later (undo)."""
        return self.copy()

    def restore(self, snapshot: GameState) -> None:
        """Return to a :meth:`snapshot` of this game."""
        source = snapshot.copy()
        for name in _SLOTS:
            setattr(self, name, getattr(source, name))
        self.derive()

    def state_key(self) -> tuple[Any, ...]:
        """Everything that makes up the state, for comparison (derived values left out:
        :meth:`derive` computes them from these)."""
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
        if not isinstance(other, GameState):
            return NotImplemented
        return self.state_key() == other.state_key()

    __hash__ = None  # type: ignore[assignment]


_SLOTS = GameState.__slots__

__all__ = ["DERIVED_FIELDS", "FAST_PATHS", "PLAIN_PLAYS_SUPPORT", "PLAIN_SUPPORT",
           "RECORDED_FIELDS", "SIMPLE_SUPPORT", "STATE_FIELDS", "TURN_ONLY_SUPPORT",
           "GameState", "answers_exist", "holds_color"]
