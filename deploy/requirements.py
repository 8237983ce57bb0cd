"""Print the entries of requirements/lock.txt (names, versions, markers and hashes) that
some extras of unokit need, for a hashed install of the server alone:

    python deploy/requirements.py server numba hatchling > server-lock.txt
    pip install --require-hashes -r server-lock.txt

Each argument is an extra of pyproject.toml (its packages) or a package name. The lock's
``# via`` notes say which packages need each one: an entry is printed when a package
named, or a package printed, needs it. Standard library only (it runs before anything is
installed). Used by deploy/Containerfile; tests/test_deploy.py checks it.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "lock.txt"
PYPROJECT = ROOT / "pyproject.toml"


def canonical(name: str) -> str:
    """A package name as pip compares them (``Typing_Extensions`` -> ``typing-extensions``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(spec: str) -> str:
    """The package a requirement names (``psycopg[binary]>=3; ...`` -> ``psycopg``)."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
    if match is None:
        raise SystemExit(f"cannot read the requirement {spec!r}")
    return canonical(match.group(1))


def entries(lock: str) -> dict[str, tuple[list[str], set[str]]]:
    """Each locked package: its entries (as written; one per environment marker, where
    the lock has several versions) and the packages that need it."""
    found: dict[str, tuple[list[str], set[str]]] = {}
    name = ""
    lines: list[str] = []
    parents: set[str] = set()

    def close() -> None:
        if name:
            written, needs = found.setdefault(name, ([], set()))
            written.append("\n".join(lines).rstrip(" \\\n"))
            needs.update(parents)

    for line in lock.splitlines():
        if line and not line.startswith((" ", "#")):
            close()
            name, lines, parents = requirement_name(line), [line], set()
        elif name and line.strip().startswith("--hash="):
            lines.append(line)
        elif name and line.strip().startswith("#"):
            note = line.strip().lstrip("#").strip()
            note = note.removeprefix("via").strip()
            if note and not note.startswith("-r"):
                parents.add(requirement_name(note))
    close()
    return found


def roots(names: list[str]) -> set[str]:
    """The packages the arguments name: extras expanded (with the core dependencies)."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    extras: dict[str, list[str]] = project.get("optional-dependencies", {})
    wanted = {requirement_name(spec) for spec in project.get("dependencies", [])}
    for name in names:
        if name in extras:
            for spec in extras[name]:
                if requirement_name(spec) == "unokit":  # an extra of extras
                    inner = re.search(r"\[(.*)\]", spec)
                    wanted |= roots(inner.group(1).split(",") if inner else [])
                else:
                    wanted.add(requirement_name(spec))
        else:
            wanted.add(canonical(name))
    return wanted


def needed(names: list[str], lock: str) -> list[str]:
    """The lock's entries for ``names`` and everything they need, in the lock's order."""
    locked = entries(lock)
    keep = roots(names)
    missing = sorted(keep - set(locked))
    if missing:
        raise SystemExit(f"not in {LOCK.name}: {', '.join(missing)}")
    while True:
        more = {name for name, (_, parents) in locked.items()
                if name not in keep and parents & keep}
        if not more:
            break
        keep |= more
    return [entry for name, (written, _) in locked.items() if name in keep
            for entry in written]


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    print("\n".join(needed(argv, LOCK.read_text(encoding="utf-8"))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
