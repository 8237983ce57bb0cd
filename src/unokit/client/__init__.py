"""An async client for unokit's game server: :class:`~unokit.client.client.GameClient`
plays or watches one room over the WebSocket protocol (docs/protocol.md);
:func:`~unokit.client.remote_bot.run_bot` seats any unokit bot in a room as a remote
player.

The names below load on first use, so that ``unokit --help`` works without the
``server`` extra.
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "ActionRefused": "unokit.client.client", "ClientError": "unokit.client.client",
    "GameClient": "unokit.client.client", "create_room": "unokit.client.client",
    "ws_url": "unokit.client.client", "observation_from_view": "unokit.client.remote_bot",
    "run_bot": "unokit.client.remote_bot",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    raise AttributeError(f"module 'unokit.client' has no attribute {name!r}")
