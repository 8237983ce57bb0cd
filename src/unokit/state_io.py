"""``unokit.state_io`` is :mod:`unokit.formats.state_io`: an older path, kept working."""

import sys

from unokit.formats import state_io as _module
from unokit.formats.state_io import *  # noqa: F403

sys.modules[__name__] = _module
