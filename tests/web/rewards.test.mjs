// The pure parts of the standing, the challenges and the cosmetics: a rating change as
// a signed number, a challenge's time left, and the chosen cosmetics put on <html> (a
// stand-in element here) or taken off again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { noticeText, signed, timeLeft } from "../../src/unokit/web/static/standing.js";
import { applyCosmetics } from "../../src/unokit/web/static/cosmetics.js";


test("a rating change is signed, with a true minus sign", () => {
  assert.equal(signed(12), "+12");
  assert.equal(signed(-7.4), "\u22127");
  assert.equal(signed(0), "\u00b10");
  assert.equal(signed(undefined), "\u00b10");
});

test("a challenge's time left in days, hours or minutes", () => {
  assert.equal(timeLeft(1000 + 2 * 86400 + 5 * 3600 + 59, 1000), "2 d 5 h");
  assert.equal(timeLeft(1000 + 5 * 3600 + 12 * 60, 1000), "5 h 12 min");
  assert.equal(timeLeft(1000 + 30, 1000), "1 min"); // under a minute: still "1 min"
  assert.equal(timeLeft(500, 1000), "1 min"); // a period just over
});

function fakeRoot() {
  const vars = new Map();
  const classes = new Set();
  return {
    vars, classes, dataset: {},
    style: { setProperty: (k, v) => vars.set(k, v), removeProperty: (k) => vars.delete(k) },
    classList: { add: (c) => classes.add(c), remove: (c) => classes.delete(c) },
  };
}

test("the chosen cosmetics become variables, classes and data on the root", () => {
  const root = fakeRoot();
  applyCosmetics([
    { slot: "table", id: "table.green", price: 0, colour: "#2e7d32", chosen: false },
    { slot: "table", id: "table.blue", price: 80, colour: "#1565c0", chosen: true },
    { slot: "card_back", id: "card_back.classic", price: 0, colour: "#c62828", chosen: true },
  ], root);
  assert.equal(root.vars.get("--table-colour"), "#1565c0");
  assert.ok(root.classes.has("cosmetic-table"));
  assert.equal(root.dataset.table, "table.blue");
  // a free default leaves the page's own look
  assert.equal(root.vars.has("--card-back-colour"), false);
  assert.equal(root.classes.has("cosmetic-card-back"), false);
  // back to the default table: everything taken off; a colour that is not one: ignored
  applyCosmetics([{ slot: "table", id: "table.green", price: 0, colour: "#2e7d32", chosen: true },
    { slot: "card_back", id: "card_back.x", price: 5, colour: "red;}", chosen: true }], root);
  assert.equal(root.vars.size, 0);
  assert.equal(root.classes.size, 0);
  assert.deepEqual(root.dataset, {});
});

test("why a match did not count for the rating, in words, for every check", () => {
  assert.equal(noticeText(null), "");
  assert.equal(noticeText({ kind: "voided", reasons: ["repeat_deal"] }),
    "This match did not count for your rating. You had played this same deal before.");
  for (const reason of ["thrown", "thrown_pattern", "sitting", "repeat_deal", "fresh_account", "lopsided_pair"]) {
    const text = noticeText({ kind: "voided", reasons: [reason] });
    assert.ok(text.length > "This match did not count for your rating.".length + 10, reason);
    assert.doesNotMatch(text, /\d/);  // no threshold in the words
  }
  assert.match(noticeText({ kind: "partial", reasons: [] }), /only against the other players/);
  assert.match(noticeText({ kind: "none_counted" }), /anyone's rating/);
  assert.equal(noticeText({ kind: "unknown", reasons: ["nonsense"] }), "");
});
