// Cards drawn in CSS: the classic oval, the value, and a shape per colour for
// colour-blind players (● red, ▲ yellow, ■ green, ◆ blue, ★ wild).
import { h } from "./dom.js";
import { _ } from "./i18n.js";

export const SYMBOLS = { R: "●", Y: "▲", G: "■", B: "◆", W: "★" };
export const COLOURS = ["R", "Y", "G", "B"];

export function colourName(letter) {
  switch ((letter || "").toUpperCase()) {
    case "R": return _("red");
    case "Y": return _("yellow");
    case "G": return _("green");
    case "B": return _("blue");
    default: return _("no colour");
  }
}

// "R5" -> {colour: "R", value: "5"}; "W+4" -> {colour: "W", value: "+4"}
export function parse(code) {
  const text = String(code || "");
  if (text.startsWith("W")) return { colour: "W", value: text.slice(1) || "W" };
  return { colour: text.slice(0, 1), value: text.slice(1) };
}

export function valueName(value, colour) {
  switch (value) {
    case "S": return _("Skip");
    case "R": return _("Reverse");
    case "+2": return _("Draw Two");
    case "+4": return _("Wild Draw Four");
    case "W": return _("Wild");
    case "C": return _("Blank wild");
    case "D1":
    case "D2": return _("Wild Downpour");
    case "SW": return _("Wild Swap Hands");
    case "SH": return _("Wild Shuffle Hands");
    default: return colour === "W" ? _("Wild") : value;
  }
}

export function cardName(code) {
  const { colour, value } = parse(code);
  if (colour === "W") return valueName(value, colour);
  return _("{colour} {value}", { colour: colourName(colour), value: valueName(value, colour) });
}

function face(value) {
  switch (value) {
    case "S": return "⊘";
    case "R": return "⇄";
    case "W": return "W";
    default: return value;
  }
}

// Values that read as another upside down: underlined, as on printed cards, so that
// the turned corner of a 6 is not taken for a 9.
const TURNABLE = new Set(["6", "9"]);

// A card face; `attrs` go on the outer element (a button for the hand).
export function cardFace(code, tag = "div", attrs = {}) {
  const { colour, value } = parse(code);
  const shown = face(value);
  const label = attrs["aria-label"] || cardName(code);
  const rest = { ...attrs };
  delete rest["aria-label"];
  const kind = "card c-" + colour + (TURNABLE.has(value) ? " turnable" : "");
  return h(tag, { ...rest, class: kind + (attrs.class ? " " + attrs.class : ""),
    "aria-label": tag === "button" ? null : label },
  tag === "button" ? h("span", { class: "visually-hidden" }, label) : null,
  h("span", { class: "corner tl", "aria-hidden": "true" }, shown),
  h("span", { class: "oval", "aria-hidden": "true" }, h("span", { class: "val" }, shown)),
  h("span", { class: "corner br", "aria-hidden": "true" }, shown),
  h("span", { class: "colour-symbol", testid: "colour-symbol", "aria-hidden": "true" },
    SYMBOLS[colour] || SYMBOLS.W));
}

export function cardBack(attrs = {}) {
  return h("div", { class: "card back", "aria-hidden": "true", ...attrs },
    h("span", { class: "oval" }, h("span", { class: "logo" }, "UNO")));
}
