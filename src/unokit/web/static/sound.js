// The table's sounds, made with WebAudio (no sound files): a rising chime for the own
// turn, a bright triple for an UNO call, a falling buzz for a catch. The audio starts
// only after a gesture of the player (the browsers' autoplay policy): the first press or
// key creates and resumes the AudioContext. Where there is no audio, or it stays locked,
// a cue is silent and nothing fails. Every cue is recorded in the effects layer
// (stage.js): data-last-cue (turn, uno, catch), data-cues (how many) and data-cue-sound
// (sound, muted, or locked: no audio to play it on).
//
//   cue("turn");   // the chime, unless muted
import { bump, mark } from "./stage.js";

// Each cue: notes of [frequency Hz, start s, length s], a waveform and a loudness.
export const CUES = {
  turn: { wave: "sine", gain: 0.18, notes: [[659, 0, 0.14], [880, 0.12, 0.22]] },
  uno: { wave: "square", gain: 0.08, notes: [[1047, 0, 0.09], [1319, 0.08, 0.09], [1568, 0.16, 0.2]] },
  catch: { wave: "sawtooth", gain: 0.1, notes: [[440, 0, 0.16], [294, 0.14, 0.3]] },
};

const MUTE_KEY = "unokit.muted";
let audio = null; // the AudioContext, made at the first gesture

// The mute kept in localStorage ("1": muted).
export function storedMute() {
  try {
    return localStorage.getItem(MUTE_KEY) === "1";
  } catch {
    return false;
  }
}

export function storeMute(muted) {
  try {
    localStorage.setItem(MUTE_KEY, muted ? "1" : "0");
  } catch { /* private mode: kept for this page only */ }
}

function unlock() {
  try {
    const Context = globalThis.AudioContext || globalThis.webkitAudioContext;
    if (!Context) return;
    if (!audio) audio = new Context();
    if (audio.state === "suspended") audio.resume().catch(() => null);
  } catch {
    audio = null;
  }
}

if (globalThis.document) {
  for (const kind of ["pointerdown", "keydown"]) document.addEventListener(kind, unlock, { capture: true, passive: true });
}

function tone(spec) {
  const now = audio.currentTime + 0.01;
  const out = audio.createGain();
  out.gain.value = spec.gain;
  out.connect(audio.destination);
  for (const [freq, start, length] of spec.notes) {
    const osc = audio.createOscillator();
    const env = audio.createGain();
    osc.type = spec.wave;
    osc.frequency.value = freq;
    env.gain.setValueAtTime(0.0001, now + start);
    env.gain.exponentialRampToValueAtTime(1, now + start + 0.015);
    env.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    osc.connect(env).connect(out);
    osc.start(now + start);
    osc.stop(now + start + length + 0.02);
  }
}

// Play the cue `name` (unless `muted`); what happened to it: "sound", "muted" or
// "locked".
export function cue(name, muted) {
  const spec = CUES[name];
  if (!spec) return "locked";
  let result = "muted";
  if (!muted) {
    result = "locked";
    try {
      if (audio && audio.state === "running") {
        tone(spec);
        result = "sound";
      }
    } catch {
      result = "locked";
    }
  }
  mark("lastCue", name);
  mark("cueSound", result);
  bump("cues");
  return result;
}
