"""Coming back in the browser: a reload mid-turn, a connection dropped for 30 s, a second
tab, a server killed with ``kill -9`` and started again (the page back within a second
of the server being ready, on the page's own clock), a move made offline (shown as
waiting, then taken), and a gap in ``seq`` (a lost events message) repaired by a
resume."""

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
    my_turn,
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


NET_JS = r"""
(() => {
  // the page's connections: how many were opened and closed, the hellos sent, and (when
  // a test arms `drop` with the page's seat) one events message of its own move lost;
  // the ids of the messages sent that wait for an answer, and of the answers handled
  const Base = window.WebSocket;
  const net = window.__unokit_net = {opened: 0, closed: 0, hellos: [], dropped: [], drop: null,
                                     asked: [], answered: []};
  class Watched extends Base {
    constructor(...args) {
      super(...args);
      net.opened += 1;
      this.addEventListener('close', () => { net.closed += 1; });
    }
    send(data) {
      try {
        const msg = JSON.parse(data);
        if (msg.type === 'hello') net.hellos.push(msg);
        else if (msg.id && msg.type !== 'ping') net.asked.push(msg.id);
      } catch (e) { /* not JSON */ }
      return super.send(data);
    }
    set onmessage(fn) {
      super.onmessage = (event) => {
        const rule = net.drop;
        let msg = null;
        try { msg = JSON.parse(event.data); } catch (e) { /* not JSON */ }
        const events = (rule && msg && msg.type === 'events' && msg.events) || [];
        // the message of the page's own play, after which another seat is to act (so
        // that the next message shows the gap)
        if (events.length && msg.ack && events.some(e => e.kind === 'played')
            && events.every(e => e.player === rule.seat) && msg.lead !== rule.seat) {
          net.drop = null;
          net.dropped.push(...events.map(e => e.seq));
          return;
        }
        fn(event);
        const answer = msg && (msg.type === 'events' ? msg.ack : msg);
        if (answer && answer.id) net.answered.push(answer.id);
      };
    }
    get onmessage() { return super.onmessage; }
  }
  window.WebSocket = Watched;
})();
"""
"""An init script: :func:`_net` reads what it counts."""

LOG_SEQS_JS = "() => [...document.querySelectorAll('[data-testid=\"log-line\"]')]" \
    ".map(l => Number(l.dataset.seq))"


def _net(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("() => window.__unokit_net"))


def _wait_net(page: Any, js: str, arg: Any = None, *, what: str) -> None:
    """Wait until ``js(window.__unokit_net, arg)`` holds, polling on Playwright's own
    timer (the page's clock may be paused)."""
    from browser_table import Stuck
    try:
        page.wait_for_function(f"(arg) => ({js})(window.__unokit_net, arg)", arg=arg,
                               polling=50, timeout=20_000)
    except PlaywrightTimeoutError:
        raise Stuck(f"{what}: not within 20 s: {_net(page)}") from None


def _cards(st: dict[str, Any]) -> list[str]:
    return sorted(hand_cards(st).elements())


def _all_answered(page: Any) -> None:
    """Wait until the page has handled an answer to every message it sent that waits
    for one (a test that then cuts the connection counts only the moves it makes)."""
    _wait_net(page, "(n) => n.asked.every(id => n.answered.includes(id))",
              what="an answer to every message sent")


def _at_my_turn(server: ServerProcess, contexts: Any, name: str, *, turn_timer: int = 0,
                clock: bool = False, watched: bool = False) -> tuple[Any, str, dict[str, Any]]:
    """A page in a new two-seat room against a bot, at its own turn (``watched``: with
    :data:`NET_JS`, and every message it sent answered)."""
    context = named_context(contexts, name)
    if watched:
        context.add_init_script(NET_JS)
    page = context.new_page()
    if clock:
        page.clock.install()
    code = start_at_my_turn(page, server, RULES, bots=["normal"], turn_timer=turn_timer)
    if turn_timer:  # the timer comes in a message of its own, after the turn's events
        expect(by_id(page, "turn-timer")).to_have_attribute("data-deadline", _digits())
    if watched:
        _all_answered(page)
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


