"""The terminal game online (``unokit play --server URL``): the table of a room on a real
server (tests/server_harness.py, SQLite), driven by Textual's pilot.

A round is played from the keys to the end of the match; a refused action shows the
table's error line and changes nothing; a server restart mid-round shows "reconnecting"
and the table comes back with the same hand; the token file takes the seat back; and
the command line's errors are one line. Nothing waits for a fixed time: the tests wait
for the session's conditions (:meth:`OnlineSession.wait`) with a bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from server_harness import running_server, server_settings
from unokit.cli import app as cli_app
from unokit.client import GameClient, create_room, run_bot
from unokit.client.client import ClientError
from unokit.engine import actions as A
from unokit.engine.events import Event, EventKind
from unokit.formats.record import Record
from unokit.server import protocol as P
from unokit.tui.online import OnlineSession, Turn, event_from_dict
from unokit.tui.online_join import TokenStore, check_room, default_token_file, new_room_fields
from unokit.tui.online_screen import LobbyScreen, OnlineApp, OnlineTableScreen
from unokit.tui.screens import ChallengePrompt, ChoiceScreen, ColorPicker, EndScreen
from unokit.tui.widgets import KEY_LABELS

pytestmark = pytest.mark.usefixtures("instant_buttons")

SIZE = (100, 32)
SEED = bytes(range(32))
WAIT = 30.0
"""The most seconds any one condition is waited for."""


def sqlite(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'rooms.db'}"


def static_text(screen: Any, selector: str) -> str:
    return str(screen.query_one(selector).render())


async def until(pilot: Any, session: OnlineSession, condition: Callable[[], bool]) -> None:
    """Wait for ``condition`` (checked after every change of the session), then let the
    screens catch up."""
    await session.wait(condition, WAIT)
    await pilot.pause()


async def shown(pilot: Any, condition: Callable[[], bool]) -> None:
    """Let the screens work until ``condition`` holds (a bounded number of rounds)."""
    for _ in range(200):
        if condition():
            return
        await pilot.pause()
    raise AssertionError("the screen did not get there")


def ready(session: OnlineSession) -> bool:
    """The session's view is as new as the last event, and the seat has something to do
    (or the match is over)."""
    return session.current and (session.game.is_over() or (bool(session.legal())
                                and session.must))


@contextlib.asynccontextmanager
async def opened(app: OnlineApp) -> AsyncIterator[Any]:
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(app.opened.wait(), WAIT)
        assert app.session is not None, app.start_error
        await pilot.pause()
        yield pilot


async def start_from_lobby(pilot: Any, app: OnlineApp) -> OnlineSession:
    session = app.session
    assert session is not None
    await shown(pilot, lambda: isinstance(app.screen, LobbyScreen)
                and session.code in static_text(app.screen, "#lobby-title"))
    lobby = app.screen
    assert session.code in static_text(lobby, "#lobby-title")
    await pilot.press("s")
    await until(pilot, session, lambda: session.started and session.current)
    await shown(pilot, lambda: app.table is not None and app.table.is_mounted)
    return session


async def step(pilot: Any, app: OnlineApp) -> bool:
    """Make one move with the keys; False once the match is over."""
    session = app.session
    assert session is not None
    await until(pilot, session, lambda: ready(session))
    screen = app.screen
    if session.game.is_over():
        await shown(pilot, lambda: isinstance(app.screen, EndScreen))
        return False
    before = session.version
    if isinstance(screen, EndScreen):
        await pilot.press("enter")
    elif isinstance(screen, ColorPicker):
        await pilot.press("r")
    elif isinstance(screen, ChallengePrompt):
        await pilot.press("d")
    elif isinstance(screen, ChoiceScreen):
        await pilot.press("1")
    else:
        table = screen
        assert isinstance(table, OnlineTableScreen)
        offer = session.offer()
        playable = [i for i, card in enumerate(table.hand.cards)
                    if card in offer.play_cards and i < len(KEY_LABELS)]
        if playable:
            if offer.uno_plays and not table.uno_armed:
                await pilot.press("u")  # arm the UNO call: the play calls it
            await pilot.press(KEY_LABELS[playable[0]])
        elif offer.draw is not None:
            await pilot.press("d")
        elif offer.pass_turn is not None:
            await pilot.press("p")
        else:
            await pilot.press("a", "1")
    await pilot.pause()
    if not isinstance(app.screen, ChoiceScreen | ColorPicker | ChallengePrompt):
        await until(pilot, session, lambda: session.version != before
                    or bool(getattr(app.screen, "error", "")))
    return True


def hand_of(app: OnlineApp) -> list[int]:
    assert app.session is not None
    return sorted(app.session.observation().hand)


# ---------------------------------------------------------------- pure parts
def test_seats_turn_so_the_player_sits_at_zero() -> None:
    turn = Turn(me=1, n=3)
    assert [turn.local(s) for s in range(3)] == [2, 0, 1]
    assert [turn.remote(turn.local(s)) for s in range(3)] == [0, 1, 2]
    assert turn.by_seat([10, 11, 12]) == [11, 12, 10]
    assert turn.local_text("catch 2") == "catch 1" and turn.remote_text("catch 1") == "catch 2"
    assert turn.remote_text("R7@0!") == "R7@1!" and turn.local_text("W>R") == "W>R"
    ended = event_from_dict({"seq": 9, "kind": "round_ended", "player": 1,
                             "data": {"points": [0, 5, 0], "scores": [0, 5, 0],
                                      "hands": [["R1"], [], ["B2"]], "finish_order": [1]}})
    local = turn.event(ended)
    assert local.player == 0 and local.data["points"] == [5, 0, 0]
    assert local.data["hands"] == [[], ["B2"], ["R1"]] and local.data["finish_order"] == [0]
    dealt = turn.event(Event(3, EventKind.DEALT, player=1, cards=(4,), amount=1,
                             visible_to=(1,)))
    assert dealt.player == 0 and dealt.visible_to == (0,)


def stub_session(events: list[dict[str, Any]]) -> OnlineSession:
    """A session of seat 1 of a three-seat room, around a client that is only data."""
    seats = [{"seat": 0, "kind": "human", "name": "Bea", "connected": True},
             {"seat": 1, "kind": "human", "name": "Ann", "connected": True},
             {"seat": 2, "kind": "bot", "name": "easy bot", "bot": "easy"}]
    client = SimpleNamespace(
        seat=1, room={"code": "ABCDEF", "rules": {"preset": "official", "players": 3},
                      "rules_text": "official,players=3", "seats": seats},
        events=events, listeners=[], room_code="ABCDEF", last_seq=len(events) - 1,
        legal=[], must=False, lead=-1)
    return OnlineSession(client)  # type: ignore[arg-type]


def test_the_log_and_the_server_texts_speak_of_the_table() -> None:
    session = stub_session([
        {"seq": 0, "kind": "dealer_draw", "player": 1, "card": "G5"},
        {"seq": 1, "kind": "a_kind_from_a_newer_server", "player": 0},
        {"seq": 2, "kind": "played", "player": 0, "card": "R5"}])
    assert session.names == ["You", "easy bot", "Bea"]
    assert session.levels == ["you", "bot", "online"]
    plain = [line.plain for line in session.lines]
    assert plain[0] == "You draw ♣G5 to choose the dealer."
    assert "a_kind_from_a_newer_server" in plain[1] and "not known" in plain[1]
    assert plain[2] == "Bea plays ♥R5."
    assert [e.player for e in session.log] == [0, 2]  # the table's seats
    assert session.named("it is seat 1's turn (phase play), not seat 0's") == \
        "it is your turn (phase play), not Bea's"
    assert session.remote_text(A.catch(0, 2)) == "catch 0"


def test_the_token_store_keeps_a_token_per_server_and_room(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "deep" / "tokens.json")
    assert store.get("http://a", "ROOM") is None
    store.put("http://a/", "room", "t1", 0)
    store.put("http://b", "ROOM", "t2", 1)
    assert store.get("http://a", "ROOM") == "t1" and store.get("http://b", "room") == "t2"
    assert (tmp_path / "deep" / "tokens.json").stat().st_mode & 0o077 == 0
    store.forget("http://a", "ROOM")
    assert store.get("http://a", "ROOM") is None and store.get("http://b", "ROOM") == "t2"
    (tmp_path / "deep" / "tokens.json").write_text("not json")
    assert store.get("http://b", "ROOM") is None  # a broken file is an empty one


def test_tokens_live_under_the_data_dir(monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_token_file() == tmp_path / "unokit" / "tokens.json"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_token_file() == tmp_path / "home" / ".local/share/unokit/tokens.json"


# ---------------------------------------------------------------- against a server
@pytest.mark.asyncio
async def test_a_new_room_with_a_bot_is_played_from_the_keys_to_the_end(
        tmp_path: Path) -> None:
    async with running_server(server_settings(sqlite(tmp_path)), seeds=[SEED]) as server:
        app = OnlineApp(server.url, None, name="Ann",
                        create={"rules": "official,players=2,rounds=2,hand_size=2"},
                        tokens=TokenStore(tmp_path / "tokens.json"))
        async with opened(app) as pilot:
            session = app.session
            assert session is not None
            await shown(pilot, lambda: isinstance(app.screen, LobbyScreen)
                        and session.code in static_text(app.screen, "#lobby-title"))
            lobby = app.screen
            assert isinstance(lobby, LobbyScreen)
            assert "invite" in static_text(lobby, "#lobby-title").lower()
            await pilot.press("s")  # a seat is empty: the server refuses the start
            await shown(pilot, lambda: "✗" in static_text(lobby, "#lobby-error"))
            await pilot.press("t")  # the turn timer: off -> 15 s
            await until(pilot, session, lambda: session.room["turn_timer"] == 15)
            assert "15 s" in static_text(lobby, "#seats")
            await pilot.press("t", "t", "t")  # 30, 60, off
            await until(pilot, session, lambda: session.room["turn_timer"] == 0)
            await pilot.press("b")  # the host seats a bot of the level shown
            await until(pilot, session,
                        lambda: session.room["seats"][1].get("bot") == "normal")
            await pilot.press("r")  # and takes it off again
            await until(pilot, session, lambda: session.room["seats"][1]["kind"] == "empty")
            for _ in range(20):  # the bot level goes round the bots
                if lobby.level == "playfirst":
                    break
                await pilot.press("l")
            assert "add a playfirst bot" in static_text(lobby, "#keys")
            await pilot.press("b")
            await until(pilot, session,
                        lambda: session.room["seats"][1].get("bot") == "playfirst")
            session = await start_from_lobby(pilot, app)
            table = app.screen
            assert isinstance(table, OnlineTableScreen)
            assert "room " + session.code in static_text(table, "#title")
            assert session.names[0] == "Ann"
            for _ in range(400):
                if not await step(pilot, app):
                    break
            end = app.screen
            assert isinstance(end, EndScreen) and end.summary.match_over
            assert session.client.reveal is not None
            ended = [e for e in session.log if e.kind is EventKind.ROUND_ENDED]
            assert ended and end.summary.rows[0].total == ended[-1].data["scores"][0]
            # the log has a line for each event, names the seat as the table shows it,
            # and hides the bot's cards
            assert len(session.lines) == len(session.log) == len(session.client.events)
            assert any(line.plain.startswith("Ann plays") for line in session.lines)
            dealt = [e for e in session.log if e.kind is EventKind.DEALT]
            assert {e.player for e in dealt} == {0, 1}
            assert all(bool(e.cards) == (e.player == 0) for e in dealt)
            # the record the server publishes at the end is saved from the end screen
            await until(pilot, session, lambda: bool(session.record_text))
            saved = tmp_path / "match.json"
            assert "saved" in app.save_record(str(saved))
            record = Record.load(saved)
            assert record.players[0] == "Ann" and len(record.actions) > 0
        stored = json.loads((tmp_path / "tokens.json").read_text())
        assert any(key.endswith(session.code) for key in stored)


@pytest.mark.asyncio
async def test_a_player_at_another_seat_plays_a_round_with_a_remote_bot(
        tmp_path: Path) -> None:
    async with running_server(server_settings(sqlite(tmp_path)), seeds=[SEED]) as server:
        made = await create_room(server.url, rules="official,players=3,rounds=1,hand_size=3",
                                 bots=["playfirst"])
        host = await GameClient.join(server.url, made["code"], name="Remo")  # seat 0
        app = OnlineApp(server.url, made["code"], name="Ann")
        async with opened(app) as pilot:
            session = app.session
            assert session is not None and session.client.seat == 2
            await host.start()
            bot = asyncio.create_task(run_bot(server.url, made["code"], "playfirst",
                                              client=host))
            await until(pilot, session, lambda: session.started and session.current)
            await shown(pilot, lambda: app.table is not None and app.table.is_mounted)
            assert session.names == ["Ann", "Remo", "playfirst bot"]
            for _ in range(400):
                if not await step(pilot, app):
                    break
            assert session.game.is_over()
            end = app.screen
            assert isinstance(end, EndScreen)
            ended = host.events[-2]
            assert ended["kind"] == "round_ended"
            # the end screen lists the seats as the table shows them: Ann first
            scores = ended["data"]["scores"]
            assert [row.total for row in end.summary.rows] == scores[2:] + scores[:2]
            assert [row.name for row in end.summary.rows] == ["Ann", "Remo", "playfirst bot"]
            await asyncio.wait_for(bot, WAIT)
        await host.close()


@pytest.mark.asyncio
async def test_a_refused_action_shows_an_error_and_changes_nothing(tmp_path: Path) -> None:
    async with running_server(server_settings(sqlite(tmp_path)), seeds=[SEED]) as server:
        made = await create_room(server.url, rules="official,players=2", bots=["playfirst"])
        app = OnlineApp(server.url, made["code"], name="Ann")
        async with opened(app) as pilot:
            session = await start_from_lobby(pilot, app)
            table = app.screen
            assert isinstance(table, OnlineTableScreen)
            await until(pilot, session, lambda: ready(session))
            assert session.offer().pass_turn is None  # nothing was drawn: no pass
            hand, seq = hand_of(app), session.client.last_seq
            await pilot.press("p")
            await until(pilot, session, lambda: bool(table.error))
            assert "✗" in static_text(table, "#status")
            assert hand_of(app) == hand and session.client.last_seq == seq
            assert session.must  # still the seat's turn
            await step(pilot, app)  # and a legal move goes through
            assert session.client.last_seq > seq


@pytest.mark.asyncio
async def test_a_server_restart_mid_round_resumes_the_table(tmp_path: Path) -> None:
    settings = server_settings(sqlite(tmp_path))
    async with running_server(settings, seeds=[SEED]) as server:
        made = await create_room(server.url, rules="official,players=2", bots=["playfirst"])
        app = OnlineApp(server.url, made["code"], name="Ann")
        async with opened(app) as pilot:
            session = await start_from_lobby(pilot, app)
            await step(pilot, app)
            await until(pilot, session, lambda: ready(session))
            hand, seq = hand_of(app), session.client.last_seq
            table = app.screen
            assert isinstance(table, OnlineTableScreen)
            server.server.should_exit = True  # the server stops (gracefully)
            await until(pilot, session, lambda: session.connection == "reconnecting")
            assert "Reconnecting" in static_text(table, "#status")
            await pilot.press("d")  # not sent while the connection is down
            await shown(pilot, lambda: "connection to the server is down"
                        in static_text(table, "#status"))
            async with running_server(settings) as again:  # the same database
                session.client.base = again.url  # the server came back on another port
                await until(pilot, session, lambda: session.connection == "connected"
                            and ready(session))
                assert "Reconnecting" not in static_text(table, "#status")
                assert hand_of(app) == hand and session.client.last_seq == seq
                await step(pilot, app)
                assert session.client.last_seq > seq


@pytest.mark.asyncio
async def test_the_token_file_takes_the_seat_back(tmp_path: Path) -> None:
    tokens = TokenStore(tmp_path / "tokens.json")
    async with running_server(server_settings(sqlite(tmp_path)), seeds=[SEED]) as server:
        made = await create_room(server.url, rules="official,players=3",
                                 bots=["playfirst"])
        host = await GameClient.join(server.url, made["code"], name="Bea")  # seat 0
        first = OnlineApp(server.url, made["code"], name="Ann", tokens=tokens)
        async with opened(first) as pilot:
            session = first.session
            assert session is not None and session.client.seat == 2
            await host.start()
            await until(pilot, session, lambda: session.started and session.current)
            await shown(pilot, lambda: isinstance(first.screen, OnlineTableScreen))
            # the table turns the room: Ann (seat 2) sits at 0, then Bea, then the bot
            assert session.names == ["Ann", "Bea", "playfirst bot"]
            assert session.levels == ["you", "online", "bot"]
            assert len(session.observation().hand) == 7
            hand = hand_of(first)
        assert tokens.get(server.url, made["code"]) is not None
        await host.wait_for(lambda c: not c.room["seats"][2].get("connected"))
        # the same command again: the same seat and hand, no new player
        again = OnlineApp(server.url, made["code"], name="Ann", tokens=tokens)
        async with opened(again) as pilot:
            session = again.session
            assert session is not None
            await until(pilot, session, lambda: session.started and session.current)
            assert session.client.seat == 2 and hand_of(again) == hand
            await shown(pilot, lambda: isinstance(again.screen, OnlineTableScreen))
        assert [s["name"] for s in host.room["seats"]] == ["Bea", "playfirst bot", "Ann"]
        await host.close()


@pytest.mark.asyncio
async def test_the_turn_timer_shows_on_the_table(tmp_path: Path) -> None:
    async with running_server(server_settings(sqlite(tmp_path)), seeds=[SEED]) as server:
        made = await create_room(server.url, rules="official,players=2", bots=["playfirst"],
                                 turn_timer=60)
        app = OnlineApp(server.url, made["code"], name="Ann")
        async with opened(app) as pilot:
            session = await start_from_lobby(pilot, app)
            await until(pilot, session, lambda: ready(session)
                        and session.timer_left(asyncio.get_running_loop().time())
                        is not None)
            table = app.screen
            assert isinstance(table, OnlineTableScreen)
            status = static_text(table, "#status")
            assert "s left for your turn" in status, status
            now = asyncio.get_running_loop().time()
            clock = session.timer_left(now)
            assert clock is not None and clock[0] == 0 and 50 < clock[1] <= 60
            # once the minute is over the clock goes from the status at the next tick
            assert session._timer_at is not None
            session._timer_at -= 61
            table._tick()
            assert "⏱" not in static_text(table, "#status")


@pytest.mark.asyncio
async def test_an_away_seat_shows_on_the_table(tmp_path: Path) -> None:
    # two turns run out, the seat is away
    settings = server_settings(sqlite(tmp_path), timer_scale=0.01)  # 15 s: 0.15 s
    async with running_server(settings, seeds=[SEED]) as server:
        made = await create_room(server.url, rules="official,players=2,rounds=1",
                                 bots=["playfirst"], turn_timer=15)
        app = OnlineApp(server.url, made["code"], name="Ann")
        async with opened(app) as pilot:
            session = await start_from_lobby(pilot, app)
            await until(pilot, session, lambda: session.away(0))
            table = app.table
            assert table is not None
            assert "Away: a bot plays for you" in static_text(table, "#status")


@pytest.mark.asyncio
async def test_a_spectator_watches_without_playing(tmp_path: Path) -> None:
    async with running_server(server_settings(sqlite(tmp_path)), seeds=[SEED]) as server:
        made = await create_room(server.url, rules="official,players=2",
                                 bots=["playfirst"])
        host = await GameClient.join(server.url, made["code"], name="Ann")
        await host.start()
        app = OnlineApp(server.url, made["code"], spectate=True)
        async with opened(app) as pilot:
            session = app.session
            assert session is not None and session.spectating
            await until(pilot, session, lambda: session.started and session.current)
            assert isinstance(app.screen, OnlineTableScreen)
            assert session.legal() == [] and session.observation().hand == ()
            assert "watching" in static_text(app.screen, "#title")
            assert "Your turn" not in static_text(app.screen, "#status")
            await pilot.press("d")  # a spectator's key is refused on the spot
            await shown(pilot, lambda: "spectators do not play"
                        in static_text(app.screen, "#status"))
        await host.close()


@pytest.mark.asyncio
async def test_a_kicked_player_is_told_and_not_reconnected(tmp_path: Path) -> None:
    async with running_server(server_settings(sqlite(tmp_path))) as server:
        made = await create_room(server.url, rules="official,players=2")
        host = await GameClient.join(server.url, made["code"], name="Bea")  # seat 0
        app = OnlineApp(server.url, made["code"], name="Ann")
        async with opened(app) as pilot:
            session = app.session
            assert session is not None and session.client.seat == 1
            await shown(pilot, lambda: isinstance(app.screen, LobbyScreen)
                        and "Waiting for the host" in static_text(app.screen, "#keys"))
            await host.command(P.Kick, seat=1)
            await until(pilot, session, lambda: session.connection == "gone")
            assert "closed the seat" in static_text(app.screen, "#seats")
            assert "sent you away" in session.gone_reason
        await host.close()


@pytest.mark.asyncio
async def test_the_app_says_why_it_cannot_join(tmp_path: Path) -> None:
    async with running_server(server_settings(sqlite(tmp_path))) as server:
        app = OnlineApp(server.url, "NOSUCH", name="Ann")
        async with app.run_test(size=SIZE):
            await asyncio.wait_for(app.opened.wait(), WAIT)
        assert app.session is None and app.start_error.startswith("no_room")


# ---------------------------------------------------------------- the command line
runner = CliRunner()


def _one_line_error(result: Any) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return str(lines[0])


@pytest.mark.asyncio
async def test_play_with_a_room_the_server_lacks_is_a_one_line_error(tmp_path: Path) -> None:
    async with running_server(server_settings(sqlite(tmp_path))) as server:
        result = await asyncio.to_thread(runner.invoke, cli_app, [
            "play", "--server", server.url, "--room", "BAD",
            "--token-file", str(tmp_path / "t.json")])
    assert "BAD" in _one_line_error(result)


@pytest.mark.asyncio
async def test_the_command_line_makes_a_room_before_the_screen_opens(tmp_path: Path) -> None:
    async with running_server(server_settings(sqlite(tmp_path))) as server:
        fields = new_room_fields("official", 3, "easy")
        code = await asyncio.to_thread(check_room, server.url, None, fields)
        room = server.rooms.get(code)
        assert room is not None and [s.kind for s in room.seats] == ["empty", "bot", "bot"]
        assert await asyncio.to_thread(check_room, server.url, code.lower()) == code
        with pytest.raises(ClientError, match="bad_request"):
            await asyncio.to_thread(check_room, server.url, None, {"rules": "nonsense"})


def test_play_online_option_errors_are_one_line() -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    line = _one_line_error(runner.invoke(cli_app, ["play", "--server",
                                                   f"http://127.0.0.1:{port}", "--room", "X"]))
    assert "cannot reach" in line
    assert "--server" in _one_line_error(runner.invoke(cli_app, ["play", "--room", "X"]))
    assert "--room" in _one_line_error(runner.invoke(
        cli_app, ["play", "--server", "http://127.0.0.1:9", "--spectate"]))
    assert "--bots" in _one_line_error(runner.invoke(
        cli_app, ["play", "--server", "http://127.0.0.1:9", "--bots", "nobody"]))
    assert "--seed" in _one_line_error(runner.invoke(
        cli_app, ["play", "--server", "http://127.0.0.1:9", "--seed", "4"]))
    assert "http://" in _one_line_error(runner.invoke(
        cli_app, ["play", "--server", "127.0.0.1:9", "--room", "X"]))


class _ActionsFail:
    """A room's store whose action writes fail while ``failing`` (a database outage)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.failing = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def append_action(self, *args: Any, **kwargs: Any) -> None:
        if self.failing:
            from unokit.store import StoreError
            raise StoreError("the database refused a write: OperationalError")
        await self.store.append_action(*args, **kwargs)


