"""The load generator with the project's own client, :class:`unokit.client.GameClient`.

``benchmarks/server_load.py --client unokit`` runs this in its worker processes instead of
the sans-I/O clients of ``_load_client.py``. Each seat is a whole ``GameClient`` (the
``websockets`` library's asyncio connection, one reading task per connection, every
message decoded into the protocol's models), as a bot or a test would use it. That costs
the load generator several times more CPU per message, so it fits fewer rooms on the
same machine; it checks that the cheap clients measure the same server.

The policy and the figure are the same: the seat to move plays the first legal action
(the one that calls UNO with the play, if any), and an action's latency runs from
:meth:`GameClient.act` to the moment the last of the room's four clients has the events
up to the sequence number of its ack.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from typing import Any

from _load_goal import Goal
from unokit.client import ActionRefused, GameClient, create_room


class UnokitRoom:
    """One room of four :class:`GameClient` seats."""

    def __init__(self, code: str, clients: list[GameClient], paced: bool,
                 latencies: list[float], counters: dict[str, int]) -> None:
        self.code = code
        self.clients = clients
        self.paced = paced
        self.latencies = latencies
        self.counters = counters
        self.changed = asyncio.Event()
        for client in clients:
            client.listeners.append(self.changed)

    async def until(self, condition: Any, timeout: float = 60.0) -> None:
        """Wait until ``condition()`` holds (checked after any client's message)."""
        async with asyncio.timeout(timeout):
            while not condition():
                self.changed.clear()
                await self.changed.wait()

    def actor(self) -> GameClient | None:
        return next((c for c in self.clients if c.must and c.legal), None)

    def over(self) -> bool:
        return any(c.reveal is not None or c.bye is not None or c.closed.is_set()
                   for c in self.clients)

    async def play(self, goal: Goal, warmup_end: float, rng: random.Random) -> None:
        """Play (the first action within a second) until ``goal`` is reached; the
        latencies of actions sent after ``warmup_end`` count."""
        paced, latencies, counters = self.paced, self.latencies, self.counters
        next_at = time.perf_counter() + (rng.random() if paced else 0.0)
        try:
            while not goal.reached(time.perf_counter()):
                await self.until(lambda: self.actor() is not None or self.over())
                if self.over():
                    if any(c.reveal is not None for c in self.clients):
                        counters["matches"] += 1
                    else:
                        counters["errors"] += 1
                        print(f"room {self.code}: connection lost", file=sys.stderr)
                    return
                now = time.perf_counter()
                if paced and next_at > now:
                    await asyncio.sleep(next_at - now)  # the pace of play, not a wait
                    continue  # who moves may have changed meanwhile: look again
                next_at = max(next_at + 1.0, now) if paced else now
                actor = self.actor()
                assert actor is not None
                choice = next((a for a in actor.legal if a.endswith("!")), actor.legal[0])
                start = time.perf_counter()
                try:
                    seq = await actor.act(choice)
                except ActionRefused as exc:
                    counters["refused"] += 1
                    if exc.code != "rate_limited":
                        actor.must = False  # the next events say who moves
                    continue
                await self.until(lambda seq=seq: all(c.last_seq >= seq for c in self.clients))
                counters["actions"] += 1
                if start >= warmup_end:
                    latencies.append(time.perf_counter() - start)
        except TimeoutError:
            counters["errors"] += 1
            print(f"room {self.code}: no answer within 60 s", file=sys.stderr)
        finally:
            for client in self.clients:
                await client.close()


async def open_room(url: str, fields: dict[str, Any], paced: bool, latencies: list[float],
                    counters: dict[str, int]) -> UnokitRoom:
    """Create a room, seat four clients and start its match; :meth:`UnokitRoom.play`
    then plays it."""
    code = (await create_room(url, **fields))["code"]
    clients = [await GameClient.join(url, code, name=f"p{i}") for i in range(4)]
    room = UnokitRoom(code, clients, paced, latencies, counters)
    await clients[0].start()
    counters["rooms"] += 1
    return room
