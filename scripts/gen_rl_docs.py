#!/usr/bin/env python3
"""Write the action and observation tables of docs/rl.md from unokit.rl.encoding.

The tables sit between marker comments (``<!-- BEGIN GENERATED: actions -->`` ...
``<!-- END GENERATED: actions -->``, the same for ``observation``); everything else in
the page is left alone. ``tests/test_rl.py`` checks that the page is up to date.

Usage::

    .venv/bin/python scripts/gen_rl_docs.py          # rewrite the tables
    .venv/bin/python scripts/gen_rl_docs.py --check  # exit 1 if the page is out of date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from unokit.rl.encoding import (
    ACTION_GROUPS,
    ACTION_SIZE,
    OBSERVATION_FIELDS,
    OBSERVATION_SIZE,
    OFFSETS,
    action_name,
)

DOC = Path(__file__).resolve().parents[1] / "docs" / "rl.md"


def _span(start: int, size: int) -> str:
    return str(start) if size == 1 else f"{start}-{start + size - 1}"


def actions_table() -> str:
    """The action index blocks as a Markdown table."""
    lines = [
        f"{ACTION_SIZE} action indices (`gymnasium.spaces.Discrete({ACTION_SIZE})`):",
        "",
        "| indices | size | name | first index | meaning |",
        "|---|---|---|---|---|",
    ]
    for group in ACTION_GROUPS:
        lines.append(f"| {_span(group.start, group.size)} | {group.size} | {group.name} | "
                     f"`{action_name(group.start)}` | {group.meaning} |")
    return "\n".join(lines)


def observation_table() -> str:
    """The observation fields as a Markdown table."""
    lines = [
        f"{OBSERVATION_SIZE} numbers (`float32`), in this order:",
        "",
        "| indices | size | field | meaning |",
        "|---|---|---|---|",
    ]
    for field in OBSERVATION_FIELDS:
        lines.append(f"| {_span(OFFSETS[field.name], field.size)} | {field.size} | "
                     f"`{field.name}` | {field.meaning} |")
    return "\n".join(lines)


TABLES = {"actions": actions_table, "observation": observation_table}


def render(text: str) -> str:
    """The page with every generated table replaced by its current form.

    Raises:
        ValueError: a table's markers are missing.
    """
    for name, make in TABLES.items():
        pattern = re.compile(
            rf"(<!-- BEGIN GENERATED: {name} -->\n).*?(<!-- END GENERATED: {name} -->)",
            re.DOTALL)
        if not pattern.search(text):
            raise ValueError(f"docs/rl.md has no markers for the {name} table")
        table = make() + "\n"
        text = pattern.sub(lambda m, table=table: m.group(1) + table + m.group(2), text)
    return text


def main(argv: list[str]) -> int:
    current = DOC.read_text(encoding="utf-8")
    wanted = render(current)
    if "--check" in argv:
        if wanted != current:
            print("docs/rl.md is out of date: run scripts/gen_rl_docs.py", file=sys.stderr)
            return 1
        return 0
    if wanted != current:
        DOC.write_text(wanted, encoding="utf-8")
        print("rewrote docs/rl.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
