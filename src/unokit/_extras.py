"""The optional parts of unokit and the packages each needs (the extras of
``pyproject.toml``).

``pip install unokit`` gives the engine, the bots and the command line (typer and rich);
each other part is an extra: ``unokit[tui]``, ``unokit[sim]``, ``unokit[rl]``,
``unokit[ray]``, ``unokit[arena]``, or all of them with ``unokit[all]``. A command that
needs an extra checks for it first with :func:`missing` and stops with one line naming
it:

>>> missing("tui", "play") is None or missing("tui", "play").startswith("unokit play needs")
True
>>> missing("sim", "simulate --plot", modules=("no_such_module",), what="matplotlib")
"unokit simulate --plot needs matplotlib: pip install 'unokit[sim]'"
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import NamedTuple


class Extra(NamedTuple):
    """One optional part: what it is and the modules it imports."""

    what: str
    modules: tuple[str, ...]


EXTRAS: dict[str, Extra] = {
    "tui": Extra("the terminal game", ("textual",)),
    "sim": Extra("the simulator", ("numpy", "numba")),
    "rl": Extra("the RL environments", ("numpy", "gymnasium", "pettingzoo")),
    "ray": Extra("the simulator's Ray backend", ("numpy", "numba", "ray")),
    "arena": Extra("the arena's ratings", ("openskill",)),
    "server": Extra("the game server and its client",
                    ("starlette", "uvicorn", "websockets", "msgspec", "sqlalchemy", "alembic",
                     "httpx")),
}
"""Each extra of ``pyproject.toml`` but ``all`` and ``dev``: what it gives and the
modules it needs (plots need matplotlib too, in ``sim`` and ``arena``)."""


def missing(extra: str, command: str, *, modules: Sequence[str] | None = None,
            what: str | None = None) -> str | None:
    """``None`` if the modules of ``extra`` (or ``modules``, a part of it) import; else the
    line telling that ``unokit COMMAND`` needs that extra (or ``what``) and how to
    install it."""
    part = EXTRAS[extra]
    for module in part.modules if modules is None else modules:
        try:
            importlib.import_module(module)
        except ImportError:
            return (f"unokit {command} needs {what or part.what}: "
                    f"pip install 'unokit[{extra}]'")
    return None


__all__ = ["EXTRAS", "Extra", "missing"]
