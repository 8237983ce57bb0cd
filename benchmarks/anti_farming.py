"""Anti-farming, measured: scripted abusers among honest players, real games, two raters.

Every match is a real game of the engine (official rules, one round), played by bots:
an honest player is a bot of one level (playfirst, easy, normal or hard: their skill),
who now and then draws instead of playing (a human holding cards back) and now and
then loses the connection (a share of their actions played for them). Among them play
five kinds of abusers:

- ``win_trading``: a pair of established accounts; one throws every match (draws
  instead of playing), the other collects the rating. Some pairs throw blatantly, some
  subtly (on fewer turns than the ``thrown`` check needs).
- ``fresh_dumping``: a player and new accounts, made at the same address or behind
  other addresses, which throw.
- ``bot_farm``: a player who found a deal they win against a bot replays it.
- ``seat_sitting``: a weak player who leaves every match to the autopilot (hard).
- ``leaving``: a player who leaves a match they are losing (behind by four cards).

Each match is rated by two raters with openskill's Plackett-Luce over the finishing
order: ``naive`` rates every match as it ended and drops a leaver's result; ``unokit``
goes the server's way (:func:`unokit.store.ratings.write_ratings`): each action marked
as a room marks it (:func:`unokit.store.farming.play_mark`), a leaver ranked last on a
team of their own, the checks of :func:`unokit.store.farming.judge_match` over the
history of :func:`unokit.store.farming.past_match`, and the participants they leave
alone (:func:`unokit.store.farming.rated_entrants`) rated by
:func:`unokit.store.rating_model.rate`, bots at their fixed ratings. The abusive gain of
a match is the beneficiary's rating change (mu) beyond what an honest result would have
given (for a leaver: the change of the finishing order the match really had). The
report gives, per abuse and in all, the gain under each rater and the share voided, and
the share of honest matches (no abuser at the table) that a check flagged.

    .venv/bin/python benchmarks/anti_farming.py                 # the figures in docs
    .venv/bin/python benchmarks/anti_farming.py --honest 400 --abuse 10 --json out.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from openskill.models import PlackettLuce

from unokit.bots import make_bot
from unokit.bots.base import Bot
from unokit.engine.actions import DRAW, PASS, PLAY, action_type
from unokit.engine.cards import hand_points
from unokit.engine.driver import Driver
from unokit.engine.game import Game
from unokit.engine.observation import Observation
from unokit.store.farming import (
    MARK_SEAT,
    MemoryHistory,
    Participant,
    deal_key,
    judge_match,
    past_match,
    play_mark,
    rated_entrants,
    seat_play,
)
from unokit.store.rating_model import MU, SIGMA, Entrant, rate

LEVELS = ("playfirst", "easy", "normal", "hard")
"""The honest players' levels (their skill)."""
BOT_MU = {"normal": 25.0}
"""The fixed rating (mu) of the bot a farmer plays against."""
DAY = 86_400.0


class Thrower:
    """Plays like ``inner`` but draws instead of playing on a share of its turns, and
    passes after such a draw."""

    name = "thrower"

    def __init__(self, inner: Bot, share: float, rng: random.Random) -> None:
        self.inner, self.share, self.rng = inner, share, rng
        self.threw = False

    def choose(self, observation: Observation, legal: Sequence[int]) -> int | None:
        types = [action_type(a) for a in legal]
        if self.threw and PASS in types:
            self.threw = False
            return legal[types.index(PASS)]
        self.threw = False
        if PLAY in types and DRAW in types and self.rng.random() < self.share:
            self.threw = True
            return legal[types.index(DRAW)]
        return self.inner.choose(observation, list(legal))


@dataclass
class Seat:
    """Who plays a seat of a simulated match."""

    player: int
    level: str
    throw: float = 0.0
    sit_share: float = 0.0
    """The share of turns played for the seat (autopilot, hard)."""
    leave_when_behind: bool = False
    bot: bool = False


