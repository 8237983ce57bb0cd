"""Every name a docstring or comment of ``src/unokit`` points to exists.

The compiled simulator, the RL kernel and the playouts restate engine rules, and each of
their functions names the engine function it mirrors (``Game._penalty``,
``match_flow._went_out``, :func:`unokit.engine.house.answers_exist`). A rename in the
engine would leave such a pointer stale without this test. It checks Sphinx roles
(``:func:`unokit.x.y```), ``Game.name`` and ``module.name`` for the engine's modules.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

from unokit.engine.game import Game

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "unokit"
ROLE = re.compile(r":(?:func|data|meth|class|mod|attr|exc):`~?(unokit(?:\.\w+)+)`")
GAME = re.compile(r"``Game\.(\w+)``")
ENGINE_MODULES = ("actions", "attack", "cards", "events", "explain", "game", "house",
                  "match_flow", "observation", "phases", "rng", "rules", "scoring", "setup",
                  "snapshot", "state", "table", "tables")
MODULE_NAME = re.compile(r"``(" + "|".join(ENGINE_MODULES) + r")\.(\w+)``")


def resolve(dotted: str) -> object:
    """The object a dotted name means: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for size in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:size]))
        except ModuleNotFoundError:
            continue
        for name in parts[size:]:
            target = getattr(target, name)
        return target
    raise ModuleNotFoundError(dotted)


def has_name(module: ModuleType, name: str) -> bool:
    """Whether ``name`` is a module-level name of ``module`` or of a class defined there."""
    if hasattr(module, name):
        return True
    return any(hasattr(cls, name) for _, cls in inspect.getmembers(module, inspect.isclass)
               if cls.__module__ == module.__name__)


SOURCES = sorted(path for path in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_names_a_module_points_to_exist(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    missing = []
    for dotted in ROLE.findall(text):
        try:
            resolve(dotted)
        except (ImportError, AttributeError):
            missing.append(dotted)
    missing += [f"Game.{name}" for name in GAME.findall(text) if not hasattr(Game, name)]
    for module, name in MODULE_NAME.findall(text):
        if not has_name(importlib.import_module(f"unokit.engine.{module}"), name):
            missing.append(f"{module}.{name}")
    assert missing == []


def test_a_stale_pointer_is_found() -> None:
    with pytest.raises(AttributeError):
        resolve("unokit.engine.house.no_such_function")
    assert not has_name(importlib.import_module("unokit.engine.table"), "_no_such_method")
    assert has_name(importlib.import_module("unokit.engine.table"), "_challenge")
