"""What friends at one table get besides the game: a name changed in the lobby, the
countdown to the next round, the word that a bot played a timed-out turn, and a
"play now" player's contribution to the deal.

- :meth:`Friends._rename` (the ``rename`` message): before the match a seated person
  changes their name, checked as a joining name is (:func:`~unokit.server.seating.
  check_name`, then the word list and bans of :class:`~unokit.server.oversight.
  Oversight`); the name is stored with the command's answer, then everyone gets the room.
- :meth:`Friends._tell_countdown`: when a round ends the room tells every connection in
  how many milliseconds the next round starts by itself (``countdown``; the pause is the
  ``round_pause`` setting), and again whenever that time changes (0: it waits for an
  empty seat to be filled). A connection that comes between rounds gets it after its
  welcome. The client counts down from it and never guesses.
- :meth:`Friends._tell_timed_out`: a person's turn timer ran out and a bot played for
  them: their own connections hear it (``timed_out``, ``away`` on the second in a row).
- :meth:`Friends._hello_contribution`: a hello without a token may carry a contribution
  to the deal, taken with the seat, so that a "play now" room (which starts as soon as
  its seats are full) deals with the browser's contribution too.
"""

from __future__ import annotations

from dataclasses import replace

from unokit.engine.errors import UnoError
from unokit.formats import fairdeal
from unokit.i18n import N_
from unokit.server import protocol as P
from unokit.server.lobby import Command, Lobby
from unokit.server.seating import HUMAN, RoomError, check_name
from unokit.store import AnswerData

__all__ = ["Friends", "check_contribution"]


def check_contribution(value: str) -> str:
    """A hello's contribution to the deal, checked as :class:`protocol.Contribute`'s is.

    >>> check_contribution("a1b2")
    'a1b2'
    >>> check_contribution("no spaces")
    Traceback (most recent call last):
    ...
    unokit.server.seating.RoomError: bad_request: ...

    Raises:
        RoomError: ``bad_request``: not a contribution.
    """
    try:
        fairdeal.check_value(value)
    except UnoError as exc:
        raise RoomError("bad_request", str(exc)[:200]) from None
    return value


class Friends(Lobby):
    """The rename, countdown, timeout and "play now" contribution parts of a room."""

    _countdown_told: float | None = None
    """The ``pause_due`` the last ``countdown`` message told (of this process)."""

    async def _rename(self, seat: int, name: str,
                      command: Command | None) -> AnswerData | None:
        """Change the name of ``seat`` (a person's) before the match.

        Raises:
            RoomError: after the start (``mid_round``), or a name the join would refuse.
        """
        if self.status != "lobby":
            raise RoomError("mid_round", N_("names change only before the match starts"))
        spot = self.seats[seat]
        if spot.kind != HUMAN:
            raise RoomError("not_seated", N_("only a seated player has a name to change"))
        new = check_name(name, seat)
        self.oversight.check_name(new)
        answer = await self._set_seats({seat: replace(spot, name=new)}, command)
        self._broadcast_room()
        return answer

    def _countdown_message(self) -> bytes:
        """The ``countdown`` message of now: the milliseconds until the next round."""
        due = self.pause_due
        ms = 0 if due is None else max(0, round((due - self.clock.monotonic()) * 1000))
        return P.encode(P.Countdown(ms=ms))

    def _tell_countdown(self) -> None:
        """Between rounds, tell everyone when the next round starts, if that changed."""
        if self.pause_due == self._countdown_told:
            return
        self._countdown_told = self.pause_due
        data = self._countdown_message()
        self.fanout.publish(self.code, {v: data for v in self.fanout.viewers(self.code)})

    def _tell_timed_out(self, seat: int) -> None:
        """Tell the connections of ``seat`` that a bot played their timed-out turn."""
        data = P.encode(P.TimedOut(seat=seat, away=self.seats[seat].away))
        for conn in [c for c in self.conns if c.viewer == seat]:
            conn.deliver(data)

    async def _hello_contribution(self, seat: int, value: str) -> None:
        """Take the contribution a hello carried for the seat it was just given (in the
        lobby; a seat that gave one already keeps it)."""
        if self.status == "lobby" and seat >= 0 and seat not in self.contributions:
            await self._contribute(seat, value, None)
