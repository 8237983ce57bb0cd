// The table: the hand, the piles, the opponents, the prompts, the chat, log and scores.
import { BASE, h } from "./dom.js";
import { _, ngettext, pgettext } from "./i18n.js";
import { cardBack, cardFace, cardName, colourName, COLOURS, SYMBOLS } from "./cards.js";
import { choices, textsFor } from "./game.js";
import { state as S, update } from "./store.js";
import { seatName } from "./names.js";
import { parts, toast } from "./notify.js";
import { act, send } from "./session.js";
import { canPick, closeDialogs, giveCard, isPicked, pickCard, pickColour, pickedText, pickTarget, playCard, playPicked, playWithoutTarget, pressUno, toggleMulti } from "./play.js";
import { effective } from "./rules.js";
import { hasTeams, teamLabel, teamMark, teamNames, teamTotals } from "./teams.js";
import { nextToPlay, placesFor, seatsAround, unoInvites } from "./seating.js";
import { shortcutKey } from "./keys.js";
import { flowRing } from "./motion.js";

const COLOUR_IDS = { R: "colour-R", Y: "colour-Y", G: "colour-G", B: "colour-B" };

function turnOrder() {
  return seatsAround(S.room ? S.room.seats.length : S.game.sizes.length, S.seat);
}

function unoState(seat) {
  const g = S.game;
  if (g.sizes[seat] === 1 && g.called[seat]) return "called";
  if (g.catchable[seat] || choices(g.legal).catches.includes(seat)) return "open";
  return "none";
}

function opponent(seat) {
  const g = S.game;
  const info = (S.room && S.room.seats[seat]) || {};
  const count = g.sizes[seat] || 0;
  const uno = unoState(seat);
  const current = g.lead === seat && g.phase !== "round_over";
  const backs = Math.min(count, 7);
  return h("li", { class: "opponent" + (current ? " current" : "") + (g.fx.penalty[seat] ? " penalty" : "") + (g.out[seat] ? " out" : ""),
    testid: "opponent", data: { seat, uno, current: current ? "true" : null, away: info.away ? "true" : null, bot: info.kind === "bot" ? "true" : null },
    // TRANSLATORS: said of the seat whose turn it is (for screen readers)
    "aria-label": seatName(seat) + teamLabel(S.room && S.room.rules, seat, S.seat) + ", " + ngettext("{n} card", "{n} cards", count) + (current ? ", " + _("to play") : "") },
  h("span", { class: "avatar", "aria-hidden": "true" }, info.kind === "bot" ? "⚙" : seatName(seat).slice(0, 1).toUpperCase()),
  h("span", { class: "opp-name" }, seatName(seat)),
  teamMark(S.room && S.room.rules, seat, S.seat),
  h("span", { class: "fan", "aria-hidden": "true" }, Array.from({ length: backs }, (_x, i) => h("span", { class: "mini-back", vars: { i } }))),
  h("span", { class: "card-count", testid: "card-count", data: { count } }, String(count)),
  uno === "called" ? h("span", { class: "badge uno" }, "UNO!") : uno === "open" ? h("span", { class: "badge open" }, _("1 card, no UNO!")) : null,
  info.away ? h("span", { class: "badge" }, _("away")) : null,
  info.kind === "human" && !info.connected ? h("span", { class: "badge" }, _("offline")) : null,
  S.timer && S.timer.seat === seat ? h("span", { class: "badge clock", "aria-hidden": "true" }, "⏱ ", h("span", { class: "secs" }, String(Math.max(0, Math.ceil((S.timer.deadline - Date.now()) / 1000))))) : null);
}

