#!/usr/bin/env python3
"""Write the golden transcripts in tests/golden/ (``<preset>_seed<S>.txt``).

Each file is a seeded self-play match of PlayFirstBot seats (bot seed = game seed * 16
+ seat) with every card shown: the rule string, the seed, then for every step the
action and one transcript line per event, and last the SHA-256 digest of the event log.
``tests/test_golden.py`` regenerates them in memory and compares byte for byte, so any
change in the engine's behaviour shows up as a reviewable diff.

Usage::

    .venv/bin/python scripts/regen_golden.py          # rewrite every file
    .venv/bin/python scripts/regen_golden.py --check  # exit 1 if any file differs
"""

from __future__ import annotations

import sys
from pathlib import Path

from unokit.bots import PlayFirstBot, play
from unokit.cli import NAMES
from unokit.engine.actions import format_action
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.formats.record import events_digest
from unokit.text.transcript import EVERYONE, describe_event

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "tests" / "golden"

GOLDEN: tuple[tuple[str, str, int], ...] = (
    # (preset, rule string, seed); the file is <preset>_seed<seed>.txt
    ("official", "official,rounds=2", 1),
    ("official", "official,rounds=2", 2),
    ("official", "official,players=2,rounds=2", 3),
    ("official", "official,players=3,rounds=2", 4),
    ("official", "official,scoring=penalty,target_score=100,rounds=2", 5),
    ("pairs", "pairs,rounds=2", 6),
    ("pairs", "pairs,rounds=2", 7),
    ("classic_ru", "classic_ru,rounds=2", 8),
    ("stacking", "stacking,rounds=2", 9),
    ("seven_o", "seven_o,rounds=2", 10),
    ("jump_in", "jump_in,rounds=2", 11),
    ("party", "party,rounds=2", 12),
    ("h2o", "h2o,rounds=2", 13),
    ("attack", "attack,rounds=2", 14),
    ("online", "online,rounds=2", 15),
)
"""Every golden match."""


def golden_name(preset: str, seed: int) -> str:
    """The file name of a golden match."""
    return f"{preset}_seed{seed}.txt"


def golden_text(rules_text: str, seed: int) -> str:
    """The golden transcript of one match."""
    rules = Rules.from_string(rules_text)
    game = Game(rules, seed)
    bots = [PlayFirstBot(seed * 16 + seat) for seat in range(rules.players)]
    names = list(NAMES[: rules.players])
    lines = [
        "# unokit golden transcript; regenerate with scripts/regen_golden.py",
        f"rules: {rules.to_string()}",
        f"seed: {seed}",
        "players: " + ", ".join(f"{seat} {name} (playfirst)" for seat, name in enumerate(names)),
    ]
    number = 0
    for step in play(game, bots):
        if step.action is None:
            lines.append("setup")
        else:
            number += 1
            lines.append(f"{number} {format_action(step.action)}")
        lines.extend("  " + describe_event(event, EVERYONE, names) for event in step.events)
    lines.append(f"events_sha256: {events_digest(game.log)}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Rewrite the golden files, or with ``--check`` report those that differ."""
    check = "--check" in argv
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    stale = 0
    for preset, rules_text, seed in GOLDEN:
        path = GOLDEN_DIR / golden_name(preset, seed)
        text = golden_text(rules_text, seed)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old == text:
            continue
        stale += 1
        if check:
            print(f"differs: {path}")
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
