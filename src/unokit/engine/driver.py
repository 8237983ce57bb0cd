"""Who is asked to act, and in which order: the driver of a table.

At every moment of a game one seat *leads*: the seat to move (``game.current``), or
during a slap the first seat still to slap, or seat 0 between rounds. The other seats
may have something to do out of turn: call UNO late, catch a missed call, jump in, pass
a Skip on, slap, speak under a silence rule, start the next round. They are asked
first, one at a time in seat order after the lead, then the lead, who must act; the
first action offered is applied (:func:`asking_order`, :meth:`Driver.seats_to_ask`).

A seat that has acted out of turn *holds*: it is not asked again until the turn moves on
(the lead acts, or the seat to move or the phase changes), so that out-of-turn actions
cannot keep a game going forever: a seat that has called UNO late, caught a missed call,
passed a Skip on, spoken under a silence rule, slapped or jumped in on its own card
waits for the lead. A jump-in that takes the turn moves it on, so it frees every seat.

A :class:`Driver` keeps the holds of one game and is used one action at a time: ask the
seats of :meth:`~Driver.seats_to_ask` in order, apply the first action offered with
:meth:`~Driver.apply` (or apply it yourself and :meth:`~Driver.record` it), ask again.
Here seat 1 plays down to one card and forgets to call UNO:

>>> from unokit.engine.actions import format_action, parse_action
>>> from unokit.engine.cards import parse_card
>>> from unokit.engine.game import Game
>>> def cards(text): return [parse_card(code) for code in text.split()]
>>> game = Game.from_setup("official,players=3", hands=[cards("R1 R2"), cards("R5 R6"),
...                        cards("B1 B2")], draw_pile=cards("Y1 Y2 Y3"),
...                        discard=cards("R3"), current_player=1)
>>> driver = Driver(game)
>>> _ = driver.apply(parse_action("1:R5"))
>>> driver.lead(), driver.seats_to_ask()  # seat 0 may catch seat 1, who may still call
(2, [0, 1, 2])
>>> _ = driver.apply(parse_action("1:uno"))  # seat 1 calls late, out of turn
>>> driver.held, driver.seats_to_ask()  # nothing left to do out of turn; seat 1 holds
({1}, [2])
>>> _ = driver.apply(parse_action("2:draw"))  # the lead acts: every seat is free again
>>> driver.held
set()

:meth:`Driver.ask` asks the seats in that order, with a function that answers for a
seat, until one answers:

>>> seat, action = driver.ask(lambda seat, legal, must: legal[0] if must else None)
>>> seat, format_action(action)
(0, '0:R1')
"""

from __future__ import annotations

from collections.abc import Callable, Container

from unokit.engine.actions import action_player
from unokit.engine.events import Event
from unokit.engine.game import Game
from unokit.engine.phases import MATCH_OVER

Offered = Callable[[Game, int], bool]
"""Whether a seat other than the lead is asked now (its window opens)."""

Choose = Callable[[int, list[int], bool], "int | None"]
"""An answer for a seat: ``choose(seat, legal_actions, must)`` returns one of
``legal_actions`` or ``None`` (nothing to do); ``must`` is true for the lead."""


def lead_seat(game: Game) -> int:
    """The seat that leads now: the current player, or the first seat still to slap,
    or seat 0 between rounds (and once the match is over).

    >>> lead_seat(Game("official,players=3", seed=1)) == Game("official,players=3", 1).current
    True
    """
    lead = game.current
    if lead < 0:
        return game.slap_left[0] if game.slap_left else 0
    return lead


def asking_order(game: Game) -> tuple[list[int], int]:
    """``(out-of-turn seats, lead seat)``: the seats asked first, in seat order after
    the lead, and the lead, who must answer (:func:`lead_seat`).

    >>> game = Game("official,players=4", seed=2)
    >>> others, lead = asking_order(game)
    >>> [(lead + k) % 4 for k in range(1, 4)] == others
    True
    """
    lead = lead_seat(game)
    n = game.n
    return [(lead + offset) % n for offset in range(1, n)], lead


def has_legal_action(game: Game, seat: int) -> bool:
    """The default :data:`Offered`: a seat is asked when it has a legal action."""
    return bool(game.legal_actions(seat))


