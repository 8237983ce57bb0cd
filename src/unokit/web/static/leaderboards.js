// The leaderboards page (/leaderboards): by rating or by XP, all time or this week, a
// page of ranks at a time (GET /api/leaderboards/{kind}?period=..&rank=..&limit=..),
// "Around me" (?around=me), a rank to go to, and who may be on the boards (the
// server's eligibility rules). Each name links to the player's profile. The choice is
// kept in the address (?kind=xp&period=week&rank=41), so that a link or Back shows
// the same page.
import { BASE, h } from "./dom.js";
import { _, ngettext, pgettext } from "./i18n.js";
import { api } from "./net.js";
import { accountError, ensureGuest } from "./account.js";
import { notice, redraw, startPage } from "./page.js";

export const LIMIT = 20;
const KINDS = ["rating", "xp"];
const PERIODS = ["all", "week"];

const B = { kind: "rating", period: "all", rank: 1, around: false, page: null, error: null, loading: false, me: null };

// The board the address asks for (unknown values: the defaults).
export function fromQuery(search) {
  const q = new URLSearchParams(search);
  const rank = Number(q.get("rank"));
  return {
    kind: KINDS.includes(q.get("kind")) ? q.get("kind") : "rating",
    period: PERIODS.includes(q.get("period")) ? q.get("period") : "all",
    rank: Number.isInteger(rank) && rank >= 1 && rank <= 1e9 ? rank : 1,
  };
}

function keepInAddress() {
  const url = new URL(location.href);
  url.searchParams.set("kind", B.kind);
  url.searchParams.set("period", B.period);
  url.searchParams.set("rank", String(B.rank));
  history.replaceState(history.state, "", url.pathname + url.search + url.hash);
}

// Each load has a number: only the answer of the latest one is shown (a click on
// "This week" and then a rank typed at once: the week's answer, if it comes last, is
// older than the rank's and is dropped).
let loads = 0;

async function load({ around = false } = {}) {
  const mine = ++loads;
  B.loading = true;
  redraw();
  const query = "?period=" + B.period + "&limit=" + LIMIT + (around ? "&around=me" : "&rank=" + B.rank);
  try {
    const page = await api("/api/leaderboards/" + B.kind + query);
    if (mine !== loads) return;
    B.page = page;
    B.rank = page.rank;
    B.around = around;
    B.error = null;
  } catch (err) {
    if (mine !== loads) return;
    B.error = { code: err.code, message: err.message, around };
  }
  B.loading = false;
  keepInAddress();
  redraw();
}

function choose(change) {
  change();
  B.rank = 1;
  load();
}

function kindName(kind) {
  return kind === "xp" ? _("By XP") : _("By rating");
}

function periodName(period) {
  // TRANSLATORS: a leaderboard of all the time, against one of this week
  return period === "week" ? _("This week") : _("All time");
}

function tabs(label, values, current, name, set, testid) {
  return h("div", { class: "board-choice", role: "group", "aria-label": label },
    h("p", { class: "muted small-text", "aria-hidden": "true" }, label),
    h("ul", { class: "board-tabs" }, values.map((value) => h("li", {},
      h("button", { type: "button", class: "secondary", testid, data: { value }, "aria-pressed": String(value === current),
        onclick: () => { if (value !== current) choose(() => set(value)); } }, name(value))))));
}

function scoreName(kind) {
  return kind === "xp" ? _("XP") : _("Rating");
}

// "?lang=ru" where the address asked for a language, so the next page keeps it.
function langQuery() {
  const lang = new URLSearchParams(location.search).get("lang");
  return lang ? "?lang=" + encodeURIComponent(lang) : "";
}

function entryRow(entry) {
  const mine = B.me && !B.me.guest && B.me.username === entry.player;
  return h("tr", { class: mine ? "board-me" : null, testid: "board-entry",
    data: { rank: entry.rank, player: entry.player, score: entry.score, me: mine ? "true" : "false" } },
  h("td", { class: "num" }, String(entry.rank)),
  h("td", {}, h("a", { href: BASE + "/players/" + encodeURIComponent(entry.player) + langQuery() }, entry.player),
    mine ? [" ", h("span", { class: "tag" }, pgettext("the tag beside your own seat's name", "you"))] : null),
  h("td", { class: "num" }, String(entry.score)));
}

