"""A search bot: determinized Monte Carlo over the hidden cards.

On its turn (phase ``play``) the bot deals the cards it cannot see at random, consistent
with everything it sees: the unseen cards are the rule set's deck less its hand, the
discard pile and a visible partner hand; each other seat gets as many as it holds and
the rest is the draw pile, in random order. What the seat's memory knows about a hand
(see :mod:`unokit.bots.memory`: colours, ranks and wilds it lacks since it drew on
them, a colour it named with a wild) shapes the deal. In each deal every candidate
action is played first and the round played out by a fast policy for every seat; the
candidate whose side goes out first most often over all deals is chosen. All candidates
share each deal and the dice of its playout, which makes the comparison sharp.

Under plain rules (the official game and the variants that change nothing a playout
does, see :class:`~unokit.bots.playout.Plain`) the deals and playouts are those of
:func:`~unokit.bots.playout.search_wins`, compiled where numba is installed. Under any
other rules each deal is a position built with :meth:`unokit.Game.from_setup` and
played out by the engine itself with :func:`policy`; that is much slower, so the bot
makes a twentieth of the deals there (at least two).

The candidates are the best few cards to play by the ``hard`` heuristic (a wild with
each colour it may name), or the draw. Decisions the search does not cover (out of
turn, colour choice, challenges, answers to a penalty, a drawn card, exchanges, and
positions :meth:`~unokit.Game.from_setup` cannot rebuild: players already out,
progressive refill levels, a transparent blank on top) are the ``hard`` heuristic's.
The search never looks at the game: only at the observation.

The budget is a number of deals (``iterations``), so the same seed always gives the
same choices. An optional ``time_limit`` (seconds per decision, off by default) stops
early; it makes choices depend on the machine's speed. A :attr:`SearchBot.deadline` (a
``time.monotonic()`` instant, which the game server sets for each decision) stops the
search there with its best choice so far; the deals are then made in chunks of
:data:`CHUNK` whose seeds come from one draw per decision, so that a search the
deadline does not cut short chooses the same whatever the machine's speed, and one it
cuts short leaves the bot's later choices as they would have been.

>>> from unokit import Game, Rules
>>> from unokit.bots.base import play
>>> rules = Rules.preset("official", players=2, rounds=1)
>>> game = Game(rules, seed=2)
>>> bots = [SearchBot(1, rules=rules, iterations=8), SearchBot(2, rules=rules, iterations=8)]
>>> _ = list(play(game, bots))
>>> game.is_over()
True
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from unokit.bots.base import SeededBot
from unokit.bots.heuristic import HeuristicBot, fits
from unokit.bots.playout import Plain, Position, fill_slots, search_stats
from unokit.engine import actions as A
from unokit.engine.cards import (
    COLOR_OF,
    RANK_OF,
    WILD,
    WILD_BLANK,
)
from unokit.engine.errors import UnoError
from unokit.engine.game import Game
from unokit.engine.observation import Observation
from unokit.engine.phases import (
    CHALLENGE,
    CHOOSE_COLOR,
    DRAWN,
    EXCHANGE,
    MATCH_OVER,
    PLAY,
    RESPOND,
    ROUND_OVER,
    SLAP,
)
from unokit.engine.rules import Rules
from unokit.engine.scoring import teammates

DEFAULT_ITERATIONS = 1000
"""Deals per decision when none is given, with two players."""
DEFAULT_ITERATIONS_MANY = 1500
"""Deals per decision when none is given, with three players or more."""
DEFAULT_POLICY_MANY = 3
"""The playout policy (see :class:`SearchBot`) when none is given, with three players or
more: the bot's side plays the colour it holds most, the others any matching card (two
players: 0, every seat a random matching coloured card)."""
SLOW_SHARE = 20
"""Under rules that are not plain, a decision makes ``iterations // SLOW_SHARE`` deals."""
DEFAULT_CANDIDATES = 4
"""Candidate actions searched (the best by the ``hard`` heuristic)."""
MAX_ROLLOUT_STEPS = 500
"""An engine playout longer than this is scored by the hand sizes."""
CHUNK = 100
"""Deals made between two looks at the clock when a :attr:`SearchBot.deadline` is set."""

