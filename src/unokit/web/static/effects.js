// What the table does besides drawing itself, after each change of the state: the cards
// in flight (motion.js), the sound cues (sound.js) and, while the tab is hidden, a notice
// when a friend joins or the page's turn comes: a system notification where the player
// allowed it (the bell button), else the tab's title flashes until the tab is seen.
// Also the bar's two buttons: mute (kept in localStorage) and the notifications.
import { h, s } from "./dom.js";
import { _ } from "./i18n.js";
import { screenOf, state as S, subscribe, update } from "./store.js";
import { seatName } from "./names.js";
import { toast } from "./notify.js";
import { cuesFor, joinedSeats, noticesFor } from "./cues.js";
import { flights } from "./motion.js";
import { cue, storedMute, storeMute } from "./sound.js";
import { mark, stage } from "./stage.js";

const NOTIFY_KEY = "unokit.notify";

function storedNotify() {
  try {
    return localStorage.getItem(NOTIFY_KEY) === "1" && "Notification" in globalThis && Notification.permission === "granted";
  } catch {
    return false;
  }
}

// What the last look saw (the table's effects run once per change, for what is new).
let seen = { game: null, seq: -1, must: null, room: null, code: null };

function newEvents(g) {
  if (g !== seen.game) return [];
  const fresh = [];
  for (let i = g.events.length - 1; i >= 0 && g.events[i].seq > seen.seq; i--) fresh.unshift(g.events[i]);
  return fresh;
}

// After each change, once the screen is drawn (the hub's render runs in the same round
// of subscribers): the flights, cues and notices of what is new.
function look() {
  const g = S.game;
  const screen = screenOf(S);
  const fresh = newEvents(g);
  if (screen === "table") flights(fresh, S.seat);
  const cues = g === seen.game ? cuesFor({ events: fresh, wasMust: seen.must, must: g.must, screen }) : [];
  for (const name of cues) cue(name, S.muted);
  const joined = S.code && S.code === seen.code ? joinedSeats(seen.room, S.room, S.seat) : [];
  for (const notice of noticesFor({ cues, joined, hidden: document.hidden })) tell(notice);
  seen = { game: g, seq: g.seq, must: g.must, room: S.room, code: S.code };
}

if (globalThis.document) {
  update((st) => {
    st.muted = storedMute();
    st.notify = storedNotify();
  }, { quiet: true });
  stage();
  subscribe(() => queueMicrotask(look));
  document.addEventListener("visibilitychange", () => { if (!document.hidden) stopFlash(); });
}

// ---------------------------------------------------------------- notices
let flashing = null;

function stopFlash() {
  if (!flashing) return;
  clearInterval(flashing.timer);
  document.title = flashing.base;
  flashing = null;
  mark("titleFlash", "false");
}

function flashTitle(text) {
  stopFlash();
  const flash = { base: document.title, on: true, timer: null };
  document.title = "● " + text;
  flash.timer = setInterval(() => {
    flash.on = !flash.on;
    document.title = flash.on ? "● " + text : flash.base;
  }, 1000);
  flashing = flash;
  mark("titleFlash", "true");
}

function tell(notice) {
  // TRANSLATORS: a notification while the tab is hidden: a friend took a seat in the room
  const text = notice.kind === "turn" ? _("Your turn") : _("{name} joined the room", { name: seatName(notice.seat) });
  mark("lastNotice", notice.kind);
  if (S.notify && "Notification" in globalThis && Notification.permission === "granted") {
    try {
      new Notification("unokit · " + (S.code || ""), { body: text, tag: "unokit-" + notice.kind });
      mark("noticeVia", "notification");
      return;
    } catch { /* a browser that shows them only from a service worker: the title flashes */ }
  }
  flashTitle(text);
  mark("noticeVia", "title");
}

// ---------------------------------------------------------------- the bar's buttons
function toggleMute() {
  const muted = !S.muted;
  storeMute(muted);
  update((st) => { st.muted = muted; });
}

function keepNotify(on) {
  try { localStorage.setItem(NOTIFY_KEY, on ? "1" : "0"); } catch { /* private mode */ }
  update((st) => { st.notify = on; });
}

async function toggleNotify() {
  if (S.notify) {
    keepNotify(false);
    return;
  }
  let permission = Notification.permission;
  if (permission === "default") {
    try { permission = await Notification.requestPermission(); } catch { permission = "denied"; }
  }
  if (permission === "granted") keepNotify(true);
  else toast("notify_blocked", _("Notifications are blocked in this browser: the tab's title flashes instead."));
}

const ICON = {
  sound: ["M3 9h4l5-4v14l-5-4H3z", "M15.5 8.5a5 5 0 0 1 0 7", "M18.5 5.5a9 9 0 0 1 0 13"],
  muted: ["M3 9h4l5-4v14l-5-4H3z", "M15 9l6 6", "M21 9l-6 6"],
  bell: ["M6 17h12l-2-3v-4a4 4 0 0 0-8 0v4z", "M10 19.5a2 2 0 0 0 4 0"],
  bellOff: ["M6 17h12l-2-3v-4a4 4 0 0 0-8 0v4z", "M10 19.5a2 2 0 0 0 4 0", "M4 4l16 16"],
};

function icon(name) {
  return s("svg", { class: "tool-icon", viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false" },
    ICON[name].map((d) => s("path", { d })));
}

// The mute and notification buttons (in a room; the lobby makes no sound).
export function effectTools() {
  if (!S.code) return null;
  const canNotify = "Notification" in globalThis;
  return h("span", { class: "fx-tools" },
    h("button", { type: "button", class: "ghost tool-button", testid: "mute-button", "aria-pressed": String(!!S.muted),
      // TRANSLATORS: a toggle button in the bar: silence the table's sounds
      "aria-label": _("Mute sounds"), title: _("Mute sounds"), onclick: toggleMute }, icon(S.muted ? "muted" : "sound")),
    canNotify ? h("button", { type: "button", class: "ghost tool-button", testid: "notify-button", "aria-pressed": String(!!S.notify),
      // TRANSLATORS: a toggle button in the bar: a system notification when a friend joins or your turn comes while the tab is hidden
      "aria-label": _("Notify me"), title: _("Notify me when a friend joins or my turn comes"), onclick: toggleNotify }, icon(S.notify ? "bell" : "bellOff")) : null);
}
