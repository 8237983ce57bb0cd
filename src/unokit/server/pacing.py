"""The pace of :class:`unokit.server.room.Room`: its bots, its turn timer, the pause
between rounds and the end of a catch grace, each due at a time of the room's monotonic clock.

A room asks :meth:`Pacing._schedule` after every change what is due next, and its task
calls :meth:`Pacing._on_due` when that time comes. The catch grace ends first; the bots
move after ``bot_delay`` seconds; a person's turn timer runs ``turn_timer`` seconds
(scaled by ``timer_scale``), after which a bot plays for them (two in a row mark the
seat away); the next round starts ``round_pause`` seconds after a round ends.

Bots decide off the event loop (:mod:`unokit.server.bot_pool`): the room hands the
seats to ask, each with its own observation, to the pool and goes on with its
messages; the decision comes back through the inbox (an
:class:`~unokit.server.inbox.BotDecided`) and is applied if nothing has moved meanwhile
(else the bots are asked again). One decision at a time is under way per room; while it
is, no other bot move or timeout starts.
"""

from __future__ import annotations

import asyncio

from unokit.bots import make_bot
from unokit.bots.base import BotSpecError
from unokit.engine.actions import action_player, parse_action
from unokit.engine.errors import Reason
from unokit.engine.phases import ROUND_OVER
from unokit.i18n import N_
from unokit.server import protocol as P
from unokit.server.bot_pool import Ask, Decision, Kept, ThreadBotPool
from unokit.server.inbox import BotDecided
from unokit.server.room_base import RoomBase
from unokit.server.room_state import Thinking
from unokit.server.seating import BOT, EMPTY, HUMAN, Grace, Held

__all__ = ["Pacing", "Thinking"]


