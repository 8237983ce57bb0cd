"""One owner per room on the real server, on SQLite and PostgreSQL: two servers (two
``Rooms``, each with its own store, as two processes have) on one database, sharing an
injected clock for their leases.

A second server leaves the first one's rooms alone: it restores none of them, refuses a
hello for them with ``elsewhere``, and its lobby sweep frees no seat of theirs. Once a
lease ran out, the second server takes the room over (at its start, at a hello, or at
its renewal tick), and the first one lets go: at the next message it is to answer
(once its lease may have run out it asks the database first, so nothing is answered
from an old copy of the room: the client is told ``bye`` with ``reconnect`` and sends
again at the new owner), at its next write (refused, nothing stored, the client told
``not_stored`` and then ``bye``) or at its next renewal. A write the first server had
in flight when it stalled is refused after the takeover: the action is stored once, by
the new owner, when the client sends it again there."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import websockets
from sqlalchemy import Connection

from server_harness import Running, running_server, server_settings
from store_kit import LeaseClock
from test_server_rooms import match_over, new_room, play_until
from unokit.client import GameClient
from unokit.client.client import ActionRefused, ClientError
from unokit.engine.actions import parse_action
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.server import protocol as P
from unokit.server.settings import Settings
from unokit.store import Store, StoredRoom, StoreError

pytestmark = pytest.mark.asyncio

LEASE = 3600.0
"""Long enough that no renewal runs by itself during a test: the tests move the clock
and call the renewal (``ownership.tick``) themselves."""


def settings(database_url: str) -> Settings:
    return server_settings(database_url, lease=LEASE, lease_renew=LEASE / 2)


@asynccontextmanager
async def two_servers(database_url: str, clock: LeaseClock) -> AsyncIterator[
        tuple[Running, Running]]:
    async with running_server(settings(database_url), lease_clock=clock) as first, \
            running_server(settings(database_url), lease_clock=clock) as second:
        yield first, second


async def playing(server: Running, name: str = "Ann") -> tuple[str, GameClient]:
    """A two-seat match (a client and an easy bot), started, at the client's turn."""
    code = await new_room(server, rules="official,players=2", bots=["easy"])
    # resend=False: these tests read the refusal of a write the lost lease refused
    client = await GameClient.join(server.url, code, name=name, resend=False)
    await client.command(P.Start)
    await client.wait_for(lambda c: c.must)
    return code, client


async def stored(server: Running, code: str) -> StoredRoom:
    assert server.rooms.store is not None
    [room] = await server.rooms.store.load_rooms(code=code)
    return room


class HandsIn:
    """A room's store that says when the room hands in an action's write."""

    def __init__(self, store: Store, handed_in: asyncio.Event) -> None:
        self.store = store
        self.handed_in = handed_in

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def append_action(self, room_id: int, action: Any, chat: Any = None,
                            **options: Any) -> None:
        self.handed_in.set()
        await self.store.append_action(room_id, action, chat, **options)


def told_to_reconnect(client: GameClient) -> bool:
    """Whether the server closed the client's connection with ``bye`` and
    ``reconnect: true`` (the default, left out of the message)."""
    return client.bye is not None and client.bye.get("reconnect", True) is True


def not_legal(client: GameClient) -> str:
    """An action the client's seat may not make now (refused by the room itself)."""
    return "draw" if "pass" in client.legal else "pass"


def check_replay(room: StoredRoom) -> None:
    """The stored actions are one uninterrupted match: in order, none twice, each ending
    on its stored event number."""
    assert [a.n for a in room.actions] == list(range(len(room.actions)))
    ids = [a.client_id for a in room.actions if a.client_id is not None]
    assert len(ids) == len(set(ids))
    assert room.seed is not None
    game = Game(Rules.from_dict(json.loads(room.rules)), room.seed)
    for row in room.actions:
        game.apply(parse_action(row.action))
        assert game.log[-1].seq == row.seq


async def test_a_second_server_leaves_the_first_ones_rooms_alone(database_url: str) -> None:
    clock = LeaseClock()
    async with running_server(settings(database_url), lease_clock=clock) as first:
        lobby = await new_room(first, rules="official,players=3")
        bob = await GameClient.join(first.url, lobby, name="Bob")
        code, ann = await playing(first)
        short = server_settings(first.rooms.settings.database_url, lease=LEASE,
                                lease_renew=LEASE / 2, seat_timeout=0.01)
        async with running_server(short, lease_clock=clock) as second:
            assert second.rooms.restored == 0 and second.rooms.ownership.elsewhere == 2
            for wanted in (lobby, code):
                with pytest.raises(ClientError, match="elsewhere"):
                    await GameClient.join(second.url, wanted, name="Eve")
            # the second server's sweep and renewal touch nothing of the first's
            await second.rooms.sweep(time.monotonic() + 10**6)
            await second.rooms.ownership.tick()
            assert second.rooms.rooms == {}
            assert [s.kind for s in (await stored(second, lobby)).seats] == [
                "human", "empty", "empty"]
            # the first server plays its match to the end meanwhile
            await play_until(ann, match_over)
            room = await stored(second, code)
            assert room.status == "finished"
            check_replay(room)
        await ann.close()
        await bob.close()


