"""Saved states as JSON text: :func:`state_to_json` and :func:`state_from_json`.

The data itself (every state field, the rules and the generator's state) is
:mod:`unokit.engine.snapshot`'s; this module adds the text form.

>>> from unokit import Game, Rules
>>> game = Game(Rules.preset("official", players=3), seed=5)
>>> state_from_json(state_to_json(game)) == game
True
"""

from __future__ import annotations

import json

from unokit.engine.errors import SetupError
from unokit.engine.game import Game
from unokit.engine.snapshot import STATE_FORMAT, STATE_VERSION, state_from_dict, state_to_dict

__all__ = [
    "STATE_FORMAT",
    "STATE_VERSION",
    "state_from_dict",
    "state_from_json",
    "state_to_dict",
    "state_to_json",
]


def state_to_json(game: Game) -> str:
    """:func:`state_to_dict` as JSON text."""
    return json.dumps(state_to_dict(game))


def state_from_json(text: str) -> Game:
    """The game of :func:`state_to_json` text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SetupError(f"not valid JSON: {exc}") from None
    return state_from_dict(data)
