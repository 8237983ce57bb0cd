"""Reinforcement-learning environments for unokit: a PettingZoo AEC environment for every
seat (:mod:`unokit.rl.pettingzoo_env`), a Gymnasium environment for one seat against bots,
policies or itself (:mod:`unokit.rl.gymnasium_env`), a vectorised environment stepping N
games in one compiled call (:mod:`unokit.rl.vector_env`) and the fixed encodings they use
(:mod:`unokit.rl.encoding`). See ``docs/rl.md``.

They need numpy, gymnasium and pettingzoo (the ``rl`` extra). This package imports them
only when one of its names is used, so ``import unokit`` and ``import unokit.rl`` work
without them:

>>> import unokit.rl
>>> unokit.rl.ACTION_SIZE
362
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "env": "unokit.rl.pettingzoo_env",
    "raw_env": "unokit.rl.pettingzoo_env",
    "UnoEnv": "unokit.rl.gymnasium_env",
    "ENV_ID": "unokit.rl.gymnasium_env",
    "TRAINING_ENV_ID": "unokit.rl.gymnasium_env",
    "mask_fn": "unokit.rl.gymnasium_env",
    "VectorUnoEnv": "unokit.rl.vector_env",
    "ACTION_SIZE": "unokit.rl.encoding",
    "OBSERVATION_SIZE": "unokit.rl.encoding",
    "ObservationEncoder": "unokit.rl.encoding",
    "action_name": "unokit.rl.encoding",
    "decode_action": "unokit.rl.encoding",
    "encode_action": "unokit.rl.encoding",
}


def register() -> str:
    """Register the Gymnasium environment's ids (``gymnasium.make("unokit/Uno-v1")``, the
    training defaults, and ``"unokit/Uno-v0"``) and return ``"unokit/Uno-v0"``;
    registering again does nothing."""
    from unokit.rl.gymnasium_env import register as _register

    return _register()


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'unokit.rl' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "ACTION_SIZE",
    "ENV_ID",
    "OBSERVATION_SIZE",
    "TRAINING_ENV_ID",
    "ObservationEncoder",
    "UnoEnv",
    "VectorUnoEnv",
    "action_name",
    "decode_action",
    "encode_action",
    "env",
    "mask_fn",
    "raw_env",
    "register",
]
