"""The message catalogues are complete and current in every language.

Each message of the code (the ``unokit`` domain: the command line, the terminal game,
the server's error texts) and of the web client (the ``web`` domain) is extracted
here with Babel, exactly as ``make catalogues`` does, and must have a translation in
Russian, Georgian and Danish that is not empty, not fuzzy, and has the same
placeholders as the English; the compiled ``.mo`` files must say what the ``.po`` files
say; and the templates must list exactly the messages of the code.
"""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from unokit import i18n

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "unokit"
LOCALE = i18n.LOCALE_DIR
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]

PY_KEYWORDS = {
    "_": None, "gettext": None, "ngettext": (1, 2), "N_": None,
    "translate": (2,), "translate_plural": (2, 3), "Reason": None, "KeySpec": (6,),
    "pgettext": ((1, "c"), 2), "translate_in": ((2, "c"), 3),
}
WEB_KEYWORDS = {"_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}

PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}|%\([A-Za-z_]+\)[sd]|%[sd]")


def _ids(message_id: str | tuple[str, ...]) -> tuple[str, ...]:
    return message_id if isinstance(message_id, tuple) else (message_id,)


def extracted(domain: str) -> set[tuple[str | None, str]]:
    """The messages the code of ``domain`` uses now: (context, singular id)."""
    if domain == "unokit":
        found = extract_from_dir(
            SRC, method_map=[("**.py", "python")], keywords=PY_KEYWORDS,
            comment_tags=(), strip_comment_tags=True)
    else:
        found = extract_from_dir(
            SRC / "web" / "static", method_map=[("**.js", "javascript")],
            keywords=WEB_KEYWORDS, comment_tags=(), strip_comment_tags=True)
    out = set()
    for _filename, _lineno, message, _comments, context in found:
        first = _ids(message)[0]
        if first:
            out.add((context, first))
    return out


def catalogue(lang: str, domain: str) -> Catalog:
    path = LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
    assert path.is_file(), f"{path.relative_to(ROOT)} is missing: run make catalogues"
    with path.open("rb") as f:
        return read_po(f, locale=lang)


def template(domain: str) -> Catalog:
    with (LOCALE / f"{domain}.pot").open("rb") as f:
        return read_po(f)


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


@pytest.mark.parametrize("domain", i18n.DOMAINS)
def test_the_template_lists_exactly_the_messages_of_the_code(domain: str) -> None:
    listed = {(m.context, _ids(m.id)[0]) for m in template(domain) if m.id}
    code = extracted(domain)
    missing, extra = sorted(code - listed, key=str), sorted(listed - code, key=str)
    assert not missing, f"not in {domain}.pot (run make catalogues): {missing}"
    assert not extra, f"in {domain}.pot but not in the code: {extra}"


@pytest.mark.parametrize("domain", i18n.DOMAINS)
@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_translation(lang: str, domain: str) -> None:
    messages = {(m.context, _ids(m.id)[0]): m for m in catalogue(lang, domain) if m.id}
    missing, fuzzy, empty = [], [], []
    for msgid in sorted(extracted(domain), key=str):
        message = messages.get(msgid)
        if message is None:
            missing.append(msgid)
        elif message.fuzzy:
            fuzzy.append(msgid)
        elif not all(_ids(message.string)) or not _ids(message.string):
            empty.append(msgid)
    assert not missing, f"{lang}/{domain}.po lacks: {missing}"
    assert not fuzzy, f"{lang}/{domain}.po has fuzzy translations of: {fuzzy}"
    assert not empty, f"{lang}/{domain}.po has no translation of: {empty}"


def _forms(message: Message) -> list[tuple[str, str]]:
    """(English, translation) pairs to compare: each plural form against the plural id."""
    ids = _ids(message.id)
    strings = _ids(message.string)
    if len(ids) == 1:
        return [(ids[0], strings[0])]
    return [(ids[1], text) for text in strings]


@pytest.mark.parametrize("domain", i18n.DOMAINS)
@pytest.mark.parametrize("lang", TRANSLATED)
def test_placeholders_are_the_same_in_every_language(lang: str, domain: str) -> None:
    wrong = []
    for message in catalogue(lang, domain):
        if not message.id:
            continue
        for english, text in _forms(message):
            if text and placeholders(english) != placeholders(text):
                wrong.append(f"{english!r} -> {text!r}")
    assert not wrong, f"{lang}/{domain}.po: placeholders differ: {wrong}"


@pytest.mark.parametrize("domain", i18n.DOMAINS)
@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalogue_says_what_the_po_file_says(lang: str, domain: str) -> None:
    mo = LOCALE / lang / "LC_MESSAGES" / f"{domain}.mo"
    assert mo.is_file(), f"{mo.relative_to(ROOT)} is missing: run make catalogues"
    with mo.open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    stale = []
    for message in catalogue(lang, domain):
        if not message.id or message.fuzzy:
            continue
        ids, strings = _ids(message.id), _ids(message.string)
        context = message.context
        if len(ids) == 1:
            got_one = (compiled.pgettext(context, ids[0]) if context
                       else compiled.gettext(ids[0]))
            if got_one != (strings[0] or ids[0]):
                stale.append(ids[0])
        else:
            got = [compiled.npgettext(context, ids[0], ids[1], n) if context
                   else compiled.ngettext(ids[0], ids[1], n) for n in range(0, 30)]
            if any(text not in strings for text in got if text not in ids):
                stale.append(ids[0])
    assert not stale, f"{mo.relative_to(ROOT)} is stale (run make catalogues): {stale}"


def test_a_language_is_picked_from_the_browser_or_the_terminal() -> None:
    assert i18n.pick_language("ru-RU,ru;q=0.9") == "ru"
    assert i18n.pick_language("en-GB,ka;q=0.5") == "en"
    assert i18n.pick_language("de-DE,ka;q=0.5") == "ka"
    assert i18n.language_from_env({"LANG": "ka_GE.UTF-8"}) == "ka"
    assert i18n.language_from_env({"LANGUAGE": "fr:da", "LANG": "ru_RU.UTF-8"}) == "da"


def test_every_language_has_its_name_and_a_plural_rule() -> None:
    assert set(i18n.LANGUAGE_NAMES) == set(i18n.LANGUAGES)
    for lang in TRANSLATED:
        assert catalogue(lang, "web").plural_forms, lang
