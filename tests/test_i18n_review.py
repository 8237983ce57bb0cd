"""The localisation review's concrete errors, each held fixed.

The review (Russian B, Danish B-, Georgian C) read the terminal game, the web client
and the command line as a native player would. Each test here fails on what it found:
the English default name "You" in the ru/ka/da logs, "для игрока вы", the Danish
button bar with two "Træk" buttons and "et rød kort", raw preset keys and English on
screen, and messages that read two ways without a context.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from unokit import i18n
from unokit.engine.cards import parse_card
from unokit.engine.game import Game
from unokit.engine.rules import PRESETS
from unokit.server.app import create_app
from unokit.server.settings import Settings
from unokit.tui import Session
from unokit.tui.preset_names import PRESET_NAMES, preset_name, rules_label
from unokit.tui.session import HUMAN
from unokit.tui.widgets import opponent_text, table_text

LANGS = ("ru", "ka", "da")


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    i18n.set_language("en")


def session() -> Session:
    game = Game.from_setup("official,players=2",
                           hands=[[parse_card(c) for c in ("R5", "G7", "B1")],
                                  [parse_card(c) for c in ("Y3", "Y4")]],
                           draw_pile=[parse_card(c) for c in ("Y1", "Y2", "Y5", "Y6")],
                           discard=[parse_card("R3")], current_player=0)
    return Session.for_game(game, ["playfirst"])


@pytest.mark.parametrize("lang", LANGS)
def test_the_default_name_is_said_in_the_tables_language(lang: str) -> None:
    i18n.set_language(lang)
    played = session()
    name = i18n.translate_in(lang, "the player's default name", "You")
    assert name != "You"
    assert played.name(HUMAN) == name
    assert played.shown_names()[HUMAN] == name
    log = "\n".join(line.plain for line in played.lines)
    assert log and not re.search(r"\bYou\b", log), log


def test_in_english_the_log_still_speaks_to_the_player() -> None:
    played = session()
    assert played.name(HUMAN) == "You"
    log = "\n".join(line.plain for line in played.lines)
    assert re.search(r"\bYou (are|draw|play|have)\b", log), log


def _table(pending_for: str) -> str:
    return table_text(top=parse_card("R3"), color=0, direction=1, pile=4,
                      pile_word="Draw pile", round_no=1, dealer="Bob", pending=4,
                      pending_for=pending_for).plain


@pytest.mark.parametrize("lang", ("en", *LANGS))
def test_a_penalty_for_you_is_said_to_you(lang: str) -> None:
    i18n.set_language(lang)
    shown = _table("")
    assert i18n.translate(lang, "Penalty waiting for you: +{n}", n=4) in shown
    assert "для игрока" not in shown  # was "Ждёт штраф: +4 для игрока вы"
    assert i18n.translate(lang, "Penalty waiting: +{n} for {who}", n=4, who="Bob") in _table("Bob")


BUTTON_BAR = ("Draw d", "Pass p", "UNO u", "Catch", "Challenge x", "Slap s", "Say y",
              "Actions a", "Keys ?", "Quit q")


@pytest.mark.parametrize("lang", ("en", *LANGS))
def test_no_two_buttons_of_the_table_read_alike(lang: str) -> None:
    """The Danish bar read "Træk d ... Træk a": Draw and Actions both "Træk"."""
    words = [i18n.translate(lang, label).rsplit(" ", 1)[0] if " " in label
             else i18n.translate(lang, label) for label in BUTTON_BAR]
    assert len(set(words)) == len(words), words
    contexts = {"Draw": "verb: the button that draws a card",
                "Actions": "the list of every legal move"}
    said = {i18n.translate_in(lang, ctx, word) for word, ctx in contexts.items()}
    assert len(said) == 2, said


def test_danish_says_a_colour_without_agreement_errors() -> None:
    """"hvis Bob havde et rød kort": the colour before a neuter noun."""
    for colour in ("red", "yellow", "green", "blue"):
        text = i18n.translate("da", "Challenge: if {who} held a card of the colour {color}, "
                              "{who} draws {guilty}; if not, you draw {innocent}.",
                              who="Bob", color=i18n.translate("da", colour), guilty=4,
                              innocent=6)
        assert "et kort i farven" in text
        assert not re.search(r"\bet (rød|blå|grøn|gul) kort", text), text


@pytest.mark.parametrize("lang", LANGS)
def test_the_opponent_row_has_no_english_left(lang: str) -> None:
    i18n.set_language(lang)
    called = opponent_text(name="Bob", level="normal", cards=1, score=12, turn=False,
                           uno_open=False, active=True, in_match=True, partner=False,
                           place=0).plain
    assert "UNO!" in called  # the call keeps its Latin name in every language
    assert " 12p" not in called and i18n.translate_plural(lang, "{n}p", "{n}p", 12) in called
    you = opponent_text(name="Ana", level="you", cards=3, score=0, turn=False,
                        uno_open=False, active=True, in_match=True, partner=False,
                        place=0).plain
    assert "(you)" not in you


@pytest.mark.parametrize("lang", LANGS)
def test_preset_names_are_shown_not_keys(lang: str) -> None:
    """The terminal's setup list and header showed "classic_ru", "official,players=3"."""
    assert set(PRESET_NAMES) == set(PRESETS)
    i18n.set_language(lang)
    for key in PRESETS:
        if key not in ("attack", "h2o"):  # UNO Attack, UNO H2O: product names
            assert preset_name(key) != PRESET_NAMES[key], (lang, key)
    label = rules_label("classic_ru,jump_in=true")
    assert "classic_ru" not in label and "jump_in" not in label
    assert label == preset_name("classic_ru") + " " + i18n.translate_plural(
        lang, "(+{n} change)", "(+{n} changes)", 1)


