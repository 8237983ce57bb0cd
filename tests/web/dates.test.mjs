// i18n.js's dates: in the language's own format where the browser has it, else in
// numbers alone (never in English words for a language the browser lacks).
import { test } from "node:test";
import assert from "node:assert/strict";
import { dateTimeText } from "../../src/unokit/web/static/i18n.js";

const MOMENT = Date.UTC(2026, 11, 3, 18, 5) / 1000; // 2026-12-03 18:05 UTC

// An Intl that knows only the languages of `known` (as Debian's Chromium knows no Georgian).
function intlKnowing(...known) {
  return {
    DateTimeFormat: Object.assign(function DateTimeFormat(lang, options) { return new Intl.DateTimeFormat(lang, options); }, {
      supportedLocalesOf: (langs) => langs.filter((lang) => known.includes(lang)),
    }),
  };
}

test("a language the browser knows gets its own date format", () => {
  const date = new Date(MOMENT * 1000);
  for (const lang of ["en", "ru", "da"]) {
    const expected = date.toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
    assert.equal(dateTimeText(MOMENT, lang, intlKnowing("en", "ru", "da")), expected);
  }
  assert.match(dateTimeText(MOMENT, "en"), /Dec/);
});

test("a language the browser does not know gets the numbers alone, not English", () => {
  const date = new Date(MOMENT * 1000);
  const two = (n) => String(n).padStart(2, "0");
  const expected = `${two(date.getDate())}.${two(date.getMonth() + 1)}.2026, ${two(date.getHours())}:${two(date.getMinutes())}`;
  const text = dateTimeText(MOMENT, "ka", intlKnowing("en", "ru", "da"));
  assert.equal(text, expected);
  assert.doesNotMatch(text, /[A-Za-z]/);
});
