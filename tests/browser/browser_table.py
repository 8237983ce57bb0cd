"""Reading and playing the web client's table through its DOM contract
(``data-testid`` and ``data-*`` attributes only: never by visible text).

:func:`state` reads what one page shows as a dict; :class:`Player` plays one page's
seat by clicks, taps or the keyboard; :func:`play_until` plays several pages (and waits
for the bots) until a condition holds. Every wait is a wait for a condition in the page
(Playwright's ``wait_for_function``), never a fixed sleep.
"""

from __future__ import annotations

import json
import time
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

STATE_JS = r"""
() => {
  const q = (id, root = document) => root.querySelector(`[data-testid="${id}"]`);
  const all = (id, root = document) => [...root.querySelectorAll(`[data-testid="${id}"]`)];
  const shown = el => !!el && el.checkVisibility({visibilityProperty: true});
  const usable = el => shown(el) && !el.disabled && el.getAttribute('aria-disabled') !== 'true';
  const screen = q('screen');
  const hand = q('hand');
  const cards = hand && shown(hand) ? all('card', hand).filter(shown) : [];
  const turn = q('your-turn');
  const conn = q('connection-status');
  const toast = q('toast');
  const timer = q('turn-timer');
  const num = v => (v === undefined || v === null || v === '') ? null : Number(v);
  return {
    screen: screen ? screen.dataset.screen : null,
    lang: document.documentElement.lang,
    connection: conn ? conn.dataset.state : null,
    hand: cards.map(c => ({card: c.dataset.card, playable: c.dataset.playable === 'true'})),
    my_turn: shown(turn) && turn.dataset.active !== 'false',
    top: q('top-card') ? q('top-card').dataset.card : null,
    colour: q('current-colour') ? q('current-colour').dataset.colour : null,
    direction: q('direction') ? q('direction').dataset.direction : null,
    opponents: all('opponent').map(o => ({
      seat: num(o.dataset.seat), current: o.dataset.current === 'true',
      uno: o.dataset.uno || null, away: o.dataset.away === 'true', bot: o.dataset.bot === 'true',
      count: q('card-count', o) ? num(q('card-count', o).dataset.count) : null})),
    picker: shown(q('colour-picker')),
    challenge: usable(q('challenge-button')),
    accept: usable(q('accept-button')),
    pass: usable(q('pass')),
    draw: usable(q('draw-pile')),
    uno: usable(q('uno-button')),
    catch_targets: all('catch-button').filter(usable).map(b => num(b.dataset.target)),
    seven: shown(q('seven-target')),
    exchange: shown(q('exchange')),
    slap: usable(q('slap-button')),
    next_round: all('next-round').some(usable),
    timer_seat: shown(timer) ? num(timer.dataset.seat) : null,
    deadline: shown(timer) ? num(timer.dataset.deadline) : null,
    autopilot: shown(q('autopilot')),
    toast: shown(toast) ? (toast.dataset.code || '') : null,
    you: (all('seat').find(s => s.dataset.you === 'true') || {dataset: {}}).dataset.seat ?? null,
    seq: all('log-line').reduce((m, l) => Math.max(m, num(l.dataset.seq) ?? -1), -1),
  };
}
"""

WIRE_JS = r"""
(() => {
  // counts the game messages the page sends with an id and the answers it gets, so a
  // test can wait until the server has answered what a click sent
  const Base = window.WebSocket;
  const wire = window.__unokit_wire = {sent: 0, answered: 0};
  class Counted extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        try {
          const msg = JSON.parse(event.data);
          if (msg.id && ['ack', 'error', 'snapshot'].includes(msg.type)) wire.answered += 1;
          if (msg.type === 'events' && msg.ack && msg.ack.id) wire.answered += 1;
        } catch (e) { /* not JSON */ }
      });
    }
    send(data) {
      try {
        const msg = JSON.parse(data);
        if (msg.id && !['ping', 'hello'].includes(msg.type)) wire.sent += 1;
      } catch (e) { /* not JSON */ }
      return super.send(data);
    }
  }
  window.WebSocket = Counted;
})();
"""
"""An init script for every context (tests/browser/conftest.py): see :func:`wait_settled`."""

