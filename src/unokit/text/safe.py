"""Untrusted text made safe to print: player names from records, scenario names, bot
specs, anything read from a file or the network.

:func:`display_text` turns a string into one printable line: every control character
(line breaks and terminal escapes included), every invisible format character (such as
the bidirectional overrides) and every lone surrogate becomes a visible escape like
``\\n`` or ``\\x1b``, and the text is cut to a length limit. :func:`display_name` does
the same with the shorter limit of a name.

The result holds no character that moves the cursor, starts a new line or changes the
terminal's colours. It may still hold ``[`` and ``:``: whoever prints it with Rich
prints it with ``markup=False, emoji=False`` (or escapes it, as the transcript's
``markup=True`` lines do), so that ``[red]`` and ``:smile:`` show as typed.

>>> display_name("Bob")
'Bob'
>>> display_name("A\\x1b[31mRED")
'A\\\\x1b[31mRED'
>>> print(display_name("B\\nSeat 1 plays W+4."))
B\\nSeat 1 plays W+4.
>>> display_name("x" * 100)
'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'
>>> display_name(":smile: [red]")
':smile: [red]'
>>> display_text("evil\\nPASS forged line").startswith("evil\\\\n")
True
"""

from __future__ import annotations

import unicodedata
from typing import Final

NAME_LIMIT: Final = 40
"""The most characters :func:`display_name` keeps (the last one an ellipsis if cut)."""

TEXT_LIMIT: Final = 2000
"""The most characters :func:`display_text` keeps by default."""

_UNSAFE_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Control, format (bidirectional overrides, zero-width characters), surrogate, line and
paragraph separator characters."""

_ESCAPES: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def display_text(text: object, limit: int = TEXT_LIMIT) -> str:
    """``text`` as one safe printable line of at most ``limit`` characters (see the
    module docstring); a value that is not a string is shown as ``str(value)`` would.

    >>> display_text("tab\\there\\u202eevil")
    'tab\\\\there\\\\u202eevil'
    >>> display_text("abcdef", limit=4)
    'abc…'
    >>> display_text(7)
    '7'
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    raw = text if isinstance(text, str) else str(text)
    out: list[str] = []
    size = 0
    for char in raw:
        piece = _escape(char) if unicodedata.category(char) in _UNSAFE_CATEGORIES else char
        out.append(piece)
        size += len(piece)
        if size > limit:
            break
    joined = "".join(out)
    if len(joined) > limit:
        return joined[: limit - 1] + "…"
    return joined


def display_name(name: object, limit: int = NAME_LIMIT) -> str:
    """A player's (or a scenario's, or a bot's) name, safe to print: :func:`display_text`
    with the limit of a name.

    >>> display_name("Alice"), display_name("Seat\\r0")
    ('Alice', 'Seat\\\\r0')
    """
    return display_text(name, limit)


def display_names(names: object, limit: int = NAME_LIMIT) -> list[str]:
    """:func:`display_name` of each name in a sequence.

    >>> display_names(["Ann", "B\\x07b"])
    ['Ann', 'B\\\\x07b']
    """
    if not isinstance(names, list | tuple):
        return []
    return [display_name(name, limit) for name in names]


__all__ = ["NAME_LIMIT", "TEXT_LIMIT", "display_name", "display_names", "display_text"]
