"""The events message of an action as each viewer sees it: one encoding per view.

After an action every viewer of a room (each seat, and the spectators as one viewer)
gets the action's events as :func:`unokit.engine.events.redact` lets it see them, with
its legal actions, whether it must act, and, for the connection that sent the action,
its ack. Most viewers see most of it alike: a play is public, a drawn card is hidden
from every seat but the drawer's, and out of turn most seats may do nothing. So the
message is built per *view* (the events as the viewer sees them, compared by content,
its legal actions, ``must`` and the ack): viewers whose views are the same share one
message, encoded once (:func:`events_messages`). Redaction stays per viewer and is
done by :func:`~unokit.engine.events.redact` alone; two viewers share bytes only when
what each may see is the same.

Each seat's legal actions are worked out once per position of the game
(:class:`SeatLegal`), whoever asks for them (the events messages, a snapshot, a hello).

>>> from unokit.engine.driver import Driver
>>> from unokit.engine.game import Game
>>> game = Game("official,players=3", seed=4)
>>> driver, seats = Driver(game), SeatLegal()
>>> out = events_messages(game, driver, list(game.log), [0, 1, 2, -1, -2],
...                       lambda viewer: seats.of(game, driver, viewer))
>>> len({id(data) for data in out.values()})  # each seat sees its own hand dealt
4
>>> out[-1] is out[-2]  # two viewers that see the same share the bytes
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec

from unokit.engine.actions import format_action
from unokit.engine.driver import Driver
from unokit.engine.events import Event, EventKind, redact
from unokit.engine.game import Game
from unokit.engine.phases import MATCH_OVER
from unokit.server import protocol as P

NO_LEGAL: tuple[list[str], bool] = ([], False)
"""What a viewer that may not act gets: no legal action, not the lead."""

LegalOf = Callable[[int], tuple[list[str], bool]]
"""A viewer's legal actions (as the protocol writes them) and whether it leads."""

_encode = msgspec.json.Encoder().encode


@functools.lru_cache(maxsize=1 << 16)
def seatless_text(action: int) -> str:
    """The text form of an action without its seat, as the protocol writes it.

    >>> from unokit.engine.actions import parse_action
    >>> seatless_text(parse_action("2:R5"))
    'R5'
    """
    return format_action(action).split(":", 1)[1]


def table_facts(game: Game) -> dict[str, int]:
    """The public facts of the table that every events message carries beside its
    events, since the events alone cannot always tell them (a reshuffle in the middle of
    a draw, a Wild Draw Four open to a challenge, a UNO call still open after a
    penalty): the draw pile's size, the pending penalty and the seat that may be caught.
    They are the same for every viewer, and equal to the observation's
    ``draw_pile_size``, ``pending_draw`` and ``uno_open`` (-1 for ``None``).

    >>> table_facts(Game("official,players=2", seed=1))
    {'pile': 93, 'pending': 0, 'uno_open': -1}
    """
    uno = game.uno_open
    caught = uno if uno >= 0 and len(game.hands[uno]) == 1 else -1
    return {"pile": len(game.draw_pile), "pending": game.pending, "uno_open": caught}


class SeatLegal:
    """Each seat's legal actions (as the protocol writes them) and whether it leads,
    worked out once per position of a game: a position is the game object and the
    number of actions applied to it, so that an action, a new match or a game rebuilt
    after a rollback starts afresh.

    The lists it returns are shared: callers must not change them.

    >>> from unokit.engine.driver import Driver
    >>> game = Game("official,players=2", seed=1)
    >>> seats = SeatLegal()
    >>> legal, must = seats.of(game, Driver(game), game.current)
    >>> must, legal is seats.of(game, Driver(game), game.current)[0]
    (True, True)
    """

    __slots__ = ("_at", "_game", "_lead", "_seats")

    def __init__(self) -> None:
        self._game: Game | None = None
        self._at = -1
        self._lead = -1
        self._seats: dict[int, tuple[list[str], bool]] = {}

    def _position(self, game: Game, driver: Driver) -> None:
        """Forget what was worked out if the game moved on since."""
        if self._game is not game or self._at != len(game.history):
            self._game, self._at = game, len(game.history)
            self._lead = driver.lead()
            self._seats = {}

    def lead(self, game: Game, driver: Driver) -> int:
        """The seat that leads now (:meth:`Driver.lead`)."""
        self._position(game, driver)
        return self._lead

    def of(self, game: Game, driver: Driver, viewer: int) -> tuple[list[str], bool]:
        """``(legal actions, leads)`` of ``viewer`` (a spectator, below 0, may do
        nothing; nobody may once the match is over)."""
        if viewer < 0 or game.phase is MATCH_OVER:
            return NO_LEGAL
        self._position(game, driver)
        known = self._seats.get(viewer)
        if known is None:
            known = self._seats[viewer] = (
                [seatless_text(a) for a in game.legal_actions(viewer)],
                viewer == self._lead)
        return known

    def warm(self, game: Game, driver: Driver, viewers: Iterable[int]) -> None:
        """Work out the seats among ``viewers`` now, the lead last: the engine keeps the
        last list it made, and the lead is the seat most likely to act next."""
        lead = self.lead(game, driver)
        for viewer in viewers:
            if viewer >= 0 and viewer != lead:
                self.of(game, driver, viewer)
        self.of(game, driver, lead)


def _hidden(event: Event) -> bool:
    """Whether some viewer may see ``event`` otherwise than whole
    (:func:`~unokit.engine.events.redact` may change it)."""
    return event.visible_to is not None or event.kind is EventKind.ROUND_ENDED


def _content(seen: tuple[int, Event]) -> tuple[Any, ...]:
    """What an event as one viewer sees it holds, comparable and hashable: its place,
    its fields and its data (as JSON)."""
    i, event = seen
    return (i, *event[:-1], None if event.data is None else _encode(event.data))


def events_messages(game: Game, driver: Driver, events: Sequence[Event],
                    viewers: Iterable[int], legal_of: LegalOf, *,
                    ack_viewer: int | None = None,
                    ack: P.Ack | None = None) -> dict[int, bytes]:
    """The events message of each of ``viewers`` (a seat, or below 0 a spectator):
    ``events`` as :func:`~unokit.engine.events.redact` lets it see them, its legal
    actions and ``must`` (``legal_of(viewer)``), the table's facts, and ``ack`` for
    ``ack_viewer``. Viewers with the same view get the same bytes object, encoded
    once."""
    public = [event.to_dict() for event in events]
    hidden = [(i, event) for i, event in enumerate(events) if _hidden(event)]
    lead, phase, facts = driver.lead(), str(game.phase), table_facts(game)
    made: dict[tuple[Any, ...], bytes] = {}
    out: dict[int, bytes] = {}
    for viewer in viewers:
        own: list[tuple[int, Event]] = []
        if hidden:
            view = None if viewer < 0 else viewer
            for i, event in hidden:
                seen = redact(event, view)
                if seen is not event:
                    own.append((i, seen))
        legal, must = legal_of(viewer)
        acked = ack is not None and viewer == ack_viewer
        key = (tuple(legal), must, acked, *map(_content, own))
        data = made.get(key)
        if data is None:
            shown = public
            if own:
                shown = list(public)
                for i, seen in own:
                    shown[i] = seen.to_dict()
            data = made[key] = P.encode(P.Events(
                events=shown, lead=lead, phase=phase, legal=legal, must=must,
                ack=ack if acked else None, **facts))
        out[viewer] = data
    return out