SIGNATURE_JS = "(" + STATE_JS + ")()"
"""An expression: the state, to compare before and after something happens."""

CHANGED_JS = "(before) => JSON.stringify(" + SIGNATURE_JS + ") !== before"

SEATS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
"""Each page's seat, as last seen at the table (the end screens show no opponents)."""


def state(page: Any) -> dict[str, Any]:
    """What ``page`` shows now (see :data:`STATE_JS`)."""
    return dict(page.evaluate(STATE_JS))


def signature(page: Any) -> str:
    return json.dumps(page.evaluate(STATE_JS), separators=(",", ":"))


class Stuck(AssertionError):
    """Nothing changed on a page that was watched for a change."""


def wait_change(page: Any, before: str, timeout: float = 20_000) -> None:
    """Wait until what ``page`` shows differs from ``before`` (a :func:`signature`).

    Raises:
        Stuck: not within ``timeout`` ms (the message holds what the page shows).
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    try:
        page.wait_for_function(CHANGED_JS, arg=before, timeout=timeout)
    except PlaywrightTimeout:
        raise Stuck(f"nothing changed in {timeout / 1000:.0f} s on {page.url}: {before}"
                    ) from None


def wait_any_change(pages: Sequence[tuple[Any, str]], watch: Any,
                    timeout: float = 30_000) -> None:
    """Wait until one of ``pages`` shows something other than its ``before`` (a
    :func:`signature`), watching ``watch`` (one of them) in between: another page that
    was behind when it was read can catch up while ``watch`` shows nothing new.

    Raises:
        Stuck: not within ``timeout`` ms.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    deadline = time.monotonic() + timeout / 1000
    before = dict(pages)
    while True:
        if any(page.evaluate(CHANGED_JS, seen) for page, seen in pages):
            return
        left = (deadline - time.monotonic()) * 1000
        if left <= 0:
            raise Stuck(f"nothing changed in {timeout / 1000:.0f} s on {watch.url}: "
                        f"{before[watch]}")
        try:
            # the watched page wakes this at once; the others are looked at again after
            # at most a quarter of a second
            watch.wait_for_function(CHANGED_JS, arg=before[watch], timeout=min(left, 250))
            return
        except PlaywrightTimeout:
            continue


SETTLED_JS = "(a) => { const w = window.__unokit_wire || {sent: 0, answered: 0}; " \
    "if (w.sent > a.sent) return w.answered >= w.sent; " \
    "return JSON.stringify(" + SIGNATURE_JS + ") !== a.before; }"


def sent(page: Any) -> int:
    """How many messages with an id the page has sent so far."""
    return int(page.evaluate("() => (window.__unokit_wire || {sent: 0}).sent"))


def wait_settled(page: Any, before: str, sent_before: int, *, what: str = "",
                 timeout: float = 20_000) -> None:
    """Wait until what an action did has come back: when it sent messages, until the
    server answered every message sent (its events come before the answer); when it
    sent none (a wild's colour picker opened), until the page shows something new.
    Then let the page draw twice.

    Raises:
        Stuck: not within ``timeout`` ms.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    try:
        page.wait_for_function(SETTLED_JS, arg={"sent": sent_before, "before": before},
                               timeout=timeout)
    except PlaywrightTimeout:
        raise Stuck(f"{what or 'an action'}: no answer in {timeout / 1000:.0f} s on "
                    f"{page.url}: {json.dumps(state(page))}") from None
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => "
                  "requestAnimationFrame(() => r(true))))")


def wait_js(page: Any, js: str, arg: Any = None, *, what: str,
            timeout: float = 20_000) -> None:
    """Wait until the page function ``js(arg)`` is true.

    Raises:
        Stuck: not within ``timeout`` ms (the message says ``what`` was awaited and
            what the page shows).
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    try:
        page.wait_for_function(js, arg=arg, timeout=timeout)
    except PlaywrightTimeout:
        raise Stuck(f"{what}: not within {timeout / 1000:.0f} s on {page.url}: "
                    f"{json.dumps(state(page))}") from None