class Pacing(RoomBase):
    """The bots, the timers and the end of the catch grace of a room."""

    def _automatic(self) -> set[int]:
        return {i for i, s in enumerate(self.seats) if s.kind == BOT or s.away}

    def _bot(self, seat: int) -> Kept:
        bot = self.bots.get(seat)
        if bot is None:
            spot = self.seats[seat]
            seed = ((self.seed or 0) + 0x9E3779B97F4A7C15 * (seat + 1)) % 2**64
            try:
                bot = make_bot(spot.bot if spot.kind == BOT else "normal", seed,
                               rules=self.rules)
            except BotSpecError:  # a spec this server no longer plays
                bot = make_bot("normal", seed, rules=self.rules)
            self.bots[seat] = bot
        return bot

    def _schedule(self) -> None:
        """Work out what is due next: the grace's end, a bot's move, the turn timer, the
        end of the pause between rounds."""
        game, driver = self.game, self.driver
        self.bot_due = None
        if self.status != "playing" or game is None or driver is None or self.closing:
            self.timer_due = self.pause_due = None
            return
        now = self.clock.monotonic()
        if self.grace is not None:
            return
        if game.phase is ROUND_OVER:
            self.timer_due = None
            if any(s.kind == EMPTY for s in self.seats):
                self.pause_due = None
            elif self.pause_due is None:
                self.pause_due = now + self.settings.round_pause
            if all(s.kind == BOT or s.away for s in self.seats):
                self.bot_due = now + self.settings.bot_delay
            self._tell_countdown()
            return
        self.pause_due = None
        auto = self._automatic()
        # bots asked in this position that all declined are asked again only after the
        # next action, a change of the automatic seats, or when one leads: otherwise the
        # room would ask them at once, forever
        if (auto and driver.asks_any(auto)
                and (driver.lead() in auto
                     or self.declined != (len(game.history), frozenset(auto)))):
            self.bot_due = now + self.settings.bot_delay
        lead = driver.lead()
        if lead in auto or not self.turn_timer:
            self.timer_due, self.timer_seat, self.timer_key = None, -1, None
            return
        key = (lead, len(game.history) if self._lead_acted() else -1, str(game.phase))
        if key != self.timer_key:
            self.timer_key = key
            self.timer_seat = lead
            elapsed = 0.0 if self.timer_due is not None or self.timer_fresh else max(
                0.0, self.clock.wall() - self.last_commit)
            self.timer_fresh = True
            left = max(1.0, self.turn_timer - elapsed) * self.settings.timer_scale
            self.timer_due = now + left
            data = self._timer_message()
            self.fanout.publish(self.code, {v: data for v in self.fanout.viewers(self.code)})

    def _lead_acted(self) -> bool:
        game = self.game
        assert game is not None and self.driver is not None
        return bool(game.history) and action_player(game.history[-1]) == self.driver.lead()

    def _timer_message(self) -> bytes:
        left = 0 if self.timer_due is None else max(
            0, round((self.timer_due - self.clock.monotonic()) * 1000))
        return P.encode(P.Timer(seat=self.timer_seat, ms=left))

    def _next_due(self) -> float | None:
        if self.grace is not None:  # nothing else is decided during a grace
            return self.grace.until
        # while a bot thinks, neither another bot move nor a timeout starts
        moves = (self.bot_due, self.timer_due) if self.thinking is None else ()
        dues = [d for d in (*moves, self.pause_due) if d is not None]
        return min(dues) if dues else None

    async def _on_due(self) -> None:
        now = self.clock.monotonic()
        if self.grace is not None:
            if now >= self.grace.until:
                await self._end_grace()
            return
        free = self.thinking is None
        if free and self.bot_due is not None and now >= self.bot_due:
            self.bot_due = None
            self._bot_move()
        elif free and self.timer_due is not None and now >= self.timer_due:
            self.timer_due, self.timer_key = None, None
            self._timeout()
        elif self.pause_due is not None and now >= self.pause_due:
            self.pause_due = None
            game = self.game
            if game is not None and game.phase is ROUND_OVER and self.driver is not None:
                lead = self.driver.lead()
                await self._try(Held(None, None, lead, parse_action(f"{lead}:next"),
                                     "pause"))

    async def _end_grace(self) -> None:
        grace = self.grace
        assert grace is not None and self.game is not None
        self.grace = None
        n = len(self.seats)
        catches = sorted(grace.catches, key=lambda h: (h.seat - grace.target) % n)
        winner = -1
        for held in catches:
            if winner >= 0:
                self._error(held.conn, held.seat, held.msg_id, "caught",
                            Reason("seat {target} was caught by seat {winner}, the "
                                   "nearest after them", target=grace.target,
                                   winner=winner))
            elif self.game.uno_open == grace.target:
                if await self._try(held):
                    winner = held.seat
            else:
                self._error(held.conn, held.seat, held.msg_id, "too_late",
                            Reason("seat {target} called UNO within the grace period",
                                   target=grace.target)
                            if self.game.uno_open < 0 else N_("no catch is possible now"))
        waiting = grace.waiting
        while waiting:
            held = waiting.pop(0)
            again = self._grace_now()
            if again is not None:  # a new grace began: the rest wait for it too
                again.waiting[:0] = [held, *waiting]
                return
            await self._try(held)

    def _grace_now(self) -> Grace | None:
        """The catch grace under way, if any."""
        return self.grace

    def _position(self) -> tuple[object, int, frozenset[int]]:
        return (self.game, -1 if self.game is None else len(self.game.history),
                frozenset(self._automatic()))

    def _bot_move(self) -> None:
        """Ask the automatic seats, in the driver's order, through the pool."""
        game, driver = self.game, self.driver
        assert game is not None and driver is not None
        auto = self._automatic()
        all_auto = all(s.kind == BOT or s.away for s in self.seats)
        asks: list[Ask] = []

        def collect(seat: int, legal: list[int], must: bool) -> int | None:
            if seat in auto and legal and (game.phase is not ROUND_OVER or all_auto):
                asks.append(Ask(seat, game.observation(seat), tuple(legal), must))
            return None

        driver.ask(collect)
        if not asks:  # a person leads and no bot may act: ask again once things change
            self.declined = (len(game.history), frozenset(auto))
            return
        self._think(asks, "bot")

    def _timeout(self) -> None:
        """A person's turn timer ran out: a bot plays their turn."""
        game, driver = self.game, self.driver
        assert game is not None and driver is not None
        seat = self.timer_seat
        if seat < 0 or seat != driver.lead() or self.seats[seat].kind != HUMAN:
            return
        legal = game.legal_actions(seat)
        if legal:
            self._think([Ask(seat, game.observation(seat), tuple(legal), True)], "timeout")

    def _think(self, asks: list[Ask], origin: str) -> None:
        """Start a decision of the seats ``asks`` names; it comes back through the
        inbox."""
        game = self.game
        assert game is not None
        if self.bot_pool is None:
            self.bot_pool = ThreadBotPool(self.settings.bot_budget)
        pool = self.bot_pool
        bots = {ask.seat: self._bot(ask.seat) for ask in asks}
        seed = ((self.seed or 0) + len(game.history)) % 2**64
        thinking = Thinking(self._position(), origin, bots, self.clock.monotonic())

        async def decide() -> None:
            decision = await pool.decide(bots, asks, seed)
            self.inbox.put_nowait(BotDecided(thinking, decision))

        self.thinking = thinking
        thinking.task = asyncio.create_task(decide(), name=f"bots-{self.code}")

    def _stop_thinking(self) -> None:
        """Forget the decision under way (the room stops, or was rebuilt)."""
        thinking, self.thinking = self.thinking, None
        if thinking is not None and thinking.task is not None:
            thinking.task.cancel()

    async def _decided(self, thinking: Thinking, decision: Decision) -> None:
        """A decision came back: keep what the bots learnt, and apply it if the room is
        still where it was when they were asked."""
        if thinking is not self.thinking:
            return  # asked before the room was rebuilt
        self.thinking = None
        self.oversight.metrics.bot_decision.observe(self.clock.monotonic() - thinking.asked_at)
        for place, asked in thinking.bots.items():
            if self.bots.get(place) is not asked:
                continue  # the seat changed hands meanwhile
            if decision.bots is None:
                del self.bots[place]  # still busy in a thread: a new one takes over
            elif place in decision.bots:
                self.bots[place] = decision.bots[place]
        game, driver = self.game, self.driver
        if (self.status != "playing" or self.closing or game is None or driver is None
                or thinking.position != self._position() or self.grace is not None):
            return  # something moved: _schedule asks again if a bot is still due
        seat, action = decision.seat, decision.action
        if seat is None or action is None:
            # every bot let its window pass and a person leads: ask them again only
            # once something has changed
            self.declined = (len(game.history), thinking.position[2])
            return
        if thinking.origin == "timeout":
            if seat != driver.lead() or self.seats[seat].kind != HUMAN:
                return
            if await self._try(Held(None, None, seat, action, "timeout")):
                self._tell_timed_out(seat)
            if self.seats[seat].away:
                self._broadcast_room()
            return
        origin = "bot" if self.seats[seat].kind == BOT else "away"
        await self._try(Held(None, None, seat, action, origin))
