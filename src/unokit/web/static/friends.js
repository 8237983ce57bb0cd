// What friends at one table need besides the game, as pure functions (no DOM, so that
// `node --test` runs them: tests/web/friends.test.mjs): the name chosen before joining
// by an invite link, who may ask for a rematch, and the seconds a server deadline
// leaves (the countdown to the next round, a turn's time).

// The longest name the server takes (seating.NAME_LIMIT).
export const NAME_LIMIT = 32;

// A name as typed, as it is sent: the ends trimmed, at most NAME_LIMIT characters.
export function cleanName(text) {
  return Array.from(String(text || "").trim()).slice(0, NAME_LIMIT).join("");
}

// Whether the page asks for a name before joining the room: it came by an invite link
// (`invited`), holds no seat token for the room and does not watch.
export function asksName({ invited, token, spectate }) {
  return !!invited && !token && !spectate;
}

// Whether the seat `seat` may ask for a rematch in `room` (the server's description):
// the match is over, and it is the host's seat, or the host is not connected.
export function mayRematch(room, seat) {
  if (!room || room.status !== "finished" || seat === null || seat === undefined) return false;
  if (String(room.code || "").includes("-")) return false; // a match kept under CODE-N
  const host = room.seats.find((s) => s.host);
  const mine = room.seats[seat];
  return !!mine && mine.kind === "human" && (!host || mine.host || !host.connected);
}

// Whole seconds left until `deadline` (ms on the page's clock) at `now`: rounded up,
// never below 0; null without a deadline.
export function secondsLeft(deadline, now) {
  if (deadline === null || deadline === undefined) return null;
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}

// A fresh contribution to the deal: `bytes` random bytes as hex (`random(array)` fills
// the array: crypto.getRandomValues in the page).
export function newContribution(random, bytes = 12) {
  const values = new Uint8Array(bytes);
  random(values);
  return Array.from(values, (b) => b.toString(16).padStart(2, "0")).join("");
}
