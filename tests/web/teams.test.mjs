// teams.js: who partners whom under the pairs rule (as the engine's scoring.partner),
// the teams' totals, and the line on the round and match end, in English.
import { test } from "node:test";
import assert from "node:assert/strict";
import { endLine, hasTeams, partnerOf, teamLabel, teamNames, teamOf, teamsOf, teamTotals } from "../../src/unokit/web/static/teams.js";

const PAIRS4 = { teams: "pairs", players: 4 };
const PAIRS6 = { teams: "pairs", players: 6 };
const SOLO = { teams: "none", players: 4 };
const NAMES = ["Ann", "Bot 2", "Cat", "Bot 4", "Eve", "Fay"];
const nameOf = (seat) => NAMES[seat];

test("partners sit across the table, as the engine's scoring.partner says", () => {
  assert.deepEqual([0, 1, 2, 3].map((s) => partnerOf(PAIRS4, s)), [2, 3, 0, 1]);
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((s) => partnerOf(PAIRS6, s)), [3, 4, 5, 0, 1, 2]);
  assert.deepEqual([0, 1, 2, 3].map((s) => teamOf(PAIRS4, s)), [0, 1, 0, 1]);
  assert.deepEqual(teamsOf(PAIRS6).map((t) => t.seats), [[0, 3], [1, 4], [2, 5]]);
});

test("without teams there is no partner, no team and no line", () => {
  assert.equal(hasTeams(SOLO), false);
  assert.equal(partnerOf(SOLO, 1), -1);
  assert.equal(teamOf(SOLO, 1), null);
  assert.deepEqual(teamsOf(SOLO), []);
  assert.deepEqual(teamTotals(SOLO, [1, 2, 3, 4]), []);
  assert.equal(endLine(SOLO, 0, 0, nameOf), null);
  assert.equal(endLine(null, 0, 0, nameOf), null);
  assert.equal(partnerOf(PAIRS4, null), -1, "a spectator has no partner");
});

test("a team's total is its partners' shared score", () => {
  assert.deepEqual(teamTotals(PAIRS4, [40, 12, 40, 12]), [
    { team: 0, seats: [0, 2], points: 40 }, { team: 1, seats: [1, 3], points: 12 }]);
  assert.deepEqual(teamTotals(PAIRS4, []).map((t) => t.points), [0, 0]);
  assert.equal(teamNames([0, 2], nameOf), "Ann & Cat");
});

test("the end line: your team wins with your partner named, or loses", () => {
  assert.equal(endLine(PAIRS4, 0, 2, nameOf), "Your team wins the match with Cat.");
  assert.equal(endLine(PAIRS4, 0, 0, nameOf, "round"), "Your team wins the round with Cat.");
  assert.equal(endLine(PAIRS4, 2, 0, nameOf), "Your team wins the match with Ann.");
  assert.equal(endLine(PAIRS4, 0, 1, nameOf), "Your team loses the match.");
  assert.equal(endLine(PAIRS4, 0, 3, nameOf, "round"), "Your team loses the round.");
  assert.equal(endLine(PAIRS4, 1, 3, nameOf), "Your team wins the match with Bot 4.");
});

test("a spectator is told which team won, by its members", () => {
  assert.equal(endLine(PAIRS4, null, 3, nameOf), "Team 2 wins the match: Bot 2 & Bot 4.");
  assert.equal(endLine(PAIRS4, -1, 0, nameOf, "round"), "Team 1 wins the round: Ann & Cat.");
  assert.equal(endLine(PAIRS4, 0, -1, nameOf), null, "no winner, no line");
});

test("the room's rules as the server sends them: a preset and what differs from it", () => {
  assert.equal(partnerOf({ preset: "pairs", rounds: 2 }, 1), 3);
  assert.equal(partnerOf({ preset: "online" }, 0), 2, "Play now's preset plays in pairs");
  assert.equal(partnerOf({ preset: "online", players: 6 }, 0), 3);
  assert.equal(partnerOf({ preset: "official" }, 0), -1);
  assert.equal(partnerOf({ preset: "official", teams: "pairs" }, 1), 3);
});

test("a seat's team in words, for a screen reader's label", () => {
  assert.equal(teamLabel(PAIRS4, 2, 0), ", Team 1, partner");
  assert.equal(teamLabel(PAIRS4, 1, 0), ", Team 2");
  assert.equal(teamLabel(PAIRS4, 1, null), ", Team 2");
  assert.equal(teamLabel(SOLO, 1, 0), "");
});