def test_a_restarted_server_sees_the_page_again_within_a_second(
        server: ServerProcess, contexts: Any) -> None:
    """On the page's own clock, paused: the first try comes at once on the close, and
    while the server stays away the tries back off to at most a second; once it is ready
    again, one second of the page's time brings the page back."""
    context = named_context(contexts, "Ivo")
    context.add_init_script(NET_JS)
    page = context.new_page()
    page.clock.install()
    start_at_my_turn(page, server, RULES, bots=["normal"])
    before = state(page)
    status = by_id(page, "connection-status")
    page.clock.pause_at(int(page.evaluate("() => Date.now()")) + 1000)
    opened = _net(page)["opened"]
    server.kill9()
    expect(status).to_have_attribute("data-state", _not_online())
    _wait_net(page, "(n, was) => n.opened > was", opened,
              what="a new connection at once, with the page's clock stopped")
    for _ in range(8):  # the server stays away: the pauses grow to their longest
        _wait_net(page, "(n) => n.closed === n.opened", what="the try to fail")
        tries = _net(page)["opened"]
        page.clock.run_for(1000)
        _wait_net(page, "(n, was) => n.opened > was", tries,
                  what="another try within a second of the page's time")
    _wait_net(page, "(n) => n.closed === n.opened", what="the last try to fail")
    server.start()  # the same port and data directory; /readyz answers
    page.clock.run_for(1000)
    expect(status).to_have_attribute("data-state", "online")
    page.clock.resume()
    wait_js(page, SAME_HAND_JS, _cards(before), what=f"the hand {_cards(before)}")
    assert _net(page)["hellos"][-1].get("last_seq", -1) >= 0, _net(page)["hellos"][-1]
    _move_taken(page, state(page))


def test_a_move_made_offline_shows_as_waiting_then_lands(server: ServerProcess,
                                                         contexts: Any) -> None:
    # every earlier message answered: only the move below waits for the connection
    page, code, before = _at_my_turn(server, contexts, "Uma", watched=True)
    status = by_id(page, "connection-status")
    queued = by_id(page, "queued-moves")
    expect(queued).to_be_hidden()
    page.context.set_offline(True)
    expect(status).to_have_attribute("data-state", _not_online())
    player = Player(page)
    done = player.act(before)
    if state(page)["picker"]:
        done = f"{done}, {player.act(state(page))}"
    # the move cannot go: it shows as waiting, with a word on why
    expect(queued).to_be_visible()
    expect(queued).to_have_attribute("data-count", "1")
    expect(queued).to_have_text(_some_text())
    assert len(state(page)["hand"]) == len(before["hand"]), done
    assert state(page)["toast"] in (None, ""), state(page)["toast"]
    page.context.set_offline(False)
    expect(status).to_have_attribute("data-state", "online")
    wait_js(page, "(n) => document.querySelectorAll("
            "'[data-testid=\"hand\"] [data-testid=\"card\"]').length !== n",
            len(before["hand"]), what=f"the move ({done}) to land after the connection came back")
    expect(queued).to_be_hidden()
    assert state(page)["toast"] in (None, ""), state(page)["toast"]
    _one_human(server, code)


TOASTS_JS = r"""
(() => {
  // every toast the page shows, by its code, in order
  const seen = window.__unokit_toasts = [];
  new MutationObserver(() => {
    const toast = document.querySelector('[data-testid="toast"]');
    if (toast && !toast.hidden && toast.dataset.code && seen.at(-1) !== toast.dataset.code) {
      seen.push(toast.dataset.code);
    }
  }).observe(document, {subtree: true, childList: true, attributes: true,
                        attributeFilter: ['data-code', 'hidden']});
})();
"""


