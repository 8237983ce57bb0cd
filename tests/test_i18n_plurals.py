"""Every number is said with the right plural and case forms.

Russian has three plural forms (1 карта, 2 карты, 5 карт) and Danish two; Georgian
keeps the noun singular after a number. A message that counts one thing ("{n} cards")
is an ``ngettext`` message with a form per number; a message with a number the
catalogue cannot count (a server limit given as a template, or two numbers at once)
puts the number where no noun agrees with it ("байт: {size}", "højst {limit} tegn").
"""

from __future__ import annotations

import re

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from unokit import i18n

LOCALE = i18n.LOCALE_DIR

NUMBERS = {"n", "limit", "seconds", "bots", "players", "given", "opponents", "seats", "size",
           "tables", "lines", "depth", "names", "hand_size", "deck_size", "failed",
           "points", "count", "level"}
"""The placeholders that hold a number (the others hold names, cards, texts)."""

NOUNS = ("cards|points|pts|rounds|players|seats|bots|seconds|characters|bytes|levels|deals|"
         "rooms|connections|lines|names|actions|policies|tables|opponents|checks|changes|"
         "times|spectators|contributions")
COUNTED = re.compile(r"\{(\w+)\}\s+(?:(?:chat|bot|player|printable)\s+)?(" + NOUNS + r")\b")
"""A number followed by an English plural noun, perhaps after a word that qualifies it:
"{n} cards", "{lines} chat lines"."""

UNCOUNTED = {
    # a server or engine limit: a template the server fills in each reader's language,
    # with no count to choose a form by; its translations put the number last
    "JSON nests at most {limit} levels deep", "a bot spec is at most {limit} characters",
    "a chat line is 1-{limit} characters", "a message is at most {limit} bytes",
    "a name is 1-{limit} printable characters",
    "a request body is at most {limit} bytes",
    "a search bot makes at most {limit} deals per decision on this server",
    "not valid JSON: nested more than {depth} levels deep",
    "not valid TOML: nested more than {depth} levels deep",
    "your address has {limit} rooms waiting for players: start or leave one first",
    "your address holds {limit} connections: close one first",
    "too many attempts: try again in {seconds} seconds",
    "the events digest does not match after {n} actions: {why}",
    # two numbers in one message
    "--bots: {bots} bots for {players} players",
    "--bots: {given} bot levels for {opponents} opponents",
    "--policy: {given} policies for {seats} seats", "{bots} bots for {seats} seats",
    "{names} player names for {seats} seats", "players: {names} names for {seats} seats",
    "Backed up to {path} ({size} bytes, {tables} tables).",
    "at most {lines} chat lines in {seconds} seconds: wait a moment",
    "there is no seat {seat} with {players} players",
    "{players} hands of {hand_size} need more than the {deck_size} cards of the deck",
}
"""Messages with a counted number that are not ngettext messages, and why."""

INVARIANT = {
    "ru": {"\u0441", "оч", "симв", "за", "из", "и"},  # \u0441: the seconds sign
    "da": {"s", "kort", "point", "tegn", "byte", "træk", "bidrag", "p", "rum", "på", "à", "og"},
}
"""Words that read right after any number (units, nouns whose plural is the singular,
prepositions)."""


def catalogue(lang: str, domain: str) -> Catalog:
    with (LOCALE / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
        return read_po(f, locale=lang)


def template(domain: str) -> Catalog:
    with (LOCALE / f"{domain}.pot").open("rb") as f:
        return read_po(f)


def counts(english: str) -> bool:
    """Whether ``english`` counts something with a number placeholder."""
    return any(match.group(1) in NUMBERS for match in COUNTED.finditer(english))


def test_the_check_tells_a_count_from_a_name() -> None:
    assert counts("{n} cards in the pile")
    assert counts("at most {lines} chat lines")
    assert not counts("{who} draws {card}")
    assert not counts("Round {n} is over")


@pytest.mark.parametrize("domain", i18n.DOMAINS)
def test_every_counted_message_is_an_ngettext_message(domain: str) -> None:
    wrong = [m.id for m in template(domain)
             if isinstance(m.id, str) and m.id and counts(m.id) and m.id not in UNCOUNTED]
    assert not wrong, f"{domain}: say these with ngettext(singular, plural, n): {wrong}"


def test_every_uncounted_message_exists() -> None:
    ids = {m.id for domain in i18n.DOMAINS for m in template(domain) if isinstance(m.id, str)}
    assert ids >= UNCOUNTED, sorted(UNCOUNTED - ids)


@pytest.mark.parametrize("lang", ["ru", "da"])
def test_an_uncounted_number_has_no_noun_to_agree_with(lang: str) -> None:
    """In a language with plural forms, the number of an uncounted message is not
    followed by a noun that would change with it ("не больше {limit} байт" is wrong
    for 2: "байта")."""
    wrong = []
    for domain in i18n.DOMAINS:
        for message in catalogue(lang, domain):
            if message.id not in UNCOUNTED or not isinstance(message.string, str):
                continue
            for match in re.finditer(r"\{(\w+)\}\s+([^\W\d_]+)", message.string):
                if match.group(1) in NUMBERS and match.group(2) not in INVARIANT[lang]:
                    wrong.append(f"{message.id!r} -> {message.string!r} ({match.group(0)})")
    assert not wrong, f"{lang}: a number a noun agrees with:\n" + "\n".join(wrong)


@pytest.mark.parametrize("lang,forms", [("ru", 3), ("ka", 2), ("da", 2)])
def test_each_language_has_its_plural_forms(lang: str, forms: int) -> None:
    for domain in i18n.DOMAINS:
        cat = catalogue(lang, domain)
        assert cat.num_plurals == forms, (lang, domain, cat.plural_forms)
        for message in cat:
            if message.id and not isinstance(message.id, str):
                assert len(message.string) == forms, (lang, message.id)


@pytest.mark.parametrize("n,form", [(1, "карта"), (2, "карты"), (5, "карт"), (11, "карт"),
                                    (21, "карта"), (22, "карты"), (112, "карт")])
def test_russian_counts_cards_with_three_forms(n: int, form: str) -> None:
    assert i18n.translate_plural("ru", "{n} card", "{n} cards", n) == f"{n} {form}"