def my_seat(st: dict[str, Any]) -> int | None:
    """The page's own seat at the table: the one seat that is not an opponent."""
    seats = {o["seat"] for o in st["opponents"]}
    if not seats:
        return None if st["you"] is None else int(st["you"])
    for seat in range(len(seats) + 1):
        if seat not in seats:
            return seat
    return None


def hand_cards(st: dict[str, Any]) -> Counter[str]:
    """The multiset of the hand's cards."""
    return Counter(c["card"] for c in st["hand"])


def colour_of(card: str) -> str:
    return card[0]


def pick_colour(st: dict[str, Any]) -> str:
    """The colour most of the hand has (red when none)."""
    counts = Counter(colour_of(c["card"]) for c in st["hand"]
                     if colour_of(c["card"]) in "RYGB")
    return counts.most_common(1)[0][0] if counts else "R"


def actionable(st: dict[str, Any], seat: int | None) -> bool:
    """Whether the page must (or, between rounds as seat 0, may) do something now."""
    if st["screen"] == "round-end":
        return bool(st["next_round"]) and seat == 0
    if st["screen"] != "table":
        return False
    return bool(st["picker"] or st["seven"] or st["exchange"] or st["slap"]
                or st["accept"] or st["my_turn"])


RUSSIAN_LAYOUT = dict(zip("qwertyuiopasdfghjklzxcvbnm", "йцукенгшщзфывапролдячсмить",
                          strict=True))
"""What each letter key types on a Russian (ЙЦУКЕН) keyboard."""


class Player:
    """Plays one page's seat: ``mode`` "click" (mouse), "tap" (touch), "keys"
    (keyboard only) or "keys-ru" (keyboard only, its letter keys typing Cyrillic as on
    a Russian layout); ``call_uno`` calls UNO with the play down to one card."""

    def __init__(self, page: Any, mode: str = "click", *, call_uno: bool = True,
                 prefer: Callable[[dict[str, Any]], str | None] | None = None) -> None:
        self.page = page
        self.mode = mode
        self.call_uno = call_uno
        self.prefer = prefer
        self.toasts: list[str] = []
        self.actions: list[str] = []

    # ------------------------------------------------------------ input
    def press(self, testid: str, key: str | None = None, *, within: str | None = None,
              nth: int = 0, **attrs: str) -> None:
        """Operate the control ``testid`` (with data-* ``attrs``): a click, a tap, or in
        keyboard mode the shortcut ``key`` or Tab to it and Enter."""
        selector = _selector(testid, **attrs)
        if within:
            selector = f"{_selector(within)} {selector}"
        target = self.page.locator(selector).nth(nth)
        if self.mode.startswith("keys"):
            if key is not None and self.mode == "keys-ru" and key in RUSSIAN_LAYOUT:
                # the key in the place of ``key``, typing a Cyrillic letter
                self.page.evaluate(
                    "([key, code]) => (document.activeElement || document.body)"
                    ".dispatchEvent(new KeyboardEvent('keydown', {key, code, bubbles: true}))",
                    [RUSSIAN_LAYOUT[key], "Key" + key.upper()])
            elif key is not None:
                self.page.keyboard.press(key)
            else:
                tab_to(self.page, selector)
                self.page.keyboard.press("Enter")
        else:
            # a card of a fanned hand may show only a part: press where it shows (found
            # by the page's own hit test, and pressed at once)
            from playwright.sync_api import Error as PlaywrightError
            for attempt in range(6):  # the page may draw the control anew meanwhile
                try:
                    target.scroll_into_view_if_needed()
                    spot = target.evaluate(VISIBLE_SPOT_JS)
                    break
                except PlaywrightError as exc:
                    if "not attached" not in str(exc) or attempt == 5:
                        raise
            if spot is None:
                target.tap() if self.mode == "tap" else target.click()
            elif self.mode == "tap":
                self.page.touchscreen.tap(spot[0], spot[1])
            else:
                self.page.mouse.click(spot[0], spot[1])

    def play_card(self, card: str) -> None:
        if not self.mode.startswith("keys"):
            self.press("card", within="hand", nth=0, card=card)
            return
        focus_card(self.page, card)
        self.page.keyboard.press("Enter")

    # ------------------------------------------------------------ one move
    def act(self, st: dict[str, Any]) -> str:
        """Do the one thing the page asks for now; what was done."""
        done = self._act(st)
        self.actions.append(done)
        return done

    def _act(self, st: dict[str, Any]) -> str:
        if st["screen"] == "round-end":
            self.press("next-round", "n")
            return "next"
        if st["picker"]:
            colour = pick_colour(st)
            self.press(f"colour-{colour}", colour.lower())
            return f"colour {colour}"
        if st["seven"]:
            self.press("target-seat", within="seven-target")
            return "seven target"
        if st["exchange"]:
            self.press("card", within="exchange")
            return "exchange"
        if st["slap"]:
            self.press("slap-button")
            return "slap"
        if st["accept"]:
            self.press("accept-button")
            return "accept"
        wanted = self.prefer(st) if self.prefer else None
        if wanted == "draw" and st["draw"]:
            self.press("draw-pile", "d")
            return "draw"
        if wanted == "pass" and st["pass"]:
            self.press("pass", "p")
            return "pass"
        playable = [c["card"] for c in st["hand"] if c["playable"]]
        if wanted and wanted in playable:
            playable = [wanted]
        if playable:
            # numbers and actions before wilds: fewer colour pickers
            card = sorted(playable, key=lambda c: c.startswith("W"))[0]
            if self.call_uno and len(st["hand"]) == 2 and st["uno"]:
                self.press("uno-button", "u")
            self.play_card(card)
            return f"play {card}"
        if st["pass"]:
            self.press("pass", "p")
            return "pass"
        self.press("draw-pile", "d")
        return "draw"


