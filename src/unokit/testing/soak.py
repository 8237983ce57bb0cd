"""Soak testing: many random matches under random rule sets, checked after every action.

Each game of a soak has its own seed: game ``i`` of a soak started with seed ``S`` uses
``S + i``. From that one number come the rule set (drawn at random from every key of
RULES.md, unless a fixed rule set is given), the deal (``Game(rules, seed)``) and the
moves of a random actor, so that ``unokit soak --games 1 --seed SEED --rules RULES``
plays exactly the game a failure names, whatever the number of games or jobs.

The actor picks among the legal actions of *every* seat, so out-of-turn actions (UNO
calls, catches, jump-ins, skips passed on, slaps, speech) happen at random moments, but
the player whose turn it is acts most of the time and prefers plays, so matches end.

After every action the soak checks:

- ``conservation``: every card of ``game.deck`` is in exactly one place (the hands, the
  draw pile or the discard pile);
- ``no_legal_action``: before the match ends the seat to act has a legal action (every
  seat that must slap, every seat between rounds), and nobody has one after it;
- ``legal_rejected`` / ``crash``: a listed legal action applies without an error;

and now and then (each with its own probability):

- ``illegal_accepted`` / ``illegal_changed_state`` / ``illegal_wrong_error``: an illegal
  action (another seat's turn action, a card not held, an action of another phase, a
  listed play with a wrong argument, an integer that encodes no action, not an integer)
  raises :class:`~unokit.engine.errors.IllegalActionError` and leaves the state equal to a
  :meth:`~unokit.engine.game.Game.copy` taken before;
- ``privacy``: in a copy where the cards a seat cannot see are dealt out differently
  (the other hands among themselves, sizes kept, and the draw pile order), the seat's
  observation and legal actions are the same.

At the end of a match, ``replay``: the action history applied to a fresh
``Game(rules, seed)`` gives an equal state and the same events. A match still running
after ``max_steps`` actions is a ``did_not_end`` failure; dealing or one action that takes
more than :data:`STEP_TIMEOUT` seconds (an endless loop inside the engine) is a
``timeout``. A rule set whose compact string does not read back to itself is a
``rules_roundtrip`` failure (the game is played all the same, and its failures name the
rule set in JSON, which ``--rules`` also takes).

The checks are functions of :mod:`unokit.testing.invariants` and the actor is
:func:`unokit.testing.actors.soak_action` (``pick_action`` here).

>>> report = run_soak(games=3, seed=5)
>>> report.games, report.failures
(3, [])
>>> rules = draw_rules(random.Random(1))
>>> Rules.from_string(rules.to_string()) == rules
True
"""

from __future__ import annotations

import multiprocessing
import queue
import random
import shlex
import signal
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from unokit.engine.cards import build_deck
from unokit.engine.errors import IllegalActionError, RulesError
from unokit.engine.game import Game
from unokit.engine.rules import KEYS, PRESETS, SPEC, KeySpec, Rules
from unokit.testing.actors import soak_action as pick_action
from unokit.testing.invariants import (
    InvariantError,
    all_legal,
    check_conservation,
    check_illegal,
    check_legal,
    check_privacy,
    check_replay,
    illegal_candidates,
    permuted,
)
from unokit.testing.invariants import action_text as _text

DEFAULT_MAX_STEPS = 50_000
"""Actions after which a match that has not ended is a failure."""

ILLEGAL_RATE = 0.05
"""Chance, after each action, of trying an illegal action."""

PRIVACY_RATE = 0.05
"""Chance, after each action, of checking one seat's observation against hidden cards."""

LONG_MATCH = 5000
"""Actions after which the copy-based checks run 20 times less often (a copy takes time in
proportion to the event log)."""

STEP_TIMEOUT = 10.0
"""Seconds of wall time after which dealing or a single action is a ``timeout`` failure:
an endless loop inside the engine, which ``max_steps`` cannot catch."""

KINDS = (
    "conservation",
    "no_legal_action",
    "legal_rejected",
    "crash",
    "illegal_accepted",
    "illegal_changed_state",
    "illegal_wrong_error",
    "privacy",
    "replay",
    "did_not_end",
    "timeout",
    "rules_roundtrip",
)
"""The kinds of failure a soak reports."""

T = TypeVar("T")


# ------------------------------------------------------------------ rule sets
class Picker(Protocol):
    """Where random choices come from: :class:`RandomPicker`, or a test's own (for
    instance one that draws from hypothesis strategies)."""

    def choice(self, options: Sequence[T]) -> T:
        """One of ``options``."""
        ...

    def integer(self, low: int, high: int) -> int:
        """An integer ``low <= x <= high``."""
        ...

    def chance(self, probability: float) -> bool:
        """True with about this probability."""
        ...


