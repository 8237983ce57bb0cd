"""Where the server's bots decide: worker processes, off the event loop every room shares.

A room that wants its bots to act (or a bot to play for a person whose turn timer ran
out) builds one :class:`Ask` per seat to ask, in the asking order of
:class:`unokit.engine.driver.Driver`, each with that seat's own observation and legal
actions (nothing else of the game leaves the room), and awaits :meth:`BotPool.decide`.
The bots themselves cross the process boundary: the room keeps each seat's bot, sends
it pickled with the asks, and gets it back as it is after deciding (with what its
memory learnt), so that a bot chooses exactly as it would in the room's own process.
A bot new to the room is pickled once, when it is first asked (:func:`pickled`); it
comes back from a worker still pickled (:data:`Kept`: ``bytes``), and the room keeps
it so and sends it so, also when the cheap move is played instead: the event loop
never pickles nor unpickles a bot again (a search bot with its memory takes about
0.1 ms each way); the worker does both.

Every decision has a budget (``bot_budget`` seconds, counted from the ask). A search
bot stops its search at a deadline inside the budget and plays its best choice so far
(the ``deadline`` of :class:`unokit.bots.search.SearchBot`). A decision that is not back within the
budget (every worker busy, or a worker stuck) is replaced by :func:`cheap_decision`,
the ``playfirst`` bot's move, made at once, and the room goes on. A worker still busy
:func:`kill_after` seconds past the budget is killed and a new one started.

:class:`ProcessBotPool` is the server's pool (``bot_workers`` processes, started at the
first decision, at the lowest priority (:func:`lower_priority`), so that the rooms come
first on a busy machine). :class:`ThreadBotPool` decides in a thread of the server process
(``bot_workers = 0``): for tests and small hosts; the budget holds there too, but a
runaway decision cannot be stopped.

>>> from unokit import Game, Rules
>>> from unokit.bots import make_bot
>>> game = Game(Rules.preset("official", players=2), seed=3)
>>> seat = game.current_player
>>> ask = Ask(seat, game.observation(seat), tuple(game.legal_actions(seat)), True)
>>> decided = asyncio.run(ThreadBotPool(0.5).decide({seat: make_bot("easy", 1)}, [ask], 7))
>>> decided.seat == seat and decided.action in ask.legal, decided.fallback
(True, None)
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import pickle
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unokit.bots.base import Bot
from unokit.bots.simple import PlayFirstBot
from unokit.engine.observation import Observation
from unokit.server.settings import parse_cpus

LOG = logging.getLogger("unokit.bots")

DEADLINE_SHARE = 0.8
"""The share of the time left that a worker's search may use (the rest carries the
answer back in time)."""
MIN_SLICE = 0.25
"""A decision that waited for a worker until less than this share of its budget is left
gets the cheap move at once."""
WORKER_NICE = 19
"""How much nicer than the server the workers run (19: the lowest priority; measured
with 1,000 client rooms and 200 search-bot rooms on two cores, nice 10 left the
clients' p99 at 184 ms, nice 19 at 23 ms)."""
RESTART_PAUSE = 1.0
"""Seconds before a worker that died young is started again."""
THREADS = 4
"""Threads of a :class:`ThreadBotPool`."""


def kill_after(budget: float) -> float:
    """Seconds past a decision's budget after which a worker still on it is killed.

    >>> kill_after(0.2), kill_after(1.0)
    (1.0, 4.0)
    """
    return max(1.0, 4 * budget)


@dataclass(frozen=True)
class Ask:
    """One seat to ask: its observation, its legal actions, and whether it must act."""

    seat: int
    observation: Observation
    legal: tuple[int, ...]
    must: bool


Kept = Bot | bytes
"""A seat's bot as a room keeps it: the bot, or the bot pickled (as a worker returns
it; :func:`live` makes it a bot again)."""


def live(bot: Kept) -> Bot:
    """The bot of ``bot``, unpickled if it is pickled.

    >>> from unokit.bots import make_bot
    >>> live(pickle.dumps(make_bot("easy", 1)))
    EasyBot(seed=1, level='easy', personality='balanced')
    """
    if isinstance(bot, bytes):
        revived = pickle.loads(bot)
        assert isinstance(revived, Bot)
        return revived
    return bot


def pickled(bot: Kept) -> bytes:
    """``bot`` pickled (as it is if it is already).

    >>> from unokit.bots import make_bot
    >>> data = pickled(make_bot("easy", 1))
    >>> pickled(data) is data, live(data)
    (True, EasyBot(seed=1, level='easy', personality='balanced'))
    """
    return bot if isinstance(bot, bytes) else pickle.dumps(bot, pickle.HIGHEST_PROTOCOL)


@dataclass(frozen=True)
class Decision:
    """What the asked bots decided."""

    seat: int | None
    """The seat that acts (``None``: every seat asked let its chance go)."""
    action: int | None
    """Its action, one of its legal actions."""
    bots: Mapping[int, Kept] | None
    """The asked bots as they are now, for the room to keep (pickled when a worker
    decided); ``None``: they are lost (a thread still runs them), and the room makes
    them again."""
    fallback: str | None = None
    """Why the cheap move was played: ``late`` (not back within the budget), ``busy``
    (no worker was free in time), ``failed`` (the bot or its worker failed), ``closed``
    (the pool is closed); ``None``: the bots decided."""
    seconds: float = 0.0
    """Seconds from the ask to the answer."""


def checked(choice: object, ask: Ask) -> int | None:
    """A bot's choice made legal: the first legal action for a seat that must act and
    chose nothing or something not legal; ``None`` out of turn for a choice not legal."""
    if choice is None:
        return ask.legal[0] if ask.must else None
    return choice if isinstance(choice, int) and choice in ask.legal else ask.legal[0]


def decide(bots: Mapping[int, Bot], asks: Sequence[Ask],
           deadline: float) -> tuple[int | None, int | None]:
    """Ask the seats in order; the first ``(seat, action)`` offered, else ``(None,
    None)``. A bot with a ``deadline`` attribute (the search bot) is given ``deadline``
    (a ``time.monotonic()`` instant) for the time of its decision."""
    for ask in asks:
        bot = bots[ask.seat]
        limited = hasattr(bot, "deadline")
        if limited:
            bot.deadline = deadline  # type: ignore[attr-defined]
        try:
            action = checked(bot.choose(ask.observation, list(ask.legal)), ask)
        finally:
            if limited:
                bot.deadline = None  # type: ignore[attr-defined]
        if action is not None:
            return ask.seat, action
    return None, None


def cheap_decision(asks: Sequence[Ask], seed: int) -> tuple[int | None, int | None]:
    """The ``playfirst`` bot's decision for every seat asked (microseconds).

    >>> from unokit import Game, Rules
    >>> game = Game(Rules.preset("official", players=2), seed=3)
    >>> seat = game.current_player
    >>> legal = tuple(game.legal_actions(seat))
    >>> cheap_decision([Ask(seat, game.observation(seat), legal, True)], 1)[1] in legal
    True
    """
    bot = PlayFirstBot(seed)
    return decide({ask.seat: bot for ask in asks}, asks, 0.0)


class BotPool:
    """Decides for the bots of every room, within ``budget`` seconds per decision."""

    def __init__(self, budget: float) -> None:
        self.budget = budget
        self.decided = 0
        """Decisions the bots made."""
        self.fallbacks: collections.Counter[str] = collections.Counter()
        """Cheap moves played instead, by reason."""

    async def decide(self, bots: Mapping[int, Kept], asks: Sequence[Ask],
                     seed: int) -> Decision:
        """The decision of ``bots`` (one per seat asked) on ``asks``, or the cheap one
        (``seed`` seeds it) once the budget is spent. Never raises (but is cancelled
        with its caller)."""
        raise NotImplementedError

    async def close(self) -> None:
        """Stop at once; a decision under way gets the cheap move."""

    def _cheap(self, asks: Sequence[Ask], seed: int, why: str, started: float,
               bots: Mapping[int, Kept] | None) -> Decision:
        self.fallbacks[why] += 1
        seat, action = cheap_decision(asks, seed)
        return Decision(seat, action, bots, why, time.monotonic() - started)


class ThreadBotPool(BotPool):
    """Decides in threads of the server process (see the module docstring)."""

    def __init__(self, budget: float) -> None:
        super().__init__(budget)
        self._executor: ThreadPoolExecutor | None = None

    async def decide(self, bots: Mapping[int, Kept], asks: Sequence[Ask],
                     seed: int) -> Decision:
        started = time.monotonic()
        awake = {seat: live(bot) for seat, bot in bots.items()}  # decided on in place
        if self._executor is None:
            self._executor = ThreadPoolExecutor(THREADS, thread_name_prefix="unokit-bot")
        deadline = started + self.budget * DEADLINE_SHARE
        future = asyncio.get_running_loop().run_in_executor(self._executor, decide, awake,
                                                            asks, deadline)
        try:
            seat, action = await asyncio.wait_for(asyncio.shield(future), self.budget)
        except TimeoutError:
            return self._cheap(asks, seed, "late", started, None)
        except Exception as exc:  # the error's kind only: its text could name cards
            LOG.error("a bot failed", extra={"error": type(exc).__name__})
            return self._cheap(asks, seed, "failed", started, None)
        self.decided += 1
        return Decision(seat, action, awake, None, time.monotonic() - started)

    async def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)


