"""Waiting in tests for a condition that has no event to wait on.

Some conditions live where nothing can tell a test that they changed: a row another
process writes, a log line, a room's attributes set inside its own task, a socket count
the server updates as connections close. :func:`until` looks at such a condition again
and again (every ``every`` seconds) until it holds, and fails after ``timeout``: the test
waits for the condition, never for a fixed time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


async def until(condition: Callable[[], bool], what: str = "the condition", *,
                timeout: float = 60.0, every: float = 0.01) -> None:
    """Return once ``condition()`` holds.

    Raises:
        AssertionError: it did not hold within ``timeout`` seconds (``what`` says which).
    """
    try:
        async with asyncio.timeout(timeout):
            while not condition():
                await asyncio.sleep(every)
    except TimeoutError:
        raise AssertionError(f"{what}: not within {timeout:g} s") from None


async def until_read(check: Callable[[], Awaitable[bool]], what: str = "the condition", *,
                     timeout: float = 60.0, every: float = 0.05) -> None:
    """:func:`until` for a condition that takes a read to look at (``await check()``:
    an HTTP request, a query)."""
    try:
        async with asyncio.timeout(timeout):
            while not await check():
                await asyncio.sleep(every)
    except TimeoutError:
        raise AssertionError(f"{what}: not within {timeout:g} s") from None
