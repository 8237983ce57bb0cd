"""The web client in English, Russian, Georgian and Danish, by the language switch and
by the browser's language, with no string left in English.

How a missing string is found: each screen is read in English, then switched to each
language in place (the switch re-renders at once) and read again. A text shown in both
that is not a name, a code, a number, a card or a language's own name is a string the
language lacks, unless the language's catalogue translates that message to the same
text. The catalogues are the ``web`` and ``unokit`` (server errors) domains of
``unokit.i18n``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from browser_flow import by_id, named_context, start_at_my_turn
from browser_server import ServerProcess
from browser_table import Player, any_on, play_until, shot
from playwright.sync_api import expect

from unokit import i18n

pytestmark = pytest.mark.xdist_group("browser")

LANGS = ("ru", "ka", "da")
SCRIPTS = {"ru": re.compile("[\u0400-\u04ff]"), "ka": re.compile("[\u10a0-\u10ff\u1c90-\u1cbf]")}

TEXTS_JS = r"""
() => {
  const out = new Map();
  const where = el => {
    const box = el.closest('[data-testid]');
    const tag = el.closest('[id]');
    return box ? box.dataset.testid : (tag ? '#' + tag.id : el.tagName.toLowerCase());
  };
  const add = (t, el) => {
    t = (t || '').replace(/\s+/g, ' ').trim();
    if (t && !out.has(t)) out.set(t, where(el));
  };
  const shown = el => el.checkVisibility({visibilityProperty: true});
  // a visually hidden live region holds the last announcement to a screen reader, said
  // once in the language of its moment: not a text on the screen
  const spoken = el => {
    const live = el.closest('[aria-live], [role=status]');
    if (!live || live.closest('[data-testid]')) return false;
    const box = live.getBoundingClientRect();
    return box.width <= 1 || box.height <= 1;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest('script, style, template') || !shown(el) || spoken(el)) continue;
    if (el.closest('select') && el.tagName !== 'OPTION') continue;
    add(node.textContent, el);
  }
  for (const el of document.querySelectorAll('[aria-label], [placeholder], [title], [alt]')) {
    if (!shown(el)) continue;
    for (const name of ['aria-label', 'placeholder', 'title', 'alt']) {
      add(el.getAttribute(name), el);
    }
  }
  for (const el of document.querySelectorAll('input[type=button], input[type=submit]')) {
    if (shown(el)) add(el.value, el);
  }
  add(document.title, document.documentElement);
  return Object.fromEntries(out);
}
"""
"""Every text the page shows (text, labels, placeholders, titles, the title), each
with where it is (the nearest ``data-testid``, else id or tag)."""

NOT_WORDS = [
    re.compile(r"^[^\W_]{0,1}$"),  # a letter or nothing
    re.compile(r"^[\W\d_]+$"),  # numbers, symbols, times
    re.compile(r"^[RYGBW][0-9A-Z+>]*$"),  # card texts
    re.compile(r"^[0-9a-f]{16,}$"),  # hashes (the commitment)
    re.compile(r"^https?://\S+$"),  # links
    re.compile(r"^[A-Z2-9]{6}$"),  # room codes
    re.compile(r"^UNO!?$"),  # the game's name
    re.compile(r"^unokit( · [A-Z2-9]{6})?$"),  # the program's name (and a room's code)
]


@cache
def source_messages() -> frozenset[str]:
    """Every English message of the web client's catalogue template."""
    with (i18n.LOCALE_DIR / "web.pot").open("rb") as pot:
        return frozenset(str(m.id) for m in read_po(pot) if m.id and isinstance(m.id, str))


PLACEHOLDER = r"\S+(?: \S+)?"
"""What a ``{placeholder}`` stands for when a shown text is matched to its message: a
word or two (a name such as "Bot 2", a number, a card)."""


@cache
def _same_in(lang: str) -> tuple[frozenset[str], tuple[re.Pattern[str], ...]]:
    """The messages whose translation in ``lang`` is the English text itself: the plain
    ones, and patterns of those with ``{placeholders}``."""
    plain: set[str] = set()
    for domain in ("web", "unokit"):
        for msgid, text in i18n.catalogue(lang, domain).items():
            forms = [text] if isinstance(text, str) else list(text)
            if all(form in (msgid, _plurals(domain).get(msgid)) for form in forms):
                plain.add(msgid)
                if msgid in _plurals(domain):
                    plain.add(_plurals(domain)[msgid])
    patterns = tuple(_pattern(m) for m in sorted(plain)
                     if "{" in m and re.search(r"[^\W\d_]", re.sub(r"\{\w+\}", "", m)))
    return frozenset(m.rstrip(":.!? ") for m in plain if "{" not in m), patterns


def _pattern(msgid: str) -> re.Pattern[str]:
    """A message with placeholders as a pattern of the texts it gives."""
    parts = re.split(r"\{\w+\}", msgid)
    return re.compile("^" + PLACEHOLDER.join(re.escape(part) for part in parts) + "$")