VISIBLE_SPOT_JS = r"""
(el) => {
  const box = el.getBoundingClientRect();
  if (!box.width || !box.height) return null;
  const hit = (x, y) => { const top = document.elementFromPoint(x, y);
                          return !!top && (top === el || el.contains(top)); };
  if (hit(box.left + box.width / 2, box.top + box.height / 2)) return null;
  for (const fy of [0.5, 0.65, 0.35, 0.8, 0.2]) {
    for (let fx = 0.05; fx < 1; fx += 0.05) {
      const x = box.left + box.width * fx, y = box.top + box.height * fy;
      if (hit(x, y)) return [x, y];
    }
  }
  return null;
}
"""
"""A point of the viewport where an element shows, when something covers its centre;
``None`` when its centre shows (or nothing of it does: Playwright then says why)."""


def _selector(testid: str, **attrs: str) -> str:
    extra = "".join(f'[data-{k.replace("_", "-")}="{v}"]' for k, v in attrs.items())
    return f'[data-testid="{testid}"]{extra}'


def tab_to(page: Any, selector: str, limit: int = 80) -> None:
    """Press Tab until the focused element matches ``selector`` (or lies inside it)."""
    for _ in range(limit):
        if page.evaluate("(s) => !!document.activeElement && "
                         "!!document.activeElement.closest(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} cannot be reached with Tab ({limit} presses)")


FOCUSED_CARD_JS = r"""
() => {
  const hand = document.querySelector('[data-testid="hand"]');
  const cards = hand ? [...hand.querySelectorAll('[data-testid="card"]')] : [];
  const el = document.activeElement;
  const card = el && el.closest('[data-testid="card"]');
  return {index: card ? cards.indexOf(card) : -1, cards: cards.map(c => c.dataset.card)};
}
"""


