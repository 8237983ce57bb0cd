// The replay viewer of a finished match (GET /api/rooms/CODE/replay?seat=N|all): step
// forward and back, jump to a round, and choose whose view to see: one seat's (the
// server redacts it as that seat saw the match) or every hand. Keys: ← → a step,
// Home / End the first and the last.
import { h, option } from "./dom.js";
import { _, ngettext } from "./i18n.js";
import { api } from "./net.js";
import { cardFace, colourName, SYMBOLS } from "./cards.js";
import { describe } from "./describe.js";

// code, view ("all" or a seat), data (the answer), step, error, loading
const R = { code: null, view: "all", data: null, step: 0, error: null, loading: false, redraw: () => {}, bots: new Set() };

// The seats of the match that bots held (named "Bot N" as on the table).
export function setBots(seats) {
  R.bots = new Set(seats);
}

export async function loadReplay(code, view, redraw) {
  R.code = code;
  R.view = view;
  R.redraw = redraw;
  R.loading = true;
  redraw();
  try {
    const data = await api("/api/rooms/" + encodeURIComponent(code) + "/replay?seat=" + view);
    const steps = data.steps.length;
    R.data = data;
    R.step = Math.min(R.step, steps - 1);
    R.error = null;
  } catch (err) {
    R.error = err;
  }
  R.loading = false;
  redraw();
}

// After a language switch: an error the server wrote, read again in the new language.
export async function relocalizeReplay() {
  if (R.error && R.code) await loadReplay(R.code, R.view, R.redraw);
}

function go(step) {
  if (!R.data) return;
  R.step = Math.max(0, Math.min(R.data.steps.length - 1, step));
  R.redraw();
}

// ← → Home End move through the match while the focus is in the viewer (not in a select).
export function replayKeys(ev) {
  if (!R.data || !ev.target.closest || !ev.target.closest('[data-testid="replay"]')) return false;
  if (ev.target.tagName === "SELECT" || ev.ctrlKey || ev.metaKey || ev.altKey) return false;
  const moves = { ArrowLeft: R.step - 1, ArrowRight: R.step + 1, Home: 0, End: R.data.steps.length - 1 };
  if (!(ev.key in moves)) return false;
  go(moves[ev.key]);
  return true;
}

export function seatLabel(seat, players = R.data.players) {
  if (R.bots.has(seat)) return _("Bot {n}", { n: seat + 1 });
  const name = players[seat];
  const plain = /^(?:Seat|Player) (\d+)$/.exec(name || "");
  return plain ? _("Seat {n}", { n: seat + 1 }) : name;
}

function seatRow(table, seat) {
  const cards = table.hands ? table.hands[seat] : seat === table.seat ? table.hand : null;
  const count = cards ? cards.length : table.hand_sizes[seat];
  const current = table.current_player === seat;
  return h("li", { class: "replay-seat" + (current ? " current" : ""), testid: "replay-seat",
    data: { seat, count, shown: cards ? "true" : "false", current: current ? "true" : "false" } },
  h("div", { class: "who" }, h("b", {}, seatLabel(seat)),
    current ? h("span", { class: "tag host" }, _("to play")) : null,
    h("span", { class: "pts" }, ngettext("{n} point", "{n} points", table.scores[seat] || 0))),
  cards ? (cards.length ? h("div", { class: "hand small", role: "list", "aria-label": _("{name}'s hand", { name: seatLabel(seat) }) },
    cards.map((card) => cardFace(card, "div", { role: "listitem", data: { card } })))
    : h("span", { class: "muted" }, _("No cards left")))
    : h("span", { class: "muted", testid: "replay-hidden" }, ngettext("{n} card, hidden", "{n} cards, hidden", count)));
}

function viewName(view) {
  if (view === "all") return _("Every hand");
  return _("{name}'s view", { name: seatLabel(Number(view)) });
}

function controls(steps) {
  const rounds = Object.keys(R.data.rounds).map(Number).sort((a, b) => a - b);
  const here = R.data.steps[R.step].round;
  const button = (testid, label, to, disabled) =>
    h("button", { type: "button", class: "secondary", testid, disabled: disabled ? true : null, onclick: () => go(to) }, label);
  return h("div", { class: "replay-controls" },
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { for: "replay-view" }, _("Whose view")),
        h("select", { id: "replay-view", testid: "replay-view", onchange: (ev) => loadReplay(R.code, ev.target.value, R.redraw) },
          option("all", viewName("all"), R.view === "all"),
          R.data.players.map((_name, seat) => option(String(seat), viewName(String(seat)), R.view === String(seat))))),
      h("div", { class: "field" }, h("label", { for: "replay-round" }, _("Jump to a round")),
        h("select", { id: "replay-round", testid: "replay-round", onchange: (ev) => go(R.data.rounds[ev.target.value]) },
          rounds.map((n) => option(String(n), _("Round {n}", { n }), n === here))))),
    h("div", { class: "row replay-steps" },
      button("replay-first", _("First"), 0, R.step === 0),
      button("replay-back", "◀ " + _("Back"), R.step - 1, R.step === 0),
      button("replay-forward", _("Forward") + " ▶", R.step + 1, R.step === steps - 1),
      button("replay-last", _("Last"), steps - 1, R.step === steps - 1)));
}

function tableFacts(table) {
  return h("p", { class: "replay-facts" },
    h("span", {}, _("Top card:") + " "),
    table.top ? cardFace(table.top, "span", { class: "mini", role: "img", testid: "replay-top", data: { card: table.top } }) : "—",
    " ",
    table.color ? h("span", { testid: "replay-colour", data: { colour: table.color } },
      (SYMBOLS[table.color] || "") + " " + colourName(table.color)) : null,
    " · ",
    h("span", {}, table.direction === "cw" ? _("clockwise") : _("counter-clockwise")),
    " · ",
    h("span", {}, ngettext("{n} card in the draw pile", "{n} cards in the draw pile", table.draw_pile_size)));
}

export function replayView() {
  if (R.error && !R.data) {
    return h("p", { class: "page-error", testid: "replay-error", role: "alert", data: { code: R.error.code || "error" } },
      R.error.code === "not_started" ? _("The replay opens when the match is over.") : R.error.message);
  }
  if (!R.data) return h("p", { class: "muted", role: "status" }, _("Loading…"));
  const steps = R.data.steps.length;
  const step = R.data.steps[R.step];
  const table = step.table;
  const seats = R.data.players.map((_name, seat) => seat);
  const lines = step.events.map((e) => describe(e, seats.map(seatLabel)));
  return h("div", { class: "replay", testid: "replay", data: { view: R.view, step: R.step, steps, round: step.round, loading: R.loading ? "true" : "false" } },
    controls(steps),
    h("p", { class: "replay-where", testid: "replay-step", role: "status", data: { step: R.step, round: step.round } },
      _("Step {step} of {steps} · round {round}", { step: R.step + 1, steps, round: step.round }),
      step.action === null ? " · " + _("the deal") : null),
    h("ul", { class: "replay-events", testid: "replay-events", "aria-label": _("What happened") },
      lines.filter(Boolean).map((text) => h("li", {}, text))),
    tableFacts(table),
    h("ol", { class: "replay-seats" }, seats.map((seat) => seatRow(table, seat))),
    table.partner_hand ? h("p", {}, _("Your partner's hand:") + " ",
      h("span", { class: "hand small" }, table.partner_hand.map((card) => cardFace(card, "span", { role: "img" })))) : null);
}