def warm_up() -> None:
    """Make one small search, so that the compiled playouts are ready (numba compiles
    them, or loads them from its cache, at their first call)."""
    from unokit.bots.playout import Plain, Position, search_stats
    from unokit.engine.rules import Rules

    plain = Plain.of(Rules.preset("official", players=2))
    assert plain is not None
    spot = Position(pool=[1, 2, 3, 4], sizes=[1, 2], known=[[5], None], slots=[[], []],
                    discard=[6], color=0, direction=1, seat=0, team=[True, False])
    search_stats(plain, spot, [5, -1], 4, 1)


def pin_to(cpus: frozenset[int]) -> None:  # pragma: no cover - runs in a worker process
    """Let this process run on ``cpus`` only (none: leave it as it is), as far as the
    machine has them."""
    if not cpus or not hasattr(os, "sched_setaffinity"):
        return
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, cpus)


def lower_priority(nice: int) -> None:  # pragma: no cover - runs in a worker process
    """Make this process ``nice`` steps nicer. On Linux, where the scheduler shares the
    CPU between sessions first ("autogroups") and between a session's processes only
    then, the worker also leaves the server's session for one of its own, ``nice``
    steps nicer too: else its CPU time would count against the server's session, and
    the server would wait behind other sessions while its workers think."""
    with contextlib.suppress(OSError, AttributeError):
        os.setsid()
    with contextlib.suppress(OSError):
        Path("/proc/self/autogroup").write_text(f"{nice}\n")
    with contextlib.suppress(OSError, AttributeError):
        os.nice(nice)


