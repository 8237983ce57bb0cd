"""The terminal game in the current language (the terminal's at start, ``LANG``), and
``l`` (or F2) switching it live: the table, its buttons, its status and the whole log are
said again. English is what the snapshot tests see."""



from __future__ import annotations

from typing import Any

import pytest

from unokit import i18n
from unokit.engine.cards import parse_card
from unokit.engine.game import Game
from unokit.engine.rules import PRESET_MEANINGS, Rules
from unokit.tui import PlayApp, Session
from unokit.tui.setup_screen import PRESET_WORDS, SetupScreen
from unokit.tui.table_screen import TableScreen
from unokit.tui.widgets import KeyButton

pytestmark = pytest.mark.usefixtures("instant_buttons")

SIZE = (100, 30)


def session() -> Session:
    game = Game.from_setup("official,players=2",
                           hands=[[parse_card(c) for c in ("R5", "G7", "B1")],
                                  [parse_card(c) for c in ("Y3", "Y4")]],
                           draw_pile=[parse_card(c) for c in ("Y1", "Y2", "Y5", "Y6")],
                           discard=[parse_card("R3")], current_player=0)
    return Session.for_game(game, ["playfirst"])


def shown(app: Any, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def label(app: Any, name: str) -> str:
    return str(app.screen.query_one(f"#btn-{name}", KeyButton).label)


@pytest.mark.asyncio
async def test_the_table_in_russian() -> None:
    i18n.set_language("ru")
    app = PlayApp(session=session(), delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert "Ваш ход: " in shown(app, "#status")
        assert label(app, "draw") == "Взять d"
        assert "колода 4" in shown(app, "#table") and "Раунд 1" in shown(app, "#table")
        await pilot.press("3")  # B1 does not match R3: the engine's reason, in Russian
        assert "B1 не подходит к верхней карте и цвету" in shown(app, "#status")
        log = "\n".join(line.plain for line in app.session.lines) if app.session else ""
        assert "Стартовая карта" in log or "получает" in log


@pytest.mark.asyncio
async def test_l_switches_the_language_live() -> None:
    app = PlayApp(session=session(), delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert label(app, "draw") == "Draw d"
        assert "Your turn: " in shown(app, "#status")
        await pilot.press("l")  # English -> Russian
        await pilot.pause()
        assert i18n.current_language() == "ru"
        assert label(app, "draw") == "Взять d"
        assert "Ваш ход: " in shown(app, "#status")
        assert app.session is not None
        assert not any("deals" in line.plain for line in app.session.lines)
        await pilot.press("f2")  # Russian -> Georgian
        await pilot.pause()
        assert label(app, "draw") == "აღება d"
        assert "თქვენი სვლაა: " in shown(app, "#status")
        await pilot.press("l", "l")  # Danish, then English again
        await pilot.pause()
        assert label(app, "draw") == "Draw d"


@pytest.mark.asyncio
async def test_the_setup_screen_keeps_what_was_entered() -> None:
    app = PlayApp(delay=0, seed=11)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        app.screen.query_one("#seed").value = "42"  # type: ignore[attr-defined]
        await pilot.press("l")
        await pilot.pause()
        assert "новая партия" in shown(app, "#setup-title")
        assert app.screen.query_one("#seed").value == "42"  # type: ignore[attr-defined]


def test_the_languages_go_round() -> None:
    order = ["en"]
    for _step in range(4):
        order.append(i18n.next_language(order[-1]))
    assert order == ["en", "ru", "ka", "da", "en"]


def test_the_preset_meanings_are_the_engines_and_translated() -> None:
    assert set(PRESET_WORDS) == set(PRESET_MEANINGS.values())
    for meaning in PRESET_WORDS:
        for lang in ("ru", "ka", "da"):
            assert i18n.translate(lang, meaning) != meaning, (lang, meaning)


@pytest.mark.asyncio
async def test_the_replay_viewer_switches_with_f2() -> None:
    from unokit.bots import make_bot, play
    from unokit.formats.record import Record
    from unokit.tui import ReplayApp, load_frames

    game = Game(Rules.preset("official", players=2, rounds=1), 6)
    for _step in play(game, [make_bot("playfirst", seat) for seat in range(2)]):
        pass
    record = Record.from_dict(Record.from_game(game).to_dict())
    app = ReplayApp(record, load_frames(record), title="match.json", delay=600.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right")
        assert "Step 1/" in str(app.query_one("#step").render())
        await pilot.press("f2")
        assert i18n.current_language() == "ru"
        assert "Шаг 1/" in str(app.query_one("#step").render())
        assert "вид зрителя" in str(app.query_one("#title").render())
        assert "Колода" in str(app.query_one("#table").render())
