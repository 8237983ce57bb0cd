"""unokit: the UNO card game engine, with its rules, records and tools.

The names here are the engine's public API (:mod:`unokit.engine`) with the game record
(:mod:`unokit.formats.record`).

>>> import unokit
>>> game = unokit.Game(unokit.Rules.preset("official", players=3), seed=1)
>>> game.current_player in (0, 1, 2)
True
"""

from unokit import engine
from unokit._version import __version__
from unokit.engine import *  # noqa: F403
from unokit.formats.record import Record, replay

__all__ = [*engine.__all__, "Record", "__version__", "replay"]