// The opponents around the table in play order from the own seat (seating.js: the left
// side, the top, the right side), the direction of play drawn around the centre, and
// the seat that plays next marked.
function around() {
  const g = S.game;
  const seats = turnOrder();
  const places = placesFor(seats.length);
  const count = S.room ? S.room.seats.length : g.sizes.length;
  const next = nextToPlay(g, count);
  const tile = (seat, i) => {
    const li = opponent(seat);
    li.dataset.place = places[i];
    if (seat !== next) return li;
    li.dataset.next = "true";
    li.classList.add("next");
    // TRANSLATORS: said of the seat that plays after the current one
    li.setAttribute("aria-label", li.getAttribute("aria-label") + ", " + _("plays next"));
    li.appendChild(h("span", { class: "badge next-mark", testid: "next-mark", "aria-hidden": "true" }, pgettext("the badge on the seat that plays after the current one", "next")));
    return li;
  };
  const side = (place) => (places.includes(place) ? h("ul", { class: "opponents " + place, data: { place } },
    seats.map((seat, i) => (places[i] === place ? tile(seat, i) : null))) : null);
  return h("div", { class: "around", testid: "around", data: { seats: count, lead: g.lead, next, direction: g.direction } },
    side("left"), side("top"), side("right"),
    h("div", { class: "middle" }, flowRing(g.direction), centre()));
}

function centre() {
  const g = S.game;
  const c = choices(g.legal);
  const colour = g.colour || "";
  return h("div", { class: "centre" },
    h("button", { type: "button", class: "pile", testid: "draw-pile", disabled: c.draw ? null : true, onclick: () => act("draw"),
      data: { count: g.pile === null ? null : g.pile } },
      h("span", { class: "visually-hidden" }, g.pending && g.pendingSeat === S.seat ? ngettext("Take {n} card", "Take {n} cards", g.pending) : _("Draw a card"),
        g.pile === null ? "" : " · " + ngettext("{n} card in the pile", "{n} cards in the pile", g.pile)),
      cardBack(), g.pending ? h("span", { class: "pending", "aria-hidden": "true" }, "+" + g.pending) : null,
      g.pile === null ? null : h("span", { class: "pile-count", testid: "pile-count", data: { count: g.pile }, "aria-hidden": "true" }, String(g.pile))),
    h("div", { class: "discard" },
      g.top ? cardFace(g.top, "div", { testid: "top-card", data: { card: g.top }, class: g.fx.top ? "played" : "", role: "img", "aria-label": _("Top card: {card}", { card: cardName(g.top) }) })
        : h("div", { class: "card empty", testid: "top-card", "aria-label": _("No card yet"), role: "img" })),
    h("div", { class: "state" },
      h("div", { class: "current-colour c-" + (colour || "W"), testid: "current-colour", data: { colour: colour || null } },
        h("span", { class: "swatch", "aria-hidden": "true" }, SYMBOLS[colour] || SYMBOLS.W),
        h("span", {}, _("Colour: {colour}", { colour: colourName(colour) }))),
      h("div", { class: "direction", testid: "direction", data: { direction: g.direction } },
        h("span", { class: "arrow", "aria-hidden": "true" }, g.direction === "cw" ? "↻" : "↺"),
        h("span", {}, g.direction === "cw" ? _("Clockwise") : _("Counter-clockwise")))));
}

function statusLine() {
  const g = S.game;
  const me = S.seat;
  const mine = me !== null && S.room ? S.room.seats[me] : null;
  const rules = effective(S.room ? S.room.rules : {});
  const playable = g.legal.length && S.game.hand.some((card) => textsFor(g.legal, card).length);
  let text;
  if (g.must) text = g.phase === "choose_color" ? _("Your turn: name a colour") : _("Your turn");
  else if (g.lead !== null && g.lead !== undefined) text = _("Waiting for {name}", { name: seatName(g.lead) });
  else text = _("Dealing…");
  const timer = S.timer;
  const left = timer ? Math.max(0, Math.ceil((timer.deadline - Date.now()) / 1000)) : 0;
  return h("div", { class: "status" },
    g.must ? h("span", { class: "your-turn", testid: "your-turn", data: { active: "true" } }, text)
      : h("span", { class: "waiting" }, text),
    !g.must && playable ? h("span", { class: "badge jump" }, rules.jump_in ? _("Jump in!") : _("You may act now")) : null,
    g.pending && g.pendingSeat === me ? h("span", { class: "badge warn faced" }, ngettext("You face {n} card: draw or answer it.", "You face {n} cards: draw or answer them.", g.pending)) : null,
    g.silence ? h("span", { class: "badge warn" }, _("Silence!")) : null,
    me !== null && g.fx.penalty[me] ? h("span", { class: "penalty-flash", "aria-hidden": "true" }, "+" + g.fx.penalty[me]) : null,
    h("span", { class: "turn-timer", testid: "turn-timer", hidden: timer ? null : true, role: "timer",
      data: { seat: timer ? timer.seat : null, deadline: timer ? Math.round(timer.deadline) : null },
      "aria-label": timer ? _("Time left for {name}", { name: seatName(timer.seat) }) : null },
    h("span", { class: "ring", "aria-hidden": "true" }), h("span", { class: "secs" }, String(left))),
    h("span", { class: "autopilot", testid: "autopilot", hidden: (mine && mine.away) || S.autoplayed ? null : true },
      "⚙ " + (mine && mine.away ? _("Autopilot: a bot plays for you until you act") : _("The time ran out: a bot played for you"))),
    logJump());
}

