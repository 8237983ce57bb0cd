"""Coming back in the browser: a reload mid-turn, a connection dropped for 30 s, a second
tab, and a server killed with ``kill -9`` and started again."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from browser_flow import by_id, enter_room, named_context, start_at_my_turn
from browser_server import ServerProcess
from browser_table import (
    Player,
    hand_cards,
    my_seat,
    play_until,
    sent,
    signature,
    state,
    wait_js,
    wait_settled,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

pytestmark = pytest.mark.xdist_group("browser")

RULES = "official,players=2,rounds=1"

SAME_HAND_JS = r"""
(want) => {
  const hand = document.querySelector('[data-testid="hand"]');
  if (!hand) return false;
  const cards = [...hand.querySelectorAll('[data-testid="card"]')].map(c => c.dataset.card);
  return JSON.stringify(cards.sort()) === JSON.stringify([...want].sort());
}
"""


def _cards(st: dict[str, Any]) -> list[str]:
    return sorted(hand_cards(st).elements())


def _at_my_turn(server: ServerProcess, contexts: Any, name: str, *, turn_timer: int = 0,
                clock: bool = False) -> tuple[Any, str, dict[str, Any]]:
    """A page in a new two-seat room against a bot, at its own turn."""
    page = named_context(contexts, name).new_page()
    if clock:
        page.clock.install()
    code = start_at_my_turn(page, server, RULES, bots=["normal"], turn_timer=turn_timer)
    if turn_timer:  # the timer comes in a message of its own, after the turn's events
        expect(by_id(page, "turn-timer")).to_have_attribute("data-deadline", _digits())
    return page, code, state(page)


def _move_taken(page: Any, st: dict[str, Any]) -> None:
    """Play or draw once from ``st`` (the page's turn); the server takes it: the hand
    changes and no error shows. A wild's colour is picked too (the card goes only then)."""
    player = Player(page)
    mark, count = signature(page), sent(page)
    done = player.act(st)
    wait_settled(page, mark, count, what=done)
    if state(page)["picker"]:
        done = f"{done}, {player.act(state(page))}"
    wait_js(page, "(n) => document.querySelectorAll("
            "'[data-testid=\"hand\"] [data-testid=\"card\"]').length !== n",
            len(st["hand"]), what=f"the hand to change after {done}")
    assert state(page)["toast"] in (None, ""), state(page)["toast"]


def _one_human(server: ServerProcess, code: str) -> None:
    seats = server.get(f"/api/rooms/{code}")["seats"]
    assert [s["kind"] for s in seats] == ["human", "bot"], seats
    assert not seats[0].get("away"), seats


def test_a_reload_mid_turn_returns_seat_hand_and_timer(server: ServerProcess,
                                                       contexts: Any) -> None:
    page, code, before = _at_my_turn(server, contexts, "Rae", turn_timer=60)
    assert before["deadline"] is not None, "no turn timer shown on a turn with a 60 s timer"
    assert before["timer_seat"] == my_seat(before)
    # mid-turn: let 2.5 s of the turn's 60 run (a fresh timer would then end later)
    page.wait_for_function("(d) => Date.now() >= d - 60000 + 2500", arg=before["deadline"])
    page.reload()
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "table")
    expect(by_id(page, "your-turn")).to_be_visible()
    expect(by_id(page, "turn-timer")).to_have_attribute("data-deadline", _digits())
    wait_js(page, SAME_HAND_JS, _cards(before), what=f"the hand {_cards(before)}")
    after = state(page)
    assert my_seat(after) == my_seat(before)
    assert _cards(after) == _cards(before)
    assert after["timer_seat"] == before["timer_seat"]
    # the same deadline (allowing for the round trips), not a fresh 60 s from the reload
    now = page.evaluate("() => Date.now()")
    print(f"deadline before {before['deadline']} after {after['deadline']}, "
          f"left after the reload {after['deadline'] - now} ms")
    assert abs(after["deadline"] - before["deadline"]) <= 1000, (before["deadline"],
                                                                 after["deadline"])
    assert after["deadline"] - now <= 60_000 - 1000, "the timer started again on the reload"
    _one_human(server, code)


