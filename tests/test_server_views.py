"""One encoding per view (``src/unokit/server/views.py``): after an action, viewers that
see the same (the spectators, seats whose redacted events and legal actions agree) get
the same bytes, encoded once; redaction stays per viewer, so a seat never gets another
seat's card; and each seat's legal actions are worked out once per position."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from room_kit import Conn, Table, kind
from unokit.engine.driver import Driver
from unokit.engine.events import Event, EventKind
from unokit.engine.game import Game
from unokit.server import protocol as P
from unokit.server.views import SeatLegal, events_messages, seatless_text

RULES = {"preset": "official", "players": 3, "hand_size": 7, "rounds": 1}


def events_of(conn: Conn, since: int) -> list[bytes]:
    """The events messages ``conn`` got after its first ``since`` messages."""
    return [d for d in conn.sent[since:] if msgspec.json.decode(d)["type"] == "events"]


def hidden_from(events: list[Event], viewer: int | None) -> dict[int, Event]:
    """The events of ``events`` whose cards ``viewer`` (None: a spectator) may not see,
    by sequence number."""
    return {e.seq: e for e in events if e.visible_to is not None and e.cards
            and (viewer is None or viewer not in e.visible_to)}


def assert_sees_only_its_own(data: bytes, log: list[Event], viewer: int | None) -> None:
    """No card of ``data``'s events is one ``viewer`` may not see."""
    secret = hidden_from(log, viewer)
    for shown in msgspec.json.decode(data)["events"]:
        if shown["seq"] in secret:
            assert "cards" not in shown, (viewer, shown)
        if viewer is None and shown["kind"] == "round_ended":
            assert "hands" not in shown.get("data", {}), shown