async def test_a_room_whose_lease_ran_out_is_taken_over_and_the_old_owner_lets_go(
        database_url: str) -> None:
    clock = LeaseClock()
    async with running_server(settings(database_url), lease_clock=clock) as first:
        code, ann = await playing(first)
        old_room = first.rooms.get(code)
        clock.advance(LEASE)  # the first server stalled past its lease
        async with running_server(settings(database_url), lease_clock=clock) as second:
            assert second.rooms.restored == 1 and code in second.rooms.rooms
            choice = ann.legal[0]
            # before it answers, the first server asks the database whether the room is
            # still its own (its lease may have run out): it is not, so nothing is
            # applied, stored or refused there, and the client is told to reconnect
            sent = asyncio.ensure_future(ann.act(choice, msg_id="after-takeover"))
            await ann.wait_for(lambda c: c.closed.is_set())
            assert told_to_reconnect(ann) and ann.bye is not None
            assert ann.bye["code"] == "moved" and not sent.done()
            assert code not in first.rooms.rooms and first.rooms.ownership.lost == 1
            assert old_room.task is not None and old_room.task.done()
            assert not [a for a in (await stored(second, code)).actions
                        if a.client_id == "after-takeover"]
            # a hello to the first server now says where the room is
            with pytest.raises(ClientError, match="elsewhere"):
                await GameClient.join(first.url, code, token=ann.token)
            # the client goes to the new owner, which takes the action sent again
            ann.base = second.url
            await ann.reconnect()
            await sent
            await ann.act(choice, msg_id="after-takeover")  # answered as before
            await play_until(ann, match_over)
            room = await stored(second, code)
            assert [a.client_id for a in room.actions].count("after-takeover") == 1
            check_replay(room)
            await ann.close()


async def test_a_stalled_owner_answers_nothing_from_its_old_copy_of_a_room(
        database_url: str) -> None:
    # the host's Start reaches the first server after it stalled past its lease, while
    # the second server took the lobby over and seated Bob: refusing "seat 1 is empty"
    # from the first server's memory would be a lie; the host is sent to the new owner
    clock = LeaseClock()
    async with two_servers(database_url, clock) as (first, second):
        code = await new_room(first, rules="official,players=2")
        ann = await GameClient.join(first.url, code, name="Ann", resend=False)
        clock.advance(LEASE)  # the first server's loop stalled past the lease
        bob = await GameClient.join(second.url, code, name="Bob", resend=False)
        assert code in second.rooms.rooms and bob.seat == 1
        start = asyncio.ensure_future(ann.command(P.Start))
        await ann.wait_for(lambda c: c.closed.is_set())
        assert told_to_reconnect(ann) and not start.done()
        assert code not in first.rooms.rooms
        ann.base = second.url
        await ann.reconnect()
        await start  # sent again to the new owner: the match starts with both seats
        await bob.wait_for(lambda c: c.room["status"] == "playing")
        assert [s["name"] for s in bob.room["seats"]] == ["Ann", "Bob"]
        await ann.close()
        await bob.close()


async def test_a_room_whose_lease_lasts_is_answered_without_asking_the_database(
        database_url: str) -> None:
    clock = LeaseClock()
    async with running_server(settings(database_url), lease_clock=clock) as server:
        code, ann = await playing(server)
        store = server.rooms.store
        assert store is not None
        room_id = server.rooms.get(code).id
        assert store.lease_left(room_id) == LEASE
        asked = 0
        confirm = store.confirm_lease

        async def counted(room: int) -> bool:
            nonlocal asked
            asked += 1
            return await confirm(room)
        store.confirm_lease = counted  # type: ignore[method-assign,assignment]
        with pytest.raises(ActionRefused):
            await ann.act(not_legal(ann))
        assert asked == 0
        clock.advance(LEASE)  # stalled, but nobody took the room: still this server's
        assert store.lease_left(room_id) == 0.0
        with pytest.raises(ActionRefused):
            await ann.act(not_legal(ann))
        assert asked == 1 and store.lease_left(room_id) == LEASE
        await ann.act(ann.legal[0])
        assert asked == 1
        await ann.close()


