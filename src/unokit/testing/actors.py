"""Random actors: functions that pick a legal action of any seat, to play random games
with. They act for every seat, so out-of-turn actions (UNO calls, catches, jump-ins,
slaps, speech) happen at random moments, yet the player to act acts most of the time and
prefers plays, so that matches end.

- :func:`soak_action` is the soak's actor (:mod:`unokit.testing.soak`), tuned to end
  matches under any rule set of RULES.md;
- :func:`random_action` is the simpler actor of the property tests, for the rules of
  RULES.md sections 1-3;
- :func:`random_playout` plays a match to its end with one of them.

Both take their randomness from a :class:`random.Random`, so a seed gives one game.

>>> from unokit.engine.game import Game
>>> game = Game("official,players=3,target_score=50", seed=2)
>>> rng = random.Random(7)
>>> while not game.is_over():
...     events = game.apply(soak_action(game, all_legal(game), rng))
>>> game.is_over(), len(game.history) > 10
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from unokit.engine import actions as A
from unokit.engine.cards import COLOR_OF, RANK_OF, WILD, WILD_SHUFFLE_HANDS
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.testing.invariants import all_legal

Actor = Callable[[Game, Mapping[int, list[int]], random.Random], int]
"""An actor: ``(game, legal actions by seat, rng) -> action`` (:func:`soak_action`, or
:func:`random_action` through :func:`any_seat`)."""

_TURN_TYPES = frozenset({A.PLAY, A.DRAW, A.PASS, A.CHALLENGE, A.COLOR, A.GIVE, A.NEXT_ROUND,
                         A.SLAP})
"""Action types that make up a turn or a decision (the rest: calls, catches, speech)."""

OUT_OF_TURN_CHANCE = 0.08
"""Chance of an interesting out-of-turn action when there is one: a play out of turn
(jump-in, a skipped player's Skip), an UNO call, a catch of the open player."""

NOISE_CHANCE = 0.02
"""Chance of any other action of a seat that is not to act, or of the current player's
calls, catches and speech (false catches, speech in a silence: they cost cards, so they
stay rare)."""


def _misplay(game: Game, action: int) -> bool:
    """Whether a play is one of the misplays that ``misplay_penalty`` lists (a card that
    does not match, played in turn)."""
    card = A.action_card(action)
    if card >= WILD or not game.discard:
        return False
    match = game.match
    return COLOR_OF[card] != game.color and (match >= WILD or RANK_OF[card] != RANK_OF[match])


def _sensible(game: Game, player: int, plays: list[int]) -> list[int]:
    """The plays a player would rather make, where hands change owners: of the plays that
    swap hands (a target and no card given) only those naming a player with the fewest
    cards, and a Wild Shuffle Hands only with more cards than the average hand. (Random
    swaps and shuffles even the hands out again and again, and matches hardly end.)"""
    swaps = [a for a in plays if A.action_target(a) != 15 and A.action_give(a) < 0]
    if swaps:
        fewest = min(len(game.hands[A.action_target(a)]) for a in swaps)
        plays = [a for a in plays
                 if a not in swaps or len(game.hands[A.action_target(a)]) == fewest]
    sizes = [len(hand) for seat, hand in enumerate(game.hands) if game.active[seat]]
    if len(game.hands[player]) * len(sizes) <= sum(sizes):
        plays = [a for a in plays if A.action_card(a) != WILD_SHUFFLE_HANDS] or plays
    return plays


def soak_action(game: Game, legal: Mapping[int, list[int]], rng: random.Random) -> int:
    """A random legal action of any seat, the player to act being the likeliest.

    Between rounds and while everyone slaps, any seat that may act. Otherwise, with
    chance :data:`OUT_OF_TURN_CHANCE`, an interesting out-of-turn action where there is
    one, and with chance :data:`NOISE_CHANCE` any other action of any type (speech,
    false catches, ...); otherwise a turn action of the current player: usually a play
    that matches (with a big hand, a number card where there is one; hands swapped and
    shuffled as a player would, see :func:`_sensible`; while a penalty is pending,
    answering and accepting are even),
    rarely a misplay. Matches under random rule sets end much sooner this way than with
    uniform choices.
    """
    current = game.current_player
    if current is None or current not in legal:
        seat = rng.choice(sorted(legal))
        return rng.choice(legal[seat])
    mine = legal[current]
    roll = rng.random()
    if roll < OUT_OF_TURN_CHANCE + NOISE_CHANCE:
        others = [a for seat, acts in legal.items() if seat != current for a in acts]
        others += [a for a in mine if A.action_type(a) not in _TURN_TYPES]
        if others:
            open_seat = game.uno_open
            special = [a for a in others
                       if (A.action_type(a) == A.PLAY and A.action_player(a) != current)
                       or A.action_type(a) == A.UNO
                       or (A.action_type(a) == A.CATCH and A.action_target(a) == open_seat)]
            if special and roll < OUT_OF_TURN_CHANCE:
                return rng.choice(special)
            if roll >= OUT_OF_TURN_CHANCE:
                # By type first, so that the many false catches some rules allow do not
                # crowd out everything else.
                by_type: dict[int, list[int]] = {}
                for action in others:
                    by_type.setdefault(A.action_type(action), []).append(action)
                return rng.choice(by_type[rng.choice(sorted(by_type))])
    turn = [a for a in mine if A.action_type(a) in _TURN_TYPES]
    if not turn:
        return rng.choice(mine)
    plays = [a for a in turn if A.action_type(a) == A.PLAY]
    good = [a for a in plays if not _misplay(game, a)]
    if good and rng.random() < (0.5 if game.pending else 0.9):
        if rng.random() < 0.8:
            good = _sensible(game, current, good)
        if len(game.hands[current]) > 3 and rng.random() < 0.75:
            # Keep wilds and action cards for later, as players do: with fewer penalties
            # flying about, random matches end sooner.
            calm = [a for a in good
                    if A.action_card(a) < WILD and RANK_OF[A.action_card(a)] <= 9]
            if calm:
                return rng.choice(calm)
        return rng.choice(good)
    rest = [a for a in turn if A.action_type(a) != A.PLAY]
    if rest and (not plays or rng.random() < 0.97):
        return rng.choice(rest)
    return rng.choice(plays or turn)


def random_action(game: Game, rng: random.Random) -> int:
    """A random legal action of any seat (the property tests' actor).

    While a player who did not call UNO can be caught, often that player's late call or
    someone's catch; otherwise usually one of the current player's turn actions (a play,
    draw, pass, challenge or colour), preferring plays so that matches end; and now and
    then any legal action of any seat, so that calls, catches and false catches also
    happen at other random moments. (Choosing uniformly among all actions would mostly
    pick false catches when ``false_catch_penalty`` makes them legal, and a match would
    hardly move.) An :class:`AssertionError` when no seat may act.

    >>> game = Game("official", seed=3)
    >>> action = random_action(game, random.Random(0))
    >>> action in game.legal_actions(A.action_player(action))
    True
    """
    legal = all_legal(game)
    if not legal:
        raise AssertionError(f"no seat has a legal action in phase {game.phase}")
    roll = rng.random()
    current = game.current_player
    if current is not None and roll < 0.93:
        open_seat = game.observation(current).uno_open
        if open_seat is not None and roll < 0.3:
            answers = [a for acts in legal.values() for a in acts
                       if A.describe(a).type == "uno"
                       or (A.describe(a).type == "catch" and A.describe(a).target == open_seat)]
            if answers:
                return rng.choice(answers)
        turn = [a for a in legal.get(current, [])
                if A.describe(a).type not in ("uno", "catch")]
        plays = [a for a in turn if A.describe(a).type == "play"]
        if plays and rng.random() < 0.85:
            return rng.choice(plays)
        if turn:
            return rng.choice(turn)
    seat = rng.choice(sorted(legal))
    return rng.choice(legal[seat])


def any_seat(game: Game, legal: Mapping[int, list[int]], rng: random.Random) -> int:
    """:func:`random_action` as an :data:`Actor` (it works out the legal actions itself)."""
    return random_action(game, rng)


def random_playout(rules: Rules | str, seed: int, actor_seed: int, *,
                   max_steps: int = 20_000, actor: Actor = soak_action) -> Game:
    """``Game(rules, seed)`` played to the end by ``actor`` seeded with ``actor_seed``; an
    :class:`AssertionError` if it has not ended after ``max_steps`` actions.

    >>> game = random_playout("official,players=2,target_score=50", 4, 4)
    >>> game.is_over()
    True
    >>> random_playout("official", 4, 4, max_steps=5)
    Traceback (most recent call last):
    ...
    AssertionError: match did not end within 5 actions: <Game ...>
    """
    game = Game(rules, seed)
    rng = random.Random(actor_seed)
    for _ in range(max_steps):
        if game.is_over():
            return game
        game.apply(actor(game, all_legal(game), rng))
    raise AssertionError(f"match did not end within {max_steps} actions: {game!r}")


__all__ = [
    "NOISE_CHANCE",
    "OUT_OF_TURN_CHANCE",
    "Actor",
    "all_legal",
    "any_seat",
    "random_action",
    "random_playout",
    "soak_action",
]
