"""The server's settings: flags of ``unokit serve``, else ``UNOKIT_*`` environment
variables, else the embedded defaults (SQLite in ``./unokit-data``, 127.0.0.1:8000).

>>> s = Settings.from_env({"UNOKIT_PORT": "9000", "UNOKIT_TURN_TIMER": "30"})
>>> s.port, s.turn_timer, s.database_url.endswith("unokit-data/unokit.db")
(9000, 30, True)
>>> Settings.from_env({"UNOKIT_TURN_TIMER": "20"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
unokit.server.settings.SettingsError: UNOKIT_TURN_TIMER: the turn timer is 0 (off), ... not 20
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from unokit.engine.errors import UnoError
from unokit.store.boards import Policy

TURN_TIMERS = (0, 15, 30, 60)
"""The turn timers a room may have, in seconds (0: off)."""

LOG_LEVELS = ("debug", "info", "warning", "error")
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
"""How ``redis_url`` may begin."""
LOBBY_LIMIT = 7 * 24 * 3600.0
"""The longest seat and lobby timeouts and the longest ``abandon_after`` (a week), in
seconds."""
KEEP_LIMIT = 36500.0
"""The longest ``keep_finished`` and ``keep_lobbies`` (a hundred years), in days."""

OTHER_VARIABLES = frozenset({
    "UNOKIT_LANG",  # the language of the command line (unokit.i18n)
    "UNOKIT_TEST_POSTGRES_URL",  # tests: the PostgreSQL server to test against
    "UNOKIT_PG_DIR",  # scripts/pg_test_server.sh: where its throwaway server lives
    "UNOKIT_TEST_REDIS_URL",  # tests: the Redis server to test against
    "UNOKIT_REDIS_DIR",  # scripts/redis_test_server.sh: where its throwaway server lives
    "UNOKIT_CLUSTER_DIR",  # scripts/cluster.sh: the local cluster's folder
    "UNOKIT_CLUSTER_PORT",  # scripts/cluster.sh: its proxy's port
    "UNOKIT_CLUSTER_SERVER_PORTS",  # scripts/cluster.sh: its servers' ports
    "UNOKIT_PGBOUNCER_DIR",  # scripts/pgbouncer_test_server.sh: where its PgBouncer lives
    "UNOKIT_PARITY_GAMES",  # tests: how many games the RLCard parity checks play
    "UNOKIT_CHROMIUM",  # tests: the Chromium the browser tests drive
    "UNOKIT_API_TOKEN",  # unokit play --server, unokit bot: an account's API token
})
"""``UNOKIT_*`` variables that other parts of unokit read: the server lets them be (any
other ``UNOKIT_*`` variable that is not a setting stops it, named)."""


class SettingsError(UnoError):
    """A setting that cannot be used, named with the flag or variable it came from."""


@dataclass(frozen=True)
class Settings:
    """Everything ``unokit serve`` can be told."""

    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: str = "unokit-data"
    database_url: str = ""
    """SQLAlchemy URL; empty: SQLite in ``data_dir``."""
    log_level: str = "info"
    turn_timer: int = 0
    """The default turn timer of a new room (seconds; 0: off)."""
    catch_grace: float = 1.0
    """Seconds after a player plays down to one card without calling during which the
    call still counts and no catch is decided (docs/fairness.md)."""
    timer_scale: float = 1.0
    """What every turn timer is multiplied by: 1 in play; tests and drills shorten the
    timers with it (0.05 makes a 15 s timer 0.75 s)."""
    bot_delay: float = 0.8
    """Seconds a bot waits before acting, so that people can follow."""
    round_pause: float = 10.0
    """Seconds between rounds before bots (or the timer) start the next one."""
    public_url: str = ""
    """The address invite links start with; empty: ``http://HOST:PORT``."""
    rate: float = 20.0
    """Messages per second a connection may send, on average."""
    burst: int = 40
    """Messages a connection may send at once."""
    seat_timeout: float = 120.0
    """Seconds a person's seat in the lobby stays theirs while no connection holds it
    (a dropped join, a player who went); then it is freed."""
    lobby_timeout: float = 3600.0
    """Seconds a room in the lobby stays open while no seated person is connected; then
    it is closed."""
    abandon_after: float = 600.0
    """Seconds a match under way goes on while no seated person is connected (bots and
    spectators do not count); then it is closed as ``abandoned``."""
    keep_finished: float = 90.0
    """Days a match that is over (finished or abandoned) is kept, its record and its
    reveal with it; then its rows are deleted (0: kept for ever)."""
    keep_lobbies: float = 1.0
    """Days a lobby closed before its match started is kept; then its rows are deleted
    (0: kept for ever)."""
    # ---- limits (docs/server.md, "Limits"); a per-address limit of 0 is off
    max_body: int = 64 * 1024
    """Bytes an HTTP request body may have; a longer one is refused (413) while read."""
    max_json_depth: int = 32
    """How deep arrays and objects may nest in any JSON input (HTTP bodies and
    WebSocket messages)."""
    max_frame: int = 64 * 1024
    """Bytes a WebSocket frame may have; the connection of a larger one is closed
    (1009). Messages over 4096 bytes are refused with ``too_large`` before that."""
    handshake_rate: float = 5.0
    """WebSocket handshakes per second one address may make, on average."""
    handshake_burst: int = 50
    """WebSocket handshakes one address may make at once."""
    conns_per_address: int = 200
    """Open WebSocket connections one address may hold."""
    max_conns: int = 20000
    """Open WebSocket connections the server holds at most (then ``busy``)."""
    room_rate: float = 0.2
    """Rooms per second one address may create, on average (0.2: 12 a minute)."""
    room_burst: int = 20
    """Rooms one address may create at once."""
    lobbies_per_address: int = 20
    """Rooms in the lobby that one address's creations may hold at a time."""
    max_rooms: int = 10000
    """Rooms the server holds in memory at most (then new rooms get ``busy``)."""
    head_timeout: float = 10.0
    """Seconds a client has to send a whole HTTP request head."""
    idle_timeout: float = 5.0
    """Seconds an idle HTTP keep-alive connection stays open."""
    room_list_max: int = 100
    """The most rooms one page of ``GET /api/rooms`` lists (its ``limit``)."""
    room_list_ttl: float = 1.0
    """Seconds the open-room list is reused before it is built again."""
    ws_ping_interval: float = 60.0
    """Seconds between the server's WebSocket pings on a connection, which find clients
    that went without closing (0: no pings). Each ping costs the server a little CPU
    per connection; uvicorn's own default, 20 s, is three times as many."""
    ws_ping_timeout: float = 30.0
    """Seconds a client has to answer a ping (a pong) before its connection is closed."""
    presence_interval: float = 1.0
    """Seconds between two room messages that only tell of spectators coming and going."""
    allowed_origins: str = ""
    """Comma-separated origins (``https://uno.example``) whose pages may use the
    WebSocket and the POST API, besides the server's own (``*``: any)."""
    lease: float = 15.0
    """Seconds this process's hold on a room (its lease) lasts without renewal; another
    process on the same database takes the room over only after it ran out."""
    lease_renew: float = 5.0
    """Seconds between two renewals of this process's leases (and two looks for rooms
    whose lease ran out, to take them over); less than ``lease``."""
    redis_url: str = ""
    """The Redis that several server processes on one database share
    (``redis://host:6379/0``): a process relays the rooms another one owns through it
    (:mod:`unokit.server.relay`). Empty: one process, no Redis."""
    db_connect_timeout: float = 5.0
    """Seconds a new database connection may take before it counts as failed."""
    db_statement_timeout: float = 5.0
    """Seconds the database may spend on one statement (or waiting for a lock) before
    it gives up on it (SQLite: its busy timeout)."""
    db_wait: float = 0.0
    """Seconds ``unokit serve`` waits for the database at start before it gives up
    (0: for ever)."""
    log_format: str = "auto"
    """``json``, ``text`` or ``auto`` (text at a terminal, else JSON)."""
    access_log: bool = True
    """Log one line per HTTP request (logger ``unokit.access``)."""
    metrics: bool = True
    """Serve ``GET /metrics`` (Prometheus's text format)."""
    metrics_allow: str = ""
    """Comma-separated addresses or networks that may read ``/metrics`` (empty: any)."""
    migrate: str = "auto"
    """At start: ``auto`` migrates the schema, ``check`` refuses to start unless it is
    current, ``off`` does neither (``unokit migrate`` does it)."""
    admin_token: str = ""
    """The bearer token of the admin API (``/admin/``); empty: the one in the file
    ``admin-token`` of the data directory, written (owner-only) at first start."""
    word_list: str = ""
    """A file of words (one a line) that names and chat lines may not contain."""
    base_path: str = ""
    """The path the server is reached under behind a proxy (``/uno``); empty: ``/``."""
    forwarded_allow_ips: str = "127.0.0.1"
    """The proxies whose ``X-Forwarded-For``/``-Proto`` are believed (comma-separated;
    ``*``: any)."""
    bot_workers: int = field(default_factory=lambda: default_bot_workers())
    """Worker processes the server's bots decide in (0: a thread of the server process,
    for tests and small hosts; a runaway decision there cannot be stopped)."""
    bot_cpus: str = ""
    """The CPUs the bot workers run on, as a Linux CPU list (``1-3``); empty: wherever
    the server may run. With the server itself pinned elsewhere (``taskset -c 0``), the
    workers never take the event loop's CPU."""
    bot_budget: float = 0.2
    """Seconds a server bot may think per decision; then its best move so far, or the
    cheap ``playfirst`` move, is played."""
    bot_max_iterations: int = 6000
    """The most deals per decision a ``search:N`` bot may be asked for over the network
    (a stored spec above it is lowered to it)."""
    # ---- accounts (docs/accounts.md)
    hash_workers: int = 2
    """Threads that hash passwords (argon2id, one core each): the server's budget for
    hashing, never spent on the event loop."""
    hash_queue: int = 32
    """Password checks waiting or running at most; past half of them only logins from
    an address an account signed in from before are taken (the rest: 503)."""
    hash_memory_kib: int = 65536
    """The memory cost of an argon2id hash, in KiB (64 MiB; tests use less)."""
    login_rate: float = 0.05
    """Logins, signups and password checks per second one address may try (3 a minute)."""
    login_burst: int = 10
    """... at once."""
    account_rate: float = 0.01
    """Failed logins per second one account may take, on average (one every 100 s)
    from addresses it never signed in from; then those are refused (429) unhashed."""
    account_burst: int = 10
    """... at once."""
    guest_rate: float = 0.1
    """Guests per second one address may make (``POST /api/guest``)."""
    guest_burst: int = 30
    """... at once."""
    session_days: float = 90.0
    """Days a session stays valid after it was last used."""
    rating_provisional_sigma: float = 6.5
    """A rating is provisional, and off the leaderboards, while its sigma is at least
    this (docs/accounts.md)."""
    leaderboard_min_matches: int = 20
    """Rated matches a player needs to be on the leaderboards."""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.database_url:
            object.__setattr__(self, "database_url",
                               f"sqlite:///{Path(self.data_dir).absolute() / 'unokit.db'}")
        check(self)

    @property
    def base_url(self) -> str:
        """Where the server is reached: :attr:`public_url` or ``http://HOST:PORT``, with
        :attr:`base_path` after it unless the public URL ends with it already."""
        root = self.public_url.rstrip("/") or f"http://{self.host}:{self.port}"
        return root if root.endswith(self.base_path) else root + self.base_path

    def origins(self) -> list[str]:
        """:attr:`allowed_origins` as a list (without trailing slashes)."""
        return [o.strip().rstrip("/") for o in self.allowed_origins.split(",") if o.strip()]

    def with_(self, **changes: Any) -> Settings:
        """These settings with some changed (``None`` values are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``UNOKIT_HOST``, ``UNOKIT_PORT``, ``UNOKIT_DATA_DIR``,
        ``UNOKIT_DATABASE_URL``, ``UNOKIT_LOG_LEVEL``, ``UNOKIT_TURN_TIMER``,
        ``UNOKIT_CATCH_GRACE``, ``UNOKIT_TIMER_SCALE``, ``UNOKIT_BOT_DELAY``,
        ``UNOKIT_ROUND_PAUSE``, ``UNOKIT_PUBLIC_URL``, ``UNOKIT_RATE``, ``UNOKIT_BURST``,
        ``UNOKIT_SEAT_TIMEOUT``, ``UNOKIT_LOBBY_TIMEOUT``, ``UNOKIT_ABANDON_AFTER``,
        ``UNOKIT_KEEP_FINISHED``, ``UNOKIT_KEEP_LOBBIES``, ``UNOKIT_LEASE``,
        ``UNOKIT_LEASE_RENEW``, ``UNOKIT_DB_CONNECT_TIMEOUT``,
        ``UNOKIT_DB_STATEMENT_TIMEOUT``, ``UNOKIT_DB_WAIT``, ``UNOKIT_LOG_FORMAT``,
        ``UNOKIT_ACCESS_LOG``, ``UNOKIT_METRICS``, ``UNOKIT_METRICS_ALLOW``,
        ``UNOKIT_MIGRATE``, ``UNOKIT_ADMIN_TOKEN``, ``UNOKIT_WORD_LIST``,
        ``UNOKIT_BASE_PATH``, ``UNOKIT_FORWARDED_ALLOW_IPS``, ``UNOKIT_BOT_WORKERS``,
        ``UNOKIT_BOT_CPUS``, ``UNOKIT_BOT_BUDGET``, ``UNOKIT_BOT_MAX_ITERATIONS``, and
        the limits (every field, its name in capitals after ``UNOKIT_``:
        ``UNOKIT_MAX_BODY``, ...). Any other ``UNOKIT_*`` variable, unless in
        :data:`OTHER_VARIABLES`, is refused.

        Raises:
            SettingsError: naming the variable.
        """
        env = os.environ if env is None else env
        unknown_variables(env)
        values: dict[str, Any] = {}
        for spec in fields(cls):
            if spec.name == "extra":
                continue
            name = f"UNOKIT_{spec.name.upper()}"
            if name not in env:
                continue
            text = env[name]
            kind = _KINDS.get(spec.name, "text")
            try:
                values[spec.name] = (int(text) if kind == "int" else float(text)
                                     if kind == "number" else _flag(text)
                                     if kind == "flag" else text)
            except ValueError:
                wanted = {"int": "an integer", "flag": "on or off"}.get(kind, "a number")
                raise SettingsError(f"{name}: expected {wanted}, got {text!r}") from None
        try:
            return cls(**values)
        except SettingsError as exc:
            field_name = str(exc).split(":", 1)[0]
            raise SettingsError(f"UNOKIT_{field_name.upper()}:{str(exc).split(':', 1)[1]}"
                                ) from None


