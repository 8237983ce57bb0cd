// keys.js: the table's shortcuts work on any keyboard layout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { shortcutKey } from "../../src/unokit/web/static/keys.js";

test("a Latin letter or a digit is read as it is typed", () => {
  assert.equal(shortcutKey({ key: "R", code: "KeyR" }), "r");
  assert.equal(shortcutKey({ key: "d", code: "KeyD" }), "d");
  assert.equal(shortcutKey({ key: "3", code: "Digit3" }), "3");
  // AZERTY: the key in QWERTY's Q place types "a", and "a" it is
  assert.equal(shortcutKey({ key: "a", code: "KeyQ" }), "a");
});

test("on a Russian or a Georgian layout a letter key is read by its place", () => {
  assert.equal(shortcutKey({ key: "к", code: "KeyR" }), "r"); // Russian
  assert.equal(shortcutKey({ key: "в", code: "KeyD" }), "d");
  assert.equal(shortcutKey({ key: "რ", code: "KeyR" }), "r"); // Georgian
  assert.equal(shortcutKey({ key: "ბ", code: "KeyB" }), "b");
});

test("other keys stay what they are", () => {
  assert.equal(shortcutKey({ key: "Enter", code: "Enter" }), "Enter");
  assert.equal(shortcutKey({ key: "ArrowLeft", code: "ArrowLeft" }), "ArrowLeft");
  assert.equal(shortcutKey({ key: "?", code: "Slash" }), "?");
  assert.equal(shortcutKey({ key: "é", code: "Digit2" }), "2"); // French top row
  assert.equal(shortcutKey({}), "");
});
