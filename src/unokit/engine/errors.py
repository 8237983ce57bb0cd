"""The typed errors of unokit. Every error the library raises on bad input is a
:class:`UnoError`, and also a :class:`ValueError`, so callers may catch either."""

from __future__ import annotations

from collections.abc import Iterable


class UnoError(ValueError):
    """Base class of every error unokit raises for bad input."""


class CardCodeError(UnoError):
    """A text code names no card, colour or deck."""


class RulesError(UnoError):
    """A rule set is malformed: unknown keys, wrong types, values out of range,
    impossible combinations or rules that are not supported. ``keys`` names the
    offending keys.

    >>> err = RulesError({"jump_in": "expected true or false"})
    >>> err.keys
    ('jump_in',)
    >>> str(err)
    'invalid rule set: jump_in: expected true or false'
    """

    def __init__(self, problems: dict[str, str]) -> None:
        self.problems = dict(problems)
        names: dict[str, None] = {}
        for key in self.problems:
            names.update(dict.fromkeys(part.strip() for part in key.split(",")))
        self.keys: tuple[str, ...] = tuple(names)
        """Every offending key once; a combination problem names each of its keys."""
        text = "; ".join(f"{key}: {why}" for key, why in self.problems.items())
        super().__init__(f"invalid rule set: {text}")


class IllegalActionError(UnoError):
    """An action that the rules do not allow now. The game is left unchanged."""

    def __init__(self, action: str, reason: str) -> None:
        self.action = action
        self.reason = reason
        super().__init__(f"illegal action {action}: {reason}")


class ActionCodeError(UnoError):
    """A text or integer does not encode an action."""


class SetupError(UnoError):
    """A position cannot be set up as described (a scenario or a saved state)."""


class RecordError(UnoError):
    """A game record is broken, tampered with or from an unknown format version."""


class ScenarioError(UnoError):
    """A scenario file is malformed."""


def join_keys(keys: Iterable[str]) -> str:
    """Keys as a readable list, for messages."""
    return ", ".join(sorted(keys))
