// The frame of the pages beside the game (a profile, a match): the header with the way
// back to the lobby and the language switch, the main region, and a toast for errors.
// `startPage(name, view, relocalize)` picks the language, then calls `view()` to build
// the main region (again after a language change, and whenever the page calls
// `redraw()`). After a language change `relocalize()` (when given) reads again what the
// server wrote in the old language (a challenge's title, an error's words); the main
// region's `data-lang` says the language its texts are in once that is done.
import { BASE, h, option } from "./dom.js";
import { _, dateTimeText, LANGS, LANG_NAMES, language, pickLanguage, setLanguage } from "./i18n.js";

let current = null; // {name, view, relocalize, lang}
let switches = 0; // language changes so far: only the last one marks the page done

function header() {
  const select = h("select", {
    testid: "lang-switch", id: "lang-switch", "aria-label": _("Language"),
    onchange: async (ev) => {
      const ticket = ++switches;
      await setLanguage(ev.target.value, true);
      const url = new URL(location.href);
      if (url.searchParams.has("lang")) {
        url.searchParams.set("lang", ev.target.value);
        history.replaceState(history.state, "", url.pathname + url.search);
      }
      redraw();
      if (current && current.relocalize) {
        try { await current.relocalize(); } catch (err) { console.error(err); }
      }
      if (ticket !== switches || !current) return;
      current.lang = language();
      redraw();
    },
  }, LANGS.map((code) => option(code, LANG_NAMES[code], code === language())));
  return h("header", { class: "bar" },
    h("a", { class: "brand", href: BASE + "/" + location.search, testid: "home-link" },
      h("span", { class: "brand-card", "aria-hidden": "true" }, "U"), h("span", {}, "unokit"),
      h("span", { class: "visually-hidden" }, " " + _("back to the lobby"))),
    h("div", { class: "bar-right" },
      h("label", { class: "lang" }, h("span", { class: "visually-hidden" }, _("Language")), select)));
}

// Rebuild the page, keeping the focus on the same control (by id or data-testid).
export function redraw() {
  if (!current) return;
  const active = document.activeElement;
  const key = active && active !== document.body ? (active.id ? "#" + active.id
    : active.dataset && active.dataset.testid ? '[data-testid="' + active.dataset.testid + '"]' : null) : null;
  let view;
  try {
    view = current.view();
  } catch (err) {
    console.error(err);
    return;
  }
  const main = h("main", { id: "main", testid: "screen", data: { screen: current.name, lang: current.lang }, class: "screen-" + current.name }, view);
  document.getElementById("app").replaceChildren(header(), main);
  if (key) {
    const again = document.querySelector(key);
    if (again) again.focus({ preventScroll: true });
  }
}

export async function startPage(name, view, relocalize = null) {
  try { await setLanguage(pickLanguage()); } catch { await setLanguage("en"); }
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && LANGS.includes(asked)) {
    try { localStorage.setItem("unokit.lang", asked); } catch { /* private mode */ }
  }
  current = { name, view, relocalize, lang: language() };
  redraw();
}

// The path after the server's base (a page under /uno reads /uno/players/ann as /players/ann).
export function localPath() {
  const path = location.pathname;
  return path.startsWith(BASE) ? path.slice(BASE.length) : path;
}

// A time (seconds since the epoch) as the page's language writes it (i18n.js).
export function when(seconds) {
  try {
    return dateTimeText(seconds, language());
  } catch {
    return new Date(seconds * 1000).toISOString();
  }
}

export function notice(text, testid = "page-error", code = "") {
  return h("p", { class: "panel page-error", testid, role: "alert", data: { code } }, text);
}

export { _ };
