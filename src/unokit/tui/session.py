"""The match behind the terminal game: one human at seat 0 and bots at the other seats.

A :class:`Session` holds the game, the bots, the seat names and the event log as the
human may read it. It asks the bots through the same :class:`unokit.engine.driver.Driver`
as :func:`unokit.bots.play` (the out-of-turn seats first, in seat order after the lead,
then the lead), but one step at a time, so that the screen can wait between the steps.
It never asks a bot between rounds: the human starts the next round.

>>> config = PlayConfig(Rules.preset("official", players=2, rounds=1), seed=3,
...                     levels=("playfirst",))
>>> session = Session.start(config)
>>> session.names, session.levels
(['You', 'Bob'], ['you', 'playfirst'])
>>> move = session.next_move()
>>> move is None or move.seat == 1
True

Nothing in a session's log shows a card the human may not see: every line is written
from seat 0's view (:func:`unokit.engine.events.redact`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.text import Text

from unokit.bots import BOTS, Bot, BotSpecError, make_bot
from unokit.engine import actions as A
from unokit.engine.driver import Driver
from unokit.engine.events import Event, redact
from unokit.engine.game import Game, Phase
from unokit.engine.observation import Observation
from unokit.engine.rules import Rules
from unokit.i18n import _, current_language, pgettext, translations
from unokit.text.transcript import describe_event
from unokit.tui.faces import decorate

HUMAN = 0
"""The human's seat."""

NAMES = ("You", "Bob", "Cara", "Dan", "Eve", "Finn", "Gina", "Hugo", "Iris", "Jack")
"""Default seat names (seat 0 is the human)."""

LEVEL_ORDER = ("easy", "normal", "hard", "search", "expert")
"""Bot levels listed first, in this order; other registered bots follow by name."""

MAX_SEED = 2**64 - 1

DEFAULT_DELAY = 0.6
"""Seconds a bot waits before it acts."""


def bot_levels() -> list[str]:
    """The bot names of the registry :data:`unokit.bots.BOTS`, read now, weakest first.

    >>> {"playfirst", "random"} <= set(bot_levels())
    True
    """
    names = list(BOTS)
    return [n for n in LEVEL_ORDER if n in names] + sorted(n for n in names
                                                          if n not in LEVEL_ORDER)


def default_level() -> str:
    """``normal`` where that bot exists, else ``playfirst``."""
    return "normal" if "normal" in BOTS else "playfirst"


def random_seed() -> int:
    """A fresh seed for a new match (shown on screen, so the match can be replayed)."""
    return random.SystemRandom().randrange(1_000_000_000)


@dataclass(frozen=True)
class PlayConfig:
    """What a match is played with."""

    rules: Rules
    seed: int
    levels: tuple[str, ...]
    """The bot level of seats 1, 2, ... (one per opponent)."""
    name: str = "You"
    """The human's name."""


def parse_levels(text: str | None, opponents: int) -> tuple[str, ...]:
    """Bot levels for ``opponents`` seats from ``"normal,hard"`` (repeated as needed).

    >>> parse_levels("random,playfirst", 3)
    ('random', 'playfirst', 'random')
    >>> parse_levels("nobody", 1)
    Traceback (most recent call last):
    ...
    unokit.bots.base.BotSpecError: unknown bot 'nobody'; bots: ...
    """
    if text is None or not text.strip():
        return (default_level(),) * opponents
    kinds = [name.strip().lower() for name in text.split(",") if name.strip()]
    for kind in kinds:
        if kind not in BOTS:
            raise BotSpecError(f"unknown bot {kind!r}; bots: {', '.join(sorted(BOTS))}")
    return tuple(kinds[i % len(kinds)] for i in range(opponents))


def config_from_options(rules_text: str | None, players: int | None, bots: str | None,
                        seed: int | None, name: str = "You") -> PlayConfig:
    """The configuration of ``unokit play`` options (defaults for what is not given).

    Raises:
        RulesError: a bad rule set (naming the keys).
        BotSpecError: an unknown bot.
        ValueError: a bad seed.
    """
    rules = Rules.load(rules_text or "official")
    if players is not None and players != rules.players:
        rules = rules.with_(players=players)
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be 0..{MAX_SEED}")
    levels = parse_levels(bots, rules.players - 1)
    return PlayConfig(rules, random_seed() if seed is None else seed, levels, name or "You")


