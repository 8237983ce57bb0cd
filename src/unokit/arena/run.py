"""The arena: bots play many seeded games against each other, and the statistics of how
they did.

``run_arena(["playfirst", "random"], "official", games=1000, seed=1)`` plays 1000 games
of two seats and returns an :class:`ArenaResult`.

- **Seats.** The number of bot specs is the number of seats. Game ``i`` rotates the list
  by ``i``: entry ``e`` sits at seat ``(e + i) mod n`` (:func:`seating`), so over ``n``
  consecutive games every entry sits in every seat once.
- **Games.** A game is one round (the rule set with ``rounds = 1``), or a whole match with
  ``match=True``. Game ``i`` is ``Game(rules, seed + i)``; the bot at seat ``s`` is created
  afresh for each game with the seed :func:`bot_seed` ``(seed, i, s)``. A game's outcome
  therefore depends on nothing but its index, and the games are merged in game order, so
  every count, interval and rating is the same for any number of ``jobs`` (only the
  decision times differ from run to run).
- **Winner.** The match winner as the engine decides it (with ``rounds = 1``, the winner of
  the round); with teams, both partners win. A blocked round (nobody can play or draw) is
  won by the lowest hand, as the rules say; such rounds are counted and reported. A game
  still running after ``max_actions`` actions, or one in which a bot failed (returned no
  action on its turn, an illegal action, or raised), has no winner: it counts in no win
  rate and no rating, and is reported.
- **Points.** A seat's points in a game are its match total at the end as the engine keeps
  it: under ``standard`` scoring with one round, the winner's round points (the cards left
  in the other hands) and 0 for the others; under ``penalty`` scoring each seat's own
  penalty (lower is better, see :attr:`ArenaResult.points_better`).
- **Entries and bots.** Specs may repeat (``hard,random,random,random``). Every position
  in the list is an *entry* with its own per-seat detail and rating; identical specs are
  aggregated into one *bot*: games and wins add up over its entries (so a bot with three
  entries plays three seat-games per game).
- **Statistics.** Win rates carry a Wilson score interval (95 %), mean points a normal
  95 % interval (:func:`mean_interval`). Every ``choose`` call of a bot is timed with
  :func:`time.perf_counter`; the *decisions* are the calls on which the bot had to act
  (:func:`~unokit.bots.base.must_act`), and their median and 90th percentile come from a
  histogram with 1 % wide bins (the maximum is exact). Ratings are openskill
  Plackett-Luce ratings, updated game by game in game order, each entry a player of its
  own: winners first, everyone else tied behind; a bot's rating is the mean over its
  entries.
- **Parts.** ``first_game=K`` plays games ``K .. K + games - 1`` of the run, exactly as a
  whole run plays them. The JSON file of a run keeps every game's outcome and each entry's
  timing histogram; :func:`merge_results` (``unokit arena-merge``) puts parts of one run
  back together, and parts covering games ``0 .. N - 1`` give the result of one run of
  ``N`` games (only the times differ). The statistics, the JSON file and the plot are in
  :mod:`unokit.arena.results`; every name of both can be imported from :mod:`unokit.arena`.

>>> result = run_arena(["playfirst", "random"], "official", games=4, seed=3)
>>> result.games, len(result.outcomes), result.players
(4, 4, 2)
>>> [o.entries for o in result.outcomes][:3]
[(0, 1), (1, 0), (0, 1)]
>>> from unokit.arena import wilson_interval
>>> wilson_interval(50, 100)
(0.403831..., 0.596168...)

Two parts of one run merge into the whole run:

>>> first = run_arena(["playfirst", "random"], "official", games=2, seed=3)
>>> second = run_arena(["playfirst", "random"], "official", games=2, seed=3, first_game=2)
>>> merged = merge_results([second, first])
>>> merged.outcomes == result.outcomes, merged.parts, merged.game_ranges()
(True, 2, [(0, 3)])
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import multiprocessing
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unokit.arena.results import (
    ArenaError,
    ArenaResult,
    GameOutcome,
    TimeStats,
    format_ranges,
    game_ranges,
    read_result,
)
from unokit.bots.base import Bot, must_act, play
from unokit.engine.errors import RulesError
from unokit.engine.events import EventKind
from unokit.engine.game import Game
from unokit.engine.observation import Observation
from unokit.engine.rng import MASK64, SplitMix64
from unokit.engine.rules import Rules
from unokit.engine.scoring import teammates

MAX_ACTIONS_ROUND = 50_000
"""Default limit of actions in a one-round game; a game still running then has no winner."""

MAX_ACTIONS_MATCH = 1_000_000
"""Default limit of actions in a whole match (``match=True``)."""

GAME_LIMIT = 2**64
"""Game numbers stay below this (game ``2**64`` would have the seed of game 0)."""


# ----------------------------------------------------------------------- seeds
def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index``: ``seed + index`` (modulo 2**64)."""
    return (seed + index) % 2**64


