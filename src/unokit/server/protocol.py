"""The WebSocket protocol: every message a typed msgspec model, JSON on the wire.

A client opens ``/ws``, sends :class:`Hello` and gets :class:`Welcome`; then it sends
actions and commands, each with a client action id (``id``), and gets an :class:`Ack`
or an :class:`Error` for each, while :class:`Events` and :class:`RoomState` messages
come to every connection of the room. docs/protocol.md shows every message; its
examples are checked against these models.

>>> decode_client(b'{"type": "act", "id": "a1", "action": "R5"}')
Act(id='a1', action='R5')
>>> decode_client(b'{"type": "act", "id": "a1"}')
Traceback (most recent call last):
...
unokit.server.protocol.ProtocolError: bad_message: Object missing required field `action`
>>> decode_client('{"type": "act", "id": "a1", "action": "%s"}' % ("\u20ac" * 1400))
Traceback (most recent call last):
...
unokit.server.protocol.ProtocolError: too_large: a message is at most 4096 bytes
>>> encode(Ack(id="a1", seq=42))
b'{"type":"ack","id":"a1","seq":42}'

The tag ``chat`` names a client's line (:class:`SendChat`) and the server's
(:class:`Chat`); each direction has its own decoder:

>>> decode_client(b'{"type": "chat", "id": "c1", "text": "hi"}')
SendChat(id='c1', text='hi')
>>> decode_server(b'{"type": "chat", "seat": 0, "name": "Ann", "text": "hi", "at": 1}')
Chat(seat=0, name='Ann', text='hi', at=1)
"""

from __future__ import annotations

import re
from typing import Any, Literal

import msgspec

from unokit.i18n import N_
from unokit.server.jsondepth import too_deep

VERSION = 1
"""The protocol version; :class:`Hello` names the one the client speaks."""

MAX_MESSAGE_BYTES = 4096
"""The largest client message accepted (larger ones get ``too_large``)."""

MAX_JSON_DEPTH = 32
"""How deep arrays and objects may nest in a client message (deeper ones get
``bad_message`` without being decoded); the server's ``max_json_depth`` setting."""



class _Client(msgspec.Struct, tag_field="type", forbid_unknown_fields=True):
    """A message from a client."""


class Hello(_Client, tag="hello"):
    """The first message of a connection: which room, and as whom.

    With ``token``: take back the seat of that token and get every event after
    ``last_seq``. Without one: sit in a free seat (``seat``, or the first free one) under
    ``name``, or watch with ``spectate``."""

    room: str
    v: int = VERSION
    token: str | None = None
    name: str = ""
    spectate: bool = False
    seat: int | None = None
    last_seq: int = -1
    lang: str = ""
    """The language of the server's error texts to this connection (``ru``, ``da-DK``;
    empty: the ``Accept-Language`` of the WebSocket request, else English)."""
    ack_in_events: bool = False
    """The ``ack`` of this connection's game action comes inside the ``events`` message
    of its events (its field ``ack``), not as a message of its own, whenever this
    connection is its seat's only one: one message instead of two."""
    commitment: str = ""
    """The fair-deal commitment of the match ``last_seq`` counts in (empty: the room's
    current one). After a rematch the room has a new one, and a hello that names an
    older one gets every event of the new match, from the first."""
    contribution: str = ""
    """A contribution to the deal (as :class:`Contribute`'s ``value``) taken with the
    seat before anything else, so that a "play now" room, which starts as soon as its
    seats are full, deals with it. Only without ``token``, and only in the lobby."""
    new_token: str = ""
    """Without ``token``: the token of the seat to take, made by the client (22-64
    URL-safe characters, random), so that the same hello sent again after its answer
    was lost (a restart, a network cut) takes back the seat it got instead of finding
    it taken. Empty: the server makes the token."""


class Act(_Client, tag="act"):
    """A game action of the own seat, in the text form without the seat (``"R5"``,
    ``"W>R"``, ``"W+4>B!"``, ``"draw"``, ``"pass"``, ``"uno"``, ``"catch 2"``,
    ``"challenge"``, ``"next"`` (the next round), ...; see docs/protocol.md)."""

    id: str
    action: str


class Contribute(_Client, tag="contribute"):
    """A seated player's random value for the match seed, before the match starts
    (1-128 letters, digits, ``_`` or ``-``; docs/fairness.md)."""

    id: str
    value: str


class Start(_Client, tag="start"):
    """Host: start the match (every seat taken)."""

    id: str


