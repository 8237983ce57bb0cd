"""What a finished match publishes, worked out once and off the event loop: its record
(``GET /api/rooms/CODE/record``) and the record's fairness checks (``.../verify``).

Both replay the match, which takes milliseconds per hundred actions. They are built in
a worker thread (so no room waits for them), once per match (a finished match never
changes), and kept for the last :data:`KEPT` matches asked for. Requests that come
while one is being built wait for that one.

>>> import asyncio
>>> async def demo():
...     papers = Published(kept=2)
...     calls = []
...     def build():
...         calls.append(1)
...         return b"{}"
...     got = await asyncio.gather(*(papers.get("ABC", "record", build) for _ in range(5)))
...     return got, len(calls)
>>> asyncio.run(demo())
([b'{}', b'{}', b'{}', b'{}', b'{}'], 1)
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
from collections.abc import Callable

KEPT = 128
"""Finished matches whose record and checks are kept in memory."""

WORKERS = 2
"""Threads that build records and checks (at most this many at once)."""


class Published:
    """Records and checks of finished matches, by room code and kind."""

    def __init__(self, kept: int = KEPT,
                 executor: concurrent.futures.Executor | None = None) -> None:
        self.kept = kept
        self._executor = executor or concurrent.futures.ThreadPoolExecutor(
            WORKERS, thread_name_prefix="unokit-published")
        self._done: collections.OrderedDict[tuple[str, str], bytes] = (
            collections.OrderedDict())
        self._building: dict[tuple[str, str], asyncio.Future[bytes]] = {}
        self.builds = 0
        """How many were built (for tests and metrics)."""

    def cached(self, code: str, kind: str) -> bytes | None:
        """The ``kind`` of the match ``code`` if it is kept."""
        key = (code, kind)
        data = self._done.get(key)
        if data is not None:
            self._done.move_to_end(key)
        return data

    async def get(self, code: str, kind: str, build: Callable[[], bytes]) -> bytes:
        """The ``kind`` (``record``, ``verify``) of the finished match ``code``: kept, or
        being built, or built now by ``build`` in a worker thread."""
        key = (code, kind)
        data = self.cached(code, kind)
        if data is not None:
            return data
        pending = self._building.get(key)
        if pending is None:
            loop = asyncio.get_running_loop()
            pending = asyncio.ensure_future(loop.run_in_executor(self._executor, build))
            self._building[key] = pending
            pending.add_done_callback(lambda f: self._built(key, f))
        return await asyncio.shield(pending)

    def _built(self, key: tuple[str, str], future: asyncio.Future[bytes]) -> None:
        self._building.pop(key, None)
        if future.cancelled() or future.exception() is not None:
            return
        self.builds += 1
        self._done[key] = future.result()
        while len(self._done) > self.kept:
            self._done.popitem(last=False)

    def close(self) -> None:
        """Stop the worker threads (after what they are building)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
