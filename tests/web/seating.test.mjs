// seating.js: who sits where around the table (relative to the page's seat), who plays
// next, and when the UNO button invites a call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nextSeat, nextToPlay, placesFor, seatsAround, unoInvites } from "../../src/unokit/web/static/seating.js";
import { applyMessage, newGame } from "../../src/unokit/web/static/game.js";

test("the other seats come in play order, starting with the seat after yours", () => {
  assert.deepEqual(seatsAround(4, 0), [1, 2, 3]);
  assert.deepEqual(seatsAround(4, 2), [3, 0, 1]);
  assert.deepEqual(seatsAround(4, 3), [0, 1, 2]);
  assert.deepEqual(seatsAround(2, 1), [0]);
  assert.deepEqual(seatsAround(10, 7), [8, 9, 0, 1, 2, 3, 4, 5, 6]);
});

test("a spectator sees every seat, from seat 0", () => {
  assert.deepEqual(seatsAround(3, null), [0, 1, 2]);
  assert.deepEqual(seatsAround(3, -1), [0, 1, 2]);
});

test("opponents face you at the top, then fill the left and right sides", () => {
  assert.deepEqual(placesFor(0), []);
  assert.deepEqual(placesFor(1), ["top"]);
  assert.deepEqual(placesFor(2), ["top", "top"]);
  assert.deepEqual(placesFor(3), ["left", "top", "right"]);
  assert.deepEqual(placesFor(5), ["left", "top", "top", "top", "right"]);
  assert.deepEqual(placesFor(6), ["left", "left", "top", "top", "right", "right"]);
  assert.deepEqual(placesFor(9), ["left", "left", "top", "top", "top", "top", "top", "right", "right"]);
  for (let n = 0; n <= 9; n++) {
    const places = placesFor(n);
    assert.equal(places.length, n);
    // clockwise from your left: never back to an earlier side
    const order = places.map((p) => ["left", "top", "right"].indexOf(p));
    assert.deepEqual(order, [...order].sort((a, b) => a - b), String(n));
    assert.equal(places.filter((p) => p === "left").length, places.filter((p) => p === "right").length, String(n));
  }
});

test("the next seat follows the direction and steps over the seats that are out", () => {
  assert.equal(nextSeat(0, "cw", 4), 1);
  assert.equal(nextSeat(3, "cw", 4), 0);
  assert.equal(nextSeat(0, "ccw", 4), 3);
  assert.equal(nextSeat(2, "ccw", 4), 1);
  assert.equal(nextSeat(1, "cw", 2), 0);
  assert.equal(nextSeat(0, "cw", 4, [false, true, false, false]), 2);
  assert.equal(nextSeat(0, "ccw", 4, [false, false, false, true]), 2);
  assert.equal(nextSeat(0, "cw", 3, [false, true, true]), null, "no one else is left");
  assert.equal(nextSeat(null, "cw", 4), null, "no one leads between rounds");
  assert.equal(nextSeat(-1, "cw", 4), null);
});

// A four-seat table after the deal (seat 1 leads, clockwise), then `steps`: the events
// of one message each, with the message's lead and phase, as the server sends them.
function table(...steps) {
  const g = newGame();
  applyMessage(g, { events: [
    { seq: 0, kind: "round_started", player: 0, amount: 1 },
    ...[0, 1, 2, 3].map((p) => ({ seq: 1 + p, kind: "dealt", player: p, amount: 7 })),
    { seq: 5, kind: "start_card", card: "R1" },
  ], lead: 1, phase: "play" }, 0);
  for (const [events, lead, phase] of steps) {
    applyMessage(g, { events: events.map((e, i) => ({ seq: g.seq + 1 + i, ...e })), lead, phase }, 0);
  }
  return g;
}

