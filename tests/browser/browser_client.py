"""A ``unokit.client.GameClient`` for the synchronous browser tests: its event loop runs
in a thread of its own, and each call waits for its answer there. For example
``cy = SyncClient.join(server.url, code, name="Cy")``, then ``cy.act("draw")``,
``cy.autoplay(drawing)`` and at the end ``cy.close()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from unokit.client import GameClient
from unokit.server import protocol as P

T = TypeVar("T")


class SyncClient:
    """One GameClient, driven from the test's thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client: GameClient | None = None
        self.autoplay_task: Future[None] | None = None

    @classmethod
    def join(cls, base: str, code: str, **options: Any) -> SyncClient:
        sync = cls()
        sync.client = sync.run(GameClient.join(base, code, **options))
        return sync

    @property
    def c(self) -> GameClient:
        assert self.client is not None
        return self.client

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        """Run ``coro`` on the client's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Start ``coro`` on the client's loop; its future."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def act(self, action: str) -> int:
        return self.run(self.c.act(action))

    def start_match(self) -> int:
        return self.run(self.c.command(P.Start))

    def wait_for(self, condition: Callable[[GameClient], bool], timeout: float = 30.0) -> None:
        self.run(self.c.wait_for(condition, timeout), timeout + 5)

    def hand(self) -> list[str]:
        """The seat's hand now (from a snapshot of its view)."""
        view = self.run(self.c.snapshot())
        assert view is not None
        return list(view["hand"])

    def autoplay(self, choose: Callable[[GameClient], str | None]) -> None:
        """Play whenever the seat must act: ``choose(client)`` names the action (or
        ``None``: leave it)."""

        async def loop() -> None:
            client = self.c
            while True:
                await client.wait_for(lambda c: (c.must and bool(c.legal))
                                      or c.phase == "match_over", timeout=600)
                if client.phase == "match_over":
                    return
                action = choose(client)
                if action is None:
                    await client.wait_for(lambda c: not c.must, timeout=600)
                    continue
                seen = client.last_seq
                with contextlib.suppress(Exception):  # refused (the position moved on)
                    await client.act(action)
                await client.wait_for(lambda c, seen=seen: c.last_seq > seen or not c.must,
                                      timeout=600)

        self.autoplay_task = self.submit(loop())

    def close(self) -> None:
        if self.autoplay_task is not None:
            self.autoplay_task.cancel()
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.run(self.c.close(), 10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def drawing(client: GameClient) -> str | None:
    """A choice for :meth:`SyncClient.autoplay` that never plays a card: it draws,
    passes, accepts a Wild Draw Four, picks red; else the first legal action."""
    legal = client.legal
    for wanted in ("draw", "pass"):
        if wanted in legal:
            return wanted
    colours = [a for a in legal if a.startswith("color")]
    if colours:
        return colours[0]
    return legal[0] if legal else None


def first_legal(client: GameClient) -> str | None:
    """A choice that plays the first legal card (calling UNO with it), else draws."""
    legal = client.legal
    plays = [a for a in legal if a not in ("draw", "pass") and not a.startswith("catch")
             and not a.startswith("uno")]
    called = [a for a in plays if a.endswith("!")]
    if called:
        return called[0]
    if plays:
        return plays[0]
    return legal[0] if legal else None