// Where the log sits below the table (a phone, a narrow window), one tap brings it into
// view and gives it the focus (a screen reader then reads it); wider, the log is in the
// column beside the table, and the button is not shown (app.css).
function logJump() {
  const label = _("What happened");
  return h("button", { type: "button", class: "ghost tool-button log-jump", testid: "log-jump", "aria-label": label, title: label,
    onclick: () => {
      parts.log.closest(".log-box").scrollIntoView({ block: "start" });
      parts.log.focus({ preventScroll: true });
    } }, h("span", { "aria-hidden": "true" }, "☰"));
}

function actions() {
  const g = S.game;
  const c = choices(g.legal);
  const unoOn = c.uno || c.unoWithPlay;
  const invites = S.seat !== null && unoInvites({ hand: g.hand.length, must: g.must, unoWithPlay: c.unoWithPlay, uno: c.uno, armed: S.unoArmed });
  return h("div", { class: "actions", role: "group", "aria-label": pgettext("the group of buttons for your moves", "Actions") },
    h("button", { type: "button", class: "uno-button" + (S.unoArmed ? " armed" : "") + (invites ? " invite" : ""), testid: "uno-button", disabled: unoOn ? null : true,
      data: { invite: invites ? "true" : null },
      "aria-pressed": c.uno ? null : String(!!S.unoArmed), onclick: pressUno }, "UNO!"),
    // TRANSLATORS: a button: keep the card you drew and end your turn
    c.pass ? h("button", { type: "button", class: "secondary", testid: "pass", onclick: () => act("pass") }, _("Keep it (pass)")) : null,
    c.catches.map((seat) => h("button", { type: "button", class: "danger", testid: "catch-button", data: { target: seat }, "aria-disabled": [...S.inflight.values()].includes("catch " + seat) ? "true" : null, onclick: () => act("catch " + seat) },
      _("Catch {name}!", { name: seatName(seat) }))),
    c.slap ? h("button", { type: "button", class: "danger big", testid: "slap-button", onclick: () => act("slap") }, _("Slap!")) : null,
    c.next ? h("button", { type: "button", class: "primary", testid: "next-round", onclick: () => act("next") }, _("Next round")) : null);
}

function challengePrompt() {
  const c = choices(S.game.legal);
  if (!c.challenge) return null;
  return h("div", { class: "prompt", role: "group", "aria-label": _("Wild Draw Four") },
    h("p", {}, _("A Wild Draw Four! Challenge it if you think they had the colour.")),
    h("button", { type: "button", class: "danger", testid: "challenge-button", onclick: () => act("challenge") }, _("Challenge")),
    h("button", { type: "button", class: "secondary", testid: "accept-button", onclick: () => act("draw") }, _("Accept and draw")));
}

const ORDER = "RYGBW";
const VALUES = "0123456789SR+2+4WCD1D2SWSH";

function sortKey(card) {
  const colour = card.startsWith("W") ? "W" : card[0];
  const value = card.startsWith("W") ? card : card.slice(1);
  return ORDER.indexOf(colour) * 100 + Math.max(0, VALUES.indexOf(value));
}

function me() {
  const g = S.game;
  if (S.seat === null) return null;
  const count = g.hand.length;
  const called = count === 1 && g.called[S.seat];
  return h("div", { class: "me" },
    h("b", {}, seatName(S.seat)), h("span", { class: "tag" }, pgettext("the tag beside your own seat's name", "you")),
    teamMark(S.room && S.room.rules, S.seat, S.seat),
    h("span", { class: "muted" }, ngettext("{n} card", "{n} cards", count)),
    called ? h("span", { class: "badge uno" }, "UNO!") : null);
}

