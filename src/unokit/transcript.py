"""``unokit.transcript`` is :mod:`unokit.text.transcript`: an older path, kept working."""

import sys

from unokit.text import transcript as _module
from unokit.text.transcript import *  # noqa: F403

sys.modules[__name__] = _module