def bot_seed(seed: int, index: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in game ``index`` (a 63-bit number drawn from a
    SplitMix64 seeded with the game seed and the seat).

    >>> bot_seed(1, 0, 0) == bot_seed(1, 0, 0) != bot_seed(1, 0, 1)
    True
    """
    mixed = game_seed(seed, index) ^ (((seat + 1) * 0xD1B54A32D192ED03) & MASK64)
    return SplitMix64(mixed).next_u64() >> 1


def seating(entries: int, index: int) -> tuple[int, ...]:
    """The entry at each seat in game ``index``: the list rotated by ``index``, entry ``e``
    at seat ``(e + index) mod n``.

    >>> seating(4, 0), seating(4, 1)
    ((0, 1, 2, 3), (3, 0, 1, 2))
    """
    shift = index % entries
    return tuple((seat - shift) % entries for seat in range(entries))


# ------------------------------------------------------------------------ bots
def _split_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``(name, options)`` through the registry's ``parse_bot_spec`` where it has one."""
    from unokit import bots as registry

    parse = getattr(registry, "parse_bot_spec", None)
    if parse is None:
        return spec.strip(), {}
    parsed = parse(spec)
    if isinstance(parsed, tuple) and len(parsed) == 2 and isinstance(parsed[0], str):
        return parsed[0], dict(parsed[1] or {})
    name = getattr(parsed, "name", None)
    if isinstance(name, str):
        return name, dict(getattr(parsed, "options", None) or {})
    return spec.strip(), {}


@functools.lru_cache(maxsize=8)
def _takes_rules(factory: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "rules" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def create_bot(spec: str, seed: int = 0, rules: Rules | None = None) -> Bot:
    """A bot from the registry (:func:`unokit.bots.make_bot`) by spec, with ``rules=``
    where the registry takes it.

    Raises:
        ArenaError: the registry knows no such bot, or refuses its options.
    """
    from unokit import bots as registry

    make: Callable[..., Bot] = registry.make_bot
    try:
        name, options = _split_spec(spec)
        if rules is not None and _takes_rules(make):
            options["rules"] = rules
        return make(name, seed, **options)
    except (ValueError, TypeError, KeyError) as exc:
        message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        raise ArenaError(f"bot {spec.strip()!r}: {message}") from None


class _TimedBot:
    """A bot whose ``choose`` calls are timed into a :class:`TimeStats`."""

    def __init__(self, bot: Bot, stats: TimeStats) -> None:
        self.bot = bot
        self.name = bot.name
        self.stats = stats

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        start = time.perf_counter()
        action = self.bot.choose(observation, legal_actions)
        spent = time.perf_counter() - start
        self.stats.add(spent, must_act(observation))
        return action


# ----------------------------------------------------------------------- rules
_PLAYERS_ITEM = re.compile(r"(?:^|,)\s*players\s*=")


def _sets_players(source: str | Mapping[str, Any] | Rules) -> bool:
    if isinstance(source, Rules):
        return True
    if isinstance(source, Mapping):
        return "players" in source
    text = source.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return False
        return isinstance(data, dict) and "players" in data
    return bool(_PLAYERS_ITEM.search(text))


def arena_rules(source: str | Mapping[str, Any] | Rules, bots: int, match: bool = False
                ) -> Rules:
    """The rule set the arena plays: ``source`` with ``players`` set to the number of bots
    (an error where ``source`` sets ``players`` to another number; a :class:`Rules` always
    sets it) and, unless ``match``, ``rounds = 1``.

    >>> arena_rules("official", 3).to_string()
    'official,players=3,rounds=1'

    Raises:
        ArenaError: fewer than two bots, a mismatch of players, or an invalid rule set.
    """
    if bots < 2:
        raise ArenaError(f"give at least 2 bots (one per seat), not {bots}")
    try:
        rules = Rules.load(source)
    except RulesError as exc:
        raise ArenaError(str(exc)) from None
    if rules.players != bots and _sets_players(source):
        raise ArenaError(f"{bots} bots for {rules.players} players: the rule set sets "
                         f"players={rules.players}; give one bot per seat")
    changes: dict[str, Any] = {}
    if rules.players != bots:
        changes["players"] = bots
    if not match and rules.rounds != 1:
        changes["rounds"] = 1
    if changes:
        try:
            rules = rules.with_(**changes)
        except RulesError as exc:
            raise ArenaError(f"{bots} bots: {exc}") from None
    return rules


# ----------------------------------------------------------------------- games
def play_game(specs: Sequence[str], rules: Rules, seed: int, index: int, *,
              max_actions: int = MAX_ACTIONS_ROUND,
              timers: Sequence[TimeStats] | None = None) -> GameOutcome:
    """Play game ``index`` of an arena started with ``seed`` (``rules`` as
    :func:`arena_rules` gives them), timing each entry's calls into ``timers``."""
    n = len(specs)
    entries = seating(n, index)
    this_seed = game_seed(seed, index)
    timers = timers if timers is not None else [TimeStats() for _ in range(n)]
    game: Game | None = None
    first, direction, actions, blocked = -1, 1, 0, 0
    status, message = "ok", ""
    try:
        bots = [_TimedBot(create_bot(specs[entries[seat]], bot_seed(seed, index, seat), rules),
                          timers[entries[seat]]) for seat in range(n)]
        game = Game(rules, this_seed)
        first = -1 if game.current_player is None else game.current_player
        direction = game.direction
        for step in play(game, bots, max_actions=max_actions + 1):
            blocked += sum(1 for e in step.events
                           if e.kind is EventKind.ROUND_ENDED and e.data.get("blocked"))
            if step.action is None:
                continue
            actions += 1
            if actions >= max_actions and not game.is_over():
                status, message = "unfinished", f"still running after {max_actions} actions"
                break
    except Exception as exc:  # a failing bot or engine is reported, not fatal
        status = "error"
        message = f"{type(exc).__name__}: {exc}"
        if game is not None and actions:
            message += f" (after {actions} actions)"
    winners: tuple[int, ...] = ()
    points: tuple[int, ...] = (0,) * n
    rounds = 0
    if game is not None:
        rounds = game.round_no
        points = tuple(game.scores)
        if status == "ok" and game.is_over() and game.match_winner >= 0:
            winners = tuple(sorted(teammates(rules, game.match_winner)))
    return GameOutcome(index, this_seed, entries, winners, points, first, direction, rounds,
                       blocked, actions, status, message)


@dataclass(frozen=True)
class _Chunk:
    specs: tuple[str, ...]
    rules: Rules
    seed: int
    start: int
    stop: int
    max_actions: int


def _run_chunk(chunk: _Chunk) -> tuple[int, list[GameOutcome], list[TimeStats]]:
    timers = [TimeStats() for _ in chunk.specs]
    outcomes = [play_game(chunk.specs, chunk.rules, chunk.seed, index,
                          max_actions=chunk.max_actions, timers=timers)
                for index in range(chunk.start, chunk.stop)]
    return chunk.start, outcomes, timers


def _chunks(games: int, jobs: int) -> list[tuple[int, int]]:
    size = max(1, min(200, math.ceil(games / (jobs * 16))))
    return [(start, min(start + size, games)) for start in range(0, games, size)]


def check_arena(bot_specs: Sequence[str], rules: str | Mapping[str, Any] | Rules,
                match: bool = False) -> Rules:
    """The rule set :func:`run_arena` would play, after making each distinct bot once.

    Raises:
        ArenaError: an empty or unknown bot spec, or rules that do not fit (see
            :func:`arena_rules`).
    """
    specs = [s.strip() for s in bot_specs]
    if any(not s for s in specs):
        raise ArenaError("a bot spec is empty")
    played = arena_rules(rules, len(specs), match)
    for spec in dict.fromkeys(specs):
        create_bot(spec, 0, played)
    return played


def run_arena(bot_specs: Sequence[str], rules: str | Mapping[str, Any] | Rules, games: int,
              seed: int = 0, jobs: int = 1, match: bool = False,
              progress: Callable[[int], None] | None = None, *,
              max_actions: int | None = None, first_game: int = 0) -> ArenaResult:
    """Play ``games`` games between ``bot_specs`` (one per seat; see the module docstring)
    under ``rules`` (a rule set, or what :meth:`Rules.load` reads, ``players`` set by the
    number of bots as :func:`arena_rules` says). ``jobs`` > 1 plays chunks of games in
    that many processes (started fresh, so the bots must be in the registry as the package
    defines it). ``progress`` hears how many more games have finished. ``first_game``
    starts at that game of the run: games ``first_game .. first_game + games - 1`` are
    played as a whole run plays them (see :func:`merge_results`).

    Raises:
        ArenaError: bad input (see :func:`arena_rules` and :func:`create_bot`), or game
            numbers outside ``0 .. 2**64 - 1``.
    """
    specs = tuple(s.strip() for s in bot_specs)
    if games < 1:
        raise ArenaError(f"play at least 1 game, not {games}")
    if not 0 <= seed < 2**64:
        raise ArenaError(f"the seed must be in 0..2**64-1, not {seed}")
    if first_game < 0:
        raise ArenaError(f"the first game must be 0 or more, not {first_game}")
    if first_game + games > GAME_LIMIT:
        raise ArenaError(f"games {first_game}..{first_game + games - 1}: game numbers stop at "
                         f"2**64-1 (game 2**64 would repeat the seed of game 0)")
    played = check_arena(specs, rules, match)
    limit = max_actions or (MAX_ACTIONS_MATCH if match else MAX_ACTIONS_ROUND)
    jobs = max(1, min(jobs, games))
    timers = [TimeStats() for _ in specs]
    by_start: dict[int, list[GameOutcome]] = {}
    start_time = time.perf_counter()
    if jobs == 1:
        for index in range(first_game, first_game + games):
            outcome = play_game(specs, played, seed, index, max_actions=limit, timers=timers)
            by_start[index] = [outcome]
            if progress is not None:
                progress(1)
    else:
        tasks = [_Chunk(specs, played, seed, first_game + a, first_game + b, limit)
                 for a, b in _chunks(games, jobs)]
        context = multiprocessing.get_context("spawn")  # no fork of a threaded parent
        with context.Pool(jobs) as pool:
            for start, outcomes, chunk_timers in pool.imap_unordered(_run_chunk, tasks):
                by_start[start] = outcomes
                for total, part in zip(timers, chunk_timers, strict=True):
                    total.merge(part)
                if progress is not None:
                    progress(len(outcomes))
    outcomes = [o for start in sorted(by_start) for o in by_start[start]]
    seconds = time.perf_counter() - start_time
    return ArenaResult(list(specs), played, games, seed, jobs, match, limit, seconds, outcomes,
                       timers, first_game=first_game)


# ---------------------------------------------------------------------- merging
_SAME_RUN = ("bots", "seed", "match", "rules", "max_actions")
"""The inputs that parts of one run share."""


def _run_inputs(result: ArenaResult) -> dict[str, Any]:
    return {"bots": list(result.specs), "rules": result.rules.to_dict(), "seed": result.seed,
            "match": result.match, "max_actions": result.max_actions}


def merge_results(parts: Sequence[ArenaResult], names: Sequence[str] | None = None
                  ) -> ArenaResult:
    """One result of all the games of ``parts`` (results of one run, e.g. played with
    different ``first_game``; ``names``, such as their files, for the messages), in game
    order: the outcomes together, each entry's decision times added up, the seconds added
    up, ``jobs`` the most any part used. Parts covering games ``0 .. N - 1`` give exactly
    the result of one run of ``N`` games, apart from the times.

    >>> a = run_arena(["playfirst", "random"], "official", games=2, seed=1)
    >>> b = run_arena(["playfirst", "random"], "official", games=2, seed=1, first_game=1)
    >>> merge_results([a, b], ["a.json", "b.json"])
    Traceback (most recent call last):
    ...
    unokit.arena.results.ArenaError: a.json and b.json both hold game 1

    Raises:
        ArenaError: no parts; parts of different runs (the message names the input that
            differs: bots, rules, seed, match or max_actions); parts that share games; or
            an outcome that is not the game of that number in the run.
    """
    if not parts:
        raise ArenaError("give at least one arena result to merge")
    labels = list(names) if names is not None else [f"part {i + 1}" for i in range(len(parts))]
    if len(labels) != len(parts):
        raise ArenaError(f"{len(parts)} parts but {len(labels)} names")
    reference = _run_inputs(parts[0])
    for label, part in zip(labels, parts, strict=True):
        inputs = _run_inputs(part)
        for key in _SAME_RUN:
            if inputs[key] != reference[key]:
                raise ArenaError(f"{label} is not a part of the same run as {labels[0]}: "
                                 f"{key} {inputs[key]!r} there, {reference[key]!r} here")
    players = parts[0].players
    owner: dict[int, int] = {}
    for number, part in enumerate(parts):
        for outcome in part.outcomes:
            game = outcome.game
            if not 0 <= game < GAME_LIMIT or outcome.seed != game_seed(part.seed, game) or (
                    outcome.entries != seating(players, game)):
                raise ArenaError(f"{labels[number]}: game {game} does not have the seed and "
                                 f"seats of game {game} of the run with seed {part.seed}")
            other = owner.setdefault(game, number)
            if other != number:
                shared = {o.game for o in part.outcomes} & {o.game for o in parts[other].outcomes}
                count = "game" if len(shared) == 1 else "games"
                raise ArenaError(f"{labels[other]} and {labels[number]} both hold {count} "
                                 f"{format_ranges(game_ranges(shared))}")
    ordered = sorted(parts, key=lambda part: min(o.game for o in part.outcomes))
    outcomes = sorted((o for part in ordered for o in part.outcomes), key=lambda o: o.game)
    timing = [TimeStats() for _ in range(players)]
    for part in ordered:
        for total, entry in zip(timing, part.timing, strict=True):
            total.merge(entry)
    first = ordered[0]
    return ArenaResult(list(first.specs), first.rules, len(outcomes), first.seed,
                       max(part.jobs for part in parts), first.match, first.max_actions,
                       sum(part.seconds for part in ordered), outcomes, timing,
                       first_game=outcomes[0].game, parts=sum(part.parts for part in parts))


def merge_files(paths: Sequence[str | Path]) -> ArenaResult:
    """:func:`merge_results` of the arena JSON files at ``paths`` (:func:`read_result`).

    Raises:
        ArenaError: a file that cannot be read as an arena result with outcomes, or parts
            that do not merge (see :func:`merge_results`).
    """
    return merge_results([read_result(path) for path in paths], [str(path) for path in paths])


__all__ = [
    "GAME_LIMIT",
    "MAX_ACTIONS_MATCH",
    "MAX_ACTIONS_ROUND",
    "arena_rules",
    "bot_seed",
    "check_arena",
    "create_bot",
    "game_seed",
    "merge_files",
    "merge_results",
    "play_game",
    "run_arena",
    "seating",
]
