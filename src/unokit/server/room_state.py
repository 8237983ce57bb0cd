"""Everything about a room that changes: :class:`RoomState`, as the engine's game is one
:class:`~unokit.engine.state.GameState`.

A room's state is made in one of two places: :meth:`RoomState.new` for a room just
created, :meth:`RoomState.restore` for a room brought back from the database (its match
replayed from the stored actions). When a room fails on a message it rebuilds its state
with :meth:`RoomState.restore` and swaps it in whole; :meth:`RoomState.carry_over` names
the few things only memory knew (the clocks under way, the answers and rate counts of
the moment) that the rebuilt state takes from the old one. A field added here is thus
rebuilt from the database unless it is named there.

>>> state = RoomState.new([Seat(), Seat()], turn_timer=30, now=100.0)
>>> state.status, state.game is None, state.last_commit, state.answers_next
('lobby', True, 100.0, 0)
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from dataclasses import dataclass, field

from unokit.engine.actions import parse_action
from unokit.engine.driver import Driver
from unokit.engine.errors import UnoError
from unokit.engine.game import Game
from unokit.engine.phases import MATCH_OVER
from unokit.engine.rules import Rules
from unokit.server import protocol as P
from unokit.server.answers import Answers
from unokit.server.bot_pool import Kept
from unokit.server.bot_specs import clamp_bot_spec
from unokit.server.seating import BOT, Grace, Seat
from unokit.server.settings import Settings
from unokit.store import RECENT_CHAT, ChatData, StoredRoom
from unokit.store.farming import play_mark
from unokit.store.ratings import SeatRating

CHAT_WINDOW = 10.0
"""Seconds over which a seat's chat lines are counted against its cap."""

ENDED = ("finished", "abandoned")
"""The statuses of a match that is over: its reveal and its record are shown."""


@dataclass(eq=False)
class Thinking:
    """A bot decision under way in a room."""

    position: tuple[object, int, frozenset[int]]
    """(game, actions, automatic seats) when the bots were asked: the decision is applied
    only if they are the same when it comes."""
    origin: str
    """``bot`` (the bots' own move) or ``timeout`` (a person's turn timer ran out)."""
    bots: dict[int, Kept]
    """The bots asked, as the room held them."""
    asked_at: float
    """When the bots were asked (the room's monotonic clock): the metric of decision
    time."""
    task: asyncio.Task[None] | None = None


