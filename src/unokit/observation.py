"""``unokit.observation`` is :mod:`unokit.engine.observation`: an older path, kept working."""

import sys

from unokit.engine import observation as _module
from unokit.engine.observation import *  # noqa: F403

sys.modules[__name__] = _module
