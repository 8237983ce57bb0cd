"""A tour of every screen of the browser client in English, Russian, Georgian and Danish,
on a desktop (1280x800) and on a phone (a 360x640 touch screen), with a screenshot of
each left in ``test-artifacts/screens/LANG/DEVICE-SCREEN.png`` for a look by eye
(docs/screens.md lists them), and no English left on any screen in ru, ka or da. On the
phone, in every language, every control of the game's screens is a touch target of at
least 44 px, and the host's Start button, then after Start the top card, the UNO button
and "Your turn", are in view without scrolling (the longer words of a language must not
push them off the screen).

The screens, in the order of the tour (``SCREENS``):

``lobby``            the first visit, a guest: quick play, a new room, join, open rooms
``invite``           an invite link ``/r/CODE``: the name form before taking a seat
``colour-picker``    a wild played: the dialog that names the colour
``room``             the waiting room of a 2-vs-2 match: seats, host controls, chat
``table``            the table mid-game on the player's turn (partners, opponents around)
``keys-help``        the keyboard shortcuts dialog over the table
``round-end``        the end of the first round: hands, points, scores, next round
``match-end``        the end of the match: winner, team line, XP, fair deal, rematch
``me-guest``         ``/me`` of a guest: level, history, challenges, shop, claim form
``me-account``       ``/me`` after the claim: challenges, shop and the account panel
``profile``          ``/players/NAME``: a rated player's public profile and history
``leaderboards``     ``/leaderboards`` with three rated players
``match``            ``/matches/CODE``: the record, the fair-deal check, the replay
``player-unknown``   ``/players/NAME`` of no one: the page's error
``match-unknown``    ``/matches/CODE`` of no room: the server's errors, in words

The server has no other page (its admin API answers JSON only).

How a language is shown: the pages of their own address (the lobby, ``/me``,
``/players``, ``/leaderboards``, ``/matches``) are opened with ``?lang=en`` and
``?lang=ru``, then switched in place to Georgian and Danish with the language switch
(both ways a player comes to a language; after a switch a page reads again what the
server wrote in the old language, and its ``main`` says ``data-lang`` once done); the
screens of a room (a state of the game that a reload would not keep, such as the open
colour picker) are switched in place with the language switch. Each screen is read in
English first, and a text left English in another language is found as
test_browser_i18n.py finds it (:func:`test_browser_i18n.untranslated`): a text shown in
both that is not a name, code, number or card, or an English message of the catalogue
shown as it is, unless that language's catalogue translates it to itself. Besides,
a text shown in the language before (ru before ka, ka before da) and again now, that
English did not show, is a word of that language left over (:func:`left_from`). Two
kinds of text are names, not words: a team's partners, "Ada & Bot 3", and the key caps
of the keyboard help (``<kbd>``: "Enter", "Esc", "1-4 / r y g b", printed so on the
keys in every language). Every problem of every screen is listed when the test fails,
after all screenshots are made.

The cost is one server for the module: three accounts (programs with API tokens) play
three short rated matches at the start, for a leaderboard and a rated profile to show;
then each device plays one 2-vs-2 match of two short rounds against three bots, and a
short match against one bot with many blank wilds in the deck (``extra_cards``), for a
wild to name a colour for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from browser_client import SyncClient, first_legal
from browser_flow import (
    ROOMS_TRIED,
    by_id,
    named_context,
    seats_filled,
    start_at_my_turn,
    start_match,
)
from browser_server import ROOT, ServerProcess
from browser_table import Player, any_on, my_turn, on, play_until, shot
from playwright.sync_api import expect
from test_browser_accounts import FAST_HASH, claim
from test_browser_i18n import (
    LANGS,
    NOT_WORDS,
    SCRIPTS,
    switch,
    texts,
    translated,
    untranslated,
)
from test_browser_phone import PHONE, PLACES_JS, SMALL_TARGETS_JS, TOUCH
from test_browser_rewards import RATED_RULES, Account, age_accounts, make_account

from unokit import i18n

pytestmark = pytest.mark.xdist_group("browser")

SCREENS_DIR = ROOT / "test-artifacts" / "screens"
"""Where the screenshots go: ``LANG/DEVICE-SCREEN.png`` (git ignores test-artifacts/)."""

SCREENS = ("lobby", "invite", "colour-picker", "room", "table", "keys-help", "round-end",
           "match-end", "me-guest", "me-account", "profile", "leaderboards", "match",
           "player-unknown", "match-unknown")
"""Every screen the tour shows, in its order (the module's docstring says what each is)."""

DEVICES: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": PHONE,
}
PLAYERS = {"desktop": "Ada", "phone": "Pia"}
"""The name each device's player chooses (and claims as an account)."""

