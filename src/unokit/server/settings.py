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
    bot_workers: int = field(default_factory=lambda: default_bot_workers())
    """Worker processes the server's bots decide in (0: a thread of the server process,
    for tests and small hosts; a runaway decision there cannot be stopped)."""
    bot_budget: float = 0.2
    """Seconds a server bot may think per decision; then its best move so far, or the
    cheap ``playfirst`` move, is played."""
    bot_max_iterations: int = 6000
    """The most deals per decision a ``search:N`` bot may be asked for over the network
    (a stored spec above it is lowered to it)."""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.database_url:
            object.__setattr__(self, "database_url",
                               f"sqlite:///{Path(self.data_dir).absolute() / 'unokit.db'}")
        check(self)

    @property
    def base_url(self) -> str:
        """Where the server is reached: :attr:`public_url` or ``http://HOST:PORT``."""
        return self.public_url.rstrip("/") or f"http://{self.host}:{self.port}"

    def with_(self, **changes: Any) -> Settings:
        """These settings with some changed (``None`` values are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``UNOKIT_HOST``, ``UNOKIT_PORT``, ``UNOKIT_DATA_DIR``,
        ``UNOKIT_DATABASE_URL``, ``UNOKIT_LOG_LEVEL``, ``UNOKIT_TURN_TIMER``,
        ``UNOKIT_CATCH_GRACE``, ``UNOKIT_TIMER_SCALE``, ``UNOKIT_BOT_DELAY``,
        ``UNOKIT_ROUND_PAUSE``, ``UNOKIT_PUBLIC_URL``, ``UNOKIT_RATE``, ``UNOKIT_BURST``,
        ``UNOKIT_SEAT_TIMEOUT``, ``UNOKIT_LOBBY_TIMEOUT``, ``UNOKIT_BOT_WORKERS``,
        ``UNOKIT_BOT_BUDGET``, ``UNOKIT_BOT_MAX_ITERATIONS``.

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
                                     if kind == "number" else text)
            except ValueError:
                wanted = "an integer" if kind == "int" else "a number"
                raise SettingsError(f"{name}: expected {wanted}, got {text!r}") from None
        try:
            return cls(**values)
        except SettingsError as exc:
            field_name = str(exc).split(":", 1)[0]
            raise SettingsError(f"UNOKIT_{field_name.upper()}:{str(exc).split(':', 1)[1]}"
                                ) from None


def default_bot_workers() -> int:
    """The default :attr:`Settings.bot_workers`: two, or one on a one-CPU machine."""
    return max(1, min(2, os.cpu_count() or 1))


_KINDS = {"port": "int", "turn_timer": "int", "burst": "int", "catch_grace": "number",
          "bot_workers": "int", "bot_budget": "number", "bot_max_iterations": "int",
          "timer_scale": "number", "bot_delay": "number", "round_pause": "number",
          "rate": "number", "seat_timeout": "number", "lobby_timeout": "number"}


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
    if not 0 <= settings.bot_workers <= 64:
        raise SettingsError(f"bot_workers: 0..64, not {settings.bot_workers}")
    if not 0.01 <= settings.bot_budget <= 10:
        raise SettingsError(f"bot_budget: 0.01..10 seconds, not {settings.bot_budget}")
    if not 1 <= settings.bot_max_iterations <= 1_000_000:
        raise SettingsError(f"bot_max_iterations: 1..1000000, not "
                            f"{settings.bot_max_iterations}")
    if settings.rate <= 0 or settings.burst < 1:
        raise SettingsError("rate: messages per second must be positive")