def _frame(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def worker_main(nice: int, cpus: frozenset[int] = frozenset()
                ) -> None:  # pragma: no cover - runs in a worker process
    """A worker process (``python -m unokit.server.bot_pool NICE [CPUS]``), on ``cpus``
    (the setting ``bot_cpus``; none: wherever the server may run): warm up, say
    ``ready``, then answer each job ``(bots, asks, seconds)`` with ``("done", seat,
    action, bots, seconds, error)``, one length-prefixed pickle per message on stdin and
    stdout, until stdin closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    pin_to(cpus)
    lower_priority(nice)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything printed goes to stderr, never into the answers
    source = sys.stdin.buffer
    warm_up()
    out.write(_frame(pickle.dumps(("ready",))))
    out.flush()
    while True:
        head = source.read(4)
        if len(head) < 4:
            return
        data = source.read(int.from_bytes(head, "big"))
        start = time.monotonic()
        try:
            sent, asks, seconds = pickle.loads(data)
            bots = {place: live(bot) for place, bot in sent.items()}
            seat, action = decide(bots, asks, start + seconds)
            kept = {place: pickle.dumps(bot, pickle.HIGHEST_PROTOCOL)
                    for place, bot in bots.items()}  # the room keeps them pickled
            reply = pickle.dumps(("done", seat, action, kept, time.monotonic() - start,
                                  None), pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # the error's kind only: its text could name cards
            reply = pickle.dumps(("done", None, None, None, time.monotonic() - start,
                                  type(exc).__name__))
        out.write(_frame(reply))
        out.flush()


class _Job:
    __slots__ = ("asks", "bots", "deadline", "future", "seed", "started", "timer", "worker")

    def __init__(self, bots: Mapping[int, bytes], asks: Sequence[Ask], seed: int,
                 future: asyncio.Future[Decision], deadline: float) -> None:
        self.bots, self.asks, self.seed = bots, asks, seed
        self.future, self.deadline = future, deadline
        self.started = time.monotonic()
        self.timer: asyncio.TimerHandle | None = None
        self.worker: _Worker | None = None


class _Worker:
    __slots__ = ("born", "job", "killer", "process", "ready", "task")

    def __init__(self, born: float) -> None:
        self.born = born
        self.process: asyncio.subprocess.Process | None = None
        self.ready = False
        self.job: _Job | None = None
        self.killer: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None


def _worker_command(nice: int, cpus: frozenset[int] = frozenset()
                    ) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of a worker process: this Python, with this
    ``unokit`` on its path.

    >>> _worker_command(19, frozenset({1, 3}))[0][-3:]
    ['unokit.server.bot_pool', '19', '1,3']
    """
    here = str(Path(__file__).resolve().parent.parent.parent)
    path = os.environ.get("PYTHONPATH", "")
    env = {**os.environ, "PYTHONPATH": here + (os.pathsep + path if path else "")}
    pinned = [",".join(map(str, sorted(cpus)))] if cpus else []
    return [sys.executable, "-m", "unokit.server.bot_pool", str(nice), *pinned], env


class ProcessBotPool(BotPool):
    """``size`` worker processes (see the module docstring)."""

    def __init__(self, budget: float, size: int, *, nice: int = WORKER_NICE,
                 cpus: frozenset[int] = frozenset()) -> None:
        super().__init__(budget)
        self.size = size
        self.nice = nice
        self.cpus = cpus
        """The CPUs the workers run on (none: wherever the server may)."""
        self.replaced = 0
        """Workers that were killed or died, and were started again."""
        self.workers: list[_Worker] = []
        self._queue: collections.deque[_Job] = collections.deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    @property
    def ready(self) -> int:
        """Workers started and warmed up."""
        return sum(1 for w in self.workers if w.ready)

    def start(self) -> None:
        """Start the workers now (else the first decision does); they take a moment to
        warm up. Call it in the event loop that will ask for decisions."""
        if self._loop is None and not self._closed:
            self._loop = asyncio.get_running_loop()
            for _ in range(self.size):
                self._start_worker()

    # ------------------------------------------------------------ deciding
    async def decide(self, bots: Mapping[int, Kept], asks: Sequence[Ask],
                     seed: int) -> Decision:
        started = time.monotonic()
        if self._closed:
            return self._cheap(asks, seed, "closed", started, bots)
        try:
            # a bot not yet pickled (new to the room) is pickled once, here: the room
            # keeps it so even when the cheap move is played instead
            sent = {seat: pickled(bot) for seat, bot in bots.items()}
        except Exception:
            LOG.exception("a bot could not be sent to a worker")
            return self._cheap(asks, seed, "failed", started, bots)
        self.start()
        loop = asyncio.get_running_loop()
        job = _Job(sent, asks, seed, loop.create_future(), loop.time() + self.budget)
        job.timer = loop.call_at(job.deadline, self._overdue, job)
        self._queue.append(job)
        self._pump()
        try:
            return await job.future
        finally:
            if job.worker is None:  # else the timer still kills a runaway worker
                job.timer.cancel()

    def _pump(self) -> None:
        """Hand the waiting jobs to the free workers."""
        loop = self._loop
        assert loop is not None
        while self._queue:
            free = next((w for w in self.workers if w.ready and w.job is None), None)
            if free is None or free.process is None or free.process.stdin is None:
                return
            job = self._queue.popleft()
            if job.future.done():
                continue
            left = job.deadline - loop.time()
            if left < self.budget * MIN_SLICE:
                self._settle(job, "busy")
                continue
            try:
                payload = pickle.dumps((job.bots, job.asks, left * DEADLINE_SHARE),
                                       pickle.HIGHEST_PROTOCOL)
            except Exception:
                LOG.exception("a bot could not be sent to a worker")
                self._settle(job, "failed")
                continue
            free.process.stdin.write(_frame(payload))
            free.job, job.worker = job, free

    def _settle(self, job: _Job, why: str) -> None:
        """Give ``job`` the cheap move (the room keeps its bots as they were)."""
        if not job.future.done():
            job.future.set_result(self._cheap(job.asks, job.seed, why, job.started,
                                              job.bots))

    def _overdue(self, job: _Job) -> None:
        worker = job.worker
        self._settle(job, "late" if worker is not None else "busy")
        if (worker is not None and worker.job is job and worker.killer is None
                and self._loop is not None):
            worker.killer = self._loop.call_later(kill_after(self.budget), self._kill,
                                                  worker, job)

    def _kill(self, worker: _Worker, job: _Job) -> None:
        if worker.job is job and worker in self.workers:
            LOG.warning("a bot worker ran past its budget: killed and started again",
                        extra={"pid": worker.process.pid if worker.process else None})
            self._lost(worker)

    # ------------------------------------------------------------ workers
    def _start_worker(self) -> None:
        loop = self._loop
        assert loop is not None
        worker = _Worker(loop.time())
        self.workers.append(worker)
        worker.task = loop.create_task(self._serve(worker), name="bot-worker")

    async def _serve(self, worker: _Worker) -> None:
        """Start a worker and read its answers until it ends."""
        command, env = _worker_command(self.nice, self.cpus)
        try:
            process = await asyncio.create_subprocess_exec(
                *command, env=env, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE)
        except Exception:
            LOG.exception("a bot worker could not be started")
            self._lost(worker)
            return
        worker.process = process
        if worker not in self.workers:  # the pool closed meanwhile
            process.kill()
        assert process.stdout is not None
        try:
            while True:
                head = await process.stdout.readexactly(4)
                message = pickle.loads(await process.stdout.readexactly(
                    int.from_bytes(head, "big")))
                self._answer(worker, message)
        except asyncio.CancelledError:
            raise
        except asyncio.IncompleteReadError:  # the worker ended (or was killed)
            pass
        except Exception:
            LOG.exception("a bot worker's answer could not be read")
        self._lost(worker)
        with contextlib.suppress(Exception):
            await process.wait()
        transport = getattr(process, "_transport", None)  # closed while its loop runs
        if transport is not None:
            transport.close()

    def _answer(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        if message[0] == "ready":
            worker.ready = True
        elif message[0] == "done":
            job, worker.job = worker.job, None
            if worker.killer is not None:
                worker.killer.cancel()
                worker.killer = None
            _, seat, action, bots, _, error = message
            if job is not None and not job.future.done():
                if error is not None:
                    LOG.error("a bot failed", extra={"error": error})
                    self._settle(job, "failed")
                else:
                    self.decided += 1
                    job.future.set_result(Decision(seat, action, bots, None,
                                                   time.monotonic() - job.started))
        self._pump()

    def _lost(self, worker: _Worker) -> None:
        """Let a worker go (killed, dead or broken); start another unless closing."""
        if worker not in self.workers:
            return
        self.workers.remove(worker)
        loop = self._loop
        assert loop is not None
        if worker.killer is not None:
            worker.killer.cancel()
        process = worker.process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        if worker.job is not None:
            self._settle(worker.job, "failed")
        if self._closed:
            return
        self.replaced += 1
        if loop.time() - worker.born < RESTART_PAUSE:
            loop.call_later(RESTART_PAUSE, self._restart)
        else:
            self._start_worker()
        self._pump()

    def _restart(self) -> None:
        if not self._closed and len(self.workers) < self.size:
            self._start_worker()

    async def close(self) -> None:
        """Kill every worker at once (a bot thinking is not waited for) and give every
        waiting decision the cheap move."""
        self._closed = True
        processes = [w.process for w in self.workers if w.process is not None]
        tasks = [w.task for w in self.workers if w.task is not None]
        for worker in list(self.workers):
            self._lost(worker)
        while self._queue:
            self._settle(self._queue.popleft(), "closed")
        for process in processes:  # reaped: killed, they end at once
            with contextlib.suppress(Exception):
                await asyncio.wait_for(process.wait(), 5)
        for task in tasks:  # their readers see the end of the pipes
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 5)


def make_pool(workers: int, budget: float, cpus: str = "") -> BotPool:
    """The pool of ``workers`` processes (0: threads) with ``budget`` seconds per
    decision, the processes on the CPUs of the list ``cpus`` (empty: wherever the
    server may run)."""
    return (ThreadBotPool(budget) if workers == 0
            else ProcessBotPool(budget, workers, cpus=parse_cpus(cpus)))


if __name__ == "__main__":  # pragma: no cover - a worker process
    worker_main(int(sys.argv[1]) if len(sys.argv) > 1 else WORKER_NICE,
                parse_cpus(sys.argv[2]) if len(sys.argv) > 2 else frozenset())