@pytest.mark.parametrize("lang", LANGS)
def test_the_preset_meanings_use_no_project_jargon(lang: str) -> None:
    """"the seeds' online game (seed 002)" meant nothing to a player."""
    from unokit.engine.rules import PRESET_MEANINGS
    for meaning in PRESET_MEANINGS.values():
        assert "seed" not in meaning
        assert "seed 002" not in i18n.translate(lang, meaning)


def test_the_web_catalogue_carries_the_contexts() -> None:
    with TestClient(create_app(Settings(database_url="sqlite://", bot_delay=0))) as http:
        messages = http.get("/i18n/ru.json").json()["messages"]
    assert messages["the tag beside your own seat's name\x04you"] == "вы"
    assert messages["the group of buttons for your moves\x04Actions"] == "Действия"
    assert "you" not in messages  # the short message lives only under its context


@pytest.mark.parametrize("domain", i18n.DOMAINS)
def test_short_ambiguous_messages_have_a_context(domain: str) -> None:
    """Draw, Actions, Keys, Top, free, you, a card, out: each carries a msgctxt (or is
    gone), so that a translator knows which reading is meant."""
    from babel.messages.pofile import read_po
    with (i18n.LOCALE_DIR / f"{domain}.pot").open("rb") as f:
        template = read_po(f)
    for message in template:
        if message.id in ("Draw", "Actions", "Keys", "Top", "free", "you", "a card", "out",
                          "matching"):
            assert message.context, f"{domain}: {message.id!r} has no msgctxt"


@pytest.mark.parametrize("lang", ("en", *LANGS))
def test_opponent_rows_line_up_whatever_the_count(lang: str) -> None:
    """"1 карта" and "5 карт" are not as wide: the columns after them moved."""
    i18n.set_language(lang)
    widths = {len(opponent_text(name="Bob", level="normal", cards=n, score=7, turn=False,
                                uno_open=False, active=True, in_match=True, partner=False,
                                place=0).plain) for n in (2, 5, 11, 21)}
    assert len(widths) == 1, widths


def test_every_rule_key_has_a_sentence_on_the_web() -> None:
    """The rules summary fell back to the raw key ("seven zero last card: apply") for a
    key ``ruleText`` did not know."""
    from unokit.web import STATIC
    source = (STATIC / "rules.js").read_text(encoding="utf-8")
    defaults = source.split("// DEFAULTS-BEGIN")[1].split("// DEFAULTS-END")[0]
    keys = set(re.findall(r'"(\w+)":', defaults))
    body = source.split("export function ruleText")[1].split("export function summary")[0]
    cases = set(re.findall(r'case "(\w+)":', body))
    assert keys and keys <= cases, sorted(keys - cases)


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGS)
async def test_the_setup_screen_offers_the_default_name_in_its_language(lang: str) -> None:
    """The name field said "You" in every language."""
    from textual.widgets import Input

    from unokit.tui import PlayApp
    from unokit.tui.setup_screen import SetupScreen, entered_name
    i18n.set_language(lang)
    app = PlayApp(delay=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()  # no delay: until the app has handled its pending messages
        assert isinstance(app.screen, SetupScreen)
        shown = app.screen.query_one("#name", Input).value
        assert shown == i18n.translate_in(lang, "the player's default name", "You")
        assert entered_name(shown) == "You"  # the default, which each language says
