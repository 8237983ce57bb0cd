// What a change of the table asks the page to say besides drawing it: the sound cues
// (sound.js) and, while the tab is hidden, the notices (effects.js). Pure functions (no
// DOM, no state): tests/web/cues.test.mjs runs them under Node.
//
//   cuesFor({ events: [{ kind: "uno_called", player: 1 }], wasMust: false, must: true, screen: "table" })
//     -> ["turn", "uno"]

// The cues of one change: "turn" when the page's turn has just come, "uno" for an UNO
// call, "catch" for a player caught without one (each at most once).
export function cuesFor({ events, wasMust, must, screen }) {
  const cues = [];
  if (screen === "table" && must && wasMust === false) cues.push("turn");
  if (events.some((e) => e.kind === "uno_called")) cues.push("uno");
  if (events.some((e) => e.kind === "caught")) cues.push("catch");
  return cues;
}

// The seats a person has just taken in the room (`before` and `after`: the server's room
// descriptions; `me`: the page's own seat, never counted). A bot taking a seat is no
// friend joining, nor is a rename; nor is the room first seen (`before` null).
export function joinedSeats(before, after, me) {
  if (!before || !after || !before.seats || !after.seats) return [];
  const joined = [];
  after.seats.forEach((seat, i) => {
    const was = before.seats[i];
    if (i === me || !seat || seat.kind !== "human") return;
    if (!was || was.kind !== "human") joined.push(i);
  });
  return joined;
}

// The notices for a change while the tab is `hidden`: a friend who joined, the page's
// turn. None while the page is in view: it shows them itself.
export function noticesFor({ cues, joined, hidden }) {
  if (!hidden) return [];
  const notices = joined.map((seat) => ({ kind: "join", seat }));
  if (cues.includes("turn")) notices.push({ kind: "turn" });
  return notices;
}
