"""Running the simulator: many games, in chunks, in one or more processes.

Game ``i`` of a run with seed ``S`` has the seed ``(S + i) mod 2**64``, whatever the
number of processes or the chunk size, so a run is reproducible and any game of it can be
replayed on the engine (:func:`unokit.sim.policies.play_reference`).

>>> from unokit.engine.rules import Rules
>>> result = simulate(Rules.preset("official", players=2, rounds=1), games=20, seed=5,
...                   policies="playfirst")
>>> len(result.winner), int(result.winner.min()) >= 0
(20, True)
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from unokit.engine.rules import Rules
from unokit.sim import loop
from unokit.sim.kernel import S_ACTIONS, new_state
from unokit.sim.policies import DEFAULT_MAX_ACTIONS, POLICIES, seat_policies
from unokit.sim.support import kernel_bonus, kernel_deck, kernel_params

MASK64 = (1 << 64) - 1

COLUMNS = ("winner", "points", "actions", "plays", "draws", "turns", "rounds", "blocked",
           "first", "dealer", "repeated")
"""The per-game results, in the order of the kernel's ``C_*`` columns."""

BACKENDS = ("local", "ray")
"""Where :func:`simulate` plays: processes on this machine, or Ray tasks."""


@dataclass
class SimResult:
    """Per-game results of a run, as arrays of one entry per game (game ``i`` has seed
    ``seed + i``)."""

    rules: Rules
    policies: list[str]
    seed: int
    games: int
    seconds: float
    jobs: int
    columns: dict[str, npt.NDArray[np.int64]]
    digests: npt.NDArray[np.uint64]
    scores: npt.NDArray[np.int64] | None = None
    """Final scores, ``(games, players)``; kept only when asked for."""
    extra: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> npt.NDArray[np.int64]:
        columns = self.__dict__.get("columns", {})
        if name in columns:
            return columns[name]  # type: ignore[no-any-return]
        raise AttributeError(name)

    @property
    def actions_total(self) -> int:
        """Actions over every game."""
        return int(self.columns["actions"].sum())

    def games_per_second(self) -> float:
        """Games per second of wall time."""
        return self.games / self.seconds if self.seconds > 0 else float("inf")


class Simulator:
    """The compiled kernel set up for one rule set and the policies by seat.

    Raises:
        RulesError: the simulator does not play some key of the rules.
        PolicyError: an unknown policy name.
    """

    def __init__(self, rules: Rules, policies: str | Sequence[str] = "random",
                 max_actions: int = DEFAULT_MAX_ACTIONS) -> None:
        self.rules = rules
        self.policies = seat_policies(policies, rules.players)
        self.max_actions = max_actions
        codes = np.array([POLICIES.index(name) for name in self.policies], dtype=np.int64)
        self.state = new_state(kernel_params(rules), kernel_bonus(rules), kernel_deck(rules),
                               codes)

    def run(self, first_seed: int, count: int, keep_scores: bool = False,
            ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64],
                       npt.NDArray[np.int64] | None]:
        """Play the games with seeds ``first_seed``, ``first_seed + 1``, ... (mod 2**64):
        ``(columns (count, len(COLUMNS)), digests, scores or None)``."""
        seeds = (np.arange(count, dtype=np.uint64) + np.uint64(first_seed & MASK64))
        out = np.zeros((count, loop.N_COLS), dtype=np.int64)
        scores = np.zeros((count, self.rules.players), dtype=np.int64)
        digests = np.zeros(count, dtype=np.uint64)
        loop.run_batch(self.state, seeds, self.max_actions, out, scores, digests)
        return out, digests, (scores if keep_scores else None)

    def record(self, seed: int) -> list[int]:
        """The actions of the game with this seed (engine action integers)."""
        record = np.zeros(self.max_actions, dtype=np.int64)
        loop.play_recorded(self.state, np.uint64(seed & MASK64), self.max_actions, record)
        count = int(self.state[S_ACTIONS])
        return [int(a) for a in record[:count]]


def warm_up() -> None:
    """Compile the kernel (or load it from numba's cache) by playing one short game."""
    Simulator(Rules.preset("official", players=2, rounds=1), "playfirst").run(0, 1)


def _chunks(games: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, games, size):
        yield start, min(size, games - start)


