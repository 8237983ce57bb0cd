// Teams you can see: under `teams: "pairs"` (the "Play now" match is one) each seat has a
// partner across the table, as the engine's scoring.partner says: seat s and seat
// s + players/2. The rules are the ones the server sends with the room (its `rules`,
// the engine's own Rules.to_dict(): the preset and what differs from it, read through
// rules.js effective(), whose presets tests/test_web_static.py keeps equal to the
// engine's), never guessed from the page's own choices. Partners score
// together: the engine gives both the team's points, so a team's total is either
// partner's score. No DOM here but the marks (teamMark), so that node --test runs the rest
// (tests/web/teams.test.mjs).
//
//   partnerOf({ teams: "pairs", players: 4 }, 1) === 3
//   teamOf({ teams: "pairs", players: 4 }, 3) === 1
//   teamOf({ teams: "none", players: 4 }, 3) === null
import { h } from "./dom.js";
import { _, ngettext, pgettext } from "./i18n.js";
import { effective } from "./rules.js";

// Every rule of `rules` (the room's: a preset and its changes); null for none.
function full(rules) {
  return rules ? effective(rules) : null;
}

// The number of seats the rules play with.
function players(rules) {
  const all = full(rules);
  return Number(all && all.players) || 0;
}

// Whether the rules play in teams.
export function hasTeams(rules) {
  const all = full(rules);
  return !!all && all.teams === "pairs";
}

// The partner of `seat` (-1 without teams, or for no seat).
export function partnerOf(rules, seat) {
  const n = players(rules);
  if (!hasTeams(rules) || seat === null || seat === undefined || seat < 0 || n < 2) return -1;
  return (seat + n / 2) % n;
}

// The team of `seat`, counted from 0 (the team of seat 0 is 0); null without teams.
export function teamOf(rules, seat) {
  const mate = partnerOf(rules, seat);
  return mate < 0 ? null : Math.min(seat, mate);
}

// The teams in order: [{team, seats: [a, b]}]; empty without teams.
export function teamsOf(rules) {
  const n = players(rules);
  if (!hasTeams(rules) || n < 2) return [];
  return Array.from({ length: n / 2 }, (_x, team) => ({ team, seats: [team, team + n / 2] }));
}

// Each team's points (the engine gives both partners the team's score).
export function teamTotals(rules, scores) {
  return teamsOf(rules).map(({ team, seats: members }) => ({
    team, seats: members, points: Math.max(...members.map((s) => (scores && scores[s]) || 0)),
  }));
}

// The names of a team's seats, joined: "Ann & Cat".
export function teamNames(members, nameOf) {
  return members.map(nameOf).join(" & ");
}

// The line under the winner on the round end (`what` "round") and the match end
// ("match"): "Your team wins the match with Cat." / "Your team loses the match." (the
// partner named on a win, as the terminal says it) for a
// seated player, "Team 2 wins the match: Bob & Dan." for a spectator; null without teams
// or without a winner. `nameOf(seat)` names a seat.
export function endLine(rules, me, winner, nameOf, what = "match") {
  const team = teamOf(rules, winner);
  if (team === null || winner === null || winner === undefined || winner < 0) return null;
  const members = teamsOf(rules)[team].seats;
  if (me === null || me === undefined || me < 0) {
    return what === "round"
      ? _("Team {n} wins the round: {names}.", { n: team + 1, names: teamNames(members, nameOf) })
      : _("Team {n} wins the match: {names}.", { n: team + 1, names: teamNames(members, nameOf) });
  }
  const mates = [partnerOf(rules, me)];
  const names = mates.map(nameOf).join(", ");
  if (teamOf(rules, me) === team) {
    // TRANSLATORS: {names} are your partners (one under the pairs rule)
    return what === "round"
      ? ngettext("Your team wins the round with {names}.", "Your team wins the round with {names}.", mates.length, { names })
      : ngettext("Your team wins the match with {names}.", "Your team wins the match with {names}.", mates.length, { names });
  }
  return what === "round" ? _("Your team loses the round.") : _("Your team loses the match.");
}

// The team of `seat` in words, for a label read by a screen reader: ", Team 1, partner"
// ("" without teams).
export function teamLabel(rules, seat, me) {
  const team = teamOf(rules, seat);
  if (team === null) return "";
  const mine = partnerOf(rules, me) === seat;
  return ", " + _("Team {n}", { n: team + 1 }) + (mine ? ", " + pgettext("the tag beside your partner's seat", "partner") : "");
}

// The team mark beside a seat's name: the same mark on both partners ("Team 1"), and
// "partner" on the page's own partner. Nothing without teams.
export function teamMark(rules, seat, me) {
  const team = teamOf(rules, seat);
  if (team === null) return null;
  const mine = partnerOf(rules, me) === seat;
  return h("span", { class: "team-mark", testid: "team-mark", data: { team, partner: mine ? "true" : null } },
    h("span", { class: "team-dot t" + (team % 5), "aria-hidden": "true" }, String.fromCharCode(65 + team)),
    h("span", { class: "team-name" }, _("Team {n}", { n: team + 1 })),
    // TRANSLATORS: the tag beside the seat of your partner (teams of two)
    mine ? h("span", { class: "tag partner", testid: "partner-tag" }, pgettext("the tag beside your partner's seat", "partner")) : null);
}