// A card's place in the fanned hand: a gentle arc, flatter as the hand grows.
function fan(i, n) {
  const d = i - (n - 1) / 2;
  const step = Math.min(2.2, 20 / Math.max(n, 1));
  const dip = Math.min(0.7, 30 / Math.max(n * n, 1));
  return { i, rot: (d * step).toFixed(2) + "deg", dip: (d * d * dip).toFixed(1) + "px" };
}

// multi_play on a touch screen: a long press on a card starts the "play together" mode
// with that card chosen (the click that follows the press is dropped).
let press = null;
const LONG_PRESS_MS = 500;

function longPress(card, k) {
  const stop = () => { if (press) clearTimeout(press.timer); };
  return {
    onpointerdown: () => {
      stop();
      press = null;
      if (S.multi.on || !canPick(card)) return;
      const held = { fired: 0, timer: null };
      held.timer = setTimeout(() => { held.fired = Date.now(); pickCard(card, k); }, LONG_PRESS_MS);
      press = held;
    },
    onpointerup: stop,
    onpointerleave: stop,
    onpointercancel: stop,
    oncontextmenu: (ev) => { if (canPick(card)) ev.preventDefault(); },
  };
}

// multi_play: the "play together" toggle and, while it is on, the button that plays the
// chosen cards (enabled when `legal` has that combination).
function multiBar() {
  const g = S.game;
  if (!choices(g.legal).multi.length) return null;
  const count = S.multi.picked.length;
  const ready = S.multi.on && (count === 1 ? textsFor(g.legal, S.multi.picked[0].card).length > 0 : !!pickedText());
  return h("div", { class: "multi-bar", role: "group", "aria-label": _("Several cards at once") },
    h("button", { type: "button", class: "secondary" + (S.multi.on ? " armed" : ""), testid: "multi-toggle",
      "aria-pressed": String(S.multi.on), "aria-keyshortcuts": "m", onclick: toggleMulti }, _("Play together")),
    S.multi.on ? h("button", { type: "button", class: "primary", testid: "multi-play", disabled: ready ? null : true,
      data: { count }, onclick: playPicked },
    count ? ngettext("Play {n} card", "Play {n} cards", count) : _("Choose the cards")) : null,
    S.multi.on ? h("span", { class: "muted hint" }, _("The last card chosen sets the colour.")) : null);
}

function hand() {
  const g = S.game;
  const n = g.hand.length;
  const fresh = g.fx.drawn;
  const newest = new Set(g.hand.slice(n - fresh));
  const cards = [...g.hand].sort((a, b) => sortKey(a) - sortKey(b));
  const seen = {};
  return h("div", { class: "hand-wrap" },
    h("h2", { class: "visually-hidden", id: "hand-title" }, _("Your hand")),
    me(),
    h("div", { class: "hand", testid: "hand", role: "group", "aria-labelledby": "hand-title", vars: { n } },
      cards.map((card, i) => {
        const playable = textsFor(g.legal, card).length > 0;
        const enter = newest.has(card);
        if (enter) newest.delete(card);
        const k = seen[card] = (seen[card] === undefined ? 0 : seen[card] + 1);
        const picked = S.multi.on && isPicked(card, k);
        const pickable = S.multi.on && canPick(card);
        return cardFace(card, "button", {
          type: "button", testid: "card",
          class: (playable ? "playable" : "") + (enter ? " enter" : "") + (picked ? " picked" : "") + (pickable ? " pickable" : ""),
          data: { card, playable: String(playable), picked: S.multi.on ? String(picked) : null }, vars: fan(i, n),
          "aria-pressed": S.multi.on ? String(picked) : null,
          // TRANSLATORS: said of a card in your hand (for screen readers): chosen for a multi-play, or playable now
          "aria-label": cardName(card) + (picked ? ", " + _("chosen") : playable ? ", " + _("playable") : ""),
          ...longPress(card, k),
          onclick: (ev) => {
            // the click that ends a long press: the press chose the card already
            const late = press && press.fired && Date.now() - press.fired < 1500;
            press = null;
            if (late) return;
            playCard(card, k, ev);
          },
        });
      })),
    multiBar(),
    S.spectator ? h("p", { class: "muted" }, _("You are watching.")) : null);
}

