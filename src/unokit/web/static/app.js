// The unokit web client: the lobby, the room, the table and the end screens, as one
// page. The state lives in S; every change calls render(), which rebuilds the screen
// and keeps the focus where it was (docs/web.md).
import { BASE, h, option } from "./dom.js";
import { _, LANGS, LANG_NAMES, language, pickLanguage, setLanguage } from "./i18n.js";
import { api, Link, tokenKey } from "./net.js";
import { adopt, applyMessage, choices, multiCards, multiText, newGame, textsFor } from "./game.js";
import { describe } from "./describe.js";
import { lobbyView } from "./lobby.js";
import { roomView } from "./room.js";
import { tableView, tableKeys } from "./table.js";
import { roundEndView, matchEndView } from "./ends.js";
import { ensureGuest } from "./account.js";

export const S = {
  screen: "lobby",
  name: "",
  presets: [],
  openRooms: [],
  form: { preset: "online", seats: 4, bot: "normal", timer: 0, overrides: {} },
  joinCode: "",
  code: null,
  room: null,
  seat: null,
  spectator: false,
  game: newGame(),
  chat: [],
  chatDraft: "",
  chatSeen: new Set(),
  timer: null,
  reveal: null,
  conn: "online",
  saving: 0, // messages the server did not keep yet (sent again until it does)
  picker: null,
  targetPick: null,
  exchangePick: null,
  unoArmed: false,
  multi: { on: false, picked: [] }, // multi_play: the cards chosen to play together ({card, k}: the k-th of that code)
  showKeys: false,
  toast: null,
  busy: false,
  autoplayed: false,
};

let link = null;
let toastTimer = null;
const quiet = new Set(); // ids whose refusal needs no toast (the automatic contribution)

// Persistent parts: moved into each new layout, so their content and live regions stay.
export const parts = {
  log: h("div", { class: "log", testid: "log", role: "log", "aria-live": "polite", "aria-labelledby": "log-title", tabindex: "0" }),
  chatLog: h("div", { class: "chat-log", testid: "chat-log", role: "log", "aria-live": "polite", "aria-labelledby": "chat-title", tabindex: "0" }),
  toast: h("div", { class: "toast", testid: "toast", role: "alert", hidden: true }),
  announce: h("div", { class: "visually-hidden", role: "status", "aria-live": "polite" }),
  banner: h("div", { class: "banner", testid: "banner", hidden: true }),
};

// ---------------------------------------------------------------- names, seats
export function seatName(seat) {
  const info = S.room && S.room.seats && S.room.seats[seat];
  if (info && info.kind === "bot") return _("Bot {n}", { n: seat + 1 });
  const plain = info && info.name ? /^Player (\d+)$/.exec(info.name) : null;
  if (plain) return _("Player {n}", { n: plain[1] });
  if (info && info.name) return info.name;
  return _("Seat {n}", { n: seat + 1 });
}

export function names() {
  const count = S.room ? S.room.seats.length : 0;
  return Array.from({ length: count }, (_x, seat) => seatName(seat));
}

// ---------------------------------------------------------------- toasts, log
export function toast(code, message) {
  parts.toast.hidden = false;
  parts.toast.dataset.code = code;
  parts.toast.textContent = message;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { parts.toast.hidden = true; }, 6000);
}

function errorText(code, message) {
  switch (code) {
    case "illegal": return _("That move is not allowed now.") + (message ? " (" + message + ")" : "");
    case "not_host": return _("Only the host can do that.");
    case "mid_round": return _("Not during a round.");
    case "room_full": return _("The room is full: you are watching.");
    case "no_room": return _("No room has that code.");
    case "bad_token": return _("Your seat is gone: joining again.");
    case "too_late": return _("Too late: they called UNO.");
    case "caught": return _("Someone else caught them first.");
    case "rate_limited": return _("Slow down a little.");
    case "closing": return _("The server is restarting: trying again.");
    case "not_stored": return _("Not saved yet: trying again.");
    case "unavailable": return _("The server cannot reach its database: trying again.");
    case "not_started": return _("The match is not under way.");
    case "not_seated": return _("Spectators cannot play.");
    default: return message || code;
  }
}

