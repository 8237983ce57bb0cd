"""The terminal game: a seeded match played with keys to the end, the setup screen, the
dialogs (colour picker, challenge prompt, pickers), the replay viewer, and SVG
snapshots of the table and the dialogs at 80x24 (and of the table at 120x40).

Bots play with no delay, or on a fake timer that the test fires, and buttons have no
press effect (the ``instant_buttons`` fixture), so every test is deterministic.
Snapshots live in ``tests/__snapshots__/test_tui/``; refresh them with
``--snapshot-update``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from unokit.bots import SearchBot, make_bot, play
from unokit.engine import actions as A
from unokit.engine.cards import WILD, parse_card
from unokit.engine.events import Event, EventKind
from unokit.engine.game import Game, Phase
from unokit.engine.rules import Rules
from unokit.formats.record import Record
from unokit.text.transcript import describe_event
from unokit.tui import PlayApp, PlayConfig, ReplayApp, Session, config_from_options, load_frames
from unokit.tui.faces import decorate, face
from unokit.tui.screens import ChallengePrompt, ChoiceScreen, ColorPicker, EndScreen
from unokit.tui.session import as_you, make_offer, parse_levels
from unokit.tui.setup_screen import SetupScreen
from unokit.tui.table_screen import TableScreen
from unokit.tui.widgets import KEY_LABELS

SIZE = (80, 24)
NEVER = 600.0
"""A delay no test waits for (the replay viewer's auto-play never steps on its own)."""

pytestmark = pytest.mark.usefixtures("instant_buttons")


def cards(*codes: str) -> list[int]:
    return [parse_card(code) for code in codes]


def position(rules: str, hands: Sequence[Sequence[str]], top: str, current: int,
             pile: Sequence[str] = ("Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8"),
             **kw: Any) -> Session:
    """A session around a dealt position (bots: ``playfirst``)."""
    game = Game.from_setup(rules, hands=[cards(*hand) for hand in hands],
                           draw_pile=cards(*pile), discard=cards(top), current_player=current,
                           **kw)
    return Session.for_game(game, ["playfirst"] * (game.n - 1))


@contextlib.asynccontextmanager
async def opened(session: Session, delay: float = 0) -> AsyncIterator[tuple[PlayApp, Any]]:
    """The terminal game around ``session``, running and settled: ``(app, pilot)``."""
    app = PlayApp(session=session, delay=delay)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        yield app, pilot


def logged(session: Session, kind: EventKind) -> list[Event]:
    """The session's events of ``kind`` so far."""
    return [event for event in session.game.log if event.kind is kind]


def static_text(app: Any, selector: str) -> str:
    """The plain text a Static shows."""
    return str(app.screen.query_one(selector).render())


async def press_card(pilot: Any, table: TableScreen, card: int) -> None:
    """Play ``card`` with its number key (or the arrows and enter)."""
    index = table.hand.cards.index(card)
    if index < len(KEY_LABELS):
        await pilot.press(KEY_LABELS[index])
        return
    while table.hand.cursor != index:
        await pilot.press("right")
    await pilot.press("enter")


async def play_on(pilot: Any, app: PlayApp, max_keys: int = 2000) -> EndScreen:
    """The human plays the first playable card (calling UNO with it), else draws or
    passes; dialogs are answered with the first choice, rounds are continued; returns the
    match end screen."""
    for _ in range(max_keys):
        screen = app.screen
        if isinstance(screen, EndScreen):
            if screen.summary.match_over:
                return screen
            await pilot.press("enter")
        elif isinstance(screen, ColorPicker):
            await pilot.press("1")
        elif isinstance(screen, ChallengePrompt):
            await pilot.press("d")
        elif isinstance(screen, ChoiceScreen):
            await pilot.press("1")
        else:
            assert isinstance(screen, TableScreen)
            offer = screen.session.offer()
            if offer.uno is not None:
                await pilot.press("u")
            elif offer.play_cards:
                if offer.uno_plays and not screen.uno_armed:
                    await pilot.press("u")
                first = next(c for c in screen.hand.cards if c in offer.play_cards)
                await press_card(pilot, screen, first)
            elif offer.draw is not None:
                await pilot.press("d")
            elif offer.pass_turn is not None:
                await pilot.press("p")
            elif offer.legal:
                await pilot.press("a", "1")
            else:
                await pilot.pause()
    raise AssertionError("the match did not end")


# ---------------------------------------------------------------------- session
def test_options_make_a_configuration() -> None:
    config = config_from_options("official,rounds=1", 3, "random,playfirst", 9, "Ann")
    assert config.rules.players == 3 and config.rules.rounds == 1
    assert config.levels == ("random", "playfirst") and config.seed == 9
    assert config.name == "Ann"
    assert parse_levels(None, 2) == parse_levels("", 2)
    with pytest.raises(ValueError, match="unknown bot"):
        parse_levels("nobody", 2)


def test_offers_sort_the_legal_actions() -> None:
    offer = make_offer([A.play(0, parse_card("W"), color=c) for c in range(4)]
                       + [A.draw(0), A.catch(0, 1), A.call_uno(0)])
    assert offer.play_cards == {WILD} and offer.draw == A.draw(0)
    assert offer.catches == {1: A.catch(0, 1)} and offer.uno == A.call_uno(0)


def test_the_log_shows_only_what_seat_0_may_see() -> None:
    game = Game(Rules.preset("official", players=3, rounds=1), 4)
    bots = [make_bot("playfirst", seat) for seat in range(3)]
    for _ in play(game, bots):
        pass
    session = Session(game, ["You", "Bob", "Cara"], ["you", "playfirst", "playfirst"],
                      [None, None, None])
    assert len(session.lines) == len(game.log)
    hidden = 0
    for event, line in zip(game.log, session.lines, strict=True):
        seen = event._replace(cards=()) if event.visible_to and 0 not in event.visible_to \
            else event
        expected = decorate(as_you(describe_event(seen, "everyone", session.names,
                                                  markup=True)))
        assert line.plain == expected.plain
        hidden += seen is not event and bool(event.cards)
    assert hidden > 0


def test_a_session_plays_against_the_search_bot() -> None:
    config = PlayConfig(Rules.preset("official", players=2, rounds=1), seed=5,
                        levels=("search",))
    session = Session.start(config)
    bot = session.bots[1]
    assert isinstance(bot, SearchBot) and bot.rules == session.game.rules
    human = make_bot("playfirst", 0)
    for _ in range(2000):
        if session.game.is_over():
            break
        move = session.next_move()
        if move is not None:
            session.apply(move.action)
            continue
        action = human.choose(session.observation(), session.legal())
        assert action is not None
        session.apply(action)
    assert session.game.is_over() and not session.problems
    assert bot.searched > 0


def test_bots_are_asked_out_of_turn_first() -> None:
    # Bob plays down to one card without calling; it is Cara's turn, but Bob (asked
    # first, out of turn) calls UNO late before Cara acts.
    session = position("official,players=3", [["R1", "R2", "G3"], ["R5", "R6"], ["B1", "B2"]],
                       "R3", current=1)
    session.apply(A.play(1, parse_card("R5")))  # no UNO call
    assert session.game.current_player == 2
    move = session.next_move()
    assert move is not None and move.out_of_turn and move.action == A.call_uno(1)
    assert session.wait_for(move, 0.6) == 0.6 and session.wait_for(move, 0) == 0
    session.apply(move.action)
    move = session.next_move()  # Bob has spoken: now the lead
    assert move is not None and move.seat == 2 and not move.out_of_turn


# ---------------------------------------------------------------------- the match
@pytest.mark.asyncio
async def test_a_seeded_two_player_match_is_played_with_keys_to_the_end(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    config = PlayConfig(Rules.from_string("official,players=2,rounds=1"), seed=1,
                        levels=("playfirst",))
    app = PlayApp(config, delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        end = await play_on(pilot, app)
        game = end.app.session.game if isinstance(end.app, PlayApp) else None
        assert game is not None and game.is_over()
        summary = end.summary
        assert summary.match_over
        assert [row.total for row in summary.rows] == game.scores
        assert sum(row.points for row in summary.rows) == sum(game.round_points)
        winner = app.session.names[game.match_winner] if app.session else ""
        assert f"{winner} wins the match" in static_text(app, "#match-line")
        results = static_text(app, "#results")
        assert "You" in results and "Bob (playfirst)" in results
        # Save the record: it replays the very same match.
        await pilot.press("s")
        dialog = app.screen.query_one("#path", Input)
        assert dialog.value == "unokit-match-1.json"
        dialog.value = str(path)
        await pilot.press("enter")
        assert "saved to" in static_text(app, "#saved")
        assert load_frames(Record.load(path))[-1].game == game
        await pilot.press("q")
    assert app.return_code in (0, None)


@pytest.mark.asyncio
async def test_illegal_input_shows_the_engines_reason() -> None:
    session = position("official,players=2", [["R5", "G7", "B1"], ["Y3", "Y4"]], "R3",
                       current=0)
    async with opened(session) as (app, pilot):
        before = session.game.state_key()
        await pilot.press("3")  # B1 does not match R3
        assert "does not match the top card and colour" in static_text(app, "#status")
        await pilot.press("p")  # nothing drawn
        assert "✗" in static_text(app, "#status")
        await pilot.press("x", "c", "s", "y")
        assert session.game.state_key() == before
        await pilot.press("a")
        assert isinstance(app.screen, ChoiceScreen)
        assert len(app.screen.options) == len(session.legal())
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)


# ---------------------------------------------------------------------- setup
@pytest.mark.asyncio
async def test_the_setup_screen_validates_the_rule_string() -> None:
    app = PlayApp(delay=0, seed=11)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        overrides = app.screen.query_one("#overrides", Input)
        overrides.focus()
        await pilot.press(*"rounds=x")
        check = static_text(app, "#rules-check")
        assert check.startswith("✗") and "rounds" in check
        overrides.value = "rounds=zero,colour=1"
        await pilot.pause()
        check = static_text(app, "#rules-check")
        assert check.startswith("✗") and "rounds" in check and "colour" in check
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, SetupScreen)
        overrides.value = "rounds=1"
        await pilot.pause()
        assert static_text(app, "#rules-check") == "✓ official,rounds=1"
        app.screen.query_one("#players").focus()
        await pilot.press("left", "left")
        assert static_text(app, "#rules-check") == "✓ official,players=2,rounds=1"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert app.session is not None and app.session.seed == 11
        assert app.session.game.rules.players == 2


# ---------------------------------------------------------------------- dialogs
@pytest.mark.asyncio
async def test_the_colour_picker_names_the_colour_of_a_wild() -> None:
    session = position("official,players=2", [["R5", "G7", "W"], ["Y3", "Y4"]], "B3",
                       current=0)
    async with opened(session) as (app, pilot):
        await pilot.press("3")
        assert isinstance(app.screen, ColorPicker)
        assert app.screen.choices == [0, 1, 2, 3]
        await pilot.press("escape")  # nothing played
        assert isinstance(app.screen, TableScreen) and session.game.top == parse_card("B3")
        await pilot.press("3", "g")
        await pilot.pause()
        played = logged(session, EventKind.PLAYED)
        assert played[0].card == WILD and played[0].color == 2


@pytest.mark.asyncio
async def test_the_challenge_prompt_follows_a_wild_draw_four() -> None:
    session = position("official,players=2", [["R5", "G7", "B1"], ["W+4", "Y5", "Y6"]], "B3",
                       current=1)
    async with opened(session) as (app, pilot):
        assert session.game.phase is Phase.CHALLENGE and session.game.current_player == 0
        assert isinstance(app.screen, ChallengePrompt)
        await pilot.press("x")
        await pilot.pause()
        challenged = logged(session, EventKind.CHALLENGED)
        assert challenged and challenged[0].reason == "innocent"
        assert len(session.game.hands[0]) == 3 + 6
        assert isinstance(app.screen, TableScreen)


@pytest.mark.asyncio
async def test_no_challenge_prompt_without_a_wild_draw_four() -> None:
    session = position("official,players=2", [["R5", "G7", "B1"], ["B4", "Y3", "Y4"]], "B3",
                       current=1)
    async with opened(session) as (app, _):
        assert session.game.current_player == 0 and isinstance(app.screen, TableScreen)


@pytest.mark.asyncio
async def test_a_seven_asks_whom_to_swap_with_and_uno_is_armed() -> None:
    session = position("seven_o,players=3", [["R7", "G1"], ["Y3", "Y4", "Y5"], ["B1", "B2"]],
                       "R3", current=0)
    async with opened(session) as (app, pilot):
        await pilot.press("u")
        assert app.screen.uno_armed  # type: ignore[attr-defined]
        await pilot.press("1")
        assert isinstance(app.screen, ChoiceScreen)
        assert [value for _, value in app.screen.options] == [1, 2]
        await pilot.press("2")
        await pilot.pause()
        played = logged(session, EventKind.PLAYED)[0]
        assert played.card == parse_card("R7") and played.target == 2
        assert any(e.kind is EventKind.UNO_CALLED and e.player == 0 for e in session.game.log)


@pytest.mark.asyncio
async def test_a_five_asks_whom_to_exchange_with_and_which_card_to_give() -> None:
    session = position("official,players=2,five_exchange=true",
                       [["R5", "G1", "B2"], ["Y3", "Y4", "Y5"]], "R3", current=0)
    async with opened(session) as (app, pilot):
        await pilot.press("1")  # the hand is sorted: R5 G1 B2
        assert isinstance(app.screen, ChoiceScreen)
        assert [value for _, value in app.screen.options] == [1, 15]  # Bob, or nobody
        await pilot.press("1")
        assert isinstance(app.screen, ChoiceScreen)
        assert [value for _, value in app.screen.options] == cards("G1", "B2")
        await pilot.press("2")
        await pilot.pause()
        gave = logged(session, EventKind.GAVE)[0]
        assert gave.player == 0 and gave.target == 1 and gave.cards == (parse_card("B2"),)


@pytest.mark.asyncio
async def test_several_cards_of_one_number_are_played_together() -> None:
    session = position("official,players=2,multi_play=same_number",
                       [["R5", "G5", "B1"], ["Y3", "Y4", "Y6"]], "R3", current=0)
    async with opened(session) as (app, pilot):
        await pilot.press("space", "right", "space")  # R5, then G5
        assert isinstance(app.screen, TableScreen)
        assert app.screen.hand.selected_cards() == cards("R5", "G5")
        await pilot.press("enter")
        played = logged(session, EventKind.PLAYED)[0]
        assert played.card == parse_card("R5") and played.cards == (parse_card("G5"),)
        assert session.game.color == 2


@pytest.mark.asyncio
async def test_jump_in_cards_are_playable_out_of_turn() -> None:
    session = position("jump_in,players=3", [["G5", "R1"], ["Y3", "Y4", "Y5"], ["B1", "B2"]],
                       "G5", current=1)
    session.game.fresh = False  # the start card was played on: a jump-in is open
    session.game.derive()  # a change made outside apply(): announced to the engine
    # The bot waits: the human jumps in first.
    async with opened(session, delay=600) as (app, pilot):
        offer = session.offer()
        assert session.game.current_player == 1 and parse_card("G5") in offer.play_cards
        assert "jump in" in static_text(app, "#status")
        assert isinstance(app.screen, TableScreen)
        await press_card(pilot, app.screen, parse_card("G5"))
        played = logged(session, EventKind.PLAYED)[0]
        assert played.player == 0 and played.card == parse_card("G5")


@pytest.mark.asyncio
async def test_bots_act_after_their_delay(
        table_timers: list[tuple[float, Any]]) -> None:
    timers = table_timers
    session = position("official,players=3", [["R1", "G2"], ["Y3", "Y4", "Y5"], ["Y6", "B2"]],
                       "Y9", current=1)
    app = PlayApp(session=session, delay=2.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert session.version == 0 and "thinking" in static_text(app, "#status")
        assert [delay for delay, _ in timers] == [2.0]
        for count in (1, 2):  # the delay passes: each bot acts when its timer fires
            timers[-1][1]()
            await pilot.pause()
            assert session.version == count and len(timers) == min(count + 1, 2)
        assert session.game.current_player == 0 and len(timers) == 2
        assert "Your turn" in static_text(app, "#status")


# ---------------------------------------------------------------------- replay
@pytest.mark.asyncio
async def test_the_replay_viewer_steps_and_hides_cards_in_a_seat_view(tmp_path: Path) -> None:
    game = Game(Rules.preset("official", players=3, rounds=1), 6)
    for _ in play(game, [make_bot("playfirst", seat) for seat in range(3)]):
        pass
    path = tmp_path / "match.json"
    Record.from_game(game).save(path)
    record = Record.load(path)
    frames = load_frames(record)
    app = ReplayApp(record, frames, title="match.json", seat=0, delay=NEVER)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "right", "right")
        assert app.index == 3 and "Step 3/" in static_text(app, "#step")
        shown = frames[3].game
        seat_view = static_text(app, "#table")
        assert "Seat 0's view" in static_text(app, "#title") and not app.show_all
        assert all(face(card) in seat_view for card in shown.hands[0])
        lines = seat_view.splitlines()
        seat_one = lines.index(next(line for line in lines if "Seat 1" in line))
        assert not lines[seat_one + 1].startswith("    ")  # Seat 1's cards are hidden
        await pilot.press("v")
        everyone = static_text(app, "#table")
        assert app.show_all and "all cards" in static_text(app, "#title")
        assert all(face(card) in everyone for card in shown.hands[1])
        await pilot.press("end")
        assert app.index == len(frames) - 1
        await pilot.press("home", "space")
        assert "▶ auto" in static_text(app, "#step") and app.index == 0
        await pilot.press("space")
        assert "▶ auto" not in static_text(app, "#step")
        await pilot.press("q")


@pytest.mark.asyncio
async def test_the_replay_viewer_opens_as_a_spectator(tmp_path: Path) -> None:
    game = Game(Rules.preset("official", players=3, rounds=1), 6)
    for _ in play(game, [make_bot("playfirst", seat) for seat in range(3)]):
        pass
    record = Record.from_game(game)
    frames = load_frames(record)
    app = ReplayApp(record, frames, title="match.json", delay=NEVER)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "right")
        assert "spectator's view" in static_text(app, "#title") and app.viewer is None
        lines = static_text(app, "#table").splitlines()
        assert not any(line.startswith("    ") for line in lines)  # no hand is shown
        assert not any(face(card) in line for line in lines[3:]
                       for hand in frames[2].game.hands for card in hand
                       if "Top" not in line)
        await pilot.press("v")
        assert "all cards" in static_text(app, "#title")
        assert any(line.startswith("    ") for line in static_text(app, "#table").splitlines())
        await pilot.press("v")
        assert "spectator's view" in static_text(app, "#title")


