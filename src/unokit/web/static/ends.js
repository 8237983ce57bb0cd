// The end of a round (each hand and its points) and of the match (final scores, the
// winner, the fairness commitment and the "verify this deal" link).
import { h } from "./dom.js";
import { _, ngettext } from "./i18n.js";
import { cardFace } from "./cards.js";
import { checkName } from "./describe.js";
import { choices } from "./game.js";
import { state as S } from "./store.js";
import { seatName } from "./names.js";
import { act, leaveRoom } from "./session.js";
import { fairness, hostControls, isHost, seatItem } from "./room.js";
import { chatBox, logBox, teamScores, verifyLink } from "./table.js";
import { endLine, teamMark } from "./teams.js";
import { matchXp } from "./xp.js";
import { matchRating } from "./standing.js";
import { countdownLine, rematchButton } from "./friendsview.js";

function hands(end) {
  const count = S.room ? S.room.seats.length : (end.points || []).length;
  return h("ul", { class: "round-hands" }, Array.from({ length: count }, (_x, seat) => {
    const cards = end.hands ? end.hands[seat] || [] : null;
    const points = (end.points || [])[seat] || 0;
    return h("li", { testid: "round-hand", data: { seat, points }, class: seat === end.winner ? "won" : "" },
      h("div", { class: "who" }, h("b", {}, seatName(seat)), teamMark(S.room && S.room.rules, seat, S.seat), seat === end.winner ? h("span", { class: "tag host" }, _("won the round")) : null,
        h("span", { class: "pts" }, ngettext("{n} point", "{n} points", points))),
      cards === null ? h("span", { class: "muted" }, _("Hands are hidden from spectators."))
        : cards.length ? h("div", { class: "hand small" }, cards.map((card) => cardFace(card, "div", { role: "img" })))
          : h("span", { class: "muted" }, _("No cards left")));
  }));
}

function scoreList(testid) {
  const g = S.game;
  const count = S.room ? S.room.seats.length : g.scores.length;
  const order = Array.from({ length: count }, (_x, seat) => seat);
  return h("div", {}, teamScores(g.scores, true), h("ol", { class: "score-list big", testid }, order.map((seat) =>
    h("li", { testid: "score", data: { seat, points: g.scores[seat] || 0 } }, h("span", {}, seatName(seat)), h("b", {}, String(g.scores[seat] || 0))))));
}

// "Your team wins ..." under teams (null without).
function teamLine(winner, what) {
  const text = endLine(S.room && S.room.rules, S.seat, winner, seatName, what);
  return text ? h("p", { class: "lead team-line", testid: "team-line", data: { what } }, text) : null;
}

// Between rounds the host may change the seats and the timer (the server takes these
// commands only then, and before the match).
function between() {
  if (!S.room || !isHost()) return null;
  return h("div", { class: "between" },
    h("section", { class: "panel", "aria-labelledby": "seats-title" },
      h("h2", { id: "seats-title" }, _("Seats")),
      h("ul", { class: "seats" }, S.room.seats.map((info) => seatItem(info, true)))),
    hostControls(S.room, true));
}

export function roundEndView() {
  const end = S.game.roundEnd || {};
  const c = choices(S.game.legal);
  const empty = !!(S.room && S.room.seats.some((s) => s.kind === "empty"));
  return h("div", { class: "end" },
    h("section", { class: "panel end-card" },
      // TRANSLATORS: a round nobody can finish (the same position keeps coming back)
      h("h1", {}, _("Round {n} is over", { n: end.round || S.game.round }), end.blocked ? " · " + _("blocked") : ""),
      h("p", { class: "lead" }, _("{name} wins the round.", { name: seatName(end.winner) })),
      teamLine(end.winner, "round"),
      // the next round and its countdown above the hands and scores: in view without
      // scrolling however many seats the table has
      h("div", { class: "end-actions" },
        h("button", { type: "button", class: "primary big", testid: "next-round", disabled: c.next && !empty ? null : true, onclick: () => act("next") }, _("Next round")),
        empty ? h("p", { class: "muted" }, _("A seat is empty: the next round waits for a player or a bot."))
          : countdownLine() || (c.next ? null : h("p", { class: "muted" }, _("The next round starts soon.")))),
      hands(end),
      h("h2", {}, _("Scores")), scoreList("scores")),
    between(),
    h("aside", { class: "side" }, logBox(), chatBox()));
}

export function matchEndView() {
  const g = S.game;
  const end = g.matchEnd || {};
  const winner = end.winner !== undefined ? end.winner : (g.roundEnd ? g.roundEnd.winner : 0);
  return h("div", { class: "end" },
    h("section", { class: "panel end-card" },
      h("h1", {}, _("The match is over")),
      h("p", { class: "winner lead", testid: "winner", data: { seat: winner } }, _("{name} wins the match!", { name: seatName(winner) })),
      teamLine(winner, "match"),
      g.roundEnd ? hands(g.roundEnd) : null,
      h("h2", {}, _("Final scores")), h("div", { testid: "final-scores" }, scoreList("final-score-list")),
      matchRating(S.reveal, S.seat),
      verifyLink(false),
      S.verify ? h("p", { class: "verify-result " + (S.verify.passed ? "ok" : "bad"), role: "status" },
        S.verify.passed ? "✓ " + ngettext("The deal checks out: {n} check passed.", "The deal checks out: all {n} checks passed.", S.verify.checks.length)
          : "✗ " + _("A check of the deal failed: {names}.", { names: S.verify.checks.filter((c) => !c.passed).map((c) => checkName(c.name)).join(", ") })) : null,
      rematchButton(),
      h("button", { type: "button", class: "ghost", testid: "back-to-lobby", onclick: leaveRoom }, _("Back to the lobby"))),
    S.seat === null ? null : matchXp(S.code),
    fairness(),
    h("aside", { class: "side" }, logBox(), chatBox()));
}
