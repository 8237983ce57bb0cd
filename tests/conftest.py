"""Hypothesis profiles for the test suite.

``ci`` (the default) keeps the whole suite to a few minutes on two cores; ``dev`` is a
quick smoke run; ``thorough`` runs many more examples for a long local search. Choose
one with ``HYPOTHESIS_PROFILE=thorough`` or ``pytest --hypothesis-profile=thorough``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# The shared strategies live beside the tests (tests/strategies.py).
sys.path.insert(0, str(Path(__file__).parent))

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=_SLOW_OK,
                          print_blob=True)
settings.register_profile("dev", max_examples=10, deadline=None, suppress_health_check=_SLOW_OK)
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=_SLOW_OK, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
