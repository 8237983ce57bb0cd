"""The bot protocol, and the driver that lets bots play a match.

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

from unokit.engine.actions import CATCH, UNO, action_type, format_action
from unokit.engine.errors import IllegalActionError
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


class BotError(IllegalActionError):
    """A bot did not answer on its turn, or answered with an illegal action."""


class Step(NamedTuple):
    """One action of a bot match (see :func:`play`)."""

    action: int | None
    """The action applied; ``None`` for the set-up (dealer, deal, start card)."""
    events: list[Event]
    """The events it caused."""


def asking_order(game: Game) -> tuple[list[int], int]:
    """``(out-of-turn seats, lead seat)``: the seats asked first, in seat order after
    the lead, and the lead, who must answer. The lead is the current player, or the
    first seat still to slap, or seat 0 between rounds."""
    lead = game.current_player
    if lead is None:
        lead = game.slap_left[0] if game.slap_left else 0
    others = [(lead + offset) % game.n for offset in range(1, game.n)]
    return others, lead


def play(game: Game, bots: Sequence[Bot], *, max_actions: int = 1_000_000) -> Iterator[Step]:
    """Let ``bots`` (one per seat) play ``game`` to the end of the match, yielding each
    step as it happens; the first step is the set-up already in the log.

    At every step the out-of-turn seats are asked first, in seat order after the
    current player, then the current player; the first action offered is applied. A
    seat that has made an UNO call or a catch out of turn is not asked again until the
    current player has acted, so out-of-turn actions cannot keep a game going forever.

    Raises:
        BotError: a bot returned ``None`` on its turn, or an illegal action.
    """
    if len(bots) != game.n:
        raise ValueError(f"{len(bots)} bots for {game.n} seats")
    yield Step(None, list(game.log))
    spoke: set[int] = set()
    for _ in range(max_actions):
        if game.is_over():
            return
        others, lead = asking_order(game)
        action: int | None = None
        for seat in others:
            if seat in spoke:
                continue
            legal = game.legal_actions(seat)
            if not legal:
                continue
            action = _ask(bots[seat], game, seat, legal)
            if action is not None:
                spoke.add(seat)
                break
        if action is None:
            legal = game.legal_actions(lead)
            action = _ask(bots[lead], game, lead, legal)
            if action is None:
                raise BotError(f"seat {lead}", f"{bots[lead].name} bot returned no action "
                               "on its turn")
            spoke.clear()
        elif action_type(action) not in (UNO, CATCH):
            spoke.clear()  # e.g. starting the next round: the game moved on
        yield Step(action, game.apply(action))
    raise BotError("match", f"not over after {max_actions} actions")


def _ask(bot: Bot, game: Game, seat: int, legal: list[int]) -> int | None:
    action = bot.choose(game.observation(seat), list(legal))
    if action is None:
        return None
    if action not in legal:
        text = format_action(action) if isinstance(action, int) else repr(action)
        raise BotError(text, f"{bot.name} bot chose an action that is not legal now")
    return action


__all__ = ["Bot", "BotError", "SeededBot", "Step", "asking_order", "must_act", "play"]