def parse_cpus(text: str) -> frozenset[int]:
    """The CPUs of a CPU list as Linux writes them (``0-3,6``); empty: none named.

    >>> sorted(parse_cpus("1-3,6")), parse_cpus("")
    ([1, 2, 3, 6], frozenset())
    >>> parse_cpus("2-1")
    Traceback (most recent call last):
    ...
    ValueError: '2-1': a range runs upwards (1-2, not 2-1)
    """
    cpus: set[int] = set()
    for part in (p.strip() for p in text.split(",") if p.strip()):
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise ValueError(f"{part!r}: not a CPU number or range (0, 2-3)")
        first, last = int(low), int(high or low)
        if last < first:
            raise ValueError(f"{part!r}: a range runs upwards ({last}-{first}, not {part})")
        if last > 4095:
            raise ValueError(f"{part!r}: CPU numbers stop at 4095")
        cpus.update(range(first, last + 1))
    return frozenset(cpus)


def default_bot_workers(cpus: int | None = None) -> int:
    """The default :attr:`Settings.bot_workers`: one CPU fewer than the machine has (so
    that busy workers always leave one to the event loop every room shares), at least
    one and at most two (``cpus``: the machine's, :func:`os.cpu_count`).

    >>> [default_bot_workers(n) for n in (1, 2, 3, 16)]
    [1, 1, 2, 2]
    """
    count = os.cpu_count() if cpus is None else cpus
    return max(1, min(2, (count or 1) - 1))


