"""The bot protocol, and :func:`play`, which lets bots play a match.

A bot sees exactly what a player at the table sees: its seat's
:class:`~unokit.engine.observation.Observation` and the legal actions of that seat. It is
asked at every step, also when it is not its turn (to call UNO late or to catch a
missed call); then it may return ``None`` to do nothing. On its turn (``current_player``
is its seat, or the round is over and anyone may start the next one) it must return one
of the legal actions.

>>> from unokit import Game, Rules
>>> from unokit.bots import PlayFirstBot
>>> game = Game(Rules.preset("official", players=2, rounds=1), seed=3)
>>> steps = list(play(game, [PlayFirstBot(seed=1), PlayFirstBot(seed=2)]))
>>> game.is_over()
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import NamedTuple, Protocol, runtime_checkable

from unokit.engine.actions import format_action
from unokit.engine.driver import Driver, asking_order
from unokit.engine.errors import UnoError
from unokit.engine.events import Event
from unokit.engine.game import Game
from unokit.engine.observation import Observation


@runtime_checkable
class Bot(Protocol):
    """Anything that chooses actions from an observation and the legal actions."""

    name: str
    """A short name (``random``, ``playfirst``)."""

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        """One of ``legal_actions``, or ``None`` to do nothing.

        ``None`` is allowed only when it is not the bot's turn (see :func:`must_act`).
        """
        ...


def must_act(observation: Observation) -> bool:
    """Whether the seat of ``observation`` has to act now: it is its turn, or the round
    is over (every seat may start the next one, and the one asked must)."""
    return (observation.current_player == observation.seat
            or observation.phase == "round_over"
            or (observation.phase == "slap" and observation.seat in observation.slap_left))


class SeededBot:
    """A base class for bots with their own ``random.Random``, seeded at creation."""

    name = "seeded"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start the random generator again (with ``seed`` if given)."""
        if seed is not None:
            self.seed = seed
        self.rng = random.Random(self.seed)

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        """See :class:`Bot`."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class BotError(UnoError):
    """A bot did not answer on its turn, answered with an illegal action, or a bot match
    did not end. ``seat`` is the seat of the bot at fault (``None``: no one seat) and
    ``action`` the illegal action it chose (``None`` if it chose none)."""

    def __init__(self, message: str, seat: int | None = None,
                 action: object = None) -> None:
        self.seat = seat
        self.action = action
        super().__init__(message)


class BotSpecError(UnoError):
    """A bot spec names no bot, or gives options that do not fit the bot."""


class Step(NamedTuple):
    """One action of a bot match (see :func:`play`)."""

    action: int | None
    """The action applied; ``None`` for the set-up (dealer, deal, start card)."""
    events: list[Event]
    """The events it caused."""


def play(game: Game, bots: Sequence[Bot], *, max_actions: int = 1_000_000) -> Iterator[Step]:
    """Let ``bots`` (one per seat) play ``game`` to the end of the match, yielding each
    step as it happens; the first step is the set-up already in the log.

    The seats are asked in the order of :class:`unokit.engine.driver.Driver`: at every
    step the out-of-turn seats first, in seat order after the current player, then the
    current player; the first action offered is applied. A seat that has acted out of
    turn is not asked again until the turn moves on, so out-of-turn actions cannot keep a
    game going forever.

    Raises:
        ValueError: not one bot per seat.
        BotError: a bot returned ``None`` on its turn, or an illegal action.
    """
    if len(bots) != game.n:
        raise ValueError(f"{len(bots)} bots for {game.n} seats")
    yield Step(None, list(game.log))
    driver = Driver(game)

    def choose(seat: int, legal: list[int], must: bool) -> int | None:
        bot = bots[seat]
        action = bot.choose(game.observation(seat), list(legal))
        if action is None:
            if must:
                raise BotError(f"seat {seat}: the {bot.name} bot returned no action on its "
                               "turn", seat)
            return None
        if action not in legal:
            text = format_action(action) if isinstance(action, int) else repr(action)
            raise BotError(f"seat {seat}: the {bot.name} bot chose {text}, which is not "
                           "legal now", seat, action)
        return action

    for _ in range(max_actions):
        if game.is_over():
            return
        asked = driver.ask(choose)
        assert asked is not None  # the lead answers or choose raises
        action = asked[1]
        yield Step(action, driver.apply(action))
    raise BotError(f"the match is not over after {max_actions} actions")


__all__ = ["Bot", "BotError", "BotSpecError", "SeededBot", "Step", "asking_order", "must_act",
           "play"]
