"""Untrusted JSON text and files, read safely: one loader for rule sets, records, saved
states, scenarios and arena results.

:func:`parse_json` turns every way JSON text can be bad into one typed error with a
one-line message: a syntax error, nesting deeper than :data:`MAX_DEPTH`, a number too
long for Python to convert, ``NaN`` or ``Infinity`` (not JSON), bytes that are not UTF-8.
:func:`read_limited` reads a file of at most :data:`MAX_FILE_BYTES`, never more than
one byte past that, so that ``/dev/zero`` or a huge file is refused instead of filling
the memory.

>>> from unokit.engine.errors import SetupError
>>> parse_json('{"players": 3}', SetupError)
{'players': 3}
>>> parse_json("[" * 100 + "]" * 100, SetupError)
Traceback (most recent call last):
...
unokit.engine.errors.SetupError: not valid JSON: nested more than 64 levels deep
>>> parse_json('{"a": ' + "9" * 5000 + "}", SetupError)
Traceback (most recent call last):
...
unokit.engine.errors.SetupError: not valid JSON: a number with more than 4300 digits
>>> short_repr("x" * 100), short_repr(10**5000)
("'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...", 'a 5001-digit number')
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from unokit.engine.errors import Reason, UnoError

MAX_DEPTH = 64
"""The deepest nesting of lists and objects accepted (every unokit file needs under 8)."""

MAX_FILE_BYTES = 64 * 1024 * 1024
"""The largest record, scenario, saved state or arena file read: 64 MB."""

ErrorFactory = Callable[[str], UnoError]
"""Makes the typed error of one kind of input from a message."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: str | bytes, error: ErrorFactory) -> Any:
    """The value of JSON ``text``; any problem raises ``error("not valid JSON: ...")``.

    Raises:
        UnoError: the error ``error`` makes, for text that is not JSON, not text, not
            UTF-8, nested deeper than :data:`MAX_DEPTH` or holding a number longer than
            Python converts (4300 digits) or ``NaN``/``Infinity``.
    """
    if not isinstance(text, str | bytes | bytearray):
        raise error(Reason("expected JSON text, got {kind}", kind=type(text).__name__))
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise error(_deeper()) from None
    except json.JSONDecodeError as exc:
        raise error(Reason("not valid JSON: {problem}", problem=str(exc))) from None
    except UnicodeDecodeError as exc:
        raise error(Reason("not valid JSON: not UTF-8 text ({problem} at byte {byte})",
                           problem=exc.reason, byte=exc.start)) from None
    except ValueError as exc:
        message = str(exc)
        if "integer string conversion" in message:
            raise error(Reason("not valid JSON: a number with more than 4300 digits")
                        ) from None
        raise error(Reason("not valid JSON: {problem}", problem=message)) from None
    if nesting_depth(value) > MAX_DEPTH:
        raise error(_deeper())
    return value


def _deeper() -> Reason:
    return Reason("not valid JSON: nested more than {depth} levels deep", depth=MAX_DEPTH)


def nesting_depth(value: Any) -> int:
    """How deeply lists and objects nest in a parsed value (without recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
        stack.extend((child, depth + 1) for child in item
                     if isinstance(child, list | dict))
    return deepest


def read_limited(path: str | Path, error: ErrorFactory, limit: int | None = None,
                 what: str = "") -> bytes:
    """The bytes of the file at ``path``, refused past ``limit`` (default
    :data:`MAX_FILE_BYTES`). At most ``limit + 1`` bytes are read.

    Raises:
        UnoError: ``error(...)`` naming the file: it cannot be read, is a folder or is
            larger than the limit.
    """
    most = MAX_FILE_BYTES if limit is None else limit
    what = what or Reason("a file")
    try:
        with open(path, "rb") as handle:
            data = handle.read(most + 1)
    except FileNotFoundError:
        raise error(Reason("{path}: no such file (cannot read it)", path=str(path))) from None
    except IsADirectoryError:
        raise error(Reason("{path}: a folder, not {what}", path=str(path), what=what)) from None
    except OSError as exc:
        raise error(Reason("{path}: cannot read it: {problem}", path=str(path),
                           problem=str(exc.strerror or exc))) from None
    if len(data) > most:
        raise error(Reason("{path}: larger than {size}", path=str(path), size=size_text(most)))
    return data


def size_text(size: int) -> str:
    """A byte count as people write it.

    >>> size_text(64 * 1024 * 1024), size_text(2048), size_text(10)
    ('64 MB', '2 KB', '10 bytes')
    """
    for unit, scale in (("MB", 1024 * 1024), ("KB", 1024)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} bytes"


def digit_count(number: int) -> int:
    """The number of decimal digits of ``number``, also past Python's 4300-digit limit
    on converting integers to text.

    >>> digit_count(-120), digit_count(10**5000)
    (3, 5001)
    """
    number = abs(number)
    if number.bit_length() < 14000:
        return len(str(number))
    digits = int((number.bit_length() - 1) * 0.30102999566398120)  # at most log10(number)
    while number >= 10**digits:
        digits += 1
    return digits


def short_repr(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages about untrusted values
    (a huge or deeply nested value gives a short text, never an error)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"a {digit_count(value)}-digit number"
    try:
        text = repr(value)
    except (RecursionError, ValueError):
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "digit_count", "nesting_depth", "parse_json",
           "read_limited", "short_repr",
           "size_text"]