class AddBot(_Client, tag="add_bot"):
    """Host: seat a bot (``bot``: any bot spec, such as ``normal`` or ``hard``) in an
    empty seat (``seat``, or the first empty one); not during a round."""

    id: str
    bot: str = "normal"
    seat: int | None = None


class RemoveBot(_Client, tag="remove_bot"):
    """Host: take the bot out of ``seat``; not during a round."""

    id: str
    seat: int


class Kick(_Client, tag="kick"):
    """Host: send the player of ``seat`` away; not during a round."""

    id: str
    seat: int


class SetTimer(_Client, tag="set_timer"):
    """Host: the turn timer, in seconds (0: off, 15, 30 or 60); not during a round."""

    id: str
    seconds: int


class Leave(_Client, tag="leave"):
    """Give up the own seat (a bot plays it for the rest of a round under way)."""

    id: str


class SnapshotRequest(_Client, tag="snapshot"):
    """Ask for the full view of the own seat (or the spectators' view) now."""

    id: str


class SendChat(_Client, tag="chat"):
    """A line for the table chat (seated players only): 1-200 characters once line
    breaks and other runs of white space are made single spaces and the ends stripped;
    no control characters. Answered by an :class:`Ack` once the line is stored, and
    sent to everyone as :class:`Chat`. Under the ``silence`` rule, a line written
    while a silence holds first costs the writer the ``say`` action (its penalty)."""

    id: str
    text: str


class Rename(_Client, tag="rename"):
    """Change the name of the sender's seat before the match, checked as a joining
    name is (invisible names and the word list are refused). Answered by an
    :class:`Ack`; everyone gets a :class:`RoomState` with the new name."""

    id: str
    name: str


class Rematch(_Client, tag="rematch"):
    """After the match ended: a new match in the same room (the host, or any connected
    player when the host is not connected). Seats of connected players keep their
    holders and tokens, bots stay, the others are emptied; the room gets a new server
    seed and commitment and is back in its lobby; the finished match stays stored
    under the code ``CODE-N``."""

    id: str


class Ping(_Client, tag="ping"):
    """Keep the connection alive; answered by :class:`Pong`."""

    id: str = ""


ClientMessage = (Hello | Act | Contribute | Start | AddBot | RemoveBot | Kick | SetTimer
                 | Leave | SnapshotRequest | SendChat | Rename | Rematch | Ping)
"""Every message a client may send."""

_IDENTIFIED = (Act, Contribute, Start, AddBot, RemoveBot, Kick, SetTimer, Leave,
               SnapshotRequest, SendChat, Rename, Rematch)


class _Server(msgspec.Struct, tag_field="type", omit_defaults=True):
    """A message from the server."""


class SeatInfo(msgspec.Struct, omit_defaults=True):
    """One seat as everyone sees it."""

    seat: int
    kind: str
    """``empty``, ``human`` or ``bot``."""
    name: str = ""
    bot: str = ""
    host: bool = False
    connected: bool = False
    away: bool = False
    """Played by a bot after two timeouts in a row (or after leaving), until the player
    acts again."""
    contributed: bool = False


class RoomInfo(msgspec.Struct, omit_defaults=True):
    """A room as everyone sees it."""

    code: str
    rules: dict[str, Any]
    rules_text: str
    status: str
    seats: list[SeatInfo]
    turn_timer: int
    commitment: str
    catch_grace_ms: int
    invite: str = ""
    spectators: int = 0


class Welcome(_Server, tag="welcome"):
    """The answer to :class:`Hello`: the seat (``None``: spectating), the seat token (on
    the first join only: keep it to come back), and the room."""

    v: int
    room: RoomInfo
    seat: int | None = None
    token: str | None = None
    last_seq: int = -1


class Ack(_Server, tag="ack"):
    """An action or command was committed; ``seq`` is the last event's sequence number
    after it."""

    id: str
    seq: int


class Error(_Server, tag="error"):
    """A message was refused and changed nothing; ``id`` names it when it had one.

    Codes: ``bad_message``, ``too_large``, ``rate_limited``, ``version``, ``no_room``,
    ``bad_token``, ``room_full``, ``not_seated``, ``not_started``, ``illegal``,
    ``not_host``, ``mid_round``, ``bad_request``, ``too_late``, ``caught``,
    ``not_stored``, ``unavailable``, ``closing``, ``room_closed``, ``too_many``,
    ``elsewhere``, ``banned``, ``not_allowed``. The ones that say "nothing was kept, send
    it again" (``not_stored``, ``unavailable``, ``closing``) come with ``retry_after``:
    the seconds to wait first; so does ``elsewhere`` (the lease's length, before the
    next hello)."""

    code: str
    message: str
    id: str | None = None
    retry_after: float | None = None