def test_a_move_made_offline_for_a_seat_given_up_meanwhile_is_explained(
        server: ServerProcess, contexts: Any) -> None:
    """While the page is offline with a move waiting, the seat is given up from another
    browser (``leave``: a bot plays it from then on). Back online, the page is told its
    move was not sent (``not_sent``), and does not wait for it."""
    context = named_context(contexts, "Eve")
    context.add_init_script(TOASTS_JS)
    context.add_init_script(NET_JS)
    page = context.new_page()
    code = start_at_my_turn(page, server, RULES, bots=["normal"])
    token = page.evaluate("(code) => localStorage.getItem('unokit.token.' + code)", code)
    assert token, "no seat token kept"
    # the answer to the host's start may still be on its way when the turn shows: cut
    # the connection only once it is in, so that only the move below waits
    _all_answered(page)
    page.context.set_offline(True)
    expect(by_id(page, "connection-status")).to_have_attribute("data-state", _not_online())
    player = Player(page)
    player.act(state(page))
    if state(page)["picker"]:
        player.act(state(page))
    expect(by_id(page, "queued-moves")).to_have_attribute("data-count", "1")
    # the same seat in another browser gives it up
    other = contexts().new_page()
    other.add_init_script(f"localStorage.setItem('unokit.token.{code}', {token!r});")
    enter_room(other, server, code)
    other.evaluate("async () => (await import('/static/session.js')).send({type: 'leave'})")
    # the server says goodbye to the seat's connections once the seat is given up
    expect(by_id(other, "toast")).to_have_attribute("data-code", "bye")
    seats = server.get(f"/api/rooms/{code}")["seats"]
    assert seats[0].get("away"), seats  # a bot plays the seat from now on
    page.context.set_offline(False)
    wait_js(page, "() => window.__unokit_toasts.includes('not_sent')",
            what="the page to say its move was not sent")
    expect(by_id(page, "queued-moves")).to_be_hidden()
    expect(by_id(page, "connection-status")).to_have_attribute("data-state", "online")


def test_a_gap_in_seq_is_repaired_from_the_last_event_before_it(
        server: ServerProcess, contexts: Any) -> None:
    """One events message (of the page's own play) is lost on the way: the next one
    shows a gap; the page applies none of it, connects again with ``last_seq`` the event
    before the gap, and ends up with every event and the same table as a fresh load."""
    context = named_context(contexts, "Gil")
    context.add_init_script(NET_JS)
    page = context.new_page()
    start_at_my_turn(page, server, RULES, bots=["normal"])
    seat = my_seat(state(page))
    page.evaluate("(seat) => { window.__unokit_net.drop = {seat}; }", seat)
    player = Player(page)
    play_until([player], lambda states: bool(_net(page)["dropped"])
               or states[0]["screen"] != "table")
    lost = _net(page)["dropped"]
    assert lost, f"no play of the page's own was lost: {player.actions}"
    _wait_net(page, "(n, seq) => n.hellos.some(h => h.last_seq === seq)", min(lost) - 1,
              what=f"a resume from seq {min(lost) - 1}")
    wait_js(page, "(seq) => !!document.querySelector("
            "`[data-testid=\"log-line\"][data-seq=\"${seq}\"]`)", max(lost),
            what=f"the lost events {lost} to be shown")
    seqs = page.evaluate(LOG_SEQS_JS)
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs
    states = play_until([player], lambda states: my_turn(states)
                        or states[0]["screen"] != "table")
    if states[0]["screen"] == "table":
        shown = state(page)
        page.reload()
        wait_js(page, SAME_HAND_JS, _cards(shown), what=f"the hand {_cards(shown)}")
        fresh = state(page)
        assert (fresh["top"], fresh["seq"]) == (shown["top"], shown["seq"]), (fresh, shown)


def _not_online() -> re.Pattern[str]:
    return re.compile("^(reconnecting|offline)$")


def _digits() -> re.Pattern[str]:
    return re.compile(r"^\d+$")


def _some_text() -> re.Pattern[str]:
    return re.compile(r"\S")
