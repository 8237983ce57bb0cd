// The lobby's HTTP calls: the presets and open rooms, a new room, the name kept.
import { api } from "./net.js";
import { state, update } from "./store.js";
import { toast } from "./notify.js";
import { effective } from "./rules.js";

export async function refreshLobby() {
  const S = state;
  const before = JSON.stringify([S.presets, S.openRooms, S.conn]);
  let presets = S.presets;
  let openRooms = S.openRooms;
  let conn = "online";
  try {
    if (!presets.length) presets = await api("/api/presets");
    openRooms = await api("/api/rooms");
  } catch {
    conn = "offline";
  }
  if (S.code) return; // a room was entered meanwhile: its connection says what is online
  // a new screen only on a change, so that an open drop-down of the form stays open
  const quiet = JSON.stringify([presets, openRooms, conn]) === before;
  update((s) => { s.presets = presets; s.openRooms = openRooms; s.conn = conn; }, { quiet });
}

export function saveName() {
  try { localStorage.setItem("unokit.name", state.name); } catch { /* private mode */ }
}

export function formRules(form = state.form) {
  return { preset: form.preset, ...form.overrides };
}

// The seat counts a room of these rules may have (pairs: an even count from 4).
export function seatChoices(rules) {
  return rules.teams === "pairs" ? [4, 6, 8, 10] : [2, 3, 4, 5, 6, 7, 8, 9, 10];
}

// The form's seat count, or the nearest its rules allow.
export function formSeats(form) {
  const counts = seatChoices(effective(formRules(form)));
  const asked = Number(form.seats);
  return counts.includes(asked) ? asked : counts.includes(4) ? 4 : counts[0];
}

// A new room: "play-now" (against bots) or the lobby form's room. Its code, or null
// (a toast says why).
export async function newRoom(kind) {
  saveName();
  const form = state.form;
  const timer = Number(form.timer) || null;
  let body;
  if (kind === "play-now") body = { bot: form.bot, turn_timer: timer };
  else {
    const seats = formSeats(form);
    const bots = Array.from({ length: Math.max(0, seats - 2) }, () => form.bot);
    body = { rules: formRules(), seats, turn_timer: timer, bots: form.bots ? bots : [] };
  }
  try {
    const made = kind === "play-now" ? await api("/api/play-now", body) : await api("/api/rooms", body);
    return made.code;
  } catch (err) {
    toast(err.code || "error", err.message);
    return null;
  }
}
