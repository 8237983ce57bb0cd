"""Win rate of a unokit bot playing inside RLCard 1.2.0's UNO environment against RLCard's
``uno-rule-v1`` rule agent.

What it measures
    ``--games`` 2-player games (default 10,000) of ``rlcard.make("uno")``. One seat is our
    bot (``--bot``, default ``search``, our strongest), the other
    RLCard's ``UNORuleAgentV1`` (the agent of ``rlcard.models.load("uno-rule-v1")``). The
    environment is RLCard's, with RLCard's rules, deal and judging; a game is won by the
    first player to empty the hand (RLCard's payoff +1). Our bot sits at seat ``i mod 2`` in
    game ``i`` (RLCard's player 0 moves first unless the start card is a Skip or Reverse),
    so it starts about half the games. Game ``i`` seeds RLCard's game with ``seed + i``
    (``env.seed``), numpy's global generator (which the rule agent draws from) with the
    same number, and our bot with ``unokit.arena.bot_seed(seed, i, seat)``. The result is
    our bot's win rate with a Wilson 95 % interval, by seat too.

How our bot plays there
    The games run in a worker process inside RLCard's virtual environment (this file with
    ``--worker``; ``.bench/rlcard-1.2.0``, made by ``engine_vs_rlcard.ensure_rlcard_venv``),
    which puts unokit's ``src/`` on ``sys.path`` (unokit's engine and bots need no third-party
    package). On each of our bot's turns the worker translates what a player sees in RLCard
    into a unokit position and asks the bot:

    - Cards: ``r``/``y``/``g``/``b`` are R/Y/G/B; ``0``-``9``, ``skip``, ``reverse``,
      ``draw_2`` the same ranks; ``wild`` is ``W`` and ``wild_draw_4`` is ``W+4`` whatever
      colour letter RLCard writes on them. Both decks are the same 108 cards.
    - The position: ``Game.from_setup`` with our hand (the raw state's ``hand``), the
      discard pile (RLCard's ``played_cards``, oldest first; the target card on top), the
      current colour, the direction and our seat to play. RLCard's raw ``target`` string of a
      wild keeps the colour letter the card was made with, not the colour chosen, so the
      colour is read from the round's target card (public information). The cards we cannot
      see (the full deck less our hand and the discard pile) are dealt at random into an
      opponent hand of the size ``num_cards`` gives and a draw pile of the rest: the bot sees
      only its observation (its hand, hand sizes, pile sizes, the discard pile), so this
      shows it exactly what an RLCard player knows. (After RLCard reshuffles its played
      cards into the deck, the target card is in the deck as well; we keep it only on the
      discard pile, so our draw pile is then one card short of RLCard's.)
    - The rule set the position is played under is the unokit rule set closest to RLCard's:
      ``official`` with 2 players, one round, ``two_player_reverse_skips = false`` (RLCard's
      Reverse just passes the turn with 2 players), ``draw_when_playable = false`` (RLCard
      offers ``draw`` only without a playable card), ``wild_draw_four = "strict"`` (no
      challenge; RLCard is stricter still: W+4 only when nothing else is playable),
      ``play_drawn = "must"`` (RLCard plays a drawn card of the target's colour, and a drawn
      wild, at once; it keeps a drawn card that matches by rank only) and
      ``uno_penalty = 0`` (RLCard has no UNO calls).
    - Differences the bot never sees: RLCard resolves a draw itself (the drawn card is
      played or kept and the turn passes) and applies Draw Two and W+4 without any answer,
      so our bot is asked only on its turns, in the ``play`` phase. A start Draw Two makes
      RLCard's player 0 draw two and still move first.
    - The bot's action goes back as the RLCard action string: ``"<colour>-<trait>"`` for a
      card (a wild with the colour named), ``"draw"`` for a draw; an UNO flag is dropped.
      When that string is not among RLCard's legal actions (W+4 while another card is
      playable, or anything without a counterpart), the bot is asked again with only those
      of its legal actions that have an RLCard counterpart, so it picks the closest legal
      action itself; if it still gives none, RLCard's first legal action is played. Each such
      decision is counted (``fallbacks``, by kind) and reported.

How to run
    .venv/bin/python benchmarks/bot_vs_rlcard.py                      # 10,000 games
    .venv/bin/python benchmarks/bot_vs_rlcard.py --bot playfirst --games 2000 --jobs 2
    .venv/bin/python benchmarks/bot_vs_rlcard.py --games 1000 --json result.json

The first run needs the PyPI registry to build RLCard's venv (see engine_vs_rlcard.py).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import itertools
import json
import math
import os
import platform
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
SRC = REPO_ROOT / "src"
THIS = Path(__file__).resolve()
# A game that runs this long is a bug (in an engine, a bot or here), not a slow game.
MAX_STEPS_PER_GAME = 20_000
RULES = {
    "preset": "official",
    "players": 2,
    "rounds": 1,
    "two_player_reverse_skips": False,
    "draw_when_playable": False,
    "wild_draw_four": "strict",
    "play_drawn": "must",
    "uno_penalty": 0,
}
"""The unokit rule set closest to RLCard's UNO (see the module docstring)."""