_KINDS = {"port": "int", "turn_timer": "int", "burst": "int", "catch_grace": "number",
          "bot_workers": "int", "bot_budget": "number", "bot_max_iterations": "int",
          "timer_scale": "number", "bot_delay": "number", "round_pause": "number",
          "rate": "number", "seat_timeout": "number", "lobby_timeout": "number",
          "abandon_after": "number", "keep_finished": "number", "keep_lobbies": "number",
          "max_body": "int", "max_json_depth": "int", "max_frame": "int",
          "handshake_rate": "number", "handshake_burst": "int", "conns_per_address": "int",
          "max_conns": "int", "room_rate": "number", "room_burst": "int",
          "lobbies_per_address": "int", "max_rooms": "int", "head_timeout": "number",
          "idle_timeout": "number", "room_list_max": "int", "room_list_ttl": "number",
          "presence_interval": "number", "ws_ping_interval": "number",
          "ws_ping_timeout": "number", "lease": "number", "lease_renew": "number",
          "db_connect_timeout": "number", "db_statement_timeout": "number",
          "db_wait": "number", "access_log": "flag", "metrics": "flag",
          "hash_workers": "int", "hash_queue": "int", "hash_memory_kib": "int",
          "login_rate": "number", "login_burst": "int", "account_rate": "number",
          "account_burst": "int", "guest_rate": "number", "guest_burst": "int",
          "session_days": "number", "rating_provisional_sigma": "number",
          "leaderboard_min_matches": "int"}