SETTINGS = {**FAST_HASH, "UNOKIT_LEADERBOARD_MIN_MATCHES": "1",
            "UNOKIT_RATING_PROVISIONAL_SIGMA": "8.3"}
"""Leaderboards reachable in three rated matches (as in test_browser_rewards.py)."""

RATED = ("Bea", "Cyd", "Dan")
TOUR_RULES = "online,rounds=2,hand_size=5,target_score=500"
"""The play-now match (2 vs 2) made short: two rounds of five cards; a score of 500,
out of reach of one round, so that the first round ends in a round end."""
PICKER_RULES = "official,players=2,rounds=1,extra_cards={WC:60}"
"""A deck of 168 cards, 68 of them wilds: a wild comes to the hand within a few turns."""


LAYOUT_FAULTS = """() => {
  const faults = [];
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? r : null;
  };
  const page = document.documentElement;
  if (page.scrollWidth > window.innerWidth + 1) {
    faults.push(`the page is wider than the screen (${page.scrollWidth} px)`);
  }
  const tiles = [...document.querySelectorAll(".opponent")]
    .map((el) => [el, box(el)]).filter(([, r]) => r);
  for (const [el, r] of tiles) {
    for (const part of el.querySelectorAll("*")) {
      const q = box(part);
      if (q && (q.right > r.right + 1 || q.left < r.left - 1)) {
        faults.push(`"${part.textContent.trim()}" sticks out of the tile of ` +
                    `"${el.querySelector(".opp-name")?.textContent ?? "?"}"`);
      }
    }
  }
  tiles.forEach(([, a], i) => tiles.slice(i + 1).forEach(([, b]) => {
    if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1
        && b.top < a.bottom - 1) faults.push("two seat tiles overlap");
  }));
  return faults;
}"""
"""What a screen must not show: a page wider than the screen, a part of a seat's tile
(its name, team mark, "partner" tag) sticking out of it, two tiles on each other."""

GAME_SCREENS = frozenset({"lobby", "invite", "colour-picker", "room", "table", "keys-help",
                          "round-end", "match-end"})
"""The screens of the game, whose every control on a phone is a touch target of at
least :data:`TOUCH` px in every language (test_browser_phone.py checks them in English)."""

IN_VIEW = {"room": ("start-match",), "table": ("top-card", "uno-button", "your-turn")}
"""What a phone shows without scrolling, in every language: the host's Start button in
the waiting room, and after Start the top card, the UNO button and "Your turn"."""


@dataclass
class World:
    """The module's server, with three rated players on its leaderboards."""

    server: ServerProcess
    rated: list[Account]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    server = ServerProcess(tmp_path_factory.mktemp("screens-server"), settings=SETTINGS)
    server.start()
    try:
        rated = [make_account(server, name) for name in RATED]
        # every player here comes from 127.0.0.1: older accounts pass the farming check
        age_accounts(server, [a.id for a in rated], days=30)
        for _ in range(3):  # 3 rated matches against 2 people: on the boards
            rated_match_of_programs(server, rated)
        assert server.get("/api/leaderboards/rating")["total"] == len(rated)
        yield World(server, rated)
    finally:
        server.stop()


def rated_match_of_programs(server: ServerProcess, players: list[Account]) -> None:
    """A rated match of ``players`` (programs that play their first legal card), played
    to its end; the first to sit is the host and starts it."""
    code = server.create_room(RATED_RULES)
    clients: list[SyncClient] = []
    try:
        for player in players:
            clients.append(SyncClient.join(server.url, code, name=player.name,
                                           api_token=player.token))
        for client in clients:
            client.autoplay(first_legal)
        clients[0].start_match()
        for client in clients:
            client.wait_for(lambda c: c.phase == "match_over", timeout=60)
    finally:
        for client in clients:
            client.close()