function scores() {
  const g = S.game;
  const count = S.room ? S.room.seats.length : 0;
  return h("section", { class: "panel scores", "aria-labelledby": "scores-title" },
    h("h2", { id: "scores-title" }, _("Scores"), " · ", _("Round {n}", { n: g.round || 1 })),
    teamScores(g.scores),
    h("ol", { testid: "scores", class: "score-list" }, Array.from({ length: count }, (_x, seat) =>
      h("li", { testid: "score", data: { seat, points: g.scores[seat] || 0 } }, h("span", {}, seatName(seat)), h("b", {}, String(g.scores[seat] || 0))))));
}

// Under teams: each team's total (its partners' names and points), above the seats'.
export function teamScores(scores, big = false) {
  const rules = S.room && S.room.rules;
  if (!hasTeams(rules)) return null;
  return h("ol", { testid: "team-scores", class: "score-list team-scores" + (big ? " big" : ""), "aria-label": _("Team scores") },
    teamTotals(rules, scores).map(({ team, seats, points }) =>
      h("li", { testid: "team-score", data: { team, points, mine: seats.includes(S.seat) ? "true" : null } },
        h("span", {}, teamMark(rules, seats[0], null), " ", teamNames(seats, seatName)), h("b", {}, String(points)))));
}

function sendChat() {
  const text = S.chatDraft.trim();
  if (!text) return;
  if (text.length > 200) { toast("too_long", _("A chat line is at most 200 characters.")); return; }
  send({ type: "chat", text });
  update((s) => { s.chatDraft = ""; });
}

export function chatBox() {
  const rules = effective(S.room ? S.room.rules : {});
  let warning = null;
  if (rules.silence !== "off") {
    warning = S.game.silence
      ? h("p", { class: "silence active", role: "alert" }, ngettext("Silence! Speaking now costs {n} card.", "Silence! Speaking now costs {n} cards.", rules.silence_penalty))
      : h("p", { class: "silence muted" }, ngettext("Silence rule: during a silence, speaking costs {n} card.", "Silence rule: during a silence, speaking costs {n} cards.", rules.silence_penalty));
  }
  return h("section", { class: "panel chat", "aria-labelledby": "chat-title" },
    h("h2", { id: "chat-title" }, _("Chat")),
    parts.chatLog,
    warning,
    S.spectator ? h("p", { class: "muted" }, _("Spectators read the chat; only players write.")) : null,
    h("form", { class: "row", onsubmit: (ev) => { ev.preventDefault(); sendChat(); } },
      h("label", { for: "chat-input", class: "visually-hidden" }, _("Message")),
      h("input", { id: "chat-input", testid: "chat-input", type: "text", maxlength: "200", autocomplete: "off", value: S.chatDraft,
        placeholder: _("Say something…"), oninput: (ev) => update((s) => { s.chatDraft = ev.target.value; }, { quiet: true }) }),
      h("button", { type: "submit", class: "secondary", testid: "chat-send" }, _("Send"))));
}

export function logBox() {
  return h("section", { class: "panel log-box", "aria-labelledby": "log-title" },
    h("h2", { id: "log-title" }, _("What happened")), parts.log);
}

function dialog(testid, title, body, cancellable = true) {
  return h("div", { class: "overlay" }, h("div", { class: "dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": testid + "-title", testid },
    h("h2", { id: testid + "-title" }, title), body,
    cancellable ? h("button", { type: "button", class: "ghost", onclick: closeDialogs }, _("Cancel")) : null));
}

