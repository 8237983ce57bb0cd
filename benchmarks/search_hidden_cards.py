"""What the hidden cards cost the search bot: the same search, shown every hand.

What it measures
    The games of an arena run (``unokit arena --bots search,OPP,... --seed S``: game ``i``
    is ``Game(rules, S + i)``, seats rotating as the arena rotates them, bots seeded with
    ``unokit.arena.bot_seed``), played again with the search bot replaced by a *peeking*
    copy: in every deal of its search the other hands are the real ones (only the order
    of the draw pile stays unknown), where the real bot deals the cards it cannot see at
    random. Everything else is the search bot's: the candidates, the budget, the playout
    policy, the margin, and the ``hard`` heuristic for the decisions the search does not
    make. The peeking bot is a diagnostic only, never a player: it reads the game.

    The peeking copy's win rate is an upper mark for what better inference of the hidden
    hands could give this search. Given the arena's JSON of the real bot on the same
    games (``--compare``), the two are compared game by game (the same deals, seats and
    opponents' seeds): wins of each, games won by only one of them, and the paired
    difference with a 95 % interval.

How to run
    .venv/bin/python benchmarks/search_hidden_cards.py --games 1000 --jobs 2
    .venv/bin/python benchmarks/search_hidden_cards.py --games 2000 --seed 1 \\
        --compare arena_part_0.json --json peek.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from unokit import Game, Rules
from unokit.arena import arena_rules, bot_seed, create_bot, game_seed, seating
from unokit.arena.results import ArenaError, read_result, wilson_interval
from unokit.bots.base import Bot, play
from unokit.bots.playout import Position
from unokit.bots.search import SearchBot
from unokit.engine.observation import Observation


class PeekingSearch(SearchBot):
    """The search bot, its deals made of the real hands of :attr:`game` (a diagnostic):
    it differs from :class:`SearchBot` only in the position it deals from."""

    game: Game | None = None

    def _position(self, obs: Observation, pool: list[int], team: Sequence[int]) -> Position:
        """The real hands, and the draw pile's cards in an unknown order."""
        game = self.game
        assert game is not None
        n = len(obs.hand_sizes)
        hands: list[list[int] | None] = [list(hand) for hand in game.hands]
        return Position(pool=sorted(game.draw_pile), sizes=list(obs.hand_sizes), known=hands,
                        slots=[[] for _ in range(n)], discard=list(obs.discard),
                        color=obs.color, direction=obs.direction, seat=obs.seat,
                        team=[seat in team for seat in range(n)])


def play_one(args: tuple[list[str], dict[str, Any], int, int]) -> tuple[int, int, int]:
    """Game ``index`` with the peeking search as entry 0: ``(index, seat, winner)``."""
    specs, rules_data, seed, index = args
    rules = Rules.load(rules_data)
    n = len(specs)
    entries = seating(n, index)
    game = Game(rules, game_seed(seed, index))
    bots: list[Bot] = []
    me = entries.index(0)
    for seat in range(n):
        if entries[seat] == 0:
            peek = PeekingSearch(bot_seed(seed, index, seat), rules=rules)
            peek.game = game
            bots.append(peek)
        else:
            bots.append(create_bot(specs[entries[seat]], bot_seed(seed, index, seat), rules))
    for _ in play(game, bots):
        pass
    return index, me, game.match_winner


def paired(mine: dict[int, bool], theirs: dict[int, bool]) -> dict[str, Any]:
    """Game-by-game comparison over the games both played."""
    games = sorted(set(mine) & set(theirs))
    diffs = [int(mine[g]) - int(theirs[g]) for g in games]
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / max(n - 1, 1)
    half = 1.96 * math.sqrt(var / n)
    return {"games": n, "peek_wins": sum(mine[g] for g in games),
            "real_wins": sum(theirs[g] for g in games),
            "only_peek": sum(1 for d in diffs if d > 0),
            "only_real": sum(1 for d in diffs if d < 0),
            "difference": mean, "difference_low": mean - half, "difference_high": mean + half}


def arena_wins(path: Path, seed: int, specs: list[str]) -> dict[int, bool]:
    """Entry 0's win in each game of an arena JSON (checked to be the same run)."""
    try:
        result = read_result(path)
    except ArenaError as exc:
        raise SystemExit(str(exc)) from None
    if result.specs != specs or result.seed != seed:
        raise SystemExit(f"{path}: not the run --bots {','.join(specs)} --seed {seed}")
    return {o.game: any(o.entries[w] == 0 for w in o.winners) for o in result.outcomes}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponents", default="playfirst,playfirst,playfirst",
                        help="the other entries, comma-separated (their number + 1 players)")
    parser.add_argument("--rules", default="official")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--first-game", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--compare", type=Path, help="arena JSON of the real search bot")
    parser.add_argument("--json", type=Path, help="write the result here")
    args = parser.parse_args(argv)
    specs = ["search", *args.opponents.split(",")]
    rules = arena_rules(args.rules, len(specs))
    if SearchBot(0, rules=rules).plain is None:
        raise SystemExit(f"the peeking search needs plain rules; {args.rules} is not")
    tasks = [(specs, rules.to_dict(), args.seed, i)
             for i in range(args.first_game, args.first_game + args.games)]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(play_one, tasks, chunksize=8))
    seconds = time.perf_counter() - start
    mine = {index: winner == seat for index, seat, winner in results}
    wins = sum(mine.values())
    low, high = wilson_interval(wins, len(mine))
    report: dict[str, Any] = {"bots": specs, "rules": args.rules, "seed": args.seed,
                              "first_game": args.first_game, "games": len(mine),
                              "peek_wins": wins, "peek_rate": wins / len(mine),
                              "peek_low": low, "peek_high": high, "seconds": seconds}
    print(f"peeking search, {len(mine)} games ({seconds:.0f} s): {wins} wins, "
          f"{100 * wins / len(mine):.1f} % [{100 * low:.1f}, {100 * high:.1f}]")
    if args.compare:
        cmp = paired(mine, arena_wins(args.compare, args.seed, specs))
        report["compare"] = cmp
        print(f"same {cmp['games']} games, real search: {cmp['real_wins']} wins "
              f"({100 * cmp['real_wins'] / cmp['games']:.1f} %); won only by the peeking copy "
              f"{cmp['only_peek']}, only by the real bot {cmp['only_real']}; difference "
              f"{100 * cmp['difference']:+.1f} points [{100 * cmp['difference_low']:+.1f}, "
              f"{100 * cmp['difference_high']:+.1f}]")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
