"""Languages: the message catalogues of the terminal game, the command line, the
server's error texts and the web client, in English, Russian, Georgian and Danish.

The catalogues are gettext catalogues made with Babel (``make catalogues``): the
templates ``locale/unokit.pot`` (Python code) and ``locale/web.pot`` (the web
client), one ``.po`` per language and domain, and the compiled ``.mo`` files, which
this module reads with the standard library's :mod:`gettext`. English is the source
language: its text is the message id itself.

>>> catalogue("ru")["Play now"]
'Играть сейчас'
>>> translate("xx", "Play now")  # an unknown language falls back to English
'Play now'
>>> pick_language("da-DK,da;q=0.9,en;q=0.8"), pick_language("ka_GE.UTF-8")
('da', 'ka')
>>> pick_language("fr-FR, de"), pick_language(None)
('en', 'en')

A message with placeholders names them, ``{name}``, and is formatted after it is
translated, so that every language may move them:

>>> translate("en", "{name} joined", name="Ana")
'Ana joined'

A short message that could be read two ways (``Draw``: the button, a verb, or the
noun?) carries a context, gettext's ``msgctxt``, which the translators see and which
keeps each reading a message of its own (:func:`pgettext`, :func:`translate_in`):

>>> translate_in("da", "verb: the button that draws a card", "Draw")
'Træk'
>>> translate_in("da", "the list of every legal move", "Actions")
'Alle træk'

The words of the cards, the rules and the table are the same in every message of a
language: ``locale/glossary.toml`` lists them (``docs/glossary.md`` shows it), and
``tests/test_i18n_glossary.py`` holds both catalogues to it.
"""

from __future__ import annotations

import gettext as _gettext
import os
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

LANGUAGES: tuple[str, ...] = ("en", "ru", "ka", "da")
"""The languages, English (the source) first."""

LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "ru": "Русский",
    "ka": "ქართული",
    "da": "Dansk",
}
"""Each language's name in that language (for a language switch)."""

DEFAULT = "en"

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
"""Where the catalogues lie: ``LOCALE_DIR/<lang>/LC_MESSAGES/<domain>.mo``."""

DOMAINS = ("unokit", "web")
"""``unokit``: the Python code's messages; ``web``: the web client's."""

_current = DEFAULT


def pick_language(wanted: str | Iterable[str] | None) -> str:
    """The first of ``wanted`` that unokit speaks, else English.

    ``wanted`` is an HTTP ``Accept-Language`` value (its order kept, its weights
    ignored), a POSIX locale name (``ru_RU.UTF-8``), a ``LANGUAGE`` list
    (``da:en``), or several of these.

    >>> pick_language(["fr", "ru-RU"]), pick_language("C.UTF-8")
    ('ru', 'en')
    """
    if wanted is None:
        return DEFAULT
    items = [wanted] if isinstance(wanted, str) else list(wanted)
    for item in items:
        for part in re.split(r"[,:]", item):
            tag = part.split(";")[0].strip().lower()
            code = re.split(r"[-_.@]", tag)[0]
            if code in LANGUAGES:
                return code
    return DEFAULT


