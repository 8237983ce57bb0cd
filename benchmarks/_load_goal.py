"""When a load worker's rooms stop playing: a time, and counts of measured actions.

``benchmarks/server_load.py`` plays for ``--seconds`` after the warm-up. With
``--min-actions`` and ``--min-bot-actions`` it also plays on until that many actions
(of the client rooms, and of the bot rooms' clients) have been measured, so that a run
on a busy machine still measures what it was asked to (the tests use it, with no time
at all: a condition, not a time window). ``--max-seconds`` bounds the wait: a goal not
reached by then ends the run as missed (an error).

>>> latencies, bot_latencies = [], []
>>> goal = Goal(10.0, latencies, bot_latencies, actions=2, deadline=100.0)
>>> goal.reached(11.0), goal.ended
(False, None)
>>> latencies += [0.01, 0.02]
>>> goal.reached(12.0), goal.ended, goal.missed
(True, 12.0, False)
>>> late = Goal(0.0, [], [], bot_actions=1, deadline=5.0)
>>> late.reached(6.0), late.missed
(True, True)
"""

from __future__ import annotations

import math


class Goal:
    """The end of a worker's play: at ``until`` (a ``time.perf_counter()`` instant) once
    at least ``actions`` client-room and ``bot_actions`` bot-room latencies were
    measured (the lists ``latencies`` and ``bot_latencies`` fill as the rooms play),
    else at ``deadline``, missed."""

    def __init__(self, until: float, latencies: list[float], bot_latencies: list[float],
                 *, actions: int = 0, bot_actions: int = 0,
                 deadline: float = math.inf) -> None:
        self.until = until
        self.latencies = latencies
        self.bot_latencies = bot_latencies
        self.actions = actions
        self.bot_actions = bot_actions
        self.deadline = deadline
        self.ended: float | None = None
        """When the goal was first reached (``None``: not yet)."""
        self.missed = False
        """Whether the run ended at the deadline, short of its counts."""

    def counted(self) -> bool:
        """Whether enough actions have been measured."""
        return (len(self.latencies) >= self.actions
                and len(self.bot_latencies) >= self.bot_actions)

    def reached(self, now: float) -> bool:
        """Whether the rooms stop playing at ``now``."""
        if self.ended is not None:
            return True
        if now >= self.until and self.counted():
            self.ended = now
        elif now >= self.deadline:
            self.ended, self.missed = now, True
        return self.ended is not None
