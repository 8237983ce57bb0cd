// Cards in flight: a card played flies from its player's seat tile (or, for the own seat,
// from the card pressed in the hand) to the discard pile; cards drawn or dealt fly from
// the draw pile to the hand or to the seat's tile. FLIP with the Web Animations API: a
// copy of the card is placed where it lands (Last, a rect measured after render) and
// animated from where it starts (First), in the effects layer (stage.js), which is out
// of hit testing, so it never covers a control. Nothing moves under
// prefers-reduced-motion. Also: the direction of play drawn around the centre.
import { h, s } from "./dom.js";
import { cardBack, cardFace } from "./cards.js";
import { bump, mark, stage } from "./stage.js";
import { middleOf } from "./rects.js";

const FLIGHT_MS = 420;
const STAGGER_MS = 70;
const MAX_BATCH = 16; // more new events at once (a resume): the table just shows them

export function reducedMotion() {
  try {
    return matchMedia("(prefers-reduced-motion: reduce)").matches;
  } catch {
    return false;
  }
}

// The card last pressed in the hand (its code and where it was), so that the own play
// starts from there; the click comes before the answer that moves the card.
let pressed = null;
if (globalThis.document) {
  document.addEventListener("click", (ev) => {
    const card = ev.target && ev.target.closest && ev.target.closest('[data-testid="hand"] [data-testid="card"]');
    if (card) pressed = { card: card.dataset.card, rect: card.getBoundingClientRect(), at: Date.now() };
  }, true);
}

const query = (selector) => document.querySelector(selector);

function box(el) {
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.width && r.height ? { left: r.left, top: r.top, width: r.width, height: r.height } : null;
}

function seatBox(seat) {
  return middleOf(box(query('[data-testid="opponent"][data-seat="' + seat + '"]')));
}

// Fly `node` from `from` to `to` (viewport rects) after `delay` ms; `what` names the
// flight in the layer's data-last-flight.
function fly(node, from, to, delay, what) {
  const layer = stage();
  node.classList.add("flight");
  // a copy for the eye only, in a layer hidden from screen readers: no name of its own
  // (a name would stay in the language of its moment across a switch)
  node.removeAttribute("aria-label");
  node.style.left = to.left + "px";
  node.style.top = to.top + "px";
  node.style.setProperty("--card-w", to.width + "px");
  node.style.setProperty("--card-h", to.height + "px");
  node.dataset.flight = what;
  layer.appendChild(node);
  const dx = from.left - to.left;
  const dy = from.top - to.top;
  const first = "translate(" + dx.toFixed(1) + "px, " + dy.toFixed(1) + "px) scale(" + (from.width / to.width).toFixed(3) + ", " + (from.height / to.height).toFixed(3) + ")";
  const animation = node.animate([{ transform: first, opacity: 0.85 }, { transform: "none", opacity: 1 }],
    { duration: FLIGHT_MS, delay, easing: "cubic-bezier(.2, .7, .3, 1)", fill: "backwards" });
  const done = () => node.remove();
  animation.onfinish = done;
  animation.oncancel = done;
  bump("flights");
  mark("lastFlight", what);
}

// The real card under a flight waits unseen until the copy lands on it (it stays where
// it is, and a pointer still finds it).
function hideUntilLanded(el, delay) {
  if (el) el.animate([{ opacity: 0 }, { opacity: 0 }], { duration: FLIGHT_MS + delay });
}

function played(e, me, delay) {
  const top = query('[data-testid="top-card"]');
  const to = box(top);
  if (!to) return delay;
  const cards = [e.card, ...(e.cards || [])].slice(-3);
  for (const card of cards) {
    let from = null;
    if (e.player === me) {
      const recent = pressed && pressed.card === card && Date.now() - pressed.at < 10000;
      from = recent ? pressed.rect : middleOf(box(query('[data-testid="hand"]')), to);
    } else {
      from = seatBox(e.player);
    }
    if (!from) continue;
    fly(cardFace(card, "div", {}), from, to, delay, "play " + e.player + " " + card);
    hideUntilLanded(top, delay);
    delay += STAGGER_MS;
  }
  return delay;
}

function drawn(e, me, delay, newcomers) {
  const from = box(query('[data-testid="draw-pile"] .card'));
  if (!from) return delay;
  const n = Math.max(1, Math.min(e.amount || (e.cards || []).length || 1, 7));
  const what = (e.kind === "dealt" ? "deal " : "draw ") + e.player;
  for (let i = 0; i < n; i++) {
    let to = null;
    let target = null;
    if (e.player === me) {
      target = newcomers.shift() || null;
      to = box(target) || middleOf(box(query('[data-testid="hand"]')), from);
    } else {
      to = seatBox(e.player);
    }
    if (!to) break;
    fly(cardBack(), from, to, delay, what);
    hideUntilLanded(target, delay);
    delay += STAGGER_MS / 2;
  }
  return delay;
}

// The flights for `events` (the ones new since the table was last drawn), played on the
// table now shown. `me`: the page's seat (null for a spectator).
export function flights(events, me) {
  if (!events.length || events.length > MAX_BATCH || reducedMotion()) return;
  if (document.hidden || !query('[data-testid="top-card"]')) return;
  // the cards that came into the hand with these events, in the order they came: the
  // newly drawn ones are marked "enter"; after a deal, the whole hand is new
  const dealt = events.some((e) => e.kind === "dealt" && e.player === me);
  const newcomers = [...document.querySelectorAll('[data-testid="hand"] [data-testid="card"]' + (dealt ? "" : ".enter"))];
  let delay = 0;
  for (const e of events) {
    if (e.kind === "played" && e.card) delay = played(e, me, delay);
    else if (e.kind === "drew" || e.kind === "pressed" || e.kind === "dealt") delay = drawn(e, me, delay, newcomers);
  }
}

// The direction of play, drawn around the centre: an oval with arrowheads that point the
// way the turn goes (clockwise: along the top to the right), its dashes crawling along
// unless motion is reduced.
export function flowRing(direction) {
  const ccw = direction === "ccw";
  return h("div", { class: "flow" + (ccw ? " ccw" : ""), testid: "direction-ring", "aria-hidden": "true", data: { direction } },
    s("svg", { viewBox: "0 0 100 100", preserveAspectRatio: "none", focusable: "false" },
      s("ellipse", { class: "flow-path", cx: "50", cy: "50", rx: "47", ry: "45", "vector-effect": "non-scaling-stroke" }),
      s("path", { class: "flow-head", d: "M47 1.5 L54 5 L47 8.5 Z" }),
      s("path", { class: "flow-head", d: "M53 91.5 L46 95 L53 98.5 Z" })));
}
