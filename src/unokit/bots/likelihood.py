"""How likely a deal of the hidden cards makes the plays the seat has just seen.

The search bot (:mod:`unokit.bots.search`) deals the cards it cannot see so that they
respect what its memory knows (:mod:`unokit.bots.memory`: a seat that drew had nothing
that matched). The ``expert`` bot (:mod:`unokit.bots.expert`) also *weighs* each deal by
how well it explains the plays seen since its last turn. Its model of another player:

- **A play** is a card picked at random among the cards of the hand that matched at the
  time: a deal in which that hand held ``m`` matching cards (the one played included)
  makes the play seen with chance ``1 / m``. A hand that held few playable cards
  explains a play better than one that held many.
- **A colour named with a wild** is the colour the hand then held most of: a deal in
  which it is (one of) the most held colours of that hand explains the naming with
  chance 1, another with chance :data:`NAME_SLACK`.
- **A draw** means that nothing matched, except in a share ``draw_slack`` of the deals
  (see :class:`~unokit.bots.plain.Position`): the official rules let a player draw while
  holding a playable card, so a seat's draws are not taken as certain; in that share of
  the deals the seat's hand is dealt as if its draws had said nothing.

Only the latest turn of each other seat counts for the first two (its hand now is the
hand it held then, less the card played and plus any penalty cards since): the
evidence rows (:data:`Evidence`) come from :class:`EvidenceTracker`, a
:class:`~unokit.bots.memory.Tracker` that keeps them from the walk of each turn. A
card played after a draw on the same turn is no choice and is not weighed.

>>> from unokit.engine.cards import parse_card as c
>>> hand = [c("R1"), c("R2"), c("G3")]
>>> deal_weight_py(hand, [(1, PLAYED, c("R9"), 0, 7)], 1, 0.2)  # R9 on R7: R1, R2, R9
0.3333333333333333
>>> deal_weight_py(hand, [(1, NAMED, 0, 0, 0)], 1, 0.2)  # red named: red held most
1.0
>>> deal_weight_py(hand, [(1, NAMED, 2, 0, 0)], 1, 0.2)  # green named: 1 green, 2 red
0.2
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unokit.bots.memory import Event, Tracker
from unokit.engine import actions as A
from unokit.engine.cards import COLOR_OF, NUM_KINDS, RANK_OF, WILD
from unokit.engine.observation import Observation

PLAYED = 0
"""Evidence kind: ``(seat, PLAYED, card, colour in force, rank of the top card or -1)``."""
NAMED = 1
"""Evidence kind: ``(seat, NAMED, colour, 0, 0)``."""
NAME_SLACK = 0.2
"""The chance that a player names a colour it does not hold most of."""

Evidence = tuple[int, int, int, int, int]
"""One row of evidence, for :func:`deal_weight_py` (see :data:`PLAYED`, :data:`NAMED`)."""


def deal_weight_py(hand: Sequence[int], rows: Sequence[Evidence], seat: int,
                   name_slack: float) -> float:
    """The likelihood of the rows of ``seat`` given its dealt ``hand`` (the deals use
    :func:`_deal_weight` for every seat at once)."""
    mine = [row for row in rows if row[0] == seat]
    hands = {seat: list(hand)}
    return _deal_weight(mine, len(mine), hands, {seat: len(hand)}, name_slack, RANKS,
                        COLORS, [0, 0, 0, 0])


RANKS = [RANK_OF[k] if k < WILD else -1 for k in range(NUM_KINDS)]
"""Rank of each card kind, -1 for wilds (a wild on top matches nothing by rank)."""
COLORS = [COLOR_OF[k] for k in range(NUM_KINDS)]
"""Colour of each card kind."""


def _deal_weight(ev: Any, rows: int, hands: Any, hl: Any, name_slack: float, ranks: Any,
                 colors: Any, counts: Any) -> float:
    """The likelihood of the ``rows`` first rows of evidence ``ev`` given the dealt hands
    (``hands[s][:hl[s]]``; ``counts``: four integers to fill). Plain Python on lists and
    compiled on arrays alike (:mod:`unokit.bots.playout`), with the same numbers."""
    weight = 1.0
    for r in range(rows):
        s = ev[r][0]
        hand = hands[s]
        if ev[r][1] == PLAYED:
            matching = 1  # the card played
            for i in range(hl[s]):
                c = hand[i]
                if c >= WILD or colors[c] == ev[r][3] or ranks[c] == ev[r][4]:
                    matching += 1
            weight /= matching
        else:
            for j in range(4):
                counts[j] = 0
            for i in range(hl[s]):
                c = hand[i]
                if c < WILD:
                    counts[colors[c]] += 1
            most = 0
            for j in range(4):
                most = max(most, counts[j])
            if counts[ev[r][2]] < most:
                weight *= name_slack
    return weight


class EvidenceTracker(Tracker):
    """A :class:`~unokit.bots.memory.Tracker` that also keeps, from the walk of the turns
    since the seat's last turn, the latest choice of each other seat as
    :data:`Evidence` (:meth:`evidence`): its last card played by choice (not after a
    draw), with the colour and top card it was played on, and the colour it named if
    that card was a wild. Where the walk concludes nothing, there is no evidence."""

    def reset(self) -> None:
        super().reset()
        self.fresh: list[Evidence] = []
        self.fresh_key: tuple[int, tuple[int, ...]] | None = None

    def _walk(self, anchor: Observation, action: int, obs: Observation) -> list[Event] | None:
        events = super()._walk(anchor, action, obs)
        self.fresh = [] if events is None else choices(events, anchor, action, obs)
        self.fresh_key = (len(obs.discard), tuple(obs.hand_sizes))
        return events

    def evidence(self, obs: Observation) -> list[Evidence]:
        """The evidence of the turns between the seat's last turn and ``obs`` (see the
        class); none if ``obs`` is not the position the last walk ended on."""
        if self.fresh_key != (len(obs.discard), tuple(obs.hand_sizes)):
            return []
        return list(self.fresh)


def choices(events: Sequence[Event], anchor: Observation, action: int,
            obs: Observation) -> list[Evidence]:
    """The evidence in the events of one walk (see :class:`EvidenceTracker`): per seat, its
    last play by choice and the colour it named with it. ``anchor`` and ``action`` are
    the seat's last turn, ``obs`` the observation of its new one.

    The plays are the new cards of the discard pile in order; the colour each was played
    on is the one in force after the card below it (a wild's named colour is the colour of
    the card played on it, or the colour in force now for the top card)."""
    base = list(anchor.discard)
    top, color = anchor.top, anchor.color
    if A.action_type(action) == A.PLAY:
        top = A.action_card(action)
        base.append(top)
        color = A.action_color(action) if top >= WILD else COLOR_OF[top]
    new = list(obs.discard[len(base):])
    rows: dict[int, list[Evidence]] = {}
    forced: set[int] = set()
    index = 0
    for seat, kind, _ in events:
        if kind == "fail":
            forced.add(seat)  # a card played next on this turn came after a draw
        elif kind == "play" and index < len(new):
            card = new[index]
            index += 1
            after = -1
            if card < WILD:
                after = COLOR_OF[card]
            elif index < len(new):
                after = COLOR_OF[new[index]] if new[index] < WILD else -1
            else:
                after = obs.color
            if seat in forced or color < 0 or color > 3:
                rows[seat] = []
            else:
                trank = RANK_OF[top] if 0 <= top < WILD else -1
                rows[seat] = [(seat, PLAYED, card, color, trank)]
                if card >= WILD and 0 <= after < 4:
                    rows[seat].append((seat, NAMED, after, 0, 0))
            forced.discard(seat)
            top, color = card, after
    return [row for seat in sorted(rows) for row in rows[seat]]


__all__ = ["NAMED", "NAME_SLACK", "PLAYED", "Evidence", "EvidenceTracker", "choices",
           "deal_weight_py"]
