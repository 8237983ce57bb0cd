"""A rematch: "Play again" after a match keeps the friends at the table, in a new match
of the same room (the ``rematch`` message; docs/protocol.md).

Who may ask: the host, or any connected player when the host is not connected. What
it does, in one fenced transaction of the store (:meth:`unokit.store.Store.rematch`):

- the finished match stays stored as it was, under the code ``CODE-N`` (its N-th match
  in this room): its record, verify page and replay are served under that code;
- the room's code names a new room row, in the lobby, with the same rules and timer,
  a new server seed and so a new fair-deal commitment (the players contribute again);
- each seat whose player is connected keeps its holder, name and token; bots keep their
  seats; every other seat is emptied (the host's place passes to the asker if it was
  emptied).

Then the room's state starts over from that (:meth:`RoomState.new`), everyone gets
the room message with the new commitment, and the asker the ack. A restart after it
rebuilds the new room from its rows like any other lobby.
"""

from __future__ import annotations

from dataclasses import replace

from unokit.formats import fairdeal
from unokit.i18n import N_
from unokit.server import protocol as P
from unokit.server.friends import Friends
from unokit.server.lobby import Command
from unokit.server.room_state import RoomState
from unokit.server.seating import BOT, HUMAN, RoomError, Seat
from unokit.store import AnswerData

__all__ = ["Rematch"]


class Rematch(Friends):
    """The ``rematch`` command of a room."""

    def _rematch_seats(self, asker: int) -> list[Seat]:
        """The seats of the new match (see the module)."""
        connected = {c.viewer for c in self.conns if c.viewer >= 0}
        seats = [replace(spot, away=False, timeouts=0)
                 if spot.kind == BOT or (spot.kind == HUMAN and spot.token_hash
                                          and seat in connected)
                 else Seat(occupant=spot.occupant)
                 for seat, spot in enumerate(self.seats)]
        if not any(s.host for s in seats):
            seats[asker] = replace(seats[asker], host=True)
        return seats

    async def _rematch(self, seat: int, command: Command | None) -> AnswerData | None:
        """Start a new match of this room (see the module); the answer stored.

        Raises:
            RoomError: the match is not over, the asker may not ask, or this is a
                finished match kept under its ``CODE-N``.
            StoreError: nothing was stored (the room is as it was).
        """
        if self.status != "finished" or "-" in self.code:
            raise RoomError("bad_request", N_("a rematch comes after the match is over"))
        host = next((i for i, s in enumerate(self.seats) if s.host), None)
        connected = {c.viewer for c in self.conns}
        if not self.seats[seat].host and host is not None and host in connected:
            raise RoomError("not_host", N_("only the host may do that"))
        seats = self._rematch_seats(seat)
        server_seed = fairdeal.new_server_seed()
        commitment = fairdeal.commitment(server_seed)
        answer = None
        if command is not None:
            answer = AnswerData(0, seat, command.msg_id,
                                P.encode(P.Ack(id=command.msg_id, seq=-1)).decode(),
                                self.clock.wall(), seats[seat].occupant)
        new_id = await self.store.rematch(self.id, server_seed.hex(), commitment,
                                          [spot.data(i) for i, spot in enumerate(seats)],
                                          answer=answer)
        old = self.state
        self.id = new_id
        self.server_seed, self.commitment = server_seed.hex(), commitment
        self.ratings = {}
        state = RoomState.new(seats, turn_timer=old.turn_timer, now=self.clock.wall())
        state.last_seen, state.seen_stored = old.last_seen, old.seen_stored
        state.chat_window, state.chat_times = old.chat_window, old.chat_times
        self.state = state
        if answer is not None:  # the room's _answer keeps it for the asker
            self.answers_next = 1
        self._countdown_told = None
        self._broadcast_room()
        return answer
