"""The table chat of a room, and the ``silence`` rule (RULES.md section 4).

A seated player sends a line (:class:`protocol.SendChat`); the room checks it
(:func:`check_text`), caps each seat at :data:`CHAT_LINES` lines per
:data:`CHAT_WINDOW` seconds, stores it, and only then sends it to every connection
(:class:`protocol.Chat`) and acknowledges it. Spectators read the chat but do not write
in it. A new connection gets the room's :data:`unokit.store.RECENT_CHAT` last lines
after its welcome (and after the events it missed).

A line is the player's own text and nothing else: it never changes the game, except
under the ``silence`` rule. While a silence holds and the engine allows the writer the
action ``say`` (speaking now would be penalised), the room first applies ``say`` for the
writer through the path of every action (checked, applied, committed with the line in
one transaction, its events sent redacted to each viewer) and only then sends the line;
its ack carries the sequence number of the last event the ``say`` caused (the penalty
cards, the end of the silence). With the silence rule on, a line written during a catch
grace waits with the actions, in arrival order, and is judged when its turn comes.

>>> check_text("  hello\\n  all  ")
'hello all'
>>> check_text("\\x1b[31mred")
Traceback (most recent call last):
...
unokit.server.seating.RoomError: bad_request: a chat line has no control characters
>>> check_text("   ")
Traceback (most recent call last):
...
unokit.server.seating.RoomError: bad_request: a chat line is 1-200 characters
"""

from __future__ import annotations

import unicodedata
from collections import deque
from dataclasses import dataclass

from unokit.engine.actions import say
from unokit.i18n import N_
from unokit.server import protocol as P
from unokit.server.outage import NOT_STORED
from unokit.server.room_base import RoomBase
from unokit.server.room_state import CHAT_WINDOW
from unokit.server.seating import Connection, Held, RoomError
from unokit.store import ChatData, StoreError

__all__ = ["CHAT_LIMIT", "CHAT_LINES", "CHAT_WINDOW", "ChatHeld", "Talk", "check_text"]

CHAT_LIMIT = 200
"""The most characters a chat line has (after white space is made single spaces)."""
CHAT_LINES = 5
"""Lines a seat may write within :data:`CHAT_WINDOW` seconds; more get ``rate_limited``."""

REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Co"})
"""Unicode categories a chat line may not hold: control characters, lone surrogates,
private use."""
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069\ufeff")
"""Format characters refused too: the direction marks, embeddings, overrides and
isolates (they would reorder how other text shows), and the byte order mark. Other
format characters (the zero-width joiners of emoji and of many scripts) are kept."""


def check_text(text: str) -> str:
    """A chat line as the room keeps it: every run of white space (line breaks and tabs
    included) made one space, the ends stripped; 1-:data:`CHAT_LIMIT` characters.

    Raises:
        RoomError: ``bad_request``: empty, too long, or with a control character.
    """
    line = " ".join(text.split())
    if not 0 < len(line) <= CHAT_LIMIT:
        raise RoomError("bad_request", N_("a chat line is 1-{limit} characters"),
                        limit=CHAT_LIMIT)
    for char in line:
        if unicodedata.category(char) in REFUSED_CATEGORIES or char in BIDI_CONTROLS:
            raise RoomError("bad_request", N_("a chat line has no control characters"))
    return line


@dataclass
class ChatHeld(Held):
    """A chat line that goes the way of an action (the ``say`` of the silence rule)."""

    text: str


class Talk(RoomBase):
    """The chat of :class:`unokit.server.room.Room` (its lines are in the room's state:
    ``chat_lines``, ``chat_next``, ``chat_at``, ``chat_times``)."""

    def _silenced(self, seat: int) -> bool:
        """Whether a line of ``seat`` now breaks a silence: one holds, and the engine
        allows the seat the ``say`` it costs."""
        game = self.game
        return (game is not None and self.rules.silence != "off"
                and (game.silence_seat >= 0 or game.silence_color >= 0)
                and game.is_legal(say(seat)))

    async def _chat(self, conn: Connection, seat: int, message: P.SendChat) -> None:
        """Take a line from ``conn`` (answered with an ack or an error)."""
        if seat < 0:
            self._error(conn, seat, message.id, "not_seated",
                        N_("spectators read the chat but do not write in it"))
            return
        try:
            text = check_text(message.text)
            self.oversight.check_line(text)
            self._count_line(seat)
        except RoomError as exc:
            self._error(conn, seat, message.id, exc.code, exc.message)
            return
        held = ChatHeld(conn, message.id, seat, say(seat), "player", text)
        if self.grace is not None and self.rules.silence != "off":
            self.grace.waiting.append(held)
            return
        await self._try(held)

    def _count_line(self, seat: int) -> None:
        now = self.clock.monotonic()
        times = self.chat_times.setdefault(seat, deque())
        while times and times[0] <= now - self.chat_window:
            times.popleft()
        if len(times) >= CHAT_LINES:
            raise RoomError("rate_limited", N_("at most {lines} chat lines in {seconds} seconds: "
                                               "wait a moment"),
                            lines=CHAT_LINES, seconds=f"{self.chat_window:g}")
        times.append(now)

    def _new_line(self, seat: int, text: str, client_id: str | None, seq: int) -> ChatData:
        at = max(round(self.clock.wall() * 1000), self.chat_at + 1)
        return ChatData(self.chat_next, seat, self.seats[seat].name, text, at, client_id,
                        seq, self.seats[seat].occupant, self.seats[seat].player)

    def _took_line(self, line: ChatData) -> None:
        """A stored line: keep it and send it to everyone."""
        self.chat_lines.append(line)
        self.chat_next, self.chat_at = line.n + 1, line.at
        data = self._chat_message(line)
        self.fanout.publish(self.code, {v: data for v in self.fanout.viewers(self.code)})

    @staticmethod
    def _chat_message(line: ChatData) -> bytes:
        return P.encode(P.Chat(seat=line.seat, name=line.name, text=line.text, at=line.at))

    async def _post_line(self, held: ChatHeld) -> bool:
        """A line that costs nothing: store it, send it, acknowledge it with the last
        event's sequence number."""
        line = self._new_line(held.seat, held.text, held.msg_id, self.last_seq())
        try:
            await self.store.append_chat(self.id, line)
        except StoreError:
            self._error(held.conn, held.seat, held.msg_id, "not_stored", NOT_STORED)
            return False
        self._took_line(line)
        if held.msg_id is not None:
            self._answer(held.conn, held.seat, held.msg_id,
                         P.encode(P.Ack(id=held.msg_id, seq=line.seq)))
        return True

    def _send_recent_chat(self, conn: Connection) -> None:
        """The room's last lines, for a new connection."""
        for line in self.chat_lines:
            conn.deliver(self._chat_message(line))