@pytest.mark.asyncio
async def test_untrusted_names_are_shown_safely_in_the_viewer_and_the_game() -> None:
    game = Game(Rules.preset("official", players=3, rounds=1), 6)
    for _ in play(game, [make_bot("playfirst", seat) for seat in range(3)]):
        pass
    names = ["A\x1b[31mRED", "B\nSeat 1 plays W+4.", ":smile: [bold]x" + "y" * 100]
    record = Record.from_game(game, players=names)  # as a record file could hold them
    app = ReplayApp(record, load_frames(record), title="x\ny", delay=NEVER)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end", "v")
        shown = static_text(app, "#table") + static_text(app, "#title")
        log = " ".join(str(line.text) for line in app.query_one("#log").lines)
        for text in (shown, log):
            assert "\x1b" not in text and "😄" not in text and "A\\x1b[31mRED" in text
        assert "B\\nSeat 1 plays W+4." in shown and "x\\ny" in shown
        assert ":smile: [bold]x" in shown and "y" * 40 not in shown
        await pilot.press("q")
    session = position("official,players=2", [["R5", "R6"], ["Y3", "Y4"]], "R3", current=0)
    session.names[0] = "Me\x1b]0;pwned\x07"
    play_app = PlayApp(session=session, delay=NEVER, name="N\x1b[2J")
    assert play_app.player_name == "N\\x1b[2J"
    async with play_app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert session.names[0] == "Me\\x1b]0;pwned\\x07"
        assert "\x1b" not in str(play_app.screen.query_one("#hand-box").border_title)