@dataclass
class Tour:
    """One device's tour: each screen shown in every language, read and photographed."""

    page: Any
    server: ServerProcess
    device: str
    allowed: set[str]
    problems: dict[str, list[str]] = field(default_factory=dict)
    shown: list[str] = field(default_factory=list)

    def screen(self, name: str, show: Callable[[str], None]) -> None:
        """Show screen ``name`` in English, then in each language (``show(lang)``);
        photograph each and note what is left English, or left in the language shown
        before (a text of the server not read again after a switch)."""
        assert name in SCREENS, name
        show("en")
        english = texts(self.page)
        faults = self.page.evaluate(LAYOUT_FAULTS) + self.phone_faults(name)
        if faults:
            self.problems[f"{self.device} {name} in en"] = faults
        self.photo(name, "en")
        before: tuple[str, dict[str, str]] | None = None
        for lang in LANGS:
            show(lang)
            seen = texts(self.page)
            where = f"{self.device} {name} in {lang}"
            names = self.names(seen, lang) | key_caps(self.page)
            left = untranslated(english, seen, lang, names)
            if before is not None:
                left += left_from(before, english, seen, names)
            if left:
                self.problems[where] = left
            before = (lang, seen)
            if lang in SCRIPTS and not any(SCRIPTS[lang].search(t) for t in seen):
                self.problems.setdefault(where, []).append("(no text in its script)")
            if not seen.keys() & translated(lang):
                self.problems.setdefault(where, []).append("(no text of its catalogue)")
            self.problems.setdefault(where, []).extend(self.page.evaluate(LAYOUT_FAULTS))
            self.problems[where].extend(self.phone_faults(name))
            if not self.problems[where]:
                del self.problems[where]
            self.photo(name, lang)
        self.shown.append(name)

    def phone_faults(self, name: str) -> list[str]:
        """On a phone: the controls of a game screen smaller than a fingertip
        (:data:`GAME_SCREENS`), and what must be in view without scrolling that is not
        (:data:`IN_VIEW`)."""
        if self.device != "phone":
            return []
        faults = []
        if name in GAME_SCREENS:
            faults += [f"a touch target under {TOUCH} px: {small}"
                       for small in self.page.evaluate(SMALL_TARGETS_JS, TOUCH)]
        if name in IN_VIEW:
            scrolled = self.page.evaluate("() => [scrollX, scrollY]")
            if scrolled != [0, 0]:
                faults.append(f"the page is scrolled to {scrolled}")
            places = self.page.evaluate(PLACES_JS, list(IN_VIEW[name]))
            faults += [f"{testid} is not in view: {where}" for testid, where in places.items()
                       if where != "in view"]
        return faults

    def names(self, seen: dict[str, str], lang: str) -> set[str]:
        """The names of people, and the texts made of names alone: the partners of a
        team, "Ada & Bot 3" (in Danish a bot is a "Bot" too)."""
        bots = {bot_name(lang, seat) for seat in range(10)}
        listed = {t for t in seen if " & " in t
                  and all(part in self.allowed | bots for part in t.split(" & "))}
        return self.allowed | listed

    def photo(self, name: str, lang: str) -> None:
        folder = SCREENS_DIR / lang
        folder.mkdir(parents=True, exist_ok=True)
        shot(self.page, folder, f"{self.device}-{name}")

    def switching(self) -> Callable[[str], None]:
        """Languages by the switch, in place (a screen of a room)."""
        return lambda lang: switch(self.page, lang)

    def opening(self, path: str, ready: Callable[[], None],
                switched: tuple[str, ...] = ("ka", "da"), marked: bool = True,
                ) -> Callable[[str], None]:
        """Languages by the address, ``path?lang=LANG``, and those of ``switched`` by
        the switch on the page as it stands; ``ready()`` waits until the page has what
        it reads from the server. ``marked``: a page beside the game (page.js), whose
        main region says ``data-lang`` once the server's texts are in the language
        (the lobby has none of the server's words to read again)."""
        def show(lang: str) -> None:
            if lang in switched:
                switch(self.page, lang)
            else:
                self.page.goto(f"{self.server.url}{path}?lang={lang}")
                expect(self.page.locator("html")).to_have_attribute("lang", lang)
            if marked:  # the server's texts are in the language (read again on a switch)
                expect(by_id(self.page, "screen")).to_have_attribute("data-lang", lang)
            ready()
        return show

    def allow_room(self, code: str) -> None:
        """The people's names in room ``code`` are names, not English."""
        self.allowed.update(s["name"] for s in self.server.get(f"/api/rooms/{code}")["seats"]
                            if s.get("kind") == "human" and s.get("name"))


