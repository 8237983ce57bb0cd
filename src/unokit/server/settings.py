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

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from unokit.engine.errors import UnoError

TURN_TIMERS = (0, 15, 30, 60)
"""The turn timers a room may have, in seconds (0: off)."""

LOG_LEVELS = ("debug", "info", "warning", "error")
LOBBY_LIMIT = 7 * 24 * 3600.0
"""The longest seat and lobby timeouts (a week), in seconds."""


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

    def with_(self, **changes: Any) -> Settings:
        """These settings with some changed (``None`` values are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``UNOKIT_HOST``, ``UNOKIT_PORT``, ``UNOKIT_DATA_DIR``,
        ``UNOKIT_DATABASE_URL``, ``UNOKIT_LOG_LEVEL``, ``UNOKIT_TURN_TIMER``,
        ``UNOKIT_CATCH_GRACE``, ``UNOKIT_TIMER_SCALE``, ``UNOKIT_BOT_DELAY``,
        ``UNOKIT_ROUND_PAUSE``, ``UNOKIT_PUBLIC_URL``, ``UNOKIT_RATE``, ``UNOKIT_BURST``,
        ``UNOKIT_SEAT_TIMEOUT``, ``UNOKIT_LOBBY_TIMEOUT``, ``UNOKIT_LOG_FORMAT``,
        ``UNOKIT_ACCESS_LOG``, ``UNOKIT_METRICS``, ``UNOKIT_METRICS_ALLOW``,
        ``UNOKIT_MIGRATE``, ``UNOKIT_ADMIN_TOKEN``, ``UNOKIT_WORD_LIST``,
        ``UNOKIT_BASE_PATH``, ``UNOKIT_FORWARDED_ALLOW_IPS``.

        Raises:
            SettingsError: naming the variable.
        """
        env = os.environ if env is None else env
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


_KINDS = {"port": "int", "turn_timer": "int", "burst": "int", "catch_grace": "number",
          "timer_scale": "number", "bot_delay": "number", "round_pause": "number",
          "rate": "number", "seat_timeout": "number", "lobby_timeout": "number",
          "access_log": "flag", "metrics": "flag"}


def _flag(text: str) -> bool:
    """``on``/``off`` (also ``1``/``0``, ``true``/``false``, ``yes``/``no``)."""
    word = text.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


def check(settings: Settings) -> None:
    """Raise :class:`SettingsError` (``field: why``) for a setting out of range."""
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
    for name in ("seat_timeout", "lobby_timeout"):
        value = getattr(settings, name)
        if not 0 < value <= LOBBY_LIMIT:
            raise SettingsError(f"{name}: more than 0 and at most {LOBBY_LIMIT:g} seconds, "
                                f"not {value}")
    if not 0 < settings.timer_scale <= 1:
        raise SettingsError(f"timer_scale: more than 0 and at most 1, not "
                            f"{settings.timer_scale}")
    if settings.rate <= 0 or settings.burst < 1:
        raise SettingsError("rate: messages per second must be positive")
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
