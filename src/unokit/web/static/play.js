// The player's moves at the table: a card pressed, a colour or a seat chosen, a card
// given, UNO, several cards at once (multi_play), and the dialogs they open. Each reads
// the legal action texts (game.js) and sends one with session.act.
import { _ } from "./i18n.js";
import { choices, multiCards, multiText, textsFor } from "./game.js";
import { changed, state } from "./store.js";
import { toast } from "./notify.js";
import { act } from "./session.js";

// The text that plays `base`, with the UNO call when it is armed and allowed.
function withUno(texts, base) {
  if (state.unoArmed && texts.includes(base + "!")) return base + "!";
  if (texts.includes(base)) return base;
  return texts.find((t) => t.startsWith(base)) || null;
}

// ---------------------------------------------------------------- several cards at once
// multi_play: a "play together" mode (the toggle, `m`, or shift+click on a card) in
// which a card press chooses the card; "play N cards" sends the combination when
// `legal` has it.
export function isPicked(card, k) {
  return state.multi.picked.some((p) => p.card === card && p.k === k);
}

export function canPick(card) {
  return multiCards(state.game.legal).has(card);
}

export function toggleMulti() {
  if (!choices(state.game.legal).multi.length && !state.multi.on) return;
  state.multi = { on: !state.multi.on, picked: [] };
  changed();
}

export function pickCard(card, k) {
  const S = state;
  if (isPicked(card, k)) S.multi.picked = S.multi.picked.filter((p) => !(p.card === card && p.k === k));
  else if (canPick(card)) S.multi.picked.push({ card, k });
  else {
    toast("not_playable", _("That card cannot be played together with others now."));
    return;
  }
  S.multi.on = true;
  changed();
}

export function pickedText() {
  return multiText(state.game.legal, state.multi.picked.map((p) => p.card), state.unoArmed);
}

export function playPicked() {
  if (state.multi.picked.length === 1) {
    const card = state.multi.picked[0].card;
    state.multi = { on: false, picked: [] };
    playCard(card);
    return;
  }
  const text = pickedText();
  if (!text) {
    toast("not_playable", _("These cards cannot be played together now."));
    return;
  }
  act(text);
}

// ---------------------------------------------------------------- one card
export function playCard(card, k = 0, ev = null) {
  const S = state;
  const g = S.game;
  if ((ev && ev.shiftKey && choices(g.legal).multi.length) || S.multi.on) {
    pickCard(card, k);
    return;
  }
  const texts = textsFor(g.legal, card);
  if (!texts.length) {
    toast("not_playable", _("You cannot play that card now."));
    return;
  }
  if (texts.some((t) => t.includes(">"))) {
    S.picker = { card, texts };
  } else if (texts.some((t) => t.includes("@"))) {
    S.targetPick = { card, texts };
  } else {
    act(withUno(texts, card) || texts[0]);
    return;
  }
  changed();
}

export function pickColour(letter) {
  const S = state;
  if (S.picker) {
    const base = S.picker.card + ">" + letter;
    const texts = S.picker.texts.filter((t) => t.toUpperCase().startsWith(base.toUpperCase()));
    const text = withUno(texts, texts.find((t) => !t.endsWith("!")) || base);
    if (text) act(text);
    return;
  }
  const text = choices(S.game.legal).colours.find((t) => t.slice(-1).toUpperCase() === letter);
  if (text) act(text);
}

export function pickTarget(seat) {
  const S = state;
  const pick = S.targetPick;
  if (!pick) return;
  const texts = pick.texts.filter((t) => t.startsWith(pick.card + "@" + seat));
  const gives = texts.filter((t) => t.includes("/"));
  if (gives.length) {
    S.exchangePick = { card: pick.card, seat, texts: gives };
    S.targetPick = null;
    changed();
    return;
  }
  const text = withUno(texts, pick.card + "@" + seat);
  if (text) act(text);
}

// Play the chosen card without a target (the seven-target dialog's "Just play it").
export function playWithoutTarget(text) {
  act(state.unoArmed && state.targetPick && state.targetPick.texts.includes(text + "!") ? text + "!" : text);
}

export function giveCard(card) {
  const S = state;
  if (S.exchangePick) {
    const base = S.exchangePick.card + "@" + S.exchangePick.seat + "/" + card;
    const text = withUno(S.exchangePick.texts, base);
    if (text) act(text);
    return;
  }
  act("give " + card);
}

export function pressUno() {
  const c = choices(state.game.legal);
  if (c.uno) act("uno");
  else if (c.unoWithPlay) {
    state.unoArmed = !state.unoArmed;
    changed();
  }
}

export function closeDialogs() {
  state.picker = state.targetPick = state.exchangePick = null;
  state.multi = { on: false, picked: [] };
  state.showKeys = false;
  changed();
}