@cache
def _plurals(domain: str) -> dict[str, str]:
    """Singular message id to plural id, in ``domain``'s template."""
    with (i18n.LOCALE_DIR / f"{domain}.pot").open("rb") as pot:
        return {str(m.id[0]): str(m.id[1]) for m in read_po(pot) if isinstance(m.id, tuple)}


def _same(text: str, lang: str) -> bool:
    """Whether ``text`` is a message ``lang`` translates to the English text itself."""
    plain, patterns = _same_in(lang)
    bare = text.strip(":.!?·•- ")
    return bare in plain or any(p.match(text) or p.match(bare) for p in patterns)


@cache
def translated(lang: str) -> frozenset[str]:
    """Every text the web catalogue of ``lang`` has."""
    return frozenset(text for text in i18n.catalogue(lang, "web").values()
                     if isinstance(text, str))


def texts(page: Any) -> dict[str, str]:
    """Every text shown, to where it is."""
    return dict(page.evaluate(TEXTS_JS))


def untranslated(english: dict[str, str], other: dict[str, str], lang: str,
                 allowed: set[str]) -> list[str]:
    """Texts of ``other`` (the screen in ``lang``) that are still its English texts,
    each with where it is."""
    ok = allowed | set(i18n.LANGUAGE_NAMES.values())
    left = {t for t in english.keys() & other.keys()
            if t not in ok and not any(p.match(t) for p in NOT_WORDS)}
    # an English message of the catalogue shown as it is, whatever the screen
    left |= {t for t in other.keys() & source_messages() if t not in ok}
    return sorted(f"{t!r} in {other[t]}" for t in left if not _same(t, lang))


def switch(page: Any, lang: str) -> None:
    by_id(page, "lang-switch").select_option(lang)
    expect(page.locator("html")).to_have_attribute("lang", lang)


def check_screen(page: Any, name: str, allowed: set[str], artifacts: Path,
                 problems: dict[str, list[str]]) -> None:
    """Read the screen in English and in each language; note what is left English."""
    switch(page, "en")
    english = texts(page)
    for lang in LANGS:
        switch(page, lang)
        shown = texts(page)
        left = untranslated(english, shown, lang, allowed)
        if left:
            problems[f"{name} in {lang}"] = left
        if lang in SCRIPTS and not any(SCRIPTS[lang].search(t) for t in shown):
            problems.setdefault(f"{name} in {lang}", []).append("(no text in its script)")
        if not shown.keys() & translated(lang):
            problems.setdefault(f"{name} in {lang}", []).append("(no text of its catalogue)")
        shot(page, artifacts, f"{name}-{lang}")
    switch(page, "en")


def test_each_language_by_the_switch_has_every_string(server: ServerProcess, contexts: Any,
                                                      artifacts: Path) -> None:
    page = named_context(contexts, "Lia").new_page()
    allowed = {"Lia"}
    problems: dict[str, list[str]] = {}
    page.goto(server.url + "/")
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "lobby")
    options = by_id(page, "lang-switch").locator("option")
    assert sorted(o.get_attribute("value") for o in options.all()) == sorted(i18n.LANGUAGES)
    check_screen(page, "lobby", allowed, artifacts, problems)

    def check_room(code: str) -> None:
        allowed.add(code)
        allowed.update(s["name"] for s in server.get(f"/api/rooms/{code}")["seats"]
                       if s.get("name"))
        check_screen(page, "room", allowed, artifacts, problems)

    start_at_my_turn(page, server, "official,players=2,rounds=1,hand_size=3",
                     bots=["normal"], before_start=check_room)
    check_screen(page, "table", allowed, artifacts, problems)

    play_until([Player(page)], any_on("match-end"))
    check_screen(page, "match-end", allowed, artifacts, problems)

    # the choice is remembered
    switch(page, "ka")
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "ka")
    expect(by_id(page, "lang-switch")).to_have_value("ka")
    assert not problems, "strings left in English: " + "; ".join(
        f"{where}: {left}" for where, left in problems.items())


@pytest.mark.parametrize("lang", LANGS)
def test_the_browser_language_picks_the_language(lang: str, server: ServerProcess,
                                                 contexts: Any, artifacts: Path) -> None:
    english_page = contexts(locale="en-US").new_page()
    english_page.goto(server.url + "/")
    expect(by_id(english_page, "screen")).to_have_attribute("data-screen", "lobby")
    english = texts(english_page)

    regions = {"ru": "ru-RU", "ka": "ka-GE", "da": "da-DK"}
    page = contexts(locale=regions[lang]).new_page()
    page.goto(server.url + "/")
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "lobby")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(by_id(page, "lang-switch")).to_have_value(lang)
    shown = texts(page)
    shot(page, artifacts, f"lobby-locale-{lang}")
    assert shown.keys() & translated(lang), f"no text of the {lang} catalogue on the lobby"
    left = untranslated(english, shown, lang, set())
    assert not left, f"strings left in English: {left}"
