// The rules in words: a preset, its overrides, and what each changed rule means.
// PRESETS and DEFAULTS copy unokit.engine.rules (tests/test_web_static.py keeps them equal).
import { _, ngettext } from "./i18n.js";

// PRESETS-BEGIN
export const PRESETS = {
 "official": {},
 "classic_ru": {
  "first_card": "number_only",
  "draw_when_playable": false,
  "draw_two_on_draw_two": "deflect",
  "draw_two_on_draw_four": "deflect",
  "skip_on_skip": "same_color",
  "challenge_guilty_takes_back": true
 },
 "stacking": {
  "draw_two_on_draw_two": "stack",
  "draw_four_on_draw_four": "stack"
 },
 "seven_o": {
  "seven_swap": true,
  "zero_rotate": true
 },
 "jump_in": {
  "jump_in": true
 },
 "party": {
  "draw_two_on_draw_two": "stack",
  "draw_four_on_draw_four": "stack",
  "draw_four_on_draw_two": "stack",
  "seven_swap": true,
  "zero_rotate": true,
  "jump_in": true,
  "draw": "until_playable"
 },
 "attack": {
  "deck": "attack"
 },
 "h2o": {
  "deck": "h2o"
 },
 "pairs": {
  "teams": "pairs",
  "players": 4
 },
 "online": {
  "teams": "pairs",
  "players": 4,
  "draw_two_on_draw_two": "stack",
  "target_score": 100
 }
};
// PRESETS-END

// DEFAULTS-BEGIN
export const DEFAULTS = {
 "players": 4,
 "hand_size": 7,
 "deck": "classic",
 "dealer": "high_card",
 "first_card": "official",
 "draw": "one",
 "play_drawn": "may",
 "draw_when_playable": true,
 "two_player_reverse_skips": true,
 "wild_draw_four": "challenge",
 "challenge_guilty_draw": 4,
 "challenge_innocent_draw": 6,
 "challenge_guilty_takes_back": false,
 "uno_penalty": 2,
 "uno_self_catch": true,
 "false_catch_penalty": 0,
 "misplay_penalty": 0,
 "scoring": "standard",
 "target_score": 500,
 "rounds": null,
 "lone_zero_points": 0,
 "teams": "none",
 "partner_hands_visible": false,
 "play_to_last": false,
 "progressive_refill": false,
 "draw_two_on_draw_two": "none",
 "draw_four_on_draw_four": "none",
 "draw_two_on_draw_four": "none",
 "draw_four_on_draw_two": "none",
 "reverse_deflects_draw": false,
 "skip_on_skip": "none",
 "jump_in": false,
 "seven_swap": false,
 "zero_rotate": false,
 "seven_zero_last_card": "no_effect",
 "five_exchange": false,
 "multi_play": "off",
 "uno_slap": false,
 "silence": "off",
 "silence_penalty": 2,
 "wild_color": "chosen",
 "blank_card_effect": "wild",
 "launcher_fire_chance": 0.3,
 "launcher_max_burst": 6
};
// DEFAULTS-END

export function presetMeaning(name) {
  switch (name) {
    case "official": return _("The classic game and match, as in the printed rules.");
    case "classic_ru": return _("Table rules from Russia: a number start card, no drawing while you can play, Draw Twos passed on, Skip on Skip, a guilty Wild Draw Four taken back.");
    case "stacking": return _("Draw Twos and Wild Draw Fours add up until someone draws.");
    case "seven_o": return _("A 7 swaps hands, a 0 passes every hand on.");
    case "jump_in": return _("An identical card may be played out of turn.");
    case "party": return _("Both stacks, Wild Draw Four on Draw Two, seven-o, jump-in, draw until you can play.");
    case "attack": return _("UNO Attack: a card launcher instead of a draw pile.");
    case "h2o": return _("UNO H2O: Wild Downpour cards in the deck.");
    case "pairs": return _("Four players in two teams of partners.");
    case "online": return _("The online game: two pairs, Draw Twos stack, the first pair to 100 points wins.");
    default: return name;
  }
}

