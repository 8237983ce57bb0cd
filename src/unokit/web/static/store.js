// The client's one state: every screen reads it and renders; every change goes through
// update() (or changed() after a change made here), which tells the subscribers (the
// hub's render). Its shape is declared once, in initialState(). No DOM here, so that
// `node --test` runs it (tests/web/store.test.mjs).
//
//   import { state, subscribe, update } from "./store.js";
//   subscribe(() => render());
//   update((s) => { s.showKeys = !s.showKeys; });   // render runs once, after the change
import { adopt, applyMessage, choices, newGame } from "./game.js";

// The state of a page that has just opened: the lobby, no room.
export function initialState() {
  return {
    screen: "lobby", // the screen shown last (lobby, room, table, round-end, match-end)
    name: "", // the player's name, kept in localStorage
    presets: [], // GET /api/presets
    openRooms: [], // GET /api/rooms
    // the lobby's forms: the new room (bots: fill the other seats) and the host's bot level
    form: { preset: "online", seats: 4, bot: "normal", timer: 0, overrides: {}, bots: false, addBot: "normal" },
    joinCode: "",
    ...roomState(null),
    conn: "online", // online | reconnecting | offline
    saving: 0, // messages the server did not keep yet (sent again until it does)
    queued: 0, // messages made while offline, sent when the connection is back
    showKeys: false,
    muted: false, // the table's sounds are off (kept in localStorage: effects.js)
    notify: false, // a system notification while the tab is hidden (the player allowed it)
  };
}

// The part of the state that belongs to one room: all of it is new on entering a room.
export function roomState(code) {
  return {
    code, // the room's code, null in the lobby
    room: null, // the room as the server last described it (welcome, room)
    seat: null, // this page's seat, null for a spectator
    spectator: false,
    game: newGame(), // the table, from the events (game.js)
    chat: [], // the chat lines shown
    chatSeen: new Set(), // their keys, so that a line sent again after a resume shows once
    chatDraft: "",
    timer: null, // {seat, deadline}: the turn clock running
    reveal: null, // the server's seed, after the match
    verify: null, // the fairness checks of the finished match (GET .../verify)
    inflight: new Map(), // game actions sent and not answered (id -> text): not sent twice
    picker: null, // choosing a wild's colour: {card, texts}
    targetPick: null, // choosing a seat (7-0 swap, five_exchange): {card, texts}
    exchangePick: null, // choosing the card to give: {card, seat, texts}
    unoArmed: false, // the next play carries the UNO call
    multi: { on: false, picked: [] }, // multi_play: the cards chosen ({card, k}: the k-th of that code)
    autoplayed: false, // the turn timer ran out and a bot played for this seat (the server's timed_out)
    countdown: null, // {deadline}: the next round starts by itself then (the server's countdown)
    askName: false, // came by an invite link with no seat yet: the name form shows first
  };
}

export const state = initialState();

const listeners = new Set();

// Call `fn(state)` after every change; returns the function that stops it.
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// Tell the subscribers that the state changed.
export function changed() {
  for (const fn of [...listeners]) fn(state);
}

// Change the state with `change(state)`, then tell the subscribers (unless `quiet`:
// a text field's keystroke changes the state without a new screen).
export function update(change, { quiet = false } = {}) {
  change(state);
  if (!quiet) changed();
}

// The screen `screen` is drawn: it is the one shown, and the table's effects (a card
// flying in, cards drawn, a penalty) have played.
export function shown(s, screen) {
  s.screen = screen;
  s.game.fx = { top: false, drawn: 0, penalty: {} };
}

// Enter the room `code` (or the lobby for null): every room field starts over.
export function enterRoomState(s, code) {
  Object.assign(s, roomState(code));
}

// The screen the state asks for.
export function screenOf(s) {
  if (!s.code) return "lobby";
  const g = s.game;
  if (!s.room || (s.room.status === "lobby" && g.seq < 0)) return "room";
  if (g.matchEnd || g.phase === "match_over") return "match-end";
  if (g.phase === "round_over" && g.roundEnd) return "round-end";
  return "table";
}

// A room message (the server's `welcome`, `reset`, `room`, `events`, `snapshot`,
// `timer`, `countdown`, `timed_out`, `reveal`, `chat`) applied to the state. What else it asks for comes back:
// {fresh: the new events, snapshot: ask the server for a view, chat: a new chat line,
//  welcome: a seat was taken, reveal: the match's seed came, rematch: a new match began}.
export function receive(s, msg, now = Date.now()) {
  const out = { fresh: [], snapshot: false, chat: null, welcome: false, reveal: false, rematch: false };
  const g = s.game;
  switch (msg.type) {
    case "welcome":
      out.rematch = newMatch(s, msg.room);
      s.room = msg.room;
      s.seat = msg.seat === undefined ? null : msg.seat;
      s.spectator = s.seat === null;
      out.welcome = true;
      break;
    case "reset":
      s.game = newGame();
      break;
    case "room":
      out.rematch = newMatch(s, msg.room);
      s.room = msg.room;
      break;
    case "events": {
      out.fresh = applyMessage(g, msg, s.seat);
      if (s.timer && s.timer.seat !== g.lead) s.timer = null;
      if (g.phase !== "round_over") s.countdown = null;
      if (!choices(g.legal).unoWithPlay && !g.legal.includes("uno")) s.unoArmed = false;
      keepPicks(s);
      for (const key of ["picker", "targetPick", "exchangePick"]) {
        const pick = s[key];
        if (pick && !pick.texts.some((t) => g.legal.includes(t))) s[key] = null;
      }
      if (g.needSnapshot) {
        g.needSnapshot = false;
        out.snapshot = true;
      }
      break;
    }
    case "snapshot":
      // a view older than the events already shown would undo them: ask again
      if (msg.seq < g.seq) {
        out.snapshot = true;
        break;
      }
      adopt(g, msg.view);
      g.seq = Math.max(g.seq, msg.seq);
      g.legal = msg.legal || g.legal;
      g.must = !!msg.must;
      break;
    case "timer":
      s.timer = msg.ms ? { seat: msg.seat, deadline: now + msg.ms } : null;
      break;
    case "countdown":
      s.countdown = msg.ms ? { deadline: now + msg.ms } : null;
      break;
    case "timed_out":
      if (msg.seat === s.seat) s.autoplayed = true;
      break;
    case "reveal":
      s.reveal = msg;
      out.reveal = true;
      break;
    case "chat": {
      const key = msg.seat + "|" + msg.at + "|" + msg.text;
      if (s.chatSeen.has(key)) break;
      s.chatSeen.add(key);
      s.chat.push(msg);
      out.chat = msg;
      break;
    }
    default:
      break;
  }
  return out;
}

// A room description with another fair-deal commitment than the one shown: a rematch
// began a new match in the room, so the last match's table, seed and checks go.
// Whether it did.
export function newMatch(s, room) {
  if (!s.room || !room || !s.room.commitment || room.commitment === s.room.commitment) return false;
  Object.assign(s, { game: newGame(), reveal: null, verify: null, timer: null, countdown: null, autoplayed: false });
  return true;
}

// multi_play: the chosen cards that are still in the hand (none when no combination is
// legal any more).
export function keepPicks(s) {
  const g = s.game;
  if (!choices(g.legal).multi.length) {
    s.multi = { on: false, picked: [] };
    return;
  }
  const held = {};
  for (const card of g.hand) held[card] = (held[card] || 0) + 1;
  s.multi.picked = s.multi.picked.filter((p) => p.k < (held[p.card] || 0));
}