async def test_a_lease_that_cannot_be_asked_about_is_not_asked_about_at_every_message(
        database_url: str) -> None:
    # the database is away and the renewals fail: the lease runs out here, and each
    # message would wait on a database that does not answer; it is asked once, then
    # not again for a quarter of the lease, and the messages are answered meanwhile
    clock = LeaseClock()
    async with running_server(settings(database_url), lease_clock=clock) as server:
        code, ann = await playing(server)
        store = server.rooms.store
        assert store is not None
        asked = 0

        async def away(room: int) -> bool:
            nonlocal asked
            asked += 1
            raise StoreError("the database is away")
        store.confirm_lease = away  # type: ignore[method-assign,assignment]
        clock.advance(LEASE)
        for _ in range(3):
            with pytest.raises(ActionRefused):
                await ann.act(not_legal(ann))
        assert asked == 1 and code in server.rooms.rooms
        await ann.close()


async def test_an_idle_room_lets_go_at_its_renewal_and_a_hello_takes_a_room_over(
        database_url: str) -> None:
    clock = LeaseClock()
    async with two_servers(database_url, clock) as (first, second):
        lobby = await new_room(first, rules="official,players=3")
        bob = await GameClient.join(first.url, lobby, name="Bob")
        code, ann = await playing(first)
        with pytest.raises(ClientError, match="elsewhere"):
            await GameClient.join(second.url, code, token=ann.token)
        clock.advance(LEASE)
        # a hello takes the match over on demand
        ann.base = second.url
        await ann.reconnect()
        assert code in second.rooms.rooms and second.rooms.ownership.adopted == 1
        # the renewal tick takes the lobby over (it needs its clocks driven)
        await second.rooms.ownership.tick()
        assert lobby in second.rooms.rooms and second.rooms.ownership.adopted == 2
        # the first server's renewal finds both gone: Bob is told to reconnect
        await first.rooms.ownership.tick()
        await bob.wait_for(lambda c: c.closed.is_set())
        assert told_to_reconnect(bob)
        assert first.rooms.rooms == {} and first.rooms.ownership.lost == 2
        bob.base = second.url
        await bob.reconnect()
        assert bob.seat == 0 and bob.room["seats"][0]["connected"]
        await play_until(ann, match_over)
        check_replay(await stored(second, code))
        await ann.close()
        await bob.close()


async def test_a_write_in_flight_when_the_owner_stalled_is_refused_after_a_takeover(
        database_url: str) -> None:
    clock = LeaseClock()
    async with two_servers(database_url, clock) as (first, second):
        code, ann = await playing(first)
        store = first.rooms.store
        assert store is not None
        # the first server's database writer stalls (a stopped process, a hung disk)...
        gate, entered = threading.Event(), threading.Event()

        def stall(_: Connection) -> bool:
            entered.set()
            return gate.wait(60)
        stalled = asyncio.ensure_future(store.run(stall))
        await asyncio.to_thread(entered.wait, 30)
        # ... with the client's action applied in memory and its write queued
        room = first.rooms.get(code)
        handed_in = asyncio.Event()
        room.store = HandsIn(store, handed_in)  # type: ignore[assignment]
        choice = ann.legal[0]
        first_try = asyncio.ensure_future(ann.act(choice, msg_id="in-flight"))
        await asyncio.wait_for(handed_in.wait(), 30)
        # its lease runs out; the second server takes the room over at a hello
        clock.advance(LEASE)
        again = GameClient(second.url, code, token=ann.token)
        again.last_seq = ann.last_seq
        await again.connect()
        assert await again.act(choice, msg_id="in-flight") > ann.last_seq
        # the first server's write goes to the database only now: refused
        gate.set()
        assert await stalled
        with pytest.raises(ActionRefused) as refused:
            await first_try
        assert refused.value.code == "not_stored"
        await ann.wait_for(lambda c: c.closed.is_set())
        assert told_to_reconnect(ann)
        assert code not in first.rooms.rooms
        room_stored = await stored(second, code)
        assert [a.client_id for a in room_stored.actions].count("in-flight") == 1
        await play_until(again, match_over)
        check_replay(await stored(second, code))
        await again.close()
        await ann.close()


async def test_elsewhere_says_when_to_say_hello_again(database_url: str) -> None:
    # a hello for a room another live process holds is refused with elsewhere and,
    # like unavailable, a retry_after: the lease's length, by which the lease of a
    # process that is gone has run out and the room can be taken over here
    clock = LeaseClock()
    async with two_servers(database_url, clock) as (first, second):
        code = await new_room(first, rules="official,players=2")
        url = second.url.replace("http://", "ws://") + "/ws"
        async with websockets.connect(url) as ws:
            await ws.send(json.dumps({"type": "hello", "room": code, "name": "Eve"}))
            answer = json.loads(await asyncio.wait_for(ws.recv(), 30))
        assert answer["type"] == "error" and answer["code"] == "elsewhere", answer
        assert answer["retry_after"] == LEASE == second.rooms.settings.lease
        assert code not in second.rooms.rooms