class RandomPicker:
    """A :class:`Picker` over :class:`random.Random`."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choice(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def chance(self, probability: float) -> bool:
        return self.rng.random() < probability


OVERRIDE_CHANCE = 0.35
"""Chance that a rule key is set to a random value instead of the preset's."""

_INT_RANGES = {
    "challenge_guilty_draw": (0, 8),
    "challenge_innocent_draw": (0, 10),
    "uno_penalty": (0, 4),
    "false_catch_penalty": (0, 2),
    "misplay_penalty": (0, 3),
    "silence_penalty": (0, 4),
    "launcher_max_burst": (1, 6),
}
"""Ranges kept small so that random matches end (other integer keys: 10 above the low
end of their range)."""

FIRING_BURST = 2
"""The largest ``launcher_max_burst`` drawn with ``launcher_fire_chance = 1.0``: of 330
such soak rule sets every random match ended within 2,461 actions, against up to 69,927
(and a median of 80,763 for one rule set with ``progressive_refill``) with bursts of
up to 6."""

_FLOATS = (0.0, 0.05, 0.3, 0.5, 1.0)
"""Values of probability keys (``launcher_fire_chance``)."""

_BONUS_CODES = ("W", "W+4", "WC", "WSW", "WSH", "WD1", "WD2", "R0", "G+2", "BS", "YR", "B9")
"""Cards a random ``going_out_bonus`` names."""

_SET_AFTER = frozenset({"players", "hand_size", "target_score", "rounds", "teams",
                        "partner_hands_visible", "going_out_bonus"})
"""Keys drawn after the others, to fit them (deck size, scoring, teams)."""


def _value(pick: Picker, spec: KeySpec, attack: bool) -> Any:
    """A random value of one key."""
    if spec.kind == "bool":
        return pick.choice((False, True))
    if spec.kind == "choice":
        options = [c for c in spec.choices if attack or c != "attack"]
        return pick.choice(options)
    if spec.kind == "float":
        return pick.choice(_FLOATS)
    if spec.name == "lone_zero_points":
        return pick.choice((0, 50))  # the seeds' "Reset zero" value
    if spec.kind in ("int", "optional_int"):
        low, high = _INT_RANGES.get(spec.name, (spec.choices[0], spec.choices[0] + 10))
        if spec.choices[1] is not None:
            high = min(high, spec.choices[1])
        return pick.integer(low, high)
    if spec.kind == "cards":
        counts = {code: pick.choice((0, 0, 1, 2)) for code in spec.choices}
        return {code: count for code, count in counts.items() if count}
    return spec.default


