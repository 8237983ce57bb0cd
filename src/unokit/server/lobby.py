"""The host's commands and the seats: joining, leaving, bots, kicks, the timer, the
contributions to the deal and the start of the match. Seats change only before the
match or between rounds, never during a round.

Each command's answer is committed with the command's own change, in one transaction
(:meth:`Lobby._reply`; the command returns it to the room, which sends it), so that
the id sent again after a restart gets the same answer and changes nothing. A refusal
is not stored: it changed nothing, so the id sent again after a restart is simply judged
again, against the room as it is then (as a refused game action is), and a flood of
refused commands costs the database nothing. In memory the room keeps refusals too, and
answers a resent id with them until it restarts.

The seats' clock (:meth:`Lobby._sweep`): in the lobby, a person's seat that no
connection has held for ``seat_timeout`` seconds is freed (a join cut off before its
welcome reached the client leaves a seat whose token nobody holds); this clock starts
when the room is made or brought back after a restart. The room's own clock (closed
after ``lobby_timeout`` seconds without a seated person connected) is stored, and a
restart does not reset it (:mod:`unokit.server.presence`). When the host's seat is
freed, or the host leaves, the next seated person (in seat order after the host) is host.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, replace

from unokit.bots import make_bot
from unokit.engine.errors import UnoError
from unokit.engine.phases import ROUND_OVER
from unokit.formats import fairdeal
from unokit.i18n import N_, localize
from unokit.server import protocol as P
from unokit.server.bot_specs import check_bot_spec
from unokit.server.room_base import RoomBase
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
from unokit.store import AnswerData, StoreError

LOG = logging.getLogger("unokit.room")


@dataclass(frozen=True)
class Command:
    """The seat and client id of a command being handled: its answer is stored with the
    change it makes (:meth:`Lobby._reply`), and returned to the room, which sends it."""

    seat: int
    msg_id: str


class Lobby(RoomBase):
    """The seat and host commands of :class:`unokit.server.room.Room`. Each command
    that makes a change returns the answer it stored with it (``None`` for a change no
    client id asked for)."""

    def _reply(self, command: Command | None) -> AnswerData | None:
        """The answer to ``command`` (its ack, with the room's last event number), to
        be committed with the command's own change; ``None`` for a change no client id
        asked for (bots seated as the room is made, the start of "play now", a seat
        freed after its holder stayed away). Each command makes one."""
        if command is None:
            return None
        data = P.encode(P.Ack(id=command.msg_id, seq=self.last_seq()))
        n = self.answers_next
        self.answers_next += 1
        return AnswerData(n, command.seat, command.msg_id, data.decode(), self.clock.wall(),
                          self.seats[command.seat].occupant)

    async def _join(self, hello: P.Hello, player: int | None = None) -> tuple[int, str]:
        """Seat a person who said hello without a token (``player``: theirs, when they
        came with a session or an API token); their seat and its new token."""
        if player is not None:
            held = [i for i, s in enumerate(self.seats) if s.kind == HUMAN
                    and s.player == player and s.token_hash]
            if held:
                raise RoomError("room_full", N_("you sit in seat {seat} of this room "
                                                "already: come back with its token"),
                                seat=held[0])
            left = [i for i, s in enumerate(self.seats) if s.kind == HUMAN
                    and s.player == player and not s.token_hash]
            if left and self.status == "playing":
                return await self._take_back(left[0], hello.new_token)
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
        self.oversight.check_name(name)
        token = hello.new_token or secrets.token_urlsafe(18)
        new = Seat(kind=HUMAN, name=name, token_hash=token_hash(token),
                   host=not any(s.host for s in self.seats),
                   occupant=self.seats[seat].occupant + 1, player=player)
        await self.store.set_seat(self.id, new.data(seat))
        self.seats[seat] = new
        self.answers.taken(seat, new.occupant)
        return seat, token

    async def _take_back(self, seat: int, new_token: str = "") -> tuple[int, str]:
        """The player who left ``seat`` mid-match comes back to it (a bot played it
        meanwhile, and goes on until the player acts): a new token (``new_token`` when
        the client made it), a new occupant, and their match counts again
        (docs/accounts.md)."""
        token = new_token or secrets.token_urlsafe(18)
        spot = self.seats[seat]
        new = replace(spot, token_hash=token_hash(token), occupant=spot.occupant + 1,
                      host=False)
        await self.store.set_seat(self.id, new.data(seat))
        self.seats[seat] = new
        self.answers.taken(seat, new.occupant)
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

    async def _host_command(self, seat: int, message: P.ClientMessage,
                            command: Command | None) -> AnswerData | None:
        self._host(seat)
        answer = None
        if isinstance(message, P.Start):
            answer = await self._start_match(command)
        elif isinstance(message, P.AddBot):
            answer = (await self._seat_bot(message.bot, message.seat, command))[1]
        elif isinstance(message, P.RemoveBot):
            target = self._seat(message.seat)
            if self.seats[target].kind != BOT:
                raise RoomError("bad_request", N_("seat {seat} has no bot"), seat=target)
            answer = await self._set_seats({target: Seat()}, command)
        elif isinstance(message, P.Kick):
            target = self._seat(message.seat)
            if self.seats[target].kind != HUMAN or target == seat:
                raise RoomError("bad_request", N_("seat {seat} has no other player"),
                                seat=target)
            answer = await self._set_seats({target: Seat()}, command)
            for conn in [c for c in self.conns if c.viewer == target]:
                self._gone(conn)
                conn.close(P.encode(P.Bye(reason=localize(language(conn), N_(
                    "the host sent you away")), reconnect=False, code="kicked")))
        elif isinstance(message, P.SetTimer):
            if message.seconds not in TURN_TIMERS:
                raise RoomError("bad_request", N_("the turn timer is 0 (off), 15, 30 or 60 "
                                                   "seconds"))
            answer = self._reply(command)
            await self.store.set_timer(self.id, message.seconds, answer=answer)
            self.turn_timer = message.seconds
        self._broadcast_room()
        return answer

    def _seat(self, seat: int) -> int:
        if not 0 <= seat < len(self.seats):
            raise RoomError("bad_request", N_("no seat {seat}: seats 0..{last}"), seat=seat,
                            last=len(self.seats) - 1)
        return seat

    async def _set_seats(self, spots: dict[int, Seat],
                         command: Command | None = None) -> AnswerData | None:
        """Store, then take, what sits in some seats, with the answer to the command
        being handled, in one transaction. A seat emptied before the match loses its
        holder's contribution, so that whoever sits there next may give their own. A
        seat's occupant number never goes down (an emptied seat keeps its last one); a
        higher one forgets the earlier occupant's answers. The answer stored."""
        spots = {seat: spot if spot.occupant >= self.seats[seat].occupant
                 else replace(spot, occupant=self.seats[seat].occupant)
                 for seat, spot in spots.items()}
        dropped = tuple(seat for seat, spot in spots.items() if self.status == "lobby"
                        and spot.kind == EMPTY and seat in self.contributions)
        answer = self._reply(command)
        await self.store.set_seats(self.id, [spot.data(i) for i, spot in spots.items()],
                                   answer=answer, drop_contributions=dropped)
        for seat in dropped:
            del self.contributions[seat]
        for seat, spot in spots.items():
            old, self.seats[seat] = self.seats[seat], spot
            if (old.kind, old.bot) != (spot.kind, spot.bot):
                self.bots.pop(seat, None)
            self.answers.taken(seat, spot.occupant)
        return answer

    def _heir(self, host: int, leaving: set[int]) -> dict[int, Seat]:
        """The seats that change when the host's seat ``host`` loses its holder (with
        the seats ``leaving``): the next seated person after it in seat order, who holds
        a token, becomes host (none: the next person to join will be)."""
        n = len(self.seats)
        for step in range(1, n):
            seat = (host + step) % n
            spot = self.seats[seat]
            if seat not in leaving and spot.kind == HUMAN and spot.token_hash:
                return {seat: replace(spot, host=True)}
        return {}

    async def add_bot(self, spec: str, seat: int | None = None) -> int:
        """Seat a bot in ``seat`` (or the first empty one); the seat."""
        return (await self._seat_bot(spec, seat, None))[0]

    async def _seat_bot(self, spec: str, seat: int | None,
                        command: Command | None) -> tuple[int, AnswerData | None]:
        """Seat a bot (:meth:`add_bot`) for ``command``: the seat and the answer."""
        free = [i for i, s in enumerate(self.seats) if s.kind == EMPTY]
        if seat is None:
            if not free:
                raise RoomError("room_full", N_("no seat is empty"))
            seat = free[0]
        elif self._seat(seat) not in free:
            raise RoomError("bad_request", N_("seat {seat} is not empty"), seat=seat)
        spec = check_bot_spec(spec, max_iterations=self.settings.bot_max_iterations)
        try:
            make_bot(spec, rules=self.rules)
        except (UnoError, ValueError) as exc:
            raise RoomError("bad_request", str(exc)[:200]) from None
        answer = await self._set_seats({seat: Seat(kind=BOT, name=f"{spec} bot", bot=spec,
                                                   occupant=self.seats[seat].occupant + 1)},
                                       command)
        return seat, answer

    async def _contribute(self, seat: int, value: str,
                          command: Command | None) -> AnswerData | None:
        if self.status != "lobby":
            raise RoomError("mid_round", N_("contributions are taken before the match starts"))
        if seat in self.contributions:
            raise RoomError("bad_request", N_("this seat has already contributed"))
        try:
            fairdeal.check_value(value)
        except UnoError as exc:
            raise RoomError("bad_request", str(exc)[:200]) from None
        answer = self._reply(command)
        await self.store.add_contribution(self.id, seat, value, answer=answer)
        self.contributions[seat] = value
        self._broadcast_room()
        return answer

    def _vacated(self, seat: int) -> dict[int, Seat]:
        """The seats that change when the person of ``seat`` goes: in the lobby the seat
        is freed; in a match a bot plays it to the end and its token stops working; a
        host's place passes on."""
        spot = self.seats[seat]
        if self.status == "lobby":
            changed = {seat: Seat()}
        else:
            changed = {seat: replace(spot, away=True, token_hash="", host=False)}
        if spot.host:
            changed.update(self._heir(seat, {seat}))
        return changed

    async def _leave(self, conn: Connection, seat: int,
                     command: Command | None) -> AnswerData | None:
        answer = await self._set_seats(self._vacated(seat), command)
        # every connection of the leaver goes: none may act for, or see the hand of,
        # whoever takes the seat next
        for held in [conn, *(c for c in self.conns if c.viewer == seat and c is not conn)]:
            self._gone(held)
            held.close(P.encode(P.Bye(reason=localize(language(held),
                                                      N_("you left the room")),
                                      reconnect=False, code="left")))
        return answer

    async def remove_person(self, seat: int, bye: str) -> None:
        """Take a person's seat from them (an operator removed them): in the lobby the
        seat is freed, in a match a bot plays it to the end and its token
        stops working; their connections are told ``bye`` (a marked message).

        Raises:
            RoomError: no person sits there.
        """
        if self.seats[self._seat(seat)].kind != HUMAN:
            raise RoomError("bad_request", N_("seat {seat} has no other player"), seat=seat)
        await self._set_seats(self._vacated(seat))
        for conn in [c for c in self.conns if c.viewer == seat]:
            self._gone(conn)
            conn.close(P.encode(P.Bye(reason=localize(language(conn), bye),
                                      reconnect=False, code="removed")))
        self._broadcast_room()

    async def _start_match(self, command: Command | None = None) -> AnswerData | None:
        if self.status != "lobby":
            raise RoomError("bad_request", N_("the match has already started"))
        empty = [i for i, s in enumerate(self.seats) if s.kind == EMPTY]
        if empty:
            raise RoomError("bad_request", N_("seat {seat} is empty: seat a bot or wait "
                                                "for a player"), seat=empty[0])
        seed = fairdeal.derive_seed(bytes.fromhex(self.server_seed), self.contributions)
        self._begin(seed)  # first, so that the answer stored with the start has its seq
        try:
            answer = self._reply(command)
            await self.store.start_match(self.id, seed, answer=answer)
        except StoreError:
            self.game = self.driver = self.seed = None
            self.status = "lobby"
            raise
        assert self.game is not None
        LOG.info("match started", extra={"room": self.code, "seats": len(self.seats)})
        self._broadcast_room()
        self._broadcast_events(list(self.game.log))
        return answer

    # ------------------------------------------------------------ the lobby's clocks
    def _mark_presence(self, now: float) -> None:
        """Start or stop the clocks (at ``now``): in the lobby, each person's seat that
        no connection holds; in any room, the stored one of whether a seated person is
        connected."""
        connected = {c.viewer for c in self.conns if c.viewer >= 0}
        self._note_presence(bool(connected))
        if self.status != "lobby":
            return
        for seat, spot in enumerate(self.seats):
            if spot.kind == HUMAN and seat not in connected:
                self.absent.setdefault(seat, now)
            else:
                self.absent.pop(seat, None)

    async def _sweep(self, now: float) -> None:
        """In the lobby, free the seats no connection has held for ``seat_timeout``
        seconds before ``now`` (the room's monotonic clock)."""
        if self.status != "lobby" or self.closing:
            return
        self._mark_presence(self.clock.monotonic())
        limit = now - self.settings.seat_timeout
        freed = sorted(seat for seat, since in self.absent.items() if since <= limit)
        try:
            if freed:
                await self._free_seats(freed)
        except StoreError as exc:  # nothing changed: the next sweep tries again
            LOG.warning("lobby sweep not stored", extra={"room": self.code,
                                                         "error": str(exc)[:200]})

    async def _free_seats(self, freed: list[int]) -> None:
        changed = {seat: Seat() for seat in freed}
        for seat in freed:
            if self.seats[seat].host:
                changed.update(self._heir(seat, set(freed)))
        await self._set_seats(changed)
        for seat in freed:
            self.absent.pop(seat, None)
        LOG.info("lobby seats freed", extra={"room": self.code, "seats": freed})
        self._broadcast_room()

    async def _close_idle(self) -> None:
        """Close the room (its rows stay): every connection (spectators) is told, and
        the room's task stops after this."""
        await self.close_room(CLOSED_BYE)
        LOG.info("idle lobby closed", extra={"room": self.code})

    async def close_room(self, bye: object) -> None:
        """Close the room, its match too if one is under way (its rows stay): every
        connection is told ``bye`` (a marked message or a :class:`Reason`) and the
        room's task stops after this."""
        await self.store.set_status(self.id, "closed")
        self.status = "closed"
        self.bot_due = self.timer_due = self.pause_due = None
        self._broadcast_room()
        for conn in list(self.conns):
            self.conns.discard(conn)
            self.fanout.leave(self.code, conn)
            conn.close(P.encode(P.Bye(reason=localize(language(conn), bye),
                                      reconnect=False, code="closed")))
        if self.on_closed is not None:
            self.on_closed(self)


CLOSED_BYE = N_("the room was closed: no player was in its lobby for too long")
CLOSED = N_("this room was closed (no player was in its lobby for too long): create a "
            "new one")
