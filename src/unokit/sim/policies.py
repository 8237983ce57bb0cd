"""The simulator's policies, specified exactly, and a reference driver on the engine.

The fast simulator (:mod:`unokit.sim.kernel`) must play the same game as the engine for
the same rules, seed and policies. So the policies' randomness is specified as tightly as
the game's (``docs/determinism.md``), and :func:`play_reference` drives the engine
(:class:`unokit.Game`) with them: it is the definition the kernel is tested against.

**The decision stream.** Each game has one SplitMix64 stream for every decision of every
seat, separate from the game's own generator. Its seed is the first output of
``SplitMix64(game_seed XOR 0x6A09E667F3BCC909)`` (:func:`policy_seed`). Every choice
among ``k`` options takes exactly one ``below(k)`` from it, also when ``k`` is 1.

**Who is asked, and when.** One seat acts per step:

1. Between rounds (phase ``round_over``) ``next_round(0)`` is applied; no one is asked.
2. Right after a play of a Skip that lets the skipped seat pass it on (``skip_on_skip``),
   the skipped seat is asked once, with its skip answers (the plays among its legal
   actions): it answers with one of them or lets it be.
3. With ``jump_in``, right after any other play that leaves the round in phase ``play``,
   the seats other than the current player are asked in turn, from the one after it in
   the direction of play (the seat that has just played included), each holding a card
   identical to the top card with its jump-ins (the plays among its legal actions); the
   first that jumps in plays, and the seats after it are not asked.
4. Otherwise the current player chooses among ``game.legal_actions(current_player)``, in
   the engine's order. This list holds the catch of an opponent who missed the UNO call
   and the player's own late UNO call when the rules offer them.

Apart from steps 2 and 3 no seat acts out of turn: no catches by other seats.

**random**: on its turn ``legal[below(len(legal))]``; asked for a skip answer or a
jump-in, ``pick = below(len(answers) + 1)`` and it plays ``answers[pick]``, or nothing if
``pick == len(answers)``.

**playfirst** (as :class:`unokit.bots.PlayFirstBot`, with the stream above), on its turn:

1. a catch if one is legal, else its own late UNO call if legal;
2. naming a colour (phase ``choose_color``): its favourite colour;
3. if any play is legal: the distinct cards of the legal plays, ascending; one is chosen
   with ``below``; for a wild only the plays naming its favourite colour are kept; of
   those the ones calling UNO if any; one of them with ``below``;
4. otherwise ``pass`` if legal, else ``draw`` (which also accepts a penalty; it never
   challenges).

Asked for a skip answer or a jump-in it plays one as in 3 (it always jumps in). The
favourite colour is the one the hand holds most cards of, ties to the first of R, Y, G,
B; a hand without coloured cards takes ``below(4)``.

>>> from unokit.engine.rules import Rules
>>> outcome = play_reference(Rules.preset("official", players=2, rounds=1), 7, "playfirst")
>>> outcome.winner in (0, 1), outcome.actions == len(outcome.history)
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from unokit.engine import actions as A
from unokit.engine.cards import COLOR_OF, WILD
from unokit.engine.errors import UnoError
from unokit.engine.events import EventKind
from unokit.engine.game import Game
from unokit.engine.phases import CHALLENGE, DRAWN, MATCH_OVER, PLAY, RESPOND, ROUND_OVER
from unokit.engine.rng import MASK64, SplitMix64
from unokit.engine.rules import Rules

POLICY_SALT = 0x6A09E667F3BCC909
"""XORed into the game seed to seed the decision stream."""

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3

DEFAULT_MAX_ACTIONS = 1_000_000
"""A game not over after this many actions stops unfinished (winner -1)."""

POLICIES = ("random", "playfirst")
"""Policy names; the kernel numbers them in this order."""


def policy_seed(game_seed: int) -> int:
    """The seed of a game's decision stream.

    >>> hex(policy_seed(0))
    '0x63cfc62a2b097592'
    """
    return SplitMix64((game_seed ^ POLICY_SALT) & MASK64).next_u64()


def actions_digest(actions: Sequence[int]) -> int:
    """FNV-1a over the action integers (64-bit; one XOR and one multiply per action).

    >>> hex(actions_digest([]))
    '0xcbf29ce484222325'
    """
    h = FNV_OFFSET
    for action in actions:
        h = ((h ^ action) * FNV_PRIME) & MASK64
    return h


def favourite_color(hand: Sequence[int], rng: SplitMix64) -> int:
    """The colour ``hand`` holds most cards of (ties: R, Y, G, B order); ``below(4)``
    when it holds no coloured card."""
    counts = [0, 0, 0, 0]
    for card in hand:
        if card < WILD:
            counts[COLOR_OF[card]] += 1
    if not any(counts):
        return rng.below(4)
    return counts.index(max(counts))


def _pick_play(hand: Sequence[int], plays: Sequence[int], rng: SplitMix64) -> int:
    """playfirst's choice among ``plays`` (step 3 of the module docstring)."""
    kinds = sorted({A.action_card(a) for a in plays})
    card = kinds[rng.below(len(kinds))]
    ways = [a for a in plays if A.action_card(a) == card]
    if card >= WILD:
        color = favourite_color(hand, rng)
        ways = [a for a in ways if A.action_color(a) == color] or ways
    ways = [a for a in ways if a & A.UNO_FLAG] or ways
    return ways[rng.below(len(ways))]


