"""Anti-farming: which seats of a finished match are rated, and why not.

A rated match moves ratings; an abuser wants rating without the play behind it. The
checks below run on what the stored record says of a match (its rules, seed, actions
and their origins, the seatings) and on the players' recent matches, so that the
same verdict comes out of a re-rate from history. Each check voids the rating change of
some seats and names itself as the reason:

``thrown``
    A seat drew instead of playing on at least half of its turns with a playable card,
    and on at least :data:`THROWN_MIN_DRAWS` of them (with at least
    :data:`THROWN_MIN_TURNS` such turns): the way to lose on purpose, for a win-trading
    partner or a fresh account dumping its rating. The whole match is unrated: its order
    says nothing of anyone's skill.
``thrown_pattern``
    The players a seat placed above, in this match and in its matches of the last
    :data:`PAIR_DAYS` days (rated or not), drew instead of playing on at least
    :data:`PATTERN_SHARE` of their turns with a playable card, summed (at least
    :data:`PATTERN_MIN_TURNS` turns): partners who throw a little in every match, or
    many fresh accounts that each throw once. The seat and those placed below it here
    are unrated.
``sitting``
    At least :data:`SITTING_SHARE` of a human seat's actions were played for it (turn
    timeouts and the away autopilot): that seat is unrated, the others are rated.
``repeat_deal``
    The player has had the same deal (rules and seed) in an earlier match: a known
    deal can be farmed against a bot that answers the same way each time. That seat is
    unrated.
``fresh_account``
    A new account (under :data:`FRESH_DAYS` days old and fewer than
    :data:`FRESH_MATCHES` rated matches) placed below a player who shares its network
    address group: the pair is unrated.
``lopsided_pair``
    Two players who met in at least :data:`PAIR_MATCHES` matches of the last
    :data:`PAIR_DAYS` days, one placed above the other in at least
    :data:`PAIR_SHARE` of them: the pair is unrated (subtle win trading).

Leaving to dodge a loss needs no check: a leaver is ranked last.

The server applies the checks at every rated match's end
(:func:`unokit.store.ratings.write_ratings`) through :func:`judge_match` and
:func:`rated_entrants`, on the play marks its rooms make (:func:`play_mark`); the
re-rate and ``benchmarks/anti_farming.py`` go through the same functions.

>>> from unokit.store.farming import MatchView, SeatView, SeatPlay, judge, MemoryHistory
>>> honest = SeatPlay(turns=20, playable_turns=14, voluntary_draws=0, actions=22)
>>> thrower = SeatPlay(turns=20, playable_turns=14, voluntary_draws=12, actions=22)
>>> match = MatchView(1, 0.0, "official,players=2|7",
...                   (SeatView(10, 1, honest), SeatView(11, 2, thrower)))
>>> verdict = judge(match, MemoryHistory())
>>> verdict.rated, verdict.reasons
(frozenset(), {0: ('thrown',), 1: ('thrown',)})
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from unokit.engine.actions import DRAW, PLAY, action_player, action_type
from unokit.engine.driver import Driver
from unokit.engine.game import Game
from unokit.engine.phases import PLAY as PLAY_PHASE
from unokit.engine.rules import Rules
from unokit.store.rating_model import Entrant, bot_rating

THROWN_SHARE = 0.5
"""The share of a seat's turns with a playable card on which it drew, from which the
match counts as thrown."""
THROWN_MIN_DRAWS = 3
"""The fewest such draws of a thrown match."""
THROWN_MIN_TURNS = 4
"""The fewest turns with a playable card before ``thrown`` is judged."""
PATTERN_SHARE = 0.25
"""The share of ``thrown_pattern`` (see the module)."""
PATTERN_MIN_TURNS = 15
"""The fewest turns with a playable card, summed, before ``thrown_pattern`` is judged."""
SITTING_SHARE = 0.5
"""The share of a seat's actions played for it from which the seat counts as sitting."""
SITTING_MIN_ACTIONS = 4
"""The fewest actions before ``sitting`` is judged."""
FRESH_DAYS = 7.0
"""An account younger than this (days) is fresh."""
FRESH_MATCHES = 10
"""An account with fewer rated matches than this is fresh."""
PAIR_DAYS = 7.0
"""The window of ``lopsided_pair`` (days)."""
PAIR_MATCHES = 6
"""The rated matches of one pair in the window from which ``lopsided_pair`` is judged."""
PAIR_SHARE = 0.85
"""The share of one side's wins over the other from which the pair is lopsided."""
DAY = 86_400.0
"""Seconds in a day."""
RECENT_LIMIT = 200
"""The most recent matches of one player the checks read (a bound on the work of one
match end)."""
PLAYED_FOR = frozenset({"timeout", "away"})
"""The origins of actions played for a human seat (not by the person)."""