@dataclass(frozen=True)
class Move:
    """A bot's action, chosen for the state the session had at ``version``."""

    seat: int
    action: int
    out_of_turn: bool
    version: int


@dataclass
class Offer:
    """What the human may do now, sorted out of ``game.legal_actions(0)``."""

    legal: list[int]
    plays: list[int] = field(default_factory=list)
    play_cards: set[int] = field(default_factory=set)
    """Cards that may be played on their own (or first in a multi-play)."""
    multi_cards: set[int] = field(default_factory=set)
    """Cards that take part in some multi-play."""
    gives: dict[int, int] = field(default_factory=dict)
    """Card -> the action giving it back (phase ``exchange``)."""
    draw: int | None = None
    pass_turn: int | None = None
    challenge: int | None = None
    uno: int | None = None
    uno_plays: bool = False
    """Some play may call UNO with it."""
    catches: dict[int, int] = field(default_factory=dict)
    """Target seat -> the catch."""
    colors: dict[int, int] = field(default_factory=dict)
    """Colour -> naming it (phase ``choose_color``)."""
    next_round: int | None = None
    slap: int | None = None
    say: int | None = None

    @property
    def hand_cards(self) -> set[int]:
        """Cards in the hand that lead to some action."""
        return self.play_cards | self.multi_cards | set(self.gives)


def make_offer(legal: Sequence[int]) -> Offer:
    """Sort legal actions by what they do.

    >>> from unokit.engine.cards import parse_card
    >>> offer = make_offer([A.play(0, parse_card("R5")), A.draw(0), A.catch(0, 2)])
    >>> sorted(offer.play_cards), offer.draw == A.draw(0), list(offer.catches)
    ([5], True, [2])
    """
    offer = Offer(list(legal))
    for action in legal:
        kind = A.action_type(action)
        if kind == A.PLAY:
            offer.plays.append(action)
            card = A.action_card(action)
            extra = A.action_extra(action)
            if extra:
                offer.multi_cards.update((card, *extra))
            else:
                offer.play_cards.add(card)
            if action & A.UNO_FLAG:
                offer.uno_plays = True
        elif kind == A.GIVE:
            offer.gives[A.action_card(action)] = action
        elif kind == A.CATCH:
            offer.catches[A.action_target(action)] = action
        elif kind == A.COLOR:
            offer.colors[A.action_color(action)] = action
        else:
            slot = {A.DRAW: "draw", A.PASS: "pass_turn", A.CHALLENGE: "challenge",
                    A.UNO: "uno", A.NEXT_ROUND: "next_round", A.SLAP: "slap",
                    A.SAY: "say"}.get(kind)
            if slot is not None:
                setattr(offer, slot, action)
    return offer


def single_plays(legal: Sequence[int], card: int) -> list[int]:
    """The plays of ``card`` on its own, every variant (colour, target, give, UNO)."""
    return [a for a in legal if A.action_type(a) == A.PLAY and A.action_card(a) == card
            and not A.action_extra(a)]


def multi_plays(legal: Sequence[int], cards: Sequence[int]) -> list[int]:
    """Plays of exactly the cards ``cards`` (in the order chosen where that order is
    legal: the first card played first, the last one setting the colour; otherwise any
    legal order)."""
    wanted = sorted(cards)
    matching = [a for a in legal if A.action_type(a) == A.PLAY and A.action_extra(a)
                and sorted((A.action_card(a), *A.action_extra(a))) == wanted]
    ordered = [a for a in matching if A.action_card(a) == cards[0]
               and A.action_extra(a)[-1] == cards[-1]]
    return ordered or matching


def with_uno(candidates: Sequence[int], armed: bool) -> list[int]:
    """Of plays that differ in the UNO call, those with it (``armed``) or without."""
    calling = [a for a in candidates if a & A.UNO_FLAG]
    silent = [a for a in candidates if not a & A.UNO_FLAG]
    if calling and silent:
        return calling if armed else silent
    return list(candidates)