@pytest.mark.asyncio
async def test_a_move_not_kept_shows_saving_and_goes_through_later(tmp_path: Path) -> None:
    async with running_server(server_settings(sqlite(tmp_path)), seeds=[SEED]) as server:
        made = await create_room(server.url, rules="official,players=2", bots=["playfirst"])
        app = OnlineApp(server.url, made["code"], name="Ann")
        async with opened(app) as pilot:
            session = await start_from_lobby(pilot, app)
            table = app.screen
            assert isinstance(table, OnlineTableScreen)
            await until(pilot, session, lambda: ready(session))
            room = server.rooms.get(made["code"])
            outage = _ActionsFail(room.store)
            room.store = outage  # type: ignore[assignment]
            hand, seq = hand_of(app), session.client.last_seq
            offer = session.offer()
            playable = [i for i, card in enumerate(table.hand.cards)
                        if card in offer.play_cards and i < len(KEY_LABELS)]
            await pilot.press(KEY_LABELS[playable[0]] if playable else "d")
            await pilot.pause()  # no delay: until the key's messages are handled
            if isinstance(app.screen, ColorPicker):
                await pilot.press("r")
            await until(pilot, session, lambda: session.saving)
            await shown(pilot, lambda: "Saving your move" in static_text(table, "#status"))
            assert hand_of(app) == hand and session.client.last_seq == seq
            assert not table.error  # not an error: the move is on its way
            outage.failing = False  # the database is back: the resend is kept
            await until(pilot, session, lambda: not session.saving
                        and session.client.last_seq > seq)
            await shown(pilot, lambda: "Saving your move" not in static_text(table, "#status"))
            assert hand_of(app) != hand