class Events(_Server, tag="events"):
    """New events, as this viewer may see them, with what this seat may do next
    (``legal``, action texts without the seat; ``must``: it is this seat's turn)."""

    events: list[dict[str, Any]]
    lead: int = -1
    phase: str = ""
    legal: list[str] = []
    must: bool = False
    pile: int = -1
    """The number of cards in the draw pile after these events (-1: no game)."""
    pending: int = 0
    """The cards the seat to respond would draw now: stacked Draw Twos, or a Wild Draw
    Four open to a challenge."""
    uno_open: int = -1
    """The seat that may be caught for not calling UNO, or -1."""
    ack: Ack | None = None
    """The ack of the game action that made these events, to the connection that sent it
    (one that asked for it in its ``hello``: ``ack_in_events``)."""


class RoomState(_Server, tag="room"):
    """The room changed: a seat, a connection, the timer, the status."""

    room: RoomInfo


class Snapshot(_Server, tag="snapshot"):
    """The full view of the own seat (:meth:`unokit.Game.observation`), sent only when
    asked for."""

    id: str
    seq: int
    view: dict[str, Any] | None
    legal: list[str] = []
    must: bool = False


class Timer(_Server, tag="timer"):
    """``seat`` has ``ms`` milliseconds left for the turn (``ms`` 0: no timer now)."""

    seat: int
    ms: int


class Countdown(_Server, tag="countdown"):
    """The next round starts by itself in ``ms`` milliseconds (``ms`` 0: it does not,
    for now: a seat is empty). Sent when a round ends, and after the welcome between
    rounds."""

    ms: int


class TimedOut(_Server, tag="timed_out"):
    """To the connections of ``seat`` only: its turn timer ran out and a bot played for
    it; ``away``: a second time in a row, the seat is now played by a bot until its
    player acts."""

    seat: int
    away: bool = False


class SeatRatingMsg(msgspec.Struct, frozen=True):
    """A seat's rating after a rated match: the number shown, its change, and whether it
    is still provisional."""

    rating: int
    change: int
    provisional: bool


class RatingNoticeMsg(msgspec.Struct, frozen=True):
    """Why a rated match did not count for the viewer's own rating, or counted only in
    part: ``kind`` ``voided`` (the anti-farming checks voided it, for ``reasons``),
    ``none_counted`` (they voided others, and too few were left to rate anyone) or
    ``partial`` (they voided others: rated over the rest). See
    :mod:`unokit.store.rating_notices` for the words."""

    kind: str
    reasons: list[str] = []


class Reveal(_Server, tag="reveal"):
    """The match is over: the server seed behind the commitment, and the match seed."""

    server_seed: str
    seed: str
    contributions: dict[str, str]
    ratings: dict[str, SeatRatingMsg] = {}
    """The rated seats' new ratings, by seat number (empty: the match was not rated)."""
    notice: RatingNoticeMsg | None = None
    """To the connections of its own seat only: why the match did not count for that
    seat's rating (or counted in part); none: it counted in full, or was not rated."""


ByeCode = Literal["restarting", "moved", "unavailable", "flood", "kicked", "left",
                  "removed", "closed"]
"""Why the server closes a connection, for a client to act on (``reason`` says it in
words, in the connection's language):

- ``restarting``: the server is stopping (``reconnect``);
- ``moved``: another server process serves the room now (``reconnect``);
- ``unavailable``: the database kept the room from taking the hello (``reconnect``);
- ``flood``: too many refused messages in a row; the seat stays;
- ``kicked``: the host sent the player away; the seat and its token are gone;
- ``left``: the player left the room; the seat and its token are gone;
- ``removed``: an operator took the seat; its token is gone;
- ``closed``: the room was closed (idle, or by an operator).
"""

SEAT_GONE: frozenset[str] = frozenset({"kicked", "left", "removed", "closed"})
"""The :data:`ByeCode` values after which the seat's token is of no use: forget it."""


class Bye(_Server, tag="bye", kw_only=True):
    """The server closes the connection; with ``reconnect``, come back soon. ``code``
    (a :data:`ByeCode`) says why for the client; ``reason`` says it for the player."""

    reason: str
    reconnect: bool = True
    code: ByeCode


