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

The seat the table marks as playing next (``seating.js``: ``nextToPlay``) is compared
too, with the seat the engine hands the turn to when the lead ends its turn the plain
way (:func:`_engine_next`): after every Skip, Reverse, Draw Two, Wild Draw Four, swap,
jump-in and exchange, over the seats that went out or were eliminated. Besides the
presets, rule sets with the house rules that change who plays next are played.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from browser_server import ServerProcess

from unokit.engine import actions as A
from unokit.engine.cards import IS_NUMBER
from unokit.engine.driver import Driver, lead_seat
from unokit.engine.events import redact
from unokit.engine.game import Game
from unokit.engine.phases import (
    CHALLENGE,
    CHOOSE_COLOR,
    DRAWN,
    EXCHANGE,
    MATCH_OVER,
    PLAY,
    RESPOND,
    SLAP,
    TURN_OVER,
)
from unokit.engine.rules import PRESETS
from unokit.server.room_base import table_facts

pytestmark = pytest.mark.xdist_group("browser")

MAX_ACTIONS = 400
OUT_OF_TURN = 0.3
"""How often a seat other than the lead takes an out-of-turn action it has."""

HOUSE_RULES = [
    "official,players=4,five_exchange=true",
    "official,players=4,uno_slap=true",
    "official,players=4,play_to_last=true",
    "official,players=4,scoring=elimination,target_score=60",
    "seven_o,players=4,play_to_last=true,seven_zero_last_card=apply",
    "classic_ru,players=3,jump_in=true",
    "official,players=2,draw_two_on_draw_two=stack",
]
"""Rule sets besides the presets whose house rules change who plays next: a 5 given
and answered, a slap, seats that go out or are eliminated, swaps at the last card,
jump-ins and skips passed on, a Reverse between two seats."""

UNKNOWN = "?"
"""The engine's next seat where the lead has no plain way to end its turn."""

COMPARE_JS = r"""
async (text) => {
  const { matches } = JSON.parse(text);  // one string: far quicker to pass than objects
  const { newGame, applyMessage, adopt } = await import('./static/game.js');
  const { nextToPlay } = await import('./static/seating.js');
  const sorted = (list) => [...list].sort();
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  for (const match of matches) {
    const me = match.viewer;
    const g = newGame();
    for (let i = 0; i < match.batches.length; i++) {
      const { message, view, next } = match.batches[i];
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
        next: [next === "?" ? "?" : nextToPlay(g, view.hand_sizes.length), next],
        scores: [g.scores.length ? g.scores : view.scores.map(() => 0), view.scores],
        pending_draw: [g.pending, view.pending_draw],
        draw_pile_size: [g.pile, view.draw_pile_size],
        uno_open: [Object.keys(g.catchable).map(Number).sort(), open],
      };
      for (const [field, [client, engine]] of Object.entries(fields)) {
        if (!match.skip.includes(field) && !same(client, engine)) {
          return { label: match.label, batch: i, field, client, engine,
                   events: message.events.map((e) => e.kind) };
        }
      }
    }
  }
  return null;
}
"""


def _plain_end(game: Game, lead: int) -> int | None:
    """The lead's plain way on from here, one action (``None``: there is none): a penalty
    taken, a colour named, a card given back, a drawn card kept, a number card played
    with nothing more (no UNO call, no card given, not the last card), or a draw."""
    legal = game.legal_actions(lead)
    kinds = {action: A.action_type(action) for action in legal}
    phase = game.phase
    wanted = {RESPOND: A.DRAW, CHALLENGE: A.DRAW, CHOOSE_COLOR: A.COLOR, EXCHANGE: A.GIVE,
              DRAWN: A.PASS}.get(phase)
    if wanted is not None:
        found = [action for action in legal if kinds[action] == wanted]
        if found or phase is not DRAWN:
            return found[0] if found else None
    plain = [action for action in legal if kinds[action] == A.PLAY
             and A.action_player(action) == lead and IS_NUMBER[A.action_card(action)]
             and not A.action_uno(action) and A.action_give(action) < 0
             and not A.action_extra(action) and len(game.hands[lead]) > 1]
    if plain:
        return plain[0]
    if phase is PLAY:
        return next((action for action in legal if kinds[action] == A.DRAW), None)
    return None


def _engine_next(game: Game) -> int | str | None:
    """The seat the engine hands the turn to once the lead ends its turn the plain way
    (on a copy of the game: :func:`_plain_end` until another seat leads); ``None``
    between rounds and during a slap (every seat slaps at once, then the turn goes on
    where it was); :data:`UNKNOWN` where the lead has no plain way (say it must play the
    Skip it drew) or where it would end the round (a blocked round, the last card)."""
    if game.phase in TURN_OVER or game.phase is SLAP:
        return None
    game = game.copy()
    lead = lead_seat(game)
    for _ in range(4):
        action = _plain_end(game, lead)
        if action is None:
            return UNKNOWN
        game.apply(action)
        if game.phase in TURN_OVER:
            return UNKNOWN
        if lead_seat(game) != lead:
            return lead_seat(game)
    return UNKNOWN


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
        return {"message": message, "view": game.observation(viewer).to_dict(),
                "next": _engine_next(game)}

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
    # with play_to_last the engine scores the first seat out at once; the client has the
    # scores from the round's end (the points depend on the hands still playing)
    skip = ["scores"] if game.rules.play_to_last else []
    return {"label": f"{preset} seed {seed} viewer {viewer}", "viewer": viewer,
            "batches": batches, "skip": skip}


def test_the_client_table_equals_the_engine_view_after_every_message(
        server: ServerProcess, contexts: Any) -> None:
    """Every preset (one page and one server for all: the difference found names the
    preset), each seat as the viewer once and a spectator."""
    page = contexts().new_page()
    page.goto(server.url + "/")
    for preset in [*PRESETS, *HOUSE_RULES]:
        players = Game(preset).n
        viewers: list[int | None] = [*range(players), None]
        matches = [_batches(preset, 1000 * k + len(preset), viewer)
                   for k, viewer in enumerate(viewers)]
        difference = page.evaluate(COMPARE_JS, json.dumps({"matches": matches}))
        assert difference is None, difference
