"""The terminal game's flows, by keyboard and by mouse: the colour picker, the challenge
prompt (accept, challenge, answer), UNO calls and catches, the exchange of a five,
slaps and silence, drawing and keeping, cancelling a choice, the help and quit
dialogs, the log, the round and match end screens (their points are the engine's),
saving a record and stepping through it in the replay viewer, every field of the setup
screen, ten players at 80x24, the colour symbols and the bots' delay.

Bots here are scripted (:class:`Scripted`) or ``playfirst``; a bot's delay is either 0
or so long that its timer never fires during a test, except where the timer itself is
replaced, and buttons have no press effect (the ``instant_buttons`` fixture: Textual's
``Button`` ignores clicks during it), so no test depends on the wall clock."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, OptionList, RichLog

from unokit.bots import make_bot, play
from unokit.engine import actions as A
from unokit.engine.cards import WILD, parse_card
from unokit.engine.events import EventKind
from unokit.engine.game import Game, Phase
from unokit.engine.observation import Observation
from unokit.engine.rules import PRESET_MEANINGS, PRESETS, Rules
from unokit.formats.record import Record
from unokit.text.transcript import describe_event
from unokit.tui import PlayApp, PlayConfig, ReplayApp, Session, load_frames
from unokit.tui.faces import SYMBOLS, decorate, face
from unokit.tui.screens import (
    HELP,
    ChallengePrompt,
    ChoiceScreen,
    ColorPicker,
    ConfirmQuit,
    EndScreen,
    HelpScreen,
    SaveDialog,
)
from unokit.tui.session import MAX_SEED, NAMES, bot_levels
from unokit.tui.setup_screen import Cycler, SetupScreen, rules_for
from unokit.tui.table_screen import TableScreen
from unokit.tui.widgets import CELL, KEY_LABELS, OpponentRow

SIZE = (80, 24)
NEVER = 600.0
"""A bot delay no test waits for: the bots do not act on their own."""
PILE = ("Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8")

pytestmark = pytest.mark.usefixtures("instant_buttons")


def cards(*codes: str) -> list[int]:
    return [parse_card(code) for code in codes]


class Scripted:
    """A bot that plays ``moves`` (action texts) on its turns, in order, then draws or
    passes; out of turn (a slap included) it plays ``out_of_turn`` where legal and
    otherwise nothing."""

    name = "scripted"

    def __init__(self, *moves: str, out_of_turn: Sequence[str] = (),
                 reaction_delay: float | None = None, fail: bool = False) -> None:
        self.moves = [A.parse_action(m) for m in moves]
        self.spare = [A.parse_action(m) for m in out_of_turn]
        self.fail = fail
        if reaction_delay is not None:
            self.reaction_delay = reaction_delay

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        if self.fail:
            raise RuntimeError("scripted failure")
        legal = list(legal_actions)
        seat = observation.seat
        if observation.current_player != seat and observation.phase != "round_over":
            if self.spare and self.spare[0] in legal:
                return self.spare.pop(0)
            return None
        if self.moves and self.moves[0] in legal:
            return self.moves.pop(0)
        for action in (A.next_round(seat), A.slap(seat), A.draw(seat), A.pass_turn(seat)):
            if action in legal:
                return action
        return legal[0]


def scripted(rules: str, hands: Sequence[Sequence[str]], top: str, current: int,
             bots: dict[int, Scripted] | None = None, pile: Sequence[str] = PILE,
             moves: Sequence[str] = (), **kw: Any) -> Session:
    """A session around a dealt position (the draw pile's first card is drawn first),
    after ``moves`` (action texts); seats not in ``bots`` draw or pass."""
    game = Game.from_setup(rules, hands=[cards(*hand) for hand in hands],
                           draw_pile=cards(*pile), discard=cards(top), current_player=current,
                           **kw)
    bots = bots or {}
    players = [None, *(bots.get(seat, Scripted()) for seat in range(1, game.n))]
    session = Session(game, NAMES[:game.n], ["you", *["scripted"] * (game.n - 1)], players)
    for move in moves:
        session.apply(A.parse_action(move))
    return session


def nearly_won(seed: int = 3) -> Session:
    """A seeded two-player round (so that it can be recorded) played by ``playfirst``
    bots up to the human's last card, which fits."""
    game = Game(Rules.preset("official", players=2, rounds=1), seed)
    for _ in play(game, [make_bot("playfirst", seat) for seat in range(2)]):
        if (game.current_player == 0 and game.phase is Phase.PLAY and len(game.hands[0]) == 1
                and game.observation(0).uno_open is None):
            break
    assert len(game.hands[0]) == 1 and game.hands[0][0] < WILD
    assert A.play(0, game.hands[0][0]) in game.legal_actions(0)
    return Session.for_game(game, ["playfirst"])


@contextlib.asynccontextmanager
async def opened(session: Session, delay: float = 0,
                 size: tuple[int, int] = SIZE) -> AsyncIterator[tuple[PlayApp, Any]]:
    app = PlayApp(session=session, delay=delay)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        yield app, pilot


def events(session: Session, kind: EventKind) -> list[Any]:
    return [event for event in session.game.log if event.kind is kind]


def text_of(app: Any, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def table(app: PlayApp) -> TableScreen:
    screen = app.screen
    assert isinstance(screen, TableScreen), type(screen).__name__
    return screen


def key_for(app: PlayApp, code: str) -> str:
    """The number key of a card in the human's hand as shown."""
    return KEY_LABELS[table(app).hand.cards.index(parse_card(code))]


# ------------------------------------------------------------------ colour picker
@pytest.mark.asyncio
async def test_the_colour_picker_by_click_and_its_symbols() -> None:
    session = scripted("official,players=2", [["R5", "G7", "W"], ["Y3", "Y4"]], "B3", 0)
    async with opened(session) as (app, pilot):
        await pilot.press(key_for(app, "W"))
        assert isinstance(app.screen, ColorPicker)
        for color, word in enumerate(("red", "yellow", "green", "blue")):
            label = str(app.screen.query_one(f"#color-{word}").label)
            assert label.startswith(SYMBOLS[color]) and word.capitalize() in label
        await pilot.click("#color-yellow")
        await pilot.pause()
        (played,) = events(session, EventKind.PLAYED)
        assert played.card == parse_card("W") and played.color == 1
        assert session.game.color == 1
        assert "colour ★ yellow" in text_of(app, "#table")


@pytest.mark.parametrize(("key", "color"), [("r", 0), ("b", 3), ("2", 1), ("3", 2)])
@pytest.mark.asyncio
async def test_the_colour_picker_by_key(key: str, color: int) -> None:
    session = scripted("official,players=2", [["R5", "W+4"], ["Y3", "Y4"]], "B3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        await pilot.press(key_for(app, "W+4"), key)
        assert session.game.color == color
        assert events(session, EventKind.PLAYED)[0].card == parse_card("W+4")


@pytest.mark.asyncio
async def test_a_picker_ignores_colours_it_does_not_offer() -> None:
    session = scripted("official,players=2", [["R5", "G7"], ["Y3", "Y4"]], "R3", 0)
    async with opened(session) as (app, pilot):
        answers: list[object] = []
        app.push_screen(ColorPicker([0, 2], "Two colours"), answers.append)
        await pilot.pause()
        assert [b.id for b in app.screen.query("Button")] == ["color-red", "color-green"]
        await pilot.press("y", "4")
        assert isinstance(app.screen, ColorPicker) and answers == []
        await pilot.press("g")
        assert answers == [2]


@pytest.mark.asyncio
async def test_the_start_card_colour_is_named_with_the_picker() -> None:
    # Seed 24 turns up a Wild as the start card, and seat 0 names its colour.
    config = PlayConfig(Rules.preset("official", players=2, rounds=1), 24, ("playfirst",))
    app = PlayApp(config, delay=NEVER)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.session is not None and app.session.phase() is Phase.CHOOSE_COLOR
        assert isinstance(app.screen, ColorPicker)
        await pilot.press("escape")  # cancelled: the colour is still to be named
        assert app.session.phase() is Phase.CHOOSE_COLOR
        assert "name the colour of the start card" in text_of(app, "#status")
        await pilot.press("enter")  # opens the picker again
        assert isinstance(app.screen, ColorPicker)
        await pilot.press("b")
        assert app.session.game.color == 3
        assert events(app.session, EventKind.COLOR_CHOSEN)[0].color == 3


# ------------------------------------------------------------------ challenges
def _wild_draw_four(rules: str = "official,players=2",
                    bob: Sequence[str] = ("W+4", "Y5", "Y6")) -> Session:
    return scripted(rules, [["R5", "G7", "B1"], bob], "B3", 1, moves=["1:W+4>G"])


@pytest.mark.asyncio
async def test_accepting_a_wild_draw_four_with_d() -> None:
    session = _wild_draw_four()
    async with opened(session, delay=NEVER) as (app, pilot):
        assert isinstance(app.screen, ChallengePrompt)
        about = text_of(app, "#about")
        assert "Bob played ✦W+4 and named ♣ green" in about and "you draw 6" in about
        assert "Accept: you draw 4." in about
        await pilot.press("escape")  # no card may answer it: the prompt stays
        assert isinstance(app.screen, ChallengePrompt)
        await pilot.press("d")
        await pilot.pause()
        assert len(session.game.hands[0]) == 3 + 4
        assert not events(session, EventKind.CHALLENGED)
        assert isinstance(app.screen, TableScreen)


@pytest.mark.asyncio
async def test_a_challenge_by_click_finds_bob_guilty() -> None:
    session = _wild_draw_four(bob=("W+4", "B5", "Y6"))  # Bob held a blue card
    async with opened(session, delay=NEVER) as (app, pilot):
        assert isinstance(app.screen, ChallengePrompt)
        await pilot.click("#challenge")
        await pilot.pause()
        (challenged,) = events(session, EventKind.CHALLENGED)
        assert challenged.reason == "guilty"
        assert len(session.game.hands[0]) == 3 and len(session.game.hands[1]) == 2 + 4


@pytest.mark.asyncio
async def test_accept_by_click_and_the_accept_label() -> None:
    session = _wild_draw_four()
    async with opened(session, delay=NEVER) as (app, pilot):
        assert str(app.screen.query_one("#accept").label) == "Accept: draw 4 (d)"
        assert not app.screen.query("#back")
        await pilot.click("#accept")
        await pilot.pause()
        assert len(session.game.hands[0]) == 7


@pytest.mark.asyncio
async def test_a_stackable_wild_draw_four_may_be_answered_with_a_card() -> None:
    session = scripted("stacking,players=2", [["R1", "W+4", "G3"], ["W+4", "R6", "Y9"]],
                       "R3", 1, moves=["1:W+4>B"])
    async with opened(session, delay=NEVER) as (app, pilot):
        assert isinstance(app.screen, ChallengePrompt)
        assert "Or answer it with a bright card." in text_of(app, "#about")
        await pilot.press("escape")  # back to the hand
        screen = table(app)
        assert str(screen.query_one("#btn-draw").label) == "Accept +4 d"
        assert "+4 for you" in text_of(app, "#status")
        await pilot.press(key_for(app, "W+4"), "r")
        played = events(session, EventKind.PLAYED)
        assert [(e.player, e.card) for e in played] == [(1, parse_card("W+4")),
                                                       (0, parse_card("W+4"))]
        assert session.game.pending == 8 and session.game.current_player == 1


# ------------------------------------------------------------------ UNO and catches
@pytest.mark.asyncio
async def test_a_late_uno_call_with_u_after_a_silent_play() -> None:
    session = scripted("official,players=2", [["R5", "R6"], ["Y3", "Y4"]], "R3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        await pilot.press(key_for(app, "R5"))  # not armed: no call with the play
        assert session.observation().uno_open == 0
        assert "Call UNO now (u)!" in text_of(app, "#status")
        await pilot.press("u")
        assert [e.player for e in events(session, EventKind.UNO_CALLED)] == [0]
        assert "Call UNO now" not in text_of(app, "#status")


@pytest.mark.asyncio
async def test_the_uno_button_arms_and_disarms_the_call() -> None:
    session = scripted("official,players=2", [["R5", "R6"], ["Y3", "Y4"]], "R3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        button = app.screen.query_one("#btn-uno")
        assert button.active_effect_duration == 0  # every click counts (instant_buttons)
        await pilot.click("#btn-uno")
        assert table(app).uno_armed and str(button.label) == "UNO ✓ u"
        assert "UNO will be called with your play." in text_of(app, "#status")
        await pilot.press("u")
        assert not table(app).uno_armed and str(button.label) == "UNO u"
        await pilot.click("#btn-uno")
        await pilot.press(key_for(app, "R6"))
        (played,) = events(session, EventKind.PLAYED)
        assert played.card == parse_card("R6")
        assert [e.player for e in events(session, EventKind.UNO_CALLED)] == [0]
        assert session.observation().uno_open is None


@pytest.mark.parametrize("how", ["key", "click"])
@pytest.mark.asyncio
async def test_catching_a_bot_that_missed_its_uno_call(how: str) -> None:
    session = scripted("official,players=3", [["R1", "G2", "G3"], ["R5", "R6"], ["B1", "B2"]],
                       "R3", 1, moves=["1:R5"])
    # Bob played without calling UNO; Cara, next, waits: the catch window stays open.
    async with opened(session, delay=NEVER) as (app, pilot):
        assert session.game.current_player == 2 and session.observation().uno_open == 1
        row = app.screen.query_one("#opponent-1", OpponentRow)
        assert "no UNO!" in str(row.query_one(".who").render())
        assert row.query_one("#catch-1").has_class("-shown")
        assert not app.screen.query_one("#catch-2").has_class("-shown")
        assert "Catch Bob (c)!" in text_of(app, "#status")
        if how == "key":
            await pilot.press("c")
        else:
            await pilot.click("#catch-1")
        (caught,) = events(session, EventKind.CAUGHT)
        assert (caught.player, caught.target) == (0, 1)
        assert len(session.game.hands[1]) == 1 + 2
        assert "3 cards" in str(row.query_one(".who").render())
        assert not row.query_one("#catch-1").has_class("-shown")


# ------------------------------------------------------------------ hand-changing rules
@pytest.mark.asyncio
async def test_giving_back_a_card_after_a_bots_five() -> None:
    session = scripted("official,players=2,five_exchange=true",
                       [["R1", "G2", "G3"], ["R5", "R6", "Y9"]], "R3", 1,
                       moves=["1:R5@0/R6"])
    async with opened(session, delay=NEVER) as (app, pilot):
        assert session.phase() is Phase.EXCHANGE
        assert "give Bob a card back" in text_of(app, "#status")
        assert table(app).hand.marked == set(cards("R1", "R6", "G2", "G3"))
        await pilot.press(key_for(app, "G3"))
        gave = events(session, EventKind.GAVE)
        assert [(e.player, e.target, e.cards) for e in gave][-1] == (0, 1, (parse_card("G3"),))
        assert sorted(session.game.hands[0]) == cards("R1", "R6", "G2")


@pytest.mark.asyncio
async def test_a_seven_target_by_arrows_and_a_cancelled_choice() -> None:
    session = scripted("seven_o,players=3", [["R7", "G1", "B4"], ["Y3", "Y4", "Y5"],
                                             ["B1", "B2"]], "R3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        await pilot.press(key_for(app, "R7"))
        assert isinstance(app.screen, ChoiceScreen)
        assert app.screen.title_text == "♥R7: swap hands with whom?"
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen) and not events(session, EventKind.PLAYED)
        assert len(session.game.hands[0]) == 3
        await pilot.press("enter")  # the cursor is on the first card, R7
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("down", "enter")  # the second option: Cara
        (played,) = events(session, EventKind.PLAYED)
        assert played.target == 2
        assert sorted(session.game.hands[0]) == cards("B1", "B2")


# ------------------------------------------------------------------ slap and say
@pytest.mark.asyncio
async def test_slapping_with_s_makes_the_last_slapper_draw() -> None:
    session = scripted("official,players=3,uno_slap=true",
                       [["R1", "G2", "G3"], ["R5", "R6"], ["B1", "B2"]], "R3", 1,
                       moves=["1:R5!"])
    async with opened(session, delay=NEVER) as (app, pilot):
        assert session.phase() is Phase.SLAP and session.game.slap_left == [0, 2]
        assert "SLAP! Press s" in text_of(app, "#status")
        button = app.screen.query_one("#btn-slap")
        assert not button.has_class("-hidden") and not button.disabled
        await pilot.press("s")
        assert [e.player for e in events(session, EventKind.SLAPPED)] == [0]
        penalty = [e for e in events(session, EventKind.DREW) if e.player == 2]
        assert penalty and penalty[0].amount == 2
        assert len(session.game.hands[0]) == 3


@pytest.mark.asyncio
async def test_the_slap_and_say_buttons_follow_the_rules() -> None:
    session = scripted("official,players=2", [["R5", "G7"], ["Y3", "Y4"]], "R3", 0)
    async with opened(session, delay=NEVER) as (app, _):
        assert app.screen.query_one("#btn-slap").has_class("-hidden")
        assert app.screen.query_one("#btn-say").has_class("-hidden")
        assert app.screen.query_one("#btn-pass").has_class("-hidden")
        assert app.screen.query_one("#btn-challenge").has_class("-hidden")


@pytest.mark.asyncio
async def test_saying_something_in_a_silence_costs_two_cards() -> None:
    session = scripted("official,players=2,silence=twos", [["R1", "G7", "B4"],
                                                           ["R2", "Y4", "Y5"]], "R3", 1,
                       moves=["1:R2"])
    async with opened(session, delay=NEVER) as (app, pilot):
        assert session.game.current_player == 0
        button = app.screen.query_one("#btn-say")
        assert not button.has_class("-hidden") and not button.disabled
        await pilot.click("#btn-say")
        assert [e.player for e in events(session, EventKind.SAID)] == [0]
        assert len(session.game.hands[0]) == 3 + 2
        log = app.screen.query_one("#log", RichLog)
        assert any("You speak." in str(line.text) for line in log.lines)


# ------------------------------------------------------------------ drawing, mouse
@pytest.mark.asyncio
async def test_drawing_a_playable_card_moves_the_cursor_to_it() -> None:
    session = scripted("official,players=2", [["B1", "G2", "Y9"], ["Y3", "Y4"]], "R3", 0,
                       pile=("R8", "Y1"))
    async with opened(session, delay=NEVER) as (app, pilot):
        assert "no card fits: draw (d)" in text_of(app, "#status")
        await pilot.press("d")
        screen = table(app)
        assert session.phase() is Phase.DRAWN
        assert screen.hand.card_at_cursor() == parse_card("R8")
        assert "you drew ♥R8: play it (enter) or keep it (p)." in text_of(app, "#status")
        assert not screen.query_one("#btn-pass").has_class("-hidden")
        await pilot.press("enter")
        assert events(session, EventKind.PLAYED)[0].card == parse_card("R8")


@pytest.mark.asyncio
async def test_keeping_a_drawn_card_with_p() -> None:
    session = scripted("official,players=2,play_drawn=may", [["B1", "G2"], ["Y3", "Y4"]],
                       "R3", 0, pile=("R8", "Y1"))
    async with opened(session, delay=NEVER) as (app, pilot):
        await pilot.click("#btn-draw")
        await pilot.press("p")
        assert "✗" not in text_of(app, "#status")
        assert events(session, EventKind.PASSED)[0].player == 0
        assert session.game.current_player == 1 and len(session.game.hands[0]) == 3


@pytest.mark.asyncio
async def test_a_click_on_a_card_plays_it() -> None:
    session = scripted("official,players=2", [["R5", "G3", "B1"], ["Y3", "Y4"]], "R3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        hand = table(app).hand
        index = hand.cards.index(parse_card("G3"))
        await pilot.click("#hand", offset=(index * CELL + 2, 0))
        assert events(session, EventKind.PLAYED)[0].card == parse_card("G3")
        # A click on the gap between two cards does nothing.
        before = session.version
        await pilot.click("#hand", offset=(CELL - 1, 0))
        assert session.version == before


@pytest.mark.asyncio
async def test_clicks_add_to_a_selection_for_multi_play() -> None:
    session = scripted("official,players=2,multi_play=same_number",
                       [["R5", "G5", "B5", "Y1"], ["Y3", "Y4", "Y6"]], "R3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        hand = table(app).hand
        await pilot.press("space")  # R5 at the cursor
        assert not app.screen.query_one("#btn-multi").has_class("-hidden")
        index = hand.cards.index(parse_card("B5"))
        await pilot.click("#hand", offset=(index * CELL + 2, 0))
        assert hand.selected_cards() == cards("R5", "B5") and session.version == 0
        await pilot.click("#btn-multi")
        (played,) = events(session, EventKind.PLAYED)
        assert played.card == parse_card("R5") and played.cards == (parse_card("B5"),)
        assert session.game.color == 3


@pytest.mark.asyncio
async def test_keys_that_cannot_work_say_why() -> None:
    session = scripted("official,players=2", [["R5", "G3", "B1"], ["Y3", "Y4"]], "R3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        await pilot.press("0")
        assert "you hold 3 cards" in text_of(app, "#status")
        await pilot.press("space")
        assert "multi-play is off" in text_of(app, "#status")
        await pilot.press("right", "right", "right")  # wraps round to the first card
        assert table(app).hand.cursor == 0
        assert session.version == 0


@pytest.mark.asyncio
async def test_every_legal_action_is_listed_and_one_is_picked_by_a_click() -> None:
    session = scripted("official,players=2", [["R5", "G3", "B1"], ["Y3", "Y4"]], "R3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        await pilot.click("#btn-actions")
        assert isinstance(app.screen, ChoiceScreen)
        choices = app.screen.query_one("#choices", OptionList)
        prompts = [str(choices.get_option_at_index(i).prompt)
                   for i in range(choices.option_count)]
        assert prompts == ["1. Play ♥R5", "2. Play ♣G3",
                           "3. Draw (or accept the penalty, or press the launcher)"]
        top = choices.content_region.y - choices.region.y
        await pilot.click("#choices", offset=(4, top + 2))
        assert session.game.history == [A.draw(0)]
        assert isinstance(app.screen, TableScreen)


# ------------------------------------------------------------------ help, quit, bots
@pytest.mark.asyncio
async def test_the_help_screen_lists_the_keys_and_the_colour_symbols() -> None:
    session = scripted("official,players=2", [["R5", "G3"], ["Y3", "Y4"]], "R3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        for opener, closer in (("question_mark", "escape"), ("f1", "q"), (None, "enter")):
            if opener is None:
                await pilot.click("#btn-help")
            else:
                await pilot.press(opener)
            assert isinstance(app.screen, HelpScreen)
            shown = text_of(app, "#help")
            assert shown == HELP
            assert "♥ red, ★ yellow, ♣ green, ♦ blue; ✦ wild" in shown
            for key in ("d ", "p ", "u ", "c ", "x ", "s ", "y ", "a ", "q "):
                assert re.search(rf"(^|\s){re.escape(key)}", shown), key
            await pilot.press(closer)
            assert isinstance(app.screen, TableScreen)
        assert session.version == 0


@pytest.mark.asyncio
async def test_quitting_asks_first() -> None:
    session = scripted("official,players=2", [["R5", "G3"], ["Y3", "Y4"]], "R3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        exits: list[object] = []
        app.exit = lambda *args, **kwargs: exits.append(args)  # type: ignore[method-assign]
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmQuit)
        await pilot.press("n")
        assert isinstance(app.screen, TableScreen) and exits == []
        await pilot.press("q", "escape")
        assert exits == []
        await pilot.press("q")
        await pilot.click("#yes")
        assert len(exits) == 1


@pytest.mark.asyncio
async def test_a_failing_bot_is_reported_and_its_turn_played_for_it() -> None:
    session = scripted("official,players=2", [["R5", "G3"], ["Y3", "Y4"]], "B3", 1,
                       {1: Scripted(fail=True)})
    async with opened(session) as (app, _):
        # Asked on its turn and then out of turn: it failed both times.
        assert session.problems[0] == "Bob's bot failed: scripted failure"
        assert set(session.problems) == {"Bob's bot failed: scripted failure"}
        assert session.game.current_player == 0
        assert [A.action_player(a) for a in session.game.history] == [1]
        assert text_of(app, "#status").count("Bob's bot failed: scripted failure") == 1


@pytest.mark.asyncio
async def test_a_match_that_cannot_start_goes_back_to_the_setup() -> None:
    config = PlayConfig(Rules.preset("official", players=2), 3, ("nobody",))
    app = PlayApp(config, delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        assert "unknown bot 'nobody'" in app.start_error
        assert app.session is None


# ------------------------------------------------------------------ bots' delay
@pytest.mark.asyncio
async def test_bots_wait_for_the_delay_on_the_screens_timer(
        table_timers: list[tuple[float, Any]]) -> None:
    timers = table_timers
    session = scripted("official,players=3", [["R1", "G2"], ["Y3", "Y4", "Y5"],
                                              ["Y6", "B2"]], "Y9", 1,
                       {1: Scripted("1:Y3"), 2: Scripted("2:Y6")})
    async with opened(session, delay=1.75) as (app, pilot):
        assert [delay for delay, _ in timers] == [1.75] and session.version == 0
        assert "Bob's turn (thinking…)" in text_of(app, "#status")
        timers[-1][1]()
        await pilot.pause()
        assert session.version == 1 and [delay for delay, _ in timers] == [1.75, 1.75]
        assert "Cara's turn (thinking…)" in text_of(app, "#status")
        timers[-1][1]()
        await pilot.pause()
        assert session.version == 2 and session.game.current_player == 0
        assert len(timers) == 2 and "Your turn" in text_of(app, "#status")


@pytest.mark.asyncio
async def test_out_of_turn_moves_wait_for_the_bots_reaction_delay(
        monkeypatch: pytest.MonkeyPatch) -> None:
    timers: list[float] = []

    class Stopped:
        def stop(self) -> None:
            pass

    def fake_timer(self: TableScreen, delay: float, *args: Any, **kwargs: Any) -> Stopped:
        timers.append(delay)
        return Stopped()

    monkeypatch.setattr(TableScreen, "set_timer", fake_timer)
    session = scripted("official,players=3", [["R5", "R6"], ["Y3", "Y4"], ["B1", "B2"]],
                       "R3", 0,
                       {2: Scripted(out_of_turn=["2:catch 0"], reaction_delay=0.25)})
    async with opened(session, delay=3.0) as (app, pilot):
        assert timers == []  # the human's turn: nothing to wait for
        await pilot.press(key_for(app, "R5"))  # no UNO call: Cara, out of turn, catches
        assert timers == [0.25]
        assert not events(session, EventKind.CAUGHT)


# ------------------------------------------------------------------ the log
def _words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.asyncio
async def test_the_log_shows_every_line_and_follows_the_latest() -> None:
    session = nearly_won()
    async with opened(session, delay=NEVER) as (app, pilot):
        await pilot.pause()
        log = app.screen.query_one("#log", RichLog)
        assert len(session.lines) > log.size.height > 5
        shown = _words(" ".join(str(strip.text) for strip in log.lines))
        position = 0
        for line in session.lines:  # every line, in order
            position = shown.index(_words(line.plain), position)
        assert log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y
        log.scroll_home(animate=False)
        await pilot.pause()
        assert log.scroll_y == 0
        before = len(session.lines)
        await pilot.press(KEY_LABELS[0])  # the last card: new lines, back to the end
        await pilot.pause()
        assert len(session.lines) > before
        shown = _words(" ".join(str(strip.text) for strip in log.lines))
        assert shown.endswith(_words(session.lines[-1].plain))
        assert log.scroll_y == log.max_scroll_y > 0


# ------------------------------------------------------------------ round and match end
def _result_rows(text: str) -> dict[str, tuple[int, int]]:
    rows = {}
    for line in text.splitlines()[1:]:
        match = re.match(r"(.+?)\s+(-?\d+)\s+(-?\d+)\s", line + " ")
        assert match, line
        rows[match.group(1).strip()] = (int(match.group(2)), int(match.group(3)))
    return rows


@pytest.mark.asyncio
async def test_the_round_end_shows_the_engines_points_and_starts_the_next_round() -> None:
    session = scripted("official,players=3", [["R5"], ["G1", "G2"], ["W+4", "B+2", "Y9"]],
                       "R3", 0, scores=[10, 20, 30])
    async with opened(session, delay=NEVER) as (app, pilot):
        screen = table(app)
        await pilot.press("1")
        assert isinstance(app.screen, EndScreen)
        game = session.game
        assert game.phase is Phase.ROUND_OVER and game.round_points[0] == 3 + 50 + 20 + 9
        assert game.scores == [10 + 82, 20, 30]
        assert text_of(app, "#title") == "Round 1 over: You win the round"
        rows = _result_rows(text_of(app, "#results"))
        assert rows == {"You": (game.round_points[0], game.scores[0]),
                        "Bob (scripted)": (game.round_points[1], game.scores[1]),
                        "Cara (scripted)": (game.round_points[2], game.scores[2])}
        assert "✦W+4 ♦B+2 ★Y9" in text_of(app, "#results")
        await pilot.press("s", "n", "q")  # only the match end saves or starts anew
        assert isinstance(app.screen, EndScreen) and game.round_no == 1
        await pilot.press("enter")
        await pilot.pause()
        assert game.round_no == 2 and game.phase is not Phase.ROUND_OVER
        assert not isinstance(app.screen, EndScreen)
        assert "round 2" in str(screen.query_one("#title").render())


@pytest.mark.asyncio
async def test_the_match_end_saves_and_the_viewer_replays_it(tmp_path: Path) -> None:
    session = nearly_won()
    async with opened(session, delay=0) as (app, pilot):
        await pilot.press(KEY_LABELS[0])
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, EndScreen) and screen.summary.match_over
        game = session.game
        assert game.is_over() and game.match_winner == 0
        assert text_of(app, "#title") == "Match over: You win the round"
        assert text_of(app, "#match-line") == "You win the match after 1 round."
        assert _result_rows(text_of(app, "#results"))["You"] == (game.round_points[0],
                                                                 game.scores[0])
        await pilot.press("s")
        assert isinstance(app.screen, SaveDialog)
        await pilot.press("escape")
        assert text_of(app, "#saved") == ""
        await pilot.press("s")
        app.screen.query_one("#path", Input).value = str(tmp_path / "no" / "such.json")
        await pilot.press("enter")
        assert text_of(app, "#saved").startswith("✗ cannot write")
        path = tmp_path / "match.json"
        await pilot.press("s")
        app.screen.query_one("#path", Input).value = str(path)
        await pilot.press("enter")
        assert text_of(app, "#saved").startswith(f"✓ saved to {path}")
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        assert app.screen.query_one("#name", Input).value == "You"
    record = Record.load(path)
    assert list(record.players) == ["You", "Bob"]
    frames = load_frames(record)
    assert frames[-1].game == game
    viewer = ReplayApp(record, frames, title="match.json", seat=1, delay=NEVER)
    async with viewer.run_test(size=SIZE) as pilot:
        assert "Bob's view" in text_of(viewer, "#title")
        await pilot.press("right", "l", "n")
        assert viewer.index == 3 and text_of(viewer, "#step").startswith("Step 3/")
        await pilot.press("left", "h")
        assert viewer.index == 1
        await pilot.press("pageup")
        assert viewer.index == 0 and "the deal" in text_of(viewer, "#step")
        await pilot.press("pagedown")
        assert viewer.index == min(10, len(frames) - 1)
        await pilot.press("G")
        last = len(frames) - 1
        assert viewer.index == last and text_of(viewer, "#step").startswith(f"Step {last}/")
        # Bob's view: his own cards and nobody else's.
        shown = text_of(viewer, "#table")
        card_lines = [line.strip() for line in shown.splitlines() if line.startswith("    ")]
        assert card_lines == [" ".join(face(c) for c in sorted(frames[-1].game.hands[1]))]
        log = viewer.query_one("#log", RichLog)
        expected = [decorate(describe_event(e, 1, record.players, markup=True)).plain
                    for f in frames for e in f.events]
        everyone = [decorate(describe_event(e, "everyone", record.players, markup=True)).plain
                    for f in frames for e in f.events]
        assert expected != everyone  # some of the cards You drew are hidden from Bob
        logged = _words(" ".join(str(line.text) for line in log.lines))
        position = 0
        for line in expected:  # every event from Bob's view, in order
            position = logged.index(_words(line), position)
        assert logged.endswith(_words(expected[-1]))
        await pilot.press("v")
        assert "all cards" in text_of(viewer, "#title")
        all_cards = text_of(viewer, "#table")
        assert sum(line.startswith("    ") for line in all_cards.splitlines()) == sum(
            1 for hand in frames[-1].game.hands if hand)
        await pilot.press("g", "space")
        assert "▶ auto" in text_of(viewer, "#step") and viewer.index == 0
        await pilot.press("space")
        assert "▶ auto" not in text_of(viewer, "#step")


# ------------------------------------------------------------------ setup screen
@contextlib.asynccontextmanager
async def setup_app(seed: int = 11) -> AsyncIterator[tuple[PlayApp, SetupScreen, Any]]:
    app = PlayApp(delay=NEVER, seed=seed)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        yield app, screen, pilot


def _shown_levels(screen: SetupScreen) -> list[int]:
    return [seat for seat in range(1, 10) if screen.query_one(f"#level-{seat}").display]


@pytest.mark.asyncio
async def test_every_preset_shows_its_meaning_and_sets_the_players() -> None:
    async with setup_app() as (app, screen, pilot):
        presets = screen.query_one("#presets", OptionList)
        for index, name in enumerate(PRESETS):
            presets.highlighted = index
            await pilot.pause()
            assert screen.preset == name
            assert PRESET_MEANINGS[name] in text_of(app, "#preset-info")
            players = Rules.from_string(name).players
            assert screen.query_one("#players", Cycler).value == str(players)
            assert _shown_levels(screen) == list(range(1, players))
            expected = rules_for(name, "", players).to_string()
            assert text_of(app, "#rules-check") == f"✓ {expected}"
            assert screen.config is not None and screen.config.rules.preset_name == name
        presets.highlighted = 0
        await pilot.press("down")
        assert screen.preset == list(PRESETS)[1]


@pytest.mark.asyncio
async def test_the_player_count_runs_from_2_to_10() -> None:
    async with setup_app() as (_, screen, pilot):
        players = screen.query_one("#players", Cycler)
        players.focus()
        seen = []
        for _ in range(9):
            await pilot.press("right")
            seen.append(int(players.value))
            assert _shown_levels(screen) == list(range(1, int(players.value)))
            assert screen.config is not None
            assert screen.config.rules.players == int(players.value)
            assert len(screen.config.levels) == int(players.value) - 1
        assert sorted(seen) == list(range(2, 11))
        await pilot.click("#players")
        assert players.value == "5"  # 4 -> 5 by a click


@pytest.mark.asyncio
async def test_overrides_may_set_the_players_and_bad_ones_name_their_keys() -> None:
    async with setup_app() as (app, screen, pilot):
        overrides = screen.query_one("#overrides", Input)
        overrides.value = "players=6,jump_in=true"
        await pilot.pause()
        assert screen.query_one("#players", Cycler).value == "6"
        assert text_of(app, "#rules-check") == "✓ official,players=6,jump_in=true"
        overrides.value = "players=11"
        await pilot.pause()
        check = text_of(app, "#rules-check")
        assert check.startswith("✗ players") and screen.config is None
        overrides.value = "draw=sometimes"
        await pilot.pause()
        assert text_of(app, "#rules-check").startswith("✗ draw")
        presets = screen.query_one("#presets", OptionList)
        presets.highlighted = list(PRESETS).index("pairs")
        overrides.value = ""
        await pilot.pause()
        screen.query_one("#players", Cycler).set_value("3")
        await pilot.pause()
        assert text_of(app, "#rules-check").startswith("✗ ") and screen.config is None
        await pilot.press("ctrl+s")
        assert app.screen is screen


@pytest.mark.parametrize(("seed", "ok"), [("0", True), (str(MAX_SEED), True),
                                          (str(MAX_SEED + 1), False), ("", False),
                                          ("-3", False)])
@pytest.mark.asyncio
async def test_the_seed_field(seed: str, ok: bool) -> None:
    async with setup_app() as (app, screen, pilot):
        screen.query_one("#seed", Input).value = seed
        await pilot.pause()
        check = text_of(app, "#rules-check")
        if ok:
            assert check.startswith("✓") and screen.config is not None
            assert screen.config.seed == int(seed)
        else:
            assert check == f"✗ seed: a whole number 0..{MAX_SEED}"
            assert screen.config is None


@pytest.mark.asyncio
async def test_levels_name_and_seed_reach_the_match() -> None:
    levels = bot_levels()
    async with setup_app(seed=77) as (app, screen, pilot):
        screen.query_one("#players", Cycler).set_value("3")
        first = screen.query_one("#level-1", Cycler)
        before = first.value
        await pilot.click("#level-1")
        assert first.value == levels[(levels.index(before) + 1) % len(levels)]
        screen.query_one("#level-2", Cycler).set_value("random")
        name = screen.query_one("#name", Input)
        name.value = "Ann"
        await pilot.pause()
        assert screen.config is not None
        assert screen.config.levels == (first.value, "random") and screen.config.seed == 77
        name.focus()
        await pilot.press("enter")  # enter in a field starts the match
        await pilot.pause()
        assert app.session is not None and isinstance(app.screen, TableScreen)
        assert app.session.names == ["Ann", "Bob", "Cara"]
        assert app.session.levels == ["you", first.value, "random"]
        assert app.session.seed == 77 and app.session.game.rules.players == 3


@pytest.mark.asyncio
async def test_the_start_button_and_an_empty_name() -> None:
    async with setup_app(seed=5) as (app, screen, pilot):
        screen.query_one("#name", Input).value = "  "
        await pilot.click("#start")
        await pilot.pause()
        assert app.session is not None and app.session.names[0] == "You"


@pytest.mark.asyncio
async def test_escape_leaves_the_setup_screen() -> None:
    async with setup_app() as (app, _, pilot):
        exits: list[object] = []
        app.exit = lambda *args, **kwargs: exits.append(args)  # type: ignore[method-assign]
        await pilot.press("escape")
        assert len(exits) == 1


# ------------------------------------------------------------------ ten players at 80x24
TEN = [["R1", "G2", "G3", "B4", "Y5", "R6", "G7"], ["Y1", "Y2"], ["Y1", "Y2", "Y3"], ["B7"],
       ["Y1", "Y2"], ["G1"], ["Y1", "Y2"], ["Y1", "Y2"], ["Y1", "Y2"], ["R5", "R6"]]
"""Ten hands: Dan and Finn hold one card (UNO called), Jack two."""


def _visible(row: OpponentRow) -> str:
    """What the row shows on screen (cut to the width it has)."""
    return row.query_one(".who").render_line(0).text


@pytest.mark.asyncio
async def test_ten_players_fit_at_80x24_with_counts_and_uno_states() -> None:
    session = scripted("official,players=10", TEN, "R3", 0)
    async with opened(session, delay=NEVER) as (app, _):
        sizes = session.observation().hand_sizes
        height = app.screen.size.height
        rows = list(app.screen.query(OpponentRow))
        assert [row.seat for row in rows] == list(range(1, 10))
        assert len({row.region.y for row in rows}) == 9
        for row in rows:
            who = row.query_one(".who")
            assert 0 <= who.region.y < height and who.region.height == 1
            visible = _visible(row)
            assert f"{NAMES[row.seat]} (scripted)" in visible
            count = sizes[row.seat]
            assert f"{count} card{'s' if count != 1 else ''}" in visible
            assert ("UNO!" in visible) == (count == 1) and "no UNO!" not in visible
            assert visible.rstrip().endswith("0p")  # the score is on screen too
        hand = app.screen.query_one("#hand")
        assert hand.region.bottom <= height
        faces = hand.render_line(0).text
        assert all(face(card) in faces for card in session.game.hands[0])


@pytest.mark.asyncio
async def test_a_missed_uno_call_stays_readable_beside_the_catch_button_at_80x24() -> None:
    session = scripted("official,players=10", TEN, "R3", 9, moves=["9:R5"])
    async with opened(session, delay=NEVER) as (app, _):
        assert session.game.current_player == 0 and session.observation().uno_open == 9
        jack = app.screen.query_one("#opponent-9", OpponentRow)
        assert jack.query_one("#catch-9").region.width > 0  # the catch button is shown
        assert "1 card" in _visible(jack)
        assert "no UNO!" in _visible(jack)


@pytest.mark.asyncio
async def test_colours_read_without_colour() -> None:
    session = scripted("official,players=2", [["R5", "Y5", "G5", "B5", "W"], ["Y3", "Y4"]],
                       "G3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        assert text_of(app, "#table").startswith("Top  ♣G3")
        assert "colour ♣ green" in text_of(app, "#table")
        line = table(app).hand.render_line(0).text
        for symbol, code in zip(SYMBOLS, ("R5", "Y5", "G5", "B5"), strict=True):
            assert symbol + code in line
        assert "✦W" in line
        await pilot.press(key_for(app, "G5"))
        log = app.screen.query_one("#log", RichLog)
        assert "♣G5" in " ".join(str(line.text) for line in log.lines)


@pytest.mark.asyncio
async def test_partners_are_shown_at_the_round_and_the_match_end() -> None:
    # Teams of two: You (seat 0) and Cara (seat 2) against Bob and Dan. You go out; the
    # round's points end the match (rounds=1).
    session = scripted("pairs,rounds=1", [["R5"], ["G1", "G2"], ["B1", "B2"], ["Y1", "Y2"]],
                       "R3", 0)
    async with opened(session, delay=NEVER) as (app, pilot):
        await pilot.press("1")
        assert isinstance(app.screen, EndScreen)
        assert "your team scores" in text_of(app, "#title")
        results = text_of(app, "#results")
        assert "Cara (partner)" in results and "Bob (scripted)" in results
        assert "Dan (scripted)" in results
        assert text_of(app, "#match-line").startswith("Your team wins the match with Cara.")


@pytest.mark.asyncio
async def test_the_other_team_winning_is_said_so() -> None:
    session = scripted("pairs,rounds=1", [["R5", "R6"], ["G1"], ["B1", "B2"], ["Y1", "Y2"]],
                       "G3", 1, moves=["1:G1"])
    async with opened(session, delay=NEVER) as (app, pilot):
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        assert "the other team scores" in text_of(app, "#title")
        assert text_of(app, "#match-line").startswith("Your team loses the match.")