# --- statistics (also used by the worker, so only the standard library) ---------------------


def wilson_interval(wins: int, games: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score 95 % interval of ``wins / games``."""
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    return (0.0 if wins == 0 else centre - half, 1.0 if wins == games else centre + half)


# --- worker: runs inside RLCard's venv -------------------------------------------------------

COLORS = {"r": 0, "y": 1, "g": 2, "b": 3}
"""RLCard colour letter -> unokit colour (R, Y, G, B = 0-3)."""
LETTERS = "rygb"
TRAITS = {str(n): n for n in range(10)} | {"skip": 10, "reverse": 11, "draw_2": 12}
"""RLCard trait of a coloured card -> unokit rank."""
NAMES = {rank: trait for trait, rank in TRAITS.items()}


class Translator:
    """RLCard's UNO state to a unokit position, and unokit actions to RLCard action strings."""

    def __init__(self) -> None:
        from unokit.engine import actions
        from unokit.engine.cards import WILD, WILD_DRAW_FOUR
        from unokit.engine.game import Game
        from unokit.engine.rules import Rules

        self.A = actions
        self.Game = Game
        self.WILD, self.WILD_DRAW_FOUR = WILD, WILD_DRAW_FOUR
        self.rules = Rules.from_dict(RULES)
        self.deck = Counter(self.rules.deck_cards())

    def kind(self, card: str) -> int:
        """A unokit card kind from an RLCard card string (``"r-7"``, ``"g-wild"``)."""
        color, _, trait = card.partition("-")
        if trait == "wild":
            return self.WILD
        if trait == "wild_draw_4":
            return self.WILD_DRAW_FOUR
        return COLORS[color] * 16 + TRAITS[trait]

    def to_rlcard(self, action: int) -> str | None:
        """The RLCard action string of a unokit action (``None`` if it has none)."""
        kind = self.A.action_type(action)
        if kind == self.A.DRAW:
            return "draw"
        if kind != self.A.PLAY or self.A.action_extra(action):
            return None
        card = self.A.action_card(action)
        if card in (self.WILD, self.WILD_DRAW_FOUR):
            color = self.A.action_color(action)
            if not 0 <= color <= 3:
                return None
            trait = "wild" if card == self.WILD else "wild_draw_4"
            return f"{LETTERS[color]}-{trait}"
        color, rank = divmod(card, 16)
        if color > 3 or rank not in NAMES:
            return None
        return f"{LETTERS[color]}-{NAMES[rank]}"

    def position(self, env: Any, seat: int, raw: dict[str, Any], rng: random.Random) -> Any:
        """A unokit game at our seat's turn, built from what that seat sees."""
        round_ = env.game.round
        target = round_.target
        played = list(round_.played_cards)
        discard = [self.kind(card.str) for card in played]
        if not played or played[-1] is not target:
            discard.append(self.kind(target.str))
        hand = [self.kind(card) for card in raw["hand"]]
        unseen = self.deck - Counter(hand) - Counter(discard)
        if Counter(hand) + Counter(discard) + unseen != self.deck:
            raise RuntimeError(f"RLCard state is not a subset of the deck: {raw}")
        pool = sorted(unseen.elements())
        rng.shuffle(pool)
        other = 1 - seat
        size = raw["num_cards"][other]
        if size > len(pool):
            raise RuntimeError(f"opponent holds {size} cards but {len(pool)} are unseen")
        hands = [hand, pool[:size]] if seat == 0 else [pool[:size], hand]
        return self.Game.from_setup(
            self.rules, hands=hands, draw_pile=pool[size:], discard=discard, dealer=other,
            current_player=seat, direction=round_.direction, color=COLORS[target.color])

    def decide(self, bot: Any, env: Any, seat: int, state: dict[str, Any], rng: random.Random,
               fallbacks: Counter[str]) -> str:
        """Our bot's RLCard action on its turn."""
        raw = state["raw_obs"]
        legal_rl = list(state["raw_legal_actions"])
        game = self.position(env, seat, raw, rng)
        observation = game.observation(seat)
        legal = game.legal_actions(seat)
        action = bot.choose(observation, list(legal))
        text = None if action is None else self.to_rlcard(action)
        if text in legal_rl:
            return str(text)
        fallbacks[self.mismatch(action, text)] += 1
        compatible = [a for a in legal if self.to_rlcard(a) in legal_rl]
        if compatible:
            again = bot.choose(observation, compatible)
            if again in compatible:
                return str(self.to_rlcard(again))
        fallbacks["no_compatible_choice"] += 1
        return str(legal_rl[0])

    def mismatch(self, action: int | None, text: str | None) -> str:
        """What kind of action had no legal RLCard counterpart."""
        if action is None:
            return "no_action"
        if text is None:
            return f"no_counterpart:{self.A.format_action(action).split(':', 1)[1]}"
        if text == "draw":
            return "draw_not_legal"
        if text.endswith("wild_draw_4"):
            return "wild_draw_4_not_legal"
        return "play_not_legal"


def run_worker(start: int, games: int, seed: int, bot_name: str, src: str) -> dict[str, Any]:
    """Play games ``start .. start + games - 1``; return the counts as a dict."""
    sys.path.insert(0, src)
    import numpy as np
    import rlcard
    from rlcard.models.uno_rule_models import UNORuleAgentV1

    from unokit.arena import bot_seed, create_bot

    translator = Translator()
    env = rlcard.make("uno", config={"seed": seed % 2**32})
    rule_agent = UNORuleAgentV1()
    by_seat = {0: [0, 0], 1: [0, 0]}  # seat -> [games, wins]
    fallbacks: Counter[str] = Counter()
    decisions = unfinished = 0
    begin = time.perf_counter()
    for index in range(start, start + games):
        game_seed = (seed + index) % 2**32
        ours = index % 2
        env.seed(game_seed)
        np.random.seed(game_seed)
        rng = random.Random(game_seed)
        bot = create_bot(bot_name, bot_seed(seed, index, ours), translator.rules)
        state, player = env.reset()
        steps = 0
        while not env.is_over():
            if steps >= MAX_STEPS_PER_GAME:
                break
            if player == ours:
                action = translator.decide(bot, env, ours, state, rng, fallbacks)
                decisions += 1
            else:
                action = rule_agent.eval_step(state)[0]
            state, player = env.step(action, raw_action=True)
            steps += 1
        if not env.is_over():
            unfinished += 1
            continue
        by_seat[ours][0] += 1
        by_seat[ours][1] += int(env.get_payoffs()[ours] > 0)
    return {
        "start": start,
        "games": games,
        "wins": sum(w for _, w in by_seat.values()),
        "by_seat": {str(s): v for s, v in by_seat.items()},
        "decisions": decisions,
        "fallbacks": dict(fallbacks),
        "unfinished": unfinished,
        "seconds": time.perf_counter() - begin,
        "rlcard_version": rlcard.__version__,
        "numpy_version": np.__version__,
        "numba_version": numba_version(),
        "python": platform.python_version(),
    }


def numba_version() -> str | None:
    """numba's version in this interpreter (``None``: not installed, so the search bot's
    playouts run in plain Python)."""
    try:
        return importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:
        return None


# --- harness: runs in the project's venv -----------------------------------------------------


def default_bot() -> str:
    sys.path.insert(0, str(SRC))
    from unokit.bots import BOTS

    for name in ("search", "hard"):
        if name in BOTS:
            return name
    return "playfirst"


def ensure_numba(python: Path) -> str | None:
    """Install into RLCard's venv the numba this interpreter has (the same version), so
    that the search bot's playouts run compiled there as they do in unokit's own venv;
    return that version (``None`` if this interpreter has no numba either)."""
    wanted = numba_version()
    if wanted is None:
        return None
    probe = [str(python), "-c", "import importlib.metadata as m; print(m.version('numba'))"]
    found = subprocess.run(probe, capture_output=True, text=True, check=False)
    if found.returncode == 0 and found.stdout.strip() == wanted:
        return wanted
    print(f"installing numba {wanted} into RLCard's venv (once) ...", file=sys.stderr)
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "--quiet", "install",
           f"numba=={wanted}"]
    if subprocess.run(pip, check=False).returncode != 0:
        sys.exit(f"error: could not install numba {wanted} into RLCard's venv")
    return wanted


