// rects.js: the boxes cards fly between.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MINI, middleOf } from "../../src/unokit/web/static/rects.js";

test("a box of the given size sits at the middle of the rect", () => {
  assert.deepEqual(middleOf({ left: 0, top: 0, width: 100, height: 100 }, { width: 40, height: 60 }),
    { left: 30, top: 20, width: 40, height: 60 });
  assert.deepEqual(middleOf({ left: 10, top: 500, width: 200, height: 180 }),
    { left: 90, top: 560, ...MINI });
});

test("only the size of a whole rect given as the size counts, not where it is", () => {
  // a card drawn into a hand whose new card is not found: it lands in the middle of the
  // hand, not back on the draw pile it came from
  const hand = { left: 28.8, top: 553.1, width: 869.6, height: 180 };
  const pile = { left: 247.6, top: 205.7, width: 104, height: 156 };
  const to = middleOf(hand, pile);
  assert.equal(to.width, 104);
  assert.equal(to.height, 156);
  assert.ok(hand.top <= to.top && to.top + to.height <= hand.top + hand.height, JSON.stringify(to));
  assert.ok(hand.left <= to.left && to.left + to.width <= hand.left + hand.width, JSON.stringify(to));
});

test("no rect, no box", () => {
  assert.equal(middleOf(null), null);
  assert.equal(middleOf(undefined, { width: 1, height: 1 }), null);
});