export function presetName(name) {
  switch (name) {
    case "official": return _("Official");
    case "classic_ru": return _("Russian table");
    case "stacking": return _("Stacking");
    case "seven_o": return _("Seven-O");
    case "jump_in": return _("Jump-in");
    case "party": return _("Party");
    case "attack": return _("UNO Attack");
    case "h2o": return _("UNO H2O");
    case "pairs": return _("Pairs");
    case "online": return _("Online game");
    default: return name;
  }
}

// A rules object ({preset, ...overrides}) from a rule string such as the open rooms'
// "classic_ru,jump_in=true" (the preset first, then key=value overrides).
export function parseRules(text) {
  const items = String(text || "").split(",").map((item) => item.trim()).filter(Boolean);
  const rules = {};
  if (items.length && !items[0].includes("=")) rules.preset = items.shift();
  for (const item of items) {
    const [key, raw] = item.split("=", 2);
    const value = raw === undefined ? "" : raw.trim();
    rules[key.trim()] = value === "true" ? true : value === "false" ? false
      : /^-?\d+$/.test(value) ? Number(value) : value;
  }
  return rules;
}

// A room's rule string in words for a list: the preset's name and how many rules differ.
export function rulesLabel(text) {
  const rules = parseRules(text);
  const changes = overridesText(rules).length;
  const name = presetName(rules.preset || "official");
  return changes ? name + " " + ngettext("(+{n} change)", "(+{n} changes)", changes) : name;
}

// The whole rule set of a room's rules object ({preset, ...overrides}).
export function effective(rules) {
  const preset = (rules && rules.preset) || "official";
  return { ...DEFAULTS, ...(PRESETS[preset] || {}), ...(rules || {}), preset };
}

