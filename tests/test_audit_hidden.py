"""The hidden-information audit (``benchmarks/audit_hidden.py``): 100 seeded matches under
official, party, attack, h2o, seven_o and pairs, every message each player and spectator
received checked against the true game; and the audit finds a leak where there is one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from unokit.engine import game as game_module
from unokit.engine.cards import CODES
from unokit.server import room as room_module
from unokit.server import views as server_views

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import audit_hidden  # noqa: E402

sys.path.remove(str(ROOT / "benchmarks"))

pytestmark = pytest.mark.asyncio


async def test_no_message_holds_a_card_outside_its_viewers_view() -> None:
    # hands of four cards keep the 100 matches short (benchmarks/audit_hidden.py runs
    # the full deal)
    tally = await audit_hidden.run_audit(100, seed=13, hand_size=4)
    report = tally.report()
    assert report["violations"] == 0, report["first_violations"]
    assert report["failures"] == 0, report["first_failures"]
    assert report["server_errors"] == 0, report["first_server_errors"]
    assert report["matches"] == 100
    assert set(report["presets"]) == set(audit_hidden.PRESETS)
    # every kind of message was seen and checked, by players and spectators alike
    for key in ("messages", "events", "snapshots", "card_codes_scanned"):
        assert report[key].get("player", 0) > 0 and report[key].get("spectator", 0) > 0
    for code in ("illegal", "bad_message", "too_large", "not_seated", "mid_round"):
        assert report["error_codes"].get(code, 0) > 0, report["error_codes"]
    assert report["reconnects"] > 0


async def test_the_audit_counts_what_the_server_logs_as_an_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a room that fails once is rebuilt and its match still ends: only the server's log
    # says it happened, and the audit must not pass over it
    original = room_module.Room._schedule
    failed: list[str] = []

    def fails_once(self: Any) -> None:
        if not failed and self.game is not None and len(self.game.history) > 5:
            failed.append(self.code)
            raise RuntimeError("schedule broke")
        original(self)

    monkeypatch.setattr(room_module.Room, "_schedule", fails_once)
    tally = await audit_hidden.run_audit(1, seed=5)
    assert failed
    assert tally.failures == [] and tally.matches == 1
    assert len(tally.server_errors) == 1, tally.server_errors
    [error] = tally.server_errors
    assert "room failed to work out what is due" in error and failed[0] in error
    assert "RuntimeError: schedule broke" in error


def _unredacted(event: Any, viewer: int | None) -> Any:
    return event


async def test_the_audit_finds_events_that_are_not_redacted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_views, "redact", _unredacted)
    tally = await audit_hidden.run_audit(2, seed=5)
    assert any("expected" in v for v in tally.violations)
    assert any("not in this viewer's view" in v for v in tally.violations)


async def test_the_card_scan_does_not_rely_on_the_engines_redaction(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # with the redaction broken in the server and in the reference alike, the events
    # match, and only the scan of every card code can find the leak
    monkeypatch.setattr(server_views, "redact", _unredacted)
    monkeypatch.setattr(audit_hidden, "redact", _unredacted)
    tally = await audit_hidden.run_audit(2, seed=5)
    assert not any("expected" in v for v in tally.violations)
    assert any("not in this viewer's view" in v for v in tally.violations)


async def test_the_audit_finds_a_card_in_an_error_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = game_module.why_illegal

    def leaky(game: Any, action: int) -> str:
        others = [CODES[c] for hand in game.hands for c in hand]
        return f"{original(game, action)} (cards in play: {' '.join(others)})"

    monkeypatch.setattr(game_module, "why_illegal", leaky)
    tally = await audit_hidden.run_audit(2, seed=5)
    assert any("(error)" in v and "cards in play" in v for v in tally.violations)


async def test_a_spectator_sees_no_hand_when_a_round_ends() -> None:
    # round_ended lays every hand open for the seats at the table, not for spectators:
    # in a match of two rounds, nothing of a hand reaches a spectator before the end
    assert "rounds=2" in audit_hidden.match_rules(7)
    tally = await audit_hidden.run_audit(1, seed=13, start=7, strict_spectators=True)
    assert tally.failures == []
    assert tally.spectator_round_end_hands == 0
    assert tally.violations == []
