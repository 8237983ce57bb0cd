"""Saved states as JSON text: :func:`state_to_json` and :func:`state_from_json`, and as
files: :func:`load_state` (at most :data:`MAX_STATE_BYTES`).

The data itself (every state field, the rules and the generator's state) is
:mod:`unokit.engine.snapshot`'s; this module adds the text form.

>>> from unokit import Game, Rules
>>> game = Game(Rules.preset("official", players=3), seed=5)
>>> state_from_json(state_to_json(game)) == game
True
"""

from __future__ import annotations

import json
from pathlib import Path

from unokit.engine.errors import SetupError
from unokit.engine.game import Game
from unokit.engine.jsontext import MAX_FILE_BYTES, parse_json, read_limited
from unokit.engine.snapshot import STATE_FORMAT, STATE_VERSION, state_from_dict, state_to_dict

MAX_STATE_BYTES = MAX_FILE_BYTES
"""The largest saved-state file :func:`load_state` reads (64 MB)."""

__all__ = [
    "MAX_STATE_BYTES",
    "STATE_FORMAT",
    "STATE_VERSION",
    "load_state",
    "state_from_dict",
    "state_from_json",
    "state_to_dict",
    "state_to_json",
]


def state_to_json(game: Game) -> str:
    """:func:`state_to_dict` as JSON text."""
    return json.dumps(state_to_dict(game))


def state_from_json(text: str | bytes) -> Game:
    """The game of :func:`state_to_json` text.

    >>> state_from_json("[" * 1000 + "]" * 1000)
    Traceback (most recent call last):
    ...
    unokit.engine.errors.SetupError: not valid JSON: nested more than 64 levels deep

    Raises:
        SetupError: the text is not JSON (nested too deeply, a number of more than 4300
            digits) or not a valid state.
    """
    return state_from_dict(parse_json(text, SetupError))


def load_state(path: str | Path) -> Game:
    """The game of a saved-state file (:func:`state_to_json` text).

    Raises:
        SetupError: the file cannot be read, is larger than :data:`MAX_STATE_BYTES`, or
            does not hold a valid state; the message names the file.
    """
    data = read_limited(path, SetupError, MAX_STATE_BYTES)
    try:
        return state_from_json(data)
    except SetupError as exc:
        raise SetupError(f"{path}: {exc}") from None