def left_from(before: tuple[str, dict[str, str]], english: dict[str, str],
              seen: dict[str, str], names: set[str]) -> list[str]:
    """Texts of the screen now that it showed in the language before (``before``: that
    language and its texts) and not in English: words of that language left over."""
    lang, earlier = before
    kept = {t for t in earlier.keys() & seen.keys()
            if t not in english and t not in names and not any(p.match(t) for p in NOT_WORDS)}
    return sorted(f"{t!r} in {seen[t]} (left from {lang})" for t in kept)


KEY_CAPS_JS = """
() => [...document.querySelectorAll('kbd')]
  .filter((k) => k.checkVisibility()).map((k) => k.textContent.replace(/\\s+/g, ' ').trim())
"""


def key_caps(page: Any) -> set[str]:
    """The keys the keyboard help names (``<kbd>``: "Enter", "Esc", "1-4 / r y g b"), as
    the keys themselves are labelled on the keyboards of every language: not words."""
    return set(page.evaluate(KEY_CAPS_JS))


def bot_name(lang: str, seat: int) -> str:
    """What the page calls the bot of ``seat`` in ``lang`` (names.js: "Bot {n}")."""
    text = i18n.catalogue(lang, "web").get("Bot {n}")
    return (text if isinstance(text, str) and text else "Bot {n}").replace("{n}", str(seat + 1))


def wild_in_hand(st: dict[str, Any]) -> str | None:
    """A wild of the hand that may be played now."""
    return next((c["card"] for c in st["hand"] if c["card"].startswith("W") and c["playable"]),
                None)


def draw_for_a_wild(st: dict[str, Any]) -> str | None:
    """A preference for :class:`Player`: draw (or keep a drawn card) until a wild comes."""
    if wild_in_hand(st):
        return None
    return "pass" if st["pass"] else "draw"


def invite_and_colour_picker(tour: Tour, mode: str) -> None:
    """An invite link's name form, then a match against a bot in which the player
    draws until a wild comes and plays it: the colour picker. A bot may go out first
    (the deal is random): another room then, up to ``ROOMS_TRIED``."""
    page, server = tour.page, tour.server
    player = Player(page, mode, prefer=draw_for_a_wild)

    def ready(states: list[dict[str, Any]]) -> bool:
        return (my_turn(states) and wild_in_hand(states[0]) is not None) or any_on(
            "round-end", "match-end")(states)

    for attempt in range(ROOMS_TRIED):
        code = server.create_room(PICKER_RULES, bots=["normal"])
        page.goto(f"{server.url}/r/{code}")
        expect(by_id(page, "name-form")).to_be_visible()
        if attempt == 0:
            tour.allowed.add(code)
            tour.screen("invite", tour.switching())
        by_id(page, "join-room").click()
        expect(by_id(page, "screen")).to_have_attribute("data-screen", "room")
        seats_filled(page, 2)
        start_match(page)
        states = play_until([player], ready)
        wild = wild_in_hand(states[0]) if my_turn(states) else None
        if wild is None:
            continue
        player.play_card(wild)
        expect(by_id(page, "colour-picker")).to_be_visible()
        tour.screen("colour-picker", tour.switching())
        return
    raise AssertionError(f"in {ROOMS_TRIED} rooms in a row no wild came to the hand "
                         f"before the match ended")


def the_match(tour: Tour, mode: str) -> str:
    """The 2-vs-2 match against three bots: the waiting room, the table at the
    player's turn, the keys, the round end and the match end; the room's code."""
    page, server = tour.page, tour.server

    def room(code: str) -> None:
        tour.allow_room(code)
        tour.screen("room", tour.switching())

    code = start_at_my_turn(page, server, TOUR_RULES, bots=["normal"] * 3, before_start=room)
    tour.screen("table", tour.switching())

    page.locator("header .keys-button").click()
    expect(by_id(page, "keys-help")).to_be_visible()
    tour.screen("keys-help", tour.switching())
    page.keyboard.press("Escape")
    expect(by_id(page, "keys-help")).to_have_count(0)

    player = Player(page, mode)
    states = play_until([player], any_on("round-end", "match-end"))
    assert states[0]["screen"] == "round-end", f"the first round ended the match: {states}"
    tour.screen("round-end", tour.switching())

    play_until([player], on("match-end"))
    expect(by_id(page, "match-xp")).to_have_attribute("data-state", "ready")
    tour.screen("match-end", tour.switching())
    return code


