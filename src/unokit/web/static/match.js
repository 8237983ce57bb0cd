// A finished match's page, /matches/CODE: its record to download, the fair-deal check
// in words (GET /api/rooms/CODE/verify, docs/fairness.md) and the replay viewer.
import { BASE, h } from "./dom.js";
import { _, ngettext, pgettext } from "./i18n.js";
import { api } from "./net.js";
import { checkName } from "./describe.js";
import { loadReplay, relocalizeReplay, replayKeys, replayView, seatLabel, setBots } from "./replay.js";
import { localPath, notice, redraw, startPage } from "./page.js";

const M = { code: null, verify: null, verifyError: null, record: null };

// Whether this browser gave `value` to a deal (session.js keeps its last ones).
function isMine(value) {
  try { return (JSON.parse(localStorage.getItem("unokit.contributions")) || []).includes(value); } catch { return false; }
}

// What a passing check shows, in words.
function checkMeaning(name) {
  switch (name) {
    case "scheme": return _("The record says how its deal was made (unokit-deal-v1).");
    case "contributions": return _("Every contribution to the seed came from a seat of the match.");
    case "commitment": return _("The server's secret seed, revealed now, is the one it committed to before the match.");
    case "seed": return _("The shuffles' seed follows from the server's seed and the players' contributions.");
    case "replay": return _("Every action replays legally and gives the very events that were recorded.");
    case "published commitment": return _("The record's commitment is the one the room showed before the match.");
    default: return "";
  }
}

function fairBlock() {
  if (M.verifyError) return notice(M.verifyError.code === "not_started" ? _("The check opens when the match is over.") : M.verifyError.message, "verify-error", M.verifyError.code || "");
  if (!M.verify) return h("p", { class: "muted", role: "status" }, _("Checking…"));
  const fairness = (M.record && M.record.fairness) || {};
  const contributions = Object.entries(fairness.contributions || {});
  return h("div", { testid: "fair-check", data: { passed: M.verify.passed ? "true" : "false" } },
    h("p", { class: "verify-result lead " + (M.verify.passed ? "ok" : "bad"), testid: "fair-verdict" },
      M.verify.passed ? "✓ " + _("The deal was fair: nobody could choose the cards, the server included.")
        : "✗ " + _("This deal cannot be shown to be fair: a check failed.")),
    h("ul", { class: "checks" }, M.verify.checks.map((c) =>
      h("li", { testid: "fair-check-item", data: { name: c.name, passed: c.passed ? "true" : "false" }, class: c.passed ? "ok" : "bad" },
        h("b", {}, (c.passed ? "✓ " : "✗ ") + checkName(c.name)), " ",
        h("span", { class: c.passed ? "" : "muted" }, c.passed ? checkMeaning(c.name) : c.reason)))),
    fairness.commitment ? h("dl", { class: "facts" },
      h("dt", {}, _("Commitment, published before the match")), h("dd", {}, h("code", { class: "hex" }, fairness.commitment)),
      h("dt", {}, _("Server seed, revealed at the end")), h("dd", {}, h("code", { class: "hex" }, fairness.server_seed || "—")),
      h("dt", {}, _("Contributions")), h("dd", {}, contributions.length
        ? h("ul", {}, contributions.map(([seat, value]) => h("li", { testid: "contribution", data: { seat, mine: isMine(value) ? "true" : null } },
          _("Seat {n}", { n: Number(seat) + 1 }) + ": ", h("code", {}, value),
          isMine(value) ? h("span", { class: "tag" }, pgettext("the tag beside your own seat's name", "you")) : null)))
        : _("none"))) : null,
    h("p", { class: "muted small-text" }, _("Anyone can check it again: unokit verify with the downloaded record.")));
}

function view() {
  const code = M.code;
  const record = BASE + "/api/rooms/" + encodeURIComponent(code) + "/record";
  const players = M.record ? M.record.players : [];
  return h("div", { class: "match-page" },
    h("section", { class: "panel", testid: "match-summary", "aria-labelledby": "match-title" },
      h("h1", { id: "match-title" }, _("Match {code}", { code })),
      players.length ? h("p", {}, ngettext("{n} player:", "{n} players:", players.length) + " "
        + players.map((_name, seat) => seatLabel(seat, players)).join(", ")) : null,
      M.record ? h("p", {}, ngettext("{n} action recorded.", "{n} actions recorded.", M.record.actions.length)) : null,
      h("p", {}, h("a", { href: record, download: "unokit-" + code + ".json", testid: "record-download" }, _("Download the match record (JSON)")))),
    h("section", { class: "panel", "aria-labelledby": "fair-title" },
      h("h2", { id: "fair-title" }, _("Was the deal fair?")), fairBlock()),
    h("section", { class: "panel", "aria-labelledby": "replay-title" },
      h("h2", { id: "replay-title" }, _("Replay")), replayView()));
}

async function load() {
  const path = localPath().match(/^\/matches\/([A-Za-z0-9]+(?:-[0-9]+)?)\/?$/); // CODE-N: a match kept by a rematch
  M.code = path ? path[1].toUpperCase() : "";
  redraw();
  const ofRoom = (tail) => api("/api/rooms/" + encodeURIComponent(M.code) + tail);
  const [record, verify, room] = await Promise.allSettled([ofRoom("/record"), ofRoom("/verify"), ofRoom("")]);
  if (room.status === "fulfilled") {
    setBots((room.value.seats || []).flatMap((seat, i) => (seat.kind === "bot" ? [i] : [])));
  }
  M.record = record.status === "fulfilled" ? record.value : null;
  M.verify = verify.status === "fulfilled" ? verify.value : null;
  M.verifyError = verify.status === "rejected" ? verify.reason : null;
  redraw();
  await loadReplay(M.code, "all", redraw);
}

// After a language switch: the server's words again (an error, a failed check's reason).
async function relocalize() {
  if (M.code && (M.verifyError || (M.verify && !M.verify.passed))) {
    try {
      M.verify = await api("/api/rooms/" + encodeURIComponent(M.code) + "/verify");
      M.verifyError = null;
    } catch (err) {
      M.verify = null;
      M.verifyError = err;
    }
  }
  await relocalizeReplay();
}

document.addEventListener("keydown", (ev) => { if (replayKeys(ev)) ev.preventDefault(); });
startPage("match", view, relocalize).then(load);
