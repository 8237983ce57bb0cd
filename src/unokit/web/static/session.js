// The room this page is in: its connection (net.js Link), what the server's messages
// change (store.js receive) and what they ask for (a snapshot, the player's contribution
// to the deal, the fairness checks, toasts), entering and leaving rooms, and sending.
import { BASE } from "./dom.js";
import { _, language } from "./i18n.js";
import { api, Link, tokenKey } from "./net.js";
import { changed, enterRoomState, receive, state, update } from "./store.js";
import { addChatLine, addLog, announceEvent, clearRoomParts, errorText, relog, renderStatus, toast } from "./notify.js";
import { refreshLobby } from "./lobbyapi.js";
import { asksName, newContribution } from "./friends.js";

let link = null; // the room's connection (null in the lobby)
const quiet = new Set(); // ids whose refusal needs no toast (the automatic contribution)

function onMessage(msg) {
  if (msg.type === "error") {
    if (onError(msg)) changed();
    return;
  }
  if (msg.type === "bye") {
    if (msg.reconnect === false) {
      toast("bye", msg.reason || _("The connection was closed."));
      if (state.room && state.room.status === "lobby") {
        leaveRoom();
        return;
      }
    }
    changed();
    return;
  }
  const out = receive(state, msg);
  if (msg.type === "reset") relog();
  for (const e of out.fresh) addLog(e);
  if (out.fresh.length) announceEvent(out.fresh.at(-1));
  if (out.snapshot && link) link.send({ type: "snapshot" });
  if (out.chat) addChatLine(out.chat);
  if (out.rematch) relog();
  if (out.welcome || out.rematch) contribute();
  if (out.reveal) checkDeal(state.code);
  changed();
}

// A refusal: explained in a toast (some need none). False when nothing is to be shown.
function onError(msg) {
  if (!link || !link.ready) {
    if (msg.code === "room_full") {
      enterRoom(state.code, { spectate: true });
      toast(msg.code, errorText(msg.code, msg.message));
      return false;
    }
    if (msg.code === "bad_token") return false;
    toast(msg.code, errorText(msg.code, msg.message));
    if (msg.code === "no_room" || msg.code === "room_closed") {
      leaveRoom();
      return false;
    }
    return true;
  }
  if (msg.id && quiet.has(msg.id)) return true;
  if (msg.code !== "bad_token") toast(msg.code, errorText(msg.code, msg.message));
  return true;
}

function onAnswer(id) {
  update((s) => { s.inflight.delete(id); }, { quiet: true });
}

// Moves that will never be sent (the room ended this connection): said, not dropped
// silently.
function onDropped(messages) {
  if (messages.some((msg) => !quiet.has(msg.id))) toast("not_sent", errorText("not_sent"));
  update((s) => { for (const msg of messages) s.inflight.delete(msg.id); });
}

// The connection's state, or a count of its messages (saving, queued): the status and
// the banners change, not the screen.
function connection(key, value) {
  update((s) => { s[key] = value; }, { quiet: true });
  renderStatus();
}

// How many of this browser's last contributions the match page can mark as its own.
const KEPT_CONTRIBUTIONS = 20;

// A contribution to the deal from this page (null: none), remembered for the match
// page, which marks it. ?contribution=VALUE gives that value (a test's seeded
// deal), ?contribution=none none.
function contributionFor() {
  const asked = new URLSearchParams(location.search).get("contribution");
  if (asked === "none") return null;
  const value = asked && /^[A-Za-z0-9_-]{1,128}$/.test(asked) ? asked : newContribution((a) => crypto.getRandomValues(a));
  try {
    const kept = JSON.parse(localStorage.getItem("unokit.contributions")) || [];
    localStorage.setItem("unokit.contributions", JSON.stringify([...kept.filter((v) => v !== value), value].slice(-KEPT_CONTRIBUTIONS)));
  } catch { /* private mode, or a stored value that is not a list */ }
  return value;
}

// The player's contribution to the deal (in the lobby, once per seat and match; a new
// seat's hello carries one already).
function contribute() {
  if (!state.room || state.room.status !== "lobby" || state.seat === null) return;
  const mine = state.room.seats[state.seat];
  if (!mine || mine.contributed) return;
  const value = contributionFor();
  if (value) quiet.add(link.send({ type: "contribute", value }));
}

// After the reveal: run the fairness checks of the finished match (GET .../verify).
async function checkDeal(code) {
  try {
    const report = await api("/api/rooms/" + code + "/verify");
    if (state.code === code) update((s) => { s.verify = report; });
  } catch {
    update((s) => { s.verify = null; }, { quiet: true });
  }
}

export function enterRoom(code, { spectate = false, push = true, invited = false } = {}) {
  if (link) link.close();
  code = String(code || "").trim().toUpperCase();
  update((s) => {
    enterRoomState(s, code);
    s.saving = 0;
    s.queued = 0;
  }, { quiet: true });
  clearRoomParts();
  if (push && location.pathname !== BASE + "/r/" + code) {
    history.pushState({}, "", BASE + "/r/" + code + location.search);
  }
  link = null;
  const token = (() => { try { return localStorage.getItem(tokenKey(code)); } catch { return null; } })();
  if (asksName({ invited, token, spectate })) {
    update((s) => { s.askName = true; });
    return;
  }
  connect(code, spectate);
}

// Sit down in the room this page asked a name for (the name form's answer).
export function chooseName(name) {
  update((s) => { s.name = name; s.askName = false; }, { quiet: true });
  if (state.code) connect(state.code, false);
}

function connect(code, spectate) {
  let token = null;
  try { token = localStorage.getItem(tokenKey(code)); } catch { token = null; }
  const contribution = spectate || token ? null : contributionFor();
  link = new Link(code, { name: state.name, spectate, lang: language(), contribution }, {
    message: onMessage,
    state: (conn) => connection("conn", conn),
    saving: (count) => connection("saving", count),
    queued: (count) => connection("queued", count),
    answer: onAnswer,
    dropped: onDropped,
  });
  link.open();
  changed();
}

// Back to the lobby (`push`: a new history entry).
export function leaveRoom({ push = true } = {}) {
  if (link) link.close();
  link = null;
  update((s) => {
    enterRoomState(s, null);
    s.conn = "online";
    s.saving = 0;
    s.queued = 0;
  }, { quiet: true });
  if (push && location.pathname !== BASE + "/") history.pushState({}, "", BASE + "/" + location.search);
  refreshLobby();
  changed();
}

// Send a message to the room; its id (null outside a room).
export function send(msg) {
  if (!link) return null;
  return link.send(msg);
}

// A game action (its text): not sent again while the same one waits for its answer.
export function act(text) {
  const waiting = [...state.inflight.values()].includes(text);
  const id = waiting ? null : send({ type: "act", action: text });
  update((s) => {
    s.autoplayed = false;
    s.multi = { on: false, picked: [] };
    s.picker = s.targetPick = s.exchangePick = null;
    if (text.endsWith("!")) s.unoArmed = false;
    if (id) s.inflight.set(id, text);
  });
}
