// The focus across a new screen: render() rebuilds the screen, and the element that had
// the focus (by its data-testid and data-* keys) gets it back; when that element is gone
// (the card left the hand, a dialog closed, the screen changed) keepFocus() moves the
// focus to a sensible one, so that a game event never drops the focus to <body>.

// What identifies the focused element `el` (null for none).
export function focusKey(el) {
  if (!el || el === document.body || !el.dataset) return null;
  const testid = el.dataset.testid;
  if (!testid) return el.id ? { id: el.id } : null;
  const key = { testid, card: el.dataset.card, seat: el.dataset.seat, target: el.dataset.target, code: el.dataset.code };
  const same = document.querySelectorAll('[data-testid="' + testid + '"]');
  key.index = Array.prototype.indexOf.call(same, el);
  if (el.selectionStart !== undefined) {
    try { key.caret = [el.selectionStart, el.selectionEnd]; } catch { key.caret = null; }
  }
  return key;
}

// Focus the element of the new screen that `key` names (or its nearest neighbour).
export function restoreFocus(key) {
  if (!key) return;
  if (key.id) {
    const el = document.getElementById(key.id);
    if (el) el.focus({ preventScroll: true });
    return;
  }
  const all = Array.from(document.querySelectorAll('[data-testid="' + key.testid + '"]'));
  let el = all.find((x) => x.dataset.card === key.card && x.dataset.seat === key.seat && x.dataset.target === key.target && x.dataset.code === key.code);
  if (key.card && all.length) {
    const same = all.filter((x) => x.dataset.card === key.card);
    el = same[0] || all[Math.min(key.index, all.length - 1)];
  }
  if (!el && all.length) el = all[Math.min(Math.max(key.index, 0), all.length - 1)];
  if (el && !el.disabled) {
    el.focus({ preventScroll: true });
    if (key.caret && el.setSelectionRange) {
      try { el.setSelectionRange(key.caret[0], key.caret[1]); } catch { /* not a text field */ }
    }
  }
}

// Where the focus goes when the element that had it is gone, the first that can take
// it: an open dialog's first button, a playable card, the hand, the screen's next step
// (next round, play again, start), the screen's heading, the screen itself.
export const FALLBACK = [
  '[role="dialog"] button:not([disabled])',
  '[data-testid="hand"] [data-testid="card"][data-playable="true"]',
  '[data-testid="hand"] [data-testid="card"]',
  '[data-testid="next-round"]:not([disabled])',
  '[data-testid="play-again"]',
  '[data-testid="start-match"]:not([disabled])',
  "#main h1",
  "#main",
];

// After a new screen: if the focus fell to <body>, give it to the first element of
// FALLBACK in `root` that takes it (a heading or the screen itself is made focusable by
// script only: tabindex -1).
export function keepFocus(root) {
  if (document.activeElement && document.activeElement !== document.body) return;
  for (const selector of FALLBACK) {
    const el = root.querySelector(selector);
    if (!el) continue;
    if (el.tagName === "H1" || el.id === "main") el.setAttribute("tabindex", "-1");
    el.focus({ preventScroll: true });
    if (document.activeElement === el) return;
  }
}
