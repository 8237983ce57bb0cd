// The one state of the client (store.js): subscribers, the room's messages applied, the
// screen the state asks for.
import { test } from "node:test";
import assert from "node:assert/strict";
import { changed, enterRoomState, initialState, receive, roomState, screenOf, state, subscribe, update } from "../../src/unokit/web/static/store.js";

test("update changes the state, then tells every subscriber once", () => {
  const seen = [];
  const stop = subscribe((s) => seen.push(s.showKeys));
  update((s) => { s.showKeys = true; });
  update((s) => { s.showKeys = false; });
  assert.deepEqual(seen, [true, false]);
  stop();
  update((s) => { s.showKeys = true; });
  assert.deepEqual(seen, [true, false], "an unsubscribed function is not called");
  state.showKeys = false;
});

test("a quiet update changes the state without telling the subscribers", () => {
  let calls = 0;
  const stop = subscribe(() => { calls += 1; });
  update((s) => { s.name = "Ann"; }, { quiet: true });
  assert.equal(state.name, "Ann");
  assert.equal(calls, 0);
  changed();
  assert.equal(calls, 1);
  stop();
});

test("the state's shape is declared in one place, and a room starts over on entering", () => {
  const s = initialState();
  for (const key of Object.keys(roomState("X"))) assert.ok(key in s, key);
  s.chat.push({ text: "hi" });
  s.inflight.set("a-1", "draw");
  s.game.seq = 9;
  enterRoomState(s, "ABCD");
  assert.equal(s.code, "ABCD");
  assert.deepEqual(s.chat, []);
  assert.equal(s.inflight.size, 0);
  assert.equal(s.game.seq, -1);
  assert.equal(s.form.bots, false, "the form's fields are declared, not added later");
  assert.equal(s.verify, null);
});

const ROOM = { code: "ABCD", status: "playing", seats: [{ seat: 0, kind: "human" }, { seat: 1, kind: "bot" }] };

test("welcome takes the seat; a welcome without one is a spectator's", () => {
  const s = initialState();
  enterRoomState(s, "ABCD");
  assert.equal(receive(s, { type: "welcome", room: ROOM, seat: 1 }).welcome, true);
  assert.equal(s.seat, 1);
  assert.equal(s.spectator, false);
  receive(s, { type: "welcome", room: ROOM });
  assert.equal(s.seat, null);
  assert.equal(s.spectator, true);
});

test("events are applied once; a round's start asks for a snapshot", () => {
  const s = initialState();
  enterRoomState(s, "ABCD");
  receive(s, { type: "welcome", room: ROOM, seat: 0 });
  const msg = { type: "events", events: [
    { seq: 0, kind: "round_started", player: 1, amount: 1 },
    { seq: 1, kind: "dealt", player: 0, amount: 2, cards: ["R1", "G2"] },
    { seq: 2, kind: "dealt", player: 1, amount: 2 },
    { seq: 3, kind: "start_card", card: "R5" },
  ], lead: 0, phase: "play", legal: ["R1", "draw"], must: true };
  const out = receive(s, msg);
  assert.deepEqual(out.fresh.map((e) => e.seq), [0, 1, 2, 3]);
  assert.equal(out.snapshot, true);
  assert.equal(s.game.needSnapshot, false, "the request is handed out once");
  assert.deepEqual(s.game.hand, ["R1", "G2"]);
  assert.deepEqual(s.game.sizes, [2, 2]);
  assert.equal(screenOf(s), "table");
  // the same message again (a resend after a resume) changes nothing
  assert.deepEqual(receive(s, msg).fresh, []);
  assert.deepEqual(s.game.hand, ["R1", "G2"]);
});

test("a snapshot older than the events shown is asked for again, not adopted", () => {
  const s = initialState();
  enterRoomState(s, "ABCD");
  s.game.seq = 5;
  s.game.hand = ["R1"];
  const out = receive(s, { type: "snapshot", seq: 3, view: { hand: ["B9"], hand_sizes: [1, 1] } });
  assert.equal(out.snapshot, true);
  assert.deepEqual(s.game.hand, ["R1"]);
  receive(s, { type: "snapshot", seq: 6, view: { hand: ["B9"], hand_sizes: [1, 1] }, legal: ["B9"], must: true });
  assert.deepEqual(s.game.hand, ["B9"]);
  assert.equal(s.game.seq, 6);
  assert.equal(s.game.must, true);
});

test("a chat line sent again after a resume shows once", () => {
  const s = initialState();
  enterRoomState(s, "ABCD");
  const line = { type: "chat", seat: 0, at: 12, text: "gg" };
  assert.equal(receive(s, line).chat, line);
  assert.equal(receive(s, { ...line }).chat, null);
  assert.equal(s.chat.length, 1);
});

test("the turn clock's deadline counts from the message's arrival", () => {
  const s = initialState();
  receive(s, { type: "timer", seat: 1, ms: 15000 }, 1000);
  assert.deepEqual(s.timer, { seat: 1, deadline: 16000 });
  receive(s, { type: "timer", seat: 1, ms: 0 }, 2000);
  assert.equal(s.timer, null);
});

test("the screen follows the room and the game", () => {
  const s = initialState();
  assert.equal(screenOf(s), "lobby");
  enterRoomState(s, "ABCD");
  assert.equal(screenOf(s), "room");
  s.room = { ...ROOM, status: "lobby" };
  assert.equal(screenOf(s), "room");
  s.room = ROOM;
  s.game.phase = "round_over";
  s.game.roundEnd = { winner: 0 };
  assert.equal(screenOf(s), "round-end");
  s.game.matchEnd = { winner: 0 };
  assert.equal(screenOf(s), "match-end");
});