class RandomPolicy:
    """Uniform over the legal actions of its turn."""

    name = "random"

    def choose(self, game: Game, seat: int, legal: Sequence[int], rng: SplitMix64) -> int:
        """The action on its turn."""
        return legal[rng.below(len(legal))]

    def answer_skip(self, game: Game, seat: int, answers: Sequence[int],
                    rng: SplitMix64) -> int | None:
        """One of the skip answers, or ``None``, each as likely."""
        pick = rng.below(len(answers) + 1)
        return answers[pick] if pick < len(answers) else None

    def answer_jump(self, game: Game, seat: int, jumps: Sequence[int],
                    rng: SplitMix64) -> int | None:
        """One of the jump-ins, or ``None``, each as likely (as :meth:`answer_skip`)."""
        return self.answer_skip(game, seat, jumps, rng)


class PlayFirstPolicy:
    """Plays a card whenever it can, else draws (see the module docstring)."""

    name = "playfirst"

    def choose(self, game: Game, seat: int, legal: Sequence[int], rng: SplitMix64) -> int:
        """The action on its turn."""
        for kind in (A.CATCH, A.UNO):
            for action in legal:
                if A.action_type(action) == kind:
                    return action
        hand = game.hands[seat]
        if any(A.action_type(a) == A.COLOR for a in legal):
            return A.choose_color(seat, favourite_color(hand, rng))
        plays = [a for a in legal if A.action_type(a) == A.PLAY]
        if plays:
            return _pick_play(hand, plays, rng)
        if A.pass_turn(seat) in legal:
            return A.pass_turn(seat)
        return A.draw(seat)

    def answer_skip(self, game: Game, seat: int, answers: Sequence[int],
                    rng: SplitMix64) -> int | None:
        """Always passes the skip on."""
        return _pick_play(game.hands[seat], answers, rng)

    def answer_jump(self, game: Game, seat: int, jumps: Sequence[int],
                    rng: SplitMix64) -> int | None:
        """Always jumps in."""
        return _pick_play(game.hands[seat], jumps, rng)


Policy = RandomPolicy | PlayFirstPolicy


class PolicyError(UnoError):
    """A policy specification names no policy, or none at all.

    >>> make_policy("clever")
    Traceback (most recent call last):
    ...
    unokit.sim.policies.PolicyError: unknown policy 'clever'; policies: random, playfirst
    """


def make_policy(name: str) -> Policy:
    """A policy by name (``random`` or ``playfirst``).

    Raises:
        PolicyError: no policy has that name.
    """
    if name == "random":
        return RandomPolicy()
    if name == "playfirst":
        return PlayFirstPolicy()
    raise PolicyError(f"unknown policy {name!r}; policies: {', '.join(POLICIES)}")


def seat_policies(spec: str | Sequence[str], players: int) -> list[str]:
    """Policy names by seat: one name for every seat, or a comma-separated list (or a
    sequence) repeated over the seats.

    >>> seat_policies("random,playfirst", 3)
    ['random', 'playfirst', 'random']

    Raises:
        PolicyError: no name, or a name of no policy.
    """
    names = [n.strip() for n in spec.split(",")] if isinstance(spec, str) else list(spec)
    names = [n for n in names if n]
    if not names:
        raise PolicyError("give at least one policy name")
    for name in names:
        if name not in POLICIES:
            raise PolicyError(f"unknown policy {name!r}; policies: {', '.join(POLICIES)}")
    return [names[seat % len(names)] for seat in range(players)]


