"""What every part of a room shares: :class:`RoomBase`, the one base of the room's parts
(:class:`~unokit.server.lobby.Lobby`, :class:`~unokit.server.chat.Talk`,
:class:`~unokit.server.pacing.Pacing`, :class:`~unokit.server.presence.Presence`) and of
:class:`~unokit.server.room.Room` itself.

It holds what never changes (the room's code, rules, server seed, store, fan-out,
settings, clock), the machinery of its task (inbox, connections, callbacks), and the
room's :class:`~unokit.server.room_state.RoomState`: each field of the state reads and
writes through the room (``room.game`` is ``room.state.game``), declared once here. The
answers, errors and views every part uses are here too; the few steps one part asks of
another are declared once, as :class:`RoomBase`'s own methods that the part doing them
overrides.
"""

from __future__ import annotations

import asyncio
import functools
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from unokit.engine.actions import format_action, parse_action
from unokit.engine.driver import Driver
from unokit.engine.events import Event
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.i18n import localize
from unokit.server import protocol as P
from unokit.server.answers import Answers, refusals_of
from unokit.server.bot_pool import BotPool, Kept
from unokit.server.fanout import SPECTATORS, FanOut
from unokit.server.inbox import Inbox
from unokit.server.outage import RETRY_AFTER, RETRY_CODES
from unokit.server.oversight import NO_OVERSIGHT, Oversight
from unokit.server.room_clock import SYSTEM_CLOCK, RoomClock
from unokit.server.room_state import RoomState, Thinking
from unokit.server.seating import Connection, Grace, Held, RoomError, Seat, language
from unokit.server.settings import Settings
from unokit.server.views import SeatLegal, events_messages
from unokit.server.views import seatless_text as seatless_text
from unokit.server.views import table_facts as table_facts
from unokit.store import ChatData, Store
from unokit.store.erasure import default_name
from unokit.store.ratings import SeatRating

if TYPE_CHECKING:
    from collections import deque

T = TypeVar("T")

TRANSIENT = frozenset({"not_stored", "unavailable", "closing", "rate_limited"})
"""Error codes that say "nothing was kept, send it again": a room does not answer a
resent id with them."""


class StateField(Generic[T]):
    """A field of the room's :class:`RoomState`, read and written through the room.

    Once its class is made, the field puts in its place a property of the same meaning
    whose getter is :func:`operator.attrgetter` (no Python call per read: a room reads
    its state dozens of times per action)."""

    name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

        def write(room: RoomBase, value: T) -> None:
            room.state.__dict__[name] = value

        setattr(owner, name, property(operator.attrgetter(f"state.{name}"), write))

    @overload
    def __get__(self, room: None, owner: type) -> StateField[T]: ...
    @overload
    def __get__(self, room: RoomBase, owner: type) -> T: ...
    def __get__(self, room: RoomBase | None, owner: type) -> StateField[T] | T:
        if room is None:
            return self
        value: T = room.state.__dict__[self.name]
        return value

    def __set__(self, room: RoomBase, value: T) -> None:
        room.state.__dict__[self.name] = value


@functools.lru_cache(maxsize=1 << 16)
def action_text(action: int) -> str:
    """The text form of an action (an action's text never changes: worked out once)."""
    return format_action(action)


CACHED_TEXT = 24
"""The longest action text whose parse is kept (:func:`seat_action`): every action a
game has is shorter, and a client's longer texts cannot fill the cache with big keys."""


@functools.lru_cache(maxsize=1 << 14)
def _cached_action(seat: int, text: str) -> int:
    return parse_action(f"{seat}:{text}")


def seat_action(seat: int, text: str) -> int:
    """The action of ``seat`` whose text without the seat is ``text`` (``"R5"``,
    ``"draw"``), parsed once per seat and text (a text never changes its meaning).

    >>> format_action(seat_action(2, "W>R"))
    '2:W>R'

    Raises:
        ActionCodeError: not an action.
    """
    if len(text) > CACHED_TEXT:
        return parse_action(f"{seat}:{text}")
    return _cached_action(seat, text)