def default_chunk(games: int, jobs: int) -> int:
    """Games per chunk: small enough for a lively progress bar and for every process to
    get work, large enough that the calls cost nothing."""
    return max(200, min(50_000, games // max(1, jobs * 40) or 1))


# Worker processes keep one simulator, built from the rules text at start.
_WORKER: dict[str, Any] = {}

# Ray workers keep the simulators of the runs they have played chunks of.
_SIMULATORS: dict[tuple[str, tuple[str, ...], int], Simulator] = {}


def worker_simulator(rules_text: str, policies: Sequence[str], max_actions: int) -> Simulator:
    """A simulator for these rules, policies and limit, kept for this process's later
    chunks (Ray tasks run many chunks in one worker process)."""
    key = (rules_text, tuple(policies), max_actions)
    sim = _SIMULATORS.get(key)
    if sim is None:
        if len(_SIMULATORS) >= 8:
            _SIMULATORS.clear()
        sim = _SIMULATORS[key] = Simulator(Rules.from_string(rules_text), policies,
                                           max_actions)
    return sim


def _worker_init(rules_text: str, policies: list[str], max_actions: int,
                 keep_scores: bool, seed: int) -> None:
    _WORKER["sim"] = sim = Simulator(Rules.from_string(rules_text), policies, max_actions)
    sim.run(0, 1)  # load the compiled kernel before the first chunk
    _WORKER["keep_scores"] = keep_scores
    _WORKER["seed"] = seed


def _worker_run(task: tuple[int, int]) -> tuple[int, Any, Any, Any]:
    start, count = task
    sim: Simulator = _WORKER["sim"]
    out, digests, scores = sim.run(_WORKER["seed"] + start, count, _WORKER["keep_scores"])
    return start, out, digests, scores


def simulate(rules: Rules, games: int, seed: int = 0, policies: str | Sequence[str] = "random",
             jobs: int = 1, chunk: int | None = None, keep_scores: bool = False,
             max_actions: int = DEFAULT_MAX_ACTIONS,
             on_chunk: Callable[[int], None] | None = None, backend: str = "local",
             address: str | None = None) -> SimResult:
    """Play ``games`` games (seeds ``seed``, ``seed + 1``, ...) in ``jobs`` processes,
    ``chunk`` games at a time; ``on_chunk(n)`` is called as each chunk of ``n`` games
    is done.

    ``backend="ray"`` plays the same chunks as Ray tasks: on a local Ray instance with
    ``jobs`` CPUs, started and shut down here, or on the cluster at ``address``
    (:mod:`unokit.sim.ray_backend`). The chunks, and so the results, do not depend on the
    backend.

    Raises:
        RulesError: the simulator does not play some key of ``rules``.
        PolicyError: an unknown policy.
        ValueError: bad counts, an unknown backend.
        BackendError: (``unokit.sim.ray_backend``) ray is not installed or the cluster
            cannot be reached.
    """
    if games < 1:
        raise ValueError("games must be at least 1")
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise ValueError("an address is only for the ray backend")
    sim = Simulator(rules, policies, max_actions)  # checks the rules and policies first
    if backend == "ray":
        from unokit.sim.ray_backend import import_ray

        import_ray()  # before compiling: is ray there at all?
    size = chunk or default_chunk(games, jobs)
    out = np.zeros((games, loop.N_COLS), dtype=np.int64)
    digests = np.zeros(games, dtype=np.uint64)
    scores = np.zeros((games, rules.players), dtype=np.int64) if keep_scores else None
    warm_up()
    started = time.perf_counter()

    def store(start: int, part: Any, part_digests: Any, part_scores: Any) -> None:
        count = len(part)
        out[start: start + count] = part
        digests[start: start + count] = part_digests
        if scores is not None:
            scores[start: start + count] = part_scores
        if on_chunk is not None:
            on_chunk(count)

    if backend == "ray":
        from unokit.sim import ray_backend

        with ray_backend.connection(address, jobs) as ray:
            for start, part, part_digests, part_scores in ray_backend.run_chunks(
                    ray, _chunks(games, size), rules.to_string(), sim.policies, max_actions,
                    keep_scores, seed):
                store(start, part, part_digests, part_scores)
    elif jobs == 1:
        for start, count in _chunks(games, size):
            part, part_digests, part_scores = sim.run(seed + start, count, keep_scores)
            store(start, part, part_digests, part_scores)
    else:
        context = multiprocessing.get_context("spawn")  # no fork of a threaded parent
        init = (rules.to_string(), sim.policies, max_actions, keep_scores, seed)
        with context.Pool(jobs, initializer=_worker_init, initargs=init) as pool:
            for start, part, part_digests, part_scores in pool.imap_unordered(
                    _worker_run, _chunks(games, size)):
                store(start, part, part_digests, part_scores)
    seconds = time.perf_counter() - started
    columns = {name: out[:, index].copy() for index, name in enumerate(COLUMNS)}
    return SimResult(rules=rules, policies=sim.policies, seed=seed, games=games,
                     seconds=seconds, jobs=jobs, columns=columns, digests=digests,
                     scores=scores, extra={"chunk": size, "cpu_count": os.cpu_count(),
                                           "backend": backend, "address": address})


__all__ = ["BACKENDS", "COLUMNS", "SimResult", "Simulator", "default_chunk", "simulate",
           "warm_up", "worker_simulator"]