# ---------------------------------------------------------------------- snapshots
def table_app(players: int = 3, seed: int = 3) -> PlayApp:
    config = PlayConfig(Rules.preset("official", players=players, rounds=1), seed=seed,
                        levels=("playfirst",) * (players - 1))
    return PlayApp(config, delay=0)


def test_snapshot_of_the_table(snap_compare: Any) -> None:
    assert snap_compare(table_app(), terminal_size=SIZE)


def test_snapshot_of_the_table_in_a_large_terminal(snap_compare: Any) -> None:
    assert snap_compare(table_app(players=5, seed=27), terminal_size=(120, 40))


def test_snapshot_of_the_colour_picker(snap_compare: Any) -> None:
    session = position("official,players=2", [["R5", "G7", "W", "B+2"], ["Y3", "Y4"]], "B3",
                       current=0)
    # The hand is sorted: R5 G7 B+2 W; key 4 is the wild.
    assert snap_compare(PlayApp(session=session, delay=0), press=["4"], terminal_size=SIZE)


def test_snapshot_of_the_challenge_prompt(snap_compare: Any) -> None:
    session = position("official,players=3",
                       [["R5", "G7", "B1"], ["G1", "G2"], ["W+4", "Y5", "Y6"]], "B3",
                       current=2)
    assert snap_compare(PlayApp(session=session, delay=0), terminal_size=SIZE)


