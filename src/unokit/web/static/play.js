// The player's moves at the table: a card pressed, a colour or a seat chosen, a card
// given, UNO, several cards at once (multi_play), and the dialogs they open. Each reads
// the legal action texts (game.js) and sends one with session.act.
import { _ } from "./i18n.js";
import { choices, multiCards, multiText, textsFor } from "./game.js";
import { state, update } from "./store.js";
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
  update((s) => { s.multi = { on: !s.multi.on, picked: [] }; });
}

export function pickCard(card, k) {
  const picked = isPicked(card, k);
  if (!picked && !canPick(card)) {
    toast("not_playable", _("That card cannot be played together with others now."));
    return;
  }
  update((s) => {
    if (picked) s.multi.picked = s.multi.picked.filter((p) => !(p.card === card && p.k === k));
    else s.multi.picked = [...s.multi.picked, { card, k }];
    s.multi.on = true;
  });
}

export function pickedText() {
  return multiText(state.game.legal, state.multi.picked.map((p) => p.card), state.unoArmed);
}

export function playPicked() {
  if (state.multi.picked.length === 1) {
    const card = state.multi.picked[0].card;
    update((s) => { s.multi = { on: false, picked: [] }; }, { quiet: true });
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
  const g = state.game;
  if ((ev && ev.shiftKey && choices(g.legal).multi.length) || state.multi.on) {
    pickCard(card, k);
    return;
  }
  const texts = textsFor(g.legal, card);
  if (!texts.length) {
    toast("not_playable", _("You cannot play that card now."));
    return;
  }
  if (texts.some((t) => t.includes(">"))) {
    update((s) => { s.picker = { card, texts }; });
  } else if (texts.some((t) => t.includes("@"))) {
    update((s) => { s.targetPick = { card, texts }; });
  } else {
    act(withUno(texts, card) || texts[0]);
  }
}

export function pickColour(letter) {
  const picker = state.picker;
  if (picker) {
    const base = picker.card + ">" + letter;
    const texts = picker.texts.filter((t) => t.toUpperCase().startsWith(base.toUpperCase()));
    const text = withUno(texts, texts.find((t) => !t.endsWith("!")) || base);
    if (text) act(text);
    return;
  }
  const text = choices(state.game.legal).colours.find((t) => t.slice(-1).toUpperCase() === letter);
  if (text) act(text);
}

export function pickTarget(seat) {
  const pick = state.targetPick;
  if (!pick) return;
  const texts = pick.texts.filter((t) => t.startsWith(pick.card + "@" + seat));
  const gives = texts.filter((t) => t.includes("/"));
  if (gives.length) {
    update((s) => {
      s.exchangePick = { card: pick.card, seat, texts: gives };
      s.targetPick = null;
    });
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
  const pick = state.exchangePick;
  if (pick) {
    const base = pick.card + "@" + pick.seat + "/" + card;
    const text = withUno(pick.texts, base);
    if (text) act(text);
    return;
  }
  act("give " + card);
}

export function pressUno() {
  const c = choices(state.game.legal);
  if (c.uno) act("uno");
  else if (c.unoWithPlay) update((s) => { s.unoArmed = !s.unoArmed; });
}

export function closeDialogs() {
  update((s) => {
    s.picker = s.targetPick = s.exchangePick = null;
    s.multi = { on: false, picked: [] };
    s.showKeys = false;
  });
}
