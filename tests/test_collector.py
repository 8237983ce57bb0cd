"""The server's garbage-collection schedule: CPython's automatic collections off, the
server's own when enough objects have piled up or enough time has passed, and the
collector as it was afterwards."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from unokit.server.collector import Collections

pytestmark = pytest.mark.asyncio


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


async def test_a_collection_comes_when_enough_objects_have_piled_up() -> None:
    was = gc.isenabled()
    gc.collect()  # the count of new objects starts from nothing
    swept = asyncio.Event()
    schedule = Collections(every=3600, after=5000, check=0.01,
                           on_sweep=lambda found: swept.set())
    schedule.start(asyncio.get_running_loop())
    try:
        assert not gc.isenabled()
        gone = cycle()
        assert not schedule.due()  # an hour has not passed, few objects are new
        kept = [[] for _ in range(6000)]  # tracked objects beyond the threshold
        await asyncio.wait_for(swept.wait(), 30)
        assert gone() is None
        assert schedule.sweeps >= 1 and kept
    finally:
        schedule.uninstall()
    assert gc.isenabled() == was
    assert schedule._handle is None  # nothing left scheduled


async def test_a_collection_comes_when_the_time_is_up() -> None:
    swept = asyncio.Event()
    schedule = Collections(every=0.0, after=10**9, check=0.01,
                           on_sweep=lambda found: swept.set())
    schedule.start(asyncio.get_running_loop())
    try:
        gone = cycle()
        await asyncio.wait_for(swept.wait(), 30)
        assert gone() is None
        assert schedule.sweeps >= 1
    finally:
        schedule.uninstall()