function dialogs() {
  const g = S.game;
  const c = choices(g.legal);
  if (S.picker || (g.must && c.colours.length)) {
    return dialog("colour-picker", _("Name a colour"), h("div", { class: "colours" },
      COLOURS.map((letter, i) => h("button", { type: "button", class: "colour c-" + letter, testid: COLOUR_IDS[letter],
        onclick: () => pickColour(letter), "aria-keyshortcuts": String(i + 1) + " " + letter.toLowerCase() },
      h("span", { class: "sym", "aria-hidden": "true" }, SYMBOLS[letter]), h("span", {}, colourName(letter)), h("kbd", { "aria-hidden": "true" }, String(i + 1))))), !!S.picker);
  }
  if (S.targetPick) {
    const pick = S.targetPick;
    const seats = [...new Set(pick.texts.filter((t) => t.includes("@")).map((t) => Number(t.split("@")[1].split(/[/!,]/)[0])))];
    const plain = pick.texts.find((t) => !t.includes("@") && !t.endsWith("!")) || pick.texts.find((t) => !t.includes("@"));
    return h("div", { class: "overlay" }, h("div", { class: "dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "seven-title", testid: "seven-target" },
      h("h2", { id: "seven-title" }, S.targetPick.card.slice(1) === "7" ? _("Swap hands with…") : _("Choose a player")),
      h("div", { class: "targets" }, seats.map((seat) => h("button", { type: "button", class: "secondary", testid: "target-seat", data: { seat }, onclick: () => pickTarget(seat) },
        seatName(seat) + " · " + ngettext("{n} card", "{n} cards", g.sizes[seat] || 0)))),
      plain ? h("button", { type: "button", class: "secondary", onclick: () => playWithoutTarget(plain) }, _("Just play it")) : null,
      h("button", { type: "button", class: "ghost", onclick: closeDialogs }, _("Cancel"))));
  }
  const gives = S.exchangePick ? [...new Set(S.exchangePick.texts.filter((t) => t.includes("/")).map((t) => t.split("/")[1].replace(/!$/, "")))] : c.gives;
  if (gives.length) {
    return dialog("exchange", _("Give a card away"), h("div", { class: "hand small" },
      gives.map((card) => cardFace(card, "button", { type: "button", testid: "card", data: { card, playable: "true" }, onclick: () => giveCard(card) }))), !!S.exchangePick);
  }
  return null;
}

// The match's page (match.js): the fair-deal check in words, the record to download.
export function verifyLink(hidden) {
  const code = S.room ? S.room.code : S.code;
  return h("a", { class: "verify", testid: "verify-link", href: BASE + "/matches/" + encodeURIComponent(code), target: "_blank", rel: "noopener", hidden: hidden ? true : null }, _("Verify this deal"));
}

export function tableView() {
  return h("div", { class: "table-layout" },
    // TRANSLATORS: the card table (its felt), not a table of data
    h("section", { class: "felt", "aria-label": _("Table") },
      around(),
      statusLine(),
      challengePrompt(),
      actions(),
      hand()),
    h("aside", { class: "side" }, scores(), logBox(), chatBox(), verifyLink(true)),
    dialogs());
}

// Shortcuts on the table; true when the key was used.
export function tableKeys(ev) {
  if (S.screen !== "table" && S.screen !== "round-end" && S.screen !== "match-end") return false;
  const g = S.game;
  const c = choices(g.legal);
  const key = ev.key;
  const cards = Array.from(document.querySelectorAll('[data-testid="hand"] [data-testid="card"]'));
  const picking = S.picker || (g.must && c.colours.length);
  if (picking) {
    const letter = { 1: "R", 2: "Y", 3: "G", 4: "B", r: "R", y: "Y", g: "G", b: "B" }[shortcutKey(ev)];
    if (letter) { pickColour(letter); return true; }
  }
  if (key === "ArrowLeft" || key === "ArrowRight") {
    if (!cards.length) return false;
    let at = cards.indexOf(document.activeElement);
    if (at < 0) at = Math.max(0, cards.findIndex((el) => el.dataset.playable === "true"));
    else at = (at + (key === "ArrowRight" ? 1 : -1) + cards.length) % cards.length;
    cards[at].focus();
    return true;
  }
  const run = (ok, fn) => { if (ok) fn(); return true; };
  if (key === "Enter" && ev.shiftKey && S.multi.on && S.multi.picked.length) return run(true, playPicked);
  switch (shortcutKey(ev)) {
    case "d": return run(c.draw, () => act("draw"));
    case "p": return run(c.pass, () => act("pass"));
    case "u": return run(c.uno || c.unoWithPlay, pressUno);
    case "c": return run(c.catches.length, () => act("catch " + c.catches[0]));
    case "n": return run(c.next && !(S.room && S.room.seats.some((s) => s.kind === "empty")), () => act("next"));
    case "s": return run(c.slap, () => act("slap"));
    case "m": return run(c.multi.length || S.multi.on, toggleMulti);
    default: return false;
  }
}
