"""The terminal game (``unokit play``, also online: ``unokit play --server URL``) and the
replay viewer (``unokit replay --tui``), built on Textual. The screens load Textual when
first used.

>>> from unokit.tui import config_from_options
>>> config = config_from_options("official,rounds=1", 3, "playfirst", 5)
>>> config.rules.players, config.levels, config.seed
(3, ('playfirst', 'playfirst'), 5)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from unokit.tui.session import PlayConfig, Session, config_from_options

if TYPE_CHECKING:
    from unokit.tui.app import PlayApp, run_play
    from unokit.tui.online_screen import OnlineApp, run_online
    from unokit.tui.replay import ReplayApp, load_frames, run_replay

_LAZY = {"PlayApp": "unokit.tui.app", "run_play": "unokit.tui.app",
         "ReplayApp": "unokit.tui.replay", "load_frames": "unokit.tui.replay",
         "run_replay": "unokit.tui.replay", "OnlineApp": "unokit.tui.online_screen",
         "run_online": "unokit.tui.online_screen"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'unokit.tui' has no attribute {name!r}")


__all__ = [
    "OnlineApp",
    "PlayApp",
    "PlayConfig",
    "ReplayApp",
    "Session",
    "config_from_options",
    "load_frames",
    "run_online",
    "run_play",
    "run_replay",
]
