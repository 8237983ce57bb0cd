"""The server's metrics, in Prometheus's text format at ``GET /metrics``.

Each application has its own :class:`Metrics` (a private ``CollectorRegistry``, not
``prometheus_client``'s global one, so that several servers can live in one process).
The rest of the server reports to it with one-line calls; what can be counted when
``/metrics`` is read (rooms by status, connections by kind) is counted then. What every
action counts (its origin, its commit's time) is kept as plain numbers on the event loop
and handed to the registry when ``/metrics`` is read (:class:`_ActionCounts`): no lock
per action.

========================================  ==============================================
``unokit_rooms{status}``                  rooms in memory: lobby, playing, finished
``unokit_connections{kind}``              open WebSockets: player, spectator, pending
                                          (no hello yet)
``unokit_actions_total{origin}``          actions applied and committed (player, bot,
                                          timeout, ...)
``unokit_commit_seconds``                 an action's commit, as its room waited for it
``unokit_bot_decision_seconds``           one server bot's decision
``unokit_event_loop_lag_seconds``         how late the event loop woke a sleeper
``unokit_errors_total{code}``             errors sent to clients, by protocol code
``unokit_http_requests_total{route,status}``  HTTP requests, by route and status
``unokit_http_request_seconds{route}``    their durations
``unokit_process_info{process}``          1, labelled with this process's name as its
                                          room leases name it (``host/pidns/pid/nonce``):
                                          which process of a cluster a scrape came from
========================================  ==============================================

>>> metrics = Metrics()
>>> metrics.action("player", 0.002)
>>> metrics.sent(b'{"type":"error","code":"illegal","message":"no"}')
>>> text = metrics.render().decode()
>>> 'unokit_actions_total{origin="player"} 1.0' in text
True
>>> 'unokit_errors_total{code="illegal"} 1.0' in text
True
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import itertools
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    Info,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

T = TypeVar("T")

disable_created_metrics()  # type: ignore[no-untyped-call]  # no ``*_created`` series: they double every counter's lines

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The media type of Prometheus's text format."""

FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Histogram buckets (seconds) for work that should take milliseconds."""

LAG_EVERY = 0.5
"""Seconds between two measurements of the event loop's lag."""

_ERROR_PREFIX = b'{"type":"error","code":"'
ERROR_CODE_LIMIT = 32
"""The longest error code counted under its own label (longer: ``other``)."""


class _Live(Collector):
    """What is counted when ``/metrics`` is read, from a function the server gives."""

    def __init__(self, read: Callable[[], tuple[dict[str, int], dict[str, int]]]) -> None:
        self.read = read

    def collect(self) -> Iterator[GaugeMetricFamily]:
        rooms, connections = self.read()
        by_status = GaugeMetricFamily("unokit_rooms", "Rooms in memory, by status",
                                      labels=["status"])
        for status in ("lobby", "playing", "finished"):
            by_status.add_metric([status], rooms.get(status, 0))
        yield by_status
        by_kind = GaugeMetricFamily("unokit_connections", "Open WebSocket connections, by "
                                    "kind", labels=["kind"])
        for kind in ("player", "spectator", "pending"):
            by_kind.add_metric([kind], connections.get(kind, 0))
        yield by_kind


class _ActionCounts(Collector):
    """``unokit_actions_total`` and ``unokit_commit_seconds``, counted on the event loop
    (:meth:`Metrics.action`) and read as they stand when ``/metrics`` is read.

    >>> counts = _ActionCounts()
    >>> counts.add("player", 0.003)
    >>> counts.add("player", 9.0)
    >>> actions, commit = counts.collect()
    >>> [(s.name, s.labels, s.value) for s in actions.samples]
    [('unokit_actions_total', {'origin': 'player'}, 2.0)]
    >>> [(s.labels["le"], s.value) for s in commit.samples if "le" in s.labels][3:5]
    [('0.005', 1.0), ('0.01', 1.0)]
    >>> [(s.name, s.value) for s in commit.samples if "le" not in s.labels]
    [('unokit_commit_seconds_count', 2.0), ('unokit_commit_seconds_sum', 9.003)]
    """

    def __init__(self) -> None:
        self.actions: dict[str, int] = {}
        self.commits = [0] * (len(FAST) + 1)
        """Commits by bucket: ``commits[i]`` took at most ``FAST[i]`` and more than the
        bound before (the last: more than every bound)."""
        self.commit_sum = 0.0

    def add(self, origin: str, commit_seconds: float) -> None:
        """One action of ``origin`` committed after ``commit_seconds``."""
        actions = self.actions
        actions[origin] = actions.get(origin, 0) + 1
        seconds = max(0.0, commit_seconds)
        self.commits[bisect.bisect_left(FAST, seconds)] += 1
        self.commit_sum += seconds

    def collect(self) -> Iterator[CounterMetricFamily | HistogramMetricFamily]:
        actions = CounterMetricFamily("unokit_actions", "Actions applied and committed, "
                                      "by origin", labels=["origin"])
        for origin, count in sorted(self.actions.items()):
            actions.add_metric([origin], float(count))
        yield actions
        cumulative = [float(c) for c in itertools.accumulate(list(self.commits))]
        bounds = [floatToGoString(b) for b in FAST] + ["+Inf"]  # type: ignore[no-untyped-call]
        yield HistogramMetricFamily(
            "unokit_commit_seconds", "Seconds a room waited for an action's commit",
            buckets=list(zip(bounds, cumulative, strict=True)), sum_value=self.commit_sum)


