"""Heuristic bots in three levels (``easy``, ``normal``, ``hard``) and four personalities.

Every legal action gets a score from what the seat sees and remembers, and the bot takes
the best one (a little noise aside). What the scores weigh:

- hand management: the colour that will be in force after a play and how many cards of
  it the hand keeps (colour control), shedding high-point cards, several cards at once;
- wild cards are kept while other plays exist and spent when needed (or to go out);
- Draw Two, Wild Draw Four, Skip and the other attack cards count for more the closer
  the next opponent is to going out; with two players a Skip or Reverse is an extra turn;
- a wild names the colour the hand holds most of, less one the next opponent is known
  to hold; a colour an opponent failed to match (drew on) is a good one to leave them;
- a Wild Draw Four is challenged when the odds (from the unseen cards and the accused's
  hand size) make it worth more than accepting; a bluffed one is put down as the
  personality dares;
- out of turn: call UNO, catch a missed call (never the partner's), jump in, pass a skip
  on, slap; never speak (a silence may be in force).

Levels: ``easy`` often plays the first playable card, sometimes forgets UNO or misses a
catch, and never challenges; ``normal`` scores every action; ``hard`` also counts cards
(:mod:`unokit.bots.memory`) and sharpens its weights. Personalities change weights and
randomness: ``cautious`` keeps wilds and never bluffs, ``aggressive`` attacks early and
bluffs more, ``chaotic`` plays with much more noise.

>>> from unokit import Game, Rules
>>> from unokit.bots.base import play
>>> game = Game(Rules.preset("official", players=2, rounds=1), seed=4)
>>> bots = [HeuristicBot(1, level="hard"), HeuristicBot(2, level="easy")]
>>> _ = list(play(game, bots))
>>> game.is_over()
True
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from unokit.bots.base import BotSpecError, SeededBot, must_act
from unokit.bots.memory import Tracker, next_seat
from unokit.engine import actions as A
from unokit.engine import cards as C
from unokit.engine.cards import (
    COLOR_OF,
    DRAW_TWO,
    POINTS,
    RANK_OF,
    REVERSE,
    SKIP,
    WILD,
    WILD_BLANK,
    WILD_DRAW_FOUR,
)
from unokit.engine.house import wheel_color
from unokit.engine.observation import Observation
from unokit.engine.rules import Rules
from unokit.engine.scoring import partner

LEVELS = ("easy", "normal", "hard")
"""The heuristic levels, weakest first."""
PERSONALITIES = ("balanced", "cautious", "aggressive", "chaotic")
"""The personalities (``balanced``: the level as it is)."""
REACTION_DELAYS = {"easy": 1.5, "normal": 0.9, "hard": 0.5}
"""Default seconds a server waits before a bot's out-of-turn action, by level."""

WIN = 1000.0
"""The score of a play that goes out."""


@dataclass(frozen=True)
class Style:
    """The weights and habits of a level and personality (see the module docstring)."""

    forget_uno: float = 0.0
    """Chance of not calling UNO with the play (the late call is forgotten as well)."""
    miss_catch: float = 0.0
    """Chance of letting a missed call go."""
    first_playable: float = 0.0
    """Chance of playing the first playable card without thinking."""
    noise: float = 0.05
    """Spread of the random noise added to every score."""
    progress: float = 3.0
    """Worth of each card put down."""
    points: float = 0.4
    """Worth of shedding 50 points."""
    follow: float = 1.2
    """Worth of keeping cards of the colour in force after a play."""
    keep_wild: float = 1.6
    """Cost of spending a wild while other plays exist."""
    keep_action: float = 0.0
    """Cost of spending an action card early (two players: saved as an extra turn)."""
    attack: float = 1.5
    """Worth of a Draw Two (or another attack) against an opponent close to going out."""
    tempo: float = 1.0
    """Worth of an extra turn (two players: Skip, Reverse, Draw Two)."""
    block: float = 0.8
    """Worth of leaving the next opponent a colour they lack."""
    bluff: float = 0.5
    """Chance assumed that an opponent lets a bluffed Wild Draw Four go (0: never bluff)."""
    challenge: bool = True
    """Whether it ever challenges a Wild Draw Four."""
    challenge_margin: float = 0.0
    """Cards of expected gain a challenge must show over accepting."""
    jump_in: float = 1.0
    """Chance of jumping in (or passing a skip on) when it may."""
    memory: bool = False
    """Whether it counts cards and remembers what opponents failed to match."""
    bluff_prior: float = 0.6
    """How likely an opponent is taken to bluff a Wild Draw Four when holding the colour."""


