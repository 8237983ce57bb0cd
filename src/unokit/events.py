"""``unokit.events`` is :mod:`unokit.engine.events`: an older path, kept working."""

import sys

from unokit.engine import events as _module
from unokit.engine.events import *  # noqa: F403

sys.modules[__name__] = _module
