"""Actions for learning agents: every engine action as a short sequence of indices.

:data:`ACTION_SIZE` indices serve every rule set and 2 to 10 players. Seats are named
relative to the acting seat (``+1`` is the next seat clockwise). An engine action is a
short sequence of *tokens* (indices): most are one token; a play that also names a seat,
hands over a card or puts down several cards is a card token followed by its arguments
in a fixed order::

    play or play+UNO token, then one "add" token per extra card (multi-play, in the
    engine's order), then a "target" token, then a "give" token

:func:`encode_action` and :func:`decode_action` convert both ways, for a given seat and
table size; :func:`decision` builds the choices of one moment from the engine's legal
actions. Where one play is a prefix of another (a 5 with or without a card exchange),
``finish`` ends the shorter one. Every name here is importable from
:mod:`unokit.rl.encoding` too.

>>> from unokit.engine import actions as A, parse_card
>>> encode_action(A.play(2, parse_card("R7"), target=0), seat=2, n=4)
(7, 259)
>>> action_name(7), action_name(259)
('play R7', 'target +2')
>>> decode_action((7, 259), seat=2, n=4) == A.play(2, parse_card("R7"), target=0)
True
"""


from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from unokit.engine import actions as A
from unokit.engine.cards import CODES, COLOR_LETTERS, COLOR_OF, NUM_KINDS, RANK_OF, WILD

_frombuffer = np.frombuffer
_INT8 = np.dtype(np.int8)

# ---------------------------------------------------------------------------- actions
MAX_SEATS = 10
"""The largest table; seat-relative blocks have this many slots."""
N_WILD_KINDS = NUM_KINDS - WILD
N_PLAY = 64 + 4 * N_WILD_KINDS + N_WILD_KINDS
"""Card tokens: 64 coloured kinds, each wild kind once per colour, each wild kind with
no colour named (``wild_color = "next_in_circle"``, a transparent blank)."""

PLAY = 0
PLAY_UNO = PLAY + N_PLAY
ADD = PLAY_UNO + N_PLAY
TARGET = ADD + 40
GIVE = TARGET + MAX_SEATS - 1
FINISH = GIVE + NUM_KINDS
DRAW = FINISH + 1
PASS = DRAW + 1
CHALLENGE = PASS + 1
CALL_UNO = CHALLENGE + 1
NEXT_ROUND = CALL_UNO + 1
SLAP = NEXT_ROUND + 1
SAY = SLAP + 1
CATCH = SAY + 1
COLOR = CATCH + MAX_SEATS - 1
NOOP = COLOR + 4
ACTION_SIZE = NOOP + 1
"""The number of action indices."""

_SIMPLE_TOKEN = {A.DRAW: DRAW, A.PASS: PASS, A.CHALLENGE: CHALLENGE, A.UNO: CALL_UNO,
                 A.NEXT_ROUND: NEXT_ROUND, A.SLAP: SLAP, A.SAY: SAY}
_SIMPLE_TYPE = {token: kind for kind, token in _SIMPLE_TOKEN.items()}
_SIMPLE_BUILD = {DRAW: A.draw, PASS: A.pass_turn, CHALLENGE: A.challenge, CALL_UNO: A.call_uno,
                 NEXT_ROUND: A.next_round, SLAP: A.slap, SAY: A.say}
_NONE_COLOR = 7
_NONE_TARGET = 15


def play_slot(card: int, color: int = _NONE_COLOR) -> int:
    """The card token (0 to ``N_PLAY - 1``) of a card and, for a wild, its colour
    (7 or ``None``-like for no colour)."""
    if card < WILD:
        return card
    if color == _NONE_COLOR:
        return 64 + 4 * N_WILD_KINDS + card - WILD
    return 64 + 4 * (card - WILD) + color


def _slot_parts(slot: int) -> tuple[int, int]:
    """``(card, colour)`` of a card token (colour 7: none)."""
    if slot < 64:
        return slot, _NONE_COLOR
    if slot < 64 + 4 * N_WILD_KINDS:
        return WILD + (slot - 64) // 4, (slot - 64) % 4
    return WILD + slot - 64 - 4 * N_WILD_KINDS, _NONE_COLOR


def add_token(card: int) -> int:
    """The token that adds a number card to a multi-play."""
    return ADD + COLOR_OF[card] * 10 + RANK_OF[card]


def _offset(target: int, seat: int, n: int) -> int:
    """The offset 1..n-1 of a named seat from the acting seat."""
    offset = (target - seat) % n
    if not 0 <= target < n or offset == 0:
        raise ValueError(f"seat {seat} cannot name seat {target} at a table of {n}")
    return offset


