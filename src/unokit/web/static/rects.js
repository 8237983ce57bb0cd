// Boxes on the screen, as plain numbers (viewport rects: left, top, width, height), for
// the cards in flight (motion.js). No DOM here, so that the node tests can load it.
//
//   middleOf({ left: 0, top: 0, width: 100, height: 100 }, { width: 40, height: 60 })
//   // -> { left: 30, top: 20, width: 40, height: 60 }

export const MINI = { width: 40, height: 60 }; // a card leaving or reaching a seat tile

// A box of `size` (only its width and height count: a whole rect may be given) at the
// middle of `rect`; null when there is no `rect`.
export function middleOf(rect, size = MINI) {
  if (!rect) return null;
  const { width, height } = size;
  return { left: rect.left + (rect.width - width) / 2, top: rect.top + (rect.height - height) / 2, width, height };
}
