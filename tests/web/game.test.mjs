// game.js: the table kept from the server's events messages, and what the legal action
// texts allow. (tests/browser/test_browser_client_state.py checks applyMessage against
// the engine's observation on generated matches; these are its small cases.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { adopt, applyMessage, choices, multiCards, multiText, newGame, textsFor } from "../../src/unokit/web/static/game.js";

function dealt(me) {
  const g = newGame();
  applyMessage(g, { events: [
    { seq: 0, kind: "round_started", player: 0, amount: 1 },
    { seq: 1, kind: "dealt", player: 0, amount: 3, cards: ["R5", "R7", "WD"] },
    { seq: 2, kind: "dealt", player: 1, amount: 3 },
    { seq: 3, kind: "start_card", card: "R1" },
  ], lead: 0, phase: "play", legal: ["R5", "R7"], must: true, pile: 90 }, me);
  g.needSnapshot = false;
  return g;
}

test("a deal gives this seat its cards and the others their counts", () => {
  const g = dealt(0);
  assert.deepEqual(g.hand, ["R5", "R7", "WD"]);
  assert.deepEqual(g.sizes, [3, 3]);
  assert.equal(g.top, "R1");
  assert.equal(g.colour, "R");
  assert.equal(g.pile, 90, "the message's pile count wins over the events' reckoning");
  assert.equal(g.lead, 0);
  assert.equal(g.must, true);
});

test("a play leaves the hand, tops the pile, and a seat on one card uncalled may be caught", () => {
  const g = dealt(0);
  applyMessage(g, { events: [{ seq: 4, kind: "played", player: 0, card: "R5" }], lead: 1, legal: [] }, 0);
  assert.deepEqual(g.hand, ["R7", "WD"]);
  assert.equal(g.top, "R5");
  applyMessage(g, { events: [{ seq: 5, kind: "played", player: 1, card: "R9" }, { seq: 6, kind: "played", player: 0, card: "R7" }], lead: 1, legal: ["catch 0"] }, 0);
  assert.deepEqual(g.sizes, [1, 2]);
  assert.deepEqual(g.catchable, { 0: true });
  applyMessage(g, { events: [{ seq: 7, kind: "uno_called", player: 0 }], lead: 1, legal: [] }, 0);
  assert.deepEqual(g.catchable, {});
  assert.equal(g.called[0], true);
});

test("a wild's colour comes from the event", () => {
  const g = dealt(0);
  applyMessage(g, { events: [{ seq: 4, kind: "played", player: 0, card: "WD", color: "B" }], lead: 1 }, 0);
  assert.equal(g.colour, "B");
  assert.equal(g.top, "WD");
});

test("a draw adds to the hand and takes from the pile", () => {
  const g = dealt(0);
  applyMessage(g, { events: [{ seq: 4, kind: "drew", player: 0, amount: 2, cards: ["G1", "G2"], reason: "draw_two" }], lead: 1 }, 0);
  assert.deepEqual(g.hand, ["R5", "R7", "WD", "G1", "G2"]);
  assert.equal(g.pile, 88);
  assert.equal(g.fx.drawn, 2);
  assert.equal(g.fx.penalty[0], 2);
});

test("events already applied are skipped; a swap of this seat's hand asks for a snapshot", () => {
  const g = dealt(1);
  const fresh = applyMessage(g, { events: [{ seq: 3, kind: "start_card", card: "R1" }, { seq: 4, kind: "hands_swapped", player: 0, target: 1 }], lead: 0 }, 1);
  assert.deepEqual(fresh.map((e) => e.seq), [4]);
  assert.equal(g.needSnapshot, true);
  adopt(g, { hand: ["B1"], hand_sizes: [3, 1], top: "R1", color: "R", direction: "cw", scores: [0, 0], pending_draw: 0, draw_pile_size: 90, uno_open: 1 });
  assert.deepEqual(g.hand, ["B1"]);
  assert.deepEqual(g.catchable, { 1: true });
  assert.equal(g.needSnapshot, false);
});

test("the round's and the match's ends keep their scores", () => {
  const g = dealt(0);
  applyMessage(g, { events: [{ seq: 4, kind: "round_ended", player: 0, data: { round: 1, scores: [30, 0] } }], phase: "round_over" }, 0);
  assert.deepEqual(g.scores, [30, 0]);
  assert.equal(g.roundEnd.winner, 0);
  applyMessage(g, { events: [{ seq: 5, kind: "match_ended", player: 0, data: { scores: [120, 0] } }], phase: "match_over" }, 0);
  assert.equal(g.matchEnd.winner, 0);
  assert.deepEqual(g.scores, [120, 0]);
});

test("the texts of one card, and what the legal texts allow", () => {
  const legal = ["R5", "R5!", "W>R", "W>G", "R7@1", "draw", "catch 2", "color R", "R5,B5", "give G1"];
  assert.deepEqual(textsFor(legal, "R5"), ["R5", "R5!", "R5,B5"]);
  assert.deepEqual(textsFor(legal, "W"), ["W>R", "W>G"]);
  const c = choices(legal);
  assert.equal(c.draw, true);
  assert.equal(c.pass, false);
  assert.equal(c.unoWithPlay, true);
  assert.deepEqual(c.catches, [2]);
  assert.deepEqual(c.colours, ["color R"]);
  assert.deepEqual(c.gives, ["G1"]);
  assert.deepEqual([...multiCards(legal)].sort(), ["B5", "R5"]);
});

test("several cards: the order chosen, else the last chosen last, with UNO when asked", () => {
  const legal = ["R5,B5", "B5,R5", "B5,R5!", "Y5,G5,R5", "G5,Y5,R5"];
  assert.equal(multiText(legal, ["B5", "R5"]), "B5,R5");
  assert.equal(multiText(legal, ["R5", "B5"]), "R5,B5");
  assert.equal(multiText(legal, ["B5", "R5"], true), "B5,R5!");
  assert.equal(multiText(legal, ["R5", "G5", "Y5"]), "Y5,G5,R5");
  assert.equal(multiText(legal, ["R5", "Y5"]), null);
  assert.equal(multiText(legal, ["R5"]), null);
});

test("the seats out of the round and out of the match come from the events, or a snapshot", () => {
  const g = dealt(0);
  applyMessage(g, { events: [{ seq: 4, kind: "went_out", player: 1, amount: 1 }, { seq: 5, kind: "eliminated", player: 0 }], lead: 0, phase: "play" }, 0);
  assert.deepEqual([g.gone, g.out], [{ 1: true }, { 0: true }]);
  adopt(g, { hand: [], hand_sizes: [0, 0, 3], top: "R1", color: "R", direction: "cw", scores: [0, 0, 0], pending_draw: 0, draw_pile_size: 90, uno_open: null,
    active: [true, false, false], in_match: [true, true, false] });
  assert.deepEqual([g.gone, g.out], [{ 1: true }, { 2: true }]);
  applyMessage(g, { events: [{ seq: 6, kind: "round_started", player: 1, amount: 2 }], lead: 2, phase: "play" }, 0);
  assert.deepEqual([g.gone, g.out], [{}, { 2: true }], "a new round brings back the seats that went out, not the eliminated");
});
