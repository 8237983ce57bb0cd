"""How long the search bots take to decide, against ``playfirst`` under the official rules.

What it measures
    For each bot and number of players, the arena's games (``unokit arena --bots
    BOT,playfirst,... --rules official --seed S``: seats rotating, one round a game) and
    every ``choose`` call of the bot under test timed as the arena times it; the
    *decisions* are the calls on which it had to act. It prints the median and the 90th
    percentile of the decision times (to 1 %, from the arena's histogram), the number of
    decisions, the games won, and whether the median is within the aim (``--aim``,
    100 ms). The decisions include those the search settles at once (a forced draw, a
    single card), as the arena's figures do.

    The times depend on the machine and its load: run it on an idle machine, or say what
    else ran (the project's figures were measured on two cores). ``--paired REF`` also
    times the bot against another (``search``) on the very same positions, one after the
    other (games played by ``REF``), and prints the ratio of their medians: a load that
    slows both alike leaves the ratio as it is, so the ratio times ``REF``'s median on an
    idle machine estimates the bot's there.

How to run
    .venv/bin/python benchmarks/bot_decision_time.py
    .venv/bin/python benchmarks/bot_decision_time.py --bots expert,search --players 2 4 \\
        --games 100 --json decision_time.json
    .venv/bin/python benchmarks/bot_decision_time.py --bots expert --paired search --games 6

Exit status 1 if a median is over the aim.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from unokit import Game, Rules
from unokit.arena import run_arena
from unokit.bots import Bot, make_bot, must_act, play
from unokit.engine.observation import Observation


def measure(bot: str, players: int, games: int, seed: int) -> dict[str, object]:
    """The decision times of ``bot`` in ``games`` arena games against ``playfirst`` (after
    one game not counted, in which the compiled playouts are compiled or loaded)."""
    run_arena([bot] + ["playfirst"] * (players - 1), "official", games=1, seed=seed + 10**6)
    result = run_arena([bot] + ["playfirst"] * (players - 1), "official", games=games,
                       seed=seed)
    timing = result.timing[0]
    wins = sum(1 for outcome in result.outcomes if 0 in (outcome.entries[w]
                                                         for w in outcome.winners))
    return {"bot": bot, "players": players, "games": games, "wins": wins,
            "decisions": timing.decisions, "median_ms": timing.quantile(0.5) * 1000,
            "p90_ms": timing.quantile(0.9) * 1000, "max_ms": timing.max_s * 1000}


class TwoTimed:
    """A seat played by ``ref``, ``other`` asked the same right after; both timed."""

    name = "two-timed"

    def __init__(self, ref: Bot, other: Bot, ref_times: list[float],
                 other_times: list[float]) -> None:
        self.ref, self.other = ref, other
        self.ref_times, self.other_times = ref_times, other_times

    def choose(self, obs: Observation, legal: Sequence[int]) -> int | None:
        start = time.perf_counter()
        action = self.ref.choose(obs, legal)
        middle = time.perf_counter()
        self.other.choose(obs, legal)
        if must_act(obs):
            self.ref_times.append(middle - start)
            self.other_times.append(time.perf_counter() - middle)
        return action


def paired(bot: str, reference: str, players: int, games: int, seed: int
           ) -> tuple[float, float, int]:
    """The medians (seconds) of ``bot`` and ``reference`` deciding the same positions (the
    games played by ``reference`` against ``playfirst``), and the number of decisions."""
    rules = Rules.preset("official", players=players, rounds=1)
    mine: list[float] = []
    theirs: list[float] = []
    for index in range(games):
        seat = TwoTimed(make_bot(reference, seed + index, rules=rules),
                        make_bot(bot, seed + index, rules=rules), theirs, mine)
        seats: list[Bot] = [seat, *(make_bot("playfirst", seed + s) for s in range(1, players))]
        for _ in play(Game(rules, seed + index), seats):
            pass
    return statistics.median(mine), statistics.median(theirs), len(mine)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="expert", help="bot specs, comma-separated")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--games", type=int, default=40, help="games per bot and size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--aim", type=float, default=100.0, help="median aim, ms")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--paired", metavar="REF",
                        help="only time each bot against REF on the same positions")
    args = parser.parse_args(argv)
    if args.paired:
        for bot in args.bots.split(","):
            for players in args.players:
                run_arena([bot.strip(), "playfirst"], "official", games=1, seed=10**6)
                ours, ref, count = paired(bot.strip(), args.paired, players, args.games,
                                          args.seed)
                print(f"{bot} / {args.paired}, {players} players, {count} decisions: "
                      f"medians {ours * 1000:.1f} / {ref * 1000:.1f} ms, ratio "
                      f"{ours / ref:.2f}", flush=True)
        return 0
    rows = []
    print(f"{'bot':<12} {'players':>7} {'games':>6} {'won':>5} {'decisions':>9} "
          f"{'median ms':>10} {'p90 ms':>8} {'max ms':>8}")
    for bot in args.bots.split(","):
        for players in args.players:
            row = measure(bot.strip(), players, args.games, args.seed)
            rows.append(row)
            print(f"{row['bot']:<12} {players:>7} {row['games']:>6} {row['wins']:>5} "
                  f"{row['decisions']:>9} {row['median_ms']:>10.1f} {row['p90_ms']:>8.1f} "
                  f"{row['max_ms']:>8.1f}", flush=True)
    over = [row for row in rows if float(str(row["median_ms"])) > args.aim]
    print(f"aim: a median of at most {args.aim:.0f} ms: "
          + ("met" if not over else f"missed by {len(over)} of {len(rows)}"))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