def the_pages(tour: Tour, world: World, code: str) -> None:
    """The pages of their own address: the player's own (a guest's, then the claim
    and an account's), a rated player's, the leaderboards, the match, no one's."""
    page, name = tour.page, PLAYERS[tour.device]
    rated = world.rated[0].name

    def rewards_ready() -> None:
        expect(by_id(page, "shop-coins")).to_have_attribute("data-coins", re.compile(r"^\d+$"))
        expect(by_id(page, "challenge").first).to_be_visible()
        expect(by_id(page, "history-match", code=code)).to_have_count(1)

    def guest_ready() -> None:
        expect(by_id(page, "profile")).to_have_attribute("data-guest", "true")
        rewards_ready()

    tour.screen("me-guest", tour.opening("/me", guest_ready))
    claim(page, name)
    expect(by_id(page, "profile")).to_have_attribute("data-username", name)

    def account_ready() -> None:
        expect(by_id(page, "profile")).to_have_attribute("data-username", name)
        expect(by_id(page, "account-panel")).to_have_attribute("data-guest", "false")
        rewards_ready()

    tour.screen("me-account", tour.opening("/me", account_ready))

    def profile_ready() -> None:
        expect(by_id(page, "profile")).to_have_attribute("data-username", rated)
        expect(by_id(page, "history-match")).to_have_count(3)

    tour.screen("profile", tour.opening(f"/players/{rated}", profile_ready))

    def boards_ready() -> None:
        expect(by_id(page, "board-entry")).to_have_count(len(world.rated))

    tour.screen("leaderboards", tour.opening("/leaderboards", boards_ready))

    def match_ready() -> None:
        expect(by_id(page, "fair-check")).to_have_attribute("data-passed", "true")
        replay = by_id(page, "replay")
        expect(replay).to_have_attribute("data-loading", "false")
        # a few moves in: the events and hands of the moment (a switch keeps the step)
        while int(replay.get_attribute("data-step")) < 3:
            step = int(replay.get_attribute("data-step"))
            by_id(page, "replay-forward").click()
            expect(replay).to_have_attribute("data-step", str(step + 1))

    tour.screen("match", tour.opening(f"/matches/{code}", match_ready))
    the_error_pages(tour)


def the_error_pages(tour: Tour) -> None:
    """The two error pages: a player and a match that do not exist."""
    page = tour.page

    def no_player() -> None:
        expect(by_id(page, "page-error")).to_have_attribute("data-code", "not_found")

    tour.screen("player-unknown", tour.opening("/players/nobody_here", no_player))

    def no_match() -> None:
        expect(by_id(page, "verify-error")).to_have_attribute("data-code", "no_room")
        expect(by_id(page, "replay-error")).to_have_attribute("data-code", "no_room")

    tour.screen("match-unknown", tour.opening("/matches/NOSUCH", no_match))


@pytest.mark.parametrize("device", list(DEVICES))
def test_every_screen_in_every_language_has_no_english_left(
        device: str, world: World, contexts: Any) -> None:
    name = PLAYERS[device]
    page = named_context(contexts, name, reduced_motion="reduce", **DEVICES[device]).new_page()
    tour = Tour(page, world.server, device, {name, *RATED})
    mode = "tap" if device == "phone" else "click"

    def lobby_ready() -> None:
        expect(by_id(page, "screen")).to_have_attribute("data-screen", "lobby")
        expect(by_id(page, "lobby-account")).to_have_attribute("data-guest", "true")
        expect(by_id(page, "lobby-level")).to_have_attribute("data-xp", "0")

    tour.screen("lobby", tour.opening("/", lobby_ready, marked=False))
    invite_and_colour_picker(tour, mode)
    code = the_match(tour, mode)
    the_pages(tour, world, code)

    assert tuple(tour.shown) == SCREENS, tour.shown
    assert not tour.problems, "strings left in English (or another language), or a " \
        "layout fault: " + "; ".join(
        f"{where}: {left}" for where, left in tour.problems.items())
