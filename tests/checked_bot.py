"""A bot wrapper for the tests: every answer is checked (legal, and ``None`` only when the
seat need not act) and kept."""

from __future__ import annotations

from collections.abc import Sequence

from unokit.bots import Bot, must_act
from unokit.engine.observation import Observation


class Checked:
    """Wraps a bot and checks every answer it gives."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.calls = 0
        self.actions: list[int | None] = []

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        self.calls += 1
        action = self.bot.choose(observation, legal_actions)
        if action is None:
            assert not must_act(observation), "None on the bot's own turn"
        else:
            assert action in legal_actions
        self.actions.append(action)
        return action
