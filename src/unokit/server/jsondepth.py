"""How deep JSON nests, found without decoding it: a decoder that recurses would raise
``RecursionError`` (a crash, not an error) on input such as ``[[[[...]]]]`` thousands
deep, so every input is scanned first.

The scan drops the strings (where brackets mean nothing), keeps the brackets, and
follows the depth through them. It is a bound, not a parse: input that is not JSON at
all is left to the decoder to refuse.

>>> json_depth(b'{"a": [1, {"b": "[[[["}]}')
3
>>> json_depth('[' * 40 + ']' * 40)
40
>>> too_deep(b'[' * 40, 32), too_deep(b'{"type": "ping"}', 32)
(True, False)
"""

from __future__ import annotations

import re

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
"""A JSON string with its escapes (an unterminated one is not matched, and its brackets
count: that input is no JSON anyway)."""
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_CLOSING = frozenset(b"]}")


def json_depth(data: bytes | str, stop: int | None = None) -> int:
    """The deepest nesting of arrays and objects in ``data`` (0 for a plain value); the
    scan ends as soon as the depth passes ``stop``, if given."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if b"[" not in raw and b"{" not in raw:
        return 0
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for byte in brackets:
        if byte in _CLOSING:
            depth -= 1
        else:
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop is not None and deepest > stop:
                    break
    return deepest


def too_deep(data: bytes | str, limit: int) -> bool:
    """Whether ``data`` nests deeper than ``limit`` (at once when it does not hold more
    than ``limit`` opening brackets, as a game message does not).

    >>> too_deep('{"a": [[1]]}', 3), too_deep('{"a": ["[[[[[["]}', 3)
    (False, False)
    >>> too_deep('{"a": [[[]]]}', 3), too_deep(b'[[[[1]]]]', 3)
    (True, True)
    """
    if isinstance(data, str):
        if data.count("[") + data.count("{") <= limit:
            return False
    elif data.count(b"[") + data.count(b"{") <= limit:
        return False
    return json_depth(data, limit) > limit
