"""Fixed-size encodings of unokit games for learning agents: actions as indices, views as
vectors.

**Actions** (:mod:`unokit.rl.action_tokens`, whose names are importable from here too):
:data:`ACTION_SIZE` indices serve every rule set and 2 to 10 players; an engine action is
a short sequence of them, and :func:`encode_action` and :func:`decode_action` convert
both ways.

>>> from unokit.engine import actions as A, parse_card
>>> decode_action(encode_action(A.draw(1), seat=1, n=3), seat=1, n=3) == A.draw(1)
True

**Observations.** :class:`ObservationEncoder` turns a seat's
:class:`~unokit.engine.observation.Observation` (and nothing else) into a ``float32`` vector of
:data:`OBSERVATION_SIZE` numbers laid out as :data:`OBSERVATION_FIELDS` says.
:meth:`ObservationEncoder.encode_fields` gives the same vector from
:func:`~unokit.engine.observation.view_fields` (the values the observation is made of), updating
the seat's previous vector where the view changed.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from unokit.engine import actions as A
from unokit.engine.cards import NUM_KINDS
from unokit.engine.observation import Observation, SeatView
from unokit.engine.phases import Phase
from unokit.engine.rules import Rules
from unokit.engine.scoring import partner
from unokit.rl.action_tokens import (
    _NONE_COLOR,
    ACTION_GROUPS,
    ACTION_SIZE,
    ADD,
    CALL_UNO,
    CATCH,
    CHALLENGE,
    COLOR,
    DRAW,
    FINISH,
    GIVE,
    MAX_SEATS,
    N_PLAY,
    N_WILD_KINDS,
    NEXT_ROUND,
    NOOP,
    NOOP_ACTION,
    PASS,
    PLAY,
    PLAY_UNO,
    SAY,
    SLAP,
    TARGET,
    ActionGroup,
    Node,
    _slot_parts,
    action_name,
    add_token,
    decision,
    decode_action,
    encode_action,
    paths,
    play_slot,
)

_frombuffer = np.frombuffer
_INT8 = np.dtype(np.int8)
_FLOAT32 = np.dtype(np.float32)

# ----------------------------------------------------------------------- observations
PHASES: tuple[str, ...] = tuple(phase.value for phase in Phase)
_PHASE_INDEX = {name: index for index, name in enumerate(PHASES)}


class Field(NamedTuple):
    """A block of the observation vector."""

    name: str
    size: int
    meaning: str


_K = NUM_KINDS
_S = MAX_SEATS
OBSERVATION_FIELDS: tuple[Field, ...] = (
    Field("hand", _K, "cards of each kind in the own hand"),
    Field("partner_hand", _K, "cards of each kind in the partner's hand, where "
          "partner_hands_visible shows it (else 0)"),
    Field("top", _K, "the top card of the discard pile (one-hot; all 0 when there is none)"),
    Field("color", 4, "the current colour R, Y, G, B (one-hot)"),
    Field("clockwise", 1, "1 while play goes clockwise, 0 counter-clockwise"),
    Field("phase", len(PHASES), "the phase (one-hot): " + ", ".join(PHASES)),
    Field("pending_draw", 1, "cards a pending penalty asks (draw chains, Wild Draw Four)"),
    Field("draw_pile", 1, "cards in the draw pile"),
    Field("discard", _K, "cards of each kind in the discard pile (public)"),
    Field("drawn", _K, "the card just drawn that may be played now (one-hot, own turn)"),
    Field("round", 1, "the round number"),
    Field("window", 1, "1 in an out-of-turn window (noop allowed)"),
    Field("building", 1, "1 while a play of several tokens is being built"),
    Field("build_card", _K, "the card of the play being built (one-hot)"),
    Field("build_color", 4, "the colour that play names (one-hot)"),
    Field("build_uno", 1, "1 if that play calls UNO"),
    Field("build_extra", 40, "number cards added to it so far (colour * 10 + number)"),
    Field("build_target", _S - 1, "the seat it names, offset +1..+9 (one-hot)"),
    Field("hand_sizes", _S, "cards in each hand, by seat offset 0..9 from the own seat "
          "(0 = own; slots past the table size stay 0, as in every seat block)"),
    Field("active", _S, "1 for seats still in the round"),
    Field("in_match", _S, "1 for seats still in the match"),
    Field("current", _S, "the seat whose turn or decision it is (one-hot)"),
    Field("dealer", _S, "the dealer (one-hot)"),
    Field("scores", _S, "match totals (points)"),
    Field("levels", _S, "progressive_refill levels"),
    Field("uno_open", _S, "the seat that may be caught for a missed UNO call (one-hot)"),
    Field("slap_left", _S, "seats that still have to slap"),
    Field("finished", _S, "place in the finishing order (1 = first out; 0 = still playing)"),
    Field("round_winner", _S, "the round's winner once known (one-hot)"),
    Field("match_winner", _S, "the match winner once known (one-hot)"),
    Field("teammate", _S, "1 for the own partner (teams = pairs)"),
)
"""The observation vector, block by block, in order."""


def _offsets() -> dict[str, int]:
    out: dict[str, int] = {}
    at = 0
    for f in OBSERVATION_FIELDS:
        out[f.name] = at
        at += f.size
    out["_end"] = at
    return out


OFFSETS = _offsets()
"""Field name -> index of its first number."""
OBSERVATION_SIZE = OFFSETS.pop("_end")
"""The length of an observation vector."""

_HAND, _PARTNER, _TOP, _COLOR = OFFSETS["hand"], OFFSETS["partner_hand"], OFFSETS["top"], \
    OFFSETS["color"]
_CW, _PHASE, _PENDING, _PILE = OFFSETS["clockwise"], OFFSETS["phase"], \
    OFFSETS["pending_draw"], OFFSETS["draw_pile"]
_DISCARD, _DRAWN, _ROUND, _WINDOW = OFFSETS["discard"], OFFSETS["drawn"], OFFSETS["round"], \
    OFFSETS["window"]
_BUILDING, _B_CARD, _B_COLOR, _B_UNO = OFFSETS["building"], OFFSETS["build_card"], \
    OFFSETS["build_color"], OFFSETS["build_uno"]
_B_EXTRA, _B_TARGET = OFFSETS["build_extra"], OFFSETS["build_target"]
_SIZES, _ACTIVE, _IN_MATCH, _CURRENT = OFFSETS["hand_sizes"], OFFSETS["active"], \
    OFFSETS["in_match"], OFFSETS["current"]
_DEALER, _SCORES, _LEVELS, _UNO_OPEN = OFFSETS["dealer"], OFFSETS["scores"], \
    OFFSETS["levels"], OFFSETS["uno_open"]
_SLAP, _FINISHED, _R_WIN, _M_WIN = OFFSETS["slap_left"], OFFSETS["finished"], \
    OFFSETS["round_winner"], OFFSETS["match_winner"]
_TEAM = OFFSETS["teammate"]

BIG = 1_000_000.0
"""The bound of unbounded counts (scores, rounds, pending penalties)."""


class _DiscardCounts:
    """Counts of the discard pile, kept up to date from one view to the next (the pile
    mostly grows by a card or two)."""

    __slots__ = ("counts", "last")

    def __init__(self) -> None:
        self.counts = array("f", bytes(4 * NUM_KINDS))
        self.last: tuple[int, ...] = ()

    def update(self, discard: tuple[int, ...]) -> array[float]:
        last = self.last
        size = len(last)
        if len(discard) == size and discard == last:
            return self.counts
        counts = self.counts
        if len(discard) > size and discard[:size] == last:
            for card in discard[size:]:
                counts[card] += 1.0
        else:
            counts = self.counts = array("f", bytes(4 * NUM_KINDS))
            for card in discard:
                counts[card] += 1.0
        self.last = discard
        return counts


_ZEROS = array("f", bytes(4 * NUM_KINDS))
_NO_CARDS: list[int] = []
_PHASE_SLOT: dict[str, int] = {phase: _PHASE + index for index, phase in enumerate(Phase)}
"""Phase (a :class:`~unokit.engine.phases.Phase`, found at once) -> index of its number."""


def _count(buf: array[float], start: int, last: list[int], cards: Sequence[int]) -> list[int]:
    """Bring the counts ``buf[start:start + NUM_KINDS]`` of the cards ``last`` to those of
    ``cards``; return the cards counted now (``last`` itself, changed, or a copy).

    Cards added at the end, or one card taken out, are counted one by one, after a check
    that the rest is what was counted before; any other change counts again."""
    size = len(last)
    new = len(cards)
    if new >= size:
        tail = cards[size:]
        last += tail
        if last == cards:
            for card in tail:
                buf[start + card] += 1.0
            return last
    elif new == size - 1:
        gone = sum(last) - sum(cards)
        if gone in last:
            last.remove(gone)
            if last == cards:
                buf[start + gone] -= 1.0
                return last
    return _recount(buf, start, cards)


def _recount(buf: array[float], start: int, cards: Sequence[int]) -> list[int]:
    """Set the counts ``buf[start:start + NUM_KINDS]`` to those of ``cards``; return a copy
    of ``cards``."""
    buf[start:start + NUM_KINDS] = _ZEROS
    for card in cards:
        buf[start + card] += 1.0
    return list(cards)


class _SeatState:
    """What :meth:`ObservationEncoder.encode_fields` keeps of a seat: ``base``, the parts
    of its vector that change a few times a round at most (with copies of the values they
    came from, ``table``) and the counts of its cards and of the discard pile (of the cards
    ``hand``, ``mate``, ``discard``)."""

    __slots__ = ("base", "discard", "hand", "mate", "table")

    def __init__(self, template: array[float]) -> None:
        self.base = template[:]
        self.table: tuple[Any, ...] = ()
        self.hand: list[int] = []
        self.mate: list[int] = []
        self.discard: list[int] = []


class ObservationEncoder:
    """Encodes the views of one table (rule set and size) as vectors.

    >>> from unokit import Game, Rules
    >>> rules = Rules.preset("official", players=3)
    >>> game = Game(rules, seed=1)
    >>> vector = ObservationEncoder(rules).encode(game.observation(0))
    >>> vector.shape, vector.dtype, int(vector[:NUM_KINDS].sum())
    ((641,), dtype('float32'), 7)
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        n = self.n = rules.players
        self._rel = [tuple((seat + offset) % n for offset in range(n)) for seat in range(n)]
        """``_rel[seat]``: the seats in the order of their offsets from ``seat``."""
        self._off = [[(other - seat) % n for other in range(n)] for seat in range(n)]
        """``_off[seat][other]``: the offset of ``other`` from ``seat``."""
        self._sizes = [[(_SIZES + offset, other) for offset, other in enumerate(rel)]
                       for rel in self._rel]
        """``_sizes[seat]``: ``(index, seat)`` pairs of a seat block, by offset."""
        self._levels_vary = rules.progressive_refill
        self._templates = []
        for seat in range(n):
            buf = array("f", bytes(4 * OBSERVATION_SIZE))
            mate = partner(rules, seat)
            if mate >= 0:
                buf[_TEAM + self._off[seat][mate]] = 1.0
            for offset in range(n):
                buf[_ACTIVE + offset] = buf[_IN_MATCH + offset] = 1.0
                buf[_LEVELS + offset] = rules.hand_size
            self._templates.append(buf)
        self._discard = _DiscardCounts()
        self._states = [_SeatState(template) for template in self._templates]
        deck = rules.deck_cards()
        copies = [0] * NUM_KINDS
        for card in deck:
            copies[card] += 1
        high = np.ones(OBSERVATION_SIZE, dtype=np.float32)
        low = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        for start in (_HAND, _PARTNER, _DISCARD):
            high[start:start + NUM_KINDS] = np.maximum(copies, 1)
        high[_B_EXTRA:_B_EXTRA + 40] = A.MAX_EXTRA
        for start in (_PENDING, _ROUND):
            high[start] = BIG
        high[_PILE] = len(deck)
        high[_SIZES:_SIZES + _S] = len(deck)
        high[_SCORES:_SCORES + _S] = BIG
        low[_SCORES:_SCORES + _S] = -BIG
        high[_LEVELS:_LEVELS + _S] = max(rules.hand_size, 1)
        high[_FINISHED:_FINISHED + _S] = _S
        self.low = low
        """Lower bounds of the numbers (the observation space's)."""
        self.high = high
        """Upper bounds of the numbers."""

    def encode(self, view: Observation, window: bool = False,
               building: Sequence[int] = ()) -> npt.NDArray[np.float32]:
        """The vector of one seat's view; ``window`` and ``building`` (the tokens of a
        play being built) are the environment's part of the decision."""
        seat = view.seat
        buf = self._templates[seat][:]
        off = self._off[seat]
        for card in view.hand:
            buf[card] += 1.0
        if view.partner_hand:
            for card in view.partner_hand:
                buf[_PARTNER + card] += 1.0
        top = view.top
        if top >= 0:
            buf[_TOP + top] = 1.0
        if view.color >= 0:
            buf[_COLOR + view.color] = 1.0
        if view.direction == 1:
            buf[_CW] = 1.0
        buf[_PHASE + _PHASE_INDEX[view.phase]] = 1.0
        buf[_PENDING] = view.pending_draw
        buf[_PILE] = view.draw_pile_size
        buf[_DISCARD:_DISCARD + NUM_KINDS] = self._discard.update(view.discard)
        if view.drawn_card is not None:
            buf[_DRAWN + view.drawn_card] = 1.0
        buf[_ROUND] = view.round
        if window:
            buf[_WINDOW] = 1.0
        if building:
            self._building(buf, building)
        sizes = view.hand_sizes
        for index, other in self._sizes[seat]:
            buf[index] = sizes[other]
        scores = view.scores
        if any(scores):
            for index, other in self._sizes[seat]:
                buf[index - _SIZES + _SCORES] = scores[other]
        if False in view.active:
            active = view.active
            for index, other in self._sizes[seat]:
                buf[index - _SIZES + _ACTIVE] = active[other]
        if False in view.in_match:
            in_match = view.in_match
            for index, other in self._sizes[seat]:
                buf[index - _SIZES + _IN_MATCH] = in_match[other]
        if self._levels_vary:
            levels = view.levels
            for index, other in self._sizes[seat]:
                buf[index - _SIZES + _LEVELS] = levels[other]
        current = view.current_player
        if current is not None:
            buf[_CURRENT + off[current]] = 1.0
        buf[_DEALER + off[view.dealer]] = 1.0
        if view.uno_open is not None:
            buf[_UNO_OPEN + off[view.uno_open]] = 1.0
        for other in view.slap_left:
            buf[_SLAP + off[other]] = 1.0
        for place, other in enumerate(view.finish_order, 1):
            buf[_FINISHED + off[other]] = place
        if view.round_winner is not None:
            buf[_R_WIN + off[view.round_winner]] = 1.0
        if view.match_winner is not None:
            buf[_M_WIN + off[view.match_winner]] = 1.0
        return _frombuffer(buf, _FLOAT32)

    def encode_fields(self, view: SeatView, window: bool = False,
                      building: Sequence[int] = ()) -> npt.NDArray[np.float32]:
        """The vector of one seat's view given as :func:`~unokit.engine.observation.view_fields`
        values (seats ``0..n-1``): equal to :meth:`encode` of the seat's
        :class:`~unokit.engine.observation.Observation`, for less work. The encoder keeps, for
        each seat, the part of the vector that changes a few times a round at most (scores,
        dealer, seats in play, finishing order, winners) and the counts of the seat's
        cards and of the discard pile, with copies of the values they came from, and
        brings them up to date from one view to the next; any sequence of views of any
        games gives the right vectors (:meth:`forget` only frees memory).

        >>> from unokit import Game, Rules
        >>> from unokit.engine.observation import view_fields
        >>> game = Game(Rules.preset("official", players=2), seed=3)
        >>> encoder = ObservationEncoder(game.rules)
        >>> fast = encoder.encode_fields(view_fields(game, 1))
        >>> bool((fast == encoder.encode(game.observation(1))).all())
        True
        """
        (seat, phase, current, direction, top, color, hand, sizes, pile, discard, scores,
         dealer, round_no, pending, uno, drawn, mate_hand, active, in_match, finish, levels,
         r_win, m_win, slap) = view
        if seat < 0:
            raise ValueError(f"no vector for seat {seat}")
        st = self._states[seat]
        if (dealer, round_no, r_win, m_win, scores, active, in_match, finish, slap,
                levels) != st.table:
            self._rebase(st, seat, dealer, round_no, r_win, m_win, scores, active, in_match,
                         finish, slap, levels)
        base = st.base
        st.hand = _count(base, _HAND, st.hand, hand)
        last = st.discard
        tail = discard[len(last):]
        last += tail
        if last == discard:  # the pile grew (or stayed): count the new cards
            for card in tail:
                base[_DISCARD + card] += 1.0
        else:
            st.discard = _recount(base, _DISCARD, discard)
        if mate_hand is None:
            mate_hand = _NO_CARDS
        if mate_hand != st.mate:
            st.mate = _count(base, _PARTNER, st.mate, mate_hand)
        buf = base[:]
        if top >= 0:
            buf[_TOP + top] = 1.0
        if color >= 0:
            buf[_COLOR + color] = 1.0
        if direction == 1:
            buf[_CW] = 1.0
        buf[_PHASE_SLOT[phase]] = 1.0
        if pending:
            buf[_PENDING] = pending
        buf[_PILE] = pile
        if drawn is not None:
            buf[_DRAWN + drawn] = 1.0
        if window:
            buf[_WINDOW] = 1.0
        if building:
            self._building(buf, building)
        for index, other in self._sizes[seat]:
            buf[index] = sizes[other]
        off = self._off[seat]
        if current is not None:
            buf[_CURRENT + off[current]] = 1.0
        if uno is not None:
            buf[_UNO_OPEN + off[uno]] = 1.0
        return _frombuffer(buf, _FLOAT32)

    def _rebase(self, st: _SeatState, seat: int, dealer: int, round_no: int,
                r_win: int | None, m_win: int | None, scores: Sequence[int],
                active: Sequence[bool], in_match: Sequence[bool], finish: Sequence[int],
                slap: Sequence[int], levels: Sequence[int]) -> None:
        """Rebuild the seldom-changing part of a seat's vector (see :meth:`encode_fields`)."""
        buf = self._templates[seat][:]
        off = self._off[seat]
        for index, other in self._sizes[seat]:
            delta = index - _SIZES
            buf[_SCORES + delta] = scores[other]
            buf[_ACTIVE + delta] = active[other]
            buf[_IN_MATCH + delta] = in_match[other]
            if self._levels_vary:
                buf[_LEVELS + delta] = levels[other]
        buf[_DEALER + off[dealer]] = 1.0
        buf[_ROUND] = round_no
        for other in slap:
            buf[_SLAP + off[other]] = 1.0
        for place, other in enumerate(finish, 1):
            buf[_FINISHED + off[other]] = place
        if r_win is not None:
            buf[_R_WIN + off[r_win]] = 1.0
        if m_win is not None:
            buf[_M_WIN + off[m_win]] = 1.0
        st.base = buf
        st.hand, st.mate, st.discard = [], [], []
        st.table = (dealer, round_no, r_win, m_win, list(scores), list(active),
                    list(in_match), list(finish), list(slap), list(levels))

    @staticmethod
    def _building(buf: array[float], tokens: Sequence[int]) -> None:
        buf[_BUILDING] = 1.0
        first = tokens[0]
        uno = first >= PLAY_UNO
        card, color = _slot_parts(first - (PLAY_UNO if uno else PLAY))
        buf[_B_CARD + card] = 1.0
        if color != _NONE_COLOR:
            buf[_B_COLOR + color] = 1.0
        if uno:
            buf[_B_UNO] = 1.0
        for token in tokens[1:]:
            if ADD <= token < TARGET:
                buf[_B_EXTRA + token - ADD] += 1.0
            elif TARGET <= token < GIVE:
                buf[_B_TARGET + token - TARGET] = 1.0

    def forget(self) -> None:
        """Drop the incremental discard counts and the seats' last vectors (a new game)."""
        self._discard = _DiscardCounts()
        self._states = [_SeatState(template) for template in self._templates]


