// The lobby: quick play, a new room, joining by code, the open rooms.
import { h, option } from "./dom.js";
import { _, ngettext } from "./i18n.js";
import { state as S, update } from "./store.js";
import { formRules, formSeats, newRoom, saveName, seatChoices } from "./lobbyapi.js";
import { enterRoom } from "./session.js";
import { effective, overridesText, presetMeaning, presetName, rulesLabel } from "./rules.js";
import { lobbyAccount } from "./account.js";

const OVERRIDES = [
  ["jump_in", true], ["seven_swap", true], ["zero_rotate", true], ["draw_two_on_draw_two", "stack"],
  ["draw_four_on_draw_four", "stack"], ["draw", "until_playable"], ["uno_slap", true], ["five_exchange", true],
];

function overrideLabel(key) {
  switch (key) {
    case "jump_in": return _("Jump-in");
    case "seven_swap": return _("7 swaps hands");
    case "zero_rotate": return _("0 passes hands on");
    case "draw_two_on_draw_two": return _("Draw Twos stack");
    case "draw_four_on_draw_four": return _("Wild Draw Fours stack");
    case "draw": return _("Draw until playable");
    case "uno_slap": return _("UNO slap");
    case "five_exchange": return _("5 gives a card away");
    default: return key;
  }
}

// The bot levels a player may choose, weakest first (the server's allow-list).
export const BOT_LEVELS = ["easy", "normal", "hard", "expert", "master"];

export function botLevelName(level) {
  switch (level) {
    case "easy": return _("Easy");
    // TRANSLATORS: the middle bot level (Easy, Normal, Hard)
    case "normal": return _("Normal");
    case "hard": return _("Hard");
    case "expert": return _("Expert");
    // TRANSLATORS: the strongest bot level, above Expert
    case "master": return _("Master");
    default: return level;
  }
}

// A timer's option value: "off" or the seconds.
export function timerValue(seconds) {
  return Number(seconds) ? String(seconds) : "off";
}

export function timerSeconds(value) {
  return value === "off" ? 0 : Number(value) || 0;
}

export function timerName(seconds) {
  return Number(seconds) ? ngettext("{n} second", "{n} seconds", Number(seconds)) : _("No timer");
}

function field(label, control, id) {
  return h("div", { class: "field" }, h("label", { for: id }, label), control);
}

function setForm(key, value) {
  update((s) => { s.form[key] = value; });
}

async function playNow() {
  const code = await newRoom("play-now");
  if (code) enterRoom(code);
}

async function createRoom() {
  const code = await newRoom("room");
  if (code) enterRoom(code);
}


function toggleOverride(key, value, on) {
  const base = effective({ preset: S.form.preset });
  update((s) => {
    if (on && JSON.stringify(base[key]) !== JSON.stringify(value)) s.form.overrides[key] = value;
    else if (!on) {
      const official = key === "draw" ? "one" : key.startsWith("draw_") ? "none" : false;
      if (JSON.stringify(base[key]) !== JSON.stringify(official)) s.form.overrides[key] = official;
      else delete s.form.overrides[key];
    }
  });
}

function setSilence(value) {
  update((s) => {
    if (value === "off" && effective({ preset: s.form.preset }).silence === "off") delete s.form.overrides.silence;
    else s.form.overrides.silence = value;
  });
}

function explained() {
  const all = effective(formRules());
  const changes = overridesText(formRules());
  return h("div", { class: "explained", testid: "preset-explained", "aria-live": "polite" },
    h("p", {}, h("strong", {}, presetName(S.form.preset) + ": "), presetMeaning(S.form.preset)),
    changes.length ? h("p", {}, _("Changed here:")) : h("p", { class: "muted" }, _("No changes to the preset.")),
    changes.length ? h("ul", {}, changes.map((t) => h("li", {}, t))) : null,
    h("p", { class: "muted" }, ngettext("Match to {n} point.", "Match to {n} points.", all.target_score)));
}

