// What the table shows, kept up to date from the server's events (and, after events
// whose effect on the own hand is not in them, such as a hand swap, from a snapshot).
import { parse } from "./cards.js";

export function newGame() {
  return {
    seq: -1, hand: [], sizes: [], top: null, colour: null, direction: "cw", discard: [],
    lead: null, phase: null, legal: [], must: false, scores: [], round: 0, dealer: null,
    called: {}, catchable: {}, out: {}, gone: {}, giver: null, roundEnd: null, matchEnd: null, silence: false,
    pending: 0, pendingSeat: null, needSnapshot: false, events: [],
    pile: null, reshuffling: false,
    fx: { top: false, drawn: 0, penalty: {} },
  };
}

function grow(g, seat) {
  while (g.sizes.length <= seat) g.sizes.push(0);
}

function take(hand, cards) {
  for (const card of cards) {
    const at = hand.indexOf(card);
    if (at >= 0) hand.splice(at, 1);
  }
}

function colourOf(card) {
  const c = parse(card).colour;
  return c === "W" ? null : c;
}

export function apply(g, e, me) {
  if (e.seq <= g.seq) return;
  g.seq = e.seq;
  g.events.push(e);
  const p = e.player;
  if (p !== undefined) grow(g, p);
  // a press's "target" is how many times the launcher was pressed, not a seat
  if (e.target !== undefined && e.target >= 0 && e.kind !== "pressed") grow(g, e.target);
  pileCount(g, e);
  switch (e.kind) {
    case "round_started":
      g.round = e.amount || g.round + 1;
      g.dealer = p;
      g.hand = [];
      g.sizes = g.sizes.map(() => 0);
      g.discard = [];
      g.top = null;
      g.colour = null;
      g.direction = "cw";
      g.called = {};
      g.catchable = {};
      g.roundEnd = null;
      g.silence = false;
      g.pending = 0;
      g.gone = {};
      g.giver = null;
      break;
    case "dealt":
      g.sizes[p] += e.amount || (e.cards || []).length;
      if (p === me && e.cards) g.hand.push(...e.cards);
      break;
    case "start_card":
      g.top = e.card;
      g.discard.push(e.card);
      g.colour = colourOf(e.card);
      g.fx.top = true;
      break;
    case "put_back":
      g.discard.pop();
      g.top = g.discard.at(-1) || null;
      break;
    case "played": {
      const all = [e.card, ...(e.cards || [])];
      g.sizes[p] = Math.max(0, g.sizes[p] - all.length);
      if (p === me) take(g.hand, all);
      g.discard.push(...all);
      g.top = all.at(-1);
      g.colour = e.color || colourOf(g.top) || g.colour;
      g.catchable = {};
      if (g.sizes[p] !== 1) g.called[p] = false;
      else if (!g.called[p]) g.catchable[p] = true;
      g.fx.top = true;
      break;
    }
    case "drew":
    case "pressed": {
      const n = e.amount || 0;
      g.sizes[p] += n;
      if (p === me && e.cards) {
        g.hand.push(...e.cards);
        g.fx.drawn += e.cards.length;
      }
      g.called[p] = false;
      delete g.catchable[p];
      if (e.reason && e.reason !== "turn") g.fx.penalty[p] = (g.fx.penalty[p] || 0) + n;
      if (p !== me) for (const seat of Object.keys(g.catchable)) if (Number(seat) !== p) delete g.catchable[seat];
      g.pending = 0;
      break;
    }
    case "reversed":
      g.direction = (e.amount || 0) >= 0 ? "cw" : "ccw";
      break;
    case "color_chosen":
      g.colour = e.color;
      break;
    case "uno_called":
      g.called[p] = true;
      delete g.catchable[p];
      break;
    case "caught":
      delete g.catchable[e.target];
      break;
    case "took_back":
      g.discard.pop();
      g.top = g.discard.at(-1) || null;
      g.colour = e.color || colourOf(g.top);
      g.sizes[p] += 1;
      if (p === me) g.hand.push(e.card);
      break;
    case "went_out":
      g.sizes[p] = 0;
      g.gone[p] = true;
      break;
    case "round_ended":
      g.roundEnd = { ...(e.data || {}), winner: p, seq: e.seq };
      if (e.data && e.data.scores) g.scores = e.data.scores;
      g.catchable = {};
      break;
    case "match_ended":
      g.matchEnd = { ...(e.data || {}), winner: p };
      if (e.data && e.data.scores) g.scores = e.data.scores;
      break;
    case "eliminated":
      g.out[p] = true;
      break;
    case "hands_swapped": {
      const a = g.sizes[p];
      g.sizes[p] = g.sizes[e.target];
      g.sizes[e.target] = a;
      if (p === me || e.target === me) g.needSnapshot = true;
      break;
    }
    case "hands_rotated": {
      const n = g.sizes.length;
      const step = (e.amount || 1) >= 0 ? 1 : -1;
      g.sizes = g.sizes.map((_, seat) => g.sizes[(seat - step + n) % n]);
      if (me !== null && me !== undefined) g.needSnapshot = true;
      break;
    }
    case "hands_shuffled":
      g.sizes = g.sizes.map(() => 0);
      g.hand = [];
      break;
    case "gave": {
      const cards = e.cards || [];
      const n = cards.length || e.amount || 1;
      g.giver = p;
      g.sizes[p] -= n;
      g.sizes[e.target] += n;
      if (p === me) take(g.hand, cards);
      if (e.target === me) {
        if (cards.length) g.hand.push(...cards);
        else g.needSnapshot = true;
      }
      break;
    }
    case "discarded": {
      // UNO Attack's Discard All: the cards go under the card that was played
      const cards = e.cards || [];
      g.sizes[p] -= cards.length;
      if (p === me) take(g.hand, cards);
      const top = g.discard.pop();
      g.discard.push(...cards);
      if (top !== undefined) g.discard.push(top);
      break;
    }
    case "silence":
      g.silence = (e.amount || 0) !== 0;
      break;
    case "penalty":
      g.pending = e.amount || 0;
      g.pendingSeat = p;
      break;
    default:
      break;
  }
}

