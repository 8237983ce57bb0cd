"""The glossary: one word per language for each card, rule and table word.

``locale/glossary.toml`` lists the terms (see its header). :func:`load` reads it,
:func:`violations` says where a catalogue strays from it (a message whose English
has the term but whose translation says none of its forms, or a message that says a
word the glossary replaced), and :func:`markdown` writes ``docs/glossary.md``
(``python -m unokit.i18n.glossary > docs/glossary.md``).

>>> terms = {t.key: t for t in load()}
>>> terms["wild_draw_four"].words["ru"].word
'«Возьми четыре»'
>>> rule = Term("skip", "Skip", "", r"(?i)\\bskip\\b", (),
...             {"da": Word("Spring over", ("Spring over",), ("Hop over",))})
>>> violations([rule], "da", [Entry("Skip", "Hop over")])
['Skip: "Hop over" says none of Spring over', 'Skip: "Hop over" says "Hop over" (use Spring over)']
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

GLOSSARY = Path(__file__).resolve().parent / "locale" / "glossary.toml"
"""The glossary's file."""

LANGS = ("ru", "ka", "da")
"""The languages the glossary covers (English is the source)."""

LANG_TITLES = {"ru": "Russian (русский)", "ka": "Georgian (ქართული)", "da": "Danish (dansk)"}


@dataclass(frozen=True)
class Word:
    """A term's word in one language."""

    word: str
    """The chosen word, as the docs show it."""
    forms: tuple[str, ...]
    """Regular expressions (any case): a message that has the term says one of them."""
    avoid: tuple[str, ...] = ()
    """Regular expressions (case as written) of the words it replaces: no message says
    them."""


@dataclass(frozen=True)
class Term:
    """A card, rule or table word and its word in each language."""

    key: str
    en: str
    note: str
    match: str
    """A regular expression that finds the term in an English message."""
    skip: tuple[str, ...]
    """English messages where the word means something else."""
    words: dict[str, Word]


@dataclass(frozen=True)
class Entry:
    """A message of a catalogue: its English (the singular and plural ids joined) and
    each translated form."""

    english: str
    text: str | tuple[str, ...]
    context: str | None = None

    def forms(self) -> tuple[str, ...]:
        """Every translated form (one, or one per plural form)."""
        return (self.text,) if isinstance(self.text, str) else self.text


def load(path: Path = GLOSSARY) -> list[Term]:
    """The terms of the glossary file."""
    with path.open("rb") as f:
        data = tomllib.load(f)
    terms = []
    for raw in data["term"]:
        words = {lang: Word(raw[lang]["word"], tuple(raw[lang]["forms"]),
                            tuple(raw[lang].get("avoid", ())))
                 for lang in LANGS if lang in raw}
        terms.append(Term(raw["key"], raw["en"], raw.get("note", ""), raw["match"],
                          tuple(raw.get("skip", ())), words))
    return terms


def violations(terms: Iterable[Term], lang: str, entries: Iterable[Entry]) -> list[str]:
    """Where ``entries`` (a catalogue of ``lang``) stray from ``terms``: a message whose
    English has a term and a form that says none of its forms, and a form that says an
    avoided word. Empty when the catalogue keeps to the glossary."""
    terms = list(terms)
    found: list[str] = []
    for entry in entries:
        english = plain_english(entry.english)
        for term in terms:
            word = term.words.get(lang)
            if word is None:
                continue
            for text in entry.forms():
                if (entry.english not in term.skip and re.search(term.match, english)
                        and not any(re.search(form, text, re.IGNORECASE) for form in word.forms)):
                    found.append(f'{entry.english}: "{text}" says none of {word.word}')
                for avoided in word.avoid:
                    hit = re.search(avoided, text)
                    if hit:
                        found.append(f'{entry.english}: "{text}" says "{hit.group(0)}" '
                                     f"(use {word.word})")
    return found


_NOT_WORDS = re.compile(
    r"\{[A-Za-z_]\w*\}"          # a placeholder: {card} is a card's name, not the word
    r"|--[\w-]+"                  # a command-line option: --room, --bots
    r"|\b\w+=\S*"                 # a rule override: rounds=2, deck=attack
    r"|\b[a-z]+(?:_[a-z0-9]+)+\b"  # a rule key: wild_draw_four, silence_penalty
    r"|\b\w+://\S+")               # an address: http://HOST:PORT


def plain_english(text: str) -> str:
    """``text`` without what is not English prose (placeholders, command-line options,
    rule keys and values, addresses), where a term is not looked for.

    >>> plain_english("--room needs {card} and rounds=2 at http://HOST:PORT")
    '  needs   and   at  '
    """
    return _NOT_WORDS.sub(" ", text)


def markdown(terms: Sequence[Term]) -> str:
    """``docs/glossary.md``: a table per language."""
    out = ["# Glossary", "",
           "The words of the cards, the rules and the table, one per language, which",
           "every message of the terminal game, the command line, the server and the web",
           "client uses. It is written from `src/unokit/i18n/locale/glossary.toml`",
           "(`python -m unokit.i18n.glossary > docs/glossary.md`), and",
           "`tests/test_i18n_glossary.py` fails when a catalogue says a term another way.",
           "", "The product and the call keep the Latin **UNO** in every language. Card",
           "names are written as names: in quotes in Russian (and not declined: «Возьми",
           "две», not «Возьми двух») and Georgian (declined inside the quotes: «აიღე ორს»,",
           "never «აიღე ორი»-ს), as they are in Danish; a Danish",
           "log line marks a card off with »…« (»gul Spring over«). Georgian speaks to the",
           "player in the formal register (თქვენ) of its seed, Russian with «вы», Danish",
           "with \"du\". The card codes of the terminal (R5, YS, W+4) are the English",
           "initials in every language, beside the colour's symbol (♥ ★ ♣ ♦).", ""]
    for lang in LANGS:
        out += [f"## {LANG_TITLES[lang]}", "", "| English | word | not | meaning |",
                "|---|---|---|---|"]
        for term in terms:
            word = term.words.get(lang)
            if word is None:
                continue
            avoided = ", ".join(_plain(a) for a in word.avoid)
            out.append(f"| {term.en} | {word.word} | {avoided} | {term.note} |")
        out.append("")
    return "\n".join(out)


def _plain(pattern: str) -> str:
    """An avoided word's pattern as a reader sees it (its regular expression syntax
    dropped)."""
    text = re.sub(r"\(\?i\)|\(\?<!?[^)]*\)|\\b|\\w\*|\(\?![^)]*\)", "", pattern)
    text = text.replace("?", "").replace("\\", "")
    return text.replace("|", " / ")


if __name__ == "__main__":
    sys.stdout.write(markdown(load()))
