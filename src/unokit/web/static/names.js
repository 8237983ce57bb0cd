// Who sits where, in words: a seat's name as the table shows it.
import { _ } from "./i18n.js";
import { state } from "./store.js";

// The name of `seat` in `room` (the server's room description): a bot by number, a
// default "Player N" in the page's language, else the name the player chose.
export function seatNameIn(room, seat) {
  const info = room && room.seats && room.seats[seat];
  if (info && info.kind === "bot") return _("Bot {n}", { n: seat + 1 });
  const plain = info && info.name ? /^Player (\d+)$/.exec(info.name) : null;
  if (plain) return _("Player {n}", { n: plain[1] });
  if (info && info.name) return info.name;
  return _("Seat {n}", { n: seat + 1 });
}

export function seatName(seat) {
  return seatNameIn(state.room, seat);
}

// Every seat's name, in seat order.
export function names() {
  const count = state.room ? state.room.seats.length : 0;
  return Array.from({ length: count }, (_x, seat) => seatName(seat));
}

// Who wrote a chat line.
export function chatAuthor(msg) {
  const plain = /^Player (\d+)$/.exec(msg.name || "");
  if (plain) return _("Player {n}", { n: plain[1] });
  if (msg.name) return msg.name;
  return msg.seat === null || msg.seat === undefined ? _("Spectator") : seatName(msg.seat);
}