def encode_action(action: int, seat: int, n: int) -> tuple[int, ...]:
    """The token sequence of an engine action of ``seat`` at a table of ``n`` seats.

    Raises:
        ValueError: the action is not one of ``seat``, or cannot be encoded.
    """
    if A.action_player(action) != seat:
        raise ValueError(f"action {A.format_action(action)} is not one of seat {seat}")
    kind = A.action_type(action)
    if kind == A.PLAY:
        card = A.action_card(action)
        slot = play_slot(card, A.action_color(action))
        tokens = [slot + (PLAY_UNO if action & A.UNO_FLAG else PLAY)]
        tokens.extend(add_token(card) for card in A.action_extra(action))
        target = A.action_target(action)
        if target != _NONE_TARGET:
            tokens.append(TARGET + _offset(target, seat, n) - 1)
        give = A.action_give(action)
        if give >= 0:
            tokens.append(GIVE + give)
        return tuple(tokens)
    if kind in _SIMPLE_TOKEN:
        return (_SIMPLE_TOKEN[kind],)
    if kind == A.CATCH:
        return (CATCH + _offset(A.action_target(action), seat, n) - 1,)
    if kind == A.COLOR:
        return (COLOR + A.action_color(action),)
    if kind == A.GIVE:
        return (GIVE + A.action_card(action),)
    raise ValueError(f"no tokens for action {action}")


