"""``unokit.cards`` is :mod:`unokit.engine.cards`: an older path, kept working."""

import sys

from unokit.engine import cards as _module
from unokit.engine.cards import *  # noqa: F403

sys.modules[__name__] = _module