@dataclass(eq=False)
class RoomState:
    """Every piece of a room's state that changes while it runs (what never changes,
    its code, rules and server seed, stays on the room). Times named ``*_due``,
    ``finished_at``, ``absent`` and ``chat_times`` are of the room's monotonic clock;
    ``last_commit``, ``last_seen`` and ``seen_stored`` of its wall clock."""

    seats: list[Seat]
    status: str
    turn_timer: int
    contributions: dict[int, str] = field(default_factory=dict)
    seed: int | None = None
    game: Game | None = None
    driver: Driver | None = None
    bots: dict[int, Kept] = field(default_factory=dict)
    """The seats' bots as made (they keep what they learn during the match)."""
    play_marks: list[int] = field(default_factory=list)
    """Each applied action's play mark (:func:`unokit.store.farming.play_mark`), stored
    with the match's end for the anti-farming checks."""
    answers: Answers = field(default_factory=Answers)
    """The acks owed to each seat's occupant, for the match (refusals are kept by each
    connection: :func:`unokit.server.answers.refusals_of`)."""
    answers_next: int = 0
    """The number of the room's next stored command answer."""
    grace: Grace | None = None
    called_ahead: set[int] = field(default_factory=set)
    """Seats that called UNO while holding two cards, before their play."""
    was_away: dict[int, bool] = field(default_factory=dict)
    """Seats marked away whose player acted again (the room message tells it)."""
    auto_start: bool = False
    """Start the match as soon as every seat is taken ("play now")."""
    # the pace (:mod:`unokit.server.pacing`)
    bot_due: float | None = None
    timer_due: float | None = None
    timer_seat: int = -1
    timer_key: tuple[int, int, str] | None = None
    """(lead, actions, phase) of the turn the timer runs for."""
    timer_fresh: bool = False
    """Whether a turn timer was started by this process (the first one after a restart
    counts the time since the last commit)."""
    declined: tuple[int, frozenset[int]] | None = None
    """(actions, automatic seats) when the bots last all let their windows pass."""
    pause_due: float | None = None
    thinking: Thinking | None = None
    """The bot decision under way, if any."""
    last_commit: float = 0.0
    finished_at: float | None = None
    """When the match ended here, or when the room came back finished after a restart."""
    ratings: dict[int, SeatRating] = field(default_factory=dict)
    """The rated seats' new ratings and notices, once the match ended (sent with the
    reveal; a room that comes back finished has them from the database)."""
    # the chat (:mod:`unokit.server.chat`)
    chat_lines: deque[ChatData] = field(
        default_factory=lambda: deque(maxlen=RECENT_CHAT))
    """The room's last lines, oldest first."""
    chat_next: int = 0
    """The number of the next line."""
    chat_at: int = 0
    """The time of the last line (ms): each line's is later, so that it names the line."""
    chat_window: float = CHAT_WINDOW
    chat_times: dict[int, deque[float]] = field(default_factory=dict)
    """When each seat's lines of the last :attr:`chat_window` seconds came."""
    # presence (:mod:`unokit.server.presence`, :mod:`unokit.server.lobby`)
    last_seen: float = 0.0
    """When a seated person was last known connected."""
    seen_stored: float = 0.0
    """The ``last_seen`` the database holds."""
    attended: bool = False
    """Whether a seated person is connected now."""
    absent: dict[int, float] = field(default_factory=dict)
    """Person seats no connection holds in the lobby, and since when."""
    presence_due: float | None = None
    """When (the room's monotonic clock) the room message for spectators who came or
    went is due; ``None``: none is waiting."""

    @classmethod
    def new(cls, seats: list[Seat], *, turn_timer: int, now: float) -> RoomState:
        """The state of a room just made, in the lobby (``now``: the wall clock)."""
        return cls(seats=seats, status="lobby", turn_timer=turn_timer, last_commit=now)

    @classmethod
    def restore(cls, stored: StoredRoom, rules: Rules, *, settings: Settings,
                now: float, monotonic: float) -> RoomState:
        """The room's state as it was: seats, contributions, the match replayed from its
        stored actions (timeouts and away seats counted again from their origins), the
        answers owed to its seats' current occupants (for their actions, commands and
        chat lines), the chat and the presence clock. ``now`` and ``monotonic``: the
        room's clocks.

        Raises:
            UnoError: the stored actions do not replay (the room cannot come back).
        """
        cap = settings.bot_max_iterations  # a stored search:N above the cap is lowered
        seats = [Seat(kind=s.kind, name=s.name, token_hash=s.token_hash, host=s.host,
                      occupant=s.occupant, player=s.player_id,
                      bot=clamp_bot_spec(s.bot, max_iterations=cap) if s.kind == BOT
                      else s.bot) for s in stored.seats]
        state = cls(seats=seats, status=stored.status, turn_timer=stored.turn_timer,
                    contributions=dict(stored.contributions), last_commit=now)
        if stored.seed is not None:
            game, driver = state.begin(rules, stored.seed)
            for row in stored.actions:
                if row.n != len(game.history):
                    raise UnoError(f"room {stored.code}: action {row.n} out of order")
                action = parse_action(row.action)
                state.play_marks.append(play_mark(game, action, row.origin))
                driver.apply(action)
                if game.log[-1].seq != row.seq:
                    raise UnoError(f"room {stored.code}: action {row.n} replays to event "
                                   f"{game.log[-1].seq}, stored {row.seq}")
                state.count_origin(row.seat, row.origin)
                if row.client_id is not None and row.occupant == seats[row.seat].occupant:
                    state.remember(row.seat, row.client_id,
                                   P.encode(P.Ack(id=row.client_id, seq=row.seq)),
                                   counted=False)
            if stored.actions:
                state.last_commit = stored.actions[-1].at
            if game.phase is MATCH_OVER:
                state.status = "finished"
                state.ratings = dict(stored.ratings)
            elif stored.status == "abandoned":
                state.status = "abandoned"
        for answer in stored.answers:  # the host's and the lobby's commands
            state.remember(answer.seat, answer.client_id, answer.answer.encode())
        state.answers_next = stored.next_answer
        state.chat_lines.extend(stored.chat)
        if state.chat_lines:
            state.chat_next, state.chat_at = state.chat_lines[-1].n + 1, state.chat_lines[-1].at
        for line in stored.chat_answers:  # their acks again if their ids come again
            if line.client_id is not None:
                state.remember(line.seat, line.client_id,
                               P.encode(P.Ack(id=line.client_id, seq=line.seq)))
        state.last_seen = state.seen_stored = stored.last_seen
        if state.status in ENDED:
            state.finished_at = monotonic
        return state

    @staticmethod
    def rules_of(stored: StoredRoom) -> Rules:
        """The rule set a stored room plays by."""
        return Rules.from_dict(json.loads(stored.rules))

    def carry_over(self, old: RoomState) -> None:
        """Take from ``old`` (the state of the same room before it failed) what only
        memory knew: the answers given since (and the allowances they count against),
        the number of the next stored answer, the clocks under way (timers, presence,
        the chat's rate counts) and the "play now" flag. Everything else is as the
        database has it: the match, seats and chat, with no catch grace, no call ahead
        and no bot decision under way."""
        old.answers.update(self.answers)
        self.answers = old.answers
        self.answers_next = old.answers_next
        self.was_away, self.auto_start = old.was_away, old.auto_start
        self.turn_timer, self.last_commit = old.turn_timer, old.last_commit
        self.bot_due, self.timer_due, self.pause_due = old.bot_due, old.timer_due, old.pause_due
        self.timer_seat, self.timer_key = old.timer_seat, old.timer_key
        self.timer_fresh, self.declined = old.timer_fresh, old.declined
        self.finished_at = old.finished_at if old.finished_at is not None else self.finished_at
        self.chat_window, self.chat_times = old.chat_window, old.chat_times
        self.last_seen, self.seen_stored = old.last_seen, old.seen_stored
        self.attended, self.absent = old.attended, old.absent
        self.presence_due = old.presence_due

    def begin(self, rules: Rules, seed: int) -> tuple[Game, Driver]:
        """Deal the match of ``seed``: the room is playing."""
        self.seed = seed
        self.game = Game(rules, seed)
        self.driver = Driver(self.game)
        self.play_marks = []
        self.status = "playing"
        return self.game, self.driver

    def remember(self, seat: int, msg_id: str, data: bytes, *, counted: bool = True) -> None:
        """Keep ``data`` as the answer to ``msg_id`` of ``seat``'s occupant for the
        match; ``counted``: it counts against the occupant's allowance (all but the
        acks of applied game actions)."""
        self.answers.keep(seat, self.seats[seat].occupant, msg_id, data, counted=counted)

    def count_origin(self, seat: int, origin: str) -> None:
        """Count an applied action of ``seat`` by who made it: a player's own action
        clears the seat's timeouts and its away mark, a second timeout in a row marks
        it away."""
        spot = self.seats[seat]
        if origin == "player":
            if spot.away:
                self.was_away[seat] = True
            spot.timeouts, spot.away = 0, False
        elif origin == "timeout":
            spot.timeouts += 1
            if spot.timeouts >= 2:
                spot.away = True

    def last_seq(self) -> int:
        """The sequence number of the last event (-1 before the match)."""
        return self.game.log[-1].seq if self.game is not None and self.game.log else -1