class Metrics:
    """One server's metrics (see the module's table)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self._action_counts = _ActionCounts()
        r.register(self._action_counts)
        self.bot_decision = Histogram("unokit_bot_decision_seconds", "Seconds one server "
                                      "bot's decision took", buckets=FAST, registry=r)
        self.loop_lag = Histogram("unokit_event_loop_lag_seconds", "Seconds the event loop "
                                  "woke a sleeper late", buckets=FAST, registry=r)
        self.errors = Counter("unokit_errors", "Errors sent to clients, by code", ["code"],
                              registry=r)
        self.http = Counter("unokit_http_requests", "HTTP requests, by route and status",
                            ["route", "status"], registry=r)
        self.http_seconds = Histogram("unokit_http_request_seconds", "Seconds an HTTP "
                                      "request took, by route", ["route"], buckets=FAST,
                                      registry=r)
        self.open_sockets = 0
        """WebSocket connections open now (the server adds and takes away)."""
        self._live: _Live | None = None
        self._process: Info | None = None

    def identify(self, process: str) -> None:
        """Name this process in ``unokit_process_info`` (its lease owner's text).

        >>> metrics = Metrics()
        >>> metrics.identify("host/4026531836/42/0a1b2c3d4e5f")
        >>> 'unokit_process_info{process="host/4026531836/42/0a1b2c3d4e5f"} 1.0' in (
        ...     metrics.render().decode())
        True
        """
        if self._process is None:
            self._process = Info("unokit_process", "This server process (the name its "
                                 "room leases give it)", registry=self.registry)
        self._process.info({"process": process})

    def watch(self, read: Callable[[], tuple[dict[str, int], dict[str, int]]]) -> None:
        """Count rooms and connections with ``read`` when the metrics are read:
        ``read()`` gives rooms by status and seated connections by kind."""
        if self._live is None:
            self._live = _Live(read)
            self.registry.register(self._live)
        else:
            self._live.read = read

    def render(self) -> bytes:
        """The metrics in Prometheus's text format."""
        return generate_latest(self.registry)

    # ------------------------------------------------------------ one-line hooks
    def action(self, origin: str, commit_seconds: float) -> None:
        """An action was committed after its room waited ``commit_seconds``."""
        self._action_counts.add(origin, commit_seconds)

    @contextlib.contextmanager
    def bot_timer(self) -> Iterator[None]:
        """Time a server bot's decision: ``with metrics.bot_timer(): bot.act(...)``."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.bot_decision.observe(time.perf_counter() - started)

    def timed(self, decide: Callable[..., T], *args: Any) -> T:
        """``decide(*args)``, its time recorded as a bot decision."""
        started = time.perf_counter()
        try:
            return decide(*args)
        finally:
            self.bot_decision.observe(time.perf_counter() - started)

    def sent(self, data: bytes) -> None:
        """A message is on its way to a client: an error is counted by its code."""
        if data.startswith(_ERROR_PREFIX):
            end = data.find(b'"', len(_ERROR_PREFIX))
            code = data[len(_ERROR_PREFIX):end].decode(errors="replace")
            if end < 0 or len(code) > ERROR_CODE_LIMIT:
                code = "other"
            self.errors.labels(code).inc()

    def request(self, route: str, status: int, seconds: float) -> None:
        """An HTTP request to ``route`` (its pattern, not its path) was answered."""
        self.http.labels(route, str(status)).inc()
        self.http_seconds.labels(route).observe(seconds)

    async def measure_lag(self, every: float = LAG_EVERY,
                          clock: Callable[[], float] | None = None,
                          sleep: Callable[[float], Any] = asyncio.sleep,
                          times: int | None = None) -> None:
        """Sleep ``every`` seconds again and again (``times`` times; ``None``: until
        cancelled) and record how much later than asked the loop woke up."""
        now = clock or asyncio.get_running_loop().time
        count = 0
        while times is None or count < times:
            started = now()
            await sleep(every)
            self.loop_lag.observe(max(0.0, now() - started - every))
            count += 1


def count_rooms(rooms: Iterable[Any]) -> tuple[dict[str, int], dict[str, int]]:
    """Rooms by status and their connections by kind (seated players, spectators), from
    rooms that have ``status`` and ``conns`` (each connection with a ``viewer``)."""
    statuses: dict[str, int] = {}
    kinds = {"player": 0, "spectator": 0}
    for room in rooms:
        statuses[room.status] = statuses.get(room.status, 0) + 1
        for conn in room.conns:
            kinds["player" if conn.viewer >= 0 else "spectator"] += 1
    return statuses, kinds


NO_METRICS = Metrics()
"""The metrics of a room that no server watches (a room rebuilt to show a record, the
tests' rooms): counted, never read."""
