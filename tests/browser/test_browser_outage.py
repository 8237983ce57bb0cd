"""The web client through a database outage: the server answers a move ``not_stored``
while its database is locked; the page shows "saving", sends the move again with the
same id, and the move is taken once the database is back. Nothing the player did is
dropped, and no error toast shows."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
from browser_flow import by_id, named_context, start_at_my_turn
from browser_table import Player, state, wait_js
from playwright.sync_api import expect

pytestmark = pytest.mark.xdist_group("browser")

RULES = "official,players=2,rounds=1"

SPY_JS = r"""
(() => {
  // every game message the page sends, and every answer, in order
  const Base = window.WebSocket;
  const log = window.__unokit_log = [];
  class Spied extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        try { log.push({dir: 'in', msg: JSON.parse(event.data)}); } catch (e) { /* */ }
      });
    }
    send(data) {
      try { log.push({dir: 'out', msg: JSON.parse(data)}); } catch (e) { /* */ }
      return super.send(data);
    }
  }
  window.WebSocket = Spied;
})();
"""


def _acts(page: Any) -> list[dict[str, Any]]:
    return list(page.evaluate("() => window.__unokit_log"))


def test_a_move_not_stored_is_shown_saving_and_sent_again_until_kept(
        server_factory: Any, contexts: Any) -> None:
    # a short busy timeout: a locked database refuses the write within half a second
    server = server_factory(UNOKIT_DB_STATEMENT_TIMEOUT="0.5")
    context = named_context(contexts, "Sol")
    context.add_init_script(SPY_JS)
    page = context.new_page()
    start_at_my_turn(page, server, RULES, bots=["normal"])
    hand_before = len(state(page)["hand"])

    # another writer holds the database: every write of the server fails meanwhile
    lock = sqlite3.connect(server.data_dir / "unokit.db", timeout=30, isolation_level=None)
    try:
        lock.execute("BEGIN IMMEDIATE")
        player = Player(page)
        done = player.act(state(page))
        if state(page)["picker"]:
            done = f"{done}, {player.act(state(page))}"
        # refused at least twice (sent again with the same id), shown as saving
        wait_js(page, "() => window.__unokit_log.filter(e => e.dir === 'in' && "
                "e.msg.type === 'error' && e.msg.code === 'not_stored').length >= 2",
                what=f"two not_stored answers to {done}", timeout=30_000)
        expect(by_id(page, "banner")).to_be_visible()
        expect(by_id(page, "banner")).to_have_attribute("data-state", "saving")
        assert len(state(page)["hand"]) == hand_before  # nothing applied yet
        assert state(page)["toast"] in (None, ""), state(page)["toast"]
    finally:
        lock.execute("ROLLBACK")
        lock.close()

    # the database is back: the next resend is kept, the saving banner goes
    wait_js(page, "(n) => document.querySelectorAll("
            "'[data-testid=\"hand\"] [data-testid=\"card\"]').length !== n",
            hand_before, what="the move to be taken after the database came back",
            timeout=30_000)
    expect(by_id(page, "banner")).to_be_hidden()
    log = _acts(page)
    refused = {e["msg"]["id"] for e in log if e["dir"] == "in"
               and e["msg"].get("code") == "not_stored"}
    assert len(refused) == 1, json.dumps(log)[-2000:]
    [move_id] = refused
    sends = [e for e in log if e["dir"] == "out" and e["msg"].get("id") == move_id]
    assert len(sends) >= 3, sends  # the first try and at least two resends
    assert len({json.dumps(e["msg"], sort_keys=True) for e in sends}) == 1  # same message
    # the ack comes on its own or inside the events the move made (ack_in_events)
    acks = [e for e in log if e["dir"] == "in" and (
        (e["msg"].get("type") == "ack" and e["msg"].get("id") == move_id)
        or (e["msg"].get("type") == "events"
            and (e["msg"].get("ack") or {}).get("id") == move_id))]
    assert len(acks) == 1, acks
    assert "retry_after" in next(e["msg"] for e in log if e["msg"].get("id") == move_id
                                 and e["msg"].get("code") == "not_stored")
    assert state(page)["toast"] in (None, ""), state(page)["toast"]
