"""The server's logs: one JSON object per line, or short readable lines at a terminal.

Every line carries the ids of what it is about, when known: ``room`` (a room's code),
``conn`` (a WebSocket connection's id) and ``request`` (an HTTP request's id, also sent
back in the ``X-Request-Id`` header). The ids of the request or connection being
handled are added from context variables (:data:`REQUEST_ID`, :data:`CONNECTION_ID`),
so a handler need not pass them. A traceback goes in its own field, ``exc``; uvicorn's
``color_message`` (ANSI escapes) is dropped. A line that repeats (the same message about
the same room at the same level) is written at most once per :data:`THROTTLE_SECONDS`;
the next one that goes out says how many were held back (``suppressed``).

Log lines never hold cards, seat tokens or the database password: rooms log codes,
counts and kinds of actions only.

>>> record = logging.LogRecord("unokit.room", logging.INFO, "", 0, "room created", (), None)
>>> record.room = "ABCDEF"
>>> sorted(json.loads(JsonFormatter().format(record)))
['level', 'logger', 'msg', 'room', 'time']
>>> TextFormatter().format(record)[13:]
'info  unokit.room: room created room=ABCDEF'
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "unokit_request", default=None)
"""The id of the HTTP request being handled (``None``: none)."""
CONNECTION_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "unokit_conn", default=None)
"""The id of the WebSocket connection being handled (``None``: none)."""

LOG_FORMATS = ("auto", "json", "text")
"""``json``: one JSON object per line; ``text``: short readable lines; ``auto``: text
when stderr is a terminal, else JSON."""

THROTTLE_SECONDS = 10.0
"""The shortest time between two lines with the same message, room and level."""
THROTTLE_KEYS = 4096
"""Lines remembered for throttling (the oldest are forgotten beyond this)."""

_PLAIN = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message", "asctime", "color_message", "taskName"}
"""Attributes of a log record that are not extra fields (``color_message``: uvicorn's
copy of the message with ANSI escapes)."""


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in vars(record).items():
        if key not in _PLAIN and not key.startswith("_"):
            out[key] = value if isinstance(value, str | int | float | bool) else str(value)
    for key, var in (("request", REQUEST_ID), ("conn", CONNECTION_ID)):
        if key not in out and (value := var.get()) is not None:
            out[key] = value
    return out


def _stamp(record: logging.LogRecord) -> str:
    return (time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the ids and any extra
    fields; a traceback in ``exc``."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {"time": _stamp(record), "level": record.levelname.lower(),
                               "logger": record.name, "msg": record.getMessage()}
        out.update(_fields(record))
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """A short line for a person at a terminal: ``HH:MM:SS.mmm level logger: message
    key=value ...``, a traceback on the lines after it."""

    def format(self, record: logging.LogRecord) -> str:
        clock = time.strftime("%H:%M:%S", time.localtime(record.created))
        extra = " ".join(f"{k}={v}" for k, v in _fields(record).items())
        line = (f"{clock}.{int(record.msecs):03d} {record.levelname.lower():<5} "
                f"{record.name}: {record.getMessage()}" + (f" {extra}" if extra else ""))
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class Throttle(logging.Filter):
    """Let a line with the same message, room and level through at most once per
    ``seconds`` (by ``clock``); the next one that goes through carries ``suppressed``,
    the number held back meanwhile. Only warnings and errors are throttled.

    >>> now = [0.0]
    >>> throttle = Throttle(10, clock=lambda: now[0])
    >>> line = lambda: logging.LogRecord("x", logging.ERROR, "", 0, "write failed", (), None)
    >>> [throttle.filter(line()) for _ in range(3)]
    [True, False, False]
    >>> now[0] = 11.0
    >>> record = line(); throttle.filter(record), record.suppressed
    (True, 2)
    """

    def __init__(self, seconds: float = THROTTLE_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.seconds = seconds
        self.clock = clock
        self._seen: dict[tuple[str, int, str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:  # only warnings and errors repeat in bursts
            return True
        key = (record.name, record.levelno, str(record.msg), str(getattr(record, "room", "")))
        now = self.clock()
        seen = self._seen.get(key)
        if seen is not None and now - seen[0] < self.seconds:
            self._seen[key] = (seen[0], seen[1] + 1)
            return False
        if seen is not None and seen[1]:
            record.suppressed = seen[1]
        self._seen.pop(key, None)
        self._seen[key] = (now, 0)
        if len(self._seen) > THROTTLE_KEYS:
            del self._seen[next(iter(self._seen))]
        return True


def pick_format(log_format: str, stream: TextIO) -> str:
    """``json`` or ``text`` for the setting ``log_format`` and the stream written to."""
    if log_format != "auto":
        return log_format
    isatty = getattr(stream, "isatty", None)
    return "text" if isatty is not None and isatty() else "json"


def setup_logging(level: str, log_format: str = "auto", *, access_log: bool = True,
                  stream: TextIO | None = None,
                  throttle: Throttle | None = None) -> logging.Handler:
    """Logs on ``stream`` (stderr) at ``level``, uvicorn's too, in ``log_format``
    (:data:`LOG_FORMATS`), throttled; HTTP access lines (logger ``unokit.access``) only
    with ``access_log``. Returns the handler."""
    out = sys.stderr if stream is None else stream
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter() if pick_format(log_format, out) == "json"
                         else TextFormatter())
    handler.addFilter(throttle or Throttle())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    logging.getLogger("uvicorn.access").setLevel("WARNING")  # ours is unokit.access
    logging.getLogger("unokit.access").setLevel("INFO" if access_log else "WARNING")
    return handler
