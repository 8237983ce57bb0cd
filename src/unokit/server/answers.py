"""What a room answered, so that a message sent again gets the same answer and is never
applied twice.

Two memories, of two kinds of answer:

- :class:`Answers`, a room's: every ack (and a command's other answer) of each seat's
  current *occupant* (the person or bot holding the seat now; its number grows each time
  someone new takes the seat), for the rest of the match. Nothing evicts an entry: the
  acks of applied actions are bounded by the match's actions, and everything else an
  occupant may have answered (commands, chat lines, calls ahead) by
  :data:`ANSWERS_PER_OCCUPANT`; past that the occupant's new commands and lines are
  refused with ``too_many``. When someone new takes a seat, the earlier occupant's
  answers go: the new one never sees them. All of it comes back from the database after
  a restart (actions, chat lines and the table ``answers`` carry their occupant).
- :class:`Refusals`, a connection's: its last :data:`REFUSALS_KEPT` refusals (errors
  that changed nothing). A flood of refused ids evicts only the flooder's own older
  refusals, on its own connection; a refused id sent again on another connection, or
  after a restart, is judged again.

>>> answers = Answers()
>>> answers.keep(1, 0, "c-1", b"ack-old", counted=True)
>>> answers.get(1, 0, "c-1"), answers.get(1, 1, "c-1")
(b'ack-old', None)
>>> answers.keep(1, 1, "c-1", b"ack-new", counted=True)  # a new occupant of seat 1
>>> answers.get(1, 0, "c-1"), answers.get(1, 1, "c-1"), len(answers)
(None, b'ack-new', 1)
>>> refusals = Refusals(limit=2)
>>> for n in range(3):
...     refusals.keep(f"x{n}", b"no")
>>> refusals.get("x0"), refusals.get("x2")
(None, b'no')
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from unokit.i18n import N_
from unokit.server.seating import RoomError

ANSWERS_PER_OCCUPANT = 1000
"""The most answers a seat's occupant may be owed for other things than the match's
actions (host and lobby commands, chat lines, calls ahead); past it the occupant's new
ones are refused with ``too_many``."""
REFUSALS_KEPT = 64
"""The refusals a connection remembers (its last ones)."""


@dataclass
class _Occupant:
    """The answers owed to one seat's current occupant."""

    number: int
    by_id: dict[str, bytes] = field(default_factory=dict)
    counted: set[str] = field(default_factory=set)
    """The ids whose answers count against :data:`ANSWERS_PER_OCCUPANT`."""


class Answers:
    """A room's successful answers, per seat occupant and id, kept for the match."""

    def __init__(self) -> None:
        self._seats: dict[int, _Occupant] = {}

    def get(self, seat: int, occupant: int, msg_id: str) -> bytes | None:
        """The answer given to ``msg_id`` of ``seat``'s ``occupant`` (``None``: none)."""
        held = self._seats.get(seat)
        if held is None or held.number != occupant:
            return None
        return held.by_id.get(msg_id)

    def keep(self, seat: int, occupant: int, msg_id: str, data: bytes, *,
             counted: bool) -> None:
        """Remember ``data`` as the answer to ``msg_id`` of ``seat``'s ``occupant``;
        ``counted``: it counts against :data:`ANSWERS_PER_OCCUPANT` (all but the acks
        of applied actions). A newer occupant than the one kept replaces it; an answer
        for an older one (which nobody can ask for any more) is not kept."""
        held = self._seats.get(seat)
        if held is None or held.number < occupant:
            held = self._seats[seat] = _Occupant(occupant)
        elif held.number > occupant:
            return
        held.by_id[msg_id] = data
        if counted:
            held.counted.add(msg_id)

    def spent(self, seat: int, occupant: int) -> bool:
        """Whether ``seat``'s ``occupant`` is owed :data:`ANSWERS_PER_OCCUPANT` answers
        that count against it (it may not send more commands or chat lines)."""
        held = self._seats.get(seat)
        return (held is not None and held.number == occupant
                and len(held.counted) >= ANSWERS_PER_OCCUPANT)

    def refusal(self, seat: int, occupant: int) -> RoomError | None:
        """The refusal (``too_many``) of a new command or chat line of ``seat``'s
        ``occupant`` whose allowance is :meth:`spent` (``None``: it is not)."""
        if not self.spent(seat, occupant):
            return None
        return RoomError("too_many", N_("this seat has sent as many commands and chat "
                                        "lines as one match takes ({limit})"),
                         limit=ANSWERS_PER_OCCUPANT)

    def taken(self, seat: int, occupant: int) -> None:
        """``occupant`` took ``seat``: forget the answers of whoever held it before."""
        held = self._seats.get(seat)
        if held is not None and held.number < occupant:
            del self._seats[seat]

    def update(self, other: Answers) -> None:
        """Take in every answer of ``other`` (a room rebuilt from the database)."""
        for seat, held in other._seats.items():
            for msg_id, data in held.by_id.items():
                self.keep(seat, held.number, msg_id, data, counted=msg_id in held.counted)

    def __len__(self) -> int:
        return sum(len(held.by_id) for held in self._seats.values())


class Refusals:
    """A connection's last refusals, by id (a small LRU: the oldest goes first)."""

    def __init__(self, limit: int = REFUSALS_KEPT) -> None:
        self.limit = limit
        self._by_id: OrderedDict[str, bytes] = OrderedDict()

    def get(self, msg_id: str) -> bytes | None:
        """The refusal this connection got for ``msg_id`` (``None``: none kept)."""
        return self._by_id.get(msg_id)

    def keep(self, msg_id: str, data: bytes) -> None:
        """Remember the refusal ``data`` of ``msg_id``, forgetting the oldest beyond
        :attr:`limit`."""
        self._by_id[msg_id] = data
        self._by_id.move_to_end(msg_id)
        while len(self._by_id) > self.limit:
            self._by_id.popitem(last=False)

    def __len__(self) -> int:
        return len(self._by_id)


def refusals_of(conn: object) -> Refusals:
    """The refusals kept for a connection (made on first use: they live and go with
    the connection object)."""
    kept = getattr(conn, "refusals", None)
    if not isinstance(kept, Refusals):
        kept = Refusals()
        conn.refusals = kept  # type: ignore[attr-defined]
    return kept
