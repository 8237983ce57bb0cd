"""The Ray backend of :func:`unokit.sim.runner.simulate`: the same chunks of seeds, played
as Ray tasks on a local Ray instance or on a Ray cluster.

Each chunk is one task that runs :meth:`unokit.sim.runner.Simulator.run` (the compiled
batch loop) for its range of seeds and returns the same arrays as a local worker process,
so the runner merges them with the same code and a run gives the same per-game results,
and so the same statistics, on either backend.

ray is an optional dependency (the ``ray`` extra); it is imported only here, and only
when the backend is used. Without it, or when the cluster cannot be reached,
:class:`BackendError` says so.

>>> parse_address("ray://head.example:10001")
('head.example', 10001)
>>> parse_address("127.0.0.1:6379")
('127.0.0.1', 6379)
>>> parse_address("auto") is None
True
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import socket
from collections.abc import Iterable, Iterator
from typing import Any

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for the cluster's address to accept a connection."""

START_ATTEMPTS = 3
"""Tries to start a local Ray instance (its start can time out on a loaded machine)."""

AGENT_TIMEOUT_MS = 120_000
"""How long a local instance's raylet waits for its agent processes to start (ms)."""


class BackendError(RuntimeError):
    """The Ray backend cannot run: ray is not installed, or the cluster cannot be
    reached."""


def import_ray() -> Any:
    """The ``ray`` module.

    Raises:
        BackendError: ray is not installed.
    """
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise BackendError(
            "ray is not installed; install the ray extra (pip install 'unokit[ray]') or "
            "use --backend local (the default), which runs the games in --jobs processes "
            "on this machine") from exc


def parse_address(address: str) -> tuple[str, int] | None:
    """The host and port of a cluster address (``HOST:PORT`` or ``ray://HOST:PORT``), or
    ``None`` for an address Ray resolves itself (``auto``, ``local``) or one without a
    port."""
    text = address.strip()
    text = text.removeprefix("ray://")
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Fail fast when nothing listens at the cluster's address.

    Raises:
        BackendError: the address does not accept a TCP connection.
    """
    target = parse_address(address)
    if target is None:
        return
    try:
        with socket.create_connection(target, timeout=timeout):
            pass
    except OSError as exc:
        raise BackendError(f"cannot reach the Ray cluster at {address!r}: "
                           f"{exc.strerror or exc}") from exc


@contextlib.contextmanager
def connection(address: str | None, jobs: int) -> Iterator[Any]:
    """Ray, initialised for the run, as the ``ray`` module.

    Without ``address`` a local Ray instance with ``jobs`` CPUs is started, and shut down
    at the end; with one, the driver connects to that cluster and disconnects at the end.
    When Ray is already initialised in this process (by the caller) and no address is
    given, that instance is used and left running.

    Raises:
        BackendError: ray is not installed, the cluster cannot be reached, or Ray is
            already initialised and an address is given.
    """
    ray = import_ray()
    if address is not None:
        check_reachable(address)
    if ray.is_initialized():
        if address is not None:
            raise BackendError("ray is already initialised in this process; call "
                               "ray.shutdown() first to run on the cluster at "
                               f"{address!r}")
        yield ray
        return
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                               "logging_level": logging.ERROR}
    if address is None:
        # A private instance: on the loopback address, no usage statistics sent anywhere,
        # and patient with a slow start of its agent processes on a busy machine (whose
        # start does not compete with prestarted workers: they start with the first task).
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        os.environ.setdefault("RAY_enable_worker_prestart", "0")
        os.environ.setdefault("RAY_agent_register_timeout_ms", str(AGENT_TIMEOUT_MS))
        os.environ.setdefault("RAY_raylet_start_wait_time_s", str(AGENT_TIMEOUT_MS // 1000))
        options["num_cpus"] = jobs
        options["_node_ip_address"] = "127.0.0.1"
    else:
        options["address"] = address
    attempts = START_ATTEMPTS if address is None else 1
    for attempt in range(1, attempts + 1):
        try:
            ray.init(**options)
            break
        except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ...
            with contextlib.suppress(Exception):
                ray.shutdown()  # whatever part of the instance did start
            if attempt < attempts:
                continue
            where = "start a local Ray instance" if address is None else \
                f"connect to the Ray cluster at {address!r}"
            raise BackendError(f"cannot {where}: {exc}") from exc
    try:
        yield ray
    finally:
        ray.shutdown()


def _chunk_task(rules_text: str, policies: list[str], max_actions: int, keep_scores: bool,
                seed: int, start: int, count: int) -> tuple[int, Any, Any, Any]:
    """One chunk in a Ray worker: the games with seeds ``seed + start`` ... (the same call
    as a local worker's)."""
    from unokit.sim.runner import worker_simulator

    sim = worker_simulator(rules_text, policies, max_actions)
    out, digests, scores = sim.run(seed + start, count, keep_scores)
    return start, out, digests, scores


def run_chunks(ray: Any, chunks: Iterable[tuple[int, int]], rules_text: str,
               policies: list[str], max_actions: int, keep_scores: bool, seed: int,
               ) -> Iterator[tuple[int, Any, Any, Any]]:
    """Submit every chunk as a task and yield ``(start, columns, digests, scores)`` as
    each one finishes (in any order). A chunk whose worker dies is tried again, twice.

    Raises:
        BackendError: a chunk failed (its error, from the worker, is in the message).
    """
    task = ray.remote(num_cpus=1, max_retries=2)(_chunk_task)
    pending = [task.remote(rules_text, policies, max_actions, keep_scores, seed, start,
                           count)
               for start, count in chunks]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    raise BackendError(f"a chunk failed on Ray: {exc}") from exc
                yield result
    finally:
        for ref in pending:  # an error or an interrupt: drop the rest of the run
            with contextlib.suppress(Exception):
                ray.cancel(ref)


__all__ = ["AGENT_TIMEOUT_MS", "CONNECT_TIMEOUT", "START_ATTEMPTS", "BackendError",
           "check_reachable", "connection", "import_ray", "parse_address", "run_chunks"]
