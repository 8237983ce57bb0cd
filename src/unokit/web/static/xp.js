// XP and levels in words (docs/accounts.md): the lines a match pays, a level's
// progress bar, and the "+N XP" of a match just ended (the match end screen).
import { BASE, h } from "./dom.js";
import { _, language, ngettext } from "./i18n.js";
import { api } from "./net.js";

// XP per line, as the server pays them (unokit.store.seatings.XP; a test compares).
export const XP_PER = { played: 10, won_match: 18, won_round: 2, draw_two: 1, wild_draw_four: 1 };
export const LINE_ORDER = ["played", "won_match", "won_round", "draw_two", "wild_draw_four"];

// One XP line in words, with how many times it was earned.
export function lineName(reason, count) {
  switch (reason) {
    case "played": return _("Match played");
    case "won_match": return _("Match won");
    case "won_round": return ngettext("{n} round won", "{n} rounds won", count);
    case "draw_two": return ngettext("{n} Draw Two played", "{n} Draw Twos played", count);
    case "wild_draw_four": return ngettext("{n} Wild Draw Four played", "{n} Wild Draw Fours played", count);
    default: return reason;
  }
}

export function xpText(n) {
  // TRANSLATORS: an amount of experience points (XP), e.g. "28 XP"
  return _("{n} XP", { n });
}

// A match's lines as list items: "Match won +18 XP".
export function lineItems(lines) {
  return LINE_ORDER.filter((reason) => lines && lines[reason]).map((reason) =>
    h("li", { testid: "xp-line", data: { reason, count: lines[reason], xp: lines[reason] * XP_PER[reason] } },
      h("span", {}, lineName(reason, lines[reason])), " ", h("b", {}, "+" + xpText(lines[reason] * XP_PER[reason]))));
}

// The level and the way to the next one: {xp, level, level_xp, next_level_xp}.
export function levelBlock(player, testid = "level") {
  const span = Math.max(1, player.next_level_xp - player.level_xp);
  const done = Math.max(0, Math.min(span, player.xp - player.level_xp));
  return h("div", { class: "level-block", testid, data: { level: player.level, xp: player.xp } },
    h("p", {}, h("b", { class: "level-number" }, _("Level {n}", { n: player.level })), " · ",
      h("span", { testid: "xp-total" }, xpText(player.xp))),
    h("progress", { max: String(span), value: String(done), "aria-label": _("Progress to level {n}", { n: player.level + 1 }) }),
    h("p", { class: "muted small-text" }, _("{n} XP to level {level}", { n: span - done, level: player.level + 1 })));
}

// ---------------------------------------------------------------- the match end
// The XP the player got for the match of room `code`: read from GET /api/me once the
// match is over (the server stores it with the match's last action, before it sends
// the end). One element per room, filled in when the answer comes, and drawn again in
// the new language after a switch.
let shown = { code: null, el: null, found: null, lang: null };

function paint(el, code, me, match) {
  el.dataset.xp = String(match.xp);
  el.dataset.state = "ready";
  el.replaceChildren(
    h("h2", {}, _("Experience")),
    h("p", { class: "xp-gain", testid: "xp-gain", data: { xp: match.xp } },
      match.left ? _("You left the match: no XP for it.") : "+" + xpText(match.xp)),
    h("ul", { class: "xp-lines" }, match.left ? [] : lineItems(match.lines)),
    levelBlock(me, "xp-level"),
    h("p", { class: "xp-links" }, h("a", { href: BASE + "/matches/" + encodeURIComponent(code), testid: "match-page-link" }, _("Replay and record of this match")),
      " · ", h("a", { href: BASE + "/me", testid: "profile-link" }, _("Your profile"))));
}

async function fill(code, el, tries) {
  let me = null;
  try {
    me = await api("/api/me?limit=5");
  } catch {
    el.replaceChildren();
    el.hidden = true; // no session (the server was away on the first visit): no XP to show
    return;
  }
  const match = (me.matches || []).find((m) => m.code === code);
  if (!match) {
    // a seat without a session earns nothing; otherwise the line may still be on its way
    if (tries > 0) setTimeout(() => fill(code, el, tries - 1), 1000);
    else el.hidden = true;
    return;
  }
  if (shown.el === el) shown = { ...shown, found: { me, match }, lang: language() };
  paint(el, code, me, match);
}

export function matchXp(code) {
  if (shown.code !== code) {
    const el = h("section", { class: "panel xp-panel", testid: "match-xp", data: { state: "loading" }, "aria-live": "polite" });
    shown = { code, el, found: null, lang: null };
    fill(code, el, 3);
  } else if (shown.found && shown.lang !== language()) {
    shown.lang = language();
    paint(shown.el, code, shown.found.me, shown.found.match);
  }
  return shown.el;
}
