// The server: its HTTP API and the game's WebSocket, with reconnect and resume.
// A dropped connection comes back by itself: a first try at once, then after pauses
// that grow to at most RECONNECT_MAX (so the page is back within a second of the server
// being ready after a restart), and resumes with the seat token and the last event
// seen. Events that arrive after a gap in `seq` (some were lost) are not applied: the
// connection starts over and resumes from the last event before the gap. Unanswered
// messages are sent again with their ids (the server applies each id at most once);
// those made while the connection is away are counted (`queued`) until they go. A
// message the server did not keep (`not_stored`, `unavailable`: its database is away)
// stays pending and is sent again with its id after the error's `retry_after`, then
// after longer pauses (up to 1.5 s), until it is answered: the page shows it as
// "saving", and nothing is dropped. Messages that can never go (the room ended the
// connection for good) are handed back (`dropped`), for the page to explain.

import { BASE } from "./dom.js";
import { _, language } from "./i18n.js";

// The HTTP API answers in the language chosen on the page (its errors' texts), not the
// browser's: every call says it in Accept-Language.
export async function api(path, body) {
  const headers = { "Accept-Language": language() };
  const init = body === undefined ? { headers } : {
    method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  let response;
  try {
    response = await fetch(BASE + path, init);
  } catch {
    // the browser's own text ("Failed to fetch") is in its language, not the page's
    const error = new Error(_("The server cannot be reached: check the connection."));
    error.code = "offline";
    throw error;
  }
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) {
    const error = new Error((data && data.message) || _("The server answered with an error ({status}).", { status: response.status }));
    error.code = (data && data.error) || "http_" + response.status;
    throw error;
  }
  return data;
}

// The `bye` codes that say the seat is gone (protocol.SEAT_GONE): its token is of no
// use any more, and the next visit joins as a new player (docs/protocol.md, bye).
export const SEAT_GONE = new Set(["kicked", "left", "removed", "closed"]);

// Whether the `bye` message `msg` takes the seat away: decided on its code, never on
// the words of its reason (they are in the page's language).
//   seatGone({ type: "bye", code: "kicked", reason: "хозяин комнаты вас удалил" }) === true
export function seatGone(msg) {
  return !!msg && msg.type === "bye" && SEAT_GONE.has(msg.code);
}

