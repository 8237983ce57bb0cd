// The unokit web client's hub: the page's frame (header, banner, dialogs), the router
// (lobby, or a room at /r/CODE), the keys and the clocks. The screens (lobby.js,
// room.js, table.js, ends.js) read the one state (store.js) and never import this
// module; every change of the state runs render(), which rebuilds the screen and keeps
// the focus where it was (docs/web.md).
import { BASE, h, option } from "./dom.js";
import { _, LANGS, LANG_NAMES, language, pickLanguage, setLanguage } from "./i18n.js";
import { changed, screenOf, shown, state as S, subscribe, update } from "./store.js";
import { parts, reannounce, relog, renderStatus, statusText } from "./notify.js";
import { enterRoom, leaveRoom } from "./session.js";
import { refreshLobby } from "./lobbyapi.js";
import { closeDialogs } from "./play.js";
import { focusKey, keepFocus, restoreFocus } from "./focus.js";
import { lobbyView } from "./lobby.js";
import { roomView } from "./room.js";
import { tableView, tableKeys } from "./table.js";
import { roundEndView, matchEndView } from "./ends.js";
import { ensureGuest } from "./account.js";
import { loadCosmetics } from "./cosmetics.js";
import { tickCountdown } from "./friendsview.js";
import { effectTools } from "./effects.js";

const VIEWS = { lobby: lobbyView, room: roomView, table: tableView, "round-end": roundEndView, "match-end": matchEndView };

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
      reannounce();
      changed();
    },
  }, LANGS.map((code) => option(code, LANG_NAMES[code], code === language())));
  return h("header", { class: "bar" },
    h("a", { class: "brand", href: BASE + "/", onclick: (ev) => { ev.preventDefault(); leaveRoom(); } },
      h("span", { class: "brand-card", "aria-hidden": "true" }, "U"), h("span", {}, "unokit")),
    h("div", { class: "bar-right" },
      h("span", { class: "conn", testid: "connection-status", role: "status", data: { state: S.conn } },
        h("span", { class: "dot", "aria-hidden": "true" }), h("span", { class: "label" }, statusText(S.conn))),
      effectTools(),
      h("button", { class: "ghost keys-button", type: "button", "aria-label": _("Keyboard shortcuts"),
        onclick: () => update((s) => { s.showKeys = !s.showKeys; }) }, "?"),
      h("label", { class: "lang" }, h("span", { class: "visually-hidden" }, _("Language")), select)));
}

function keysDialog() {
  if (!S.showKeys) return null;
  const rows = [
    ["← →", _("move along your hand")], ["Enter", _("play the card")], ["d", _("draw a card")],
    // TRANSLATORS: the keyboard help: what each key does, as short as can be (pass: keep the drawn card)
    ["p", _("pass")], ["u", _("call UNO")], ["c", _("catch a player")],
    ["1-4 / r y g b", _("pick a colour")], ["m", _("play several cards together")], ["Shift+Enter", _("play the chosen cards")],
    ["s", _("slap")], ["n", _("next round")], ["?", _("show these keys")], ["Esc", _("close")],
  ];
  return h("div", { class: "overlay" }, h("div", { class: "dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "keys-title", testid: "keys-help" },
    h("h2", { id: "keys-title" }, _("Keyboard shortcuts")),
    h("dl", { class: "keys" }, rows.map(([k, v]) => [h("dt", {}, h("kbd", {}, k)), h("dd", {}, v)])),
    h("button", { class: "primary", type: "button", onclick: closeDialogs, autofocus: true }, _("Close"))));
}

export function render() {
  const key = focusKey(document.activeElement);
  const focused = !!document.activeElement && document.activeElement !== document.body;
  const screen = screenOf(S);
  const moved = screen !== S.screen;
  const yourTurn = screen === "table" && S.game.must;
  document.title = (yourTurn ? "● " + _("Your turn") + " · " : "") + (screen === "lobby" ? "unokit" : "unokit · " + (S.code || ""));
  let view = null;
  try {
    view = VIEWS[screen]();
  } catch (err) {
    // keep the last good screen rather than a blank page; the next update tries again
    console.error(err);
    return;
  }
  const main = h("main", { id: "main", testid: "screen", data: { screen }, class: "screen-" + screen }, view);
  const root = document.getElementById("app");
  root.replaceChildren(...[header(), parts.banner, parts.queued, main, keysDialog(), parts.toast, parts.announce].filter(Boolean));
  renderStatus();
  update((s) => shown(s, screen), { quiet: true });
  parts.log.scrollTop = parts.log.scrollHeight;
  parts.chatLog.scrollTop = parts.chatLog.scrollHeight;
  // a new screen opens at its top (after Start on a phone: the table, not the place
  // of the Start button)
  if (moved) window.scrollTo(0, 0);
  restoreFocus(key);
  const dialog = root.querySelector('[role="dialog"]');
  if (dialog && !dialog.contains(document.activeElement)) {
    const first = dialog.querySelector("button:not([disabled])");
    if (first) first.focus();
  }
  if (focused) keepFocus(root);
}

// ---------------------------------------------------------------- the router
function route(push) {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  const match = path.match(/^\/r\/([A-Za-z0-9]+)\/?$/);
  if (match) enterRoom(match[1], { push, invited: true });
  else leaveRoom({ push: false });
}

document.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape") { closeDialogs(); return; }
  const tag = ev.target && ev.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.key === "?") { update((s) => { s.showKeys = !s.showKeys; }); ev.preventDefault(); return; }
  if (tableKeys(ev)) ev.preventDefault();
});

// ---------------------------------------------------------------- the clocks
// The turn clock and the countdown to the next round on screen (from the server's
// deadlines; the server says when a bot played a timed-out turn: timed_out).
setInterval(() => {
  const el = document.querySelector('[data-testid="turn-timer"]');
  tickCountdown();
  if (!el || !S.timer) return;
  const left = Math.max(0, Math.ceil((S.timer.deadline - Date.now()) / 1000));
  for (const label of document.querySelectorAll(".secs")) label.textContent = String(left);
  el.style.setProperty("--left", String(Math.max(0, Math.min(1, (S.timer.deadline - Date.now()) / ((S.room && S.room.turn_timer || 30) * 1000)))));
}, 250);

setInterval(() => { if (!S.code) refreshLobby(); }, 5000);

window.addEventListener("popstate", () => route(false));

async function start() {
  let name = "";
  try { name = localStorage.getItem("unokit.name") || ""; } catch { name = ""; }
  update((s) => { s.name = name; }, { quiet: true });
  try { await setLanguage(pickLanguage()); } catch { await setLanguage("en"); }
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && LANGS.includes(asked)) {
    try { localStorage.setItem("unokit.lang", asked); } catch { /* private mode */ }
  }
  await ensureGuest(); // a first visit plays at once as a guest (docs/accounts.md)
  loadCosmetics(); // the table colour and card back the player chose (docs/web.md)
  subscribe(render);
  route(false);
}

start();
