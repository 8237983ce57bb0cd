"""Typed events: what :meth:`unokit.Game.apply` reports, and who may see what.

Every event has a sequence number ``seq`` (0, 1, 2, ... over the whole match), a
:class:`EventKind`, and fields used by that kind. Cards that only some seats may see
(a drawn card, a dealt hand, a hand shown to a challenger) are in ``cards`` with
``visible_to`` naming those seats; :func:`redact` is the one function that hides them
from anyone else, keeping their number in ``amount``.

>>> e = Event(seq=3, kind=EventKind.DREW, player=1, cards=(5, 6), amount=2, visible_to=(1,))
>>> redact(e, 1) == e
True
>>> redact(e, 0).cards, redact(e, 0).amount
((), 2)
>>> redact(e, None).cards
()
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from unokit.engine.cards import CODES, COLOR_LETTERS


class EventKind(StrEnum):
    """What happened."""

    ROUND_STARTED = "round_started"
    """A round begins: ``player`` is the dealer, ``amount`` the round number (1-based)."""
    DEALER_DRAW = "dealer_draw"
    """``player`` drew ``card`` to choose the dealer."""
    DEALT = "dealt"
    """``player`` was dealt ``cards`` (visible to the seats in ``visible_to``)."""
    START_CARD = "start_card"
    """``card`` was turned up to start the discard pile."""
    PUT_BACK = "put_back"
    """The start card ``card`` went back into the draw pile, which was reshuffled."""
    RESHUFFLED = "reshuffled"
    """The discard pile (all but its top card) became the new draw pile of ``amount`` cards."""
    PLAYED = "played"
    """``player`` played ``card``; ``color`` named for a wild, ``target`` if any."""
    DREW = "drew"
    """``player`` drew ``amount`` cards (``cards``, private); ``reason`` says why."""
    PASSED = "passed"
    """``player`` kept the drawn card."""
    SKIPPED = "skipped"
    """``player`` loses the turn."""
    REVERSED = "reversed"
    """The direction of play flipped; ``amount`` is +1 (clockwise) or -1."""
    COLOR_CHOSEN = "color_chosen"
    """``player`` named ``color``."""
    UNO_CALLED = "uno_called"
    """``player`` called UNO."""
    CAUGHT = "caught"
    """``player`` caught ``target``, who had not called UNO."""
    FALSE_CATCH = "false_catch"
    """``player`` tried to catch ``target``, who could not be caught."""
    MISPLAYED = "misplayed"
    """``player`` tried to play ``card``, which does not match."""
    CHALLENGED = "challenged"
    """``player`` challenged ``target``'s Wild Draw Four; ``reason`` is guilty/innocent."""
    HAND_SHOWN = "hand_shown"
    """``target``'s hand ``cards`` was shown to ``visible_to``."""
    TOOK_BACK = "took_back"
    """``player`` took ``card`` back into the hand; the colour is ``color`` again."""
    WENT_OUT = "went_out"
    """``player`` has no cards left (``amount``: place in the finishing order, 1-based)."""
    REFILLED = "refilled"
    """``player`` emptied the hand at a level above 1 and goes on at level ``amount``."""
    ROUND_ENDED = "round_ended"
    """The round is over; ``player`` won it, ``data`` holds points, hands and scores."""
    MATCH_ENDED = "match_ended"
    """The match is over; ``player`` won it, ``data`` holds the final scores."""
    ELIMINATED = "eliminated"
    """``player`` reached the target score and is out of the match."""
    HANDS_SWAPPED = "hands_swapped"
    """``player`` and ``target`` swapped hands."""
    HANDS_ROTATED = "hands_rotated"
    """Every hand passed to the next player (``amount``: the direction)."""
    HANDS_SHUFFLED = "hands_shuffled"
    """``player``'s card had every hand gathered, shuffled and dealt out again (``dealt``
    events follow)."""
    GAVE = "gave"
    """``player`` gave ``target`` a card (``cards``, seen by the two of them)."""
    SLAP_STARTED = "slap_started"
    """``player`` called UNO: everyone else must slap."""
    SLAPPED = "slapped"
    """``player`` slapped the table."""
    SAID = "said"
    """``player`` said something (``reason``: the text, if any)."""
    SILENCE = "silence"
    """A silence began (``reason``: why) or, with ``amount`` 0, ended."""
    PRESSED = "pressed"
    """UNO Attack: ``player`` pressed the launcher ``target`` times; ``amount`` cards
    (``cards``, private) came out; ``reason`` says why."""
    DISCARDED = "discarded"
    """UNO Attack: with a Discard All, ``player`` also discarded ``cards``."""
    PENALTY = "penalty"
    """A pending penalty changed: ``amount`` cards now wait for ``player``."""
    REPEATED = "repeated"
    """The same position came back ``amount`` times in the round: the round is blocked
    (a ``round_ended`` follows)."""


class Event(NamedTuple):
    """One thing that happened. Unused fields keep their defaults."""

    seq: int
    kind: EventKind
    player: int = -1
    target: int = -1
    card: int = -1
    color: int = -1
    cards: tuple[int, ...] = ()
    amount: int = 0
    reason: str = ""
    visible_to: tuple[int, ...] | None = None
    data: Any = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; cards as codes, unused fields left out."""
        out: dict[str, Any] = {"seq": self.seq, "kind": self.kind.value}
        if self.player >= 0:
            out["player"] = self.player
        if self.target >= 0:
            out["target"] = self.target
        if self.card >= 0:
            out["card"] = CODES[self.card]
        if self.color >= 0:
            out["color"] = COLOR_LETTERS[self.color]
        if self.cards:
            out["cards"] = [CODES[c] for c in self.cards]
        if self.amount:
            out["amount"] = self.amount
        if self.reason:
            out["reason"] = self.reason
        if self.visible_to is not None:
            out["visible_to"] = list(self.visible_to)
        if self.data is not None:
            out["data"] = self.data
        return out


def redact(event: Event, viewer: int | None) -> Event:
    """The event as seat ``viewer`` may see it (``None``: a spectator, who sees only
    public information). Private cards are removed; their number stays in ``amount``.
    The hands shown at the end of a round (``round_ended``'s ``data["hands"]``) are for
    the seats at the table: a spectator sees no hand (it can read them in the match's
    record once the match is over).

    >>> end = Event(seq=9, kind=EventKind.ROUND_ENDED, player=0,
    ...             data={"round": 1, "hands": [[], ["R5"]], "scores": [5, 0]})
    >>> redact(end, 1).data["hands"], "hands" in redact(end, None).data
    ([[], ['R5']], False)
    """
    if viewer is None and event.kind is EventKind.ROUND_ENDED and isinstance(event.data, dict) \
            and "hands" in event.data:
        event = event._replace(data={k: v for k, v in event.data.items() if k != "hands"})
    if event.visible_to is None or (viewer is not None and viewer in event.visible_to):
        return event
    return event._replace(cards=())
