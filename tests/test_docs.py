"""The documentation's examples are tests: every ``>>>`` example in ``docs/*.md``, in
``README.md`` and in the docstrings of every module of ``unokit`` must pass.

The Markdown files are run with :func:`doctest.testfile`, one namespace per file, so a
page may build on its earlier examples. An example whose expected output is followed by
a closing code fence needs a blank line before the fence (doctest would otherwise read
the fence as output). Examples that write files do so in a temporary directory.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import unokit

ROOT = Path(__file__).resolve().parent.parent
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _markdown_files() -> list[Path]:
    files = sorted((ROOT / "docs").glob("*.md"))
    readme = ROOT / "README.md"
    if ">>>" in readme.read_text(encoding="utf-8"):
        files.append(readme)
    return files


def _module_names() -> list[str]:
    names = {"unokit"}
    for info in pkgutil.walk_packages(unokit.__path__, prefix="unokit."):
        if info.name.rsplit(".", 1)[-1] != "__main__":
            names.add(info.name)
    return sorted(names)


MARKDOWN_FILES = _markdown_files()
MODULES = _module_names()


@pytest.mark.parametrize("path", MARKDOWN_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_markdown_examples(path: Path) -> None:
    result = doctest.testfile(str(path), module_relative=False, optionflags=FLAGS,
                              encoding="utf-8")
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"


@pytest.mark.parametrize("name", MODULES)
def test_module_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"


def test_the_documented_pages_are_tested() -> None:
    names = {path.name for path in MARKDOWN_FILES}
    assert {"api.md", "records.md", "determinism.md", "README.md"} <= names
    assert "unokit.engine.game" in MODULES and "unokit.bots.base" in MODULES


def test_readme_starts_with_the_two_commands() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# unokit"
    assert lines[4:8] == [
        "```",
        "make run    # set up .venv and serve the game: open the address it prints, press"
        ' "Play now"',
        "make test   # set up .venv and run the whole test suite",
        "```",
    ]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "run: venv\n\t$(BIN)/unokit serve\n" in makefile
    assert "play: venv\n\t$(BIN)/unokit play\n" in makefile
