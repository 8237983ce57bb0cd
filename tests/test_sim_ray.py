"""The simulator's Ray backend: the same chunks of seeds as Ray tasks on a local Ray
instance give the same games, and so the same statistics, as the local backend.

One local Ray instance (2 CPUs) serves the whole module: it is started and shut down by
:func:`unokit.sim.ray_backend.connection`, the code the backend itself uses, and the runs
inside it find Ray initialised and use it. The tests that need no running instance (ray
missing, an unreachable address) come first.
"""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from unokit.cli import app
from unokit.engine.rules import Rules
from unokit.sim import ray_backend
from unokit.sim.ray_backend import BackendError, check_reachable, parse_address
from unokit.sim.runner import default_chunk, simulate
from unokit.sim.stats import report

# One worker runs the whole module under pytest-xdist (``--dist loadgroup``), so that one
# Ray instance serves it.
pytestmark = pytest.mark.xdist_group("ray")

runner = CliRunner()
RULES = Rules.preset("official", players=4, rounds=1)
GAMES = 2_000
SEED = 2**64 - 700  # the seeds wrap around 2**64 inside the run
TIMING = ("seconds", "jobs", "games_per_second", "actions_per_second")


def run(*args: str | Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["simulate", *[str(a) for a in args]],
                         env={"COLUMNS": "200"})


def without_timing(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key not in TIMING}


# ------------------------------------------------------------------ no instance needed
def test_missing_ray_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails
    with pytest.raises(BackendError, match="ray is not installed"):
        ray_backend.import_ray()
    with pytest.raises(BackendError, match="ray is not installed"):
        simulate(RULES, 10, backend="ray")
    result = run("--games", "10", "--backend", "ray")
    assert result.exit_code == 2
    assert "error: --backend ray: ray is not installed" in result.output
    assert "unokit[ray]" in result.output and "--backend local" in result.output
    assert "Traceback" not in result.output


def test_unreachable_address_is_a_clear_error() -> None:
    with socket.socket() as sock:  # a port that nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = run("--games", "10", "--backend", "ray", "--ray-address", f"127.0.0.1:{port}")
    assert result.exit_code == 1, result.output
    assert f"cannot reach the Ray cluster at '127.0.0.1:{port}'" in result.output
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, BackendError)


def test_addresses() -> None:
    assert parse_address("ray://head:10001") == ("head", 10001)
    assert parse_address("[::1]:6379") == ("::1", 6379)
    assert parse_address("auto") is None and parse_address("head") is None
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        check_reachable(f"127.0.0.1:{sock.getsockname()[1]}")


def test_backend_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown backend"):
        simulate(RULES, 10, backend="dask")
    with pytest.raises(ValueError, match="only for the ray backend"):
        simulate(RULES, 10, address="127.0.0.1:6379")


# ------------------------------------------------------------------ a local instance
@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    with ray_backend.connection(None, 2) as ray:
        assert ray.cluster_resources()["CPU"] == 2
        yield ray
    assert not ray.is_initialized()  # the backend shuts its own instance down


def test_ray_gives_the_local_backends_games(ray_instance: Any) -> None:
    chunks: list[int] = []
    local = simulate(RULES, GAMES, SEED, "random", jobs=2, keep_scores=True, backend="local")
    remote = simulate(RULES, GAMES, SEED, "random", jobs=2, keep_scores=True, backend="ray",
                      on_chunk=chunks.append)
    assert ray_instance.is_initialized()  # a caller's instance is left running
    size = default_chunk(GAMES, 2)
    assert chunks and sum(chunks) == GAMES and max(chunks) == size
    assert len(chunks) == -(-GAMES // size)
    assert remote.extra["backend"] == "ray" and remote.extra["chunk"] == size
    for name, column in local.columns.items():
        assert np.array_equal(column, remote.columns[name]), name
    assert np.array_equal(local.digests, remote.digests)
    assert local.scores is not None and remote.scores is not None
    assert np.array_equal(local.scores, remote.scores)
    assert without_timing(report(local).to_dict()) == without_timing(report(remote).to_dict())


def test_simulate_command_on_ray(ray_instance: Any, tmp_path: Path) -> None:
    args = ["--rules", "classic_ru,players=3", "--games", "600", "--policy",
            "playfirst,random", "--seed", "11", "--jobs", "2"]
    local = run(*args, "--json", tmp_path / "local.json")
    assert local.exit_code == 0, local.output
    remote = run(*args, "--backend", "ray", "--json", tmp_path / "ray.json")
    assert remote.exit_code == 0, remote.output
    assert "2 jobs" in remote.output and "600/600" in remote.output
    reports = [json.loads((tmp_path / name).read_text())["reports"]
               for name in ("local.json", "ray.json")]
    assert [without_timing(rep) for rep in reports[0]] == \
        [without_timing(rep) for rep in reports[1]]
    assert reports[0][0]["games"] == 600


def test_an_address_while_ray_is_running_is_refused(ray_instance: Any) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        address = f"127.0.0.1:{sock.getsockname()[1]}"
        with pytest.raises(BackendError, match="already initialised"):
            simulate(RULES, 10, backend="ray", address=address)


def test_a_failing_chunk_is_a_clear_error(ray_instance: Any) -> None:
    chunks = ray_backend.run_chunks(ray_instance, [(0, 10)], "no_such_preset",
                                    ["random"] * 4, 100, False, 0)
    with pytest.raises(BackendError, match=r"a chunk failed on Ray(.|\n)*no_such_preset"):
        list(chunks)