@dataclass(frozen=True)
class SeatPlay:
    """How one seat played a match, from its record (:func:`play_stats`)."""

    turns: int = 0
    """Turns on which the seat had to act in the play phase."""
    playable_turns: int = 0
    """Of those, the turns on which it could play a card."""
    voluntary_draws: int = 0
    """Of those, the turns on which it drew instead."""
    actions: int = 0
    """Actions of the seat."""
    played_for: int = 0
    """Actions played for the seat (a turn timeout or the away autopilot)."""


@dataclass(frozen=True)
class SeatView:
    """One human seat of a finished match, as the checks see it."""

    player: int
    """The player's id."""
    place: int
    """1 for the winners, then 2, 3, ... (ties share a place; a leaver is last)."""
    play: SeatPlay = SeatPlay()
    address: str = ""
    """The player's network address group (empty: unknown, never shared)."""
    account_days: float = 365.0
    """How old the player's account is, in days."""
    rated_matches: int = 100
    """How many rated matches the player had before this one."""
    seat: int = -1
    """The seat number (-1: the index in :attr:`MatchView.seats`)."""


@dataclass(frozen=True)
class MatchView:
    """A finished match: its id, its end (seconds), its deal and its human seats."""

    match_id: int
    ended_at: float
    deal: str
    """The deal's key: the canonical rules and the seed (:func:`deal_key`)."""
    seats: tuple[SeatView, ...]


@dataclass(frozen=True)
class PastMatch:
    """A finished match of a player's recent history (rated or not), as the checks need
    it."""

    match_id: int
    ended_at: float
    deal: str
    places: dict[int, int]
    """Player id -> place, for its human players."""
    draws: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Player id -> (voluntary draws, turns with a playable card) in that match."""


class History(Protocol):
    """The recent matches of players (a query of the database, or memory)."""

    def recent(self, player: int, since: float) -> Sequence[PastMatch]:
        """The player's finished matches that ended at ``since`` or later, the last
        :data:`RECENT_LIMIT` of them, in the order they were judged."""
        ...  # pragma: no cover - protocol

    def had_deal(self, player: int, deal: str) -> bool:
        """Whether the player had this deal in an earlier match, rated or not."""
        ...  # pragma: no cover - protocol


@dataclass
class MemoryHistory:
    """:class:`History` in memory: for the simulation and the tests.

    >>> h = MemoryHistory()
    >>> h.add(PastMatch(1, 10.0, "d", {1: 1, 2: 2}))
    >>> [m.match_id for m in h.recent(1, 0.0)], h.had_deal(2, "d"), h.had_deal(3, "d")
    ([1], True, False)
    """

    by_player: dict[int, list[PastMatch]] = field(default_factory=lambda: defaultdict(list))
    deals: set[tuple[int, str]] = field(default_factory=set)

    def add(self, match: PastMatch) -> None:
        """Record a finished match of the players of its ``places``."""
        for player in match.places:
            self.by_player[player].append(match)
            self.deals.add((player, match.deal))

    def saw(self, player: int, deal: str) -> None:
        """Record that the player had this deal (in a match of no record here)."""
        self.deals.add((player, deal))

    def recent(self, player: int, since: float) -> Sequence[PastMatch]:
        found = [m for m in self.by_player.get(player, ()) if m.ended_at >= since]
        return found[-RECENT_LIMIT:]

    def had_deal(self, player: int, deal: str) -> bool:
        return (player, deal) in self.deals


@dataclass(frozen=True)
class Verdict:
    """Which seats (indices into :attr:`MatchView.seats`) are rated, and the reasons of
    the others."""

    rated: frozenset[int]
    reasons: dict[int, tuple[str, ...]]

    @property
    def flagged(self) -> bool:
        """Whether any check voided anything."""
        return bool(self.reasons)


def deal_key(rules: Rules | str, seed: int) -> str:
    """The key of a deal: the canonical rules and the seed.

    >>> deal_key("official,players=2", 7)
    'official,players=2|7'
    """
    text = rules.to_string() if isinstance(rules, Rules) else Rules.load(rules).to_string()
    return f"{text}|{seed}"


TURN, PLAYABLE, VOLUNTARY, PLAYED_FOR_BIT = 1, 2, 4, 8
"""The flags of an action's play mark (:func:`play_mark`)."""
MARK_SEAT = 16
"""A play mark is ``seat * MARK_SEAT + flags`` (seat -1: an action of no seat)."""


