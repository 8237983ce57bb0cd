"""Names and chat lines: a name with nothing visible (zero-width, bidi and format
controls, combining marks, blank fillers, white space of any kind) is refused, and the
word list (the setting ``word_list``) refuses names and chat lines on word boundaries,
after NFKC and case folding, without naming the word."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from server_harness import running_server, server_settings
from unokit.client import ClientError, GameClient
from unokit.client.client import ActionRefused
from unokit.server.moderation import (
    INVISIBLE_CATEGORIES,
    WordList,
    check_line,
    check_name,
    load_words,
    visible,
)
from unokit.server.seating import RoomError
from unokit.server.settings import Settings, SettingsError

INVISIBLE_NAMES = ["\u200b", "\u200b\u200c\u200d\u2060", "\u202e\u202c", "\u0301\u0308",
                   " \u3000 \u00a0", "\u3164\u3164", "\u2800", "\ufeff", "\u115f",
                   "\u034f", "\u180e", "\u2061\u2062"]


@pytest.mark.parametrize("name", INVISIBLE_NAMES)
def test_invisible_names_are_refused(name: str) -> None:
    assert not visible(name)
    with pytest.raises(RoomError) as caught:
        check_name(name)
    assert caught.value.code == "bad_request"


@pytest.mark.parametrize("name", ["Ann", "Zoë", "王芳", "ლაშა", "Борис", "a\u0301", "😀",
                                  "\u200bBob"])
def test_visible_names_pass(name: str) -> None:
    assert visible(name)
    check_name(name)


@given(st.text(alphabet=st.characters(whitelist_categories=tuple(INVISIBLE_CATEGORIES)),
               max_size=12))
def test_nothing_made_of_invisible_characters_is_visible(text: str) -> None:
    assert not visible(text)


def test_the_word_list_matches_whole_words_folded() -> None:
    words = WordList(["darn", "Heck it", "\uff46\uff4f\uff4f"])
    for hit in ("darn", "DARN", "oh, darn!", "\uff24\uff21\uff32\uff2e", "heck   it",
                "well heck it.", "foo"):
        assert words.matches(hit), hit
    for miss in ("darning", "undarn", "heckit", "food", ""):
        assert not words.matches(miss), miss
    with pytest.raises(RoomError) as caught:
        check_line("oh darn", words)
    assert caught.value.code == "not_allowed"
    assert "darn" not in caught.value.message
    with pytest.raises(RoomError) as named:
        check_name("Darn", words)
    assert named.value.code == "not_allowed"


def test_a_word_list_file(tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_text("# the host's words\nbadword\n\n  rude phrase  # trailing comment\n")
    words = load_words(str(path))
    assert words.size == 2
    assert words.matches("a Rude  Phrase") and words.matches("BADWORD")
    assert Settings.from_env({"UNOKIT_WORD_LIST": str(path)}).word_list == str(path)
    with pytest.raises(SettingsError, match="UNOKIT_WORD_LIST: no such file"):
        Settings.from_env({"UNOKIT_WORD_LIST": str(tmp_path / "none.txt")})


@pytest.mark.asyncio
async def test_the_server_refuses_names_and_lines(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("darn\n")
    settings = server_settings(f"sqlite:///{tmp_path / 'unokit.db'}", word_list=str(words))
    async with running_server(settings) as server:
        async with httpx.AsyncClient() as http:
            code = (await http.post(server.url + "/api/rooms", json={})).json()["code"]
        with pytest.raises(ClientError, match="bad_request"):
            await GameClient.join(server.url, code, name="\u200b\u0301")
        with pytest.raises(ClientError, match="not_allowed: this name is not allowed"):
            await GameClient.join(server.url, code, name="Mr DARN")
        assert all(s.kind == "empty" for s in server.rooms.get(code).seats)
        ann = await GameClient.join(server.url, code, name="Ann")
        with pytest.raises(ActionRefused) as refused:
            await ann.chat("well, darn.")
        assert refused.value.code == "not_allowed"
        with pytest.raises(ActionRefused) as blank:
            await ann.chat("\u0301\u0301")
        assert blank.value.code == "bad_request"
        await ann.chat("darning socks")
        await ann.wait_for(lambda c: len(c.chat_lines) == 1)
        assert [line["text"] for line in ann.chat_lines] == ["darning socks"]
        await ann.close()
