"""``unokit.rules`` is :mod:`unokit.engine.rules`: an older path, kept working."""

import sys

from unokit.engine import rules as _module
from unokit.engine.rules import *  # noqa: F403

sys.modules[__name__] = _module