// One sentence for a rule that differs from the official game.
export function ruleText(key, value, all) {
  switch (key) {
    case "players": return ngettext("{n} player.", "{n} players.", value);
    case "hand_size": return ngettext("{n} card in each hand.", "{n} cards in each hand.", value);
    case "deck": return value === "attack" ? _("UNO Attack deck with the card launcher.") : value === "h2o" ? _("UNO H2O deck.") : _("Classic deck.");
    case "first_card": return _("The start card is always a number.");
    case "draw": return value === "until_playable" ? _("Draw until you can play.") : _("Draw one card.");
    case "play_drawn": return value === "must" ? _("A playable drawn card must be played.") : value === "never" ? _("A drawn card may not be played at once.") : _("A playable drawn card may be played at once.");
    case "draw_when_playable": return value ? _("You may draw while you can play.") : _("No drawing while you can play.");
    case "two_player_reverse_skips": return value ? _("With two players a Reverse is a Skip.") : _("With two players a Reverse only turns the direction.");
    case "wild_draw_four": return value === "strict" ? _("Wild Draw Four only when you lack the colour.") : value === "free" ? _("Wild Draw Four any time, no challenge.") : _("Wild Draw Four may be challenged.");
    case "challenge_guilty_draw": return ngettext("A guilty Wild Draw Four costs {n} card.", "A guilty Wild Draw Four costs {n} cards.", value);
    case "challenge_innocent_draw": return ngettext("A lost challenge costs {n} card.", "A lost challenge costs {n} cards.", value);
    case "challenge_guilty_takes_back": return value ? _("A guilty Wild Draw Four is taken back.") : _("A guilty Wild Draw Four stays on the pile.");
    case "uno_penalty": return ngettext("A missed UNO call costs {n} card.", "A missed UNO call costs {n} cards.", value);
    case "uno_self_catch": return value ? _("A late UNO call is safe until someone catches you.") : _("A late UNO call does not save you.");
    case "false_catch_penalty": return ngettext("A wrong catch costs {n} card.", "A wrong catch costs {n} cards.", value);
    case "misplay_penalty": return ngettext("A card that does not match costs {n} card.", "A card that does not match costs {n} cards.", value);
    case "scoring": return value === "penalty" ? _("Penalty scoring: the lowest score wins.") : value === "elimination" ? _("Elimination: who reaches the target is out.") : value === "lazy" ? _("Lazy scoring: a point per round won.") : _("Standard scoring.");
    case "target_score": return ngettext("The match is played to {n} point.", "The match is played to {n} points.", value);
    case "rounds": return value ? ngettext("At most {n} round.", "At most {n} rounds.", value) : "";
    case "teams": return value === "pairs" ? _("Teams of two partners sitting opposite.") : _("Everyone plays alone.");
    case "partner_hands_visible": return value ? _("Partners see each other's hands.") : "";
    case "play_to_last": return value ? _("After someone goes out the others play on for places.") : "";
    case "progressive_refill": return value ? _("Emptying the hand at a higher level refills it.") : "";
    case "draw_two_on_draw_two": return value === "stack" ? _("Draw Twos stack.") : value === "deflect" ? _("A Draw Two passes a Draw Two on.") : "";
    case "draw_four_on_draw_four": return value === "stack" ? _("Wild Draw Fours stack.") : "";
    case "draw_two_on_draw_four": return value === "stack" ? _("A Draw Two of the named colour adds to a Wild Draw Four.") : value === "deflect" ? _("A Draw Two of the named colour passes a Wild Draw Four on.") : "";
    case "draw_four_on_draw_two": return value === "stack" ? _("A Wild Draw Four adds to a Draw Two.") : "";
    case "reverse_deflects_draw": return value ? _("A Reverse sends a penalty back.") : "";
    case "skip_on_skip": return value === "none" ? "" : _("A skipped player may pass the Skip on.");
    case "jump_in": return value ? _("Jump-in: an identical card may be played out of turn.") : "";
    case "seven_swap": return value ? _("A 7 swaps hands with a player you choose.") : "";
    case "zero_rotate": return value ? _("A 0 passes every hand on.") : "";
    case "five_exchange": return value ? _("A 5 lets you give a card away.") : "";
    case "multi_play": return value === "same_number" ? _("Several cards of one number may be played at once.") : "";
    case "uno_slap": return value ? _("An UNO call makes everyone slap; the last to slap draws.") : "";
    case "silence": return value === "off" ? "" : ngettext("Silence rule: speaking during a silence costs {n} card.", "Silence rule: speaking during a silence costs {n} cards.", all.silence_penalty);
    case "dealer": return value === "random" ? _("The first dealer is chosen by lot.") : value === "seat0" ? _("The first seat deals first.") : _("The highest card drawn deals first.");
    case "lone_zero_points": return ngettext("A hand of a single 0 is worth {n} point.", "A hand of a single 0 is worth {n} points.", value);
    case "seven_zero_last_card": return value === "apply" ? _("A 7 or 0 played as the last card still swaps or passes the cards.") : "";
    case "silence_penalty": return "";
    case "wild_color": return value === "next_in_circle" ? _("A wild takes the next colour on the wheel.") : "";
    case "blank_card_effect": return value === "transparent" ? _("A blank card takes the card below it.") : value === "draw_ten" ? _("A blank card makes the next player draw ten.") : _("A blank card is played as a Wild.");
    case "launcher_fire_chance": return _("Chance that a press fires the launcher: {n}%.", { n: Math.round(Number(value) * 100) });
    case "launcher_max_burst": return ngettext("The launcher throws out at most {n} card.", "The launcher throws out at most {n} cards.", value);
    default: return key.replace(/_/g, " ") + ": " + String(value);
  }
}

// The rules in words: the preset's meaning, then every rule it or the room changes.
export function summary(rules) {
  const all = effective(rules);
  const lines = [];
  for (const key of Object.keys(DEFAULTS)) {
    if (key === "silence_penalty" && all.silence !== "off") continue;
    if (JSON.stringify(all[key]) === JSON.stringify(DEFAULTS[key]) && key !== "players" && key !== "target_score") continue;
    const text = ruleText(key, all[key], all);
    if (text) lines.push(text);
  }
  return { preset: all.preset, meaning: presetMeaning(all.preset), lines };
}

// The overrides of a rules object, in words (what differs from its preset).
export function overridesText(rules) {
  const all = effective(rules);
  const base = effective({ preset: all.preset });
  const out = [];
  for (const key of Object.keys(DEFAULTS)) {
    if (JSON.stringify(all[key]) !== JSON.stringify(base[key])) {
      const text = ruleText(key, all[key], all);
      if (text) out.push(text);
    }
  }
  return out;
}
