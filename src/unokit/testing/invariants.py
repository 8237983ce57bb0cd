"""Invariants of an UNO game, each a function that raises :class:`InvariantError` when it
does not hold: the checks the soak (:mod:`unokit.testing.soak`) and
:func:`unokit.testing.check_game` run after every action.

Each check takes the game as it is now (a :class:`~unokit.engine.game.Game`, or a
subclass) and says nothing when all is well:

- :func:`check_conservation` (``conservation``): the hands, the draw pile and the discard
  pile together hold exactly the cards of the deck;
- :func:`check_legal` (``no_legal_action``): someone may act exactly while the match goes
  on, and the seat to act always may;
- :func:`check_encoding` (``legal_malformed``): every listed action is a valid action of
  the seat it is listed for, once, and reads back from its text form;
- :func:`check_listed` (``legal_rejected``): listed actions apply, on a copy;
- :func:`check_illegal` (``illegal_accepted``, ``illegal_changed_state``,
  ``illegal_wrong_error``): actions that are not listed raise
  :class:`~unokit.engine.errors.IllegalActionError` and change nothing;
- :func:`check_privacy` (``privacy``): dealing the cards a seat cannot see differently
  (:func:`permuted`) changes neither its observation nor its legal actions;
- :func:`check_replay` (``replay``): the actions applied again, from the start, give the
  same events and an equal state.

:func:`check_state` runs all but the last on one position, and :func:`check_step`
applies one action and then runs them.

>>> from unokit.engine.game import Game
>>> game = Game("official", seed=3)
>>> deck = sorted(game.deck)
>>> legal = check_state(game, deck, random.Random(0))
>>> sorted(legal) == [game.current_player]
True
>>> check_conservation(game, deck)
>>> card = game.draw_pile.pop()   # a card goes missing
>>> check_conservation(game, deck)
Traceback (most recent call last):
...
unokit.testing.invariants.InvariantError: cards lost [...], duplicated or foreign []
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import suppress
from itertools import chain

from unokit.engine import actions as A
from unokit.engine.cards import CODES, NUM_KINDS, WILD
from unokit.engine.errors import IllegalActionError, UnoError
from unokit.engine.game import Game
from unokit.engine.scoring import partner

INVARIANTS = (
    "conservation",
    "no_legal_action",
    "legal_malformed",
    "legal_rejected",
    "illegal_accepted",
    "illegal_changed_state",
    "illegal_wrong_error",
    "privacy",
    "replay",
)
"""The kinds of :class:`InvariantError` the checks of this module raise."""


class InvariantError(Exception):
    """An invariant does not hold; ``kind`` names it (one of :data:`INVARIANTS`, or of the
    soak's :data:`~unokit.testing.soak.KINDS`).

    >>> error = InvariantError("privacy", "seat 1 sees seat 2's hand")
    >>> error.kind, str(error)
    ('privacy', "seat 1 sees seat 2's hand")
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def action_text(action: object) -> str:
    """An action as the error messages show it: its text form where it is a valid
    encoding, ``repr`` otherwise.

    >>> action_text(A.draw(1)), action_text(-1), action_text("0:draw")
    ('1:draw', '-1', "'0:draw'")
    """
    if isinstance(action, int) and A.is_valid_encoding(action):
        return A.format_action(action)
    return repr(action)


def all_legal(game: Game) -> dict[int, list[int]]:
    """Seat -> its legal actions, for every seat that has any.

    >>> game = Game("official", seed=3)
    >>> list(all_legal(game)) == [game.current_player]
    True
    """
    out: dict[int, list[int]] = {}
    for seat in range(game.n):
        acts = game.legal_actions(seat)
        if acts:
            out[seat] = acts
    return out


def copy_game(game: Game) -> Game:
    """``game.copy()``, of the game's own class. :meth:`Game.copy` makes a plain ``Game``;
    the copy of a subclass that declares ``__slots__ = ()`` is given its class back (a
    subclass with other attributes defines ``copy`` itself).

    >>> class Quiet(Game):
    ...     __slots__ = ()
    >>> type(copy_game(Quiet("official", seed=1))).__name__
    'Quiet'
    """
    other = game.copy()
    if type(other) is not type(game):
        other.__class__ = type(game)
    return other


# ------------------------------------------------------------------ the cards
def _codes(counts: Counter[int]) -> str:
    return "[" + " ".join(f"{CODES[k]}x{n}" if n > 1 else CODES[k]
                          for k, n in sorted(counts.items())) + "]"


def check_conservation(game: Game, deck: Sequence[int]) -> None:
    """Hands + draw pile + discard pile == the deck, as multisets (``deck`` sorted, as
    ``sorted(game.deck)`` gives it at the start).

    >>> game = Game("official", seed=3)
    >>> deck = sorted(game.deck)
    >>> game.hands[0].append(game.hands[0][0])   # a card is copied
    >>> check_conservation(game, deck)
    Traceback (most recent call last):
    ...
    unokit.testing.invariants.InvariantError: cards lost [], duplicated or foreign [...]
    """
    cards = sorted(chain(chain.from_iterable(game.hands), game.draw_pile, game.discard))
    if cards != list(deck):
        have = Counter(cards)
        want = Counter(deck)
        raise InvariantError("conservation", f"cards lost {_codes(want - have)}, "
                             f"duplicated or foreign {_codes(have - want)}")


# ------------------------------------------------------------ legal actions
def check_legal(game: Game, legal: Mapping[int, list[int]]) -> None:
    """Someone may act exactly while the match goes on: before the match ends the seat
    to act has a legal action (when nobody is to act, as between rounds or while every
    seat slaps, some seat has one), and nobody has one after it. ``legal`` is
    :func:`all_legal` of the game.

    >>> game = Game("official", seed=3)
    >>> check_legal(game, {})
    Traceback (most recent call last):
    ...
    unokit.testing.invariants.InvariantError: seat ... is to act in phase play but has no ...
    """
    if game.is_over():
        if legal:
            raise InvariantError("no_legal_action", "seats may act after the match ended: "
                                 + ", ".join(map(str, sorted(legal))))
        return
    current = game.current_player
    if current is not None:
        if not legal.get(current):
            raise InvariantError("no_legal_action", f"seat {current} is to act in phase "
                                 f"{game.phase.value} but has no legal action")
    elif not legal:
        raise InvariantError("no_legal_action", f"nobody may act in phase {game.phase.value}")


def check_encoding(game: Game, legal: Mapping[int, list[int]]) -> None:
    """Each listed action is a valid encoding whose player is the seat it is listed for,
    listed once, and its text form parses back to it.

    >>> game = Game("official", seed=3)
    >>> seat = game.current_player
    >>> check_encoding(game, {seat: [A.draw(seat), A.draw(seat)]})
    Traceback (most recent call last):
    ...
    unokit.testing.invariants.InvariantError: seat ... lists ...:draw more than once
    """
    for seat, acts in legal.items():
        if not 0 <= seat < game.n:
            raise InvariantError("legal_malformed", f"actions listed for seat {seat} of "
                                 f"{game.n}")
        seen: set[int] = set()
        for action in acts:
            if type(action) is not int or not A.is_valid_encoding(action):
                raise InvariantError("legal_malformed", f"seat {seat} lists "
                                     f"{action_text(action)}, which encodes no action")
            text = A.format_action(action)
            if A.action_player(action) != seat:
                raise InvariantError("legal_malformed", f"seat {seat} lists {text}, an "
                                     "action of another seat")
            if action in seen:
                raise InvariantError("legal_malformed", f"seat {seat} lists {text} more "
                                     "than once")
            seen.add(action)
            if A.parse_action(text) != action:
                raise InvariantError("legal_malformed", f"seat {seat} lists {text}, which "
                                     "reads back as another action")


def check_listed(game: Game, legal: Mapping[int, list[int]], rng: random.Random,
                 tries: int = 3) -> None:
    """A few listed actions, drawn at random from every seat's, apply to copies without
    an error, and the game itself stays as it was.

    >>> game = Game("official", seed=3)
    >>> check_listed(game, {game.current_player: [A.challenge(game.current_player)]},
    ...              random.Random(0))
    Traceback (most recent call last):
    ...
    unokit.testing.invariants.InvariantError: listed action ...:challenge was rejected: ...
    """
    everyone = [action for acts in legal.values() for action in acts]
    before = len(game.log), len(game.history)
    for action in rng.sample(everyone, min(tries, len(everyone))):
        trial = copy_game(game)
        try:
            trial.apply(action)
        except IllegalActionError as exc:
            raise InvariantError("legal_rejected", f"listed action {action_text(action)} "
                                 f"was rejected: {exc}") from None
    if (len(game.log), len(game.history)) != before:
        raise InvariantError("legal_rejected", "applying an action to a copy changed the "
                             "game itself")


# ---------------------------------------------------------- illegal actions
def _variants(game: Game, action: int, rng: random.Random) -> list[int]:
    """A legal play with one argument changed (colour, target, UNO call, seat)."""
    parts = A.describe(action)
    out: list[int] = [action ^ A.UNO_FLAG]
    card = parts.card
    if card is None:
        return out
    color = parts.color
    target = parts.target
    tries: list[tuple[int | None, int | None, int]] = [
        (None if color is not None else rng.randrange(4), target, parts.player),
        (color if color is None else (color + 1) % 4, target, parts.player),
        (color, parts.player, parts.player),
        (color, None if target is not None else rng.randrange(game.n), parts.player),
        (color, target, (parts.player + 1) % game.n),
    ]
    for new_color, new_target, seat in tries:
        with suppress(ValueError):
            out.append(A.play(seat, card, color=new_color, target=new_target, uno=parts.uno,
                              give=parts.give, extra=parts.extra))
    return out


def illegal_candidates(game: Game, rng: random.Random) -> list[object]:
    """Actions that must be rejected now, in random order (checked against the legal
    lists, so a legal one never slips in): plays of a random seat's cards with a wrong
    colour argument, of cards it does not hold, actions of other phases, a legal play
    with one argument changed, an action of a seat that does not play, integers that
    encode no action and objects that are not integers.

    >>> game = Game("official", seed=3)
    >>> legal = {a for acts in all_legal(game).values() for a in acts}
    >>> candidates = illegal_candidates(game, random.Random(0))
    >>> len(candidates) > 10 and not legal & set(candidates)
    True
    """
    n = game.n
    seat = rng.randrange(n)
    hand = game.hands[seat]
    out: list[object] = []
    for card in set(hand):
        out.append(A.play(seat, card, color=0 if card >= WILD else None))
        out.append(A.play(seat, card, color=None if card >= WILD else 1))
    unheld = [k for k in range(NUM_KINDS) if CODES[k] and k not in hand]
    for card in rng.sample(unheld, min(3, len(unheld))):
        out.append(A.play(seat, card, color=2 if card >= WILD else None))
    out += [A.draw(seat), A.pass_turn(seat), A.challenge(seat), A.choose_color(seat, 3),
            A.call_uno(seat), A.catch(seat, seat), A.catch(seat, rng.randrange(n)),
            A.next_round(seat), A.slap(seat), A.say(seat)]
    if hand:
        out.append(A.give_back(seat, rng.choice(hand)))
    plays = [a for a in game.legal_actions(seat) if A.action_type(a) == A.PLAY]
    if plays:
        out += _variants(game, rng.choice(plays), rng)
    out.append(A.draw(n))  # a seat that does not play
    if rng.random() < 0.5:  # integers that encode no action, and other objects
        out += [-1, -rng.randrange(1, 2**40), 2**47 + rng.randrange(2**20),
                rng.randrange(2**47), None, 1.5, "0:draw", True]
    legal: dict[int, frozenset[int]] = {}
    kept: list[object] = []
    for action in out:
        if type(action) is int and 0 <= action < 2**47:
            who = A.action_player(action)
            if who < n:
                if who not in legal:
                    legal[who] = frozenset(game.legal_actions(who))
                if action in legal[who]:
                    continue
        kept.append(action)
    rng.shuffle(kept)
    return kept


def check_illegal(game: Game, rng: random.Random, tries: int = 2) -> None:
    """A few illegal actions (:func:`illegal_candidates`) are each rejected with
    :class:`~unokit.engine.errors.IllegalActionError`, and the game is left equal to what
    it was, event log and history included.

    >>> check_illegal(Game("official", seed=3), random.Random(0), tries=5)
    """
    for action in illegal_candidates(game, rng)[:tries]:
        before = game.copy()
        log_size = len(game.log)
        history = len(game.history)
        text = action_text(action)
        try:
            game.apply(action)  # type: ignore[arg-type]
        except IllegalActionError:
            pass
        except Exception as exc:
            raise InvariantError("illegal_wrong_error", f"illegal action {text} raised "
                                 f"{type(exc).__name__}: {exc}") from None
        else:
            raise InvariantError("illegal_accepted", f"illegal action {text} was applied "
                                 f"in phase {before.phase.value}")
        if game != before or len(game.log) != log_size or len(game.history) != history:
            raise InvariantError("illegal_changed_state",
                                 f"rejecting {text} changed the game")


# ------------------------------------------------------------------ privacy
def visible_seats(game: Game, seat: int) -> set[int]:
    """The seats whose hands ``seat`` sees (its own, and a partner's where allowed).

    >>> visible_seats(Game("official", seed=3), 1)
    {1}
    >>> visible_seats(Game("official,teams=pairs,players=4,partner_hands_visible=true"), 1)
    {1, 3}
    """
    seen = {seat}
    if game.rules.partner_hands_visible:
        seen.add(partner(game.rules, seat))
    return seen


def permuted(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy in which the cards ``seat`` cannot see lie differently: the other hands
    dealt out again among themselves (sizes kept) and the draw pile shuffled.

    >>> game = Game("official,players=3", seed=3)
    >>> other = permuted(game, 0, random.Random(1))
    >>> other.hands[0] == game.hands[0], other.hand_sizes() == game.hand_sizes()
    (True, True)
    >>> other.observation(0) == game.observation(0)
    True
    """
    other = copy_game(game)
    hidden = [s for s in range(game.n) if s not in visible_seats(game, seat)]
    # The card a player just drew and may now play stays in that player's hand.
    kept = (game.current, game.hands[game.current].index(game.drawn)) if (
        game.drawn >= 0 and game.current in hidden) else (-1, -1)
    pool = [card for s in hidden for i, card in enumerate(other.hands[s])
            if (s, i) != kept]
    rng.shuffle(pool)
    for s in hidden:
        hand = other.hands[s]
        for i in range(len(hand)):
            if (s, i) != kept:
                hand[i] = pool.pop()
    rng.shuffle(other.draw_pile)
    other.restore(other)  # forget cached legal actions, which knew the old hands
    return other


def check_privacy(game: Game, rng: random.Random, seat: int | None = None) -> None:
    """Another deal of the hidden cards (:func:`permuted`) changes neither a seat's
    observation nor its legal actions; the seat is drawn at random unless given.

    >>> game = Game("official,players=3", seed=3)
    >>> for seat in range(3):
    ...     check_privacy(game, random.Random(seat), seat)
    """
    if seat is None:
        seat = rng.randrange(game.n)
    view = game.observation(seat)
    acts = sorted(game.legal_actions(seat))
    other = permuted(game, seat, rng)
    if other.observation(seat) != view:
        diff = [name for name, mine in view.to_dict().items()
                if other.observation(seat).to_dict()[name] != mine]
        raise InvariantError("privacy", f"seat {seat}'s observation depends on hidden "
                             f"cards ({', '.join(diff)})")
    moved = sorted(other.legal_actions(seat))
    if moved != acts:
        extra = sorted(map(action_text, set(moved) - set(acts)))
        lost = sorted(map(action_text, set(acts) - set(moved)))
        raise InvariantError("privacy", f"seat {seat}'s legal actions depend on hidden "
                             f"cards (gained {extra}, lost {lost})")


# ------------------------------------------------------------------- replay
def check_replay(game: Game, actions: list[int], start: Game | None = None) -> None:
    """The actions, applied again from the start, give the same events and an equal
    state. ``start`` is a copy of the game taken before the actions (by default a fresh
    game of the same class, rules and seed: then the deal is checked too), and the
    game's history must be the start's followed by ``actions``.

    >>> game = Game("official", seed=3)
    >>> game.apply(A.draw(game.current_player))
    [...]
    >>> check_replay(game, game.history)
    >>> check_replay(game, [])
    Traceback (most recent call last):
    ...
    unokit.testing.invariants.InvariantError: the game's history is not the actions applied
    """
    again = type(game)(game.rules, game.seed) if start is None else copy_game(start)
    if game.history != again.history + actions:
        raise InvariantError("replay", "the game's history is not the actions applied")
    for index, action in enumerate(actions):
        try:
            again.apply(action)
        except IllegalActionError as exc:
            raise InvariantError("replay", f"replayed action {index} "
                                 f"({action_text(action)}) was rejected: {exc}") from None
    if again.log != game.log:
        first = next((i for i, (a, b) in enumerate(zip(again.log, game.log, strict=False))
                      if a != b), min(len(again.log), len(game.log)))
        raise InvariantError("replay", f"the replay's events differ from event {first} on")
    if again != game:
        raise InvariantError("replay", "the replay reached another state")


# ------------------------------------------------------------- every check
def check_state(game: Game, deck: Sequence[int], rng: random.Random | None = None, *,
                illegal: bool = True, privacy: bool = True, listed: bool = True
                ) -> dict[int, list[int]]:
    """Every invariant of one position: conservation, legal actions (someone may act,
    well formed), and, with ``rng`` (each one unless switched off), a few listed actions
    applied to copies, a few illegal ones refused, and one seat's privacy. Returns
    :func:`all_legal` of the game.

    >>> game = Game("official,players=4", seed=8)
    >>> legal = check_state(game, sorted(game.deck), random.Random(0))
    >>> game.current_player in legal
    True
    """
    check_conservation(game, deck)
    legal = all_legal(game)
    check_legal(game, legal)
    check_encoding(game, legal)
    if rng is not None:
        if listed:
            check_listed(game, legal, rng)
        if illegal:
            check_illegal(game, rng)
        if privacy:
            check_privacy(game, rng)
    return legal


def check_step(game: Game, action: int, deck: Sequence[int], rng: random.Random | None = None,
               *, illegal: bool = True, privacy: bool = True, listed: bool = True
               ) -> dict[int, list[int]]:
    """Apply one listed action (a refusal is a ``legal_rejected`` failure), then
    :func:`check_state`. Returns the legal actions after it.

    >>> game = Game("official", seed=3)
    >>> deck = sorted(game.deck)
    >>> legal = check_step(game, A.draw(game.current_player), deck, random.Random(0))
    >>> len(game.history)
    1
    >>> check_step(game, A.challenge(0), deck)
    Traceback (most recent call last):
    ...
    unokit.testing.invariants.InvariantError: listed action 0:challenge was rejected: ...
    """
    try:
        game.apply(action)
    except UnoError as exc:
        raise InvariantError("legal_rejected", f"listed action {action_text(action)} was "
                             f"rejected: {exc}") from None
    return check_state(game, deck, rng, illegal=illegal, privacy=privacy, listed=listed)


__all__ = [
    "INVARIANTS",
    "InvariantError",
    "action_text",
    "all_legal",
    "check_conservation",
    "check_encoding",
    "check_illegal",
    "check_legal",
    "check_listed",
    "check_privacy",
    "check_replay",
    "check_state",
    "check_step",
    "copy_game",
    "illegal_candidates",
    "permuted",
    "visible_seats",
]