_PLAY, _DRAW, _PASS, _COLOR, _GIVE = A.PLAY, A.DRAW, A.PASS, A.COLOR, A.GIVE
_UNO_FLAG = A.UNO_FLAG
_OVER = (ROUND_OVER, MATCH_OVER)


class SearchBot(SeededBot):
    """Determinized Monte Carlo search (see the module docstring).

    Args:
        seed: seeds the deals and playouts (the same seed, the same choices).
        rules: the rule set (required: the deck and the effects of every card).
        iterations: deals per decision (default: :data:`DEFAULT_ITERATIONS`;
            :data:`DEFAULT_ITERATIONS_MANY` with three players or more under plain rules).
        candidates: how many of the heuristic's best actions are searched.
        time_limit: seconds per decision after which the search stops early (``None``:
            no limit, the default; a limit makes choices depend on the machine).
        reaction_delay: seconds a server should wait before out-of-turn actions.
        challenge_rate: how often a Wild Draw Four is challenged in the playouts (where
            the rules allow a challenge).
        margin: the heuristic's first choice is kept unless another candidate wins more
            often by more than this many standard errors (0: the most wins decides).
        policy: the playout policy under plain rules (see
            :func:`~unokit.bots.playout.search_stats`): 0 every seat plays a random
            matching coloured card; +1 the bot's side plays the matching card of the colour
            it holds most; +2 the other seats play any matching card at random, wilds
            included (default: 0 with two players, :data:`DEFAULT_POLICY_MANY` with more).
    """

    name = "search"
    needs_rules = True

    def __init__(self, seed: int = 0, *, rules: Rules | str | dict[str, Any] | None = None,
                 iterations: int | None = None, candidates: int = DEFAULT_CANDIDATES,
                 time_limit: float | None = None, reaction_delay: float = 0.5,
                 challenge_rate: float = 0.5, margin: float = 1.0,
                 policy: int | None = None) -> None:
        if rules is None:
            raise ValueError("the search bot needs the rules: make_bot('search', rules=...)")
        rules = Rules.load(rules)
        plain = Plain.of(rules)
        many = rules.players > 2
        if iterations is None:  # more deals with more players, where playouts are quick
            quick = many and plain is not None
            iterations = DEFAULT_ITERATIONS_MANY if quick else DEFAULT_ITERATIONS
        if policy is None:
            policy = DEFAULT_POLICY_MANY if many else 0
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {iterations}")
        if candidates < 1:
            raise ValueError(f"candidates must be at least 1, got {candidates}")
        super().__init__(seed)
        self.rules = rules
        self.iterations = int(iterations)
        self.candidates = int(candidates)
        self.time_limit = time_limit
        self.reaction_delay = float(reaction_delay)
        self.helper = HeuristicBot(seed, level="hard", rules=self.rules,
                                   reaction_delay=reaction_delay)
        self.deck = Counter(self.rules.deck_cards())
        self.plain = plain
        self.challenge_rate = challenge_rate
        self.margin = margin
        self.policy = int(policy)
        self.searched = 0
        """Decisions settled by search (the rest were the heuristic's)."""
        self.deadline: float | None = None
        """A ``time.monotonic()`` instant at which the search stops with its best choice
        so far (``None``: no deadline). The game server sets it for each decision."""

    def reset(self, seed: int | None = None) -> None:
        """Start again: the random generators (with ``seed`` if given) and the memory."""
        super().reset(seed)
        self.helper.reset(seed)

    def __repr__(self) -> str:
        return f"SearchBot(seed={self.seed}, iterations={self.iterations})"

    # ------------------------------------------------------------------ choose
    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        """One of ``legal_actions`` (``None`` out of turn when nothing is worth doing)."""
        obs = observation
        legal = list(legal_actions)
        if not (obs.phase == "play" and obs.current_player == obs.seat and legal):
            return self.helper.choose(obs, legal)
        self.helper.observe(obs)
        seat = obs.seat
        open_seat = obs.uno_open
        if open_seat is not None:
            # Calls and catches first (never the partner's).
            if open_seat == seat and A.call_uno(seat) in legal:
                return A.call_uno(seat)
            if open_seat != seat and A.catch(seat, open_seat) in legal \
                    and open_seat not in teammates(self.rules, seat):
                return A.catch(seat, open_seat)
        turn = [a for a in legal if (A.action_type(a) == _DRAW or (
            A.action_type(a) == _PLAY and fits(obs, A.action_card(a), self.rules)))
            and A.action_player(a) == seat]
        action = self._search(obs, turn) if turn else None
        if action is None:
            action = self.helper._choose(obs, legal)
        self.helper.tracker.chose(obs, action)
        return action

    def _candidates(self, obs: Observation, turn: list[int]) -> list[int]:
        """The heuristic's best few cards to play (or the draw), best first: a wild with
        the four colours it may name, another card in its two best ways (targets, cards
        given); UNO always called."""
        helper = self.helper
        view = helper._view(obs)
        scored = sorted(((helper.score(view, a), -a, a) for a in turn), reverse=True)
        out: list[int] = []
        ways: dict[int, int] = {}
        for _, _, action in scored:
            if action & _UNO_FLAG == 0 and (action | _UNO_FLAG) in turn:
                continue
            key = -1 if A.action_type(action) == _DRAW else A.action_card(action)
            if key not in ways and len(ways) >= self.candidates:
                continue
            if ways.get(key, 0) >= (4 if key >= WILD else 2):
                continue  # a wild: its four colours; another card: its two best ways
            ways[key] = ways.get(key, 0) + 1
            out.append(action)
        return out

    def representable(self, obs: Observation) -> bool:
        """Whether :meth:`~unokit.Game.from_setup` can rebuild this position."""
        rules = self.rules
        if not all(obs.active) or obs.finish_order or rules.progressive_refill:
            return False
        if obs.pending_draw or not obs.discard:
            return False
        if obs.top == WILD_BLANK and rules.blank_card_effect == "transparent":
            return False
        return len(obs.hand_sizes) == rules.players

    def _search(self, obs: Observation, turn: list[int]) -> int | None:
        candidates = self._candidates(obs, turn)
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        if not self.representable(obs):
            return None
        pool = self._unseen(obs)
        if pool is None:
            return None
        team = teammates(self.rules, obs.seat)
        if self.plain is not None:
            found: tuple[list[float], list[float], int] | None = self._quick(
                obs, candidates, pool, team)
        else:
            found = self._slow(obs, candidates, pool, team)
        if found is None or found[2] == 0:  # no deal made before the deadline
            return None
        wins, squares, deals = found
        self.searched += 1
        best = max(range(len(candidates)), key=lambda i: (wins[i], -i))
        if best and self.margin > 0:
            # Leave the heuristic's first choice only for a clearly better one (paired
            # comparison over the deals).
            gain = (wins[best] - wins[0]) / deals
            spread = max(squares[best] / deals - gain * gain, 0.0)
            if gain <= self.margin * math.sqrt(spread / deals):
                best = 0
        return candidates[best]

    def _quick(self, obs: Observation, candidates: list[int], pool: list[int],
               team: Sequence[int]) -> tuple[list[float], list[float], int]:
        """Wins of each candidate over the deals and the squared differences from the
        first candidate's outcomes (see :func:`~unokit.bots.playout.search_stats`), and
        the number of deals."""
        plain = self.plain
        assert plain is not None
        firsts = first_moves(candidates)
        spot = self._position(obs, pool, team)
        if self.deadline is not None:
            return self._quick_until(self.deadline, spot, firsts)
        if self.time_limit is None:
            wins, squares = search_stats(plain, spot, firsts, self.iterations,
                                         self.rng.getrandbits(64), rate=self.challenge_rate,
                                         policy=self.policy)
            return wins, squares, self.iterations
        wins = [0.0] * len(firsts)
        squares = [0.0] * len(firsts)
        start = time.perf_counter()
        deals = 0
        while deals < self.iterations and time.perf_counter() - start <= self.time_limit:
            chunk = min(self.iterations - deals, 50)
            part, part_squares = search_stats(plain, spot, firsts, chunk,
                                              self.rng.getrandbits(64), rate=self.challenge_rate,
                                              policy=self.policy)
            wins = [a + b for a, b in zip(wins, part, strict=True)]
            squares = [a + b for a, b in zip(squares, part_squares, strict=True)]
            deals += chunk
        return wins, squares, max(deals, 1)

    def _quick_until(self, deadline: float, spot: Position,
                     firsts: list[int]) -> tuple[list[float], list[float], int]:
        """As :meth:`_quick`, in chunks of :data:`CHUNK` deals until ``deadline``: one
        draw of the bot's generator seeds every chunk (see the module docstring)."""
        assert self.plain is not None
        chunks = random.Random(self.rng.getrandbits(64))
        wins = [0.0] * len(firsts)
        squares = [0.0] * len(firsts)
        deals = 0
        while deals < self.iterations and time.monotonic() < deadline:
            chunk = min(self.iterations - deals, CHUNK)
            part, part_squares = search_stats(self.plain, spot, firsts, chunk,
                                              chunks.getrandbits(64),
                                              rate=self.challenge_rate, policy=self.policy)
            wins = [a + b for a, b in zip(wins, part, strict=True)]
            squares = [a + b for a, b in zip(squares, part_squares, strict=True)]
            deals += chunk
        return wins, squares, deals

    def _position(self, obs: Observation, pool: list[int], team: Sequence[int]) -> Position:
        """What the seat knows of the position, for the compiled deals: the hands it sees,
        the unseen cards ``pool`` and what its memory knows of each other hand."""
        mate = self._mate(obs)
        tracker = self.helper.tracker
        n = len(obs.hand_sizes)
        known: list[list[int] | None] = [None] * n
        known[obs.seat] = list(obs.hand)
        if mate >= 0 and obs.partner_hand is not None:
            known[mate] = list(obs.partner_hand)
        slots = [tracker.slots(seat) if known[seat] is None else [] for seat in range(n)]
        return Position(pool=pool, sizes=list(obs.hand_sizes), known=known, slots=slots,
                        discard=list(obs.discard), color=obs.color, direction=obs.direction,
                        seat=obs.seat, team=[seat in team for seat in range(n)])

    def _slow(self, obs: Observation, candidates: list[int], pool: list[int],
              team: Sequence[int]) -> tuple[list[float], list[float], int] | None:
        """As :meth:`_quick`, in games built with :meth:`~unokit.Game.from_setup` and
        played out by :func:`rollout`."""
        deadline = self.deadline
        rng = self.rng if deadline is None else random.Random(self.rng.getrandbits(64))
        wins = [0.0] * len(candidates)
        squares = [0.0] * len(candidates)
        start = time.perf_counter()
        deals = 0
        for _ in range(max(2, self.iterations // SLOW_SHARE)):
            if deadline is not None and time.monotonic() >= deadline:
                break
            world = self._deal(obs, pool, rng)
            if world is None:
                return None
            roll_seed = rng.getrandbits(64)
            base = 0.0
            for index, action in enumerate(candidates):
                game = world.copy()
                try:
                    game.apply(action)
                except UnoError:
                    return None
                won = rollout(game, random.Random(roll_seed), team)
                if index == 0:
                    base = won
                wins[index] += won
                squares[index] += (won - base) ** 2
            deals += 1
            if self.time_limit is not None and time.perf_counter() - start > self.time_limit:
                break
        return wins, squares, deals

    def _unseen(self, obs: Observation) -> list[int] | None:
        """The cards the seat cannot see, or ``None`` if they do not add up."""
        seen = Counter(obs.hand)
        seen.update(obs.discard)
        if obs.partner_hand:
            seen.update(obs.partner_hand)
        if seen - self.deck:
            return None  # a card the deck does not have: not this rule set
        pool = sorted((self.deck - seen).elements())
        mate = self._mate(obs)
        hidden = sum(size for s, size in enumerate(obs.hand_sizes) if s not in (obs.seat, mate))
        if len(pool) != hidden + obs.draw_pile_size:
            return None
        return pool

    def _mate(self, obs: Observation) -> int:
        """The partner whose hand the seat sees (-1: none)."""
        if obs.partner_hand is None:
            return -1
        team = [s for s in teammates(self.rules, obs.seat) if s != obs.seat]
        return team[0] if team else -1

    def _hands(self, obs: Observation, pool: list[int],
               rng: random.Random) -> tuple[list[list[int]], list[int]]:
        """One deal of the hidden cards: every hand, and the draw pile (top last)."""
        cards = list(pool)
        rng.shuffle(cards)
        me = obs.seat
        mate = self._mate(obs)
        hands: list[list[int]] = []
        for seat, size in enumerate(obs.hand_sizes):
            if seat == me:
                hands.append(list(obs.hand))
            elif seat == mate and obs.partner_hand is not None:
                hands.append(list(obs.partner_hand))
            else:
                hands.append(cards[:size])
                del cards[:size]
        self._respect_lacks(obs, hands, cards, rng)
        return hands, cards

    def _deal(self, obs: Observation, pool: list[int], rng: random.Random) -> Game | None:
        """One deal of the hidden cards, as a game ready for the seat's turn."""
        hands, cards = self._hands(obs, pool, rng)
        try:
            return Game.from_setup(
                self.rules, hands=hands, draw_pile=cards[::-1], discard=list(obs.discard),
                dealer=obs.dealer, current_player=obs.seat, direction=obs.direction,
                color=obs.color, scores=list(obs.scores), seed=rng.getrandbits(64))
        except UnoError:
            return None

    def _respect_lacks(self, obs: Observation, hands: list[list[int]], pile: list[int],
                       rng: random.Random) -> None:
        """Deal again, to the slots the seat's memory keeps for each other hand (see
        :mod:`unokit.bots.memory`), cards that fit them where the unseen cards allow:
        the most constrained slots first, each a random fitting card."""
        tracker = self.helper.tracker
        slots: list[tuple[int, int, int]] = []
        for seat, hand in enumerate(hands):
            if seat == obs.seat or seat == self._mate(obs):
                continue
            masks = tracker.slots(seat)
            if len(masks) != len(hand) or not any(masks):
                continue
            slots += [(mask, seat, index) for index, mask in enumerate(masks)]
        if not slots:
            return
        seats = {seat for _, seat, _ in slots}
        cards = [card for seat in sorted(seats) for card in hands[seat]] + pile
        rng.shuffle(cards)
        slots.sort(key=lambda slot: -bin(slot[0]).count("1"))
        fill_slots(cards, slots, hands)
        pile[:] = cards


def first_moves(candidates: Sequence[int]) -> list[int]:
    """The candidates as :func:`~unokit.bots.playout.search_stats` takes first moves: a
    card, a wild as ``card | colour << 8``, or -1 to draw.

    >>> first_moves([A.draw(0), A.play(0, 5), A.play(0, WILD, color=2)]) == [-1, 5, WILD | 512]
    True
    """
    firsts = []
    for action in candidates:
        if A.action_type(action) == _DRAW:
            firsts.append(-1)
        else:
            card = A.action_card(action)
            firsts.append(card | (A.action_color(action) << 8) if card >= WILD else card)
    return firsts


def _favourite(hand: list[int]) -> int:
    counts = [0, 0, 0, 0]
    for card in hand:
        if card < WILD:
            counts[COLOR_OF[card]] += 1
    return counts.index(max(counts))


def policy(game: Game, seat: int, rng: random.Random) -> int:
    """The playout policy: a matching coloured card at random if there is one (a wild
    otherwise, naming the colour held most), UNO always called, a drawn card played,
    penalties answered when possible and otherwise accepted, hand swaps with the
    smallest hand."""
    legal = game.legal_actions(seat)
    phase = game.phase
    if phase is PLAY or phase is DRAWN or phase is RESPOND:
        hand = game.hands[seat]
        plays = [a for a in legal
                 if A.action_type(a) == _PLAY and A.action_player(a) == seat]
        if plays:
            if phase is PLAY and game.rules.misplay_penalty:
                top, color = game.top, game.color
                plays = [a for a in plays if _fits(A.action_card(a), top, color)] or plays
            plain = [a for a in plays if A.action_card(a) < WILD]
            choice = plain or plays
            action = choice[rng.randrange(len(choice))]
            card = A.action_card(action)
            if (card >= WILD or A.action_target(action) != A.NO_TARGET
                    or A.action_give(action) >= 0 or A.action_extra_count(action)):
                action = _refine(game, seat, card, action, plays, hand)
            if action | _UNO_FLAG in plays:
                action |= _UNO_FLAG
            return action
        for kind in (_PASS, _DRAW):
            for action in legal:
                if A.action_type(action) == kind and A.action_player(action) == seat:
                    return action
        return legal[0]
    if phase is CHALLENGE:
        return A.draw(seat)
    if phase is CHOOSE_COLOR:
        return A.choose_color(seat, _favourite(game.hands[seat]))
    if phase is EXCHANGE:
        gives = [a for a in legal if A.action_type(a) == _GIVE]
        return gives[rng.randrange(len(gives))] if gives else legal[0]
    return legal[0]


def _refine(game: Game, seat: int, card: int, action: int, plays: list[int],
            hand: list[int]) -> int:
    """Among the ways of playing ``card``: the colour held most, the smallest hand to
    swap with, no card given away but the first."""
    extra = A.action_extra(action)
    ways = [a for a in plays if A.action_card(a) == card and not A.action_uno(a)
            and A.action_extra(a) == extra]
    if not ways:
        return action
    rest = list(hand)
    rest.remove(card)
    color = _favourite(rest)
    sizes = [len(h) for h in game.hands]

    def key(a: int) -> tuple[int, int, int]:
        target = A.action_target(a)
        return (A.action_color(a) not in (A.NO_COLOR_ARG, color),
                sizes[target] if target != A.NO_TARGET else 0, a)

    return min(ways, key=key)


def _fits(card: int, top: int, color: int) -> bool:
    if card >= WILD or top < 0:
        return True
    return COLOR_OF[card] == color or (top < WILD and RANK_OF[card] == RANK_OF[top])


def rollout(game: Game, rng: random.Random, team: Sequence[int]) -> float:
    """Play ``game`` out to the end of the round with :func:`policy` for every seat;
    1.0 if a seat of ``team`` won it, 0.0 if another did (a playout cut short scores
    by the hand sizes)."""
    for _ in range(MAX_ROLLOUT_STEPS):
        phase = game.phase
        if phase in _OVER:
            return 1.0 if game.round_winner in team else 0.0
        if game.finish_order:  # play to the last: the first out wins the round
            return 1.0 if game.finish_order[0] in team else 0.0
        if phase is SLAP:
            game.apply(A.slap(game.slap_left[0]))
            continue
        seat = game.current
        game.apply(policy(game, seat, rng))
    mine = min(len(game.hands[s]) for s in team)
    theirs = min(len(h) for s, h in enumerate(game.hands) if s not in team)
    return 0.5 if mine == theirs else (1.0 if mine < theirs else 0.0)



__all__ = ["CHUNK", "DEFAULT_ITERATIONS", "DEFAULT_ITERATIONS_MANY", "DEFAULT_POLICY_MANY",
           "SLOW_SHARE", "SearchBot", "first_moves", "policy", "rollout"]
