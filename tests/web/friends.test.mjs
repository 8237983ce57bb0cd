// Friends at one table: the name form's logic, who may ask for a rematch, the seconds a
// server deadline leaves, and what the store does with countdown, timed_out and a
// rematch's new commitment.
import { test } from "node:test";
import assert from "node:assert/strict";
import { asksName, cleanName, mayRematch, newContribution, secondsLeft, NAME_LIMIT } from "../../src/unokit/web/static/friends.js";
import { initialState, newMatch, receive } from "../../src/unokit/web/static/store.js";

const seat = (n, extra = {}) => ({ seat: n, kind: "human", name: "P" + n, connected: true, ...extra });
const room = (status, seats, extra = {}) => ({ code: "ABCDEF", status, seats, commitment: "c1", ...extra });

test("a name is trimmed and cut to the server's limit", () => {
  assert.equal(cleanName("  Ann  "), "Ann");
  assert.equal(cleanName(null), "");
  assert.equal(Array.from(cleanName("é".repeat(40))).length, NAME_LIMIT);
  assert.equal(cleanName("🙂".repeat(40)), "🙂".repeat(NAME_LIMIT)); // characters, not UTF-16 units
});

test("the name form shows for an invite link without a seat, never for a spectator or a seat holder", () => {
  assert.equal(asksName({ invited: true, token: null, spectate: false }), true);
  assert.equal(asksName({ invited: true, token: "t", spectate: false }), false);
  assert.equal(asksName({ invited: true, token: null, spectate: true }), false);
  assert.equal(asksName({ invited: false, token: null, spectate: false }), false);
});

test("the host asks for a rematch, or anyone when the host is not connected", () => {
  const seats = [seat(0, { host: true }), seat(1), { seat: 2, kind: "bot" }];
  assert.equal(mayRematch(room("finished", seats), 0), true);
  assert.equal(mayRematch(room("finished", seats), 1), false);
  assert.equal(mayRematch(room("finished", seats), 2), false); // a bot's seat
  assert.equal(mayRematch(room("finished", seats), null), false); // a spectator
  assert.equal(mayRematch(room("playing", seats), 0), false);
  const away = [seat(0, { host: true, connected: false }), seat(1)];
  assert.equal(mayRematch(room("finished", away), 1), true);
  assert.equal(mayRematch(room("finished", seats, { code: "ABCDEF-1" }), 0), false); // a kept match
});

test("seconds left are rounded up and never negative", () => {
  assert.equal(secondsLeft(10000, 0), 10);
  assert.equal(secondsLeft(10000, 9001), 1);
  assert.equal(secondsLeft(10000, 10000), 0);
  assert.equal(secondsLeft(10000, 12000), 0);
  assert.equal(secondsLeft(null, 0), null);
});

test("a contribution is the random bytes in hex", () => {
  const value = newContribution((a) => a.fill(171), 4);
  assert.equal(value, "abababab");
  assert.match(newContribution((a) => a.fill(1)), /^(01){12}$/);
});

test("the store takes the server's countdown and timed_out, for this seat only", () => {
  const s = initialState();
  s.code = "ABCDEF";
  s.seat = 1;
  receive(s, { type: "countdown", ms: 12000 }, 1000);
  assert.deepEqual(s.countdown, { deadline: 13000 });
  receive(s, { type: "countdown", ms: 0 }, 2000);
  assert.equal(s.countdown, null);
  receive(s, { type: "timed_out", seat: 0 });
  assert.equal(s.autoplayed, false);
  receive(s, { type: "timed_out", seat: 1 });
  assert.equal(s.autoplayed, true);
});

test("a room with a new commitment is a rematch: the last match's table goes", () => {
  const s = initialState();
  s.code = "ABCDEF";
  s.seat = 0;
  receive(s, { type: "welcome", room: room("finished", [seat(0, { host: true })]), seat: 0 });
  s.game.seq = 40;
  s.reveal = { server_seed: "x" };
  s.countdown = { deadline: 5 };
  const same = receive(s, { type: "room", room: room("finished", [seat(0, { host: true })]) });
  assert.equal(same.rematch, false);
  assert.equal(s.game.seq, 40);
  const out = receive(s, { type: "room", room: room("lobby", [seat(0, { host: true })], { commitment: "c2" }) });
  assert.equal(out.rematch, true);
  assert.equal(s.game.seq, -1);
  assert.equal(s.reveal, null);
  assert.equal(s.countdown, null);
  assert.equal(s.room.commitment, "c2");
  assert.equal(newMatch(s, null), false);
});
