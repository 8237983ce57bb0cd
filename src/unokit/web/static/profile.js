// A player's page: /players/NAME (an account's public profile) and /me (this browser's
// player, a guest too, with the account panel). Level, XP, rating, and the recent
// matches, newest first, a keyset page at a time ("More": GET ...?before=NEXT).
import { BASE, h } from "./dom.js";
import { _, ngettext } from "./i18n.js";
import { api } from "./net.js";
import { accountError, accountPanel, ensureGuest } from "./account.js";
import { levelBlock, lineItems, xpText } from "./xp.js";
import { localPath, notice, redraw, startPage, when } from "./page.js";
import { ratingFact, ratingNotice } from "./standing.js";
import { challengesPanel, loadRewards, rewardsStatus, shopPanel } from "./rewards.js";

const PAGE = 10;
const P = { profile: null, matches: [], next: null, error: null, more: false, own: false };

// Whose profile the page shows, and how to read it (`query`: "?limit=...").
function source() {
  const named = localPath().match(/^\/players\/([^/]+)\/?$/);
  if (named) {
    const name = encodeURIComponent(decodeURIComponent(named[1]));
    return { own: false, read: (query) => api("/api/players/" + name + query) };
  }
  return { own: true, read: (query) => api("/api/me" + query) };
}

async function load() {
  const { own, read } = source();
  P.own = own;
  try {
    let profile;
    try {
      profile = await read("?limit=" + PAGE);
    } catch (err) {
      if (!(own && err.code === "no_session")) throw err;
      await ensureGuest(); // a first visit straight to /me: a guest, as on the lobby
      profile = await read("?limit=" + PAGE);
    }
    P.profile = profile;
    P.matches = profile.matches || [];
    P.next = profile.next;
    P.error = null;
  } catch (err) {
    P.profile = null;
    P.error = err;
  }
  redraw();
}

async function more() {
  if (!P.next || P.more) return;
  P.more = true;
  const before = P.matches.length;
  redraw();
  try {
    const page = await source().read("?limit=" + PAGE + "&before=" + encodeURIComponent(P.next));
    P.matches = P.matches.concat(page.matches || []);
    P.next = page.next;
    P.error = null;
  } catch (err) {
    P.error = err;
  }
  P.more = false;
  redraw();
  // the focus goes on to the first of the new matches (the button may be gone)
  const first = document.querySelectorAll('[data-testid="history-match"] a')[before];
  if (first) first.focus({ preventScroll: true });
}

// The match's result: its key (for the CSS class) and its word in the page's language.
function outcome(match) {
  if (match.left) return "left";
  return match.won ? "won" : "lost";
}

function result(match) {
  if (match.left) return _("left");
  return match.won ? _("won") : _("lost");
}

function matchItem(match) {
  return h("li", { class: "history-match", testid: "history-match", data: { code: match.code, match: match.match, won: match.won, left: match.left, xp: match.xp } },
    h("div", { class: "history-head" },
      h("a", { href: BASE + "/matches/" + encodeURIComponent(match.code) + location.search },
        _("Match {code}", { code: match.code })),
      h("span", { class: "muted" }, when(match.ended_at)),
      h("span", { class: "tag result-" + outcome(match) }, result(match)),
      h("b", { class: "history-xp" }, "+" + xpText(match.xp))),
    match.left ? null : h("ul", { class: "xp-lines small-text" }, lineItems(match.lines)),
    ratingNotice(match.rating_notice, "history-rating-notice"));
}

// After a login, a logout or a claim: the player, their challenges and their shop.
async function reloadAll() {
  await load();
  await loadRewards();
}

function view() {
  if (P.error && !P.profile) {
    const code = P.error.code || "error";
    return notice(code === "not_found" ? _("There is no such player.") : accountError(code, P.error.message), "page-error", code);
  }
  if (!P.profile) return h("p", { class: "muted", role: "status" }, _("Loading…"));
  const p = P.profile;
  const title = p.guest ? _("Guest {n}", { n: p.id }) : p.username;
  return h("div", { class: "profile" },
    h("section", { class: "panel profile-card", testid: "profile", data: { guest: !!p.guest, username: p.username || "" }, "aria-labelledby": "profile-title" },
      h("h1", { id: "profile-title" }, title),
      P.own ? h("p", { class: "muted" }, _("This is you.")) : null,
      levelBlock(p, "profile-level"),
      h("dl", { class: "facts" },
        h("dt", {}, _("Rating")), h("dd", {}, ratingFact(p, "profile-rating")),
        h("dt", {}, _("Playing since")), h("dd", {}, when(p.created_at))),
      P.own && !p.guest ? h("p", {}, h("a", { href: BASE + "/players/" + encodeURIComponent(p.username) }, _("Your public profile"))) : null),
    h("section", { class: "panel", "aria-labelledby": "history-title" },
      h("h2", { id: "history-title" }, _("Recent matches")),
      P.matches.length ? h("ol", { class: "history", testid: "history" }, P.matches.map(matchItem))
        : h("p", { class: "muted", testid: "history-empty" }, _("No finished match yet.")),
      P.error ? notice(accountError(P.error.code, P.error.message), "history-error", P.error.code || "") : null,
      P.next ? h("button", { type: "button", class: "secondary", testid: "history-more", disabled: P.more ? true : null, onclick: more },
        P.more ? _("Loading…") : _("More matches")) : null,
      h("p", { class: "muted small-text" }, ngettext("{n} match shown.", "{n} matches shown.", P.matches.length))),
    P.own ? [rewardsStatus(), challengesPanel(load), shopPanel()] : null,
    P.own ? accountPanel(p, reloadAll) : null);
}

// After a language switch: the challenges' titles and the shop's names (the server
// writes them in the page's language), and an error of the server, again.
async function relocalize() {
  if (P.error) await load();
  if (P.own && P.profile) await loadRewards();
}

startPage("profile", view, relocalize).then(load).then(() => {
  if (!P.own || !P.profile) return null;
  return loadRewards().then(() => {
    // a link to /me#challenges: the panel is drawn only now
    const target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    if (target) target.scrollIntoView();
  });
});
