"""``unokit.errors`` is :mod:`unokit.engine.errors`: an older path, kept working."""

import sys

from unokit.engine import errors as _module
from unokit.engine.errors import *  # noqa: F403

sys.modules[__name__] = _module
