"""``unokit.rng`` is :mod:`unokit.engine.rng`: an older path, kept working."""

import sys

from unokit.engine import rng as _module
from unokit.engine.rng import *  # noqa: F403

sys.modules[__name__] = _module
