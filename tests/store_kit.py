"""What the storage tests share: a new room's data and moving a database to a revision.

>>> new_room("ABCD", seats=2).seats
2
"""

from __future__ import annotations

from alembic import command

from unokit.store import NewRoom
from unokit.store.db import alembic_config, open_engine


def new_room(code: str, seats: int = 3) -> NewRoom:
    """A room of the official rules with ``seats`` empty seats and fixed seeds."""
    return NewRoom(code=code, rules='{"preset": "official"}', turn_timer=0, public=True,
                   server_seed="00" * 32, commitment="ab" * 32, seats=seats)


def migrate_to(url: str, revision: str, *, down: bool = False) -> None:
    """Bring the database at ``url`` up (or ``down``) to ``revision``."""
    engine = open_engine(url)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, revision)
    engine.dispose()


class LeaseClock:
    """A clock for the rooms' leases that moves only when a test moves it (several
    stores share one, as processes share the database's clock).

    >>> clock = LeaseClock()
    >>> before = clock()
    >>> clock.advance(16)
    >>> clock() - before
    16.0
    """

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` on."""
        self.now += seconds