// A seat token made by the page for the seat it asks for (the hello's new_token): 18
// random bytes as 24 URL-safe characters.
export function newSeatToken(random = (bytes) => crypto.getRandomValues(bytes)) {
  const bytes = random(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
}

export function tokenKey(code) {
  return "unokit.token." + code;
}

function stored(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}

function store(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch { /* private mode: the seat lasts as long as the page */ }
}

// The pauses before the reconnects after a lost connection (the first try is at once),
// the last repeated: never more than RECONNECT_MAX, so that a restarted server sees the
// page again within a second of being ready. A failed try costs the server nothing
// (no server listens) or one refused handshake.
export const BACKOFF = [0, 200, 400, 800];
export const RECONNECT_MAX = 800;

// Milliseconds before reconnect number `tries` (0, 1, ...): at once, then growing, with
// a little jitter (`random()` in [0, 1)) so that the pages of a restarted server do not
// all come back in the same millisecond.
export function reconnectDelay(tries, random = Math.random) {
  const base = BACKOFF[Math.min(Math.max(tries, 0), BACKOFF.length - 1)];
  return Math.round(base * (0.75 + 0.25 * random()));
}
// Error codes that say "nothing was kept: send it again" (`closing` waits for the
// reconnect; the others are sent again on the same connection after a pause).
export const RESEND = new Set(["not_stored", "unavailable"]);
export const LONGEST_RESEND = 1500;

// Milliseconds before sending a message again after its `tries`-th refusal (1, 2, ...):
// the server's `retry_after` (seconds; else half a second), doubled each time, capped.
export function resendPause(retryAfter, tries) {
  const first = typeof retryAfter === "number" && retryAfter > 0 ? retryAfter * 1000 : 500;
  return Math.min(LONGEST_RESEND, first * 2 ** Math.min(tries - 1, 16));
}
const PING_EVERY = 25000;
const PONG_WITHIN = 10000; // no message this long after a ping: the connection is dead

export class Link {
  // on: {message(msg), state(online|reconnecting|offline), answer(id, msg, sent),
  //      saving(count): how many messages wait to be sent again,
  //      queued(count): how many messages wait for the connection,
  //      dropped(messages): messages that will never be sent (the connection ended)}
  constructor(code, options, on) {
    this.code = code;
    this.options = options; // {name, spectate, lang, contribution}
    this.on = on;
    this.ws = null;
    this.lastSeq = -1;
    this.match = ""; // the fair-deal commitment of the match lastSeq counts in (a rematch has a new one)
    this.pending = new Map(); // id -> message, until acked or refused
    this.unsent = new Set(); // ids of pending messages not sent on this connection yet
    this.saving = new Map(); // id -> refusals so far, of messages the server did not keep
    this.resends = new Map(); // id -> the timer that sends it again
    this.counter = 0;
    this.prefix = Math.random().toString(36).slice(2, 8);
    this.tries = 0;
    this.stopped = false;
    this.ready = false;
    this.timer = null;
    this.pinger = null;
    this.deadline = null;
    // A connection can die without a close event (a network that stops answering, the
    // browser going offline): the pong deadline and the offline event notice it.
    this.onOffline = () => { if (this.ws) this.lost(this.ws); };
    this.onOnline = () => {
      if (this.stopped || this.ws) return;
      clearTimeout(this.timer);
      this.tries = 0;
      this.open();
    };
    window.addEventListener("offline", this.onOffline);
    window.addEventListener("online", this.onOnline);
  }

  get token() {
    return stored(tokenKey(this.code));
  }

  open() {
    this.stopped = false;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(scheme + "//" + location.host + BASE + "/ws");
    this.ws = ws;
    this.ready = false;
    ws.onopen = () => {
      // ack_in_events: the ack of this page's game action comes inside the events it
      // made (one message instead of two); receive() takes it out first
      const hello = { type: "hello", room: this.code, v: 1, lang: this.options.lang || "",
                      ack_in_events: true };
      const token = this.token;
      if (token && !this.options.spectate) {
        hello.token = token;
        hello.last_seq = this.lastSeq;
        hello.commitment = this.match;
      } else if (this.options.spectate) {
        hello.spectate = true;
        hello.last_seq = this.lastSeq;
      } else {
        // the seat's token, made here: the same hello sent again after its answer was
        // lost (a restart, a network cut) gets back the seat it took, not "taken"
        if (!this.newToken) this.newToken = newSeatToken();
        hello.new_token = this.newToken;
        if (this.options.name) hello.name = this.options.name;
        // a new seat takes the deal's contribution with it (a "play now" room deals at once)
        if (this.options.contribution) hello.contribution = this.options.contribution;
      }
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      clearTimeout(this.deadline);
      let msg;
      try { msg = JSON.parse(event.data); } catch { return; }
      this.receive(msg);
    };
    ws.onclose = () => this.lost(ws);
  }

  // The connection ``ws`` is gone (closed, or found dead): come back with backoff.
  lost(ws) {
    if (this.ws !== ws) return;
    this.ws = null;
    this.ready = false;
    clearInterval(this.pinger);
    clearTimeout(this.deadline);
    try { ws.close(); } catch { /* already closed */ }
    if (this.stopped) {
      this.on.state("offline");
      return;
    }
    this.on.state("reconnecting");
    for (const id of this.pending.keys()) this.unsent.add(id);
    this.tellQueued();
    const wait = reconnectDelay(this.tries);
    this.tries += 1;
    clearTimeout(this.timer);
    if (wait <= 0) this.open();
    else this.timer = setTimeout(() => this.open(), wait);
  }

  // Events after a gap: start the connection over, resuming from `lastSeq` (the
  // server sends every event after it).
  resume() {
    const ws = this.ws;
    if (!ws) return;
    this.tries = 0;
    this.lost(ws);
  }

  tellQueued() {
    if (this.on.queued) this.on.queued(this.unsent.size);
  }

  ping() {
    const ws = this.ws;
    if (!ws || !this.ready) return;
    this.raw({ type: "ping", id: "" });
    clearTimeout(this.deadline);
    this.deadline = setTimeout(() => this.lost(ws), PONG_WITHIN);
  }

  receive(msg) {
    if ((msg.type === "welcome" || msg.type === "room") && msg.room) {
      // a rematch: a new match whose events count from the first again
      if (this.match && msg.room.commitment !== this.match) this.lastSeq = -1;
      this.match = msg.room.commitment || "";
    }
    if (msg.type === "welcome") {
      this.ready = true;
      this.tries = 0;
      if (msg.token) {
        store(tokenKey(this.code), msg.token);
        this.newToken = "";
      }
      this.on.state("online");
      for (const sent of this.pending.values()) this.ws.send(JSON.stringify(sent));
      this.unsent.clear();
      this.tellQueued();
      this.on.message(msg);
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.ping(), PING_EVERY);
      return;
    }
    if (msg.type === "events") {
      // events after a gap (one was lost on the way): none of them is applied, and the
      // connection resumes from the last event before the gap
      if (gapAfter(this.lastSeq, msg.events)) {
        this.resume();
        return;
      }
      // the ack first, as when it comes on its own: the action was stored, then applied
      if (msg.ack && msg.ack.id) this.receive({ ...msg.ack, type: "ack" });
      for (const e of msg.events || []) this.lastSeq = Math.max(this.lastSeq, e.seq);
    }
    if (msg.type === "error" && !this.ready) {
      // the hello was refused: a stale token starts over as a new player
      if (RESEND.has(msg.code) || msg.code === "closing") {
        // the server could not take the hello now: the reconnect says it again, about
        // a second later (not after the long pauses of a dead network)
        this.tries = BACKOFF.length - 1;
      } else if (msg.code === "bad_token") {
        store(tokenKey(this.code), null);
        this.lastSeq = -1;
        // the seat's moves cannot go any more: the new seat is someone else's
        this.drop();
        this.on.message({ type: "reset" });
      } else {
        this.stopped = true;
        this.drop();
      }
    }
    if (msg.type === "bye" && msg.reconnect === false) {
      this.stopped = true;
      this.drop();
      if (seatGone(msg)) store(tokenKey(this.code), null);
    }
    if (msg.type === "error" && msg.code === "closing" && msg.id && this.pending.has(msg.id)) {
      // the server is restarting and did not take it: it goes again after the reconnect
      return;
    }
    if (msg.type === "error" && RESEND.has(msg.code) && msg.id && this.pending.has(msg.id)) {
      this.resendLater(msg.id, msg.retry_after);
      return;
    }
    if ((msg.type === "ack" || msg.type === "error" || msg.type === "snapshot") && msg.id) {
      const sent = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      this.saved(msg.id);
      if (this.unsent.delete(msg.id)) this.tellQueued();
      if (this.on.answer) this.on.answer(msg.id, msg, sent);
    }
    this.on.message(msg);
  }

  // The server did not keep the pending message `id`: send it again, same id, later.
  resendLater(id, retryAfter) {
    const tries = (this.saving.get(id) || 0) + 1;
    this.saving.set(id, tries);
    clearTimeout(this.resends.get(id));
    this.resends.set(id, setTimeout(() => {
      this.resends.delete(id);
      const sent = this.pending.get(id);
      if (sent && this.ws && this.ready) this.ws.send(JSON.stringify(sent));
    }, resendPause(retryAfter, tries)));
    if (this.on.saving) this.on.saving(this.saving.size);
  }

  // The message `id` was answered: it is not being saved any more.
  saved(id) {
    clearTimeout(this.resends.get(id));
    this.resends.delete(id);
    if (this.saving.delete(id) && this.on.saving) this.on.saving(this.saving.size);
  }

  // Every pending message will never be sent: hand them to `on.dropped`.
  drop() {
    const gone = [...this.pending.values()];
    this.pending.clear();
    this.unsent.clear();
    for (const id of [...this.saving.keys()]) this.saved(id);
    this.tellQueued();
    if (gone.length && this.on.dropped) this.on.dropped(gone);
  }

  raw(msg) {
    if (this.ws && this.ready) this.ws.send(JSON.stringify(msg));
  }

  // Send a message with a fresh id; it is sent again after a reconnect until answered.
  send(msg) {
    this.counter += 1;
    const full = { ...msg, id: this.prefix + "-" + this.counter };
    if (msg.type !== "snapshot") this.pending.set(full.id, full);
    if (this.ws && this.ready) this.ws.send(JSON.stringify(full));
    else if (msg.type !== "snapshot") {
      this.unsent.add(full.id);
      this.tellQueued();
    }
    return full.id;
  }

  close() {
    this.stopped = true;
    for (const timer of this.resends.values()) clearTimeout(timer);
    this.resends.clear();
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    clearTimeout(this.deadline);
    window.removeEventListener("offline", this.onOffline);
    window.removeEventListener("online", this.onOnline);
    if (this.ws) this.ws.close();
    this.ws = null;
  }
}

// Whether `events` (an events message's, in order) skip one after `lastSeq`: their first
// new event is not the next one. A first join or a reset (`lastSeq` -1) starts at 0.
export function gapAfter(lastSeq, events) {
  const next = (events || []).find((e) => e.seq > lastSeq);
  return !!next && next.seq > lastSeq + 1;
}
