"""Tables the engine precomputes once: which card may go on which, and the actions of
every seat, built ahead so that the hot paths look them up instead of building them.

A row of the playable tables is ``top * 4 + colour``: the card to match and the current
colour. Action tables are indexed by seat first (0 to
:data:`~unokit.engine.actions.MAX_SEATS` - 1).

>>> from unokit.engine.cards import parse_card
>>> from unokit.engine.actions import format_action
>>> row = parse_card("R5") * 4 + 0  # a red 5 on top, colour red
>>> bool(PLAYABLE[row][parse_card("R9")]), bool(PLAYABLE[row][parse_card("G9")])
(True, False)
>>> [format_action(a) for a in PLAYS[1][parse_card("W")]]
['1:W>R', '1:W>Y', '1:W>G', '1:W>B']
>>> ONE_CARD[PLAYS[1][parse_card("W")][2]]
(1, 64, 2)
"""

from __future__ import annotations

from unokit.engine import actions as A
from unokit.engine.cards import COLOR_OF, NUM_KINDS, RANK_OF, WILD


def _playable_table() -> list[bytes]:
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


_SEATS = range(A.MAX_SEATS)

PLAYABLE: list[bytes] = _playable_table()
"""``PLAYABLE[top * 4 + colour][kind]``: whether ``kind`` may go on ``top`` when the
current colour is ``colour`` (matching colour, number or symbol; wilds always). The
rule alone: a strict Wild Draw Four is checked against the hand on top of it."""
PLAYABLE_SETS: list[frozenset[int]] = [
    frozenset(k for k in range(NUM_KINDS) if row[k]) for row in PLAYABLE]
"""``PLAYABLE_SETS[top * 4 + colour]``: the kinds that may be played there."""
PLAIN_PLAYS: list[list[int]] = [[A.play(p, k) for k in range(NUM_KINDS)] for p in _SEATS]
"""``PLAIN_PLAYS[seat][kind]``: the play of one card with no colour, target or call (the
form a misplayed card takes)."""
PLAYS: list[list[tuple[int, ...]]] = [
    [(A.play(p, k),) if k < WILD else tuple(A.play(p, k, color=c) for c in range(4))
     for k in range(NUM_KINDS)]
    for p in _SEATS
]
"""``PLAYS[seat][kind]``: the plays of one card (a wild once per colour)."""
PLAYS_UNO: list[list[tuple[int, ...]]] = [
    [plays + tuple(a | A.UNO_FLAG for a in plays) for plays in row] for row in PLAYS]
"""As :data:`PLAYS`, with the same plays calling UNO added (for a hand of two cards)."""
DRAWS: list[int] = [A.draw(p) for p in _SEATS]
"""``DRAWS[seat]``: the seat's draw (also: accept a penalty, press the launcher)."""
PASSES: list[int] = [A.pass_turn(p) for p in _SEATS]
"""``PASSES[seat]``: keep the drawn card."""
CHALLENGES: list[int] = [A.challenge(p) for p in _SEATS]
"""``CHALLENGES[seat]``: challenge a Wild Draw Four."""
UNO_CALLS: list[int] = [A.call_uno(p) for p in _SEATS]
"""``UNO_CALLS[seat]``: call UNO on its own."""
CATCHES: list[list[int]] = [[A.catch(p, t) for t in _SEATS] for p in _SEATS]
"""``CATCHES[seat][target]``: catch ``target`` for a missed call."""
COLOR_CHOICES: list[list[int]] = [[A.choose_color(p, c) for c in range(4)] for p in _SEATS]
"""``COLOR_CHOICES[seat]``: the four colours the seat may name."""
NEXT_ROUNDS: list[int] = [A.next_round(p) for p in _SEATS]
"""``NEXT_ROUNDS[seat]``: start the next round."""
SAYS: list[int] = [A.say(p) for p in _SEATS]
"""``SAYS[seat]``: say something (``silence``)."""
ONE_CARD: dict[int, tuple[int, int, int]] = {
    action: (seat, card, A.action_color(action))
    for seat in _SEATS for card in range(NUM_KINDS)
    for action in (*PLAYS[seat][card], PLAIN_PLAYS[seat][card])
}
"""Each play of one card without UNO call, target, give or extra cards (the wilds with and
without a colour): its seat, card and colour (:data:`~unokit.engine.actions.NO_COLOR_ARG`
when none). Looking an action up here replaces decoding its bits on the hot path."""

__all__ = ["CATCHES", "CHALLENGES", "COLOR_CHOICES", "DRAWS", "NEXT_ROUNDS", "ONE_CARD",
           "PASSES", "PLAIN_PLAYS", "PLAYABLE", "PLAYABLE_SETS", "PLAYS", "PLAYS_UNO",
           "SAYS", "UNO_CALLS"]
