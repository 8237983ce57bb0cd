"""The arena: bots play seeded matches against each other, with 95 % intervals, mean
points, decision times and ratings.

:mod:`unokit.arena.run` plays the games, :mod:`unokit.arena.results` holds the statistics,
the JSON file and the plot, and :mod:`unokit.arena.cli` is ``unokit arena`` and
``unokit arena-merge``. Every name of the first two can be imported from here.

>>> from unokit.arena import run_arena, wilson_interval
>>> wilson_interval(50, 100)[0] < 0.5 < wilson_interval(50, 100)[1]
True
"""

from unokit.arena import results, run
from unokit.arena.results import *  # noqa: F403
from unokit.arena.run import *  # noqa: F403

__all__ = [*results.__all__, *run.__all__]