def random_rule_dict(pick: Picker, *, attack: bool = True) -> dict[str, Any]:
    """A rule set as a mapping for :meth:`Rules.from_dict`: a random preset, then each key
    of RULES.md set to a random value with chance :data:`OVERRIDE_CHANCE`, then players,
    hand size, teams, target and rounds chosen to fit (small targets, at most 3 rounds,
    at most half the deck dealt, small bursts from a launcher that always fires, so that
    random matches end).

    With ``attack=False`` nothing of RULES.md section 6 (UNO Attack) is drawn. The result
    is valid except where the engine refuses a combination it does not support
    (:func:`draw_rules` then draws again).
    """
    presets = [name for name in PRESETS if attack or name != "attack"]
    preset = pick.choice(["official", *presets])
    data: dict[str, Any] = {"preset": preset}
    for spec in KEYS:
        if spec.name in _SET_AFTER or (not attack and spec.section >= 6):
            continue
        if pick.chance(OVERRIDE_CHANCE):
            data[spec.name] = _value(pick, spec, attack)

    def now(key: str) -> Any:
        if key in data:
            return data[key]
        return PRESETS[preset].get(key, SPEC[key].default)

    teams = pick.choice(("none", "pairs")) if pick.chance(OVERRIDE_CHANCE) else now("teams")
    data["teams"] = teams
    if teams == "pairs":
        data["players"] = pick.choice((4, 6, 8, 10))
        if now("scoring") in ("elimination", "lazy"):
            data["scoring"] = pick.choice(("standard", "penalty"))
        data["play_to_last"] = False
        data["partner_hands_visible"] = pick.choice((False, True))
    else:
        data["players"] = pick.integer(3 if now("scoring") == "elimination" else 2, 10)
        data["partner_hands_visible"] = False
    extra = now("extra_cards")
    if extra and data["players"] > 6 and "extra_cards" in data:
        # Hand swaps, shuffles and downpours at a big table: one of each at most.
        extra = data["extra_cards"] = {code: min(count, 1) for code, count in extra.items()}
    deck_size = len(build_deck(now("deck"), dict(extra) if extra else None))
    # At most half the deck dealt: with most cards in hands, random play hardly ends.
    max_hand = max(1, min(8, (deck_size - 1) // data["players"],
                          deck_size // (2 * data["players"])))
    if now("progressive_refill"):  # a hand is emptied up to hand_size times
        max_hand = min(max_hand, 4 if data["players"] <= 5 else 2)
    data["hand_size"] = pick.integer(1, max_hand)
    scoring = now("scoring")
    data["target_score"] = pick.integer(1, 60 if scoring == "elimination" else 200)
    rounds = pick.choice((None, 1, 2, 3))
    if scoring == "lazy" and rounds is None:
        rounds = pick.integer(1, 3)
    if now("progressive_refill") and data["players"] > 6:
        rounds = 1  # long rounds: one is enough
    data["rounds"] = rounds
    if scoring in ("penalty", "elimination") and pick.chance(0.5):
        data["going_out_bonus"] = {pick.choice(_BONUS_CODES): pick.integer(1, 60)
                                   for _ in range(pick.integer(1, 3))}
    else:
        data["going_out_bonus"] = {}
    if (now("deck") == "attack" and now("launcher_fire_chance") == 1.0
            and now("launcher_max_burst") > FIRING_BURST):
        # A launcher that always fires ejects 3.5 cards a press with bursts up to 6: random
        # matches then take up to hundreds of thousands of actions (docs/rules.md, "Long
        # random matches"), past any step cap.
        data["launcher_max_burst"] = pick.integer(1, FIRING_BURST)
    return data


def draw_rules(rng: random.Random, *, attack: bool = True, tries: int = 1000) -> Rules:
    """A random valid rule set (see :func:`random_rule_dict`); keys drawn where they would
    have no effect are reset to their defaults, and rule sets the engine refuses with
    :class:`~unokit.engine.errors.RulesError` are skipped and drawn again."""
    pick = RandomPicker(rng)
    last: RulesError | None = None
    for _ in range(tries):
        try:
            return Rules.from_dict(random_rule_dict(pick, attack=attack), drop_inert=True)
        except RulesError as exc:
            last = exc
    raise RulesError({"rules": f"no valid rule set in {tries} draws (last: {last})"})


# ---------------------------------------------------------------------- games
@dataclass(frozen=True)
class Failure:
    """One broken invariant, with what reproduces it."""

    kind: str
    seed: int
    rules: str
    step: int
    """Actions applied before it was found."""
    message: str
    max_steps: int = DEFAULT_MAX_STEPS

    def command(self) -> str:
        """The command line that plays this game again."""
        steps = "" if self.max_steps == DEFAULT_MAX_STEPS else f" --max-steps {self.max_steps}"
        return (f"unokit soak --games 1 --seed {self.seed} --rules {shlex.quote(self.rules)}"
                f"{steps}")

    def line(self) -> str:
        """``FAIL kind seed=S rules=R step=N: message``."""
        return (f"FAIL {self.kind} seed={self.seed} rules={self.rules} step={self.step}: "
                f"{self.message}")


@dataclass(frozen=True)
class GameResult:
    """How one soak game went."""

    index: int
    seed: int
    rules: str
    actions: int
    rounds: int
    ended: bool
    failures: tuple[Failure, ...] = ()
    """At most one failure of the game itself, after a ``rules_roundtrip`` one if any."""

    @property
    def failure(self) -> Failure | None:
        """The first failure, if any."""
        return self.failures[0] if self.failures else None


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a soak started with ``seed``."""
    return (seed + index) % 2**64


def seed_range(seed: int, games: int) -> str:
    """The seeds of ``games`` soak games started with ``seed``, as they are played (they
    wrap around at 2**64).

    >>> seed_range(5, 3), seed_range(7, 1)
    ('5..7', '7')
    >>> seed_range(2**64 - 1, 3)
    '18446744073709551615, 0..1'
    """
    last = game_seed(seed, games - 1)
    if games <= 1:
        return str(seed)
    if last >= seed:
        return f"{seed}..{last}"
    head = str(seed) if seed == 2**64 - 1 else f"{seed}..{2**64 - 1}"
    return head + (", 0" if last == 0 else f", 0..{last}")


def _roundtrip_problem(rules: Rules) -> str:
    """What is wrong with the compact string of a rule set ('' if it reads back)."""
    compact = rules.to_string()
    try:
        again = Rules.from_string(compact)
    except RulesError as exc:
        return f"the compact string {compact!r} is refused: {exc}"
    if again != rules:
        return f"the compact string {compact!r} reads back to another rule set"
    return ""


def reproducible_text(rules: Rules) -> str:
    """The rule set as ``--rules`` takes it: the compact string where it reads back to the
    same rule set, otherwise JSON."""
    return rules.to_json() if _roundtrip_problem(rules) else rules.to_string()


class _OutOfTime(BaseException):
    """Raised by :class:`_Watchdog` (a BaseException, so that no handler of ``Exception``
    in the engine swallows it)."""


class _Watchdog:
    """Limits the wall time of single steps (dealing, one action) with an interval timer,
    where the platform allows it (in the main thread of a POSIX process); elsewhere it
    does nothing. Use as a context manager around a game, :meth:`arm` before a step and
    :meth:`disarm` after it."""

    def __init__(self, seconds: float | None) -> None:
        usable = (hasattr(signal, "setitimer")
                  and threading.current_thread() is threading.main_thread())
        self.seconds = seconds if seconds and seconds > 0 and usable else 0.0
        self._previous: Any = None

    def __enter__(self) -> _Watchdog:
        if self.seconds:
            self._previous = signal.signal(signal.SIGALRM, self._ring)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.seconds:
            self.disarm()
            signal.signal(signal.SIGALRM, self._previous)

    @staticmethod
    def _ring(signum: int, frame: Any) -> None:
        raise _OutOfTime

    def arm(self) -> None:
        """Start the clock for one step."""
        if self.seconds:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def disarm(self) -> None:
        """Stop the clock."""
        if self.seconds:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _where(exc: BaseException) -> str:
    """``file:line (function)`` of the innermost frame of an exception."""
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno} ({frame.name})"


def soak_game(seed: int, rules: Rules | None = None, *, max_steps: int = DEFAULT_MAX_STEPS,
              illegal_rate: float = ILLEGAL_RATE, privacy_rate: float = PRIVACY_RATE,
              step_timeout: float | None = STEP_TIMEOUT, index: int = 0) -> GameResult:
    """Play and check one game: the rule set drawn from ``seed`` unless given, then
    ``Game(rules, seed)`` and the random actor seeded from ``seed``.

    ``step_timeout``: seconds of wall time that dealing or one action may take (where the
    platform allows a timer; see :data:`STEP_TIMEOUT`).
    """
    if rules is None:
        rules = draw_rules(random.Random(f"unokit-soak-rules:{seed}"))
    text = reproducible_text(rules)
    actor = random.Random(f"unokit-soak-actor:{seed}")
    checks = random.Random(f"unokit-soak-checks:{seed}")
    applied: list[int] = []
    game: Game | None = None
    busy: int | None = None  # the action being applied, for a timeout's message

    found: list[Failure] = []

    def result() -> GameResult:
        return GameResult(index, seed, text, len(applied), game.round_no if game else 0,
                          game is not None and game.is_over(), tuple(found))

    def fail(kind: str, message: str) -> GameResult:
        found.append(Failure(kind, seed, text, len(applied), message, max_steps))
        return result()

    watchdog = _Watchdog(step_timeout)
    try:
        with watchdog:
            problem = _roundtrip_problem(rules)
            if problem:  # reported, and the game is played all the same
                found.append(Failure("rules_roundtrip", seed, text, 0, problem, max_steps))
            watchdog.arm()
            game = Game(rules, seed)
            watchdog.disarm()
            deck = sorted(game.deck)
            while True:
                check_conservation(game, deck)
                legal = all_legal(game)
                check_legal(game, legal)
                if game.is_over():
                    break
                if len(applied) >= max_steps:
                    return fail("did_not_end", f"the match is still on after {max_steps} "
                                f"actions (round {game.round_no}, phase {game.phase.value}, "
                                f"hands {[len(h) for h in game.hands]}, draw pile "
                                f"{len(game.draw_pile)}, discard pile {len(game.discard)})")
                # Copies grow with the event log: long matches are checked less often.
                slow = 1 if len(applied) < LONG_MATCH else 20
                if checks.random() * slow < illegal_rate:
                    check_illegal(game, checks)
                if checks.random() * slow < privacy_rate:
                    check_privacy(game, checks)
                action = busy = pick_action(game, legal, actor)
                watchdog.arm()
                try:
                    game.apply(action)
                except IllegalActionError as exc:
                    raise InvariantError("legal_rejected", f"listed action {_text(action)} "
                                         f"was rejected: {exc}") from None
                watchdog.disarm()
                busy = None
                applied.append(action)
            check_replay(game, applied)
    except InvariantError as exc:
        return fail(exc.kind, str(exc))
    except _OutOfTime as exc:
        doing = ("dealing" if game is None else "checking" if busy is None
                 else f"applying {_text(busy)}")
        return fail("timeout", f"{doing} took over {step_timeout} s; stopped at {_where(exc)}")
    except Exception as exc:
        last = f" after {_text(applied[-1])}" if applied else ""
        return fail("crash", f"{type(exc).__name__}: {exc}{last} at {_where(exc)}")
    return result()


# ---------------------------------------------------------------------- soaks
@dataclass
class SoakReport:
    """The outcome of a soak."""

    games: int = 0
    actions: int = 0
    ended: int = 0
    seconds: float = 0.0
    failures: list[Failure] = field(default_factory=list)

    def add(self, result: GameResult) -> None:
        """Count one game."""
        self.games += 1
        self.actions += result.actions
        self.ended += result.ended
        self.failures.extend(result.failures)

    def by_kind(self) -> Counter[str]:
        """Failures counted by kind."""
        return Counter(f.kind for f in self.failures)

    def games_per_second(self) -> float:
        """Games played per second of wall time."""
        return self.games / self.seconds if self.seconds > 0 else 0.0

    @property
    def ok(self) -> bool:
        """Whether no invariant broke."""
        return not self.failures


@dataclass(frozen=True)
class _Job:
    job: int
    jobs: int
    games: int
    seed: int
    rules: str | None
    max_steps: int


def _job_indices(job: int, jobs: int, games: int) -> range:
    """The games of one job: every ``jobs``-th, starting with game ``job``."""
    return range(job, games, jobs)


def _run_job(spec: _Job, out: Any) -> None:
    rules = Rules.load(spec.rules) if spec.rules is not None else None
    try:
        for index in _job_indices(spec.job, spec.jobs, spec.games):
            out.put(soak_game(game_seed(spec.seed, index), rules, max_steps=spec.max_steps,
                              index=index))
    finally:
        out.put(None)


def run_soak(games: int, seed: int = 0, *, jobs: int = 1, max_steps: int = DEFAULT_MAX_STEPS,
             rules: Rules | str | None = None,
             on_result: Callable[[GameResult], None] | None = None) -> SoakReport:
    """Play and check ``games`` games (seeds ``seed``, ``seed + 1``, ...); ``jobs`` > 1
    splits them over that many processes (job ``j`` plays games ``j``, ``j + jobs``, ...),
    which changes nothing but the time taken. ``on_result`` hears of each game as it ends.
    Failures come out in game order.
    """
    fixed = None if rules is None else Rules.load(rules)
    text = None if fixed is None else reproducible_text(fixed)
    report = SoakReport()
    results: list[GameResult] = []
    start = time.perf_counter()

    def take(result: GameResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    jobs = max(1, min(jobs, games))
    if jobs == 1:
        for index in range(games):
            take(soak_game(game_seed(seed, index), fixed, max_steps=max_steps, index=index))
    else:
        context = multiprocessing.get_context("spawn")  # no fork of a threaded parent
        out = context.Queue()
        workers = [context.Process(target=_run_job, args=(_Job(j, jobs, games, seed, text,
                                                               max_steps), out), daemon=True)
                   for j in range(jobs)]
        for worker in workers:
            worker.start()
        running = jobs
        while running:
            try:
                item = out.get(timeout=1.0)
            except queue.Empty:
                if not any(w.is_alive() for w in workers) and out.empty():
                    break
                continue
            if item is None:
                running -= 1
            else:
                take(item)
        for worker in workers:
            worker.join()
        missing = sorted(set(range(games)) - {r.index for r in results})
        for index in missing:  # a job died without a word: count its games as crashes
            take(GameResult(index, game_seed(seed, index), text or "?", 0, 0, False,
                            (Failure("crash", game_seed(seed, index), text or "?", 0,
                                     "the job playing this game died", max_steps),)))
    for result in sorted(results, key=lambda r: r.index):
        report.add(result)
    report.seconds = time.perf_counter() - start
    return report


__all__ = [
    "DEFAULT_MAX_STEPS",
    "KINDS",
    "Failure",
    "GameResult",
    "InvariantError",
    "Picker",
    "RandomPicker",
    "SoakReport",
    "all_legal",
    "check_conservation",
    "check_illegal",
    "check_legal",
    "check_privacy",
    "check_replay",
    "draw_rules",
    "game_seed",
    "illegal_candidates",
    "permuted",
    "pick_action",
    "random_rule_dict",
    "run_soak",
    "seed_range",
    "soak_game",
]