LEVEL_STYLES = {
    "easy": Style(forget_uno=0.3, miss_catch=0.5, first_playable=0.6, noise=1.5,
                  follow=0.6, keep_wild=0.6, attack=0.5, tempo=0.3, block=0.0,
                  bluff=0.0, challenge=False, jump_in=0.5),
    "normal": Style(keep_wild=4.0),
    "hard": Style(keep_wild=4.0, memory=True, noise=0.02),
}
"""The style of each level, before the personality."""


def styled(level: str, personality: str = "balanced") -> Style:
    """The style of a level with a personality.

    >>> styled("hard", "cautious").bluff
    0.0
    """
    if level not in LEVEL_STYLES:
        raise BotSpecError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
    style = LEVEL_STYLES[level]
    if personality == "balanced":
        return style
    if personality == "cautious":
        return replace(style, keep_wild=style.keep_wild * 1.6, bluff=0.0, attack=style.attack * 0.7,
                       challenge_margin=style.challenge_margin + 1.0, keep_action=0.3)
    if personality == "aggressive":
        return replace(style, keep_wild=style.keep_wild * 0.5, attack=style.attack * 1.6,
                       bluff=min(1.0, style.bluff + 0.3), challenge_margin=-0.5,
                       tempo=style.tempo * 1.3)
    if personality == "chaotic":
        return replace(style, noise=style.noise + 2.5, first_playable=style.first_playable / 2,
                       bluff=min(1.0, style.bluff + 0.2))
    raise BotSpecError(f"unknown personality {personality!r}; personalities: "
                       f"{', '.join(PERSONALITIES)}")


def fits(obs: Observation, card: int, rules: Rules | None = None) -> bool:
    """Whether ``card`` matches the discard pile of ``obs`` (a wild always does): a card
    that does not is a misplay where ``misplay_penalty`` lets one be tried. Under a
    transparent blank the card beneath it is the one to match."""
    if card >= WILD or obs.top < 0:
        return True
    top = obs.top
    if rules is not None and rules.blank_card_effect == "transparent":
        below = [c for c in obs.discard if c != WILD_BLANK]
        top = below[-1] if below else -1
    return COLOR_OF[card] == obs.color or (0 <= top < WILD and RANK_OF[card] == RANK_OF[top])


def _danger(size: int) -> float:
    """How close a hand of ``size`` cards is to going out (1: one card)."""
    return (1.0, 1.0, 0.7, 0.35, 0.15)[size] if size < 5 else 0.05


def has_color_chance(unseen: Counter[int], color: int, size: int) -> float:
    """The chance that ``size`` cards dealt from ``unseen`` hold a card of ``color``."""
    total = sum(unseen.values())
    if total <= 0 or size <= 0:
        return 0.0
    of_color = sum(count for card, count in unseen.items()
                   if card < WILD and COLOR_OF[card] == color)
    if size >= total:
        return 1.0 if of_color else 0.0
    # Hypergeometric: 1 - C(total - k, size) / C(total, size).
    none = 1.0
    for i in range(size):
        none *= max(0.0, (total - of_color - i) / (total - i))
    return 1.0 - none