class Driver:
    """The asking order of one game and the seats that hold (see the module docstring).

    Args:
        game: the game; every action applied to it must go through :meth:`apply` or be
            passed to :meth:`record` right after.
        offered: whether a seat other than the lead is asked now (default: it has a legal
            action); seats that hold are never asked.
        windows_open: whether any seat other than the lead may be asked at this moment
            (default: always); a shortcut for ``offered``.
    """

    __slots__ = ("_current", "_lead", "_phase", "game", "held", "offered", "windows_open")

    def __init__(self, game: Game, *, offered: Offered | None = None,
                 windows_open: Callable[[Game], bool] | None = None) -> None:
        self.game = game
        self.offered: Offered = offered or has_legal_action
        self.windows_open = windows_open
        self.held: set[int] = set()
        """The seats that acted out of turn and wait for the lead."""
        self._mark()

    def _mark(self) -> None:
        """Note the moment that the next recorded action is applied in."""
        game = self.game
        self._phase = game.phase
        self._current = game.current
        self._lead = lead_seat(game)

    def reset(self, game: Game | None = None) -> None:
        """Forget the holds (and drive ``game`` from now on, if given)."""
        if game is not None:
            self.game = game
        self.held = set()
        self._mark()

    def copy(self, game: Game | None = None) -> Driver:
        """A driver with the same rules and holds (for ``game``, if given: a copy of the
        game, say)."""
        twin = Driver(game if game is not None else self.game, offered=self.offered,
                      windows_open=self.windows_open)
        twin.held = set(self.held)
        twin._phase, twin._current, twin._lead = self._phase, self._current, self._lead
        return twin

    # ------------------------------------------------------------------ asking
    def lead(self) -> int:
        """The seat that leads now (:func:`lead_seat`)."""
        return lead_seat(self.game)

    def windows(self) -> list[int]:
        """The seats other than the lead to ask now, in order: those offered and not
        holding (empty once the match is over)."""
        game = self.game
        if game.phase is MATCH_OVER or (self.windows_open is not None
                                        and not self.windows_open(game)):
            return []
        lead = lead_seat(game)
        n = game.n
        held = self.held
        offered = self.offered
        return [seat for seat in ((lead + offset) % n for offset in range(1, n))
                if seat not in held and offered(game, seat)]

    def seats_to_ask(self) -> list[int]:
        """Every seat to ask now, in order: :meth:`windows`, then the lead (empty once
        the match is over)."""
        if self.game.phase is MATCH_OVER:
            return []
        return [*self.windows(), lead_seat(self.game)]

    def asks_any(self, seats: Container[int]) -> bool:
        """Whether any of ``seats`` is among :meth:`seats_to_ask`, worked out with no
        more than it needs: the lead first, then the windows of ``seats`` only.

        >>> game = Game("official,players=4", seed=2)
        >>> driver = Driver(game)
        >>> driver.asks_any({driver.lead()}), driver.asks_any(set())
        (True, False)
        >>> others = set(range(4)) - {driver.lead()}
        >>> driver.asks_any(others) == any(s in others for s in driver.seats_to_ask())
        True
        """
        game = self.game
        if game.phase is MATCH_OVER:
            return False
        lead = lead_seat(game)
        if lead in seats:
            return True
        if self.windows_open is not None and not self.windows_open(game):
            return False
        held = self.held
        offered = self.offered
        return any(seat in seats and seat not in held and offered(game, seat)
                   for seat in range(game.n) if seat != lead)

    def ask(self, choose: Choose) -> tuple[int, int] | None:
        """Ask the seats in order (as :meth:`seats_to_ask`, each seat's window decided
        only when its turn to be asked comes) until one answers: ``(seat, action)``, or
        ``None`` if nobody did (the lead included) or the match is over. The action is
        not checked, nor applied."""
        game = self.game
        if game.phase is MATCH_OVER:
            return None
        lead = lead_seat(game)
        if self.windows_open is None or self.windows_open(game):
            n = game.n
            held = self.held
            offered = self.offered
            for offset in range(1, n):
                seat = (lead + offset) % n
                if seat in held or not offered(game, seat):
                    continue
                action = choose(seat, game.legal_actions(seat), False)
                if action is not None:
                    return seat, action
        action = choose(lead, game.legal_actions(lead), True)
        return None if action is None else (lead, action)

    # ----------------------------------------------------------------- actions
    def apply(self, action: int) -> list[Event]:
        """Apply ``action`` (of any seat) to the game and :meth:`record` it; the events
        it caused.

        Raises:
            IllegalActionError: the action is not legal now (nothing changes).
        """
        self._mark()
        events = self.game.apply(action)
        self.record(action)
        return events

    def record(self, action: int) -> None:
        """Update the holds after ``action`` was applied to the game (the seat is the
        action's own)."""
        seat = action_player(action)
        game = self.game
        held = self.held
        if (seat == self._lead or game.phase is not self._phase
                or game.current != self._current):
            if held:
                held.clear()
        else:
            held.add(seat)
        self._mark()


__all__ = ["Choose", "Driver", "Offered", "asking_order", "has_legal_action",
           "lead_seat"]
