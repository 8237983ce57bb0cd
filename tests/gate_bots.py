"""Bots for the tests of the server's bot pool (tests/test_server_bot_pool.py). They live
in a module of their own so that a worker process can unpickle them (the tests put this
folder on the workers' ``PYTHONPATH``)."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from unokit.bots.base import must_act
from unokit.engine.observation import Observation


class GateBot:
    """Thinks until the file ``gate`` exists (forever, if nobody makes it), then plays the
    first legal action when it must act. It notes the id of every process it decided
    in, so that a test sees where it ran and that its state came back."""

    name = "gate"

    def __init__(self, gate: str) -> None:
        self.gate = gate
        self.pids: list[int] = []

    def choose(self, observation: Observation, legal: Sequence[int]) -> int | None:
        while not Path(self.gate).exists():  # the gate is a file: the bot thinks in another
            time.sleep(0.005)  # process, which no event of the test's can reach
        self.pids.append(os.getpid())
        return legal[0] if must_act(observation) else None