def play_mark(game: Game, action: int, origin: str) -> int:
    """What one action says of how its seat plays, read from the game *before* the
    action is applied: ``seat * MARK_SEAT`` plus the flags :data:`TURN` (the seat had
    to act on its turn of the play phase, and played or drew), :data:`PLAYABLE` (it
    could play a card then), :data:`VOLUNTARY` (it drew instead) and
    :data:`PLAYED_FOR_BIT` (the action was played for it: ``origin`` in
    :data:`PLAYED_FOR`). A room marks each action as it applies it; :func:`play_marks`
    replays a record to the same marks. O(1): one look at the seat's legal actions.

    >>> game = Game("official,players=2,dealer=seat0", seed=3)
    >>> from unokit.engine.actions import parse_action
    >>> mark = play_mark(game, parse_action(f"{game.current_player}:draw"), "timeout")
    >>> mark // MARK_SEAT == game.current_player, bool(mark & TURN), bool(mark & PLAYED_FOR_BIT)
    (True, True, True)
    """
    seat = action_player(action)
    if not 0 <= seat < game.n:
        return -MARK_SEAT
    flags = PLAYED_FOR_BIT if origin in PLAYED_FOR else 0
    if game.phase is PLAY_PHASE and game.current_player == seat and game.pending == 0:
        if any(action_type(a) == PLAY for a in game.legal_actions(seat)):
            flags |= TURN | PLAYABLE
            if action_type(action) == DRAW:
                flags |= VOLUNTARY
        elif action_type(action) == DRAW:
            flags |= TURN
    return seat * MARK_SEAT + flags


def play_marks(rules: Rules | str, seed: int,
               actions: Iterable[tuple[int, str]]) -> list[int]:
    """The play marks (:func:`play_mark`) of a match's actions, replayed from its rules,
    seed and actions (each with its origin: ``player``, ``bot``, ``timeout`` or
    ``away``): what a room marked as it played them. CPU work: a whole replay."""
    game = Game(rules, seed=seed)
    driver = Driver(game)
    marks = []
    for action, origin in actions:
        marks.append(play_mark(game, action, origin))
        driver.apply(action)
    return marks


def seat_play(marks: Iterable[int]) -> SeatPlay:
    """The :class:`SeatPlay` of some play marks (one seat's, of the actions wanted).

    >>> seat_play([1 * MARK_SEAT + TURN + PLAYABLE + VOLUNTARY, 1 * MARK_SEAT + TURN,
    ...            1 * MARK_SEAT + PLAYED_FOR_BIT])
    SeatPlay(turns=2, playable_turns=1, voluntary_draws=1, actions=3, played_for=1)
    """
    turns = playable = voluntary = count = played_for = 0
    for mark in marks:
        flags = mark % MARK_SEAT
        count += 1
        turns += bool(flags & TURN)
        playable += bool(flags & PLAYABLE)
        voluntary += bool(flags & VOLUNTARY)
        played_for += bool(flags & PLAYED_FOR_BIT)
    return SeatPlay(turns, playable, voluntary, count, played_for)


