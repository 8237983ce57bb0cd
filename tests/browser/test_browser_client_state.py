"""The web client's table, built from the server's messages, equals the engine's view.

The browser table keeps its picture of the game (hand, hand sizes, top card, colour,
direction, scores, the pending penalty, the draw pile's size, who may be caught) up to
date from the server's events messages (``static/game.js``: ``applyMessage``), asking
for a snapshot (``adopt``) only after the events that say it must. Here generated
matches of every preset are played by random seats; each action's events message is
built for a viewer as the server builds it (:func:`unokit.engine.events.redact`,
:func:`unokit.server.room_base.table_facts`); the messages go to ``game.js`` in real
Chromium, and after every message the client's table is compared with
``game.observation(viewer)``: the first difference fails the test, naming the preset,
seed, viewer, message and field.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from browser_server import ServerProcess

from unokit.engine.driver import Driver
from unokit.engine.events import redact
from unokit.engine.game import Game
from unokit.engine.phases import MATCH_OVER
from unokit.engine.rules import PRESETS
from unokit.server.room_base import table_facts

pytestmark = pytest.mark.xdist_group("browser")

MAX_ACTIONS = 400
OUT_OF_TURN = 0.3
"""How often a seat other than the lead takes an out-of-turn action it has."""

COMPARE_JS = r"""
async (text) => {
  const { matches } = JSON.parse(text);  // one string: far quicker to pass than objects
  const { newGame, applyMessage, adopt } = await import('./static/game.js');
  const sorted = (list) => [...list].sort();
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  for (const match of matches) {
    const me = match.viewer;
    const g = newGame();
    for (let i = 0; i < match.batches.length; i++) {
      const { message, view } = match.batches[i];
      applyMessage(g, message, me);
      if (g.needSnapshot) adopt(g, view);  // the app asks the server for this view
      if (g.matchEnd) break;
      const open = view.uno_open === null || view.uno_open === undefined ? [] : [view.uno_open];
      const fields = {
        hand: [me === null ? [] : sorted(g.hand), sorted(view.hand)],
        hand_sizes: [g.sizes, view.hand_sizes],
        top: [g.top, view.top],
        color: [g.colour, view.color],
        direction: [g.direction, view.direction],
        scores: [g.scores.length ? g.scores : view.scores.map(() => 0), view.scores],
        pending_draw: [g.pending, view.pending_draw],
        draw_pile_size: [g.pile, view.draw_pile_size],
        uno_open: [Object.keys(g.catchable).map(Number).sort(), open],
      };
      for (const [field, [client, engine]] of Object.entries(fields)) {
        if (!same(client, engine)) {
          return { label: match.label, batch: i, field, client, engine,
                   events: message.events.map((e) => e.kind) };
        }
      }
    }
  }
  return null;
}
"""


def _batches(preset: str, seed: int, viewer: int | None) -> dict[str, Any]:
    """A match of ``preset`` from ``seed`` played by random seats: each action's events
    as ``viewer`` is sent them, with the viewer's observation after them."""
    rng = random.Random(seed)
    game = Game(preset, seed=seed)
    driver = Driver(game)

    def batch(events: list[Any]) -> dict[str, Any]:
        """The events message as the server sends it to ``viewer`` (legal actions aside),
        and the engine's view after it."""
        message = {"events": [redact(event, viewer).to_dict() for event in events],
                   "lead": driver.lead(), "phase": str(game.phase), **table_facts(game)}
        return {"message": message, "view": game.observation(viewer).to_dict()}

    batches = [batch(list(game.log))]

    def choose(seat: int, legal: list[int], must: bool) -> int | None:
        if must or rng.random() < OUT_OF_TURN:
            return rng.choice(legal)
        return None

    for _ in range(MAX_ACTIONS):
        if game.phase is MATCH_OVER:
            break
        asked = driver.ask(choose)
        assert asked is not None, (preset, seed)
        batches.append(batch(driver.apply(asked[1])))
    return {"label": f"{preset} seed {seed} viewer {viewer}", "viewer": viewer,
            "batches": batches}


def test_the_client_table_equals_the_engine_view_after_every_message(
        server: ServerProcess, contexts: Any) -> None:
    """Every preset (one page and one server for all: the difference found names the
    preset), each seat as the viewer once and a spectator."""
    page = contexts().new_page()
    page.goto(server.url + "/")
    for preset in PRESETS:
        players = Game(preset).n
        viewers: list[int | None] = [*range(players), None]
        matches = [_batches(preset, 1000 * k + len(preset), viewer)
                   for k, viewer in enumerate(viewers)]
        difference = page.evaluate(COMPARE_JS, json.dumps({"matches": matches}))
        assert difference is None, difference