DEFAULT_NAME = "You"
"""The human's name when none is given: in English the log speaks to the player
(:func:`as_you`); in another language the table shows :func:`shown_name`."""


def shown_name(name: str) -> str:
    """``name`` as the table shows it: the default name ``You`` in the current
    language (a word the log's third-person lines can take), any other name as it is.

    >>> shown_name("You"), shown_name("Ana")
    ('You', 'Ana')
    """
    if name == DEFAULT_NAME and current_language() != "en":
        # TRANSLATORS: the human player's name when none was given. The log says it
        # in the third person ("{who} draws 2 cards", "Bob catches {who}"), so
        # choose a noun that reads well there (not "you").
        return pgettext("the player's default name", "You")
    return name


_VERBS = {"is": "are", "has": "have", "draws": "draw", "plays": "play", "keeps": "keep",
          "names": "name", "calls": "call", "catches": "catch", "tries": "try",
          "challenges": "challenge", "shows": "show", "takes": "take", "goes": "go",
          "empties": "empty", "reaches": "reach", "gives": "give", "slaps": "slap",
          "says": "say", "speaks": "speak", "presses": "press", "discards": "discard",
          "faces": "face", "deals": "deal", "wins": "win", "loses": "lose"}
_YOU_VERB = re.compile(r"\bYou (" + "|".join(_VERBS) + r")\b")
_YOU_AND_VERB = re.compile(r"\bYou has (.*?) and wins\b")


def as_you(line: str) -> str:
    """A transcript line about a seat named ``You``, in the second person.

    >>> as_you("You draws 1 card. Bob catches You.")
    'You draw 1 card. Bob catches You.'
    >>> as_you("Round 2 is blocked: You has the lowest hand and wins 5 points.")
    'Round 2 is blocked: You have the lowest hand and win 5 points.'
    >>> as_you("Bob challenges You's Wild Draw Four: You is innocent.")
    'Bob challenges your Wild Draw Four: You are innocent.'
    """
    line = _YOU_AND_VERB.sub(r"You has \1 and win", line)
    line = _YOU_VERB.sub(lambda m: "You " + _VERBS[m.group(1)], line)
    return line.replace("You's", "your")