def play_stats(rules: Rules | str, seed: int,
               actions: Iterable[tuple[int, str]]) -> list[SeatPlay]:
    """Each seat's :class:`SeatPlay` of a match, replayed from its rules, seed and actions
    (each with its origin: ``player``, ``bot``, ``timeout`` or ``away``).

    >>> from unokit.engine.actions import parse_action
    >>> game = Game("official,players=2,dealer=seat0", seed=3)
    >>> first = game.current_player
    >>> stats = play_stats("official,players=2,dealer=seat0", 3,
    ...                    [(parse_action(f"{first}:draw"), "player")])
    >>> stats[first].turns, stats[first].actions
    (1, 1)
    """
    marks = play_marks(rules, seed, actions)
    n = Rules.load(rules).players if isinstance(rules, str) else rules.players
    return [seat_play(m for m in marks if m >= 0 and m // MARK_SEAT == s) for s in range(n)]


def _thrown(play: SeatPlay) -> bool:
    return (play.playable_turns >= THROWN_MIN_TURNS
            and play.voluntary_draws >= max(THROWN_SHARE * play.playable_turns,
                                            THROWN_MIN_DRAWS))


def _sitting(play: SeatPlay) -> bool:
    return play.actions >= SITTING_MIN_ACTIONS and play.played_for >= SITTING_SHARE * play.actions


def _fresh(seat: SeatView) -> bool:
    return seat.account_days < FRESH_DAYS and seat.rated_matches < FRESH_MATCHES


def _lopsided(history: History, a: int, b: int, since: float) -> bool:
    above = below = 0
    for past in history.recent(a, since):
        if b in past.places and a in past.places:
            if past.places[a] < past.places[b]:
                above += 1
            elif past.places[a] > past.places[b]:
                below += 1
    met = above + below
    return met >= PAIR_MATCHES and max(above, below) >= PAIR_SHARE * met


def _fed(history: History, high: SeatView, below: Sequence[SeatView], since: float) -> bool:
    """Whether the players ``high`` placed above threw a little (see the module)."""
    drawn = sum(seat.play.voluntary_draws for seat in below)
    playable = sum(seat.play.playable_turns for seat in below)
    for past in history.recent(high.player, since):
        place = past.places.get(high.player)
        if place is None:
            continue
        for other, (more_drawn, more_playable) in past.draws.items():
            if other != high.player and past.places.get(other, 0) > place:
                drawn, playable = drawn + more_drawn, playable + more_playable
    return playable >= PATTERN_MIN_TURNS and drawn >= PATTERN_SHARE * playable


def judge(match: MatchView, history: History) -> Verdict:
    """The verdict of the checks (see the module) on a finished match."""
    seats = match.seats
    reasons: dict[int, list[str]] = defaultdict(list)

    def void(index: int, reason: str) -> None:
        if reason not in reasons[index]:
            reasons[index].append(reason)

    if any(_thrown(seat.play) for seat in seats):
        for index in range(len(seats)):
            void(index, "thrown")
    for index, seat in enumerate(seats):
        if _sitting(seat.play):
            void(index, "sitting")
        if history.had_deal(seat.player, match.deal):
            void(index, "repeat_deal")
    since = match.ended_at - PAIR_DAYS * DAY
    for i, high in enumerate(seats):
        below = [j for j, seat in enumerate(seats) if seat.place > high.place]
        if below and _fed(history, high, [seats[j] for j in below], since):
            for index in (i, *below):
                void(index, "thrown_pattern")
    for i, upper in enumerate(seats):
        for j, lower in enumerate(seats):
            if j <= i or upper.player == lower.player:
                continue
            low, high = (lower, upper) if upper.place < lower.place else (upper, lower)
            if (high.place < low.place and _fresh(low) and low.address
                    and low.address == high.address):
                void(i, "fresh_account")
                void(j, "fresh_account")
            if _lopsided(history, upper.player, lower.player, since):
                void(i, "lopsided_pair")
                void(j, "lopsided_pair")
    rated = frozenset(i for i in range(len(seats)) if not reasons.get(i))
    return Verdict(rated, {i: tuple(r) for i, r in reasons.items() if r})


# ---------------------------------------------------------------- whole matches
@dataclass(frozen=True)
class Participant:
    """One entrant of a finished match as the server stores it (``match_play_seats``):
    every seat's holder at the end (a person, a seat taken without a session, a bot)
    and every leaver, in that order (:attr:`slot`)."""

    seat: int
    player: int | None
    """The player; ``None`` for a bot or a seat taken without a session."""
    bot: str
    """A bot's spec ('' for a person)."""
    team: int
    """Partners share it; a leaver is a team of their own."""
    rank: int
    """The team's place: 0 first, equal places tied, a leaver last."""
    play: SeatPlay = SeatPlay()
    address: str = ""
    account_days: float = 365.0
    rated_matches: int = 0
    left: bool = False


def match_view(match_id: int, ended_at: float, deal: str,
               participants: Sequence[Participant]) -> tuple[MatchView, list[int]]:
    """The :class:`MatchView` of a match's participants (the persons with a player) and,
    for each of its seats, the index of its participant."""
    index = [i for i, p in enumerate(participants) if p.player is not None and not p.bot]
    seats = tuple(SeatView(p.player, p.rank + 1, p.play, p.address, p.account_days,
                           p.rated_matches, p.seat)
                  for p in (participants[i] for i in index) if p.player is not None)
    return MatchView(match_id, ended_at, deal, seats), index


def judge_match(match_id: int, ended_at: float, deal: str,
                participants: Sequence[Participant],
                history: History) -> dict[int, tuple[str, ...]]:
    """The checks' reasons of a rated match, by participant index (none: rated as it
    ended). What the server stores at a match end, what the re-rate finds again and
    what ``benchmarks/anti_farming.py`` measures.

    >>> thrower = SeatPlay(turns=20, playable_turns=14, voluntary_draws=12, actions=22)
    >>> judge_match(1, 0.0, "d", [Participant(0, 10, "", 0, 0),
    ...                           Participant(1, 11, "", 1, 1, thrower),
    ...                           Participant(2, None, "hard", 2, 2)], MemoryHistory())
    {0: ('thrown',), 1: ('thrown',)}
    """
    view, index = match_view(match_id, ended_at, deal, participants)
    verdict = judge(view, history)
    return {index[i]: reasons for i, reasons in sorted(verdict.reasons.items())}


def past_match(match_id: int, ended_at: float, deal: str,
               participants: Sequence[Participant]) -> PastMatch:
    """A finished match as the checks of later matches read it (rated or not)."""
    people = [p for p in participants if p.player is not None and not p.bot]
    return PastMatch(match_id, ended_at, deal,
                     {p.player: p.rank + 1 for p in people if p.player is not None},
                     {p.player: (p.play.voluntary_draws, p.play.playable_turns)
                      for p in people if p.player is not None})


def rated_entrants(participants: Sequence[Participant],
                   reasons: Mapping[int, Sequence[str]],
                   held: Callable[[int], tuple[float, float]]
                   ) -> list[tuple[int, Entrant]]:
    """The entrants a rated match is rated over once the checks voided some: every
    participant whose rating the checks left alone, at the rating ``held`` gives a
    player (a bot at its fixed rating). A voided seat is as if it had not entered:
    its rating does not move, and the others are rated over the order among
    themselves. Each with its participant's index; empty when that leaves no person or
    fewer than two teams: nothing is rated.

    >>> ps = [Participant(0, 1, "", 0, 0), Participant(1, 2, "", 1, 1),
    ...       Participant(2, None, "hard", 2, 2)]
    >>> [e.player_id for _, e in rated_entrants(ps, {}, lambda p: (25.0, 8.0))]
    [1, 2, None]
    >>> [i for i, _ in rated_entrants(ps, {1: ("sitting",)}, lambda p: (25.0, 8.0))]
    [0, 2]
    >>> rated_entrants(ps, {0: ("x",), 1: ("x",)}, lambda p: (25.0, 8.0))
    []
    """
    out: list[tuple[int, Entrant]] = []
    for index, part in enumerate(participants):
        if reasons.get(index):
            continue
        if part.bot:
            mu, sigma = bot_rating(part.bot)
            out.append((index, Entrant(None, part.bot, part.team, part.rank, mu, sigma)))
        elif part.player is not None:
            out.append((index, Entrant(part.player, "", part.team, part.rank,
                                       *held(part.player))))
    if (not any(e.player_id is not None for _, e in out)
            or len({e.team for _, e in out}) < 2):
        return []
    return out