@dataclass
class Played:
    """A played match: the places, the origins of each action, who left."""

    places: list[int]
    origins: list[tuple[int, str]]
    left: set[int]
    seed: int
    rules: str
    marks: list[int] = field(default_factory=list)
    """Each action's play mark, made as a room makes it."""


def _places(game: Game) -> list[int]:
    """1 for the round's winner, then by the points left in hand (ties share)."""
    points = [0 if s == game.round_winner else 1 + hand_points(game.hands[s])
              for s in range(game.n)]
    ordered = sorted(set(points))
    return [ordered.index(p) + 1 for p in points]


def play_match(seats: Sequence[Seat], seed: int, rng: random.Random) -> Played:
    """One real game of ``seats`` (official, one round)."""
    rules = f"official,players={len(seats)},rounds=1"
    game = Game(rules, seed=seed)
    bots: list[Bot] = []
    for index, seat in enumerate(seats):
        inner = make_bot(seat.level, seed=seed * 31 + index, rules=game.rules)
        bots.append(Thrower(inner, seat.throw, rng) if seat.throw else inner)
    autopilot = [make_bot("hard", seed=seed * 17 + i, rules=game.rules)
                 for i in range(len(seats))]
    origins: list[tuple[int, str]] = []
    marks: list[int] = []
    left: set[int] = set()
    driver = Driver(game)
    turn = 0
    by_autopilot = [False] * len(seats)

    def choose(index: int, legal: list[int], must: bool) -> int | None:
        seat = seats[index]
        obs = game.observation(index)
        by_autopilot[index] = index in left or bool(seat.sit_share
                                                    and rng.random() < seat.sit_share)
        if by_autopilot[index]:
            return autopilot[index].choose(obs, legal) if must else None
        return bots[index].choose(obs, legal)

    while not game.is_over() and turn < 5_000:
        turn += 1
        for index, seat in enumerate(seats):
            if (seat.leave_when_behind and index not in left and turn > 6 and
                    len(game.hands[index]) >= 4 + min(len(h) for i, h in enumerate(game.hands)
                                                      if i != index)):
                left.add(index)
        asked = driver.ask(choose)
        assert asked is not None
        index, action = asked
        seat = seats[index]
        origin = "player"
        if seat.bot or index in left:
            origin = "bot"
        elif by_autopilot[index]:
            origin = "away"
        marks.append(play_mark(game, action, origin))
        driver.apply(action)
        origins.append((action, origin))
    return Played(_places(game), origins, left, seed, rules, marks)


@dataclass
class Rater:
    """One rating process: mu and sigma per player, the history its checks read."""

    checks: bool
    model: PlackettLuce = field(default_factory=PlackettLuce)
    ratings: dict[int, Any] = field(default_factory=dict)
    history: MemoryHistory = field(default_factory=MemoryHistory)
    matches: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    def rating(self, player: int) -> Any:
        if player not in self.ratings:
            self.ratings[player] = self.model.rating(name=str(player))
        return self.ratings[player]

    def rate(self, ids: Sequence[int], places: Sequence[int], bots: set[int],
             rated: set[int]) -> dict[int, float]:
        """Rate the players of ``rated`` (indices) over ``places``; bots fixed.
        Returns each rated index's change of mu."""
        if len(rated) == 0 or len(ids) < 2:
            return {}
        teams = []
        for index, player in enumerate(ids):
            if index in bots:
                teams.append([self.model.rating(mu=BOT_MU["normal"], sigma=1.0)])
            else:
                teams.append([self.rating(player)])
        after = self.model.rate(teams, ranks=list(places))
        changes: dict[int, float] = {}
        for index, player in enumerate(ids):
            if index in bots or index not in rated:
                continue
            before = self.ratings[player].mu
            self.ratings[player] = after[index][0]
            changes[index] = self.ratings[player].mu - before
            self.matches[player] += 1
        return changes


