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

    Like :class:`Reason` it keeps a ``template`` and ``params``, whose problems are
    :class:`Reason` objects where the engine made them, so that a layer above may say
    it in another language:

    >>> err.template, err.params["problems"].template
    ('invalid rule set: {problems}', '{p0}')
    """

    def __init__(self, problems: dict[str, str]) -> None:
        self.problems = dict(problems)
        names: dict[str, None] = {}
        for key in self.problems:
            names.update(dict.fromkeys(part.strip() for part in key.split(",")))
        self.keys: tuple[str, ...] = tuple(names)
        """Every offending key once; a combination problem names each of its keys."""
        parts = {f"p{index}": Reason("{key}: {why}", key=key, why=why)
                 for index, (key, why) in enumerate(self.problems.items())}
        template = "; ".join("{" + name + "}" for name in parts)
        listed = Reason(template, **parts)
        reason = Reason("invalid rule set: {problems}", problems=listed)
        self.template: str = reason.template
        self.params: dict[str, object] = reason.params
        super().__init__(str(reason))


class Reason(str):
    """A sentence in English that also keeps its ``template`` and ``params``, so that a
    layer above the engine may say it in another language (the engine itself knows
    only English). It is a :class:`str`: the English sentence.

    >>> why = Reason("seat {seat} holds no {card}", seat=1, card="R5")
    >>> why, why.template, why.params
    ('seat 1 holds no R5', 'seat {seat} holds no {card}', {'seat': 1, 'card': 'R5'})
    """

    template: str
    params: dict[str, object]

    def __new__(cls, template: str, /, **params: object) -> Reason:
        self = super().__new__(cls, template.format(**params) if params else template)
        self.template = template
        self.params = params
        return self


class IllegalActionError(UnoError):
    """An action that the rules do not allow now. The game is left unchanged.

    ``reason`` says why in English; ``template`` and ``params`` are the same sentence
    before its placeholders are filled (``template`` is ``reason`` itself when the
    reason has no template), for a translation.

    >>> err = IllegalActionError("0:R5", Reason("seat {seat} holds no {card}", seat=0,
    ...                                         card="R5"))
    >>> str(err)
    'illegal action 0:R5: seat 0 holds no R5'
    >>> err.template, err.params
    ('seat {seat} holds no {card}', {'seat': 0, 'card': 'R5'})
    """

    def __init__(self, action: str, reason: str) -> None:
        self.action = action
        self.reason = reason
        self.template: str = getattr(reason, "template", reason)
        self.params: dict[str, object] = dict(getattr(reason, "params", {}))
        super().__init__(f"illegal action {action}: {reason}")


class ActionCodeError(UnoError):
    """A text or integer does not encode an action."""


class SetupError(UnoError):
    """A position cannot be set up as described (a scenario or a saved state)."""


class RecordError(UnoError):
    """A game record is broken, tampered with or from an unknown format version. Made
    from a :class:`Reason`, it keeps its ``template`` and ``params`` for a translation.

    >>> err = RecordError(Reason("seed: expected an integer, got {value}", value="'x'"))
    >>> str(err), err.template
    ("seed: expected an integer, got 'x'", 'seed: expected an integer, got {value}')
    """

    def __init__(self, message: str) -> None:
        self.template: str = getattr(message, "template", message)
        self.params: dict[str, object] = dict(getattr(message, "params", {}))
        super().__init__(message)


class ScenarioError(UnoError):
    """A scenario file is malformed."""


def join_keys(keys: Iterable[str]) -> str:
    """Keys as a readable list, for messages."""
    return ", ".join(sorted(keys))
