"""The server's garbage-collection schedule: CPython's own full collections off, the
server's on a timer, the thresholds back afterwards."""

from __future__ import annotations

import asyncio
import gc

import pytest

from unokit.server.collector import NEVER, FullCollections

pytestmark = pytest.mark.asyncio


async def test_full_collections_run_on_the_schedule_and_only_then() -> None:
    before = gc.get_threshold()
    schedule = FullCollections(every=0.01)
    schedule.start(asyncio.get_running_loop())
    try:
        assert gc.get_threshold() == (before[0], before[1], NEVER)
        async with asyncio.timeout(30):
            while schedule.runs < 2:
                await asyncio.sleep(0.01)
    finally:
        schedule.uninstall()
    assert gc.get_threshold() == before
    assert schedule._handle is None  # nothing left scheduled
