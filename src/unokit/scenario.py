"""``unokit.scenario`` is :mod:`unokit.testing.scenario`: an older path, kept working."""

import sys

from unokit.testing import scenario as _module
from unokit.testing.scenario import *  # noqa: F403

sys.modules[__name__] = _module
