"""The host's commands and the seats: joining, leaving, bots, kicks, the timer, the
contributions to the deal and the start of the match. Seats change only before the
match or between rounds, never during a round.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from unokit.bots import make_bot
from unokit.bots.base import Bot
from unokit.engine.errors import UnoError
from unokit.engine.events import Event
from unokit.engine.game import Game
from unokit.engine.phases import ROUND_OVER
from unokit.engine.rules import Rules
from unokit.formats import fairdeal
from unokit.i18n import N_, localize
from unokit.server import protocol as P
from unokit.server.seating import (
    BOT,
    EMPTY,
    HUMAN,
    Connection,
    RoomError,
    Seat,
    check_name,
    language,
    token_hash,
)
from unokit.server.settings import TURN_TIMERS
from unokit.store import Store


class Lobby:
    """The seat and host commands of :class:`unokit.server.room.Room`."""

    if TYPE_CHECKING:
        id: int
        rules: Rules
        store: Store
        seats: list[Seat]
        status: str
        game: Game | None
        bots: dict[int, Bot]
        conns: set[Connection]
        contributions: dict[int, str]
        server_seed: str
        turn_timer: int

        def _gone(self, conn: Connection) -> None: ...
        def _broadcast_room(self) -> None: ...
        def _broadcast_events(self, events: list[Event]) -> None: ...
        def _begin(self, seed: int) -> None: ...



    async def _join(self, hello: P.Hello) -> tuple[int, str]:
        between = self.game is not None and self.game.phase is ROUND_OVER
        if self.status != "lobby" and not between:
            raise RoomError("room_full", N_("the match is under way: watch it with spectate"))
        free = [i for i, s in enumerate(self.seats) if s.kind == EMPTY]
        if hello.seat is not None:
            if hello.seat not in free:
                raise RoomError("room_full", N_("seat {seat} is not free"), seat=hello.seat)
            seat = hello.seat
        elif free:
            seat = free[0]
        else:
            raise RoomError("room_full", N_("every seat is taken: watch with spectate"))
        name = check_name(hello.name, seat)
        token = secrets.token_urlsafe(18)
        new = Seat(kind=HUMAN, name=name, token_hash=token_hash(token),
                   host=not any(s.host for s in self.seats))
        await self.store.set_seat(self.id, new.data(seat))
        self.seats[seat] = new
        return seat, token

    def _between_rounds(self) -> bool:
        return self.status == "lobby" or (
            self.status == "playing" and self.game is not None
            and self.game.phase is ROUND_OVER)

    def _host(self, seat: int) -> None:
        if not self.seats[seat].host:
            raise RoomError("not_host", N_("only the host may do that"))
        if not self._between_rounds():
            raise RoomError("mid_round", N_("only before the match or between rounds"))

    async def _host_command(self, seat: int, message: P.ClientMessage) -> None:
        self._host(seat)
        if isinstance(message, P.Start):
            await self._start_match()
        elif isinstance(message, P.AddBot):
            await self.add_bot(message.bot, message.seat)
        elif isinstance(message, P.RemoveBot):
            target = self._seat(message.seat)
            if self.seats[target].kind != BOT:
                raise RoomError("bad_request", N_("seat {seat} has no bot"), seat=target)
            await self._set_seat(target, Seat())
        elif isinstance(message, P.Kick):
            target = self._seat(message.seat)
            if self.seats[target].kind != HUMAN or target == seat:
                raise RoomError("bad_request", N_("seat {seat} has no other player"),
                                seat=target)
            await self._set_seat(target, Seat())
            for conn in [c for c in self.conns if c.viewer == target]:
                self._gone(conn)
                conn.close(P.encode(P.Bye(reason=localize(language(conn), N_(
                    "the host sent you away")), reconnect=False)))
        elif isinstance(message, P.SetTimer):
            if message.seconds not in TURN_TIMERS:
                raise RoomError("bad_request", N_("the turn timer is 0 (off), 15, 30 or 60 "
                                                   "seconds"))
            self.turn_timer = message.seconds
            await self.store.set_timer(self.id, message.seconds)
        self._broadcast_room()

    def _seat(self, seat: int) -> int:
        if not 0 <= seat < len(self.seats):
            raise RoomError("bad_request", N_("no seat {seat}: seats 0..{last}"), seat=seat,
                            last=len(self.seats) - 1)
        return seat

    async def _set_seat(self, seat: int, spot: Seat) -> None:
        await self.store.set_seat(self.id, spot.data(seat))
        self.seats[seat] = spot
        self.bots.pop(seat, None)

    async def add_bot(self, spec: str, seat: int | None = None) -> int:
        """Seat a bot in ``seat`` (or the first empty one); the seat."""
        free = [i for i, s in enumerate(self.seats) if s.kind == EMPTY]
        if seat is None:
            if not free:
                raise RoomError("room_full", N_("no seat is empty"))
            seat = free[0]
        elif self._seat(seat) not in free:
            raise RoomError("bad_request", N_("seat {seat} is not empty"), seat=seat)
        try:
            make_bot(spec, rules=self.rules)
        except UnoError as exc:
            raise RoomError("bad_request", str(exc)[:200]) from None
        await self._set_seat(seat, Seat(kind=BOT, name=f"{spec} bot", bot=spec))
        return seat

    async def _contribute(self, seat: int, value: str) -> None:
        if self.status != "lobby":
            raise RoomError("mid_round", N_("contributions are taken before the match starts"))
        if seat in self.contributions:
            raise RoomError("bad_request", N_("this seat has already contributed"))
        try:
            fairdeal.check_value(value)
        except UnoError as exc:
            raise RoomError("bad_request", str(exc)[:200]) from None
        await self.store.add_contribution(self.id, seat, value)
        self.contributions[seat] = value
        self._broadcast_room()

    async def _leave(self, conn: Connection, seat: int) -> None:
        if self.status == "lobby":
            host = self.seats[seat].host
            await self._set_seat(seat, Seat())
            if host:
                others = [i for i, s in enumerate(self.seats) if s.kind == HUMAN]
                if others:
                    spot = self.seats[others[0]]
                    spot.host = True
                    await self.store.set_seat(self.id, spot.data(others[0]))
        else:
            spot = self.seats[seat]
            spot.away, spot.token_hash = True, ""
            await self.store.set_seat(self.id, spot.data(seat))
        self._gone(conn)
        conn.close(P.encode(P.Bye(reason=localize(language(conn), N_("you left the room")),
                                  reconnect=False)))

    async def _start_match(self) -> None:
        if self.status != "lobby":
            raise RoomError("bad_request", N_("the match has already started"))
        empty = [i for i, s in enumerate(self.seats) if s.kind == EMPTY]
        if empty:
            raise RoomError("bad_request", N_("seat {seat} is empty: seat a bot or wait "
                                                "for a player"), seat=empty[0])
        seed = fairdeal.derive_seed(bytes.fromhex(self.server_seed), self.contributions)
        await self.store.start_match(self.id, seed)
        self._begin(seed)
        assert self.game is not None
        self._broadcast_room()
        self._broadcast_events(list(self.game.log))
