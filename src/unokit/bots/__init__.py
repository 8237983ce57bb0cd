"""Bots that play unokit games through the same view a player has.

:class:`~unokit.bots.base.Bot` is the protocol, :func:`~unokit.bots.base.play` the
driver of a bot match, and :data:`BOTS` maps bot names to their classes:

>>> sorted(BOTS)
['playfirst', 'random']
>>> make_bot("random", seed=4)
RandomBot(seed=4)
"""

from __future__ import annotations

from unokit.bots.base import Bot, BotError, SeededBot, Step, asking_order, must_act, play
from unokit.bots.simple import PlayFirstBot, RandomBot

BOTS: dict[str, type[SeededBot]] = {
    "playfirst": PlayFirstBot,
    "random": RandomBot,
}
"""Bot name -> bot class (each takes a ``seed``)."""


def make_bot(name: str, seed: int = 0) -> SeededBot:
    """A bot by name.

    Raises:
        ValueError: no bot has that name.
    """
    try:
        cls = BOTS[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; bots: {', '.join(sorted(BOTS))}") from None
    return cls(seed)


__all__ = [
    "BOTS",
    "Bot",
    "BotError",
    "PlayFirstBot",
    "RandomBot",
    "SeededBot",
    "Step",
    "asking_order",
    "make_bot",
    "must_act",
    "play",
]