_RANGES: dict[str, tuple[float, float, str]] = {
    "max_body": (1024, 64 * 1024 * 1024, "bytes"),
    "max_json_depth": (2, 1000, "levels"),
    "max_frame": (4096, 16 * 1024 * 1024, "bytes"),
    "handshake_rate": (0, 1e6, "handshakes per second (0: no limit)"),
    "handshake_burst": (1, 1_000_000, "handshakes"),
    "conns_per_address": (0, 1_000_000, "connections (0: no limit)"),
    "max_conns": (1, 10_000_000, "connections"),
    "room_rate": (0, 1e6, "rooms per second (0: no limit)"),
    "room_burst": (1, 1_000_000, "rooms"),
    "lobbies_per_address": (0, 1_000_000, "rooms (0: no limit)"),
    "max_rooms": (1, 10_000_000, "rooms"),
    "head_timeout": (0.01, 3600, "seconds"),
    "idle_timeout": (0.01, 3600, "seconds"),
    "room_list_max": (1, 10_000, "rooms"),
    "room_list_ttl": (0, 60, "seconds"),
    "presence_interval": (0, 60, "seconds"),
    "ws_ping_interval": (0, 3600, "seconds (0: no pings)"),
    "ws_ping_timeout": (1, 3600, "seconds"),
    "hash_workers": (1, 64, "threads"),
    "hash_queue": (2, 10_000, "password checks"),
    "hash_memory_kib": (8, 4 * 1024 * 1024, "KiB"),
    "login_rate": (0, 1e6, "attempts per second (0: no limit)"),
    "login_burst": (1, 1_000_000, "attempts"),
    "account_rate": (0, 1e6, "failed logins per second (0: no limit)"),
    "account_burst": (1, 1_000_000, "failed logins"),
    "guest_rate": (0, 1e6, "guests per second (0: no limit)"),
    "guest_burst": (1, 1_000_000, "guests"),
    "session_days": (0.001, 36500, "days"),
    "rating_provisional_sigma": (0.1, 100, "sigma"),
    "leaderboard_min_matches": (0, 1_000_000, "rated matches"),
}
"""The ranges of the limits: (least, most, unit)."""


