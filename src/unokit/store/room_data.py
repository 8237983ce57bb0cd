"""The plain values the store takes and gives for a room: a new room, its seats, actions,
chat lines and command answers as stored, and a whole room as loaded for a restart.
:mod:`unokit.store.store` re-exports each of them.

>>> ActionData(0, "0:R5", 0, "player", "c1", 9, 1.0).occupant
0
>>> ACTION_COLUMNS[:3]
('room_id', 'n', 'action')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from unokit.store.ratings import SeatRating

RECENT_CHAT = 50
"""The chat lines of each room :meth:`unokit.store.store.Store.load_rooms` brings back
(its last ones)."""


@dataclass(frozen=True)
class NewRoom:
    """What a new room is created with."""

    code: str
    rules: str
    turn_timer: int
    public: bool
    server_seed: str
    commitment: str
    seats: int
    rated: bool = True
    """Whether its matches are rated (:mod:`unokit.store.ratings`)."""


class SeatData(NamedTuple):
    """One seat as stored."""

    seat: int
    kind: str
    name: str = ""
    bot: str = ""
    token_hash: str = ""
    host: bool = False
    occupant: int = 0
    """Who holds the seat: grows each time someone new takes it."""
    player_id: int | None = None
    """The player of a person's seat (``None``: a bot, empty, or no session)."""


class ActionData(NamedTuple):
    """One action as stored (see :class:`unokit.store.models.ActionRow`)."""

    n: int
    action: str
    seat: int
    origin: str
    client_id: str | None
    seq: int
    at: float
    occupant: int = 0
    """The occupant of ``seat`` that sent it (whose ``client_id`` it is)."""


ACTION_COLUMNS = ("room_id", *ActionData._fields)
"""The columns of a stored action, in the order of its rows: a room id, then
:class:`ActionData`."""


class ChatData(NamedTuple):
    """One chat line as stored (see :class:`unokit.store.models.ChatRow`)."""

    n: int
    seat: int
    name: str
    text: str
    at: int
    """Milliseconds since the epoch."""
    client_id: str | None
    seq: int
    occupant: int = 0
    """The writer's seat occupant."""
    player_id: int | None = None
    """The writer's player (guest or account), if their seat had one."""


class AnswerData(NamedTuple):
    """A room's answer to a host or lobby command, as stored (see
    :class:`unokit.store.models.AnswerRow`)."""

    n: int
    seat: int
    client_id: str
    answer: str
    """The message sent (its JSON text)."""
    at: float
    occupant: int = 0
    """The occupant of ``seat`` that sent the command."""


@dataclass
class StoredRoom:
    """A room as loaded for a restart: its row, seats, contributions, actions and last
    chat lines."""

    id: int
    code: str
    rules: str
    status: str
    turn_timer: int
    public: bool
    server_seed: str
    commitment: str
    seed: int | None
    created_at: float
    last_seen: float = 0.0
    """When a seated person was last known connected (seconds since the epoch)."""
    seats: list[SeatData] = field(default_factory=list)
    contributions: dict[int, str] = field(default_factory=dict)
    actions: list[ActionData] = field(default_factory=list)
    chat: list[ChatData] = field(default_factory=list)
    """The room's :data:`RECENT_CHAT` last chat lines, oldest first."""
    answers: list[AnswerData] = field(default_factory=list)
    """The command answers of the seats' current occupants, oldest first."""
    chat_answers: list[ChatData] = field(default_factory=list)
    """The chat lines with a client id of the seats' current occupants, oldest first
    (whatever :attr:`chat` holds)."""
    next_answer: int = 0
    """The number of the room's next command answer (one more than its last one's)."""
    ratings: dict[int, SeatRating] = field(default_factory=dict)
    """A finished rated match's ratings and notices as its end showed them, by seat
    (:func:`unokit.store.ratings.shown_ratings`)."""