def field_slice(name: str) -> slice:
    """The part of the observation vector that holds one field.

    >>> field_slice("color")
    slice(219, 223, None)
    """
    for f in OBSERVATION_FIELDS:
        if f.name == name:
            start = OFFSETS[name]
            return slice(start, start + f.size)
    raise KeyError(name)


def describe_observation(vector: Sequence[float] | npt.NDArray[Any]) -> dict[str, list[float]]:
    """The non-zero parts of an observation vector by field (for reading and debugging)."""
    out: dict[str, list[float]] = {}
    for f in OBSERVATION_FIELDS:
        part = [float(x) for x in vector[field_slice(f.name)]]
        if any(part):
            out[f.name] = part
    return out


__all__ = [
    "ACTION_GROUPS",
    "ACTION_SIZE",
    "ADD",
    "CALL_UNO",
    "CATCH",
    "CHALLENGE",
    "COLOR",
    "DRAW",
    "FINISH",
    "GIVE",
    "MAX_SEATS",
    "NEXT_ROUND",
    "NOOP",
    "NOOP_ACTION",
    "N_PLAY",
    "N_WILD_KINDS",
    "OBSERVATION_FIELDS",
    "OBSERVATION_SIZE",
    "OFFSETS",
    "PASS",
    "PHASES",
    "PLAY",
    "PLAY_UNO",
    "SAY",
    "SLAP",
    "TARGET",
    "ActionGroup",
    "Field",
    "Node",
    "ObservationEncoder",
    "action_name",
    "add_token",
    "decision",
    "decode_action",
    "describe_observation",
    "encode_action",
    "field_slice",
    "paths",
    "play_slot",
]
