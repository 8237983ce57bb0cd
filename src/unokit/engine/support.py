"""What a component plays of the rules, declared key by key.

Some parts of unokit play only some rule sets: the compiled simulator, the search bot's
compiled playouts, the engine's own fast paths, the RL fast backend. Each declares, for
*every* key of :data:`~unokit.engine.rules.SPEC`, what it supports:

- :data:`ANY`: every value of the key;
- a ``frozenset`` of values: only those (``only_default(key)`` for the default alone);
- :data:`INERT`: the key has no effect on what the component plays (for example, a key
  that acts only on cards the component's deck does not hold), so any value is accepted.

A declaration that misses a key, or names a key the rules do not have, is an error
(:func:`check_declaration`): a key added to the schema is refused by every component
until someone decides what each does with it. A rule set outside a component's support
is refused with the keys named (:func:`refusals`), never played under simpler rules.

>>> from unokit.engine.rules import Rules
>>> declaration = {key: ANY for key in SPEC} | {"jump_in": only_default("jump_in")}
>>> check_declaration(declaration, "example")
>>> refusals(declaration, Rules.preset("official"), "the example")
{}
>>> refusals(declaration, Rules.preset("party"), "the example")
{'jump_in': 'the example does not play True (only False)'}
>>> check_declaration({"jump_in": ANY}, "example")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: example: no support declared for players, hand_size, ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, TypeAlias

from unokit.engine.errors import Reason
from unokit.engine.rules import SPEC, Rules

ANY: Final = "any"
"""Every value of the key is played."""
INERT: Final = "inert"
"""The key changes nothing in what the component plays; any value is accepted."""

Support: TypeAlias = Literal["any", "inert"] | frozenset[Any]
"""What a component supports of one key."""
Declaration: TypeAlias = Mapping[str, Support]
"""A component's support, one entry for every rule key."""


def only_default(key: str) -> frozenset[Any]:
    """The support of a key played at its default value only.

    >>> only_default("jump_in")
    frozenset({False})
    """
    return frozenset({SPEC[key].default})


def check_declaration(declaration: Declaration, component: str) -> None:
    """Raise ``ValueError`` unless ``declaration`` has exactly one entry per rule key,
    each :data:`ANY`, :data:`INERT` or a frozenset of values."""
    missing = [key for key in SPEC if key not in declaration]
    unknown = sorted(key for key in declaration if key not in SPEC)
    bad = [key for key, value in declaration.items()
           if value not in (ANY, INERT) and not isinstance(value, frozenset)]
    problems = []
    if missing:
        problems.append(f"no support declared for {', '.join(missing)}")
    if unknown:
        problems.append(f"support declared for keys the rules do not have: {', '.join(unknown)}")
    if bad:
        problems.append(f"support must be 'any', 'inert' or a frozenset: {', '.join(bad)}")
    if problems:
        raise ValueError(f"{component}: {'; '.join(problems)}")


def refusals(declaration: Declaration, rules: Rules, component: str) -> dict[str, str]:
    """Every key of ``rules`` whose value ``component`` does not play, with the reason, in
    the order of the rules' keys (empty when it plays them all). Each reason is a
    :class:`~unokit.engine.errors.Reason`; ``component`` may be one too, to be said in
    another language with it.

    >>> why = refusals({key: ANY for key in SPEC} | {"jump_in": only_default("jump_in")},
    ...                Rules.preset("party"), Reason("the example"))["jump_in"]
    >>> why.template, why.params["value"]
    ('{component} does not play {value} (only {allowed})', 'True')
    """
    problems: dict[str, str] = {}
    for key in SPEC:
        support = declaration.get(key)
        if support in (ANY, INERT):
            continue
        value = getattr(rules, key)
        if not isinstance(support, frozenset) or value not in support:
            allowed = (", ".join(repr(v) if isinstance(v, str) else str(v)
                                 for v in sorted(support, key=repr))
                       if isinstance(support, frozenset) else None)
            if allowed is not None:
                problems[key] = Reason("{component} does not play {value} (only {allowed})",
                                       component=component, value=repr(value),
                                       allowed=allowed)
            else:
                problems[key] = Reason("{component} does not play {value} (only nothing)",
                                       component=component, value=repr(value))
    return problems


__all__ = ["ANY", "INERT", "Declaration", "Support", "check_declaration", "only_default",
           "refusals"]
