// Translation: _("text", {name}), ngettext(singular, plural, n, {name}) and, for a short
// message that reads two ways, pgettext(context, "text", {name}) (gettext's msgctxt:
// the catalogue keys it context + "\u0004" + text); the messages of each language come
// from /i18n/LANG.json (gettext catalogues, web domain). A comment that starts with
// TRANSLATORS: just above a message reaches the translators.
import { BASE } from "./dom.js";

export const LANGS = ["en", "ru", "ka", "da"];
export const LANG_NAMES = { en: "English", ru: "Русский", ka: "ქართული", da: "Dansk" };

// Plural forms by the catalogue's Plural-Forms expression (no eval under the CSP).
const RULES = {
  "n != 1": (n) => (n !== 1 ? 1 : 0),
  "(n != 1)": (n) => (n !== 1 ? 1 : 0),
  "n % 10 == 1 && n % 100 != 11 ? 0 : n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14) ? 1 : 2":
    (n) => (n % 10 === 1 && n % 100 !== 11 ? 0
      : n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14) ? 1 : 2),
};

let current = "en";
let messages = {};
let plural = RULES["n != 1"];
const cache = {};

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g,
    (whole, key) => (key in params ? String(params[key]) : whole));
}

// Messages shown without a translation in the current language (tests read the count
// in <html data-i18n-missing>: 0 when the language is complete).
const missing = new Set();

function miss(message) {
  if (current === "en" || missing.has(message)) return;
  missing.add(message);
  document.documentElement.dataset.i18nMissing = String(missing.size);
}

export function _(message, params) {
  const text = messages[message];
  if (!(typeof text === "string" && text)) miss(message);
  return fill(typeof text === "string" && text ? text : message, params);
}

export function pgettext(context, message, params) {
  const text = messages[context + "\u0004" + message];
  if (!(typeof text === "string" && text)) miss(context + "\u0004" + message);
  return fill(typeof text === "string" && text ? text : message, params);
}

export function ngettext(singular, pluralText, n, params) {
  const forms = messages[singular];
  let text = n === 1 ? singular : pluralText;
  if (Array.isArray(forms) && forms[plural(n)]) text = forms[plural(n)];
  else miss(singular);
  return fill(text, { n, ...(params || {}) });
}

export function language() {
  return current;
}

// A moment (seconds since the epoch) as `lang` writes a date and a time. A browser
// without that language's formats (Debian's Chromium has none for Georgian, and writes
// English instead: "Dec 3, 2026, 6:30 PM") gets the numbers alone, which read the same
// in every language: "03.12.2026, 18:30". `intl`: the Intl to ask (a test's stand-in).
export function dateTimeText(seconds, lang, intl = Intl) {
  const date = new Date(seconds * 1000);
  if (intl.DateTimeFormat.supportedLocalesOf([lang]).length) {
    return new intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(date);
  }
  const two = (n) => String(n).padStart(2, "0");
  return two(date.getDate()) + "." + two(date.getMonth() + 1) + "." + date.getFullYear()
    + ", " + two(date.getHours()) + ":" + two(date.getMinutes());
}

export function pickLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && LANGS.includes(asked)) return asked;
  let kept = null;
  try { kept = localStorage.getItem("unokit.lang"); } catch { kept = null; }
  if (kept && LANGS.includes(kept)) return kept;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const code = String(tag).toLowerCase().split(/[-_]/)[0];
    if (LANGS.includes(code)) return code;
  }
  return "en";
}

export async function setLanguage(lang, remember = false) {
  if (!LANGS.includes(lang)) lang = "en";
  if (lang === "en") {
    cache.en = { messages: {}, plural: "n != 1" };
  } else if (!cache[lang]) {
    const response = await fetch(BASE + "/i18n/" + lang + ".json");
    if (!response.ok) throw new Error("no language " + lang);
    cache[lang] = await response.json();
  }
  current = lang;
  messages = cache[lang].messages || {};
  missing.clear();
  document.documentElement.dataset.i18nMissing = "0";
  plural = RULES[cache[lang].plural] || RULES["n != 1"];
  document.documentElement.lang = lang;
  if (remember) {
    try { localStorage.setItem("unokit.lang", lang); } catch { /* private mode */ }
  }
}
