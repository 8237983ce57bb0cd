// net.js: the reconnect schedule, the gap in `seq`, and the Link's messages across a
// lost connection, with a fake WebSocket and fake timers (node:test's mock timers).
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { BACKOFF, Link, RECONNECT_MAX, SEAT_GONE, gapAfter, newSeatToken, reconnectDelay, seatGone } from "../../src/unokit/web/static/net.js";

// What net.js reads of a browser (when a Link is made, not when it is imported): the page's address, its storage, its events.
const listeners = {};
globalThis.window = {
  addEventListener: (name, fn) => { listeners[name] = fn; },
  removeEventListener: (name) => { delete listeners[name]; },
};
globalThis.location = { protocol: "http:", host: "example.test" };
const storage = new Map();
globalThis.localStorage = {
  getItem: (key) => (storage.has(key) ? storage.get(key) : null),
  setItem: (key, value) => storage.set(key, String(value)),
  removeItem: (key) => storage.delete(key),
};

// A WebSocket that the test opens, answers and closes by hand.
const sockets = [];
class FakeSocket {
  static get all() { return sockets; }
  constructor(url) {
    this.url = url;
    this.sent = [];
    this.closed = false;
    FakeSocket.all.push(this);
  }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() {
    if (this.closed) return;
    this.closed = true;
    if (this.onclose) this.onclose();
  }
  // the server's side
  accept() { this.onopen(); }
  say(msg) { this.onmessage({ data: JSON.stringify(msg) }); }
  drop() { this.close(); }
}
globalThis.WebSocket = FakeSocket;


function newLink(code = "ROOM") {
  const seen = { messages: [], states: [], queued: [], dropped: [] };
  const link = new Link(code, { name: "Ann", lang: "en" }, {
    message: (msg) => seen.messages.push(msg),
    state: (s) => seen.states.push(s),
    queued: (n) => seen.queued.push(n),
    dropped: (msgs) => seen.dropped.push(...msgs),
  });
  return { link, seen };
}

const last = () => FakeSocket.all.at(-1);

function joined(link, seat = 0) {
  link.open();
  last().accept();
  last().say({ type: "welcome", seat, token: "tok", last_seq: -1, room: {} });
}

test("the reconnects: at once, then growing pauses, never over RECONNECT_MAX", () => {
  assert.equal(reconnectDelay(0), 0);
  assert.equal(BACKOFF[0], 0);
  for (let tries = 0; tries < 50; tries++) {
    assert.ok(reconnectDelay(tries, () => 0.999) <= RECONNECT_MAX, tries);
    assert.ok(reconnectDelay(tries, () => 0) >= 0, tries);
  }
  assert.ok(RECONNECT_MAX < 1000, "back within a second of the server being ready");
  assert.ok(reconnectDelay(1, () => 0) < reconnectDelay(3, () => 0), "the pauses grow");
});

test("a gap in seq is seen; the next event, or events already had, are not a gap", () => {
  assert.equal(gapAfter(-1, [{ seq: 0 }]), false);
  assert.equal(gapAfter(4, [{ seq: 5 }, { seq: 6 }]), false);
  assert.equal(gapAfter(4, [{ seq: 3 }, { seq: 4 }, { seq: 5 }]), false);
  assert.equal(gapAfter(4, [{ seq: 3 }, { seq: 4 }]), false);
  assert.equal(gapAfter(4, []), false);
  assert.equal(gapAfter(4, [{ seq: 6 }]), true);
  assert.equal(gapAfter(-1, [{ seq: 2 }]), true);
});

test("a lost connection is tried again at once, then after the pauses", () => {
  mock.timers.enable();
  try {
    FakeSocket.all.length = 0;
    const { link, seen } = newLink();
    joined(link);
    last().drop();
    assert.equal(FakeSocket.all.length, 2, "the first try is made at once, without a timer");
    assert.equal(seen.states.at(-1), "reconnecting");
    last().drop(); // the server is still away
    assert.equal(FakeSocket.all.length, 2);
    mock.timers.tick(RECONNECT_MAX);
    assert.equal(FakeSocket.all.length, 3);
    for (let i = 0; i < 10; i++) {
      last().drop();
      mock.timers.tick(RECONNECT_MAX);
    }
    assert.equal(FakeSocket.all.length, 13, "every try within RECONNECT_MAX of the last");
    last().accept();
    assert.equal(last().sent[0].type, "hello");
    assert.equal(last().sent[0].token, "tok");
    link.close();
  } finally {
    mock.timers.reset();
  }
});

test("a join whose welcome was lost is sent again with the token the page made for it", () => {
  FakeSocket.all.length = 0;
  storage.clear();
  const { link } = newLink("JOIN");
  link.open();
  last().accept();
  const first = last().sent[0];
  assert.equal(first.token, undefined);
  assert.match(first.new_token, /^[A-Za-z0-9_-]{24}$/);
  last().drop(); // the server went before its welcome came: tried again at once
  last().accept();
  assert.equal(last().sent[0].new_token, first.new_token, "the same join, so the same seat");
  last().say({ type: "welcome", seat: 1, token: first.new_token, last_seq: -1, room: {} });
  last().drop(); // once seated, the page comes back with the token
  last().accept();
  assert.equal(last().sent[0].token, first.new_token);
  assert.equal(last().sent[0].new_token, undefined);
  link.close();
});

test("a seat token is 18 random bytes in 24 URL-safe characters", () => {
  const ones = newSeatToken((bytes) => bytes.fill(255));
  assert.equal(ones, "_".repeat(24));
  const twos = newSeatToken((bytes) => bytes.fill(251));
  assert.equal(twos, "-_v7".repeat(6));
  assert.notEqual(newSeatToken(), newSeatToken());
});

