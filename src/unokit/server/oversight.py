"""What the operator sets over every room of a server: its metrics, its bans and its
word list. Each room holds the server's :class:`Oversight` (a room rebuilt only to show
a record, or a test's room, holds :data:`NO_OVERSIGHT`, which refuses nothing).

>>> from unokit.server.moderation import WordList
>>> oversight = Oversight(words=WordList(["darn"]))
>>> oversight.ban_name("Mallory")
>>> for name in ("Ann", "MALLORY", "darn it", "\\u200b"):
...     try:
...         oversight.check_name(name)
...         print(name, "ok")
...     except RoomError as exc:
...         print(exc.code)
Ann ok
banned
not_allowed
bad_request
"""

from __future__ import annotations

from collections.abc import Iterable

from unokit.i18n import N_
from unokit.server import moderation
from unokit.server.metrics import NO_METRICS, Metrics
from unokit.server.moderation import EMPTY, WordList, fold
from unokit.server.seating import RoomError

BANNED = N_("you may not play on this server")
"""What a banned client is told (never why, nor which ban)."""


class Oversight:
    """A server's metrics, bans and word list, shared by its rooms."""

    def __init__(self, metrics: Metrics | None = None, words: WordList = EMPTY) -> None:
        self.metrics = metrics or Metrics()
        self.words = words
        self.banned_addresses: set[str] = set()
        self.banned_names: set[str] = set()

    def set_bans(self, bans: Iterable[tuple[str, str]]) -> None:
        """Hold these ``(kind, value)`` bans (``address`` or ``name``), only these."""
        held = list(bans)
        self.banned_addresses = {value for kind, value in held if kind == "address"}
        self.banned_names = {value for kind, value in held if kind == "name"}

    def ban_name(self, name: str) -> None:
        """Refuse ``name`` (compared folded) from now on."""
        self.banned_names.add(fold(name).strip())

    def check_address(self, address: str) -> None:
        """Raise :class:`RoomError` ``banned`` for a banned address."""
        if address in self.banned_addresses:
            raise RoomError("banned", BANNED)

    def check_name(self, name: str) -> None:
        """Raise :class:`RoomError` for a name that is invisible, holds a listed word,
        or is banned."""
        moderation.check_name(name, self.words)
        if fold(name).strip() in self.banned_names:
            raise RoomError("banned", BANNED)

    def check_line(self, line: str) -> None:
        """Raise :class:`RoomError` for a chat line that is invisible or holds a listed
        word."""
        moderation.check_line(line, self.words)


NO_OVERSIGHT = Oversight(NO_METRICS)