def unknown_variables(env: Mapping[str, str]) -> None:
    """Refuse ``UNOKIT_*`` variables that are neither a setting nor one of
    :data:`OTHER_VARIABLES`: a misspelt one would otherwise be ignored in silence.

    >>> unknown_variables({"UNOKIT_DATABSE_URL": "db", "HOME": "/"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    unokit.server.settings.SettingsError: UNOKIT_DATABSE_URL: ... UNOKIT_DATABASE_URL?)

    Raises:
        SettingsError: naming every unknown variable.
    """
    known = {f"UNOKIT_{spec.name.upper()}" for spec in fields(Settings) if spec.name != "extra"}
    wrong = sorted(name for name in env if name.startswith("UNOKIT_")
                   and name not in known and name not in OTHER_VARIABLES)
    if not wrong:
        return
    lines = []
    for name in wrong:
        close = difflib.get_close_matches(name, sorted(known | OTHER_VARIABLES), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        lines.append(f"{name}: not a setting{hint}")
    raise SettingsError("; ".join(lines))


def _flag(text: str) -> bool:
    """``on``/``off`` (also ``1``/``0``, ``true``/``false``, ``yes``/``no``)."""
    word = text.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


def check(settings: Settings) -> None:
    """Raise :class:`SettingsError` (``field: why``) for a setting out of range, NaN or
    infinite."""
    for spec in fields(settings):
        value = getattr(settings, spec.name)
        if isinstance(value, float) and not math.isfinite(value):
            raise SettingsError(f"{spec.name}: a finite number, not {value}")
    if not 0 < settings.port < 65536:
        raise SettingsError(f"port: 1..65535, not {settings.port}")
    if settings.turn_timer not in TURN_TIMERS:
        raise SettingsError(f"turn_timer: the turn timer is 0 (off), 15, 30 or 60 seconds, "
                            f"not {settings.turn_timer}")
    if settings.log_level not in LOG_LEVELS:
        raise SettingsError(f"log_level: one of {', '.join(LOG_LEVELS)}, not "
                            f"{settings.log_level!r}")
    for name in ("catch_grace", "bot_delay", "round_pause"):
        value = getattr(settings, name)
        if not 0 <= value <= 600:
            raise SettingsError(f"{name}: 0..600 seconds, not {value}")
    for name in ("seat_timeout", "lobby_timeout", "abandon_after"):
        value = getattr(settings, name)
        if not 0 < value <= LOBBY_LIMIT:
            raise SettingsError(f"{name}: more than 0 and at most {LOBBY_LIMIT:g} seconds, "
                                f"not {value}")
    for name in ("keep_finished", "keep_lobbies"):
        value = getattr(settings, name)
        if not 0 <= value <= KEEP_LIMIT:
            raise SettingsError(f"{name}: 0 (for ever) to {KEEP_LIMIT:g} days, not {value}")
    if not 0 < settings.timer_scale <= 1:
        raise SettingsError(f"timer_scale: more than 0 and at most 1, not "
                            f"{settings.timer_scale}")
    if not 0 < settings.rate <= 1e6:
        raise SettingsError(f"rate: messages per second, more than 0 and at most 1e6, not "
                            f"{settings.rate}")
    if not 1 <= settings.burst <= 1_000_000:
        raise SettingsError(f"burst: messages, 1..1000000, not {settings.burst}")
    for name, (least, most, unit) in _RANGES.items():
        value = getattr(settings, name)
        if not least <= value <= most:
            raise SettingsError(f"{name}: {least:.10g}..{most:.10g} {unit}, not {value}")
    for origin in settings.origins():
        if origin != "*" and not origin.startswith(("http://", "https://")):
            raise SettingsError(f"allowed_origins: origins such as https://uno.example, "
                                f"not {origin!r}")
    if not 1 <= settings.lease <= 3600:
        raise SettingsError(f"lease: 1..3600 seconds, not {settings.lease}")
    if not 0.1 <= settings.lease_renew <= settings.lease / 2:
        raise SettingsError(f"lease_renew: 0.1 seconds to half the lease "
                            f"({settings.lease / 2:g}), not {settings.lease_renew}")
    if settings.redis_url and (not settings.redis_url.startswith(REDIS_SCHEMES)
                               or any(c.isspace() for c in settings.redis_url)):
        # the value is not repeated: a URL may hold a password
        raise SettingsError("redis_url: a URL such as redis://127.0.0.1:6379/0 (or "
                            "rediss://, unix://, without spaces), or empty")
    for name in ("db_connect_timeout", "db_statement_timeout"):
        value = getattr(settings, name)
        if not 0 < value <= 600:
            raise SettingsError(f"{name}: more than 0 and at most 600 seconds, not {value}")
    if not 0 <= settings.db_wait <= LOBBY_LIMIT:
        raise SettingsError(f"db_wait: 0 (for ever) to {LOBBY_LIMIT:g} seconds, not "
                            f"{settings.db_wait}")
    if not 0 <= settings.bot_workers <= 64:
        raise SettingsError(f"bot_workers: 0..64, not {settings.bot_workers}")
    try:
        parse_cpus(settings.bot_cpus)
    except ValueError as exc:
        raise SettingsError(f"bot_cpus: {exc}") from None
    if not 0.01 <= settings.bot_budget <= 10:
        raise SettingsError(f"bot_budget: 0.01..10 seconds, not {settings.bot_budget}")
    if not 1 <= settings.bot_max_iterations <= 1_000_000:
        raise SettingsError(f"bot_max_iterations: 1..1000000, not "
                            f"{settings.bot_max_iterations}")
    check_operations(settings)


def check_operations(settings: Settings) -> None:
    """The checks of the settings of operating the server (logs, metrics, schema, admin,
    base path)."""
    from unokit.server.logs import LOG_FORMATS
    from unokit.store.db import SCHEMA_MODES
    if settings.log_format not in LOG_FORMATS:
        raise SettingsError(f"log_format: one of {', '.join(LOG_FORMATS)}, not "
                            f"{settings.log_format!r}")
    if settings.migrate not in SCHEMA_MODES:
        raise SettingsError(f"migrate: one of {', '.join(SCHEMA_MODES)}, not "
                            f"{settings.migrate!r}")
    base = settings.base_path
    if base and (not base.startswith("/") or base.endswith("/") or "//" in base
                 or not all(c.isalnum() or c in "/-_." for c in base)):
        raise SettingsError(f"base_path: a path such as /uno (no trailing slash), not "
                            f"{base!r}")
    if settings.admin_token and len(settings.admin_token) < 16:
        raise SettingsError("admin_token: at least 16 characters")
    if settings.word_list and not Path(settings.word_list).is_file():
        raise SettingsError(f"word_list: no such file: {settings.word_list}")
    from unokit.server.access import parse_networks
    try:
        parse_networks(settings.metrics_allow)
    except ValueError as exc:
        raise SettingsError(f"metrics_allow: {exc}") from None


def rating_policy(settings: Settings) -> Policy:
    """The store's rating and leaderboard policy from the settings."""
    return Policy(provisional_sigma=settings.rating_provisional_sigma,
                  min_matches=settings.leaderboard_min_matches)