test("a move made offline is counted as queued, sent on the resume, and answered", () => {
  mock.timers.enable();
  try {
    FakeSocket.all.length = 0;
    const { link, seen } = newLink();
    joined(link);
    last().say({ type: "events", events: [{ seq: 0, kind: "round_started" }, { seq: 1, kind: "start_card", card: "R1" }] });
    last().drop(); // the connection is lost; the try made at once finds no server yet
    const id = link.send({ type: "act", action: "draw" });
    assert.equal(seen.queued.at(-1), 1, "the move waits, and says so");
    assert.equal(last().sent.length, 0, "nothing is sent on a connection not yet open");
    last().drop();
    mock.timers.tick(RECONNECT_MAX);
    assert.equal(seen.queued.at(-1), 1, "still waiting after a failed try");
    last().accept();
    assert.equal(last().sent[0].last_seq, 1, "the hello resumes after the last event");
    last().say({ type: "welcome", seat: 0, last_seq: 1, room: {} });
    assert.deepEqual(last().sent.slice(1).map((m) => m.id), [id], "sent again with its id");
    assert.equal(seen.queued.at(-1), 0);
    last().say({ type: "events", events: [{ seq: 2, kind: "drew", player: 0, amount: 1 }], ack: { id, seq: 2 } });
    assert.equal(link.pending.size, 0, "answered: nothing waits");
    link.close();
  } finally {
    mock.timers.reset();
  }
});

test("events after a gap are not applied: the connection resumes from the last event", () => {
  FakeSocket.all.length = 0;
  const { link, seen } = newLink();
  joined(link);
  const first = last();
  first.say({ type: "events", events: [{ seq: 0, kind: "round_started" }, { seq: 1, kind: "dealt" }] });
  const before = seen.messages.length;
  first.say({ type: "events", events: [{ seq: 4, kind: "played" }] });
  assert.equal(seen.messages.length, before, "the events after the gap are not handed on");
  assert.equal(first.closed, true);
  assert.equal(FakeSocket.all.length, 2, "a new connection, at once");
  last().accept();
  assert.equal(last().sent[0].type, "hello");
  assert.equal(last().sent[0].last_seq, 1);
  last().say({ type: "welcome", seat: 0, last_seq: 4, room: {} });
  last().say({ type: "events", events: [{ seq: 2, kind: "dealt" }, { seq: 3, kind: "start_card" }, { seq: 4, kind: "played" }] });
  assert.deepEqual(seen.messages.at(-1).events.map((e) => e.seq), [2, 3, 4]);
  assert.equal(link.lastSeq, 4);
  link.close();
});

test("moves that can never go (the room ended the connection) are handed back", () => {
  FakeSocket.all.length = 0;
  const { link, seen } = newLink();
  joined(link);
  last().drop(); // lost; the try made at once opens, the hello goes
  const id = link.send({ type: "act", action: "draw" });
  last().accept();
  last().say({ type: "error", code: "room_closed", message: "the room was closed" });
  assert.deepEqual(seen.dropped.map((m) => m.id), [id]);
  assert.equal(link.pending.size, 0);
  assert.equal(seen.queued.at(-1), 0);
  assert.equal(link.stopped, true, "no more tries");
  link.close();
});

test("moves of a seat that is gone (bad_token) are handed back, and the page starts over", () => {
  FakeSocket.all.length = 0;
  const { link, seen } = newLink();
  joined(link);
  last().drop();
  const id = link.send({ type: "act", action: "R5" });
  last().accept();
  assert.equal(last().sent[0].token, "tok");
  last().say({ type: "error", code: "bad_token", message: "no such seat" });
  assert.deepEqual(seen.dropped.map((m) => m.id), [id]);
  assert.equal(seen.messages.some((m) => m.type === "reset"), true);
  assert.equal(globalThis.localStorage.getItem("unokit.token.ROOM"), null, "the dead token is forgotten");
  assert.equal(link.stopped, false, "it joins again, as a new player");
  link.close();
});

test("a bye whose code says the seat is gone forgets the token, whatever the language", () => {
  for (const code of SEAT_GONE) {
    FakeSocket.all.length = 0;
    const { link } = newLink("GONE" + code);
    joined(link);
    assert.equal(globalThis.localStorage.getItem("unokit.token.GONE" + code), "tok");
    // the reason in Russian: no English word for a pattern to find
    last().say({ type: "bye", code, reason: "хозяин комнаты вас удалил", reconnect: false });
    assert.equal(globalThis.localStorage.getItem("unokit.token.GONE" + code), null, code);
    assert.equal(link.stopped, true);
    link.close();
  }
});

test("a bye that keeps the seat keeps the token, even when its words say 'left' or 'kick'", () => {
  for (const [code, reconnect] of [["flood", false], ["restarting", true], ["moved", true], ["unavailable", true]]) {
    FakeSocket.all.length = 0;
    const { link } = newLink("KEEP" + code);
    joined(link);
    last().say({ type: "bye", code, reason: "you left no room to kick: too many refused messages", reconnect });
    assert.equal(globalThis.localStorage.getItem("unokit.token.KEEP" + code), "tok", code);
    link.close();
  }
  assert.equal(seatGone({ type: "bye", reason: "the host sent you away", reconnect: false }), false, "no code, no guess");
  assert.equal(seatGone({ type: "error", code: "kicked" }), false);
  assert.equal(seatGone({ type: "bye", code: "left" }), true);
});
