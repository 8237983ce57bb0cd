"""``unokit.soak`` is :mod:`unokit.testing.soak`: an older path, kept working."""

import sys

from unokit.testing import soak as _module
from unokit.testing.soak import *  # noqa: F403

sys.modules[__name__] = _module