test("the seat marked next is the one after the lead once the cards played have moved it", () => {
  assert.equal(nextToPlay(table(), 4), 2);
  // a Skip: seat 2 is skipped, seat 3 leads and seat 0 plays after it
  assert.equal(nextToPlay(table([[{ kind: "played", player: 1, card: "RS" }, { kind: "skipped", player: 2 }], 3, "play"]), 4), 0);
  // a Reverse: seat 0 leads the other way round, seat 3 after it
  assert.equal(nextToPlay(table([[{ kind: "played", player: 1, card: "RR" }, { kind: "reversed", amount: -1 }], 0, "play"]), 4), 3);
  // a Draw Two taken at once: seat 2 draws and is skipped
  assert.equal(nextToPlay(table([[{ kind: "played", player: 1, card: "R+2" }, { kind: "drew", player: 2, amount: 2, reason: "draw_two" }, { kind: "skipped", player: 2 }], 3, "play"]), 4), 0);
  // a Wild Draw Four to challenge: seat 2 answers it, then the turn goes on from there
  assert.equal(nextToPlay(table([[{ kind: "played", player: 1, card: "W+4", color: "B" }], 2, "challenge"]), 4), 3);
  // a jump-in by seat 3: the turn moves to it
  assert.equal(nextToPlay(table([[{ kind: "played", player: 3, card: "R1" }], 0, "play"]), 4), 1);
});

test("the seats out of the round or the match are passed over", () => {
  // play_to_last: seat 2 went out
  const out = table([[{ kind: "played", player: 2, card: "R5" }, { kind: "went_out", player: 2, amount: 1 }], 3, "play"],
    [[{ kind: "played", player: 3, card: "R6" }], 0, "play"], [[{ kind: "played", player: 0, card: "R7" }], 1, "play"]);
  assert.equal(nextToPlay(out, 4), 3);
  // a new round brings it back
  const again = table([[{ kind: "went_out", player: 2, amount: 1 }], 3, "play"],
    [[{ kind: "round_started", player: 1, amount: 2 }, { kind: "start_card", card: "G2" }], 1, "play"]);
  assert.equal(nextToPlay(again, 4), 2);
  // elimination: seat 2 is out of the match
  const gone = table([[{ kind: "eliminated", player: 2 }], 1, "play"]);
  assert.equal(nextToPlay(gone, 4), 3);
});

test("while a 5 is answered the turn goes on after the seat that gave; no one during a slap", () => {
  // seat 1 gives seat 3 a card; seat 3 gives one back, then seat 2 plays
  const five = [[{ kind: "played", player: 1, card: "R5", target: 3 }, { kind: "gave", player: 1, target: 3, amount: 1 }], 3, "exchange"];
  assert.equal(nextToPlay(table(five), 4), 2);
  assert.equal(nextToPlay(table(five, [[{ kind: "gave", player: 3, target: 1, amount: 1 }], 2, "play"]), 4), 3);
  // given to the seat after it: that seat gives back, then plays its own turn
  const toNext = [[{ kind: "played", player: 1, card: "R5", target: 2 }, { kind: "gave", player: 1, target: 2, amount: 1 }], 2, "exchange"];
  assert.equal(nextToPlay(table(toNext), 4), 3);
  assert.equal(nextToPlay(table([[{ kind: "uno_called", player: 1 }, { kind: "slap_started", player: 1 }], 0, "slap"]), 4), null);
  assert.equal(nextToPlay(table([[{ kind: "round_ended", player: 1, data: {} }], 0, "round_over"]), 4), null);
});

const TURN = { hand: 2, must: true, unoWithPlay: true, uno: false, armed: false };

test("the UNO button invites a call with two cards at your turn to play one", () => {
  assert.equal(unoInvites(TURN), true);
  assert.equal(unoInvites({ ...TURN, hand: 3 }), false, "three cards: no call yet");
  assert.equal(unoInvites({ ...TURN, hand: 1 }), false);
  assert.equal(unoInvites({ ...TURN, must: false }), false, "not your turn");
  assert.equal(unoInvites({ ...TURN, unoWithPlay: false }), false, "no card to play with the call");
  assert.equal(unoInvites({ ...TURN, armed: true }), false, "the call is armed already: the button shows that instead");
  assert.equal(unoInvites({ hand: 1, must: false, unoWithPlay: false, uno: true, armed: false }), true, "a call on its own is legal now");
});
