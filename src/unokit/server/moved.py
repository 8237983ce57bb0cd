"""What a room answers once another server process owns it (see
:mod:`unokit.server.ownership`): every connection is told to reconnect, and nothing is
answered as done."""

from __future__ import annotations

from unokit.i18n import N_, localize
from unokit.server import inbox as I
from unokit.server import protocol as P
from unokit.server.seating import Connection, language

MOVED = N_("this room moved to another server process: reconnect")
"""The reason of the ``bye`` (``reconnect: true``) of a room another process owns now."""


def refuse_moved(item: I.Item) -> None:
    """Answer an inbox item of a room another process owns now: a hello's or a
    message's connection is closed with ``bye`` (``reconnect: true``: what it sent and
    got no answer for, it sends again after reconnecting), a call is let go.

    >>> class Conn:
    ...     lang = "en"
    ...     def close(self, data): print(data.decode())
    >>> refuse_moved(I.Message(Conn(), None))
    {"type":"bye","reason":"this room moved to another server process: reconnect","code":"moved"}
    """
    match item:
        case I.Call():
            item.let_go()
        case I.Hello(conn=conn) | I.Message(conn=conn):
            say_moved(conn)


def say_moved(conn: Connection) -> None:
    """Close ``conn`` with the ``bye`` of a room that moved."""
    conn.close(P.encode(P.Bye(reason=localize(language(conn), MOVED), reconnect=True,
                              code="moved")))