function createForm() {
  const presets = S.presets.length ? S.presets.map((p) => p.name) : ["online", "official"];
  const all = effective(formRules());
  const seatCounts = seatChoices(all);
  const seats = formSeats(S.form);
  return h("form", { class: "panel create", "aria-labelledby": "create-title", onsubmit: (ev) => { ev.preventDefault(); createRoom(); } },
    h("h2", { id: "create-title" }, _("New room")),
    field(_("Rules"), h("select", { id: "preset-select", testid: "preset-select", onchange: (ev) => update((s) => { s.form.preset = ev.target.value; s.form.overrides = {}; }) },
      presets.map((name) => option(name, presetName(name), name === S.form.preset))), "preset-select"),
    h("fieldset", { class: "overrides" }, h("legend", {}, _("House rules")),
      OVERRIDES.map(([key, value]) => {
        const id = "rule-" + key;
        const on = JSON.stringify(all[key]) === JSON.stringify(value);
        return h("div", { class: "check" },
          h("input", { type: "checkbox", id, checked: on, onchange: (ev) => toggleOverride(key, value, ev.target.checked) }),
          h("label", { for: id }, overrideLabel(key)));
      }),
      field(_("Silence rule"), h("select", { id: "rule-silence", onchange: (ev) => setSilence(ev.target.value) },
        // TRANSLATORS: Off: the silence rule is not played
        option("off", _("Off"), all.silence === "off"), option("twos", _("After a Draw Two"), all.silence === "twos"), option("wilds", _("After a wild"), all.silence === "wilds")), "rule-silence"),
      // TRANSLATORS: a label over the choice of the score that ends the match (100 points, ...)
      field(_("Match to"), h("select", { id: "rule-target", onchange: (ev) => update((s) => { s.form.overrides.target_score = Number(ev.target.value); }) },
        [100, 200, 300, 500].map((n) => option(String(n), ngettext("{n} point", "{n} points", n), all.target_score === n))), "rule-target")),
    explained(),
    h("div", { class: "row" },
      field(_("Seats"), h("select", { id: "seats-select", testid: "seats-select", onchange: (ev) => setForm("seats", Number(ev.target.value)) },
        seatCounts.map((n) => option(String(n), String(n), n === seats))), "seats-select"),
      field(_("Bots"), h("select", { id: "bot-level-select", testid: "bot-level-select", onchange: (ev) => setForm("bot", ev.target.value) },
        BOT_LEVELS.map((b) => option(b, botLevelName(b), b === S.form.bot))), "bot-level-select"),
      field(_("Turn timer"), h("select", { id: "timer-select", testid: "timer-select", onchange: (ev) => setForm("timer", timerSeconds(ev.target.value)) },
        [0, 15, 30, 60].map((n) => option(timerValue(n), timerName(n), n === Number(S.form.timer)))), "timer-select")),
    h("div", { class: "check" },
      h("input", { type: "checkbox", id: "fill-bots", testid: "fill-bots", checked: !!S.form.bots, onchange: (ev) => setForm("bots", ev.target.checked) }),
      h("label", { for: "fill-bots" }, _("Fill the other seats with bots (one stays free for a friend)"))),
    h("button", { class: "primary", type: "submit", testid: "create-submit" }, _("Create room")));
}

function openRooms() {
  const rooms = S.openRooms || [];
  return h("section", { class: "panel", "aria-labelledby": "open-title" },
    h("h2", { id: "open-title" }, _("Open rooms")),
    h("ul", { class: "open-rooms", testid: "open-rooms" },
      rooms.length ? rooms.map((room) => h("li", { class: "open-room", testid: "open-room", data: { code: room.code } },
        h("span", { class: "code" }, room.code),
        h("span", { class: "muted" }, ngettext("{n} seat free", "{n} seats free", room.free) + " · " + rulesLabel(room.rules)),
        h("button", { type: "button", class: "secondary", data: { code: room.code }, onclick: () => { saveName(); enterRoom(room.code); } },
          _("Join"), h("span", { class: "visually-hidden" }, " " + room.code))))
        : h("li", { class: "muted empty" }, _("No open rooms right now. Create one!"))));
}

export function lobbyView() {
  return h("div", { class: "lobby" },
    h("section", { class: "hero" },
      h("div", { class: "hero-cards", "aria-hidden": "true" },
        ["c-R", "c-Y", "c-G", "c-B"].map((c, i) => h("span", { class: "card mini " + c, vars: { i } }, h("span", { class: "oval" })))),
      h("h1", {}, _("UNO with friends and bots")),
      h("p", { class: "lead" }, _("Play in the browser, on a phone or a desktop. No sign-up.")),
      h("div", { class: "field name" }, h("label", { for: "name-input" }, _("Your name")),
        h("input", { id: "name-input", testid: "name-input", type: "text", maxlength: "32", autocomplete: "nickname", value: S.name,
          placeholder: _("Player"), oninput: (ev) => update((s) => { s.name = ev.target.value; }, { quiet: true }),
          onkeydown: (ev) => { if (ev.key === "Enter") playNow(); } })),
      h("button", { class: "primary big", type: "button", testid: "play-now", onclick: playNow }, _("Play now")),
      // the play-now match in one line: its rules are the seeds' "online" (2 vs 2 to 100)
      h("p", { class: "muted", testid: "play-now-explained" }, _("A quick match against three bots.") + " " + presetMeaning("online"))),
    h("div", { class: "lobby-grid" },
      createForm(),
      h("div", { class: "stack" },
        lobbyAccount(),
        h("form", { class: "panel", "aria-labelledby": "join-title", onsubmit: (ev) => { ev.preventDefault(); if (S.joinCode.trim()) { saveName(); enterRoom(S.joinCode); } } },
          h("h2", { id: "join-title" }, _("Join a room")),
          h("div", { class: "row" },
            h("label", { for: "join-code-input", class: "visually-hidden" }, _("Room code")),
            h("input", { id: "join-code-input", testid: "join-code-input", type: "text", maxlength: "16", autocomplete: "off", value: S.joinCode,
              placeholder: _("Room code"), oninput: (ev) => update((s) => { s.joinCode = ev.target.value; }, { quiet: true }) }),
            h("button", { class: "secondary", type: "submit", testid: "join-submit" }, _("Join")))),
        openRooms())));
}
