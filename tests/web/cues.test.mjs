// cues.js: which sounds a change of the table makes, who joined the room, and the
// notices while the tab is hidden.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cuesFor, joinedSeats, noticesFor } from "../../src/unokit/web/static/cues.js";

const QUIET = { events: [], wasMust: false, must: false, screen: "table" };

test("the turn cue sounds when the page's turn has just come, at the table", () => {
  assert.deepEqual(cuesFor({ ...QUIET, must: true }), ["turn"]);
  assert.deepEqual(cuesFor({ ...QUIET, wasMust: true, must: true }), [], "still the same turn (a card drawn)");
  assert.deepEqual(cuesFor({ ...QUIET, wasMust: null, must: true }), [], "the first look at a table is no new turn");
  assert.deepEqual(cuesFor({ ...QUIET, must: true, screen: "round-end" }), []);
});

test("an UNO call and a catch each make their cue once", () => {
  const events = [{ kind: "played", player: 1, card: "R5" }, { kind: "uno_called", player: 1 },
    { kind: "caught", player: 2, target: 0 }, { kind: "caught", player: 2, target: 3 }];
  assert.deepEqual(cuesFor({ ...QUIET, events }), ["uno", "catch"]);
  assert.deepEqual(cuesFor({ ...QUIET, events: [{ kind: "drew", player: 0, amount: 1 }] }), []);
});

const room = (...kinds) => ({ seats: kinds.map((kind, seat) => ({ seat, kind, name: kind === "human" ? "P" + seat : "" })) });

test("a person taking a seat is a friend joining; a bot, a rename or the first look is not", () => {
  assert.deepEqual(joinedSeats(room("human", "empty", "empty"), room("human", "human", "empty"), 0), [1]);
  assert.deepEqual(joinedSeats(room("human", "empty"), room("human", "bot"), 0), []);
  assert.deepEqual(joinedSeats(null, room("human", "human"), 0), []);
  assert.deepEqual(joinedSeats(room("empty", "human"), room("human", "human"), 0), [], "the page's own seat");
  const renamed = room("human", "human");
  renamed.seats[1].name = "Bea";
  assert.deepEqual(joinedSeats(room("human", "human"), renamed, 0), []);
  assert.deepEqual(joinedSeats(room("human", "empty", "empty"), room("human", "human", "human"), null), [1, 2]);
});

test("notices come only while the tab is hidden", () => {
  assert.deepEqual(noticesFor({ cues: ["turn"], joined: [2], hidden: false }), []);
  assert.deepEqual(noticesFor({ cues: ["turn", "uno"], joined: [2], hidden: true }), [{ kind: "join", seat: 2 }, { kind: "turn" }]);
  assert.deepEqual(noticesFor({ cues: ["catch"], joined: [], hidden: true }), []);
});
