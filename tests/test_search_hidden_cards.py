"""The peeking diagnostic of ``benchmarks/search_hidden_cards.py``: it deals the real
hands, plays the arena's games, and compares with an arena run game by game."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from unokit import Game
from unokit.arena import arena_rules, run_arena
from unokit.bots import search as search_module

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import search_hidden_cards as peek  # noqa: E402

sys.path.remove(str(ROOT / "benchmarks"))


def test_the_peeking_search_deals_the_real_hands(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = arena_rules("official", 3)
    seen: list[Any] = []

    def capture(plain: Any, spot: Any, firsts: Any, iterations: int, seed: int,
                **options: Any) -> tuple[list[float], list[float]]:
        seen.append(spot)
        return [float(len(firsts) - i) for i in range(len(firsts))], [0.0] * len(firsts)

    monkeypatch.setattr(search_module, "search_stats", capture)
    for seed in range(40):
        game = Game(rules, seed)
        seat = game.current_player
        assert seat is not None
        bot = peek.PeekingSearch(1, rules=rules)
        bot.game = game
        bot.choose(game.observation(seat), game.legal_actions(seat))
        if seen:
            break
    assert seen, "no position in 40 deals had two candidates"
    spot = seen[0]
    assert spot.known == [list(hand) for hand in game.hands]
    assert spot.pool == sorted(game.draw_pile)
    assert spot.seat == seat and spot.sizes == [len(hand) for hand in game.hands]


def test_paired_comparison_on_known_outcomes() -> None:
    mine = {0: True, 1: True, 2: False, 3: False, 4: True}
    theirs = {0: True, 1: False, 2: True, 3: False, 5: True}
    result = peek.paired(mine, theirs)
    assert result["games"] == 4 and result["peek_wins"] == 2 and result["real_wins"] == 2
    assert result["only_peek"] == 1 and result["only_real"] == 1
    assert result["difference"] == 0.0
    assert result["difference_low"] < 0 < result["difference_high"]


def test_it_replays_the_arena_games_and_compares(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    specs = ["search", "playfirst", "playfirst"]
    arena = run_arena(specs, "official", games=4, seed=5)
    path = tmp_path / "arena.json"
    arena.write_json(path)
    wins = peek.arena_wins(path, 5, specs)
    assert sorted(wins) == [0, 1, 2, 3]
    assert sum(wins.values()) == arena.bots()[0].rate.wins
    out = tmp_path / "peek.json"
    assert peek.main(["--opponents", "playfirst,playfirst", "--games", "4", "--seed", "5",
                      "--compare", str(path), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["games"] == 4 and report["compare"]["games"] == 4
    assert "peeking search, 4 games" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="not the run"):
        peek.arena_wins(path, 6, specs)
