"""``unokit.actions`` is :mod:`unokit.engine.actions`: an older path, kept working."""

import sys

from unokit.engine import actions as _module
from unokit.engine.actions import *  # noqa: F403

sys.modules[__name__] = _module
