"""The parts of a cluster of server processes, in one process: the ``redis_url``
setting, the room code in the WebSocket path, the owner's fan-out to relay processes
(:class:`~unokit.server.fanout_redis.RedisFanOut`) and the relay's repair of lost
events from the database (:class:`~unokit.server.relay.Relay`). The processes
themselves, with Redis, are in ``tests/test_cluster.py``."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from polling import until
from unokit.engine.actions import format_action
from unokit.engine.driver import Driver
from unokit.engine.events import redact
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.server import protocol as P
from unokit.server.app import create_app
from unokit.server.fanout import SPECTATORS
from unokit.server.fanout_redis import Fields, RedisFanOut, RemoteConnection, event_span
from unokit.server.relay import Relay, Relayed, after_only
from unokit.server.settings import Settings, SettingsError
from unokit.store import ActionData, SeatData, StoredRoom

RULES = '{"hand_size": 5, "players": 2, "preset": "official"}'


# ------------------------------------------------------------------ the setting
def test_redis_url_is_checked_and_never_repeated() -> None:
    assert Settings.from_env({"UNOKIT_REDIS_URL": "redis://10.0.0.5:6379/0"}).redis_url
    assert Settings(database_url="sqlite://").redis_url == ""
    for bad in ("http://cache:6379", "redis://:s3cret@cache :6379", "cache:6379"):
        with pytest.raises(SettingsError) as caught:
            Settings.from_env({"UNOKIT_REDIS_URL": bad})
        assert "UNOKIT_REDIS_URL" in str(caught.value)
        assert "s3cret" not in str(caught.value)


# ------------------------------------------------------------------ /ws/{code}
def test_the_websocket_path_may_name_the_room_and_must_match_the_hello() -> None:
    with TestClient(create_app(Settings(database_url="sqlite://", bot_delay=0))) as http:
        code = http.post("/api/rooms", json={"rules": "official,players=2"}).json()["code"]
        hello = P.encode(P.Hello(room=code, name="Ann")).decode()
        with http.websocket_connect(f"/ws/{code}") as ws:
            ws.send_text(hello)
            assert ws.receive_json()["type"] == "welcome"
        with http.websocket_connect(f"/ws/{code.lower()}") as ws:  # codes read in capitals
            ws.send_text(P.encode(P.Hello(room=code, name="Bob")).decode())
            assert ws.receive_json()["type"] == "welcome"
        with http.websocket_connect("/ws/ZZZZZZ") as ws:
            ws.send_text(P.encode(P.Hello(room=code, name="Eve")).decode())
            error = ws.receive_json()
        assert error["type"] == "error" and error["code"] == "bad_message"
        assert "path" in error["message"]
        room = http.get(f"/api/rooms/{code}").json()
        assert [s["name"] for s in room["seats"]] == ["Ann", "Bob"]  # Eve changed nothing


# ------------------------------------------------------------------ the owner's fan-out
class Bus:
    """What the fan-out and the relay need of :class:`~unokit.server.fanout_redis.Bus`:
    the entries are kept, not written."""

    me = "unokit:proc:here"

    def __init__(self) -> None:
        self.sent: list[tuple[str, Fields]] = []

    def send(self, stream: str, fields: Fields, on_fail: Any = None) -> None:
        self.sent.append((stream, fields))


class Local:
    def __init__(self, viewer: int) -> None:
        self.viewer, self.got = viewer, []

    def deliver(self, data: bytes) -> None:
        self.got.append(data)


def remote(bus: Any, fanout: RedisFanOut, stream: str, viewer: int) -> RemoteConnection:
    conn = RemoteConnection(bus, fanout, stream=stream, conn_id=f"{viewer}", room="R",
                            player=None, lang="en", rate=20, burst=40)
    conn.viewer = viewer
    return conn


def test_the_owner_sends_each_relay_process_one_entry_per_message() -> None:
    bus = Bus()
    fanout = RedisFanOut(bus)  # type: ignore[arg-type]
    here = Local(0)
    seat1, watcher = remote(bus, fanout, "s:b", 1), remote(bus, fanout, "s:b", SPECTATORS)
    elsewhere = remote(bus, fanout, "s:c", 1)
    fanout.join("R", here)
    for conn in (seat1, watcher, elsewhere):
        fanout.join("R", conn)
    assert fanout.viewers("R") == {0: 1, 1: 2, SPECTATORS: 1}
    events = {v: P.encode(P.Events(events=[{"seq": 7}, {"seq": 8, "v": v}]))
              for v in (0, 1, SPECTATORS)}
    fanout.publish("R", events)
    assert here.got == [events[0]]
    entries = dict(bus.sent)
    assert set(entries) == {"s:b", "s:c"}
    assert entries["s:b"] == {b"kind": b"b", b"room": b"R", b"seq": b"8", b"first": b"7",
                              b"v1": events[1], b"v-1": events[SPECTATORS]}
    assert entries["s:c"][b"v1"] == events[1] and b"v-1" not in entries["s:c"]
    # a message to one remote client carries its room, viewer and the room's seq
    bus.sent.clear()
    seat1.deliver(b'{"type":"pong"}')
    assert bus.sent == [("s:b", {b"kind": b"d", b"conn": b"1", b"room": b"R",
                                 b"viewer": b"1", b"seq": b"8", b"data": b'{"type":"pong"}'})]
    for conn in (seat1, watcher, elsewhere):
        fanout.leave("R", conn)
    assert fanout.viewers("R") == {0: 1}
    bus.sent.clear()
    fanout.publish("R", events)
    assert bus.sent == []  # no relay has clients of the room now


# ------------------------------------------------------------------ the relay's repair
def stored_match(actions: int) -> StoredRoom:
    """A stored two-seat match of ``actions`` actions (each seat's first legal one)."""
    game = Game(Rules.from_dict({"preset": "official", "players": 2, "hand_size": 5}), 42)
    driver = Driver(game)
    rows = []
    for n in range(actions):
        seat = driver.lead()
        action = game.legal_actions(seat)[0]
        driver.apply(action)
        rows.append(ActionData(n, format_action(action), seat, "player", None,
                               game.log[-1].seq, 0.0))
    return StoredRoom(id=1, code="ROOM01", rules=RULES, status="playing", turn_timer=0,
                      public=True, server_seed="00", commitment="c", seed=42,
                      created_at=0.0, seats=[SeatData(0, "human", "Ann"),
                                             SeatData(1, "human", "Bob")], actions=rows)


def view(stored: StoredRoom, seat: int) -> list[dict[str, Any]]:
    game = Game(Rules.from_dict({"preset": "official", "players": 2, "hand_size": 5}), 42)
    driver = Driver(game)
    from unokit.engine.actions import parse_action
    for row in stored.actions:
        driver.apply(parse_action(row.action))
    return [redact(e, seat).to_dict() for e in game.log]


class Store:
    def __init__(self, stored: StoredRoom) -> None:
        self.stored = stored
        self.loads = 0

    async def load_rooms(self, code: str) -> list[StoredRoom]:
        self.loads += 1
        return [self.stored]


class Client:
    lang = "en"
    closed = False

    def __init__(self) -> None:
        self.got: list[bytes] = []

    def deliver(self, data: bytes) -> None:
        self.got.append(data)

    def close(self, data: bytes | None = None) -> None:
        if data is not None:
            self.got.append(data)
        self.closed = True


def events_of(messages: list[bytes]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for data in messages:
        message = P.decode_server(data)
        if isinstance(message, P.Events):
            out.extend(message.events)
    return out


def message(events: list[dict[str, Any]], ack: str | None = None) -> bytes:
    return P.encode(P.Events(events=events, ack=None if ack is None
                             else P.Ack(id=ack, seq=events[-1]["seq"])))


def entry(kind: str, data: bytes, **head: Any) -> Fields:
    first, last = event_span(data)
    fields = {b"kind": kind.encode(), b"room": b"ROOM01", b"seq": str(last).encode()}
    if first is not None:
        fields[b"first"] = str(first).encode()
    fields.update({k.encode(): str(v).encode() for k, v in head.items()})
    fields[b"v1" if kind == "b" else b"data"] = data
    return fields


@pytest.mark.asyncio
async def test_the_relay_repairs_a_gap_from_the_database_and_sends_each_event_once(
        ) -> None:
    stored = stored_match(12)
    everything = view(stored, 1)
    assert len(everything) > 12
    relay = Relay(Bus(), Settings(database_url="sqlite://"),  # type: ignore[arg-type]
                  lambda *args: b"{}")
    store = Store(stored)
    relay.store = store  # type: ignore[assignment]
    client = Client()
    relayed = Relayed(conn=client, conn_id="7", code="ROOM01", owner="o", delivered=-1)
    relay.clients["7"], relay.by_room["ROOM01"] = relayed, {relayed}

    welcome = b'{"type":"pong"}'  # any message that is not one of events
    relay.take("d", {b"kind": b"d", b"conn": b"7", b"room": b"ROOM01", b"viewer": b"1",
                     b"seq": b"-1", b"data": welcome})
    relay.take("d", entry("d", message(everything[:5]), conn=7, viewer=1))
    assert relayed.delivered == 4 and store.loads == 0
    # events 5..8 are lost on the way; 9.. come, with this client's ack
    relay.take("b", entry("b", message(everything[9:11], ack="a1")))
    relay.take("b", entry("b", message(everything[11:])))  # waits for the repair
    await until(lambda: not relay.repairing, "the relay repaired the room")
    assert store.loads == 1 and relay.repairs == 1
    assert events_of(client.got) == everything  # each once, in order, none missing
    assert P.Ack(id="a1", seq=everything[10]["seq"]) in [
        P.decode_server(d) for d in client.got]  # the ack still came
    # a late copy of what was sent: only its ack is left of it
    client.got.clear()
    relay.take("b", entry("b", message(everything[-2:], ack="a2")))
    assert [P.decode_server(d) for d in client.got] == [
        P.Ack(id="a2", seq=everything[-1]["seq"])]
    # Redis came back after it was away: every relayed room is checked against the log
    relay.back()
    await until(lambda: not relay.repairing, "the relay checked the room")
    assert store.loads == 2 and events_of(client.got) == []


def test_after_only_keeps_the_events_not_yet_sent() -> None:
    data = message([{"seq": 3}, {"seq": 4}, {"seq": 5}])
    assert after_only(data, 3) == message([{"seq": 4}, {"seq": 5}])
    assert after_only(data, 5) is None


@pytest.mark.asyncio
async def test_messages_forwarded_while_redis_was_away_are_sent_again() -> None:
    bus = Bus()
    relay = Relay(bus, Settings(database_url="sqlite://"),  # type: ignore[arg-type]
                  lambda conn, code, message, msg_id: P.encode(P.Error(
                      code=code, message="again", id=msg_id)))
    relay.store = Store(stored_match(0))  # type: ignore[assignment]
    client = Client()
    client.allow = lambda: True  # type: ignore[attr-defined]
    relayed = Relayed(conn=client, conn_id="3", code="ROOM01", owner="o", delivered=-1)
    relay.clients["3"], relay.by_room["ROOM01"] = relayed, {relayed}
    for msg_id in ("a1", "a2", "a3"):
        relay._forward(relayed, "unokit:proc:o",
                       P.encode(P.Act(id=msg_id, action="draw")).decode())
    assert [fields[b"kind"] for _, fields in bus.sent] == [b"m", b"m", b"m"]
    # a1 answered by an ack, a2 by an events message with its ack; a3 never (lost)
    relay.take("d", {b"conn": b"3", b"room": b"ROOM01", b"viewer": b"1", b"seq": b"-1",
                     b"data": P.encode(P.Ack(id="a1", seq=-1))})
    relay.take("b", entry("b", message([{"seq": 0}], ack="a2")))
    client.got.clear()
    relay.back()
    await until(lambda: not relay.repairing, "the relay checked the room")
    errors = [m for m in map(P.decode_server, client.got) if isinstance(m, P.Error)]
    assert errors == [P.Error(code="unavailable", message="again", id="a3")]


# ------------------------------------------------------------------ the owner's side
class Room:
    def __init__(self) -> None:
        self.items: list[Any] = []

    def submit(self, item: Any) -> None:
        self.items.append(item)


def test_the_owner_lets_go_of_clients_their_relay_no_longer_names_or_is_gone() -> None:
    from unokit.server.cluster import SILENT_RENEWALS, Cluster
    from unokit.server.inbox import Gone
    settings = Settings(database_url="sqlite://", redis_url="redis://127.0.0.1:9/0",
                        lease=4, lease_renew=1)
    cluster = Cluster(settings)  # nothing is connected until it starts
    room = Room()
    conns = {}
    for stream, conn_id in (("s:b", "1"), ("s:b", "2"), ("s:b", "3"), ("s:c", "1")):
        conn = remote(cluster.bus, cluster.fanout, stream, 0)
        conns[stream, conn_id] = cluster.remote[stream, conn_id] = conn
        cluster._rooms_of[conn] = room  # type: ignore[assignment]
    cluster._entry({b"kind": b"g", b"reply": b"s:b", b"conn": b"3", b"room": b"R"})
    cluster._entry({b"kind": b"l", b"reply": b"s:b", b"data": b"1"})  # "2"'s g was lost
    assert set(cluster.remote) == {("s:b", "1"), ("s:c", "1")} and cluster.let_go == 1
    assert room.items == [Gone(conns["s:b", "3"]), Gone(conns["s:b", "2"])]
    # s:c never says it is alive: once it has been silent for long enough, it is gone
    import time
    now = time.monotonic()
    cluster.sweep(now)
    cluster._entry({b"kind": b"l", b"reply": b"s:b", b"data": b"1"})
    later = now + SILENT_RENEWALS * settings.lease_renew + 1
    cluster.bus.away = True  # Redis is away: nobody can be heard, nobody is let go
    cluster.sweep(later)
    assert len(cluster.remote) == 2
    cluster.bus.away = False
    cluster._heard["s:b"] = later  # s:b spoke again
    cluster.sweep(later)
    assert set(cluster.remote) == {("s:b", "1")} and cluster.let_go == 2


# ------------------------------------------------------------------ the client
@pytest.mark.asyncio
async def test_a_client_that_finds_a_gap_in_the_events_resumes_after_its_last_event(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from unokit.client import GameClient
    client = GameClient("http://127.0.0.1:9", "ROOM01")
    resumed: list[int] = []

    async def reconnect() -> None:
        resumed.append(client.last_seq)
    monkeypatch.setattr(client, "reconnect", reconnect)
    client._take(P.Events(events=[{"seq": 0}, {"seq": 1}]))
    client._take(P.Events(events=[{"seq": 4}], legal=["R5"], must=True))  # 2, 3 lost
    assert client._gap_repair is not None
    await client._gap_repair
    assert resumed == [1] and client.gaps == 1
    assert client.last_seq == 1 and not client.must  # the message after the gap is left
    client._take(P.Events(events=[{"seq": 2}, {"seq": 3}, {"seq": 4}]))  # the resume
    assert [e["seq"] for e in client.events] == [0, 1, 2, 3, 4]


def test_a_relayed_client_over_its_rate_is_refused_at_the_relay_and_closed() -> None:
    from unokit.server.relay import REFUSED_LIMIT
    bus = Bus()
    relay = Relay(bus, Settings(database_url="sqlite://"),  # type: ignore[arg-type]
                  lambda conn, code, message, msg_id: P.encode(P.Error(
                      code=code, message="slow", id=msg_id)))
    client = Client()
    client.refused = 0  # type: ignore[attr-defined]
    client.allow = lambda: False  # type: ignore[attr-defined]
    relayed = Relayed(conn=client, conn_id="5", code="ROOM01", owner="o", delivered=-1)
    for n in range(REFUSED_LIMIT):
        relay._forward(relayed, "s:o", P.encode(P.Act(id=f"x{n}", action="draw")).decode())
    assert bus.sent == []  # nothing over the rate reaches Redis
    assert client.closed and P.decode_server(client.got[-1]) == P.Bye(
        reason="too many refused messages", reconnect=False, code="flood")
    assert P.decode_server(client.got[0]) == P.Error(code="rate_limited", message="slow",
                                                     id="x0")