function addLog(e) {
  const text = describe(e, names());
  parts.log.appendChild(h("p", { testid: "log-line", data: { seq: e.seq, kind: e.kind } }, text));
  while (parts.log.childElementCount > 200) parts.log.firstElementChild.remove();
  parts.log.scrollTop = parts.log.scrollHeight;
}

function relog() {
  parts.log.replaceChildren();
  for (const e of S.game.events.slice(-200)) addLog(e);
}

function addChat(msg) {
  const key = msg.seat + "|" + msg.at + "|" + msg.text;
  if (S.chatSeen.has(key)) return;
  S.chatSeen.add(key);
  S.chat.push(msg);
  const plain = /^Player (\d+)$/.exec(msg.name || "");
  const who = plain ? _("Player {n}", { n: plain[1] })
    : msg.name || (msg.seat === null || msg.seat === undefined ? _("Spectator") : seatName(msg.seat));
  parts.chatLog.appendChild(h("p", { testid: "chat-line", data: { seat: msg.seat } },
    h("b", {}, who + ": "), msg.text));
  parts.chatLog.scrollTop = parts.chatLog.scrollHeight;
}

// ---------------------------------------------------------------- the room link
function onMessage(msg) {
  const g = S.game;
  switch (msg.type) {
    case "welcome":
      S.room = msg.room;
      S.seat = msg.seat === undefined ? null : msg.seat;
      S.spectator = S.seat === null;
      contribute();
      break;
    case "reset":
      S.game = newGame();
      relog();
      break;
    case "room":
      S.room = msg.room;
      break;
    case "events": {
      const fresh = applyMessage(g, msg, S.seat);
      for (const e of fresh) addLog(e);
      if (S.timer && S.timer.seat !== g.lead) S.timer = null;
      if (!choices(g.legal).unoWithPlay && !g.legal.includes("uno")) S.unoArmed = false;
      keepPicks();
      for (const key of ["picker", "targetPick", "exchangePick"]) {
        const pick = S[key];
        if (pick && !pick.texts.some((t) => g.legal.includes(t))) S[key] = null;
      }
      if (g.needSnapshot && link) {
        g.needSnapshot = false;
        link.send({ type: "snapshot" });
      }
      const last = fresh.at(-1);
      if (last) parts.announce.textContent = describe(last, names());
      break;
    }
    case "snapshot":
      // a view older than the events already shown would undo them: ask again
      if (msg.seq < g.seq) {
        if (link) link.send({ type: "snapshot" });
        return;
      }
      adopt(g, msg.view);
      g.seq = Math.max(g.seq, msg.seq);
      g.legal = msg.legal || g.legal;
      g.must = !!msg.must;
      break;
    case "timer":
      S.timer = msg.ms ? { seat: msg.seat, deadline: Date.now() + msg.ms } : null;
      break;
    case "reveal":
      S.reveal = msg;
      checkDeal(S.code);
      break;
    case "chat":
      addChat(msg);
      break;
    case "error":
      if (!link || !link.ready) {
        if (msg.code === "room_full") {
          enterRoom(S.code, { spectate: true });
          toast(msg.code, errorText(msg.code, msg.message));
          return;
        }
        if (msg.code === "bad_token") {
          return;
        }
        toast(msg.code, errorText(msg.code, msg.message));
        if (msg.code === "no_room" || msg.code === "room_closed") leaveRoom();
        break;
      }
      if (msg.id && quiet.has(msg.id)) break;
      if (msg.code !== "bad_token") toast(msg.code, errorText(msg.code, msg.message));
      break;
    case "bye":
      if (msg.reconnect === false) {
        toast("bye", msg.reason || _("The connection was closed."));
        if (S.room && S.room.status === "lobby") {
          leaveRoom();
          return;
        }
      }
      break;
    default:
      break;
  }
  render();
}

function onAnswer(id) {
  inflight.delete(id);
}