def test_snapshot_of_the_round_end(snap_compare: Any) -> None:
    session = position("official,players=3", [["R5"], ["G1", "G2"], ["W+4", "B+2", "Y9"]],
                       "R3", current=0)
    assert snap_compare(PlayApp(session=session, delay=0), press=["1"], terminal_size=SIZE)



# ---------------------------------------------------------------------- command line
def test_play_checks_its_options_before_opening(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    import unokit.tui.app
    from unokit.cli import app as cli

    started: list[tuple[PlayConfig | None, float, str]] = []
    monkeypatch.setattr(unokit.tui.app, "run_play",
                        lambda config, *, delay, name: started.append((config, delay, name)))
    runner = CliRunner()
    result = runner.invoke(cli, ["play", "--rules", "official,rounds=zero"])
    assert result.exit_code == 2 and "rounds" in result.output
    result = runner.invoke(cli, ["play", "--bots", "nobody", "--seed", "3"])
    assert result.exit_code == 2 and "unknown bot 'nobody'" in result.output
    assert not started
    result = runner.invoke(cli, ["play", "--players", "3", "--bots", "random", "--seed", "8",
                                 "--name", "Ann", "--delay", "0.1"])
    assert result.exit_code == 0, result.output
    config, delay, name = started[-1]
    assert config is not None and config.rules.players == 3 and config.seed == 8
    assert config.levels == ("random", "random") and config.name == name == "Ann"
    assert delay == 0.1
    result = runner.invoke(cli, ["play"])
    assert result.exit_code == 0 and started[-1][0] is None  # the setup screen


def test_replay_tui_checks_the_record_and_the_seat(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from unokit.cli import app as cli

    opened: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self: opened.append(self))
    game = Game(Rules.preset("official", players=2, rounds=1), 3)
    for _ in play(game, [make_bot("playfirst", seat) for seat in range(2)]):
        pass
    path = tmp_path / "match.json"
    Record.from_game(game).save(path)
    runner = CliRunner()
    result = runner.invoke(cli, ["replay", str(path), "--tui", "--as", "5"])
    assert result.exit_code == 2 and "--as 5" in result.output and not opened
    result = runner.invoke(cli, ["replay", str(path), "--tui", "--as", "1"])
    assert result.exit_code == 0 and opened and not opened[0].show_all
    assert opened[0].frames[-1].game == game
    broken = tmp_path / "broken.json"
    broken.write_text(path.read_text().replace('"1:', '"0:', 1))
    result = runner.invoke(cli, ["replay", str(broken), "--tui"])
    assert result.exit_code == 2 and len(opened) == 1
