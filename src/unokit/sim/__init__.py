"""The fast simulator: whole games compiled with numba, played exactly as the engine
plays them, for statistics over millions of games.

- :mod:`unokit.sim.support`: which rule sets it plays (:func:`check_supported`);
- :mod:`unokit.sim.policies`: the policies, specified, and :func:`play_reference`, the
  same games on the engine;
- :mod:`unokit.sim.kernel`, :mod:`unokit.sim.effects` and :mod:`unokit.sim.loop`: the
  compiled game;
- :mod:`unokit.sim.runner`: :func:`simulate`, many games in chunks and processes;
- :mod:`unokit.sim.stats`, :mod:`unokit.sim.plots`: statistics, tables, plots;
- :mod:`unokit.sim.cli`: the ``unokit simulate`` command.

The names below load their module on first use (numba is imported only then).

>>> from unokit.sim import check_supported
>>> check_supported.__module__
'unokit.sim.support'
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "check_supported": "unokit.sim.support",
    "unsupported": "unokit.sim.support",
    "SUPPORTED_PRESETS": "unokit.sim.support",
    "play_reference": "unokit.sim.policies",
    "Outcome": "unokit.sim.policies",
    "RandomPolicy": "unokit.sim.policies",
    "PlayFirstPolicy": "unokit.sim.policies",
    "POLICIES": "unokit.sim.policies",
    "simulate": "unokit.sim.runner",
    "Simulator": "unokit.sim.runner",
    "SimResult": "unokit.sim.runner",
    "report": "unokit.sim.stats",
    "Report": "unokit.sim.stats",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'unokit.sim' has no attribute {name!r}")


__all__ = sorted(_LAZY)
