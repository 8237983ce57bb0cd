// The client's words in English (no catalogue loaded): cards, the log's lines, the rules.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cardName, colourName, parse } from "../../src/unokit/web/static/cards.js";
import { describe } from "../../src/unokit/web/static/describe.js";
import { effective, overridesText, parseRules, rulesLabel, summary, DEFAULTS, PRESETS } from "../../src/unokit/web/static/rules.js";
import { _, ngettext, pgettext } from "../../src/unokit/web/static/i18n.js";

test("card codes and their names", () => {
  assert.deepEqual(parse("R5"), { colour: "R", value: "5" });
  assert.deepEqual(parse("W+4"), { colour: "W", value: "+4" });
  assert.deepEqual(parse("W"), { colour: "W", value: "W" });
  assert.equal(cardName("R5"), "red 5");
  assert.equal(cardName("G+2"), "green Draw Two");
  assert.equal(cardName("BS"), "blue Skip");
  assert.equal(cardName("W+4"), "Wild Draw Four");
  assert.equal(colourName("y"), "yellow");
  assert.equal(colourName(null), "no colour");
});

test("the log says each event with the seats' names", () => {
  const names = ["Ann", "Bob"];
  assert.equal(describe({ kind: "played", player: 0, card: "W", color: "G" }, names), "Ann plays Wild, names green.");
  assert.equal(describe({ kind: "drew", player: 1, amount: 2, reason: "draw_two" }, names), "Bob draws 2 cards (Draw Two).");
  assert.equal(describe({ kind: "drew", player: 1, amount: 1, cards: ["R1"] }, names), "Bob draws 1 card: red 1.");
  assert.equal(describe({ kind: "caught", player: 1, target: 0 }, names), "Bob catches Ann, who did not call UNO!");
  assert.equal(describe({ kind: "round_ended", player: 0, data: { round: 2, scores: [50, 0] } }, names),
    "Round 2 ends: Ann wins. Scores: Ann 50, Bob 0.");
  assert.equal(describe({ kind: "skipped", player: 5 }, names), "Seat 5 is skipped.");
  assert.equal(describe({ kind: "no_such_kind" }, names), "no_such_kind");
});

test("messages fill their fields, plurals pick their form", () => {
  assert.equal(_("Seat {n}", { n: 3 }), "Seat 3");
  assert.equal(_("{a} and {b}", { a: 1 }), "1 and {b}", "a missing field stays visible");
  assert.equal(ngettext("{n} card", "{n} cards", 1), "1 card");
  assert.equal(ngettext("{n} card", "{n} cards", 0), "0 cards");
  assert.equal(pgettext("a context", "Draw"), "Draw");
});

test("rules: a preset with overrides, in words", () => {
  assert.deepEqual(parseRules("classic_ru,jump_in=true,target_score=200,deck=h2o"),
    { preset: "classic_ru", jump_in: true, target_score: 200, deck: "h2o" });
  const all = effective({ preset: "stacking", jump_in: true });
  assert.equal(all.draw_two_on_draw_two, "stack");
  assert.equal(all.jump_in, true);
  assert.equal(all.target_score, DEFAULTS.target_score);
  assert.deepEqual(overridesText({ preset: "stacking", jump_in: true }), ["Jump-in: an identical card may be played out of turn."]);
  assert.equal(rulesLabel("official"), "Official");
  assert.equal(rulesLabel("official,jump_in=true,seven_swap=true"), "Official (+2 changes)");
  const text = summary({ preset: "seven_o" });
  assert.equal(text.preset, "seven_o");
  assert.ok(text.lines.includes("A 7 swaps hands with a player you choose."), text.lines);
  for (const name of Object.keys(PRESETS)) assert.ok(summary({ preset: name }).meaning !== name, name);
});
