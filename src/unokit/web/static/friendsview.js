// The parts of the screens for friends (friends.js has their logic): the name form of
// whoever comes by an invite link, the rename form in the room, the countdown to the
// next round, the "Play again" (rematch) button.
import { h } from "./dom.js";
import { _, ngettext } from "./i18n.js";
import { state as S, update } from "./store.js";
import { chooseName, send } from "./session.js";
import { cleanName, mayRematch, NAME_LIMIT, secondsLeft } from "./friends.js";

function remember(name) {
  try { localStorage.setItem("unokit.name", name); } catch { /* private mode */ }
}

// Before joining by an invite link: the name to sit down with (remembered).
export function nameForm() {
  const submit = (ev) => {
    ev.preventDefault();
    const name = cleanName(ev.target.elements.name.value);
    remember(name);
    chooseName(name);
  };
  return h("div", { class: "room" }, h("section", { class: "panel name-form", "aria-labelledby": "name-title" },
    h("h1", { id: "name-title" }, _("Join room {code}", { code: S.code || "" })),
    h("form", { testid: "name-form", onsubmit: submit },
      h("label", { for: "join-name" }, _("Your name")),
      h("div", { class: "row" },
        h("input", { id: "join-name", name: "name", testid: "join-name", type: "text", maxlength: String(NAME_LIMIT), autocomplete: "nickname", value: S.name || "", autofocus: true }),
        h("button", { type: "submit", class: "primary", testid: "join-room" }, _("Join"))))));
}

let renaming = false; // the rename form is open (a button opens it)

// In the room before the match: change the own seat's name.
export function renameForm() {
  if (S.seat === null || !S.room || S.room.status !== "lobby") return null;
  const mine = S.room.seats[S.seat];
  if (!mine || mine.kind !== "human") return null;
  const submit = (ev) => {
    ev.preventDefault();
    const name = cleanName(ev.target.elements.name.value);
    if (!name || name === mine.name) return;
    remember(name);
    update((s) => { s.name = name; });
    send({ type: "rename", name });
  };
  if (!renaming) {
    return h("button", { type: "button", class: "ghost", testid: "rename-open", onclick: () => { renaming = true; update(() => null); } }, _("Your name"));
  }
  return h("form", { class: "row rename", testid: "rename-form", onsubmit: (ev) => { renaming = false; submit(ev); } },
    h("label", { for: "rename-input" }, _("Your name")),
    h("input", { id: "rename-input", name: "name", testid: "rename-input", type: "text", maxlength: String(NAME_LIMIT), autocomplete: "nickname", value: mine.name || "" }),
    h("button", { type: "submit", class: "secondary", testid: "rename" }, _("Rename")));
}

function countdownText(left) {
  return ngettext("The next round starts in {n} second.", "The next round starts in {n} seconds.", left);
}

// Between rounds: when the next round starts by itself (the server's deadline).
export function countdownLine() {
  const left = S.countdown ? secondsLeft(S.countdown.deadline, Date.now()) : null;
  if (left === null) return null;
  return h("p", { class: "countdown lead", testid: "countdown", role: "timer", data: { deadline: Math.round(S.countdown.deadline), left } },
    countdownText(left));
}

// The page's clock ticked: the countdown on screen says the seconds left now.
export function tickCountdown() {
  const left = S.countdown ? secondsLeft(S.countdown.deadline, Date.now()) : null;
  for (const el of document.querySelectorAll('[data-testid="countdown"]')) {
    if (left === null || el.dataset.left === String(left)) continue;
    el.dataset.left = String(left);
    el.textContent = countdownText(left);
  }
}

// After the match: a rematch for whoever may ask, else the wait for it.
export function rematchButton() {
  if (mayRematch(S.room, S.seat)) {
    return h("button", { type: "button", class: "primary big", testid: "play-again", onclick: () => send({ type: "rematch" }) }, _("Play again"));
  }
  return S.seat === null ? null : h("p", { class: "muted", testid: "rematch-wait" }, _("The host can start a rematch in this room."));
}
