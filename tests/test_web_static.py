"""The web client's files and routes: the page at ``/`` and ``/r/CODE`` (an API client
still gets the room's JSON there), the static files with their MIME types, cache and
security headers, the language catalogues as JSON, the first load within 300 KB
(measured by following the page's links and the modules' static imports), no outside
address in any file, every ``data-testid`` of the DOM contract (docs/web.md) present,
the rules tables the client copies equal to the engine's, and a smoke test in
Chromium: the lobby, the language switch, a play-now match on the table, and no
motion under ``prefers-reduced-motion``."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from unokit import i18n
from unokit.engine.events import EventKind
from unokit.engine.rules import KEYS, PRESETS
from unokit.server.app import create_app
from unokit.server.settings import Settings
from unokit.web import CSP, PAGES, STATIC

FIRST_LOAD_LIMIT = 300 * 1024
"""The most bytes the first load of the page may transfer (uncompressed, to be safe)."""

CONTRACT_TESTIDS = [
    "screen", "lang-switch", "connection-status", "toast", "name-input", "play-now",
    "preset-select", "preset-explained", "seats-select", "bot-level-select", "timer-select",
    "create-submit", "join-code-input", "join-submit", "open-rooms", "open-room", "room-code",
    "invite-link", "seat", "start-match", "add-bot", "add-bot-level", "remove-bot", "kick",
    "set-timer", "rules-summary", "spectators", "fairness-commitment", "hand", "card",
    "colour-symbol", "top-card", "current-colour", "direction", "your-turn", "draw-pile",
    "pass", "opponent", "card-count", "colour-picker", "colour-R", "colour-Y", "colour-G",
    "colour-B", "uno-button", "catch-button", "challenge-button", "accept-button",
    "slap-button", "seven-target", "target-seat", "exchange", "next-round", "chat-input",
    "chat-send", "chat-log", "chat-line", "log", "log-line", "scores", "score", "turn-timer",
    "autopilot", "verify-link", "round-hand", "final-scores", "winner", "play-again",
    "queued-moves",
]
"""Every ``data-testid`` of the DOM contract (docs/web.md), which the browser tests use."""

SCREENS = ["lobby", "room", "table", "round-end", "match-end"]


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url="sqlite://", bot_delay=0))) as http:
        yield http


def static_files() -> list[Path]:
    return sorted(p for p in STATIC.rglob("*") if p.is_file())


# ---------------------------------------------------------------- routes
def test_the_page_is_served_at_the_root_with_a_csp_without_inline_script(
        client: TestClient) -> None:
    answer = client.get("/")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    policy = answer.headers["content-security-policy"]
    assert policy == CSP
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "<script>" not in answer.text and "<script type=\"module\">" not in answer.text


def test_an_invite_link_is_the_page_for_a_browser_and_json_for_an_api_client(
        client: TestClient) -> None:
    made = client.post("/api/rooms", json={"rules": "official,players=2"})
    code = made.json()["code"]
    page = client.get(f"/r/{code}", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert '<div id="app">' in page.text
    api = client.get(f"/r/{code}", headers={"Accept": "*/*"})
    assert api.headers["content-type"] == "application/json"
    assert api.json()["code"] == code
    assert client.get("/r/NOSUCH", headers={"Accept": "application/json"}).status_code == 404


def test_static_files_have_their_mime_types_and_cache_headers(client: TestClient) -> None:
    js = client.get("/static/app.js")
    assert js.status_code == 200
    assert js.headers["content-type"].split(";")[0] in ("text/javascript", "application/javascript")
    assert js.headers["cache-control"] == "no-cache" and js.headers["etag"]
    again = client.get("/static/app.js", headers={"If-None-Match": js.headers["etag"]})
    assert again.status_code == 304
    assert client.get("/static/app.css").headers["content-type"].startswith("text/css")
    assert client.get("/static/favicon.svg").headers["content-type"] == "image/svg+xml"
    assert client.get("/static/nothing.js").status_code == 404


def test_a_language_is_its_plural_rule_and_its_messages(client: TestClient) -> None:
    answer = client.get("/i18n/ru.json")
    assert answer.status_code == 200
    body = answer.json()
    assert body["lang"] == "ru"
    assert body["plural"] == i18n.plural_rule("ru")
    assert body["messages"] == i18n.catalogue("ru", "web")
    assert body["messages"]["Play now"] == "Играть сейчас"
    for lang in i18n.LANGUAGES:
        assert client.get(f"/i18n/{lang}.json").status_code == 200
    assert client.get("/i18n/xx.json").status_code == 404


def test_the_client_knows_every_plural_rule_of_the_catalogues() -> None:
    source = (STATIC / "i18n.js").read_text(encoding="utf-8")
    for lang in i18n.LANGUAGES:
        assert json.dumps(i18n.plural_rule(lang)) in source, lang


# ---------------------------------------------------------------- the first load
IMPORT = re.compile(
    r"""^\s*(?:import\s*|(?:import|export)\s[^;'"()=]*?\sfrom\s*)["']([^"']+)["']""", re.M)
HTML_LINK = re.compile(
    r"""<(?:script|link|img)\b(?![^>]*modulepreload)[^>]*?(?:src|href)="([^"]+)\"""")
PRELOAD = re.compile(r"""<link rel="modulepreload" href="/static/([^"]+)">""")
CSS_URL = re.compile(r"""url\(\s*["']?([^"')]+)["']?\s*\)|@import\s+["']([^"']+)["']""")


def _local(base: str, ref: str) -> str | None:
    if ref.startswith(("data:", "#")):
        return None
    if ref.startswith("/static/"):
        return ref[len("/static/"):]
    if ref.startswith("./") or not ref.startswith("/"):
        parent = str(Path(base).parent)
        joined = Path(parent) / ref
        return str(Path(*[p for p in joined.parts if p != "."]))
    raise AssertionError(f"{base} links {ref}, which is not a static file")


def first_load(page: str = "index.html") -> dict[str, int]:
    """Every file the page loads at once (name under static/ -> bytes)."""
    seen: dict[str, int] = {}
    html = (STATIC / page).read_text(encoding="utf-8")
    todo = [name for ref in HTML_LINK.findall(html) if (name := _local(page, ref))]
    seen[page] = len(html.encode())
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = STATIC / name
        assert path.is_file(), f"{name} is linked but missing"
        text = path.read_bytes()
        seen[name] = len(text)
        if name.endswith(".js"):
            found = IMPORT.findall(text.decode())
        elif name.endswith(".css"):
            found = [a or b for a, b in CSS_URL.findall(text.decode())]
        else:
            found = []
        todo += [n for ref in found if (n := _local(name, ref))]
    return seen


@pytest.mark.parametrize("page, entry", [("index.html", "app.js"),
                                         ("profile.html", "profile.js"),
                                         ("match.html", "match.js"),
                                         ("leaderboards.html", "leaderboards.js")])
def test_the_first_load_is_at_most_300_kb(page: str, entry: str) -> None:
    files = first_load(page)
    assert {page, entry, "app.css", "i18n.js"} <= set(files)
    # every module of the client is reached by the static imports of one of the pages
    modules = {p.name for p in STATIC.glob("*.js")}
    reached = set().union(*(first_load(name) for name in PAGES))
    assert modules <= reached, modules - reached
    # each page preloads each of its modules (no waterfall of imports), and only those
    html = (STATIC / page).read_text(encoding="utf-8")
    assert set(PRELOAD.findall(html)) == {n for n in files if n.endswith(".js")} - {entry}
    largest_language = max(len(json.dumps({"lang": lang, "plural": i18n.plural_rule(lang),
                                           "messages": i18n.catalogue(lang, "web")},
                                          ensure_ascii=False).encode())
                           for lang in i18n.LANGUAGES)
    total = sum(files.values()) + largest_language
    assert total <= FIRST_LOAD_LIMIT, f"{total} bytes: {files}"


def test_no_file_refers_to_an_outside_address() -> None:
    namespace = "http://www.w3.org/2000/svg"  # the SVG namespace name, never fetched
    for path in static_files():
        text = path.read_text(encoding="utf-8")
        if path.suffix in (".js", ".css"):
            text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
            text = re.sub(r"(?m)(^|[^:\"'])//.*$", r"\1", text)
        text = text.replace(namespace, "")
        assert not re.search(r"https?://", text), path.name
        assert "//cdn" not in text and "fonts.googleapis" not in text, path.name


def test_no_font_file_is_shipped_and_the_fonts_are_named() -> None:
    assert not [p for p in static_files() if p.suffix in (".woff", ".woff2", ".ttf", ".otf")]
    css = (STATIC / "app.css").read_text(encoding="utf-8")
    assert '"Noto Sans", "Noto Sans Georgian", "DejaVu Sans", system-ui, sans-serif' in css


# ---------------------------------------------------------------- the DOM contract
def all_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in static_files()
                     if p.suffix in (".js", ".html"))


def test_every_testid_of_the_dom_contract_is_in_the_client() -> None:
    text = all_text()
    missing = [name for name in CONTRACT_TESTIDS if f'"{name}"' not in text]
    assert not missing, missing
    for screen in SCREENS:
        assert f'"{screen}"' in text, screen


def test_the_dom_contract_is_documented() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "web.md").read_text(encoding="utf-8")
    missing = [name for name in CONTRACT_TESTIDS if f"`{name}`" not in doc]
    assert not missing, missing


def test_index_html_holds_no_visible_text() -> None:
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    body = html.split("<body>", 1)[1]
    visible = re.sub(r"<[^>]+>", "", body).strip()
    assert visible == ""


def test_the_rule_tables_of_the_client_are_the_engines() -> None:
    source = (STATIC / "rules.js").read_text(encoding="utf-8")

    def block(name: str) -> object:
        match = re.search(rf"// {name}-BEGIN\nexport const {name} = (.*?);\n// {name}-END",
                          source, re.S)
        assert match, name
        return json.loads(match.group(1))

    assert block("PRESETS") == PRESETS
    assert block("DEFAULTS") == {k.name: k.default for k in KEYS if k.kind != "cards"}


def test_every_bot_level_the_client_offers_is_one_the_server_takes_and_has_a_name() -> None:
    from unokit.server.bot_specs import check_bot_spec
    source = (STATIC / "lobby.js").read_text(encoding="utf-8")
    match = re.search(r"export const BOT_LEVELS = (\[.*?\]);", source)
    assert match
    levels = json.loads(match.group(1))
    assert levels[:4] == ["easy", "normal", "hard", "expert"] and "master" in levels
    for level in levels:
        assert check_bot_spec(level, max_iterations=10_000) == level
        assert f'case "{level}": return _(' in source, f"no name for the bot level {level}"


def test_the_log_describes_every_kind_of_event() -> None:
    source = (STATIC / "describe.js").read_text(encoding="utf-8")
    missing = [kind.value for kind in EventKind if f'case "{kind.value}"' not in source]
    assert not missing, missing


# ---------------------------------------------------------------- in a browser
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-quic"]


def test_a_browser_plays_now_in_russian_and_switches_to_danish_without_motion(
        tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    from server_harness import running_server, server_settings

    async def scenario() -> None:
        settings = server_settings(f"sqlite:///{tmp_path / 'web.db'}", bot_delay=0.05)
        async with running_server(settings) as server, async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium",
                                              args=BROWSER_ARGS)
            try:
                page = await browser.new_page(viewport={"width": 360, "height": 640})
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                await page.goto(server.url + "/?lang=ru")
                button = page.locator('[data-testid="play-now"]')
                await button.wait_for()
                assert await button.inner_text() == "Играть сейчас"
                assert await page.get_attribute("html", "lang") == "ru"
                await page.select_option('[data-testid="lang-switch"]', "da")
                await page.wait_for_function("() => document.documentElement.lang === 'da'")
                assert await button.inner_text() == "Spil nu"
                await page.fill('[data-testid="name-input"]', "Ann")
                await button.click()
                await page.locator('[data-screen="table"] [data-testid="hand"] '
                                   '[data-testid="card"]').first.wait_for(timeout=20000)
                assert "/r/" in page.url
                cards = page.locator('[data-testid="hand"] [data-testid="card"]')
                assert await cards.count() >= 1
                symbol = cards.first.locator('[data-testid="colour-symbol"]')
                assert await symbol.inner_text() in "●▲■◆★"
                assert await page.locator('[data-testid="opponent"]').count() == 3
                await page.locator('[data-testid="log-line"]').first.wait_for()
                # every message shown so far has its Danish text
                assert await page.get_attribute("html", "data-i18n-missing") == "0"
                await page.emulate_media(reduced_motion="reduce")
                motion = await page.evaluate(
                    "() => { const s = getComputedStyle(document.querySelector("
                    "'[data-testid=card]')); return [s.animationName, s.transitionDuration]; }")
                assert motion == ["none", "0s"], motion
                assert not errors, errors
            finally:
                await browser.close()

    asyncio.run(scenario())


MULTI_SEED = bytes([5]) * 32
"""A server seed whose deal (two seats, no contribution, ``multi_play``) gives seat 0 the
first turn with B1, R1 and B9 in hand on a start card they match: ``legal`` has "B1,R1"."""


def test_a_browser_plays_two_cards_together_and_counts_the_draw_pile(tmp_path: Path) -> None:
    import httpx
    from playwright.async_api import async_playwright

    from server_harness import running_server, server_settings
    from unokit.engine.actions import format_action
    from unokit.engine.driver import Driver
    from unokit.engine.game import Game
    from unokit.formats import fairdeal
    from unokit.server.rooms import room_rules

    rules = "official,multi_play=same_number"
    game = Game(room_rules(rules, 2), fairdeal.derive_seed(MULTI_SEED, {}))
    assert Driver(game).lead() == 0
    legal = [format_action(a).split(":", 1)[1] for a in game.legal_actions(0)]
    assert "B1,R1" in legal and "B9" in legal and "B9,B1" not in legal
    pile = game.observation(0).to_dict()["draw_pile_size"]
    hand = '[data-testid="hand"] [data-testid="card"]'

    async def scenario() -> None:
        settings = server_settings(f"sqlite:///{tmp_path / 'multi.db'}")
        async with running_server(settings, seeds=[MULTI_SEED]) as server, \
                async_playwright() as p:
            async with httpx.AsyncClient(base_url=server.url) as http:
                made = await http.post("/api/rooms", json={"rules": rules, "seats": 2,
                                                           "bots": ["normal"]})
            code = made.json()["code"]
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium",
                                              args=BROWSER_ARGS)
            try:
                page = await browser.new_page(viewport={"width": 1280, "height": 800})
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                await page.goto(f"{server.url}/r/{code}?contribution=none")
                await page.locator('[data-testid="join-room"]').click()  # the name form
                await page.locator('[data-testid="start-match"]').click()
                await page.locator('[data-testid="your-turn"]').wait_for()
                # the pile's count comes from the round's snapshot
                await page.wait_for_function(
                    f"() => document.querySelector('[data-testid=draw-pile]')"
                    f".dataset.count === '{pile}'")
                assert await page.locator(hand).count() == 7
                # the single-card path still plays at once without the mode
                assert await page.locator('[data-testid="multi-play"]').count() == 0
                toggle = page.locator('[data-testid="multi-toggle"]')
                await toggle.click()
                assert await toggle.get_attribute("aria-pressed") == "true"
                await page.keyboard.press("m")  # the key turns the mode off and on
                assert await toggle.get_attribute("aria-pressed") == "false"
                await page.keyboard.press("m")
                assert await toggle.get_attribute("aria-pressed") == "true"
                play = page.locator('[data-testid="multi-play"]')
                assert await play.is_disabled()  # nothing chosen yet
                # B9 is in no combination: it is not chosen, a toast says why
                await page.locator(f'{hand}[data-card="B9"]').click()
                await page.locator('[data-testid="toast"][data-code="not_playable"]').wait_for()
                assert await page.locator(f'{hand}[data-card="B9"]').get_attribute(
                    "data-picked") == "false"
                await page.locator(f'{hand}[data-card="B1"]').click()
                assert await play.get_attribute("data-count") == "1"
                await page.locator(f'{hand}[data-card="R1"]').focus()
                await page.keyboard.press("Enter")  # Enter on a card chooses it in the mode
                assert await play.get_attribute("data-count") == "2"
                assert await page.locator(f'{hand}[data-picked="true"]').count() == 2
                assert await page.locator(f'{hand}[data-card="R1"]').get_attribute(
                    "aria-pressed") == "true"
                assert not await play.is_disabled()
                await page.keyboard.press("Shift+Enter")  # plays the chosen cards
                # the room's events show seat 0 put down B1 and then R1 (red is named)
                await page.locator('[data-testid="log-line"][data-kind="played"]').first.wait_for()
                played = await page.evaluate(
                    "async () => { const { state } = await import('/static/store.js');"
                    " const e = state.game.events.find((x) => x.kind === 'played');"
                    " return [e.player, e.card, ...(e.cards || [])]; }")
                assert played == [0, "B1", "R1"]
                # the choice is over once the cards are played
                assert await page.locator(f'{hand}[data-picked="true"]').count() == 0
                # the text sent keeps the order chosen (the last card sets the colour),
                # else ends with the card chosen last; the UNO call when asked for
                picks = await page.evaluate(
                    "async () => { const { multiText } = await import('/static/game.js');"
                    " const legal = ['R5,B5', 'B5,R5', 'B5,R5!', 'Y5,G5,R5', 'G5,Y5,R5'];"
                    " return [multiText(legal, ['B5', 'R5']), multiText(legal, ['R5', 'B5']),"
                    " multiText(legal, ['B5', 'R5'], true), multiText(legal, ['G5', 'Y5', 'R5']),"
                    " multiText(legal, ['R5', 'G5', 'Y5']), multiText(legal, ['R5', 'Y5']),"
                    " multiText(legal, ['R5'])]; }")
                assert picks == ["B5,R5", "R5,B5", "B5,R5!", "G5,Y5,R5", "Y5,G5,R5", None,
                                 None]
                assert not errors, errors
            finally:
                await browser.close()

    asyncio.run(scenario())

