"""The HTTP API answers in the language chosen on the page, not the browser's, and the
open rooms are listed by their rules' names, not the server's rule strings.

A Danish browser switched to Russian got its Create-room and Play-now errors in Danish
(the page sent no language, so the server read the browser's ``Accept-Language``), and
the open rooms showed ``classic_ru,jump_in=true``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from browser_flow import by_id
from browser_server import ServerProcess
from browser_table import shot
from playwright.sync_api import expect

from unokit import i18n

pytestmark = pytest.mark.xdist_group("browser")

CYRILLIC = re.compile("[\u0400-\u04ff]")

REFUSED_JS = r"""
async () => {
  const base = document.querySelector('meta[name="unokit-base"]');
  const prefix = base ? base.getAttribute("content") : "";
  const net = await import(prefix + "/static/net.js");
  const body = {rules: {preset: "no_such_preset"}};
  let said = null;
  try { await net.api("/api/rooms", body); } catch (err) { said = err.message; }
  // the same request as the browser sends it by itself, with its own Accept-Language
  const raw = await fetch(prefix + "/api/rooms", {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  return {page: said, browser: (await raw.json()).message};
}
"""


def switch(page: Any, lang: str) -> None:
    by_id(page, "lang-switch").select_option(lang)
    expect(page.locator("html")).to_have_attribute("lang", lang)


def test_the_api_answers_in_the_language_of_the_switch(server: ServerProcess, contexts: Any,
                                                      artifacts: Path) -> None:
    page = contexts(locale="da-DK").new_page()
    page.goto(server.url + "/")
    expect(by_id(page, "screen")).to_have_attribute("data-screen", "lobby")
    expect(page.locator("html")).to_have_attribute("lang", "da")
    switch(page, "ru")
    answers = page.evaluate(REFUSED_JS)
    assert answers["page"] and CYRILLIC.search(answers["page"]), answers
    assert not CYRILLIC.search(answers["browser"]), answers  # the browser's own: Danish
    switch(page, "en")
    assert page.evaluate(REFUSED_JS)["page"].startswith("invalid rule set"), answers


def test_open_rooms_are_listed_by_their_rules_names(server: ServerProcess, contexts: Any,
                                                   artifacts: Path) -> None:
    code = server.create_room("classic_ru,jump_in=true", public=True)
    page = contexts(locale="ru-RU").new_page()
    page.goto(server.url + "/")
    room = page.locator(f'[data-testid="open-room"][data-code="{code}"]')
    expect(room).to_be_visible()
    name = i18n.translate("ru", "Russian table")
    change = i18n.translate_plural("ru", "(+{n} change)", "(+{n} changes)", 1)
    expect(room).to_contain_text(f"{name} {change}")
    text = room.inner_text()
    assert "classic_ru" not in text and "jump_in" not in text, text
    shot(page, artifacts, "open-rooms-ru")
