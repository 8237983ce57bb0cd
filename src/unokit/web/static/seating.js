// Where the players sit around the table, as the page draws it, and who plays next.
// Pure functions (no DOM, no state): tests/web/seating.test.mjs runs them under Node.
//
// The page's own seat is at the bottom of the table. Seats count clockwise (the engine's
// "cw" is seat + 1), so the seat after yours sits on your left, the one across from you
// at the top, and the one before yours on your right:
//
//   seatsAround(4, 2)  -> [3, 0, 1]            (the seats after yours, in play order)
//   placesFor(3)       -> ["left", "top", "right"]
//   nextSeat(3, "ccw", 4, [false, false, false, false]) -> 2
//   nextToPlay(table, 4)  -> the seat the table marks as playing next

// The other seats in play order, starting with the seat after `me` (a spectator, whose
// `me` is null or negative, sees every seat from seat 0).
export function seatsAround(count, me) {
  const seats = [];
  const own = me === null || me === undefined || me < 0 ? -1 : me;
  for (let i = 1; i <= count; i++) {
    const seat = (Math.max(own, 0) + i) % count;
    if (seat !== own) seats.push(seat);
  }
  if (own < 0) seats.sort((a, b) => a - b);
  return seats;
}

// Where each of `n` opponents sits, in play order: the left side (from your end of the
// table upwards), the top (left to right), the right side (from the top downwards). Up
// to two opponents face you at the top; from three on, the sides fill too, two on each
// side from six on.
export function placesFor(n) {
  if (n <= 2) return Array.from({ length: n }, () => "top");
  const side = n >= 6 ? 2 : 1;
  const top = n - 2 * side;
  return [...Array(side).fill("left"), ...Array(top).fill("top"), ...Array(side).fill("right")];
}

// The seat that plays after `lead` when `lead` plays a plain card: the next seat in the
// direction of play that is still in the round (`inactive[seat]` true: out). Null when
// no one leads (between rounds) or every other seat is out.
export function nextSeat(lead, direction, count, inactive = []) {
  if (lead === null || lead === undefined || lead < 0 || count < 2) return null;
  const step = direction === "ccw" ? -1 : 1;
  let seat = lead;
  for (let i = 1; i < count; i++) {
    seat = (seat + step + count) % count;
    if (!inactive[seat]) return seat;
  }
  return null;
}

// The seat that plays after the current one, as the engine hands the turn on when the
// lead ends its turn the plain way (a number card, a draw, a penalty taken): `table` is
// game.js's table. The cards already played have moved the lead (a Skip, a Reverse, a
// Draw Two taken, a jump-in), so it is the seat after the lead in the direction of play,
// passing over the seats out of the round (went out) or out of the match (eliminated);
// except that while the lead gives a card back for a 5 (five_exchange), the turn goes on
// from the seat that gave it (and when that is the lead itself, the lead plays its own
// turn first). No one between rounds, nor during a slap: every seat slaps at once, and
// the turn then goes on where it was.
export function nextToPlay(table, count) {
  const { phase, lead } = table;
  if (phase === "round_over" || phase === "match_over" || phase === "slap") return null;
  if (lead === null || lead === undefined || lead < 0) return null;
  const inactive = Array.from({ length: count }, (_x, seat) => !!(table.out[seat] || table.gone[seat]));
  const giver = table.giver;
  if (phase !== "exchange" || giver === null || giver === undefined) return nextSeat(lead, table.direction, count, inactive);
  const after = nextSeat(giver, table.direction, count, inactive);
  return after === lead ? nextSeat(lead, table.direction, count, inactive) : after;
}

// Whether the UNO button invites a call: the page holds two cards, it is its turn to
// play one (phase play, or a drawn card to keep or play), a play that calls UNO is legal
// (`unoWithPlay`), and the call is not armed yet; or a call on its own is legal now
// (`uno`: a seat down to one card that did not call yet).
//
//   unoInvites({ hand: 2, must: true, unoWithPlay: true, uno: false, armed: false }) -> true
export function unoInvites({ hand, must, unoWithPlay, uno, armed }) {
  if (uno) return true;
  return hand === 2 && !!must && !!unoWithPlay && !armed;
}