class Chat(_Server, tag="chat"):
    """A line of the table chat, to every connection of the room (spectators too):
    who wrote it (``seat`` and the ``name`` they had then), the text, and the server
    time in milliseconds since the epoch (``at``, rising within a room: it tells
    lines apart). After the welcome the room's last lines come this way too."""

    seat: int
    name: str
    text: str
    at: int


class Pong(_Server, tag="pong"):
    """The answer to :class:`Ping`."""

    id: str = ""


ServerMessage = (Welcome | Ack | Error | Events | RoomState | Snapshot | Timer | Reveal
                 | Bye | Chat | Pong | Countdown | TimedOut)
"""Every message the server sends."""


class ProtocolError(ValueError):
    """A client message that is not one of :data:`ClientMessage`: ``code`` and a
    one-line reason, in English (``message``) and as a ``template`` with its ``params``
    for a translation (:func:`unokit.i18n.localize`)."""

    def __init__(self, code: str, message: str, msg_id: str | None = None,
                 **params: object) -> None:
        self.code = code
        self.template = message
        self.params = params
        self.message = message.format(**params) if params else message
        self.msg_id = msg_id
        super().__init__(f"{code}: {self.message}")


_client_decoder = msgspec.json.Decoder(ClientMessage)
_server_decoder = msgspec.json.Decoder(ServerMessage)
_encoder = msgspec.json.Encoder()


_ID = re.compile(r"[A-Za-z0-9_.:\-]{1,64}")
"""A client id: 1-64 ASCII letters, digits or ``_.:-``."""


def _valid_id(value: str) -> bool:
    """Whether ``value`` is a client id (:data:`_ID`).

    >>> _valid_id("a-1.b:c_D"), _valid_id(""), _valid_id("x" * 65), _valid_id("é")
    (True, False, False, False)
    >>> _valid_id("a\\n"), _valid_id("a b")
    (False, False)
    """
    return _ID.fullmatch(value) is not None


def _size(data: bytes | str) -> int:
    """The size of a message in bytes (text as UTF-8, as it came over the wire)."""
    return len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)


def decode_client(data: bytes | str, max_depth: int = MAX_JSON_DEPTH) -> ClientMessage:
    """The client message of ``data``.

    >>> decode_client('{"type": "ping", "id": "p1", "x": %s}' % ("[" * 40 + "]" * 40))
    Traceback (most recent call last):
    ...
    unokit.server.protocol.ProtocolError: bad_message: JSON nests at most 32 levels deep

    Raises:
        ProtocolError: too large, nested too deep, not JSON, not a known message, a
            field missing or of the wrong type, or a bad id.
    """
    if _size(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", N_("a message is at most {limit} bytes"),
                            limit=MAX_MESSAGE_BYTES)
    if too_deep(data, max_depth):
        raise ProtocolError("bad_message", N_("JSON nests at most {limit} levels deep"),
                            limit=max_depth)
    try:
        message = _client_decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise ProtocolError("bad_message", str(exc)[:200]) from None
    except (msgspec.DecodeError, UnicodeError):  # UnicodeError: a lone surrogate
        raise ProtocolError("bad_message", N_("not a JSON message")) from None
    if isinstance(message, _IDENTIFIED) and not _valid_id(message.id):
        raise ProtocolError("bad_message", N_("id: 1-64 letters, digits or _.:-"))
    return message


def decode_server(data: bytes | str) -> ServerMessage:
    """A server message (for clients)."""
    return _server_decoder.decode(data)


def encode(message: _Server | _Client) -> bytes:
    """The JSON of a message."""
    return _encoder.encode(message)


def message_id(data: bytes | str, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """The ``id`` of a message that failed to decode, when it is a plain valid id (so
    that the error can name it); ``None`` for a message over the size limit, which is
    not read at all, or one nested deeper than ``max_depth``.

    >>> message_id('{"type": "fly", "id": "x1"}'), message_id('{"id": "%s"}' % ("é" * 3000))
    ('x1', None)
    """
    if _size(data) > MAX_MESSAGE_BYTES or too_deep(data, max_depth):
        return None
    try:
        raw = msgspec.json.decode(data)
    except (msgspec.DecodeError, UnicodeError):
        return None
    value = raw.get("id") if isinstance(raw, dict) else None
    return value if isinstance(value, str) and _valid_id(value) else None
