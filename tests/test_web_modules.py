"""The web client's modules as code: no import cycle among them (the screens never
import the hub), ESLint clean with the repository's ``.eslintrc.json``, and the unit
tests of the pure modules (``tests/web/*.test.mjs``, run by ``node --test``) passing.

ESLint and Node are Debian's (``scripts/install_web_tools.sh`` installs them; ``make
test`` and ``.ci/run`` run it). Without them these tests fail, saying so: they never
skip. Nothing is installed from a package registry; the client has no build step and
needs no Node at run time.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from unokit.web import STATIC

ROOT = Path(__file__).resolve().parent.parent
WEB_TESTS = ROOT / "tests" / "web"
NODE_PATH = "/usr/share/nodejs:/usr/lib/nodejs"
"""Where Debian keeps ESLint's own modules (a Node from elsewhere does not look there)."""

IMPORT = re.compile(
    r"""^\s*(?:import\s*|(?:import|export)\s[^;'"()=]*?\sfrom\s*)["']([^"']+)["']"""
    r"""|\bimport\(\s*["']([^"']+)["']\s*\)""", re.M)
"""A static ``import``/``export ... from`` or a dynamic ``import("...")`` of a module."""


# ---------------------------------------------------------------- import cycles
def imports(text: str) -> list[str]:
    """The modules that a module's source imports (``./x.js`` -> ``x.js``).

    >>> imports('import { h } from "./dom.js";\\nexport { a } from "./b.js";')
    ['dom.js', 'b.js']
    """
    found = [a or b for a, b in IMPORT.findall(text)]
    return [Path(ref).name for ref in found if ref.startswith("./")]


def module_graph(folder: Path = STATIC) -> dict[str, list[str]]:
    """Each ES module of ``folder`` -> the modules it imports."""
    return {p.name: imports(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.js"))}


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (its modules, the first repeated at the end), or
    None when it has none.

    >>> find_cycle({"a.js": ["b.js"], "b.js": ["c.js"], "c.js": []}) is None
    True
    >>> find_cycle({"a.js": ["b.js"], "b.js": ["c.js"], "c.js": ["a.js"]})
    ['a.js', 'b.js', 'c.js', 'a.js']
    """
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        if name in path:
            return [*path[path.index(name):], name]
        if name in done:
            return None
        path.append(name)
        for child in graph.get(name, []):
            cycle = visit(child)
            if cycle:
                return cycle
        path.pop()
        done.add(name)
        return None

    for name in sorted(graph):
        cycle = visit(name)
        if cycle:
            return cycle
    return None


def test_the_client_modules_import_each_other_without_a_cycle() -> None:
    graph = module_graph()
    assert {"app.js", "store.js", "table.js", "lobby.js"} <= set(graph)
    for name, targets in graph.items():
        missing = [t for t in targets if t not in graph]
        assert not missing, f"{name} imports {missing}, which are not modules here"
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_cycle_check_sees_a_cycle_through_the_hub(tmp_path: Path) -> None:
    """The check fails on what the client once had: the hub imports a screen, which
    imports names back from the hub."""
    (tmp_path / "app.js").write_text('import { tableView } from "./table.js";\n')
    (tmp_path / "table.js").write_text('import { S, act } from "./app.js";\n'
                                       'const later = () => import("./dom.js");\n')
    (tmp_path / "dom.js").write_text("export const BASE = '';\n")
    graph = module_graph(tmp_path)
    assert graph["table.js"] == ["app.js", "dom.js"]
    assert find_cycle(graph) == ["app.js", "table.js", "app.js"]


def test_no_module_imports_the_hub_and_only_the_store_holds_state() -> None:
    graph = module_graph()
    assert not [name for name, targets in graph.items() if "app.js" in targets]
    screens = ["lobby.js", "room.js", "table.js", "ends.js"]
    for name in screens:
        assert "store.js" in graph[name], name
        text = (STATIC / name).read_text(encoding="utf-8")
        # a screen keeps no state of its own: no module-level `let` of game or room data
        lets = re.findall(r"^let (\w+)", text, re.M)
        assert lets in ([], ["press"]), (name, lets)  # table.js: the long press under way


STATE_WRITE = re.compile(
    r"\b(?:S|state)\.[\w.\[\]\"]+\s*(?:=(?!=)|\+=|-=|\+\+|--)"
    r"|\b(?:S|state)\.[\w.]+\.(?:push|pop|splice|delete|set|add|clear)\(")
"""A write to the store's state object by name (``S.x = ...``, ``state.x.push(...)``)."""


def state_writes(text: str) -> list[str]:
    """The lines of a module that write to the state directly, not through ``update``.

    >>> state_writes('update((s) => { s.name = "Ann"; });\\nS.name = "Bob";')
    ['S.name = "Bob";']
    >>> state_writes('if (S.code === code) go();')
    []
    """
    return [line.strip() for line in text.splitlines() if STATE_WRITE.search(line)]


def test_only_the_store_writes_the_state_outside_update() -> None:
    """Every change of the state goes through ``store.js`` (``update(change)``, its
    ``receive`` and the like), so that every change is seen by the subscribers."""
    writes = {p.name: found for p in sorted(STATIC.glob("*.js")) if p.name != "store.js"
              if (found := state_writes(p.read_text(encoding="utf-8")))}
    assert writes == {}, writes


# ---------------------------------------------------------------- ESLint
def tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        pytest.fail(f"{name} is missing: run scripts/install_web_tools.sh (make test does)",
                    pytrace=False)
    return found


def eslint(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NODE_PATH": os.pathsep.join(
        filter(None, [NODE_PATH, os.environ.get("NODE_PATH")]))}
    return subprocess.run([tool("eslint"), "--format", "unix", *args], cwd=ROOT, env=env,
                          input=stdin, capture_output=True, text=True, timeout=300,
                          check=False)


def test_eslint_finds_nothing_in_the_client_and_its_tests() -> None:
    done = eslint("--max-warnings", "0", "--ext", ".js,.mjs", "src/unokit/web/static", "tests/web")
    assert done.returncode == 0, done.stdout + done.stderr


def test_eslint_with_this_config_fails_on_a_mistake() -> None:
    """The linter is no stand-in: an undefined name and a reassigned const fail."""
    source = 'import { h } from "./dom.js";\nconst n = 1;\nn = 2;\nexport const x = [h, n, nope];\n'
    done = eslint("--stdin", "--stdin-filename", "src/unokit/web/static/broken.js",
                  stdin=source)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "'nope' is not defined" in done.stdout, done.stdout
    assert "no-const-assign" in done.stdout, done.stdout


# ---------------------------------------------------------------- node --test
def test_the_unit_tests_of_the_modules_pass() -> None:
    files = sorted(str(p.relative_to(ROOT)) for p in WEB_TESTS.glob("*.test.mjs"))
    assert len(files) >= 4, files
    done = subprocess.run([tool("node"), "--test", "--test-reporter=tap", *files], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-6000:]
    passed = re.search(r"^# pass (\d+)$", out, re.M)
    failed = re.search(r"^# fail (\d+)$", out, re.M)
    assert passed and failed, out[-2000:]
    assert int(failed.group(1)) == 0 and int(passed.group(1)) >= 25, out[-2000:]
