"""The file formats built on the engine: game records (:mod:`unokit.formats.record`) and
saved states (:mod:`unokit.formats.state_io`), what a database or a file stores of a game.

>>> from unokit.formats import Record
>>> Record.__name__
'Record'
"""

from unokit.formats.record import Record, replay
from unokit.formats.state_io import state_from_json, state_to_json

__all__ = ["Record", "replay", "state_from_json", "state_to_json"]
