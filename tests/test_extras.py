"""The optional parts of unokit (the extras of ``pyproject.toml``): the engine, the bots
and the command line load none of them, and a command whose extra is missing stops with
one line naming it (exit status 2). A missing package is simulated in a fresh process by
``sys.modules[name] = None``, which makes every import of it fail."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from unokit._extras import EXTRAS, missing

SRC = Path(__file__).resolve().parent.parent / "src"
OPTIONAL = ("textual", "numpy", "numba", "matplotlib", "openskill", "gymnasium", "pettingzoo",
            "ray")


def _python(code: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300, stdin=subprocess.DEVNULL)


def _without(blocked: tuple[str, ...], body: str) -> str:
    return "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in blocked) + body


@pytest.mark.parametrize("module", ["unokit", "unokit.bots", "unokit.bots.search",
                                    "unokit.cli", "unokit.arena", "unokit.sim", "unokit.rl"])
def test_the_core_loads_no_optional_package(module: str) -> None:
    code = (f"import sys\nimport {module}\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(OPTIONAL)!r}))")
    result = _python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_search_bot_plays_without_numba_or_numpy() -> None:
    code = _without(("numba", "numpy"), (
        "from unokit import Game, Rules\n"
        "from unokit.bots.base import play\n"
        "from unokit.bots.search import SearchBot\n"
        "from unokit.bots.playout import compiled\n"
        "rules = Rules.preset('official', players=2, rounds=1)\n"
        "game = Game(rules, seed=5)\n"
        "bots = [SearchBot(s, rules=rules, iterations=4) for s in (1, 2)]\n"
        "_ = list(play(game, bots))\n"
        "print(game.is_over(), compiled())\n"))
    result = _python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True None"


def _cli(blocked: tuple[str, ...], args: list[str],
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return _python(_without(blocked, f"sys.argv = ['unokit', *{args!r}]\n"
                                     "from unokit.cli import main\nmain()\n"), cwd)


TUI = "needs the terminal game: pip install 'unokit[tui]'"
CASES = [
    (("textual",), ["play"], f"unokit play {TUI}"),
    (("textual",), ["play", "--rules", "official", "--seed", "1"], f"unokit play {TUI}"),
    (("numba",), ["simulate", "--games", "5"],
     "unokit simulate needs the simulator: pip install 'unokit[sim]'"),
    (("numpy",), ["simulate", "--rules", "party"],
     "unokit simulate needs the simulator: pip install 'unokit[sim]'"),
    (("matplotlib",), ["simulate", "--games", "5", "--plot", "plots"],
     "unokit simulate --plot needs matplotlib: pip install 'unokit[sim]'"),
    (("openskill",), ["arena", "--bots", "random,random", "--games", "2"],
     "unokit arena needs the arena's ratings: pip install 'unokit[arena]'"),
    (("matplotlib",), ["arena", "--bots", "random,random", "--games", "2", "--plot", "a.png"],
     "unokit arena --plot needs matplotlib: pip install 'unokit[arena]'"),
    (("openskill",), ["arena-merge", "part.json"],
     "unokit arena-merge needs the arena's ratings: pip install 'unokit[arena]'"),
]


@pytest.mark.parametrize(("blocked", "args", "message"), CASES,
                         ids=[" ".join(args) for _, args, _ in CASES])
def test_a_command_without_its_extra_names_it(blocked: tuple[str, ...], args: list[str],
                                              message: str, tmp_path: Path) -> None:
    result = _cli(blocked, args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"error: {message}\n"
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []  # nothing was written


def test_replay_tui_without_textual(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    made = _cli((), ["selfplay", "--rules", "official,players=2,rounds=1", "--seed", "3",
                     "--save", str(record)])
    assert made.returncode == 0, made.stderr
    result = _cli(("textual",), ["replay", str(record), "--tui"])
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"error: unokit replay --tui {TUI}\n"
    assert _cli(("textual",), ["replay", str(record)]).returncode == 0


def test_commands_of_the_core_run_without_any_extra() -> None:
    result = _cli(OPTIONAL, ["selfplay", "--rules", "official,players=3,rounds=1",
                             "--seed", "2", "--bots", "search,hard"])
    assert result.returncode == 0, result.stderr
    assert _cli(OPTIONAL, ["rules", "party"]).returncode == 0


def test_missing_names_the_extra_only_when_a_module_fails() -> None:
    assert missing("sim", "simulate", modules=("json",)) is None
    assert missing("rl", "x", modules=("json", "no_such_module_here")) == (
        "unokit x needs the RL environments: pip install 'unokit[rl]'")
    assert set(EXTRAS) == {"tui", "sim", "rl", "ray", "arena", "server"}