@dataclass
class ServerRater:
    """The server's way of rating (see the module): mu and sigma per player, their rated
    matches, and the history the checks read."""

    ratings: dict[int, tuple[float, float]] = field(default_factory=dict)
    history: MemoryHistory = field(default_factory=MemoryHistory)
    matches: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    def held(self, player: int) -> tuple[float, float]:
        return self.ratings.get(player, (MU, SIGMA))

    def rate(self, parts: Sequence[Participant], reasons: dict[int, tuple[str, ...]]
             ) -> dict[int, float]:
        """Rate a match's participants as the server does; each rated participant's
        change of mu, by index."""
        found = rated_entrants(parts, reasons, self.held)
        if not found:
            return {}
        changes: dict[int, float] = {}
        for (index, entrant), (mu, sigma) in zip(found, rate([e for _, e in found]),
                                                 strict=True):
            if entrant.player_id is not None:
                changes[index] = mu - entrant.mu
                self.ratings[entrant.player_id] = (mu, sigma)
                self.matches[entrant.player_id] += 1
        return changes

    def would_change(self, parts: Sequence[Participant], index: int) -> float:
        """The change of mu of participant ``index`` if the match were rated as given."""
        found = rated_entrants(parts, {}, self.held)
        entrants: list[Entrant] = [e for _, e in found]
        for (i, entrant), (mu, _) in zip(found, rate(entrants), strict=True):
            if i == index:
                return mu - entrant.mu
        return 0.0