def _jump_in(game: Game, seats: Sequence[Policy], rng: SplitMix64) -> int | None:
    """Step 3 of the module docstring: the first jump-in the seats after the current
    player take, or ``None``."""
    seat = game.current
    for _ in range(game.n - 1):
        seat = (seat + game.direction) % game.n
        jumps = [a for a in game.legal_actions(seat) if A.action_type(a) == A.PLAY]
        if jumps:
            chosen = seats[seat].answer_jump(game, seat, jumps, rng)
            if chosen is not None:
                return chosen
    return None


@dataclass
class Outcome:
    """How one game went: what the simulator reports for it."""

    seed: int
    winner: int
    """The match winner; -1 if the game stopped unfinished."""
    scores: list[int]
    actions: int
    plays: int
    draws: int
    turns: int
    """Plays, passes, challenges, penalties accepted and draws that end the turn."""
    rounds: int
    blocked: int
    """Rounds that ended blocked."""
    first: int
    """The seat that had the first turn of the first round (after the start card)."""
    dealer: int
    """The first dealer."""
    digest: int
    repeated: int = 0
    """Rounds blocked because a position came back (the ``repeated`` event)."""
    history: list[int] = field(default_factory=list, repr=False)

    @property
    def points(self) -> int:
        """The winner's score (0 if unfinished)."""
        return self.scores[self.winner] if self.winner >= 0 else 0


def play_reference(rules: Rules, seed: int, policies: str | Sequence[str],
                   max_actions: int = DEFAULT_MAX_ACTIONS) -> Outcome:
    """Play one game on the engine with the given policies (a name, or names by seat,
    see :func:`seat_policies`), as the module docstring specifies."""
    names = seat_policies(policies, rules.players)
    seats = [make_policy(name) for name in names]
    game = Game(rules, seed)
    rng = SplitMix64(policy_seed(seed))
    first = game.current if game.current >= 0 else -1
    dealer = game.dealer
    plays = draws = turns = blocked = repeated = 0
    offer_skip = offer_jump = False
    while game.phase is not MATCH_OVER and len(game.history) < max_actions:
        action: int | None = None
        if game.phase is ROUND_OVER:
            action = A.next_round(0)
        else:
            if offer_skip:
                skipped = game.skip_from
                answers = [a for a in game.legal_actions(skipped)
                           if A.action_type(a) == A.PLAY]
                if answers:
                    action = seats[skipped].answer_skip(game, skipped, answers, rng)
            elif offer_jump:
                action = _jump_in(game, seats, rng)
            if action is None:
                seat = game.current
                action = seats[seat].choose(game, seat, game.legal_actions(seat), rng)
        kind = A.action_type(action)
        accepting = game.phase is CHALLENGE or game.phase is RESPOND
        events = game.apply(action)
        offer_skip = kind == A.PLAY and game.skip_from >= 0
        offer_jump = (kind == A.PLAY and rules.jump_in and not offer_skip
                      and game.phase is PLAY)
        if kind == A.PLAY:
            plays += 1
            turns += 1
        elif kind == A.DRAW:
            draws += 1
            turns += accepting or game.phase is not DRAWN
        elif kind in (A.PASS, A.CHALLENGE):
            turns += 1
        if game.phase is ROUND_OVER or game.phase is MATCH_OVER:
            blocked += any(e.kind is EventKind.ROUND_ENDED and bool(e.data and e.data["blocked"])
                           for e in events)
            repeated += any(e.kind is EventKind.REPEATED for e in events)
    over = game.phase is MATCH_OVER
    return Outcome(
        seed=seed,
        winner=game.match_winner if over else -1,
        scores=list(game.scores),
        actions=len(game.history),
        plays=plays,
        draws=draws,
        turns=turns,
        rounds=game.round_no,
        blocked=blocked,
        first=first,
        dealer=dealer,
        digest=actions_digest(game.history),
        repeated=repeated,
        history=list(game.history),
    )


__all__ = [
    "DEFAULT_MAX_ACTIONS",
    "POLICIES",
    "POLICY_SALT",
    "Outcome",
    "PlayFirstPolicy",
    "Policy",
    "PolicyError",
    "RandomPolicy",
    "actions_digest",
    "favourite_color",
    "make_policy",
    "play_reference",
    "policy_seed",
    "seat_policies",
]