class _View:
    """What a decision needs, computed once from the observation."""

    __slots__ = (
        "active",
        "counts",
        "hand",
        "me",
        "n",
        "named",
        "next",
        "next_opp",
        "next_size",
        "obs",
        "rules",
        "team",
        "tracker",
        "two",
        "unseen",
        "wilds",
    )

    def __init__(self, obs: Observation, tracker: Tracker | None, rules: Rules | None) -> None:
        self.obs = obs
        self.rules = rules
        me = self.me = obs.seat
        self.n = n = len(obs.hand_sizes)
        mate = partner(rules, me) if rules is not None else -1
        self.team = {me, mate} if mate >= 0 else {me}
        self.hand = obs.hand
        counts = [0, 0, 0, 0]
        wilds = 0
        for card in obs.hand:
            if card >= WILD:
                wilds += 1
            else:
                counts[COLOR_OF[card]] += 1
        self.counts = counts
        self.wilds = wilds
        active = self.active = obs.active if len(obs.active) == n else (True,) * n
        self.two = sum(active) == 2
        self.next = next_seat(me, obs.direction, active)
        self.next_opp = self.next not in self.team
        self.next_size = obs.hand_sizes[self.next]
        self.tracker = tracker
        self.unseen = tracker.unseen(obs) if tracker is not None else None
        self.named = [tracker.named(s) for s in range(n)] if tracker else None

    def opponent_danger(self) -> float:
        """How close the next seat is to going out, if it is an opponent (else 0)."""
        return _danger(self.next_size) if self.next_opp else 0.0

    def next_has(self, color: int) -> float:
        """How likely the next seat holds a card of ``color``."""
        return self.has(self.next, color)

    def has(self, seat: int, color: int) -> float:
        """How likely ``seat`` holds a card of ``color``."""
        size = self.obs.hand_sizes[seat]
        if self.tracker is not None and self.unseen is not None:
            chance = self.tracker.has_chance(seat, color, self.unseen)
        else:
            chance = 1.0 - 0.75 ** size
        if self.named is not None and self.named[seat] == color:
            chance = max(chance, 0.9)
        return chance


