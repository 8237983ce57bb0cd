// The table's effects layer: one element outside the screens (render() never replaces
// it) that holds the cards in flight (motion.js) and says, in data-* attributes, what the
// table last did besides drawing itself: the flights started, the last sound cue and
// whether it sounded (sound.js), the last notice (effects.js). Tests read these.
//
//   mark("lastCue", "turn");   // <div data-testid="table-fx" data-last-cue="turn">
//   bump("flights");           // data-flights="1", then "2", ...
import { h } from "./dom.js";

const layer = h("div", { class: "fx-layer", testid: "table-fx", "aria-hidden": "true", data: { flights: 0, cues: 0 } });

// The layer, in the page (added to <body> when first asked for).
export function stage() {
  if (!layer.isConnected && document.body) document.body.appendChild(layer);
  return layer;
}

export function mark(key, value) {
  stage().dataset[key] = String(value);
}

export function bump(key) {
  const el = stage();
  el.dataset[key] = String(Number(el.dataset[key] || 0) + 1);
}