class RoomBase:
    """The room's fixed parts, its task's machinery and its state (see the module)."""

    # every field of RoomState, through the room
    seats: StateField[list[Seat]] = StateField()
    status: StateField[str] = StateField()
    turn_timer: StateField[int] = StateField()
    contributions: StateField[dict[int, str]] = StateField()
    seed: StateField[int | None] = StateField()
    game: StateField[Game | None] = StateField()
    driver: StateField[Driver | None] = StateField()
    bots: StateField[dict[int, Kept]] = StateField()
    play_marks: StateField[list[int]] = StateField()
    answers: StateField[Answers] = StateField()
    answers_next: StateField[int] = StateField()
    grace: StateField[Grace | None] = StateField()
    called_ahead: StateField[set[int]] = StateField()
    was_away: StateField[dict[int, bool]] = StateField()
    auto_start: StateField[bool] = StateField()
    bot_due: StateField[float | None] = StateField()
    timer_due: StateField[float | None] = StateField()
    timer_seat: StateField[int] = StateField()
    timer_key: StateField[tuple[int, int, str] | None] = StateField()
    timer_fresh: StateField[bool] = StateField()
    declined: StateField[tuple[int, frozenset[int]] | None] = StateField()
    pause_due: StateField[float | None] = StateField()
    thinking: StateField[Thinking | None] = StateField()
    last_commit: StateField[float] = StateField()
    finished_at: StateField[float | None] = StateField()
    ratings: StateField[dict[int, SeatRating]] = StateField()
    chat_lines: StateField[deque[ChatData]] = StateField()
    chat_next: StateField[int] = StateField()
    chat_at: StateField[int] = StateField()
    chat_window: StateField[float] = StateField()
    chat_times: StateField[dict[int, deque[float]]] = StateField()
    last_seen: StateField[float] = StateField()
    seen_stored: StateField[float] = StateField()
    attended: StateField[bool] = StateField()
    absent: StateField[dict[int, float]] = StateField()
    presence_due: StateField[float | None] = StateField()

    oversight: Oversight = NO_OVERSIGHT
    """The server's metrics, bans and word list (:meth:`Rooms.add` sets them)."""
    bot_pool: BotPool | None = None
    """Where the bots decide (:class:`unokit.server.rooms.Rooms` gives its pool; a room
    without one makes a :class:`~unokit.server.bot_pool.ThreadBotPool`)."""

    def __init__(self, *, room_id: int, code: str, rules: Rules, store: Store,
                 fanout: FanOut, settings: Settings, public: bool, server_seed: str,
                 commitment: str, state: RoomState,
                 clock: RoomClock = SYSTEM_CLOCK) -> None:
        self.id = room_id
        self.code = code
        self.rules = rules
        self._rules_shown = (rules.to_dict(), rules.to_string())
        """The rule set as the room message shows it (worked out once: rules never
        change)."""
        self.store = store
        self.fanout = fanout
        self.settings = settings
        self.public = public
        self.server_seed = server_seed
        self.commitment = commitment
        self.state = state
        """Everything about the room that changes (rebuilt whole on a failure)."""
        self.clock = clock
        """The room's wall and monotonic clocks (the rooms give theirs)."""
        self.conns: set[Connection] = set()
        self.waiters: dict[tuple[int, str], list[Connection]] = {}
        """Connections that resent an id whose action is held by a catch grace: they get
        its answer when it comes."""
        self.inbox = Inbox()
        self.task: asyncio.Task[None] | None = None
        self.closing = False
        self.unloaded = False
        """Set when the finished room let go of memory (``Room._unload_if_idle``)."""
        self.lost = False
        """Set when the room found that another process owns it now."""
        self.unasked_until = 0.0
        """Until when (the room clock's monotonic time) a lease that may have run out is
        not asked of the database again before a message: set when the database could
        not be asked (``Room._ours``)."""
        self.seat_legal = SeatLegal()
        """Each seat's legal actions, worked out once per position of the game."""
        self.on_unloaded: Callable[[Any], None] | None = None
        self.on_closed: Callable[[Any], None] | None = None
        """Told when the room closes (an idle lobby): its task has stopped."""
        self.on_lost: Callable[[Any], None] | None = None
        """Told when the room left because another process owns it now."""

    # ------------------------------------------------------------ steps of other parts
    async def _try(self, held: Held) -> bool:
        """Apply a held action and answer it (ack or error); whether it was applied
        (:class:`~unokit.server.room.Room`)."""
        raise NotImplementedError

    def _gone(self, conn: Connection) -> None:
        """A connection went (:class:`~unokit.server.room.Room`)."""
        raise NotImplementedError

    def _note_presence(self, connected: bool) -> None:
        """Note whether a seated person is connected
        (:class:`~unokit.server.presence.Presence`)."""
        raise NotImplementedError

    async def _close_idle(self) -> None:
        """Close the idle room (:class:`~unokit.server.lobby.Lobby`)."""
        raise NotImplementedError

    # ------------------------------------------------------------ the state
    def _tell_countdown(self) -> None:
        """Between rounds, tell everyone when the next round starts (overridden by
        :class:`~unokit.server.friends.Friends`)."""

    def _tell_timed_out(self, seat: int) -> None:
        """Tell ``seat`` a bot played its timed-out turn (overridden by
        :class:`~unokit.server.friends.Friends`)."""

    def _begin(self, seed: int) -> None:
        self.state.begin(self.rules, seed)

    def last_seq(self) -> int:
        """The sequence number of the last event (-1 before the match)."""
        return self.state.last_seq()

    # ------------------------------------------------------------ answers
    def _remember(self, seat: int, msg_id: str, data: bytes, *,
                  counted: bool = True) -> None:
        """Keep ``data`` as the answer to ``msg_id`` of ``seat``'s occupant for the
        match; ``counted``: it counts against the occupant's allowance (all but the
        acks of applied game actions)."""
        self.state.remember(seat, msg_id, data, counted=counted)

    def _known(self, conn: Connection, msg_id: str) -> bytes | None:
        """What ``msg_id`` was answered with: the seat occupant's ack, else this
        connection's refusal (``None``: it is new here)."""
        seat = conn.viewer
        if seat < 0:
            return None
        known = self.answers.get(seat, self.seats[seat].occupant, msg_id)
        return known if known is not None else refusals_of(conn).get(msg_id)

    def _spent(self, seat: int) -> RoomError | None:
        """The refusal of a new command or chat line of ``seat`` (``None``: taken)."""
        return self.answers.refusal(seat, self.seats[seat].occupant)

    def _answer(self, conn: Connection | None, seat: int, msg_id: str | None,
                data: bytes, *, counted: bool = True) -> None:
        if msg_id is not None and seat >= 0:
            self._remember(seat, msg_id, data, counted=counted)
            for waiter in self.waiters.pop((seat, msg_id), []):
                waiter.deliver(data)
        if conn is not None:
            conn.deliver(data)

    def _held(self, seat: int, msg_id: str) -> bool:
        """Whether the action of ``msg_id`` waits for the end of the catch grace."""
        grace = self.grace
        return grace is not None and any(
            h.seat == seat and h.msg_id == msg_id for h in (*grace.catches, *grace.waiting))

    def _error(self, conn: Connection | None, seat: int, msg_id: str | None, code: str,
               message: object) -> None:
        """Answer ``msg_id`` with an error; ``message`` (a marked message, an engine
        :class:`Reason` or a :class:`RoomError`) is said in the connection's language."""
        text = localize(language(conn), message)
        data = P.encode(P.Error(code=code, message=text, id=msg_id,
                                retry_after=RETRY_AFTER if code in RETRY_CODES else None))
        told = self.waiters.pop((seat, msg_id), []) if msg_id else []
        if conn is not None:
            told.append(conn)
        for waiter in told:
            # a refusal (but a transient one, after which the same id may come again
            # and apply) is kept by the connection that got it, not by the room
            if code not in TRANSIENT and msg_id is not None and seat >= 0:
                refusals_of(waiter).keep(msg_id, data)
            waiter.deliver(data)

    # ------------------------------------------------------------ views
    def info(self) -> P.RoomInfo:
        """The room as everyone sees it."""
        viewers = self.fanout.viewers(self.code)
        return P.RoomInfo(
            code=self.code, rules=self._rules_shown[0], rules_text=self._rules_shown[1],
            status=self.status, turn_timer=self.turn_timer, commitment=self.commitment,
            catch_grace_ms=round(self.settings.catch_grace * 1000),
            invite=f"{self.settings.base_url}/r/{self.code}",
            spectators=viewers.get(SPECTATORS, 0),
            seats=[P.SeatInfo(seat=i, kind=s.kind, name=s.name, bot=s.bot, host=s.host,
                              connected=viewers.get(i, 0) > 0, away=s.away,
                              contributed=i in self.contributions)
                   for i, s in enumerate(self.seats)])

    async def forget_player(self, player: int) -> None:
        """The player was deleted (the database forgot them already): the seats they
        hold here name nobody, under their default names, and their lines leave the
        chat that a hello sends (a client that showed a line keeps it); the room
        message goes out again if a seat changed. Run it in the room's task
        (:meth:`unokit.server.room.Room.call`)."""
        changed = False
        for index, seat in enumerate(self.seats):
            if seat.player == player:
                seat.player, seat.name = None, default_name(index)
                changed = True
        if any(line.player_id == player for line in self.chat_lines):
            kept = [line for line in self.chat_lines if line.player_id != player]
            self.chat_lines.clear()
            self.chat_lines.extend(kept)
        if changed:
            self._broadcast_room()

    def _broadcast_room(self) -> None:
        data = P.encode(P.RoomState(room=self.info()))
        self.fanout.publish(self.code, {v: data for v in self.fanout.viewers(self.code)})

    def _legal(self, viewer: int) -> tuple[list[str], bool]:
        """``viewer``'s legal actions and whether it leads, worked out once per position
        of the game (:class:`~unokit.server.views.SeatLegal`; the lists are shared:
        never change them)."""
        game, driver = self.game, self.driver
        if viewer < 0 or game is None or driver is None or self.status == "abandoned":
            return [], False
        return self.seat_legal.of(game, driver, viewer)

    def _events_message(self, events: list[Event], viewer: int) -> bytes:
        """The events as ``viewer`` sees them, with its legal actions."""
        game, driver = self.game, self.driver
        assert game is not None and driver is not None
        return events_messages(game, driver, events, (viewer,), self._legal)[viewer]

    def _broadcast_events(self, events: list[Event],
                          ack: tuple[Connection, P.Ack] | None = None) -> bool:
        """Send each viewer the events as it sees them, one encoding per view
        (:func:`~unokit.server.views.events_messages`: viewers that see the same share
        it). ``ack``: the connection that sent the action and its ack, which rides in
        that connection's events message when the connection asked for it
        (``ack_in_events``) and is its seat's only connection here, so that the message
        is its own; whether it did."""
        game, driver = self.game, self.driver
        assert game is not None and driver is not None
        viewers = self.fanout.viewers(self.code)
        mine, answer = None, None
        if ack is not None:
            conn, answer = ack
            if (getattr(conn, "ack_in_events", False) and conn in self.conns
                    and viewers.get(conn.viewer) == 1):
                mine = conn.viewer
        if self.status != "abandoned":
            self.seat_legal.warm(game, driver, viewers)
        self.fanout.publish(self.code, events_messages(
            game, driver, events, viewers, self._legal, ack_viewer=mine, ack=answer))
        return mine is not None

    def _reveal_message(self, viewer: int = SPECTATORS) -> bytes:
        """The reveal as ``viewer`` gets it: every seat's rating that moved, and the
        viewer's own seat's notice (never another seat's)."""
        own = self.ratings.get(viewer) if viewer >= 0 else None
        notice = (None if own is None or own.notice is None else
                  P.RatingNoticeMsg(own.notice.kind, list(own.notice.reasons)))
        return P.encode(P.Reveal(server_seed=self.server_seed, seed=str(self.seed),
                                 contributions={str(k): v for k, v in
                                                sorted(self.contributions.items())},
                                 ratings={str(seat): P.SeatRatingMsg(
                                     r.rating, r.change, r.provisional)
                                     for seat, r in sorted(self.ratings.items())
                                     if r.counted},
                                 notice=notice))

    def _reveal_messages(self) -> dict[int, bytes]:
        """The reveal for every viewer of the room (:meth:`_reveal_message`)."""
        return {v: self._reveal_message(v) for v in self.fanout.viewers(self.code)}