function contribute() {
  if (!S.room || S.room.status !== "lobby" || S.seat === null) return;
  const mine = S.room.seats[S.seat];
  if (!mine || mine.contributed) return;
  // ?contribution=VALUE sends that value (a test's seeded deal), ?contribution=none none
  const asked = new URLSearchParams(location.search).get("contribution");
  if (asked === "none") return;
  let value = asked && /^[A-Za-z0-9_-]{1,128}$/.test(asked) ? asked : null;
  if (!value) {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    value = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  quiet.add(link.send({ type: "contribute", value }));
}

// After the reveal: run the fairness checks of the finished match (GET .../verify).
async function checkDeal(code) {
  try {
    const report = await api("/api/rooms/" + code + "/verify");
    if (S.code === code) {
      S.verify = report;
      render();
    }
  } catch {
    S.verify = null;
  }
}

export function enterRoom(code, { spectate = false, push = true } = {}) {
  if (link) link.close();
  code = String(code || "").trim().toUpperCase();
  S.code = code;
  S.room = null;
  S.seat = null;
  S.game = newGame();
  S.timer = null;
  S.reveal = null;
  S.verify = null;
  S.chat = [];
  S.chatSeen = new Set();
  S.picker = S.targetPick = S.exchangePick = null;
  S.multi = { on: false, picked: [] };
  parts.log.replaceChildren();
  parts.chatLog.replaceChildren();
  inflight.clear();
  if (push && location.pathname !== BASE + "/r/" + code) {
    history.pushState({}, "", BASE + "/r/" + code + location.search);
  }
  link = new Link(code, { name: S.name, spectate, lang: language() }, {
    message: onMessage,
    state: (state) => { S.conn = state; renderStatus(); },
    saving: (count) => { S.saving = count; renderStatus(); },
    answer: onAnswer,
  });
  link.open();
  render();
}

export function leaveRoom() {
  if (link) link.close();
  link = null;
  S.code = null;
  S.room = null;
  S.game = newGame();
  S.conn = "online";
  S.saving = 0;
  if (location.pathname !== BASE + "/") history.pushState({}, "", BASE + "/" + location.search);
  refreshLobby();
  render();
}

export function send(msg) {
  if (!link) return null;
  return link.send(msg);
}

// Actions sent and not answered yet (id -> text): the same action is not sent twice
// while the first waits (a catch held during the catch grace, say).
export const inflight = new Map();

export function act(text) {
  S.autoplayed = false;
  S.multi = { on: false, picked: [] };
  S.picker = S.targetPick = S.exchangePick = null;
  if (text.endsWith("!")) S.unoArmed = false;
  if ([...inflight.values()].includes(text)) return;
  const id = send({ type: "act", action: text });
  if (id) inflight.set(id, text);
  render();
}

// ---------------------------------------------------------------- playing a card
function withUno(texts, base) {
  if (S.unoArmed && texts.includes(base + "!")) return base + "!";
  if (texts.includes(base)) return base;
  return texts.find((t) => t.startsWith(base)) || null;
}

// ---------------------------------------------------------------- several cards at once
// multi_play: a "play together" mode (the toggle, `m`, or shift+click on a card) in
// which a card press chooses the card; "play N cards" sends the combination when
// `legal` has it.
function keepPicks() {
  const g = S.game;
  if (!choices(g.legal).multi.length) {
    S.multi = { on: false, picked: [] };
    return;
  }
  const held = {};
  for (const card of g.hand) held[card] = (held[card] || 0) + 1;
  S.multi.picked = S.multi.picked.filter((p) => p.k < (held[p.card] || 0));
}

export function isPicked(card, k) {
  return S.multi.picked.some((p) => p.card === card && p.k === k);
}

export function canPick(card) {
  return multiCards(S.game.legal).has(card);
}

export function toggleMulti() {
  if (!choices(S.game.legal).multi.length && !S.multi.on) return;
  S.multi = { on: !S.multi.on, picked: [] };
  render();
}

export function pickCard(card, k) {
  if (isPicked(card, k)) S.multi.picked = S.multi.picked.filter((p) => !(p.card === card && p.k === k));
  else if (canPick(card)) S.multi.picked.push({ card, k });
  else {
    toast("not_playable", _("That card cannot be played together with others now."));
    return;
  }
  S.multi.on = true;
  render();
}

export function pickedText() {
  return multiText(S.game.legal, S.multi.picked.map((p) => p.card), S.unoArmed);
}

export function playPicked() {
  if (S.multi.picked.length === 1) {
    const card = S.multi.picked[0].card;
    S.multi = { on: false, picked: [] };
    playCard(card);
    return;
  }
  const text = pickedText();
  if (!text) {
    toast("not_playable", _("These cards cannot be played together now."));
    return;
  }
  act(text);
}

export function playCard(card, k = 0, ev = null) {
  const g = S.game;
  if ((ev && ev.shiftKey && choices(g.legal).multi.length) || S.multi.on) {
    pickCard(card, k);
    return;
  }
  const texts = textsFor(g.legal, card);
  if (!texts.length) {
    toast("not_playable", _("You cannot play that card now."));
    return;
  }
  if (texts.some((t) => t.includes(">"))) {
    S.picker = { card, texts };
  } else if (texts.some((t) => t.includes("@"))) {
    S.targetPick = { card, texts };
  } else {
    const text = withUno(texts, card) || texts[0];
    act(text);
    return;
  }
  render();
}

export function pickColour(letter) {
  const g = S.game;
  if (S.picker) {
    const base = S.picker.card + ">" + letter;
    const texts = S.picker.texts.filter((t) => t.toUpperCase().startsWith(base.toUpperCase()));
    const text = withUno(texts, texts.find((t) => !t.endsWith("!")) || base);
    if (text) act(text);
    return;
  }
  const text = choices(g.legal).colours.find((t) => t.slice(-1).toUpperCase() === letter);
  if (text) act(text);
}

export function pickTarget(seat) {
  const pick = S.targetPick;
  if (!pick) return;
  const texts = pick.texts.filter((t) => t.startsWith(pick.card + "@" + seat));
  const gives = texts.filter((t) => t.includes("/"));
  if (gives.length) {
    S.exchangePick = { card: pick.card, seat, texts: gives };
    S.targetPick = null;
    render();
    return;
  }
  const text = withUno(texts, pick.card + "@" + seat);
  if (text) act(text);
}

export function giveCard(card) {
  if (S.exchangePick) {
    const base = S.exchangePick.card + "@" + S.exchangePick.seat + "/" + card;
    const text = withUno(S.exchangePick.texts, base);
    if (text) act(text);
    return;
  }
  act("give " + card);
}

export function pressUno() {
  const c = choices(S.game.legal);
  if (c.uno) act("uno");
  else if (c.unoWithPlay) { S.unoArmed = !S.unoArmed; render(); }
}

export function closeDialogs() {
  S.picker = S.targetPick = S.exchangePick = null;
  S.multi = { on: false, picked: [] };
  S.showKeys = false;
  render();
}

// ---------------------------------------------------------------- lobby data
export async function refreshLobby() {
  const before = JSON.stringify([S.presets, S.openRooms, S.conn]);
  try {
    if (!S.presets.length) S.presets = await api("/api/presets");
    S.openRooms = await api("/api/rooms");
    S.conn = "online";
  } catch {
    S.conn = "offline";
  }
  // redraw only on a change, so that an open drop-down of the form stays open
  if (!S.code && JSON.stringify([S.presets, S.openRooms, S.conn]) !== before) render();
}

export async function playNow() {
  saveName();
  try {
    const made = await api("/api/play-now", { bot: S.form.bot, turn_timer: Number(S.form.timer) || null });
    enterRoom(made.code);
  } catch (err) {
    toast(err.code || "error", err.message);
  }
}

export function formRules() {
  return { preset: S.form.preset, ...S.form.overrides };
}

export async function createRoom() {
  saveName();
  const seats = Number(S.form.seats);
  const bots = Array.from({ length: Math.max(0, seats - 2) }, () => S.form.bot);
  try {
    const made = await api("/api/rooms", { rules: formRules(), seats, turn_timer: Number(S.form.timer) || null, bots: S.form.bots ? bots : [] });
    enterRoom(made.code);
  } catch (err) {
    toast(err.code || "error", err.message);
  }
}

export function saveName() {
  try { localStorage.setItem("unokit.name", S.name); } catch { /* private mode */ }
}

// ---------------------------------------------------------------- rendering
export function currentScreen() {
  if (!S.code) return "lobby";
  const g = S.game;
  if (!S.room || (S.room.status === "lobby" && g.seq < 0)) return "room";
  if (g.matchEnd || g.phase === "match_over") return "match-end";
  if (g.phase === "round_over" && g.roundEnd) return "round-end";
  if (g.seq < 0 && S.room.status === "playing") return "table";
  return "table";
}

function focusKey(el) {
  if (!el || el === document.body || !el.dataset) return null;
  const testid = el.dataset.testid;
  if (!testid) return el.id ? { id: el.id } : null;
  const key = { testid, card: el.dataset.card, seat: el.dataset.seat, target: el.dataset.target, code: el.dataset.code };
  const same = document.querySelectorAll('[data-testid="' + testid + '"]');
  key.index = Array.prototype.indexOf.call(same, el);
  if (el.selectionStart !== undefined) {
    try { key.caret = [el.selectionStart, el.selectionEnd]; } catch { key.caret = null; }
  }
  return key;
}

function restoreFocus(key) {
  if (!key) return;
  if (key.id) {
    const el = document.getElementById(key.id);
    if (el) el.focus({ preventScroll: true });
    return;
  }
  const all = Array.from(document.querySelectorAll('[data-testid="' + key.testid + '"]'));
  let el = all.find((x) => x.dataset.card === key.card && x.dataset.seat === key.seat && x.dataset.target === key.target && x.dataset.code === key.code);
  if (key.card && all.length) {
    const same = all.filter((x) => x.dataset.card === key.card);
    el = same[0] || all[Math.min(key.index, all.length - 1)];
  }
  if (!el && all.length) el = all[Math.min(Math.max(key.index, 0), all.length - 1)];
  if (el && !el.disabled) {
    el.focus({ preventScroll: true });
    if (key.caret && el.setSelectionRange) {
      try { el.setSelectionRange(key.caret[0], key.caret[1]); } catch { /* not a text field */ }
    }
  }
}

function statusText(state) {
  if (state === "reconnecting") return _("Reconnecting…");
  if (state === "offline") return _("Offline");
  return _("Online");
}

function renderStatus() {
  const away = S.code && S.conn !== "online";
  const saving = S.code && S.saving > 0;
  parts.banner.hidden = !away && !saving;
  parts.banner.dataset.state = away ? S.conn : saving ? "saving" : "online";
  parts.banner.textContent = S.conn === "offline" ? _("The connection is lost.")
    : away || !saving ? _("Connection lost: coming back…")
    : _("Saving your move… (the server keeps it as soon as it can)");
  const el = document.querySelector('[data-testid="connection-status"]');
  if (!el) return;
  el.dataset.state = S.conn;
  el.querySelector(".label").textContent = statusText(S.conn);
}

function header() {
  const select = h("select", {
    testid: "lang-switch", id: "lang-switch", "aria-label": _("Language"),
    onchange: async (ev) => {
      await setLanguage(ev.target.value, true);
      const url = new URL(location.href);
      if (url.searchParams.has("lang")) {
        url.searchParams.set("lang", ev.target.value);
        history.replaceState(history.state, "", url.pathname + url.search);
      }
      relog();
      render();
    },
  }, LANGS.map((code) => option(code, LANG_NAMES[code], code === language())));
  return h("header", { class: "bar" },
    h("a", { class: "brand", href: BASE + "/", onclick: (ev) => { ev.preventDefault(); leaveRoom(); } },
      h("span", { class: "brand-card", "aria-hidden": "true" }, "U"), h("span", {}, "unokit")),
    h("div", { class: "bar-right" },
      h("span", { class: "conn", testid: "connection-status", role: "status", data: { state: S.conn } },
        h("span", { class: "dot", "aria-hidden": "true" }), h("span", { class: "label" }, statusText(S.conn))),
      h("button", { class: "ghost keys-button", type: "button", "aria-label": _("Keyboard shortcuts"), onclick: () => { S.showKeys = !S.showKeys; render(); } }, "?"),
      h("label", { class: "lang" }, h("span", { class: "visually-hidden" }, _("Language")), select)));
}

function keysDialog() {
  if (!S.showKeys) return null;
  const rows = [
    ["← →", _("move along your hand")], ["Enter", _("play the card")], ["d", _("draw a card")],
    // TRANSLATORS: the keyboard help: what each key does, as short as can be (pass: keep the drawn card)
    ["p", _("pass")], ["u", _("call UNO")], ["c", _("catch a player")],
    ["1-4 / r y g b", _("pick a colour")], ["m", _("play several cards together")], ["Shift+Enter", _("play the chosen cards")], ["s", _("slap")], ["n", _("next round")], ["?", _("show these keys")], ["Esc", _("close")],
  ];
  return h("div", { class: "overlay" }, h("div", { class: "dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "keys-title", testid: "keys-help" },
    h("h2", { id: "keys-title" }, _("Keyboard shortcuts")),
    h("dl", { class: "keys" }, rows.map(([k, v]) => [h("dt", {}, h("kbd", {}, k)), h("dd", {}, v)])),
    h("button", { class: "primary", type: "button", onclick: closeDialogs, autofocus: true }, _("Close"))));
}

export function render() {
  const key = focusKey(document.activeElement);
  const screen = currentScreen();
  S.screen = screen;
  const yourTurn = screen === "table" && S.game.must;
  document.title = (yourTurn ? "● " + _("Your turn") + " · " : "") + (screen === "lobby" ? "unokit" : "unokit · " + (S.code || ""));
  let view = null;
  try {
    if (screen === "lobby") view = lobbyView();
    else if (screen === "room") view = roomView();
    else if (screen === "table") view = tableView();
    else if (screen === "round-end") view = roundEndView();
    else view = matchEndView();
  } catch (err) {
    // keep the last good screen rather than a blank page; the next update tries again
    console.error(err);
    return;
  }
  const main = h("main", { id: "main", testid: "screen", data: { screen }, class: "screen-" + screen }, view);
  const root = document.getElementById("app");
  root.replaceChildren(...[header(), parts.banner, main, keysDialog(), parts.toast, parts.announce].filter(Boolean));
  renderStatus();
  S.game.fx = { top: false, drawn: 0, penalty: {} };
  parts.log.scrollTop = parts.log.scrollHeight;
  parts.chatLog.scrollTop = parts.chatLog.scrollHeight;
  restoreFocus(key);
  const dialog = root.querySelector('[role="dialog"]');
  if (dialog && !dialog.contains(document.activeElement)) {
    const first = dialog.querySelector("button:not([disabled])");
    if (first) first.focus();
  }
}

// ---------------------------------------------------------------- start
function route(push) {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  const match = path.match(/^\/r\/([A-Za-z0-9]+)\/?$/);
  if (match) enterRoom(match[1], { push });
  else {
    if (link) link.close();
    link = null;
    S.code = null;
    refreshLobby();
    render();
  }
}

document.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape") { closeDialogs(); return; }
  const tag = ev.target && ev.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.key === "?") { S.showKeys = !S.showKeys; render(); ev.preventDefault(); return; }
  if (tableKeys(ev)) ev.preventDefault();
});

