"""A room's inbox (:class:`unokit.server.inbox.Inbox`): items in order, a wait that ends
with the first item or its timeout, no task made per wait, and no item lost when a wait
ends without it."""

from __future__ import annotations

import asyncio

import pytest

from unokit.server.inbox import CheckLease, Due, Inbox, Stop

pytestmark = pytest.mark.asyncio


async def test_items_come_out_in_the_order_they_went_in() -> None:
    inbox = Inbox()
    assert inbox.empty()
    for item in (Stop(), Due(), CheckLease()):
        inbox.put_nowait(item)
    assert not inbox.empty()
    assert [inbox.get_nowait(), await inbox.get(), await inbox.get(timeout=0)] == [
        Stop(), Due(), CheckLease()]
    assert inbox.empty()
    with pytest.raises(IndexError):
        inbox.get_nowait()


async def test_a_wait_ends_with_the_item_put_meanwhile() -> None:
    inbox = Inbox()
    waiting = asyncio.create_task(inbox.get(timeout=60))
    await asyncio.sleep(0)  # the task now waits
    assert not waiting.done()
    inbox.put_nowait(Stop())
    assert await waiting == Stop()


async def test_a_wait_times_out_without_making_a_task() -> None:
    inbox = Inbox()
    before = len(asyncio.all_tasks())
    waiting = inbox.get(timeout=0.01)
    step = asyncio.ensure_future(waiting)
    await asyncio.sleep(0)  # one turn of the loop (no time): the wait starts
    assert len(asyncio.all_tasks()) == before + 1  # the one made here, none inside
    with pytest.raises(TimeoutError):
        await step


async def test_an_item_put_as_a_wait_is_cancelled_stays_for_the_next_get() -> None:
    inbox = Inbox()
    waiting = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)  # one turn of the loop (no time): the get now waits
    inbox.put_nowait(Stop())  # wakes the wait...
    waiting.cancel()  # ...which is cancelled before it runs
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert not inbox.empty()
    assert await inbox.get() == Stop()
