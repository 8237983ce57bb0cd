// seating.js: who sits where around the table (relative to the page's seat), who plays
// next, and when the UNO button invites a call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nextSeat, placesFor, seatsAround, unoInvites } from "../../src/unokit/web/static/seating.js";

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