def test_a_connection_dropped_for_30_seconds_resumes(server: ServerProcess,
                                                     contexts: Any) -> None:
    page, code, before = _at_my_turn(server, contexts, "Oli", clock=True)
    status = by_id(page, "connection-status")
    expect(status).to_have_attribute("data-state", "online")
    page.context.set_offline(True)
    page.clock.fast_forward("00:30")
    expect(status).to_have_attribute("data-state", _not_online())
    expect(status).to_have_text(_some_text())
    page.context.set_offline(False)
    # the client's backoff timers run on the page's clock, but an attempt made while
    # offline fails in real time (and only then sets its timer): move the clock on, and
    # give each step a real second to come online, until it is back (a minute at most)
    online = "() => document.querySelector('[data-testid=\"connection-status\"]')" \
             ".dataset.state === 'online'"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        page.clock.run_for("00:05")
        try:
            page.wait_for_function(online, timeout=1000)
            break
        except PlaywrightTimeoutError:
            continue
    expect(status).to_have_attribute("data-state", "online")
    wait_js(page, SAME_HAND_JS, _cards(before), what=f"the hand {_cards(before)}")
    after = state(page)
    assert after["my_turn"] and _cards(after) == _cards(before)
    _one_human(server, code)
    # and the game goes on from there
    _move_taken(page, after)


def test_a_second_tab_takes_the_seat_over(server: ServerProcess, contexts: Any) -> None:
    first, code, before = _at_my_turn(server, contexts, "Tia")
    second = first.context.new_page()
    enter_room(second, server, code)
    expect(by_id(second, "screen")).to_have_attribute("data-screen", "table")
    wait_js(second, SAME_HAND_JS, _cards(before), what=f"the hand {_cards(before)}")
    taken = state(second)
    assert my_seat(taken) == my_seat(before)
    assert taken["my_turn"], "the second tab does not see that the seat is to play"
    _one_human(server, code)
    # the second tab plays; the first follows along with the seat's new hand
    mark, count = signature(second), sent(second)
    done = Player(second).act(taken)
    wait_settled(second, mark, count, what=done)
    play_until([Player(second)], lambda states: bool(
        states[0]["screen"] != "table" or states[0]["my_turn"]))
    now = state(second)
    if now["screen"] == "table":
        wait_js(first, SAME_HAND_JS, _cards(now), what=f"the hand {_cards(now)}")
        assert state(first)["top"] == now["top"]
    else:
        expect(by_id(first, "screen")).to_have_attribute("data-screen", now["screen"])


def test_the_game_resumes_after_kill_9(server: ServerProcess, contexts: Any) -> None:
    page, code, before = _at_my_turn(server, contexts, "Kai")
    page.evaluate("() => { window.__not_reloaded = true; }")
    status = by_id(page, "connection-status")
    server.kill9()
    expect(status).to_have_attribute("data-state", _not_online())
    server.start()  # the same port and data directory
    assert server.get("/readyz")["restored"] >= 1
    expect(status).to_have_attribute("data-state", "online", timeout=60_000)
    wait_js(page, SAME_HAND_JS, _cards(before), what=f"the hand {_cards(before)}")
    assert page.evaluate("() => window.__not_reloaded === true"), "the page was reloaded"
    after = state(page)
    assert after["my_turn"] and my_seat(after) == my_seat(before)
    _one_human(server, code)
    # the next move is taken by the restarted server
    _move_taken(page, after)


def _not_online() -> re.Pattern[str]:
    return re.compile("^(reconnecting|offline)$")


def _digits() -> re.Pattern[str]:
    return re.compile(r"^\d+$")


def _some_text() -> re.Pattern[str]:
    return re.compile(r"\S")
