"""Two small bots: :class:`RandomBot` and :class:`PlayFirstBot`.

Both see only their seat's observation and legal actions (see :mod:`unokit.bots.base`).

>>> from unokit import Game, Rules
>>> game = Game(Rules.preset("official", players=3), seed=5)
>>> seat = game.current_player
>>> bot = PlayFirstBot(seed=0)
>>> bot.choose(game.observation(seat), game.legal_actions(seat)) in game.legal_actions(seat)
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from unokit.bots.base import SeededBot, must_act
from unokit.engine import actions as A
from unokit.engine.cards import COLOR_OF, COLORS, NO_COLOR, RANK_OF, WILD
from unokit.engine.observation import Observation


def matches(card: int, top: int, color: int) -> bool:
    """Whether ``card`` may go on ``top`` while ``color`` is the current colour: a wild,
    the colour, or the same number or symbol (RULES.md section 2).

    >>> from unokit.engine.cards import parse_card as c
    >>> matches(c("R5"), c("G5"), 2), matches(c("R5"), c("W"), 3), matches(c("W"), c("G1"), 2)
    (True, False, True)
    """
    if card >= WILD:
        return True
    if COLOR_OF[card] == color:
        return True
    return 0 <= top < WILD and RANK_OF[card] == RANK_OF[top]


def favourite_color(hand: Sequence[int], rng_pick: int = 0) -> int:
    """The colour the hand holds most cards of (ties: the first in R, Y, G, B order);
    ``rng_pick`` (0-3) when the hand holds no coloured card."""
    counts = Counter(COLOR_OF[card] for card in hand if COLOR_OF[card] != NO_COLOR)
    if not counts:
        return rng_pick
    return max(COLORS, key=lambda color: (counts[color], -color))


class RandomBot(SeededBot):
    """Chooses uniformly among the legal actions. Out of turn, doing nothing is one
    more choice, drawn with the same chance as each legal action."""

    name = "random"

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        """A uniformly random legal action (or ``None`` out of turn, see the class)."""
        if not legal_actions:
            return None
        if must_act(observation):
            return self.rng.choice(list(legal_actions))
        pick = self.rng.randrange(len(legal_actions) + 1)
        return legal_actions[pick] if pick < len(legal_actions) else None


class PlayFirstBot(SeededBot):
    """Plays a random matching card whenever it can, otherwise draws.

    - A wild names the colour the bot holds most of; UNO is called with the play that
      leaves one card.
    - It calls UNO late if it forgot (it never does) and catches anyone who missed the
      call; it never makes a catch that would fail.
    - It never challenges a Wild Draw Four; it keeps an unplayable drawn card.
    - Between rounds it starts the next round. Out of turn it otherwise does nothing.
    """

    name = "playfirst"

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        """See the class docstring."""
        obs = observation
        seat = obs.seat
        legal = set(legal_actions)
        if not legal:
            return None
        if obs.phase == "round_over":
            return A.next_round(seat) if A.next_round(seat) in legal else min(legal)
        if A.slap(seat) in legal:
            return A.slap(seat)
        vulnerable = obs.uno_open
        if vulnerable is not None:
            if vulnerable == seat and A.call_uno(seat) in legal:
                return A.call_uno(seat)
            if vulnerable != seat and A.catch(seat, vulnerable) in legal:
                return A.catch(seat, vulnerable)
        if obs.current_player != seat:
            return None
        return self._turn(obs, legal) or self.rng.choice(sorted(legal))

    def _turn(self, obs: Observation, legal: set[int]) -> int | None:
        seat = obs.seat
        if obs.phase == "challenge":
            return A.draw(seat) if A.draw(seat) in legal else None
        if obs.phase == "choose_color":
            action = A.choose_color(seat, favourite_color(obs.hand, self.rng.randrange(4)))
            return action if action in legal else None
        if obs.phase not in ("play", "drawn"):
            return None
        playable = sorted({
            A.action_card(action) for action in legal
            if A.action_type(action) == A.PLAY and matches(A.action_card(action), obs.top,
                                                             obs.color)
        })
        if playable:
            card = self.rng.choice(playable)
            color = None
            if card >= WILD:
                rest = list(obs.hand)
                rest.remove(card)
                color = favourite_color(rest, self.rng.randrange(4))
            ways = sorted(a for a in legal if A.action_type(a) == A.PLAY
                          and A.action_card(a) == card and not A.action_extra(a))
            preferred = [a for a in ways if A.action_color(a) in (7, color)] or ways
            with_uno = [a for a in preferred if a & A.UNO_FLAG]
            if preferred:
                return self.rng.choice(with_uno or preferred)
        for fallback in (A.pass_turn(seat), A.draw(seat)):
            if fallback in legal:
                return fallback
        return None
