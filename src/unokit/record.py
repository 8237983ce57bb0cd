"""``unokit.record`` is :mod:`unokit.formats.record`: an older path, kept working."""

import sys

from unokit.formats import record as _module
from unokit.formats.record import *  # noqa: F403

sys.modules[__name__] = _module