class HeuristicBot(SeededBot):
    """A bot that scores every legal action (see the module docstring).

    Args:
        seed: seeds the bot's random choices (the same seed, the same choices).
        level: ``easy``, ``normal`` or ``hard``.
        personality: ``balanced``, ``cautious``, ``aggressive`` or ``chaotic``.
        rules: the rule set (optional; sharpens card counting and a few choices).
        reaction_delay: seconds a server should wait before this bot's out-of-turn
            actions (default by level); the bot itself never waits.
    """

    name = "heuristic"
    level = "normal"
    """The level when none is given (each level's subclass: its own, fixed)."""

    def __init__(self, seed: int = 0, *, level: str | None = None,
                 personality: str = "balanced", rules: Rules | None = None,
                 reaction_delay: float | None = None) -> None:
        if level is None:
            level = self.level
        elif type(self) is not HeuristicBot:
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument "
                            "'level'")
        super().__init__(seed)
        self.level = level
        self.personality = personality
        self.style = styled(level, personality)
        self.name = level if personality == "balanced" else f"{level}:{personality}"
        self.rules = rules
        self.reaction_delay = REACTION_DELAYS[level] if reaction_delay is None \
            else float(reaction_delay)
        self.tracker = Tracker(rules)
        self._forgot: tuple[object, ...] | None = None

    def reset(self, seed: int | None = None) -> None:
        """Start again: the random generator (with ``seed`` if given) and the memory."""
        super().reset(seed)
        self.tracker.reset()
        self._forgot = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed}, level={self.level!r}, " \
               f"personality={self.personality!r})"

    # ------------------------------------------------------------------ choose
    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        """One of ``legal_actions`` (``None`` out of turn when nothing is worth doing)."""
        obs = observation
        self.tracker.update(obs)
        if not legal_actions:
            return None
        action = self._choose(obs, list(legal_actions))
        self.tracker.chose(obs, action)
        return action

    def observe(self, observation: Observation) -> None:
        """Take in an observation without deciding (for a bot that decides elsewhere)."""
        self.tracker.update(observation)

    def _choose(self, obs: Observation, legal: list[int]) -> int | None:
        seat = obs.seat
        legal_set = set(legal)
        if obs.phase == "round_over":
            nxt = A.next_round(seat)
            return nxt if nxt in legal_set else legal[0]
        if A.slap(seat) in legal_set:
            return A.slap(seat)
        style = self.style
        rng = self.rng
        open_seat = obs.uno_open
        if open_seat is not None:
            if open_seat == seat and A.call_uno(seat) in legal_set:
                key: tuple[object, ...] = ("uno", len(obs.discard), obs.hand)
                if self._forgot != key and rng.random() < style.forget_uno:
                    self._forgot = key  # forgotten for this whole window
                if self._forgot != key:
                    return A.call_uno(seat)
            elif open_seat != seat and A.catch(seat, open_seat) in legal_set \
                    and not self._partner(obs, open_seat):
                key = ("catch", len(obs.discard), open_seat, obs.hand_sizes)
                if self._forgot != key and rng.random() < style.miss_catch:
                    self._forgot = key
                if self._forgot != key:
                    return A.catch(seat, open_seat)
        mine = obs.current_player == seat
        if not mine:
            if obs.phase == "slap" and must_act(obs):
                return legal[0]
            plays = [a for a in legal if A.action_type(a) == A.PLAY]
            if plays and rng.random() < style.jump_in:
                return self._best(obs, plays)
            return None
        turn = [a for a in legal if A.action_type(a) not in (A.UNO, A.CATCH, A.SAY)]
        if not turn:
            return legal[0]
        if obs.phase == "challenge" or obs.phase == "respond":
            return self._answer(obs, turn)
        if obs.phase == "choose_color":
            return self._color_action(obs, turn)
        if obs.phase == "exchange":
            return self._give_back(obs, turn)
        plays = [a for a in turn if A.action_type(a) == A.PLAY
                 and (obs.phase != "play" or fits(obs, A.action_card(a), self.rules))]
        if plays and style.first_playable and rng.random() < style.first_playable:
            return self._first_playable(obs, plays, turn)
        return self._best(obs, turn)

    def _partner(self, obs: Observation, seat: int) -> bool:
        return self.rules is not None and partner(self.rules, obs.seat) == seat

    def _view(self, obs: Observation) -> _View:
        return _View(obs, self.tracker if self.style.memory else None, self.rules)

    # ------------------------------------------------------------ turn actions
    def _first_playable(self, obs: Observation, plays: list[int], turn: list[int]) -> int:
        """The easy way: the first playable card in the hand's order, a wild naming the
        colour held most, UNO called unless forgotten."""
        card = min(A.action_card(a) for a in plays)
        ways = [a for a in plays if A.action_card(a) == card and not A.action_extra(a)]
        if not ways:
            return self._best(obs, turn)
        view = self._view(obs)
        best_color = max(range(4), key=lambda c: (view.counts[c], -c))
        preferred = [a for a in ways if A.action_color(a) in (7, best_color)] or ways
        forget = self.rng.random() < self.style.forget_uno
        called = [a for a in preferred if bool(a & A.UNO_FLAG) != forget]
        return min(called or preferred)

    def _best(self, obs: Observation, actions: list[int]) -> int:
        """The action with the best score (plus noise); a jump-in is taken whatever its
        score, being a card off the hand."""
        view = self._view(obs)
        noise = self.style.noise
        rng = self.rng
        forget = self.rng.random() < self.style.forget_uno
        best = actions[0]
        best_score = -math.inf
        for action in actions:
            score = self.score(view, action, forget=forget)
            if noise:
                score += rng.gauss(0.0, noise)
            if score > best_score:
                best, best_score = action, score
        return best

    def score(self, view: _View, action: int, *, forget: bool = False) -> float:
        """The score of one action (higher is better), without noise."""
        kind = A.action_type(action)
        if kind == A.PLAY:
            return self._score_play(view, action, forget)
        if kind == A.DRAW:
            return -4.0
        if kind == A.PASS:
            return -2.5
        if kind == A.COLOR:
            return self._color_score(view, A.action_color(action), view.hand)
        if kind == A.NEXT_ROUND or kind == A.SLAP:
            return 0.0
        return -50.0  # speech, catches that would fail, a challenge out of place

    def _score_play(self, view: _View, action: int, forget: bool) -> float:
        obs = view.obs
        style = self.style
        card = A.action_card(action)
        extra = A.action_extra(action)
        hand = list(view.hand)
        if card not in hand:
            return -100.0
        if obs.phase == "play" and obs.current_player == obs.seat \
                and not fits(obs, card, view.rules):
            return -60.0  # a misplay: the card stays and a penalty is drawn
        played = (card, *extra)
        for c in played:
            hand.remove(c)
        rules = view.rules
        attack_deck = rules is not None and rules.deck == "attack"
        last = played[-1]
        if attack_deck and card < WILD and RANK_OF[card] == C.DISCARD_ALL:
            hand = [c for c in hand if c >= WILD or COLOR_OF[c] != COLOR_OF[card]]
        uno = bool(action & A.UNO_FLAG)
        left = len(hand)
        if left == 0:
            refill = rules is not None and rules.progressive_refill and obs.levels[obs.seat] > 1
            if not refill:
                return WIN
        score = style.progress * (len(view.hand) - left)
        score += style.points * sum(POINTS[c] for c in played) / 50.0
        if left == 1:
            score += (0.5 if uno != forget else -3.0)
        elif uno:
            score -= 0.1
        # The colour in force after the play.
        color = A.action_color(action)
        if last < WILD:
            new_color = COLOR_OF[last]
        elif card == WILD_BLANK and rules is not None \
                and rules.blank_card_effect == "transparent":
            new_color = obs.color
        elif color == 7:
            new_color = wheel_color(obs.color, obs.direction)
        else:
            new_color = color
        score += self._color_score(view, new_color, hand) if new_color >= 0 else 0.0
        danger = view.opponent_danger()
        others_play = any(c < WILD and COLOR_OF[c] == obs.color for c in view.hand)
        rank = RANK_OF[card]
        if card >= WILD:
            plays_without = any(c < WILD and (COLOR_OF[c] == obs.color or (
                obs.top < WILD and obs.top >= 0 and RANK_OF[c] == RANK_OF[obs.top]))
                for c in view.hand)
            keep = style.keep_wild * min(1.0, left / 5.0)
            if plays_without:
                score -= keep * (1.3 if card == WILD_DRAW_FOUR else 1.0)
            if card == WILD_DRAW_FOUR:
                score += self._draw_four(view, others_play, danger)
            elif card in (C.WILD_DOWNPOUR_ONE, C.WILD_DOWNPOUR_TWO, C.WILD_ALL_HIT):
                score += style.attack * 0.5 * (1.0 + self._max_danger(view))
            elif card == C.WILD_HIT_FIRE:
                score += style.attack * (0.6 + danger) if view.next_opp else -style.attack
            elif card == WILD_BLANK and rules is not None and rules.blank_card_effect \
                    == "draw_ten":
                score += style.attack * (1.5 + danger) if view.next_opp else -style.attack * 3
            elif card == C.WILD_SWAP_HANDS:
                score += self._swap_gain(view, A.action_target(action), left)
            elif card == C.WILD_SHUFFLE_HANDS:
                sizes = [s for s, on in zip(obs.hand_sizes, view.active, strict=True) if on]
                score += 0.5 * (left - (sum(sizes) - 1) / len(sizes))
        else:
            if rank in (DRAW_TWO, C.HIT_TWO):
                if view.next_opp:
                    score += style.attack * (0.5 + danger) + (style.tempo if view.two else 0.0)
                else:
                    score -= style.attack * 2
            elif rank == SKIP or (rank == REVERSE and view.two):
                if view.two:
                    score += style.tempo * self._tempo_worth(view, hand, new_color, last)
                elif view.next_opp:
                    score += style.attack * 0.6 * danger
                else:
                    score -= 0.3
            elif rank == REVERSE:
                before = next_seat(obs.seat, -obs.direction, view.active)
                if before not in view.team:
                    score -= style.attack * 0.5 * _danger(obs.hand_sizes[before])
                score += style.attack * 0.5 * danger
            if rank in (SKIP, REVERSE, DRAW_TWO) and style.keep_action and left > 2:
                score -= style.keep_action
            target = A.action_target(action)
            if rank == C.TRADE_HANDS or (rank == 7 and target != 15):
                score += self._swap_gain(view, target, left)
            elif rank == 0 and rules is not None and rules.zero_rotate:
                before = next_seat(obs.seat, -obs.direction, view.active)
                score += self._swap_gain(view, before, left) * 0.8
            give = A.action_give(action)
            if give >= 0:
                score += self._give_score(view, give, target)
        return score

    def _max_danger(self, view: _View) -> float:
        sizes = view.obs.hand_sizes
        return max((_danger(sizes[s]) for s in range(view.n)
                    if s not in view.team and view.active[s]), default=0.0)

    def _tempo_worth(self, view: _View, hand: list[int], color: int, top: int) -> float:
        """With two players an extra turn is worth as much as what the hand can do with
        it: something playable on the card it leaves."""
        for c in hand:
            if c >= WILD or COLOR_OF[c] == color or (c < WILD and RANK_OF[c] == RANK_OF[top]):
                return 1.0 + view.opponent_danger()
        return 0.3

    def _swap_gain(self, view: _View, target: int, left: int) -> float:
        """Worth of swapping a hand of ``left`` cards with ``target``'s hand."""
        if target == 15 or not 0 <= target < view.n:
            return 0.0
        theirs = view.obs.hand_sizes[target]
        gain = (left - theirs) * 1.5
        if target in view.team:
            return -abs(gain) - 1.0
        return gain

    def _give_score(self, view: _View, give: int, target: int) -> float:
        """A 5 that hands a card over: give the worst card, to an opponent."""
        if target in view.team:
            return -2.0
        worth = -1.5 if give >= WILD else POINTS[give] / 50.0
        if give < WILD and view.counts[COLOR_OF[give]] <= 1:
            worth += 0.3
        return worth

    def _color_score(self, view: _View, color: int, hand: Sequence[int]) -> float:
        """Worth of ``color`` being in force with ``hand`` left."""
        style = self.style
        mine = sum(1 for c in hand if c < WILD and COLOR_OF[c] == color)
        score = style.follow * min(mine, 3) / 3.0
        if mine:
            score += 0.1 * mine / max(1, len(hand))
        if view.next_opp and style.block:
            score += style.block * (1.0 - view.next_has(color)) * (0.5 + view.opponent_danger())
        return score

    def _draw_four(self, view: _View, guilty: bool, danger: float) -> float:
        """Worth of a Wild Draw Four beyond its colour: an attack, and a bluff if the
        hand holds the colour in force."""
        style = self.style
        if not view.next_opp:
            return -style.attack * 3
        worth = style.attack * (0.8 + danger) + (style.tempo if view.two else 0.0)
        rules = view.rules
        challenge = rules is None or rules.wild_draw_four == "challenge"
        if guilty and challenge:
            if style.bluff <= 0:
                return -WIN / 2
            risk = 1.0 - style.bluff
            guilty_draw = rules.challenge_guilty_draw if rules is not None else 4
            worth = (1.0 - risk) * worth - risk * (guilty_draw * 0.8 + 1.0)
        return worth

    # -------------------------------------------------------------- decisions
    def _answer(self, obs: Observation, turn: list[int]) -> int:
        """A pending Draw Two / Wild Draw Four: answer it, challenge it or accept it."""
        view = self._view(obs)
        seat = obs.seat
        pending = max(obs.pending_draw, 1)
        best = A.draw(seat) if A.draw(seat) in turn else turn[0]
        best_score = -float(pending)
        for action in turn:
            kind = A.action_type(action)
            if kind == A.PLAY:
                score = self._score_play(view, action, False) + pending * 0.8 - 3.0
                if A.action_card(action) == WILD_DRAW_FOUR:
                    score -= 1.0
            elif kind == A.CHALLENGE:
                score = self._challenge_score(view, pending)
            else:
                continue
            if score > best_score:
                best, best_score = action, score
        return best

    def _challenge_score(self, view: _View, pending: int) -> float:
        """Expected cards taken (negated) by challenging; accepting scores -pending."""
        style = self.style
        if not style.challenge:
            return -math.inf
        obs = view.obs
        rules = view.rules
        guilty_draw = rules.challenge_guilty_draw if rules is not None else 4
        innocent_draw = rules.challenge_innocent_draw if rules is not None else 6
        accused = next_seat(obs.seat, -obs.direction, view.active)
        chance = self._guilty_chance(view, accused)
        stacked = pending - 4
        # Guilty: the accused draws, the challenger plays on (worth about a card).
        win = (stacked + guilty_draw) + 1.0 if accused not in view.team else -1.0
        lose = stacked + innocent_draw
        return chance * win - (1.0 - chance) * lose - style.challenge_margin

    def _guilty_chance(self, view: _View, accused: int) -> float:
        """How likely ``accused`` held the colour in force under their Wild Draw Four."""
        obs = view.obs
        size = obs.hand_sizes[accused]
        color = self.tracker.color_under_top(obs) if self.style.memory else (
            COLOR_OF[obs.discard[-2]] if len(obs.discard) > 1 and obs.discard[-2] < WILD
            else -1)
        if size <= 0:
            return 0.0
        if view.unseen is not None and view.tracker is not None and color >= 0:
            held = view.tracker.has_chance(accused, color, view.unseen)
        else:
            held = 1.0 - 0.75 ** size
        return self.style.bluff_prior * held

    def _color_action(self, obs: Observation, turn: list[int]) -> int:
        view = self._view(obs)
        colors = [a for a in turn if A.action_type(a) == A.COLOR]
        if not colors:
            return turn[0]
        return max(colors, key=lambda a: (self._color_score(view, A.action_color(a), obs.hand)
                                          + self.rng.gauss(0.0, self.style.noise), -a))

    def _give_back(self, obs: Observation, turn: list[int]) -> int:
        """Phase ``exchange``: give back the card least worth keeping."""
        view = self._view(obs)
        gives = [a for a in turn if A.action_type(a) == A.GIVE]
        if not gives:
            return turn[0]

        def badness(action: int) -> tuple[float, int]:
            card = A.action_card(action)
            if card >= WILD:
                return (-2.0, -action)
            worth = POINTS[card] / 50.0 - 0.2 * view.counts[COLOR_OF[card]]
            if RANK_OF[card] in (DRAW_TWO, SKIP, REVERSE, C.HIT_TWO, C.TRADE_HANDS, C.DISCARD_ALL):
                worth -= 0.5
            return (worth, -action)

        return max(gives, key=badness)


class EasyBot(HeuristicBot):
    """The ``easy`` level (see :class:`HeuristicBot`; it takes no ``level``)."""

    name = "easy"
    level = "easy"


class NormalBot(HeuristicBot):
    """The ``normal`` level (see :class:`HeuristicBot`; it takes no ``level``)."""

    name = "normal"
    level = "normal"


class HardBot(HeuristicBot):
    """The ``hard`` level (see :class:`HeuristicBot`; it takes no ``level``)."""

    name = "hard"
    level = "hard"


__all__ = ["LEVELS", "PERSONALITIES", "EasyBot", "HardBot", "HeuristicBot", "NormalBot",
           "Style", "fits", "has_color_chance", "styled"]
