"""What players may call themselves and say: names with something visible in them, and
no word of the server's word list in a name or a chat line.

A name (or a line) is read as NFKC-normalised text; zero-width characters, bidi and
other format controls, combining marks and white space are invisible, and a name made
only of them is refused. The word list (the setting ``word_list``: a UTF-8 file, one
word or phrase a line, ``#`` starts a comment) matches case-insensitively, after NFKC
and case folding, on word boundaries: ``ass`` refuses "ass" and "Ass!", not "class".
A refused name or line gets ``not_allowed``, and the error never says which word.

>>> visible("Ann"), visible("\\u200b\\u200d"), visible(" \\u0301 "), visible("\\u3000")
(True, False, False, False)
>>> words = WordList(["darn", "heck it"])
>>> words.matches("Oh DARN!"), words.matches("darning"), words.matches("Heck  it")
(True, False, True)
>>> fold("\uff21\uff2e\uff2e")  # fullwidth letters
'ann'
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from unokit.i18n import N_
from unokit.server.seating import RoomError

INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Me", "Zs", "Zl", "Zp"})
"""Unicode categories that show nothing by themselves (controls, format characters,
combining marks, spaces)."""
FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters that render as blanks (Hangul fillers, the blank Braille pattern)."""

WORDS_LIMIT = 10_000
"""The most words a word list may hold."""

NAME_REFUSED = N_("this name is not allowed: choose another")
LINE_REFUSED = N_("this chat line is not allowed")


def fold(text: str) -> str:
    """``text`` as names and words are compared: NFKC, case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def visible(text: str) -> bool:
    """Whether ``text`` (after NFKC) has at least one character that shows."""
    return any(unicodedata.category(c) not in INVISIBLE_CATEGORIES and c not in FILLERS
               for c in unicodedata.normalize("NFKC", text))


class WordList:
    """Words and phrases that names and chat lines may not contain."""

    def __init__(self, words: Iterable[str]) -> None:
        folded = sorted({" ".join(fold(w).split()) for w in words if w.strip()},
                        key=len, reverse=True)
        self.size = len(folded)
        self._pattern = (re.compile(r"(?<!\w)(?:" + "|".join(
            r"\s+".join(re.escape(part) for part in w.split()) for w in folded)
            + r")(?!\w)") if folded else None)

    def matches(self, text: str) -> bool:
        """Whether ``text`` contains a word of the list (as a whole word)."""
        return self._pattern is not None and self._pattern.search(fold(text)) is not None


EMPTY = WordList([])


@functools.lru_cache(maxsize=8)
def load_words(path: str) -> WordList:
    """The word list in the file ``path`` (empty path: no words); read once.

    Raises:
        OSError: the file cannot be read.
        ValueError: more than :data:`WORDS_LIMIT` words.
    """
    if not path:
        return EMPTY
    lines = [line.split("#", 1)[0].strip()
             for line in Path(path).read_text(encoding="utf-8").splitlines()]
    words = [line for line in lines if line]
    if len(words) > WORDS_LIMIT:
        raise ValueError(f"{path}: more than {WORDS_LIMIT} words")
    return WordList(words)


def check_name(name: str, words: WordList = EMPTY) -> None:
    """Refuse a name with nothing visible in it or with a word of ``words``.

    Raises:
        RoomError: ``bad_request`` (invisible) or ``not_allowed`` (a listed word).
    """
    if not visible(name):
        raise RoomError("bad_request", N_("a name needs at least one visible character"))
    if words.matches(name):
        raise RoomError("not_allowed", NAME_REFUSED)


def check_line(line: str, words: WordList = EMPTY) -> None:
    """Refuse a chat line with nothing visible in it or with a word of ``words``.

    Raises:
        RoomError: ``bad_request`` (invisible) or ``not_allowed`` (a listed word).
    """
    if not visible(line):
        raise RoomError("bad_request", N_("a chat line needs at least one visible "
                                          "character"))
    if words.matches(line):
        raise RoomError("not_allowed", LINE_REFUSED)
