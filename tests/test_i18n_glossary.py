"""The catalogues keep to the glossary, one register, and the plural forms.

``src/unokit/i18n/locale/glossary.toml`` gives one word per language for each card,
rule and table word; every message of both catalogues (``unokit``, ``web``) that has
the English term must say that word (a form of it), and none may say a word the
glossary replaced. Georgian addresses the player in one register (the formal თქვენ
of its seed). ``docs/glossary.md`` is written from the glossary.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from unokit import i18n
from unokit.i18n import glossary
from unokit.i18n.glossary import Entry, Term, Word

ROOT = Path(__file__).resolve().parent.parent
LOCALE = i18n.LOCALE_DIR
TERMS = glossary.load()

REQUIRED = {"card", "wild", "wild_draw_four", "draw_two", "skip", "reverse", "draw",
            "draw_pile", "discard_pile", "deck", "hand", "round", "match", "team",
            "partner", "catch", "challenge", "jump_in", "stack", "seat", "bot",
            "spectator", "room", "lobby", "uno", "colour", "deal", "player", "penalty",
            "house_rules", "launcher", "silence", "timer", "record", "preset", "turn",
            "guilty", "seed"}
"""The terms the glossary must have: the cards, the rules and the table."""


def catalogue(lang: str, domain: str) -> Catalog:
    with (LOCALE / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
        return read_po(f, locale=lang)


def entries(lang: str, domain: str) -> list[Entry]:
    out = []
    for message in catalogue(lang, domain):
        if not message.id:
            continue
        ids = (message.id,) if isinstance(message.id, str) else tuple(message.id)
        out.append(Entry(" | ".join(ids), message.string, message.context))
    return out


def test_the_glossary_has_every_card_rule_and_table_word_in_every_language() -> None:
    keys = {term.key for term in TERMS}
    assert keys >= REQUIRED, f"the glossary lacks {sorted(REQUIRED - keys)}"
    assert len(keys) == len(TERMS), "a term is listed twice"
    for term in TERMS:
        assert set(term.words) == set(glossary.LANGS), f"{term.key} lacks a language"
        for lang, word in term.words.items():
            assert word.word and word.forms, f"{term.key}/{lang} has no word"
            for pattern in (*word.forms, *word.avoid, term.match):
                re.compile(pattern)  # each is a valid regular expression
            # the chosen word is one of its own forms, and no avoided word
            assert any(re.search(form, word.word) for form in word.forms), (term.key, lang)
            assert not any(re.search(a, word.word) for a in word.avoid), (term.key, lang)


def test_each_term_finds_its_english_word() -> None:
    for term in TERMS:
        assert re.search(term.match, term.en), f"{term.key}: {term.match!r} misses {term.en!r}"


@pytest.mark.parametrize("domain", i18n.DOMAINS)
@pytest.mark.parametrize("lang", glossary.LANGS)
def test_each_term_is_said_one_way(lang: str, domain: str) -> None:
    found = glossary.violations(TERMS, lang, entries(lang, domain))
    assert not found, f"{lang}/{domain}.po strays from the glossary:\n" + "\n".join(found)


def test_the_check_finds_a_term_said_two_ways() -> None:
    """The check itself: a Danish catalogue with Reverse as both "Skift retning" and
    "Retur" (the word the glossary replaced), and a Russian «Дикая» Wild, fail."""
    reverse = next(t for t in TERMS if t.key == "reverse")
    wild = next(t for t in TERMS if t.key == "wild")
    danish = [Entry("Reverse", "Skift retning"), Entry("A Reverse sends a penalty back.",
                                                       "En Retur sender straffen tilbage.")]
    found = glossary.violations([reverse], "da", danish)
    assert found == ['A Reverse sends a penalty back.: "En Retur sender straffen tilbage." '
                     'says none of Skift retning',
                     'A Reverse sends a penalty back.: "En Retur sender straffen tilbage." '
                     'says "Retur" (use Skift retning)']
    assert glossary.violations([reverse], "da", danish[:1]) == []
    russian = [Entry("After a Wild", "После «Дикой»")]
    assert len(glossary.violations([wild], "ru", russian)) == 2
    # declension passes: a form is a stem
    assert glossary.violations([wild], "ru", [Entry("After a Wild", "После «Смены цвета»")]) == []


def test_a_term_in_a_plural_message_is_checked_in_every_form() -> None:
    term = Term("card", "card", "", r"(?i)\bcards?\b", (),
                {"ru": Word("карта", ("карт",))})
    entry = Entry("{n} card | {n} cards", ("{n} карта", "{n} карты", "{n} штук"))
    assert glossary.violations([term], "ru", [entry]) == [
        '{n} card | {n} cards: "{n} штук" says none of карта']


def test_the_glossary_doc_is_current() -> None:
    doc = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    assert doc == glossary.markdown(TERMS), (
        "docs/glossary.md is stale: python -m unokit.i18n.glossary > docs/glossary.md")


# Georgian: the formal register of the seed (თქვენ, imperatives in -ეთ) everywhere a
# message speaks to the player. Card names in «» are names («აიღე ორი») and stay.
KA_INFORMAL = re.compile(
    r"(?<![ა-ჰ])(შენ|შენი|შენს|შენმა|შენთვის|შენით|შენზე|ხარ|გაქვს|შეგიძლია|გინდა|"
    r"გელოდება|დაგრჩა|მოიგე|წააგე|უყურებ|ითამაშე|აირჩიე|დააჭირე|დაასახელე|დაიჭირე|"
    r"გააპროტესტე|გაასაჩივრე|ჩაერიე|უპასუხე|აიღე|დაწერე|გაუგზავნე|შექმენი|მიეცი|"
    r"დააბრუნე|გაეცი|თქვი|დაარტყი|ფიქრობ|შეძლებ|ითამაშო|ითამაშებ|იმოქმედო|იმოქმედებ|"
    r"მისცე|ცვლი|დაგიჭერს|გიშველის|მიიღე|გამოაცხადე|დატოვე|სცადე|გახსენი)(?![ა-ჰ])")


def _outside_names(text: str) -> str:
    return re.sub(r"«[^»]*»", "«»", text)


@pytest.mark.parametrize("domain", i18n.DOMAINS)
def test_georgian_speaks_to_the_player_in_one_register(domain: str) -> None:
    informal = []
    for entry in entries("ka", domain):
        for text in entry.forms():
            hit = KA_INFORMAL.search(_outside_names(text))
            if hit:
                informal.append(f"{entry.english!r} -> {text!r} ({hit.group(0)})")
    assert not informal, "informal Georgian (use the formal თქვენ forms):\n" + "\n".join(informal)


def test_the_register_check_finds_an_informal_form() -> None:
    assert KA_INFORMAL.search(_outside_names("შენი სვლაა"))
    assert KA_INFORMAL.search(_outside_names("დაასახელე ფერი"))
    assert not KA_INFORMAL.search(_outside_names("თქვენი სვლაა: დაასახელეთ ფერი"))
    assert not KA_INFORMAL.search(_outside_names("«აიღე ორი» შემდეგს გადაეცემა"))
    assert not KA_INFORMAL.search(_outside_names("შენიშვნა"))  # "a note", not "your"


@pytest.mark.parametrize("domain", i18n.DOMAINS)
def test_georgian_glues_no_case_ending_to_a_name(domain: str) -> None:
    """"{who}-ს", "{card}-ს": a hyphenated ending reads wrong on a Georgian or a
    vowel-final name ("მოთამაშე-ს", "მწვანე გამოტოვება-ს"); the messages keep names and
    cards in the nominative (after a colon, or as the subject)."""
    glued = re.compile(r"\{(who|target|name|mate|winner|card|cards|color|colour)\}-[ა-ჰ]")
    wrong = [f"{entry.english!r} -> {text!r}" for entry in entries("ka", domain)
             for text in entry.forms() if glued.search(text)]
    assert not wrong, "\n".join(wrong)