def decode_action(tokens: Sequence[int], seat: int, n: int) -> int:
    """The engine action of a token sequence (``finish`` tokens are ignored); the
    inverse of :func:`encode_action`.

    Raises:
        ValueError: the tokens do not make up an action.
    """
    toks = [int(t) for t in tokens if t != FINISH]
    if not toks:
        raise ValueError("no tokens")
    first = toks[0]
    if first < ADD:
        uno = first >= PLAY_UNO
        card, color = _slot_parts(first - (PLAY_UNO if uno else PLAY))
        extra: list[int] = []
        target: int | None = None
        give: int | None = None
        for token in toks[1:]:
            if ADD <= token < TARGET and target is None and give is None:
                extra.append((token - ADD) // 10 * 16 + (token - ADD) % 10)
            elif TARGET <= token < GIVE and target is None and give is None:
                target = (seat + token - TARGET + 1) % n
            elif GIVE <= token < FINISH and give is None:
                give = token - GIVE
            else:
                raise ValueError(f"token {token} ({action_name(token)}) cannot follow here")
        return A.play(seat, card, color=None if color == _NONE_COLOR else color,
                      target=target, uno=uno, give=give, extra=tuple(extra))
    if len(toks) != 1:
        raise ValueError(f"only a play takes more than one token: {toks}")
    if first in _SIMPLE_BUILD:
        return _SIMPLE_BUILD[first](seat)
    if CATCH <= first < COLOR:
        return A.catch(seat, (seat + first - CATCH + 1) % n)
    if COLOR <= first < NOOP:
        return A.choose_color(seat, first - COLOR)
    if GIVE <= first < FINISH:
        return A.give_back(seat, first - GIVE)
    raise ValueError(f"token {first} ({action_name(first)}) is not an action")


def action_name(index: int) -> str:
    """A short name of an action index.

    >>> action_name(0), action_name(PLAY_UNO + 64), action_name(NOOP)
    ('play R0', 'play W>R + UNO', 'noop')
    """
    if PLAY <= index < ADD:
        uno = index >= PLAY_UNO
        card, color = _slot_parts(index - (PLAY_UNO if uno else PLAY))
        text = CODES[card] + ("" if color == _NONE_COLOR else ">" + COLOR_LETTERS[color])
        if card >= WILD and color == _NONE_COLOR:
            text += " (no colour)"
        return f"play {text}" + (" + UNO" if uno else "")
    if index in _SIMPLE_TYPE:
        return A.TYPE_NAMES[_SIMPLE_TYPE[index]]
    for start, stop, name in _NAMED_BLOCKS:
        if start <= index < stop:
            return name(index - start)
    raise ValueError(f"no action index {index}")


_NAMED_BLOCKS: tuple[tuple[int, int, Callable[[int], str]], ...] = (
    (ADD, TARGET, lambda i: f"add {COLOR_LETTERS[i // 10]}{i % 10}"),
    (TARGET, GIVE, lambda i: f"target +{i + 1}"),
    (GIVE, FINISH, lambda i: f"give {CODES[i]}"),
    (FINISH, FINISH + 1, lambda i: "finish"),
    (CATCH, COLOR, lambda i: f"catch +{i + 1}"),
    (COLOR, NOOP, lambda i: f"color {COLOR_LETTERS[i]}"),
    (NOOP, NOOP + 1, lambda i: "noop"),
)
"""``(start, stop, name of the offset from start)`` of the blocks :func:`action_name`
names by position."""


class ActionGroup(NamedTuple):
    """A block of action indices, for documentation."""

    start: int
    size: int
    name: str
    meaning: str


ACTION_GROUPS: tuple[ActionGroup, ...] = (
    ActionGroup(PLAY, N_PLAY, "play",
                "put down a card: 0-63 a coloured kind (colour * 16 + rank), then each wild "
                "kind with colour R, Y, G, B, then each wild kind naming no colour"),
    ActionGroup(PLAY_UNO, N_PLAY, "play + UNO",
                "the same plays, calling UNO with them (the hand keeps one card)"),
    ActionGroup(ADD, 40, "add",
                "multi-play: one more number card (colour * 10 + number) put down with the "
                "first, in the engine's order (middle cards sorted, the last one sets the "
                "colour)"),
    ActionGroup(TARGET, MAX_SEATS - 1, "target",
                "the seat a play names (seven swap, Wild Swap Hands, Trade Hands, the "
                "receiver of a 5's card), as an offset +1..+9 from the acting seat"),
    ActionGroup(GIVE, NUM_KINDS, "give",
                "a card kind handed over: the card a 5 gives, or the card given back in "
                "phase exchange"),
    ActionGroup(FINISH, 1, "finish",
                "end a play here when longer plays start the same way (a 5 without an "
                "exchange, a multi-play with fewer cards)"),
    ActionGroup(DRAW, 1, "draw", "draw a card, accept a pending penalty, or press the "
                "launcher (Attack)"),
    ActionGroup(PASS, 1, "pass", "keep the card just drawn"),
    ActionGroup(CHALLENGE, 1, "challenge", "challenge a Wild Draw Four"),
    ActionGroup(CALL_UNO, 1, "uno", "call UNO on its own (after the play, before a catch)"),
    ActionGroup(NEXT_ROUND, 1, "next", "start the next round"),
    ActionGroup(SLAP, 1, "slap", "slap the table (uno_slap)"),
    ActionGroup(SAY, 1, "say", "say something (silence)"),
    ActionGroup(CATCH, MAX_SEATS - 1, "catch",
                "catch the seat at offset +1..+9 for a missed UNO call"),
    ActionGroup(COLOR, 4, "color", "name the colour R, Y, G, B (start-card wild)"),
    ActionGroup(NOOP, 1, "noop", "let an out-of-turn window pass (only in a window)"),
)
"""The action indices, block by block."""


class Node:
    """The choices of one decision: ``mask`` (one byte per action index) and
    ``choices`` (index -> engine action, :data:`NOOP_ACTION`, or the next :class:`Node`
    of a play that takes more tokens)."""

    __slots__ = ("array", "choices", "mask")

    def __init__(self, choices: dict[int, int | Node], mask: bytes | None = None) -> None:
        """``mask``: the mask of ``choices``, where the caller has it already."""
        self.choices = choices
        if mask is None:
            marks = bytearray(ACTION_SIZE)
            for token in choices:
                marks[token] = 1
            mask = bytes(marks)
        self.mask = mask
        self.array: npt.NDArray[np.int8] = _frombuffer(mask, _INT8)
        """The mask as a read-only array (hand out copies)."""

    def actions(self) -> list[int]:
        """Every engine action below this node."""
        out: list[int] = []
        for choice in self.choices.values():
            if isinstance(choice, Node):
                out.extend(choice.actions())
            elif choice >= 0:
                out.append(choice)
        return out


NOOP_ACTION = -1
"""What :data:`NOOP` stands for in :attr:`Node.choices`."""


def _node(seqs: list[tuple[tuple[int, ...], int]], depth: int) -> Node:
    groups: dict[int, list[tuple[tuple[int, ...], int]]] = {}
    here = -1
    for tokens, action in seqs:
        if len(tokens) == depth:
            here = action
        else:
            groups.setdefault(tokens[depth], []).append((tokens, action))
    choices: dict[int, int | Node] = {}
    for token, group in groups.items():
        if len(group) == 1 and len(group[0][0]) == depth + 1:
            choices[token] = group[0][1]
        else:
            choices[token] = _node(group, depth + 1)
    if here >= 0:
        choices[FINISH] = here
    return Node(choices)


def decision(legal: Iterable[int], seat: int, n: int, window: bool = False,
             cache: dict[int, tuple[int, ...]] | None = None) -> Node:
    """The choices of ``seat`` given its legal engine actions; ``window`` adds
    :data:`NOOP` (an out-of-turn window). ``cache`` keeps encodings between calls.

    >>> from unokit import Game, Rules
    >>> game = Game(Rules.preset("official", players=2, dealer="seat0"), seed=7)
    >>> node = decision(game.legal_actions(1), 1, 2)
    >>> sorted(action_name(i) for i in node.choices)[:4]
    ['draw', 'play B7', 'play BS', 'play W>B']
    """
    if cache is None:
        cache = {}
    choices: dict[int, int | Node] = {}
    seqs = []
    single = True
    for action in legal:
        tokens = cache.get(action)
        if tokens is None:
            tokens = cache[action] = encode_action(action, seat, n)
        if single and len(tokens) == 1:
            choices[tokens[0]] = action
        else:
            single = False
        seqs.append((tokens, action))
    if not single:
        choices = _node(seqs, 0).choices
    if window:
        choices[NOOP] = NOOP_ACTION
    return Node(choices)


def paths(node: Node, prefix: tuple[int, ...] = ()) -> Iterable[tuple[tuple[int, ...], int]]:
    """Every ``(tokens, engine action)`` below a node (``finish`` tokens included)."""
    for token, choice in node.choices.items():
        if isinstance(choice, Node):
            yield from paths(choice, (*prefix, token))
        else:
            yield (*prefix, token), choice