def check_bot(name: str) -> None:
    """Exit with a message unless the registry makes this bot."""
    sys.path.insert(0, str(SRC))
    from unokit.arena import ArenaError, arena_rules, create_bot

    try:
        create_bot(name, 0, arena_rules(RULES, 2))
    except ArenaError as exc:
        sys.exit(f"error: --bot: {exc}")


def run_jobs(python: Path, games: int, seed: int, bot: str, jobs: int) -> list[dict[str, Any]]:
    """Split the games into ``jobs`` ranges, one worker process each."""
    jobs = max(1, min(jobs, games))
    bounds = [games * j // jobs for j in range(jobs + 1)]
    procs = []
    for a, b in itertools.pairwise(bounds):
        cmd = [str(python), str(THIS), "--worker", "--start", str(a), "--games", str(b - a),
               "--seed", str(seed), "--bot", bot]
        procs.append((cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            text=True)))
    results = []
    for cmd, proc in procs:
        out, err = proc.communicate()
        if proc.returncode != 0:
            sys.stderr.write(err)
            sys.exit(f"error: worker failed (exit {proc.returncode}): {' '.join(cmd)}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def merge(results: list[dict[str, Any]]) -> dict[str, Any]:
    by_seat = {"0": [0, 0], "1": [0, 0]}
    fallbacks: Counter[str] = Counter()
    for r in results:
        for seat, (g, w) in r["by_seat"].items():
            by_seat[seat][0] += g
            by_seat[seat][1] += w
        fallbacks.update(r["fallbacks"])
    first = results[0]
    return {
        "games": sum(r["games"] for r in results),
        "wins": sum(r["wins"] for r in results),
        "by_seat": by_seat,
        "decisions": sum(r["decisions"] for r in results),
        "fallbacks": dict(fallbacks),
        "unfinished": sum(r["unfinished"] for r in results),
        "worker_seconds": [r["seconds"] for r in results],
        **{k: first.get(k) for k in ("rlcard_version", "numpy_version", "numba_version",
                                     "python")},
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Win rate of a unokit bot against RLCard's uno-rule-v1 agent in RLCard's "
        "2-player UNO environment.")
    parser.add_argument("--games", type=int, default=10_000, help="games to play (10000)")
    parser.add_argument("--seed", type=int, default=0, help="base seed (0)")
    parser.add_argument("--bot", help="our bot (default: search, the strongest)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results here")
    parser.add_argument("--venv", type=Path, help="RLCard's venv (.bench/rlcard-1.2.0)")
    parser.add_argument("--venv-python", default=sys.executable,
                        help="interpreter that creates RLCard's venv (default: this one)")
    parser.add_argument("--recreate-venv", action="store_true", help="rebuild RLCard's venv")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.seed < 0:
        parser.error("--seed must be non-negative")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        result = run_worker(args.start, args.games, args.seed, args.bot, str(SRC))
        sys.stdout.write(json.dumps(result) + "\n")
        return 0

    sys.path.insert(0, str(THIS.parent))
    from engine_vs_rlcard import DEFAULT_VENV, RLCARD_VERSION, ensure_rlcard_venv

    bot = args.bot or default_bot()
    check_bot(bot)
    python = ensure_rlcard_venv(args.venv or DEFAULT_VENV, args.venv_python, args.recreate_venv)
    if bot.split(":")[0].strip().lower() == "search":
        ensure_numba(python)
    begin = time.perf_counter()
    result = merge(run_jobs(python, args.games, args.seed, bot, args.jobs))
    seconds = time.perf_counter() - begin
    games, wins = result["games"], result["wins"]
    decided = games - result["unfinished"]  # finished games, each with one winner
    low, high = wilson_interval(wins, decided)
    rate = wins / decided if decided else math.nan
    print(f"{bot} (unokit) vs uno-rule-v1 in RLCard {RLCARD_VERSION}'s UNO environment, "
          f"2 players, seed {args.seed}")
    print(f"games {games:,}, wins {wins:,}, win rate {100 * rate:.1f}% "
          f"[{100 * low:.1f}, {100 * high:.1f}] (Wilson 95%)")
    for seat, (g, w) in result["by_seat"].items():
        s_low, s_high = wilson_interval(w, g)
        print(f"  as RLCard player {seat}: {w:,}/{g:,} = {100 * w / max(g, 1):.1f}% "
              f"[{100 * s_low:.1f}, {100 * s_high:.1f}]")
    fallbacks = result["fallbacks"]
    shown = ", ".join(f"{k} {v}" for k, v in sorted(fallbacks.items())) or "none"
    total = sum(v for k, v in fallbacks.items() if k != "no_compatible_choice")
    print(f"decisions {result['decisions']:,}; without an RLCard counterpart {total:,} "
          f"({100 * total / max(result['decisions'], 1):.2f}%): {shown}")
    if result["unfinished"]:
        print(f"unfinished games (no winner, left out): {result['unfinished']}")
    print(f"seconds {seconds:.1f} ({args.jobs} job{'s' if args.jobs != 1 else ''}; "
          f"RLCard Python {result['python']}, numpy {result['numpy_version']}, "
          f"numba {result['numba_version'] or 'none (plain Python playouts)'}; "
          f"{platform.machine()}, {os.cpu_count()} CPUs)")
    if args.json is not None:
        report = {
            "benchmark": "bot_vs_rlcard", "bot": bot, "opponent": "uno-rule-v1",
            "seed": args.seed, "jobs": args.jobs, "rules": RULES, "win_rate": rate,
            "ci95": [low, high], "seconds": seconds, **result,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
