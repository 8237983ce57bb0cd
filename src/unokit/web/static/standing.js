// A player's standing in words: the rating (a number, its last change, "provisional"
// while it is not settled), the coins, and the rating a match just gave each seat (the
// match end, from the reveal's `ratings`). Used by the lobby, the match end, the
// profiles and the leaderboards (docs/web.md, "Standing, leaderboards, challenges").
import { BASE, h } from "./dom.js";
import { _, ngettext } from "./i18n.js";

// A change of rating as a signed number: "+12", "−7" (a minus sign), "±0".
export function signed(n) {
  const value = Math.round(Number(n) || 0);
  if (value > 0) return "+" + value;
  if (value < 0) return "\u2212" + Math.abs(value);
  return "\u00b10";
}

// Time left until `end` (seconds since the epoch), from `now`: "2 d 5 h", "5 h 12 min".
export function timeLeft(end, now) {
  const left = Math.max(0, Math.floor(end - now));
  const days = Math.floor(left / 86400);
  const hours = Math.floor((left % 86400) / 3600);
  const minutes = Math.max(days || hours ? 0 : 1, Math.floor((left % 3600) / 60));
  // TRANSLATORS: the time left of a challenge, short: d = days, h = hours, min = minutes
  if (days) return _("{d} d {h} h", { d: days, h: hours });
  if (hours) return _("{h} h {m} min", { h: hours, m: minutes });
  return _("{m} min", { m: minutes });
}

export function coinsText(n) {
  // TRANSLATORS: an amount of coins, the currency of the shop (cosmetics only)
  return ngettext("{n} coin", "{n} coins", n);
}

// The rating of GET /api/me ({rating, change, provisional, matches}) as an element:
// "1523 (+12)" and a "provisional" tag while sigma is high. A guest has none.
export function ratingFact(player, testid = "rating", explain = false) {
  const r = player && player.rating;
  if (!player || player.guest || !r || typeof r.rating !== "number") {
    return h("span", { testid, data: { rating: "", provisional: "" } }, "—",
      // TRANSLATORS: guests play unrated: only accounts have a rating
      explain ? [" ", h("span", { class: "muted" }, _("guests play unrated"))] : null);
  }
  return h("span", { testid, data: { rating: r.rating, change: r.change, provisional: r.provisional, matches: r.matches } },
    h("b", {}, String(r.rating)),
    r.matches ? " (" + signed(r.change) + ")" : null,
    r.provisional ? [" ", h("span", { class: "tag provisional", title: _("The rating settles after a few more rated matches.") },
      // TRANSLATORS: a rating that is not settled yet (few rated matches)
      _("provisional"))] : null);
}

// The lobby's lines under the level: the rating, the coins, and the ways to the
// leaderboards and to the challenges and the shop (on /me).
export function standingFacts(player) {
  return [
    h("dl", { class: "facts standing" },
      h("dt", {}, _("Rating")), h("dd", {}, ratingFact(player, "lobby-rating", true)),
      h("dt", {}, _("Coins")), h("dd", { testid: "lobby-coins", data: { coins: player.coins ?? "" } },
        typeof player.coins === "number" ? coinsText(player.coins) : "…")),
    h("p", { class: "standing-links" },
      h("a", { href: BASE + "/leaderboards" + location.search, testid: "leaderboards-link" }, _("Leaderboards")),
      h("a", { href: BASE + "/me" + location.search + "#challenges", testid: "challenges-link" }, _("Challenges and shop"))),
  ];
}

// Why a rated match did not count for the player's rating, or counted only in part
// (the reveal's `notice`, a match of /api/me's `rating_notice`), in words: the kind,
// then each of the anti-farming checks that voided the player's own rating. The words
// say nothing of another player and nothing of the checks' thresholds.
function noticeKind(kind) {
  switch (kind) {
    case "voided": return _("This match did not count for your rating.");
    case "none_counted": return _("This match did not count for anyone's rating: too few results at the table counted.");
    case "partial": return _("Some results at this table did not count: your rating moved only against the other players.");
    default: return "";
  }
}

function noticeReason(reason) {
  switch (reason) {
    case "thrown": return _("The play at the table looked like a match lost on purpose.");
    case "thrown_pattern": return _("Your recent opponents often drew instead of playing a card they had.");
    case "sitting": return _("Most of your moves were played for you (turn timeouts or autoplay).");
    case "repeat_deal": return _("You had played this same deal before.");
    case "fresh_account": return _("A new account and a player on the same network do not rate each other at first.");
    case "lopsided_pair": return _("You have met one opponent often lately, nearly always with the same winner.");
    default: return "";
  }
}

export function noticeText(notice) {
  if (!notice) return "";
  return [noticeKind(notice.kind), ...(notice.reasons || []).map(noticeReason)]
    .filter(Boolean).join(" ");
}

// The notice as a paragraph (`testid`), or nothing when the match counted in full.
export function ratingNotice(notice, testid = "rating-notice") {
  if (!notice || !noticeKind(notice.kind)) return null;
  return h("p", { class: "rating-notice", testid, data: { kind: notice.kind, reasons: (notice.reasons || []).join(",") } },
    noticeText(notice));
}

// The match end: the rating this seat's match gave (the reveal's `ratings`), or that
// the match was not rated, or why it did not count (the reveal's `notice`, sent to
// this seat alone); nothing before the reveal comes.
export function matchRating(reveal, seat) {
  if (!reveal || seat === null || seat === undefined) return null;
  const mine = reveal.ratings && reveal.ratings[String(seat)];
  const notice = ratingNotice(reveal.notice, "match-rating-notice");
  if (!mine) {
    if (notice) {
      return h("div", { class: "match-rating", testid: "match-rating", data: { rated: "false" } }, notice);
    }
    return h("p", { class: "muted", testid: "match-rating", data: { rated: "false" } },
      _("This match was not rated (guests, or a room made unrated)."));
  }
  return h("div", { class: "match-rating", testid: "match-rating",
    data: { rated: "true", rating: mine.rating, change: mine.change, provisional: mine.provisional } },
  h("p", { class: "lead" },
    _("Rating"), ": ", h("b", {}, String(mine.rating)), " ",
    h("span", { class: "rating-change " + (mine.change > 0 ? "up" : mine.change < 0 ? "down" : "same") }, "(" + signed(mine.change) + ")"),
    mine.provisional ? [" ", h("span", { class: "tag provisional" }, _("provisional"))] : null),
  notice);
}