// An "events" message: its new events, then the table's public facts that the events
// alone cannot always tell (the draw pile's size, the pending penalty, the seat that may
// be caught), the lead, the phase and this seat's legal actions. The new events, in order.
export function applyMessage(g, msg, me) {
  const before = g.seq;
  const fresh = (msg.events || []).filter((e) => e.seq > before);
  for (const e of fresh) apply(g, e, me);
  if (typeof msg.pile === "number" && msg.pile >= 0) g.pile = msg.pile;
  if (typeof msg.pending === "number") g.pending = msg.pending;
  if (typeof msg.uno_open === "number") {
    g.catchable = msg.uno_open >= 0 ? { [msg.uno_open]: true } : {};
  }
  g.lead = msg.lead === undefined ? null : msg.lead;
  g.phase = msg.phase || g.phase;
  g.legal = msg.legal || [];
  g.must = !!msg.must;
  return fresh;
}

// The number of cards in the draw pile: a round's first count comes from a snapshot
// (the deck's size depends on the rules), the events move it on from there.
function pileCount(g, e) {
  const less = (n) => { if (g.pile !== null) g.pile = Math.max(0, g.pile - n); };
  switch (e.kind) {
    case "round_started":
      g.pile = null;
      g.reshuffling = false;
      g.needSnapshot = true;
      break;
    case "dealt":
      // the deal after a Wild Shuffle Hands comes from the hands, not the pile
      if (!g.reshuffling) less(e.amount || (e.cards || []).length);
      return;
    case "hands_shuffled":
      g.reshuffling = true;
      return;
    case "start_card":
      less(1);
      break;
    case "put_back":
      if (g.pile !== null) g.pile += 1;
      break;
    case "reshuffled":
      g.pile = e.amount || 0;
      break;
    case "drew":
    case "pressed":
      less(e.amount || 0);
      break;
    default:
      break;
  }
  g.reshuffling = false;
}

// A snapshot's view replaces what the events could not tell.
export function adopt(g, view) {
  if (!view) return;
  g.hand = [...(view.hand || [])];
  g.sizes = [...(view.hand_sizes || g.sizes)];
  g.top = view.top || g.top;
  g.colour = view.color || g.colour;
  g.direction = view.direction || g.direction;
  if (view.scores) g.scores = [...view.scores];
  g.pending = view.pending_draw || 0;
  if (typeof view.draw_pile_size === "number") g.pile = view.draw_pile_size;
  g.catchable = {};
  if (view.uno_open !== null && view.uno_open !== undefined) g.catchable[view.uno_open] = true;
  if (view.active && view.in_match) {
    g.out = {};
    g.gone = {};
    view.in_match.forEach((inMatch, seat) => {
      if (!inMatch) g.out[seat] = true;
      else if (!view.active[seat]) g.gone[seat] = true;
    });
  }
  g.needSnapshot = false;
}

// What the legal action texts allow, for the controls.
const SEP = /^[>!@,/]/;

export function textsFor(legal, card) {
  return legal.filter((t) => t === card || (t.startsWith(card) && SEP.test(t.slice(card.length))));
}

export function choices(legal) {
  const has = (t) => legal.includes(t);
  return {
    draw: has("draw"),
    pass: has("pass"),
    uno: has("uno"),
    unoWithPlay: legal.some((t) => t.endsWith("!")),
    challenge: has("challenge"),
    next: has("next"),
    slap: has("slap"),
    say: has("say"),
    catches: legal.filter((t) => t.startsWith("catch ")).map((t) => Number(t.slice(6))),
    colours: legal.filter((t) => /^colou?r /i.test(t)),
    gives: legal.filter((t) => t.startsWith("give ")).map((t) => t.slice(5)),
    multi: legal.filter((t) => t.includes(",")),
  };
}

// The legal text that plays `cards` together (multi_play: "R5,B5"), or null: the
// cards in the order chosen if that order is legal, else an order ending with the
// card chosen last (the last card sets the colour), else any order of them.
// `uno`: prefer the text that carries the UNO call ("R5,B5!").
export function multiText(legal, cards, uno = false) {
  if (cards.length < 2) return null;
  const key = (list) => [...list].sort().join(",");
  const wanted = key(cards);
  const fits = legal.filter((t) => t.includes(",") && key(t.replace(/!$/, "").split(",")) === wanted);
  if (!fits.length) return null;
  const rank = (t) => {
    const plain = t.replace(/!$/, "");
    const order = plain === cards.join(",") ? 0 : plain.endsWith("," + cards.at(-1)) ? 1 : 2;
    return order * 2 + (t.endsWith("!") === uno ? 0 : 1);
  };
  return fits.sort((a, b) => rank(a) - rank(b))[0];
}

// The cards that take part in some multi-card play (each code once).
export function multiCards(legal) {
  return new Set(legal.filter((t) => t.includes(",")).flatMap((t) => t.replace(/!$/, "").split(",")));
}