def language_from_env(environ: Mapping[str, str] | None = None) -> str:
    """The terminal's language: ``UNOKIT_LANG``, else the first of ``LANGUAGE``,
    ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set, as gettext reads them.

    >>> language_from_env({"LANG": "da_DK.UTF-8"}), language_from_env({})
    ('da', 'en')
    >>> language_from_env({"UNOKIT_LANG": "ka", "LANG": "ru_RU.UTF-8"})
    'ka'
    """
    env = os.environ if environ is None else environ
    for key in ("UNOKIT_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(key)
        if value:
            return pick_language(value)
    return DEFAULT


@cache
def translations(lang: str, domain: str = "unokit") -> _gettext.NullTranslations:
    """The catalogue of ``lang`` and ``domain`` (English, the message ids, for an
    unknown language or a missing catalogue)."""
    if lang not in LANGUAGES or lang == DEFAULT:
        return _gettext.NullTranslations()
    return _gettext.translation(domain, LOCALE_DIR, languages=[lang], fallback=True)


def translate(lang: str, message: str, /, **params: object) -> str:
    """``message`` in ``lang``, its ``{placeholders}`` filled from ``params``."""
    text = translations(pick_language(lang)).gettext(message)
    return text.format(**params) if params else text


def translate_in(lang: str, context: str, message: str, /, **params: object) -> str:
    """``message`` in ``lang`` as it reads in ``context`` (its ``msgctxt``), filled from
    ``params``.

    >>> translate_in("en", "the seat is not taken", "free")
    'free'
    """
    text = translations(pick_language(lang)).pgettext(context, message)
    return text.format(**params) if params else text


def translate_plural(lang: str, singular: str, plural: str, n: int, /,
                     **params: object) -> str:
    """The form of ``singular``/``plural`` for ``n`` in ``lang``; ``{n}`` is ``n``.

    >>> translate_plural("en", "{n} card", "{n} cards", 3)
    '3 cards'
    """
    text = translations(pick_language(lang)).ngettext(singular, plural, n)
    return text.format(n=n, **params)


def render(lang: str, template: str, params: Mapping[str, object] | None = None) -> str:
    """``template`` in ``lang`` with ``params`` filled in; a parameter that is itself a
    message with a template (an engine :class:`~unokit.engine.errors.Reason`, a room's
    error) is said in ``lang`` too.

    >>> render("en", "seat {seat} is not free", {"seat": 2})
    'seat 2 is not free'
    """
    values = {key: localize(lang, value) if hasattr(value, "template") else value
              for key, value in (params or {}).items()}
    return translate(lang, template, **values)


def localize(lang: str, message: object) -> str:
    """A message in ``lang``: one that keeps its ``template`` and ``params`` (as
    :class:`~unokit.engine.errors.Reason` and the server's errors do) is translated
    and filled; any other is translated as it is (English when the catalogue lacks it).

    >>> localize("en", "the match is over")
    'the match is over'
    """
    template = getattr(message, "template", None)
    if isinstance(template, str):
        return render(lang, template, getattr(message, "params", None))
    return translate(lang, str(message))


def set_language(lang: str) -> str:
    """Make ``lang`` the language of :func:`_` (the terminal's, the command line's);
    returns the language chosen."""
    global _current
    _current = pick_language(lang)
    return _current


def next_language(lang: str) -> str:
    """The language after ``lang`` in :data:`LANGUAGES`, round (for a language switch).

    >>> next_language("en"), next_language("da")
    ('ru', 'en')
    """
    lang = pick_language(lang)
    return LANGUAGES[(LANGUAGES.index(lang) + 1) % len(LANGUAGES)]


def current_language() -> str:
    """The language :func:`_` speaks now."""
    return _current


def _(message: str, /, **params: object) -> str:
    """``message`` in the current language (:func:`set_language`), formatted.

    >>> _("Play now")
    'Play now'
    """
    return translate(_current, message, **params)


def pgettext(context: str, message: str, /, **params: object) -> str:
    """``message`` as it reads in ``context``, in the current language
    (:func:`translate_in`).

    >>> pgettext("verb: the button that draws a card", "Draw")
    'Draw'
    """
    return translate_in(_current, context, message, **params)


def ngettext(singular: str, plural: str, n: int, /, **params: object) -> str:
    """The plural form for ``n`` in the current language (:func:`translate_plural`)."""
    return translate_plural(_current, singular, plural, n, **params)


def N_(message: str, /) -> str:
    """Mark ``message`` for the catalogue and return it untranslated (it is
    translated later, where its language is known).

    >>> N_("not your turn")
    'not your turn'
    """
    return message


def catalogue(lang: str, domain: str = "web") -> dict[str, str | list[str]]:
    """Every translated message of ``lang`` in ``domain``: message id to text, or to
    the list of plural forms for a plural message (keyed by its singular id), for a
    client that translates by itself (the web client). A message with a context is
    keyed ``context + "\\x04" + id``, as gettext keys it. Empty for English.

    >>> catalogue("en")
    {}
    """
    table = translations(pick_language(lang), domain)
    raw: dict[object, str] = getattr(table, "_catalog", {})
    out: dict[str, str | list[str]] = {}
    plurals: dict[str, dict[int, str]] = {}
    for key, text in raw.items():
        if isinstance(key, tuple):
            msgid, index = key
            plurals.setdefault(str(msgid), {})[int(index)] = text
        elif key and text:
            out[str(key)] = text
    for msgid, forms in plurals.items():
        out[msgid] = [forms[i] for i in sorted(forms)]
    return out


def plural_rule(lang: str) -> str:
    """The ``Plural-Forms`` expression of ``lang``'s catalogue (C syntax, ``n``).

    >>> plural_rule("en")
    'n != 1'
    """
    table = translations(pick_language(lang), "web")
    info = table.info() if isinstance(table, _gettext.GNUTranslations) else {}
    rule = info.get("plural-forms", "")
    match = re.search(r"plural=(.*?);?\s*$", rule)
    return match.group(1).strip() if match else "n != 1"