@dataclass
class World:
    """The players, the two raters and the tallies."""

    seed: int
    rng: random.Random = field(init=False)
    naive: Rater = field(default_factory=lambda: Rater(False))
    ours: ServerRater = field(default_factory=ServerRater)
    clock: float = 0.0
    next_match: int = 0
    next_seed: int = 1
    created: dict[int, float] = field(default_factory=dict)
    address: dict[int, str] = field(default_factory=dict)
    gain: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))
    honest_matches: int = 0
    honest_flagged: int = 0
    flagged_by: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def player(self, pid: int, address: str, age_days: float = 365.0) -> int:
        self.created[pid] = self.clock - age_days * DAY
        self.address[pid] = address
        return pid

    def match(self, seats: Sequence[Seat], abuse: str = "", beneficiary: int = -1,
              seed: int | None = None) -> None:
        """Play and rate one match; tally it as honest or as ``abuse`` of
        ``beneficiary`` (an index into ``seats``)."""
        self.clock += 60.0
        self.next_match += 1
        if seed is None:
            seed = self.next_seed
            self.next_seed += 1
        played = play_match(seats, seed, self.rng)
        ids = [s.player for s in seats]
        bots = {i for i, s in enumerate(seats) if s.bot}
        humans = [i for i in range(len(seats)) if i not in bots]
        deal = deal_key(played.rules, seed)
        baselines = (0.0, 0.0)
        parts = self.participants(seats, played)
        if abuse and beneficiary in played.left:
            # the change that staying to the end would have given, under each rater
            stayed = [replace(p, rank=played.places[i] - 1, team=i, left=False)
                      for i, p in enumerate(parts)]
            baselines = (_would_change(self.naive, ids, played.places, bots, beneficiary),
                         self.ours.would_change(stayed, beneficiary))
        # naive: the leaver's result dropped; every other human rated as it ended
        naive_changes = self.naive.rate(ids, played.places, bots,
                                        {i for i in humans if i not in played.left})
        # ours: the server's way
        reasons = judge_match(self.next_match, self.clock, deal, parts, self.ours.history)
        ours_changes = self.ours.rate(parts, reasons)
        self.ours.history.add(past_match(self.next_match, self.clock, deal, parts))
        if not abuse:
            self.honest_matches += 1
            if reasons:
                self.honest_flagged += 1
                for why in reasons.values():
                    for reason in why:
                        self.flagged_by[reason] += 1
            return
        tally = self.gain[abuse]
        tally[0] += naive_changes.get(beneficiary, 0.0) - baselines[0]
        tally[1] += ours_changes.get(beneficiary, 0.0) - baselines[1]

    def participants(self, seats: Sequence[Seat], played: Played) -> list[Participant]:
        """The match's participants as the server stores them: one per seat (a leaver
        last, on a team of their own), the seat's play from its marks."""
        last = max(played.places) + 1
        out = []
        for index, seat in enumerate(seats):
            play = seat_play(m for m in played.marks if m >= 0 and m // MARK_SEAT == index)
            left = index in played.left
            rank = (last if left else played.places[index]) - 1
            team = 1000 + index if left else index
            if seat.bot:
                out.append(Participant(index, None, "normal", team, rank, play))
                continue
            age = (self.clock - self.created.get(seat.player, self.clock - 365 * DAY)) / DAY
            out.append(Participant(index, seat.player, "", team, rank, play,
                                   self.address.get(seat.player, ""), age,
                                   self.ours.matches[seat.player], left))
        return out


def _would_change(rater: Rater, ids: Sequence[int], places: Sequence[int], bots: set[int],
                  index: int) -> float:
    teams = [[rater.model.rating(mu=BOT_MU["normal"], sigma=1.0)] if i in bots
             else [rater.rating(p)] for i, p in enumerate(ids)]
    after = rater.model.rate(teams, ranks=list(places))
    return float(after[index][0].mu - teams[index][0].mu)


def simulate(honest: int = 3000, abuse: int = 40, players: int = 120, seed: int = 1,
             progress: bool = False) -> dict[str, Any]:
    """Run the world: ``honest`` honest matches, and ``abuse`` matches of each abuser
    (five kinds, a few abusers each), interleaved. Returns the report."""
    world = World(seed)
    rng = world.rng
    levels = {pid: LEVELS[pid % len(LEVELS)] for pid in range(players)}
    for pid in range(players):
        world.player(pid, f"h{pid}")
    # households: a few honest pairs share an address, one of them a new account
    for pid in range(0, players // 20):
        world.player(players - 1 - pid, f"h{pid}", age_days=rng.uniform(0, 6))

    def honest_seat(pid: int) -> Seat:
        away = rng.uniform(0.1, 0.4) if rng.random() < 0.03 else 0.0
        return Seat(pid, levels[pid], throw=0.05, sit_share=away)

    abusers: list[tuple[str, Any]] = []
    base = 10_000
    for k in range(2):  # win-trading pairs: blatant and subtle
        a, b = world.player(base + 2 * k, f"w{k}a"), world.player(base + 2 * k + 1, f"w{k}b")
        abusers.append(("win_trading", (a, b, 0.9 if k == 0 else 0.45)))
    for k in range(2):  # fresh-account dumpers: at home, and behind other addresses
        a = world.player(base + 100 + k, f"f{k}")
        abusers.append(("fresh_dumping", (a, k)))
    for k in range(2):
        a = world.player(base + 200 + k, f"b{k}")
        abusers.append(("bot_farm", (a, None)))
    for k in range(2):
        a = world.player(base + 300 + k, f"s{k}")
        abusers.append(("seat_sitting", (a,)))
    for k in range(2):
        a = world.player(base + 400 + k, f"l{k}")
        abusers.append(("leaving", (a,)))

    schedule = ["honest"] * honest + [f"abuse:{i}" for i in range(len(abusers))] * abuse
    rng.shuffle(schedule)
    warmup = [("honest")] * (honest // 3)
    fresh_ids = iter(range(base + 1000, base + 100_000))
    started = time.perf_counter()
    for step, item in enumerate(warmup + schedule):
        if progress and step % 500 == 0:
            print(f"  {step} of {len(warmup) + len(schedule)} matches", file=sys.stderr)
        if item == "honest":
            n = rng.choice((2, 2, 3, 4))
            ids = rng.sample(range(players), n)
            world.match([honest_seat(p) for p in ids])
            continue
        kind, data = abusers[int(item.split(":")[1])]
        if kind == "win_trading":
            a, b, share = data
            world.match([Seat(a, "normal"), Seat(b, "normal", throw=share)], kind, 0)
        elif kind == "fresh_dumping":
            a, away = data
            fresh = world.player(next(fresh_ids), world.address[a] if away == 0
                                 else f"x{rng.random()}", age_days=0.1)
            world.match([Seat(a, "normal"), Seat(fresh, "random", throw=0.9)], kind, 0)
        elif kind == "bot_farm":
            a, known = data
            if known is None:  # find a deal the player wins against the bot
                for probe in range(1, 500):
                    trial = play_match([Seat(a, "normal"), Seat(-1, "normal", bot=True)],
                                       900_000 + a * 1000 + probe, random.Random(probe))
                    world.ours.history.saw(a, deal_key(trial.rules, trial.seed))
                    if trial.places[0] == 1:
                        known = trial.seed
                        break
                abusers[int(item.split(":")[1])] = (kind, (a, known))
            world.match([Seat(a, "normal"), Seat(-1, "normal", bot=True)], kind, 0,
                        seed=known)
        elif kind == "seat_sitting":
            (a,) = data
            others = rng.sample(range(players), 1)
            world.match([Seat(a, "random", sit_share=1.0), *(honest_seat(p) for p in others)],
                        kind, 0)
        else:
            (a,) = data
            others = rng.sample(range(players), 1)
            world.match([Seat(a, "easy", leave_when_behind=True),
                         *(honest_seat(p) for p in others)], kind, 0)
    seconds = time.perf_counter() - started
    kinds = {}
    total_naive = total_ours = 0.0
    for kind, (naive, ours) in sorted(world.gain.items()):
        voided = 1.0 if naive <= 0 else min(1.0, max(0.0, 1 - max(ours, 0.0) / naive))
        kinds[kind] = {"gain_naive": round(naive, 2), "gain_unokit": round(ours, 2),
                       "voided": round(voided, 4)}
        total_naive += max(naive, 0.0)
        total_ours += max(ours, 0.0)
    return {
        "matches": world.next_match, "honest_matches": world.honest_matches,
        "honest_flagged": world.honest_flagged,
        "honest_flagged_share": round(world.honest_flagged / max(1, world.honest_matches), 4),
        "honest_flags_by_check": dict(world.flagged_by),
        "abuse": kinds,
        "abusive_gain_naive": round(total_naive, 2),
        "abusive_gain_unokit": round(total_ours, 2),
        "abusive_gain_voided": round(1 - total_ours / total_naive, 4) if total_naive else 1.0,
        "seconds": round(seconds, 1), "seed": seed,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest", type=int, default=3000, help="honest matches")
    parser.add_argument("--abuse", type=int, default=40, help="matches of each abuser")
    parser.add_argument("--players", type=int, default=120, help="honest players")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="also write the report here")
    args = parser.parse_args(argv)
    report = simulate(args.honest, args.abuse, args.players, args.seed, progress=True)
    print(f"{report['matches']} matches ({report['honest_matches']} honest), "
          f"{report['seconds']} s, seed {report['seed']}")
    print(f"{'abuse':<16} {'gain, naive':>12} {'gain, unokit':>13} {'voided':>8}")
    for kind, row in report["abuse"].items():
        print(f"{kind:<16} {row['gain_naive']:>12.2f} {row['gain_unokit']:>13.2f} "
              f"{row['voided']:>8.1%}")
    print(f"{'all':<16} {report['abusive_gain_naive']:>12.2f} "
          f"{report['abusive_gain_unokit']:>13.2f} {report['abusive_gain_voided']:>8.1%}")
    print(f"honest matches flagged: {report['honest_flagged']} of {report['honest_matches']} "
          f"({report['honest_flagged_share']:.2%}) {report['honest_flags_by_check']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(report, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