@pytest.mark.asyncio
async def test_spectators_share_bytes_and_no_seat_gets_another_seats_card(
        tmp_path: Path) -> None:
    from unokit.store import Store
    store = Store(f"sqlite:///{tmp_path / 'views.db'}")
    try:
        table = await Table.open(store, rules=RULES)
        seats = [(await table.join(name))[0] for name in ("Ann", "Bob", "Cy")]
        watchers = [Conn(), Conn()]
        for watcher in watchers:
            await table.handle("hello", watcher, P.Hello(room=table.room.code, spectate=True))
        assert kind(await table.send(seats[0], P.Start(id="start"))) == "ack"
        game, driver = table.room.game, table.room.driver
        assert game is not None and driver is not None
        shared_seats = draws = 0
        for n in range(40):
            if table.room.status != "playing":
                break
            lead = driver.lead()
            before = {id(c): len(c.sent) for c in (*seats, *watchers)}
            action = table.room._legal(lead)[0][0]
            assert kind(await table.send(seats[lead], P.Act(id=f"a{n}", action=action))) == "ack"
            got = {id(c): events_of(c, before[id(c)]) for c in (*seats, *watchers)}
            first, second = (got[id(w)] for w in watchers)
            assert len(first) == 1 and first == second
            assert first[0] is second[0]  # one encoding for every spectator
            assert_sees_only_its_own(first[0], game.log, None)
            for seat, conn in enumerate(seats):
                [mine] = got[id(conn)]
                assert_sees_only_its_own(mine, game.log, seat)
            draws += action == "draw"
            # the seats that do not lead, with nothing hidden between them, share bytes
            others = [got[id(seats[s])][0] for s in range(3) if s != driver.lead()]
            if msgspec.json.decode(others[0]) == msgspec.json.decode(others[1]):
                assert others[0] is others[1]
                shared_seats += 1
        assert shared_seats > 0 and draws > 0
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_legal_actions_are_worked_out_once_per_seat_and_position(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from unokit.store import Store
    store = Store(f"sqlite:///{tmp_path / 'legal.db'}")
    try:
        table = await Table.open(store, rules=RULES)
        seats = [(await table.join(name))[0] for name in ("Ann", "Bob", "Cy")]
        assert kind(await table.send(seats[0], P.Start(id="start"))) == "ack"
        game, driver = table.room.game, table.room.driver
        assert game is not None and driver is not None
        asked: list[int] = []
        real = Game.legal_actions

        def counted(self: Game, player: Any) -> list[int]:
            if self is game:
                asked.append(player)
            return real(self, player)
        monkeypatch.setattr(Game, "legal_actions", counted)
        lead = driver.lead()
        move = table.room._legal(lead)[0][0]
        asked.clear()
        assert kind(await table.send(seats[lead], P.Act(id="m", action=move))) == "ack"
        for n, conn in enumerate(seats):  # every seat asks for a snapshot too
            await table.handle("msg", conn, P.SnapshotRequest(id=f"s{n}"))
        for seat in range(3):  # at most once per seat for the apply, the send and reads
            assert asked.count(seat) <= 1 + (seat == lead), (seat, asked)
        assert sorted(set(asked)) == [0, 1, 2]
        # the lead is worked out last: the engine's own list is the next mover's
        assert asked[-1] == driver.lead()
    finally:
        await store.close()


def test_a_new_position_or_game_is_worked_out_afresh() -> None:
    game = Game("official,players=2", seed=5)
    driver, seats = Driver(game), SeatLegal()
    lead = driver.lead()
    legal, must = seats.of(game, driver, lead)
    assert must and legal == [seatless_text(a) for a in game.legal_actions(lead)]
    assert seats.of(game, driver, lead)[0] is legal  # the same position: kept
    game.apply(game.legal_actions(lead)[0])
    after = seats.of(game, driver, lead)
    assert after[0] is not legal and after[1] == (driver.lead() == lead)
    other = Game("official,players=2", seed=5)  # a game rebuilt (a rollback, say)
    assert seats.of(other, Driver(other), lead)[0] is not after[0]
    assert seats.of(game, driver, -1) == ([], False)


def test_a_drawn_card_reaches_only_its_drawer() -> None:
    game = Game("official,players=3", seed=2)
    driver = Driver(game)
    drawn = Event(seq=len(game.log), kind=EventKind.DREW, player=1, cards=(5,), amount=1,
                  visible_to=(1,))
    public = Event(seq=len(game.log) + 1, kind=EventKind.SKIPPED, player=2)

    def nothing(viewer: int) -> tuple[list[str], bool]:
        return [], False
    out = events_messages(game, driver, [drawn, public], [0, 1, 2, -1], nothing)
    seen = {v: msgspec.json.decode(data)["events"][0] for v, data in out.items()}
    assert seen[1]["cards"] == [drawn.to_dict()["cards"][0]]
    assert all("cards" not in seen[v] and seen[v]["amount"] == 1 for v in (0, 2, -1))
    assert out[0] is out[2] is out[-1]  # the same view, one encoding
    assert out[1] is not out[0]
    # an ack rides only in its own connection's message
    ack = P.Ack(id="x", seq=public.seq)
    acked = events_messages(game, driver, [public], [0, 2], nothing, ack_viewer=2, ack=ack)
    assert msgspec.json.decode(acked[2])["ack"] == {"type": "ack", "id": "x", "seq": public.seq}
    assert "ack" not in msgspec.json.decode(acked[0])


def test_an_action_text_parses_the_same_cached_or_not() -> None:
    from unokit.engine.actions import parse_action
    from unokit.engine.errors import ActionCodeError
    from unokit.server.room_base import CACHED_TEXT, seat_action
    for text in ("R5", "draw", "W+4>B!", "catch 2", " " * CACHED_TEXT + "R5"):
        assert seat_action(1, text) == seat_action(1, text) == parse_action(f"1:{text}")
    assert seat_action(1, "R5") != seat_action(2, "R5")
    for bad in ("R55", "x" * (CACHED_TEXT + 1), "catch x"):
        with pytest.raises(ActionCodeError):
            seat_action(0, bad)