def focus_card(page: Any, card: str) -> None:
    """Move the focus to a hand card ``card`` with the arrow keys (Tab into the hand
    first when the focus is elsewhere)."""
    seen = page.evaluate(FOCUSED_CARD_JS)
    if seen["index"] < 0:
        page.keyboard.press("ArrowRight")
        seen = page.evaluate(FOCUSED_CARD_JS)
    if seen["index"] < 0:
        tab_to(page, '[data-testid="hand"] [data-testid="card"]')
        seen = page.evaluate(FOCUSED_CARD_JS)
    for _ in range(2 * len(seen["cards"]) + 2):
        if 0 <= seen["index"] < len(seen["cards"]) and seen["cards"][seen["index"]] == card:
            return
        goal = seen["cards"].index(card)
        page.keyboard.press("ArrowRight" if goal > seen["index"] else "ArrowLeft")
        seen = page.evaluate(FOCUSED_CARD_JS)
    raise AssertionError(f"the arrow keys do not reach {card} in {seen}")


def play_until(players: Sequence[Player], done: Callable[[list[dict[str, Any]]], bool],
               *, max_steps: int = 600, on_state: Callable[[Player, dict[str, Any]], None]
               | None = None, others: Callable[[list[dict[str, Any]]], bool] | None = None,
               ) -> list[dict[str, Any]]:
    """Play every page's seat until ``done(states)`` holds; the last states.

    ``others(states)`` plays the seats that are not pages (a terminal): it returns
    whether it acted or waited for something new, and is asked at every step.

    Each step reads every page; one that must act acts, then its page is watched until
    it shows the result. When no page must act (a bot's turn, or a page still behind),
    the page of the seat to act is watched (the own page when that seat is a bot), and
    the wait ends when that page or any other shows something new (a page that was
    behind when it was read may show what ``done`` waits for meanwhile).
    """
    for _ in range(max_steps):
        states = [state(p.page) for p in players]
        if on_state is not None:
            for player, st in zip(players, states, strict=True):
                on_state(player, st)
        if done(states):
            return states
        if others is not None and others(states):
            continue
        for player, st in zip(players, states, strict=True):
            seat = my_seat(st)
            if seat is not None:
                SEATS[player.page] = seat
        seats = [SEATS.get(p.page) for p in players]
        for player, st, seat in zip(players, states, seats, strict=True):
            if st["toast"] and (not player.toasts or player.toasts[-1] != st["toast"]):
                player.toasts.append(st["toast"])
            if actionable(st, seat):
                before = json.dumps(st, separators=(",", ":"))
                count = sent(player.page)
                did = player.act(st)
                wait_settled(player.page, before, count, what=did)
                break
        else:
            watch = players[0]
            current = [o["seat"] for o in states[0]["opponents"] if o["current"]]
            for player, seat in zip(players, seats, strict=True):
                if current and seat == current[0]:
                    watch = player
            wait_any_change([(p.page, json.dumps(st, separators=(",", ":")))
                             for p, st in zip(players, states, strict=True)], watch.page)
    raise AssertionError(f"not done after {max_steps} steps: {states}")


def on(screen: str) -> Callable[[list[dict[str, Any]]], bool]:
    """A ``done`` for :func:`play_until`: every page shows ``screen``."""
    return lambda states: all(st["screen"] == screen for st in states)


def any_on(*screens: str) -> Callable[[list[dict[str, Any]]], bool]:
    """A ``done``: the first page shows one of ``screens``."""
    return lambda states: states[0]["screen"] in screens


def my_turn(states: list[dict[str, Any]]) -> bool:
    """A ``done``: the first page must play a card or draw (nothing else pending)."""
    st = states[0]
    return bool(st["screen"] == "table" and st["my_turn"] and not st["picker"]
                and not st["accept"] and not st["seven"] and not st["exchange"])


def shot(page: Any, artifacts: Path, name: str) -> None:
    """A screenshot of the page, ``test-artifacts/browser/NAME.png``."""
    page.screenshot(path=str(artifacts / f"{name}.png"), full_page=True, animations="disabled")