setInterval(() => {
  const el = document.querySelector('[data-testid="turn-timer"]');
  if (S.timer && S.timer.seat === S.seat && Date.now() > S.timer.deadline + 500 && !S.autoplayed) {
    S.autoplayed = true;
    S.timer = null;
    render();
    return;
  }
  if (!el || !S.timer) return;
  const left = Math.max(0, Math.ceil((S.timer.deadline - Date.now()) / 1000));
  for (const label of document.querySelectorAll(".secs")) label.textContent = String(left);
  el.style.setProperty("--left", String(Math.max(0, Math.min(1, (S.timer.deadline - Date.now()) / ((S.room && S.room.turn_timer || 30) * 1000)))));
}, 250);

setInterval(() => { if (!S.code) refreshLobby(); }, 5000);

window.addEventListener("popstate", () => route(false));

async function start() {
  try { S.name = localStorage.getItem("unokit.name") || ""; } catch { S.name = ""; }
  try { await setLanguage(pickLanguage()); } catch { await setLanguage("en"); }
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && LANGS.includes(asked)) {
    try { localStorage.setItem("unokit.lang", asked); } catch { /* private mode */ }
  }
  await ensureGuest(); // a first visit plays at once as a guest (docs/accounts.md)
  route(false);
}

export { tokenKey };
start();
