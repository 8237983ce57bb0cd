"""The package's layers: every import in ``src/unokit`` points down, never up or sideways.

    engine  <-  formats, bots, text  <-  sim, rl, arena, testing  <-  tui (server, store)  <-  cli

A module may import modules of its own package, and of the layers below its own. Within a
layer, packages do not import each other, except where ``SIDEWAYS`` says so (the RL fast
backend runs the simulator's compiled kernel; the simulator never imports the RL package;
the client speaks the server's protocol models; the server never imports the client;
the terminal game plays online through the client).
Every import statement counts, those inside functions and under ``TYPE_CHECKING`` too.
The engine imports nothing outside the standard library, and importing it loads no
third-party module.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "unokit"

LAYERS: dict[str, int] = {
    "unokit._version": 0,
    "unokit._extras": 0,
    "unokit.engine": 0,
    "unokit.formats": 1,
    "unokit.bots": 1,
    "unokit.text": 1,
    # The message catalogues (standard library only) and the web client's static files.
    "unokit.i18n": 1,
    "unokit.web": 1,
    "unokit.sim": 2,
    "unokit.rl": 2,
    "unokit.arena": 2,
    "unokit.testing": 2,
    "unokit.tui": 3,
    "unokit.server": 3,
    # The server's durable state sits under the server (it knows nothing of rooms).
    "unokit.store": 2,
    "unokit.client": 3,
    # The command line gathers every front end's commands (``unokit play``, ...).
    "unokit.cli": 4,
    # The package itself re-exports the public API: the top of the house.
    "unokit": 5,
}
"""The layer of each part of the package: a part imports only parts of lower layers."""

SIDEWAYS = {("unokit.rl", "unokit.sim"), ("unokit.client", "unokit.server"),
            ("unokit.tui", "unokit.client")}
"""Imports allowed between two parts of one layer: (importer, imported)."""


def part_of(module: str) -> str:
    """The part of the package (a key of ``LAYERS``) that ``module`` belongs to.

    >>> part_of("unokit.engine.game"), part_of("unokit"), part_of("unokit.cli")
    ('unokit.engine', 'unokit', 'unokit.cli')
    """
    two = ".".join(module.split(".")[:2])
    if two in LAYERS:
        return two
    if module.split(".")[0] == "unokit":
        return "unokit"
    raise AssertionError(f"{module}: not in any layer of tests/test_layers.py")


def module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(name: str) -> bool:
    path = SRC.joinpath(*name.split("."))
    return path.is_dir() or path.with_suffix(".py").is_file()


def imports_of(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports (line, absolute name), relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            # ``from unokit import bots`` imports the module unokit.bots.
            subs = [f"{name}.{alias.name}" for alias in node.names
                    if is_module(f"{name}.{alias.name}")]
            found += [(node.lineno, sub) for sub in subs]
            if len(subs) < len(node.names):
                found.append((node.lineno, name))
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer() -> None:
    # A new top-level module or package must be given its layer above.
    for path in MODULES:
        name = module_name(path)
        assert part_of(name) != "unokit" or name.count(".") <= 1, name


def violations(imports: Callable[[Path], list[tuple[int, str]]] = imports_of) -> list[str]:
    """Every import against the layers, as ``file:line: what``."""
    found = []
    for path in MODULES:
        here = module_name(path)
        mine = part_of(here)
        for line, name in imports(path):
            if name != "unokit" and not name.startswith("unokit."):
                if mine == "unokit.engine" and name.split(".")[0] not in sys.stdlib_module_names:
                    found.append(f"{path.relative_to(SRC)}:{line}: the engine imports {name}")
                continue
            if name == "unokit" and mine != "unokit":
                found.append(f"{path.relative_to(SRC)}:{line}: imports the package itself")
                continue
            theirs = part_of(name)
            if theirs == mine:
                continue
            if LAYERS[theirs] > LAYERS[mine] or (
                    LAYERS[theirs] == LAYERS[mine] and (mine, theirs) not in SIDEWAYS):
                found.append(f"{path.relative_to(SRC)}:{line}: {mine} (layer {LAYERS[mine]}) "
                             f"imports {name} (layer {LAYERS[theirs]})")
    return found


def test_imports_point_down() -> None:
    assert violations() == []


def test_the_check_sees_an_upward_import() -> None:
    # The check itself: an engine module that imported the bots would be reported.
    game = PACKAGE / "engine" / "game.py"

    def with_one_more(path: Path) -> list[tuple[int, str]]:
        extra = [(9999, "unokit.bots")] if path == game else []
        return imports_of(path) + extra

    assert violations(with_one_more) == [
        "unokit/engine/game.py:9999: unokit.engine (layer 0) imports unokit.bots (layer 1)"]


@pytest.mark.parametrize("package", ["unokit.engine", "unokit.testing"])
def test_importing_loads_only_the_standard_library(package: str) -> None:
    # The engine, and the checking kit that ships with it, need nothing else.
    code = (f"import sys\nbefore = set(sys.modules)\nimport {package}\n"
            "print(sorted({m.split('.')[0] for m in set(sys.modules) - before}"
            " - set(sys.stdlib_module_names) - {'unokit', '__mp_main__'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
