"""``unokit.game`` is :mod:`unokit.engine.game`: an older path, kept working."""

import sys

from unokit.engine import game as _module
from unokit.engine.game import *  # noqa: F403

sys.modules[__name__] = _module
