// The room before the match: seats, the host's controls, the rules, the spectators and
// the fairness commitment.
import { BASE, h, option } from "./dom.js";
import { _, ngettext, pgettext } from "./i18n.js";
import { state as S, update } from "./store.js";
import { seatName } from "./names.js";
import { send } from "./session.js";
import { presetName, summary } from "./rules.js";
import { BOT_LEVELS, botLevelName, timerName, timerSeconds, timerValue } from "./lobby.js";
import { teamMark } from "./teams.js";
import { chatBox } from "./table.js";
import { nameForm, renameForm } from "./friendsview.js";

export function isHost() {
  if (!S.room || S.seat === null) return false;
  const mine = S.room.seats[S.seat];
  return !!(mine && mine.host);
}

export function rulesSummary() {
  const text = summary(S.room ? S.room.rules : {});
  return h("section", { class: "panel rules", testid: "rules-summary", "aria-labelledby": "rules-title" },
    h("h2", { id: "rules-title" }, _("Rules: {preset}", { preset: presetName(text.preset) })),
    h("p", {}, text.meaning),
    h("ul", {}, text.lines.map((line) => h("li", {}, line))));
}

export function fairness() {
  const commitment = (S.room && S.room.commitment) || "";
  return h("section", { class: "panel fairness", testid: "fairness-commitment", data: { commitment } },
    h("h2", {}, _("Fair deal")),
    h("p", {}, _("The server committed to its secret seed before the deal. After the match anyone can check that the cards were not changed.")),
    h("code", { class: "hex" }, commitment));
}

export function seatItem(info, host) {
  const you = info.seat === S.seat;
  const kindText = info.kind === "bot" ? _("Bot ({level})", { level: botLevelName(info.bot || "normal") })
    : info.kind === "human" ? (info.connected ? _("Player") : _("Player, not connected")) : _("Empty seat");
  return h("li", { class: "seat kind-" + info.kind + (you ? " you" : ""), testid: "seat",
    data: { seat: info.seat, kind: info.kind, you: you ? "true" : null, host: info.host ? "true" : null, away: info.away ? "true" : null } },
  h("span", { class: "avatar", "aria-hidden": "true" }, info.kind === "empty" ? "·" : info.kind === "bot" ? "⚙" : (info.name || "?").slice(0, 1).toUpperCase()),
  h("span", { class: "seat-text" },
    h("span", { class: "seat-name" }, info.kind === "empty" ? _("Seat {n}", { n: info.seat + 1 }) : seatName(info.seat),
      you ? h("span", { class: "tag" }, pgettext("the tag beside your own seat's name", "you")) : null, info.host ? h("span", { class: "tag host" }, _("host")) : null,
      info.away ? h("span", { class: "tag" }, _("away")) : null),
    h("span", { class: "muted" }, kindText), teamMark(S.room && S.room.rules, info.seat, S.seat)),
  host && info.kind === "bot" ? h("button", { type: "button", class: "secondary small", testid: "remove-bot", data: { seat: info.seat },
    onclick: () => send({ type: "remove_bot", seat: info.seat }) }, _("Remove"), h("span", { class: "visually-hidden" }, " · " + seatName(info.seat))) : null,
  host && info.kind === "human" && !you ? h("button", { type: "button", class: "secondary small", testid: "kick", data: { seat: info.seat },
    onclick: () => send({ type: "kick", seat: info.seat }) }, _("Kick"), h("span", { class: "visually-hidden" }, " · " + seatName(info.seat))) : null);
}

// The host's controls: before the match with the start button; between rounds
// (`between`) without it, since the next round starts with "next".
export function hostControls(room, between = false) {
  const full = room.seats.every((s) => s.kind !== "empty");
  return h("section", { class: "panel host-controls", "aria-labelledby": "host-title" },
    h("h2", { id: "host-title" }, _("You are the host")),
    h("div", { class: "row" },
      h("label", { for: "add-bot-level", class: "visually-hidden" }, _("Bot level")),
      h("select", { id: "add-bot-level", testid: "add-bot-level", onchange: (ev) => update((s) => { s.form.addBot = ev.target.value; }, { quiet: true }) },
        BOT_LEVELS.map((b) => option(b, botLevelName(b), b === S.form.addBot))),
      h("button", { type: "button", class: "secondary", testid: "add-bot", disabled: full ? true : null, onclick: () => send({ type: "add_bot", bot: S.form.addBot }) }, _("Add a bot"))),
    h("div", { class: "row" },
      h("label", { for: "set-timer" }, _("Turn timer")),
      h("select", { id: "set-timer", testid: "set-timer", onchange: (ev) => send({ type: "set_timer", seconds: timerSeconds(ev.target.value) }) },
        [0, 15, 30, 60].map((n) => option(timerValue(n), timerName(n), n === room.turn_timer)))),
    between ? null : h("button", { type: "button", class: "primary big", testid: "start-match", disabled: full ? null : true, onclick: () => send({ type: "start" }) }, _("Start the match")),
    full || between ? null : h("p", { class: "muted" }, _("Every seat needs a player or a bot before the start.")));
}

export function roomView() {
  const room = S.room;
  if (S.askName) return nameForm();
  if (!room) {
    return h("div", { class: "room connecting" }, h("p", { class: "lead" }, _("Joining room {code}…", { code: S.code || "" })));
  }
  const invite = location.origin + BASE + "/r/" + room.code;
  const host = isHost();
  return h("div", { class: "room" },
    h("section", { class: "panel room-head" },
      h("h1", {}, _("Room"), " ", h("span", { class: "code", testid: "room-code" }, room.code)),
      h("p", {}, _("Send this link to friends:")),
      h("div", { class: "row invite" },
        h("label", { for: "invite-link", class: "visually-hidden" }, _("Invite link")),
        h("input", { id: "invite-link", testid: "invite-link", type: "text", readonly: true, value: invite, onfocus: (ev) => ev.target.select() }),
        h("button", { type: "button", class: "secondary", onclick: () => { if (navigator.clipboard) navigator.clipboard.writeText(invite).catch(() => null); } }, _("Copy"))),
      h("p", { class: "muted" }, _("Turn timer") + ": " + timerName(room.turn_timer), " · ",
        h("span", { testid: "spectators", data: { count: room.spectators || 0 } }, ngettext("{n} spectator", "{n} spectators", room.spectators || 0)),
        S.spectator ? " · " + _("You are watching") : "")),
    h("section", { class: "panel", "aria-labelledby": "seats-title" },
      h("h2", { id: "seats-title" }, _("Seats")),
      h("ul", { class: "seats" }, room.seats.map((info) => seatItem(info, host))),
      renameForm()),
    host ? hostControls(room) : h("p", { class: "panel muted" }, _("Waiting for the host to start the match.")),
    S.seat !== null ? h("div", { class: "leave" }, h("button", { type: "button", class: "ghost", testid: "leave-room", onclick: () => send({ type: "leave" }) }, _("Leave the room"))) : null,
    chatBox(),
    rulesSummary(),
    fairness());
}
