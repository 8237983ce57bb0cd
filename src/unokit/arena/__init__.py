"""The arena: bots play seeded matches against each other, with 95 % intervals, mean
points, decision times and ratings.

:mod:`unokit.arena.run` plays the games, :mod:`unokit.arena.results` holds the statistics,
the JSON file and the plot, and :mod:`unokit.arena.cli` is ``unokit arena`` and
``unokit arena-merge``. Every name of the first two can be imported from here.
"""

from unokit.arena.run import *  # noqa: F403
from unokit.arena.run import __all__ as __all__
