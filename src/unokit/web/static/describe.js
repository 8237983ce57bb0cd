// One line per event, as the terminal's transcript says it (unokit.text.transcript).
import { _, ngettext } from "./i18n.js";
import { cardName, colourName } from "./cards.js";

function reasonText(reason) {
  switch (reason) {
    case "": case "turn": case undefined: return "";
    case "draw_two": return _("Draw Two");
    case "wild_draw_four": return _("Wild Draw Four");
    case "challenge_guilty": return _("guilty Wild Draw Four");
    case "challenge_innocent": return _("lost challenge");
    case "uno_penalty": return _("missed UNO call");
    case "misplay": return _("misplay");
    case "false_catch": return _("false catch");
    // TRANSLATORS: why a player draws: their hand was refilled (a noun)
    case "refill": return _("refill");
    case "draw_ten": return "+10";
    case "downpour": return _("Downpour");
    case "slap": return _("last to slap");
    case "silence": return _("broke the silence");
    default: return String(reason).replace(/_/g, " ");
  }
}

function cardList(cards) {
  return (cards || []).map(cardName).join(", ");
}

function scoreList(values, who) {
  return (values || []).map((v, seat) => who(seat) + " " + v).join(", ");
}

export function describe(e, names) {
  const who = (seat) => (seat === undefined || seat < 0 ? _("nobody")
    : names[seat] || _("Seat {n}", { n: seat }));
  const p = who(e.player);
  const t = who(e.target);
  const n = e.amount || 0;
  const data = e.data || {};
  switch (e.kind) {
    case "round_started": return _("Round {round}: {name} deals.", { round: n, name: p });
    case "dealer_draw": return _("{name} draws {card} to choose the dealer.", { name: p, card: cardName(e.card) });
    case "dealt":
      return e.cards ? ngettext("{name} is dealt {n} card: {cards}.", "{name} is dealt {n} cards: {cards}.", n, { name: p, cards: cardList(e.cards) })
        : ngettext("{name} is dealt {n} card.", "{name} is dealt {n} cards.", n, { name: p });
    case "start_card": return _("The start card is {card}.", { card: cardName(e.card) });
    case "put_back": return _("The start card {card} goes back and the draw pile is reshuffled.", { card: cardName(e.card) });
    case "reshuffled": return ngettext("The discard pile becomes a new draw pile of {n} card.", "The discard pile becomes a new draw pile of {n} cards.", n);
    case "played": {
      let text = e.cards ? _("{name} plays {card} with {cards}", { name: p, card: cardName(e.card), cards: cardList(e.cards) })
        : _("{name} plays {card}", { name: p, card: cardName(e.card) });
      if (e.color) text += ", " + _("names {colour}", { colour: colourName(e.color) });
      if (e.target !== undefined) text += ", " + _("choosing {name}", { name: t });
      return text + ".";
    }
    case "drew": {
      const why = reasonText(e.reason);
      if (!n) return _("{name} draws no card (nothing left to draw).", { name: p });
      let text = ngettext("{name} draws {n} card", "{name} draws {n} cards", n, { name: p });
      if (why) text += " (" + why + ")";
      return text + (e.cards ? ": " + cardList(e.cards) + "." : ".");
    }
    case "passed": return _("{name} keeps the drawn card.", { name: p });
    case "skipped": return _("{name} is skipped.", { name: p });
    case "reversed": return n >= 0 ? _("Play reverses: now clockwise.") : _("Play reverses: now counter-clockwise.");
    case "color_chosen": return _("{name} names {colour}.", { name: p, colour: colourName(e.color) });
    case "uno_called": return _("{name} calls UNO!", { name: p });
    case "caught": return _("{name} catches {target}, who did not call UNO!", { name: p, target: t });
    case "false_catch": return _("{name} tries to catch {target}, who cannot be caught.", { name: p, target: t });
    case "misplayed": return _("{name} tries to play {card}, which does not match.", { name: p, card: cardName(e.card) });
    case "challenged":
      return e.reason === "guilty" ? _("{name} challenges the Wild Draw Four of {target}: guilty!", { name: p, target: t })
        : _("{name} challenges the Wild Draw Four of {target}: innocent.", { name: p, target: t });
    case "hand_shown":
      return e.cards ? _("{target} shows the hand to {name}: {cards}.", { name: p, target: t, cards: cardList(e.cards) })
        : _("{target} shows the hand to {name}.", { name: p, target: t });
    case "took_back": return _("{name} takes {card} back; the colour is {colour} again.", { name: p, card: cardName(e.card), colour: colourName(e.color) });
    case "went_out": return n > 1 ? _("{name} goes out, place {place}.", { name: p, place: n }) : _("{name} goes out!", { name: p });
    case "refilled": return _("{name} empties the hand and goes on at level {level}.", { name: p, level: n });
    case "round_ended": {
      const text = data.blocked ? _("Round {round} is blocked: {name} has the lowest hand and wins.", { round: data.round, name: p })
        : _("Round {round} ends: {name} wins.", { round: data.round, name: p });
      return text + (data.scores ? " " + _("Scores: {scores}.", { scores: scoreList(data.scores, who) }) : "");
    }
    case "match_ended": return _("The match is over: {name} wins.", { name: p }) + (data.scores ? " " + _("Final scores: {scores}.", { scores: scoreList(data.scores, who) }) : "");
    case "eliminated": return _("{name} reaches the target score and is out of the match.", { name: p });
    case "hands_swapped": return _("{name} and {target} swap hands.", { name: p, target: t });
    case "hands_rotated": return _("Every hand passes to the next player.");
    case "hands_shuffled": return _("All hands are gathered, shuffled and dealt out again.");
    case "gave": return e.cards ? _("{name} gives {target} a card: {cards}.", { name: p, target: t, cards: cardList(e.cards) })
      : _("{name} gives {target} a card.", { name: p, target: t });
    case "slap_started": return _("{name} called UNO: everyone slaps the table!", { name: p });
    case "slapped": return _("{name} slaps.", { name: p });
    case "said": return e.reason ? _("{name} says: {text}", { name: p, text: e.reason }) : _("{name} speaks.", { name: p });
    case "silence": return n === 0 ? _("The silence ends.") : _("Silence! Nobody may speak.");
    case "pressed": return ngettext("{name} presses the launcher: {n} card comes out.", "{name} presses the launcher: {n} cards come out.", n, { name: p });
    case "discarded": return _("{name} discards {cards} with it.", { name: p, cards: cardList(e.cards) });
    case "penalty": return ngettext("{name} faces {n} card to draw.", "{name} faces {n} cards to draw.", n, { name: p });
    case "repeated": return _("The same position keeps coming back: the round is blocked.");
    default: return e.kind;
  }
}

// A fairness check of the deal (formats/fairdeal.py CHECKS), in words: the match end
// screen and the match page say them alike.
export function checkName(name) {
  switch (name) {
    case "scheme": return _("the deal's method");
    case "contributions": return _("the players' contributions");
    case "commitment": return _("the server's commitment");
    case "seed": return _("the seed of the deal");
    case "replay": return _("the replay of the match");
    case "published commitment": return _("the commitment published before the match");
    case "own contributions": return _("your own contribution");
    default: return name;
  }
}