class Session:
    """A match with the human at seat 0; see the module docstring."""

    def __init__(self, game: Game, names: Sequence[str], levels: Sequence[str],
                 bots: Sequence[Bot | None], *, rules_text: str | None = None) -> None:
        if len(names) != game.n or len(levels) != game.n or len(bots) != game.n:
            raise ValueError(f"names, levels and bots must cover {game.n} seats")
        self.game = game
        self.names = list(names)
        self.levels = list(levels)
        self.bots = list(bots)
        self.rules_text = rules_text or game.rules.to_string()
        self.driver = Driver(game)
        """Who is asked, in which order, and the seats that hold (every action of the
        match goes through it)."""
        self.lines: list[Text] = []
        """The log as the human reads it, one line per event."""
        self.problems: list[str] = []
        """Bots that failed and what was done instead."""
        self._seen = 0
        self._read_new_events()

    @classmethod
    def start(cls, config: PlayConfig) -> Session:
        """A new match.

        Raises:
            UnoError: the game cannot start under these rules.
            BotSpecError: an unknown bot.
        """
        game = Game(config.rules, config.seed)
        return cls.for_game(game, config.levels, config.name)

    @classmethod
    def for_game(cls, game: Game, levels: Sequence[str], name: str = "You",
                 bot_seed: int | None = None) -> Session:
        """A session around a game already set up (``Game.from_setup`` positions)."""
        if len(levels) != game.n - 1:
            raise ValueError(f"{len(levels)} bot levels for {game.n - 1} opponents")
        seed = game.seed if bot_seed is None else bot_seed
        bots: list[Bot | None] = [None]
        bots += [make_bot(level, seed * 16 + seat, rules=game.rules)
                 for seat, level in enumerate(levels, 1)]
        names = [name, *NAMES[1:game.n]]
        return cls(game, names, ["you", *levels], bots)

    # ------------------------------------------------------------------ state
    @property
    def spoke(self) -> set[int]:
        """Seats that called UNO or caught out of turn since the lead last acted."""
        return self.driver.held

    @property
    def version(self) -> int:
        """How many actions have been applied (changes with every action)."""
        return len(self.game.history)

    @property
    def seed(self) -> int:
        """The game seed."""
        return self.game.seed

    def observation(self) -> Observation:
        """What the human sees."""
        return self.game.observation(HUMAN)

    def legal(self) -> list[int]:
        """The human's legal actions now."""
        return self.game.legal_actions(HUMAN)

    def offer(self) -> Offer:
        """:func:`make_offer` of the human's legal actions."""
        return make_offer(self.legal())

    def phase(self) -> Phase:
        """The game phase."""
        return self.game.phase

    # ------------------------------------------------------------------ actions
    def apply(self, action: int) -> list[Event]:
        """Apply an action of any seat.

        Raises:
            IllegalActionError: the action is not legal now (nothing changes).
        """
        events = self.driver.apply(action)
        self._read_new_events()
        return events

    def next_move(self) -> Move | None:
        """The next bot action, asking the bots once for this state: the out-of-turn
        bots first, then the lead if the lead is a bot. ``None``: the human's decision
        is awaited (or the round or match is over)."""
        if self.game.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER):
            return None
        asked = self.driver.ask(self._ask)
        if asked is None:
            return None
        seat, action = asked
        return Move(seat, action, seat != self.driver.lead(), self.version)

    def _ask(self, seat: int, legal: list[int], must: bool) -> int | None:
        bot = self.bots[seat]
        if bot is None or not legal:
            return None
        try:
            action = bot.choose(self.game.observation(seat), list(legal))
        except Exception as exc:  # a broken bot must not end the human's match
            action = None
            self.problems.append(f"{self.names[seat]}'s bot failed: {exc}")
        if action is not None and action not in legal:
            self.problems.append(f"{self.names[seat]}'s bot chose an illegal action "
                                 f"{action!r}; it plays the first legal action instead")
            action = legal[0] if must else None
        if action is None and must:
            action = legal[0]
        return action

    def wait_for(self, move: Move, delay: float) -> float:
        """Seconds to wait before a bot's move: ``delay``, or for an out-of-turn move
        the bot's ``reaction_delay`` if it has one. A ``delay`` of 0 means no waits."""
        if delay <= 0:
            return 0.0
        if move.out_of_turn:
            reaction = getattr(self.bots[move.seat], "reaction_delay", None)
            if isinstance(reaction, int | float) and not isinstance(reaction, bool):
                return max(0.0, float(reaction))
        return delay

    # ------------------------------------------------------------------ log
    def _read_new_events(self) -> None:
        log = self.game.log
        lang = current_language()
        second_person = self.names[HUMAN] == DEFAULT_NAME and lang == "en"  # English grammar
        language = translations(lang)
        names = self.shown_names()
        for event in log[self._seen:]:
            line = describe_event(redact(event, HUMAN), HUMAN, names, markup=True,
                                  language=language)
            if second_person:
                line = as_you(line)
            self.lines.append(decorate(line))
        self._seen = len(log)

    def reword(self) -> None:
        """Write the whole log again in the current language (after a switch)."""
        self.lines.clear()
        self._seen = 0
        self._read_new_events()

    # ------------------------------------------------------------------ naming
    def name(self, seat: int | None) -> str:
        """A seat's name."""
        if seat is None or not 0 <= seat < len(self.names):
            return _("nobody")
        return shown_name(self.names[seat]) if seat == HUMAN else self.names[seat]

    def shown_names(self) -> list[str]:
        """Every seat's name as the table shows it (:func:`shown_name`)."""
        return [self.name(seat) for seat in range(len(self.names))]


__all__ = [
    "DEFAULT_DELAY",
    "DEFAULT_NAME",
    "HUMAN",
    "MAX_SEED",
    "NAMES",
    "Move",
    "Offer",
    "PlayConfig",
    "Session",
    "as_you",
    "bot_levels",
    "config_from_options",
    "default_level",
    "make_offer",
    "multi_plays",
    "parse_levels",
    "random_seed",
    "shown_name",
    "single_plays",
    "with_uno",
]