function rules(e) {
  if (!e) return null;
  return h("p", { class: "muted small-text", testid: "board-rules" },
    ngettext("On the leaderboards: accounts (not bots, not banned) with a settled rating, at least {n} rated match, and in the last {days} days at least {recent} rated matches against at least {people} different opponents.",
      "On the leaderboards: accounts (not bots, not banned) with a settled rating, at least {n} rated matches, and in the last {days} days at least {recent} rated matches against at least {people} different opponents.",
      e.min_matches, { days: e.days, recent: e.recent_matches, people: e.recent_opponents }));
}

function goTo(ev) {
  ev.preventDefault();
  const value = Number(new FormData(ev.target).get("rank"));
  if (!Number.isInteger(value) || value < 1) return;
  B.rank = value;
  load();
}

function table(page) {
  const entries = page.entries || [];
  if (!entries.length) {
    return h("p", { class: "muted", testid: "board-empty" }, page.total ? _("No one at these ranks.") : _("No one is on this leaderboard yet."));
  }
  const last = entries[entries.length - 1].rank;
  return h("table", { class: "board-table", testid: "board-table" },
    h("caption", {}, _("Ranks {first} to {last} of {total}", { first: entries[0].rank, last, total: page.total })),
    h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "num rank-col" }, _("Rank")), h("th", { scope: "col" }, _("Player")),
      h("th", { scope: "col", class: "num" }, scoreName(page.kind)))),
    h("tbody", {}, entries.map((entry) => entryRow(entry))));
}

function paging(page) {
  const entries = page.entries || [];
  const next = entries.length ? entries[entries.length - 1].rank + 1 : page.rank;
  const before = Math.max(1, page.rank - LIMIT);
  return h("div", { class: "row board-paging" },
    h("button", { type: "button", class: "secondary", testid: "board-first", disabled: page.rank <= 1 || B.loading ? true : null,
      onclick: () => { B.rank = 1; load(); } }, pgettext("the first page of a leaderboard", "Top")),
    h("button", { type: "button", class: "secondary", testid: "board-previous", disabled: page.rank <= 1 || B.loading ? true : null,
      onclick: () => { B.rank = before; load(); } }, _("Previous ranks")),
    h("button", { type: "button", class: "secondary", testid: "board-next", disabled: next > page.total || B.loading ? true : null,
      onclick: () => { B.rank = next; load(); } }, _("Next ranks")),
    h("button", { type: "button", class: "primary", testid: "board-around-me", disabled: B.loading ? true : null,
      onclick: () => load({ around: true }) }, _("Around me")));
}

function view() {
  const page = B.page;
  const error = B.error;
  return h("div", { class: "leaderboards" },
    h("section", { class: "panel", "aria-labelledby": "boards-title", testid: "leaderboards",
      data: { kind: B.kind, period: B.period, rank: B.rank, loading: B.loading ? "true" : "false", total: page ? page.total : "" } },
    h("h1", { id: "boards-title" }, _("Leaderboards")),
    h("div", { class: "board-controls" },
      tabs(_("Ranked by"), KINDS, B.kind, kindName, (v) => { B.kind = v; }, "board-kind"),
      tabs(_("Period"), PERIODS, B.period, periodName, (v) => { B.period = v; }, "board-period"),
      h("form", { class: "board-jump row", onsubmit: goTo },
        h("div", { class: "field" }, h("label", { for: "board-rank" }, _("Go to rank")),
          h("input", { id: "board-rank", name: "rank", type: "number", min: "1", step: "1", required: true, testid: "board-rank", value: String(B.rank) })),
        h("button", { type: "submit", class: "secondary", testid: "board-go" }, _("Go")))),
    h("h2", { testid: "board-title" }, kindName(B.kind) + " · " + periodName(B.period)),
    h("p", { class: "visually-hidden", role: "status" }, B.loading ? _("Loading…") : page ? _("Ranks from {n}", { n: page.rank }) : ""),
    error ? notice(error.code === "not_found" && error.around ? _("You are not on this leaderboard yet.") : accountError(error.code, error.message), "board-error", error.code || "") : null,
    page ? table(page) : h("p", { class: "muted" }, _("Loading…")),
    page ? paging(page) : null,
    rules(page && page.eligibility)));
}

async function start() {
  Object.assign(B, fromQuery(location.search));
  // after a language switch: an error of the server (its words) read again
  await startPage("leaderboards", view, () => (B.error ? load({ around: B.error.around }) : null));
  B.me = await ensureGuest(); // the player, to mark their line (and for "Around me")
  await load();
}

start();
