"""The values of rule keys: each key's type (:class:`KeySpec`), the checks of a value
against it, and the compact one-line form's values read and written.

>>> spec = KeySpec("players", "int", 4, (2, 10), 1, "seats at the table")
>>> problems: dict[str, str] = {}
>>> coerce_value(spec, 3, problems), problems
(3, {})
>>> coerce_value(spec, "3", problems); problems
4
{'players': "expected an integer, got '3'"}
>>> [parse_scalar(text) for text in ("3", "true", "1.5", "{WC:4}")]
[3, True, 1.5, {'WC': 4}]
>>> split_items("players=3,extra_cards={WC:4,WSW:1}")
['players=3', 'extra_cards={WC:4,WSW:1}']
>>> format_value({"WC": 4, "WSW": 1})
'{WC:4,WSW:1}'
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from unokit.engine.cards import parse_card
from unokit.engine.errors import CardCodeError, Reason
from unokit.engine.jsontext import short_repr


class KeySpec(NamedTuple):
    """How one rule key is typed, what it defaults to and what it means."""

    name: str
    kind: str  # "int", "bool", "choice", "float", "optional_int", "cards"
    default: Any
    choices: tuple[Any, ...]  # for "choice"; (low, high) for numbers, high None = open
    section: int
    meaning: str


class _Unreadable(NamedTuple):
    """A value of the compact form that is not read (say why); :func:`_coerce` reports it."""

    why: str


class _LongNumber(NamedTuple):
    """An integer of the compact form too long for Python to convert."""

    digits: int


def _shown(value: Any) -> str:
    """A value as a message shows it."""
    if isinstance(value, _LongNumber):
        return Reason("a {digits}-digit number", digits=value.digits)
    return short_repr(value)


def _range_text(low: Any, high: Any) -> str:
    """``low..high``, or ``low..`` for an open range."""
    return f"{low}..{'' if high is None else high}"


def coerce_value(spec: KeySpec, value: Any, problems: dict[str, str]) -> Any:
    """Check one value against its key's type and range; record a problem if wrong."""
    name, kind = spec.name, spec.kind
    if isinstance(value, _Unreadable):
        problems[name] = value.why
        return spec.default
    if kind == "bool":
        if isinstance(value, bool):
            return value
        problems[name] = Reason("expected true or false, got {value}", value=_shown(value))
    elif kind in ("int", "optional_int"):
        if value is None and kind == "optional_int":
            return None
        if isinstance(value, _LongNumber):
            problems[name] = Reason("{value} is out of range {range}", value=_shown(value),
                                    range=_range_text(*spec.choices))
            return spec.default
        if isinstance(value, int) and not isinstance(value, bool):
            low, high = spec.choices
            if value < low or (high is not None and value > high):
                problems[name] = Reason("{value} is out of range {range}", value=_shown(value),
                                        range=_range_text(low, high))
                return spec.default
            return value
        problems[name] = (Reason("expected an integer or none, got {value}",
                                 value=_shown(value)) if kind == "optional_int"
                          else Reason("expected an integer, got {value}", value=_shown(value)))
    elif kind == "float":
        if isinstance(value, int | float) and not isinstance(value, bool):
            low, high = spec.choices
            if not low <= value <= high:
                problems[name] = Reason("{value} is out of range {range}", value=_shown(value),
                                        range=_range_text(low, high))
                return spec.default
            return float(value)
        problems[name] = Reason("expected a number, got {value}", value=_shown(value))
    elif kind == "choice":
        if value is None and "none" in spec.choices:
            return "none"  # the compact form writes the value none like a missing number
        if isinstance(value, str) and value in spec.choices:
            return value
        problems[name] = Reason("expected one of {choices}, got {value}",
                                choices=", ".join(spec.choices), value=_shown(value))
    elif kind == "cards":
        return _coerce_cards(spec, value, problems)
    return spec.default


_MAP_FORM = Reason("a map is written {example}", example="{WC:4,WSW:1}")


def _coerce_cards(spec: KeySpec, value: Any, problems: dict[str, str]) -> Any:
    if isinstance(value, tuple):
        with contextlib.suppress(TypeError, ValueError):
            value = dict(value)
    if not isinstance(value, Mapping):
        problems[spec.name] = Reason("expected a map of card code -> number, got {value} "
                                     "({form})", value=_shown(value), form=_MAP_FORM)
        return spec.default
    pairs: list[tuple[str, int]] = []
    for code, count in value.items():
        try:
            parse_card(code)
        except CardCodeError:
            problems[spec.name] = Reason("unknown card code {code} ({form})",
                                         code=_shown(code), form=_MAP_FORM)
            continue
        if code not in spec.choices:
            problems[spec.name] = Reason("{code} cannot be used here; allowed: {choices}",
                                         code=code, choices=", ".join(spec.choices))
        elif isinstance(count, _Unreadable):
            problems[spec.name] = Reason("{code}: {why}", code=code, why=count.why)
        elif not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 1000:
            problems[spec.name] = Reason("{code}: expected a whole number 0..1000, got {value}",
                                         code=code, value=_shown(count))
        elif count:
            pairs.append((code, count))
    return tuple(sorted(pairs, key=lambda pair: parse_card(pair[0])))


def split_items(text: str) -> list[str]:
    """The comma-separated items of ``text`` outside braces, stripped, empty ones kept."""
    items: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        if char == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    items.append("".join(current).strip())
    return items


_INT_TEXT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def _unquote(text: str) -> str:
    """``text`` without one pair of surrounding quotes (``"WC"`` as in JSON is ``WC``)."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def parse_scalar(raw: str) -> Any:
    """One value of the compact form: a boolean, none, a map, a number or a word."""
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    if raw.startswith("{") and raw.endswith("}"):
        inner = raw[1:-1].strip()
        out: dict[str, Any] = {}
        for item in split_items(inner) if inner else []:
            code, colon, count = item.partition(":")
            if not item or not colon:
                return _Unreadable(Reason("expected CODE:count items in the map ({form}), "
                                          "got {item}", form=_MAP_FORM, item=_shown(item)))
            out[_unquote(code.strip())] = parse_scalar(count.strip())
        return out
    if _INT_TEXT.match(raw):
        digits = len(raw.lstrip("+-"))
        if digits > 4000:
            return _LongNumber(digits)
        return int(raw)
    if _FLOAT_TEXT.match(raw):
        return float(raw)
    if ("_" in raw or not raw.isascii()) and _python_reads_number(raw):
        return _Unreadable(Reason("{value} is not a number here: write numbers with the "
                                  "digits 0-9, without underscores", value=_shown(raw)))
    return raw


def _python_reads_number(text: str) -> bool:
    """Whether ``int`` or ``float`` would read ``text`` (they take other scripts' digits
    and underscores, which the compact form does not)."""
    for convert in (int, float):
        try:
            convert(text)
        except ValueError:
            continue
        return True
    return False


def format_value(value: Any) -> str:
    """A rule value as the compact rule string writes it.

    >>> format_value(True), format_value(None), format_value((("WC", 4),)), format_value(7)
    ('true', 'none', '{WC:4}', '7')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{v}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        return format_value(dict(value))
    return str(value)


__all__ = ["KeySpec", "coerce_value", "format_value", "parse_scalar", "split_items"]
