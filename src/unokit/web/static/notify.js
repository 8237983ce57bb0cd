// What the page tells the player besides the screen: the toast, the log and chat lines,
// the screen reader's announcements, the connection's status and banner, and the moves
// that wait for the connection. These are persistent nodes (`parts`), moved into each
// new screen, so that their content and live regions stay.
import { h } from "./dom.js";
import { _, ngettext } from "./i18n.js";
import { describe } from "./describe.js";
import { state } from "./store.js";
import { chatAuthor, names } from "./names.js";

export const parts = {
  log: h("div", { class: "log", testid: "log", role: "log", "aria-live": "polite", "aria-labelledby": "log-title", tabindex: "0" }),
  chatLog: h("div", { class: "chat-log", testid: "chat-log", role: "log", "aria-live": "polite", "aria-labelledby": "chat-title", tabindex: "0" }),
  toast: h("div", { class: "toast", testid: "toast", role: "alert", hidden: true }),
  announce: h("div", { class: "visually-hidden", testid: "announcer", role: "status", "aria-live": "polite" }),
  banner: h("div", { class: "banner", testid: "banner", hidden: true }),
  queued: h("div", { class: "banner queued", testid: "queued-moves", role: "status", hidden: true }),
};

let toastTimer = null;

export function toast(code, message) {
  parts.toast.hidden = false;
  parts.toast.dataset.code = code;
  parts.toast.textContent = message;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { parts.toast.hidden = true; }, 6000);
}

// A server's refusal (its code and, for some, its message) in the page's language.
export function errorText(code, message) {
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
    // TRANSLATORS: moves made while offline that can never be sent (the seat is gone, or the room)
    case "not_sent": return _("Your move was not sent: the connection to this room has ended.");
    default: return message || code;
  }
}

export function addLog(e) {
  const text = describe(e, names());
  parts.log.appendChild(h("p", { testid: "log-line", data: { seq: e.seq, kind: e.kind } }, text));
  while (parts.log.childElementCount > 200) parts.log.firstElementChild.remove();
  parts.log.scrollTop = parts.log.scrollHeight;
}

// The log again from the state's events (after a language switch or a reset).
export function relog() {
  parts.log.replaceChildren();
  for (const e of state.game.events.slice(-200)) addLog(e);
}

export function addChatLine(msg) {
  parts.chatLog.appendChild(h("p", { testid: "chat-line", data: { seat: msg.seat } },
    h("b", {}, chatAuthor(msg) + ": "), msg.text));
  parts.chatLog.scrollTop = parts.chatLog.scrollHeight;
}

export function clearRoomParts() {
  announced = null;
  parts.log.replaceChildren();
  parts.chatLog.replaceChildren();
}

export function announce(text) {
  parts.announce.textContent = text;
}

let announced = null; // the event the screen reader was told last

// Tell the screen reader the event `e` (the latest of a message), in the page's language.
export function announceEvent(e) {
  announced = e;
  announce(describe(e, names()));
}

// After a language switch: the last event said again, in the new language (the live
// region does not keep a line in the old one).
export function reannounce() {
  if (announced) announce(describe(announced, names()));
}

export function statusText(conn) {
  if (conn === "reconnecting") return _("Reconnecting…");
  if (conn === "offline") return _("Offline");
  return _("Online");
}

// The connection's status (in the header), the banner of a lost connection or of moves
// being saved, and the moves that wait for the connection.
export function renderStatus() {
  const S = state;
  const away = S.code && S.conn !== "online";
  const saving = S.code && S.saving > 0;
  parts.banner.hidden = !away && !saving;
  parts.banner.dataset.state = away ? S.conn : saving ? "saving" : "online";
  parts.banner.textContent = S.conn === "offline" ? _("The connection is lost.")
    : away || !saving ? _("Connection lost: coming back…")
    : _("Saving your move… (the server keeps it as soon as it can)");
  const queued = S.code ? S.queued : 0;
  parts.queued.hidden = !queued;
  parts.queued.dataset.count = String(queued);
  parts.queued.textContent = queued ? ngettext("{n} move waits for the connection: it is sent as soon as the server is back.",
    "{n} moves wait for the connection: they are sent as soon as the server is back.", queued) : "";
  const el = document.querySelector('[data-testid="connection-status"]');
  if (!el) return;
  el.dataset.state = S.conn;
  el.querySelector(".label").textContent = statusText(S.conn);
}
