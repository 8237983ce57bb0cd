"""The ack of a game action inside the ``events`` message of its events (a hello's
``ack_in_events``, docs/protocol.md#ack): one message to the actor instead of two, only
to the connection that sent the action, and only when it is its seat's one connection;
an old client that does not ask gets the ``ack`` on its own, and a resent id always
does."""

from __future__ import annotations

from pathlib import Path

import pytest

from server_harness import running_server, server_settings
from test_protocol import SEED, lead_and_other, new_room, table
from unokit.client import GameClient
from unokit.server import protocol as P

pytestmark = pytest.mark.asyncio


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'acks.db'}"


def since(client: GameClient, mark: int) -> list[P.ServerMessage]:
    """What ``client`` received after its first ``mark`` messages."""
    return [P.decode_server(raw) for raw in client.received[mark:]]


def acks_of(messages: list[P.ServerMessage]) -> list[P.Ack]:
    """The acks among ``messages``, whether on their own or inside events."""
    return [m if isinstance(m, P.Ack) else m.ack for m in messages
            if isinstance(m, P.Ack) or (isinstance(m, P.Events) and m.ack is not None)]


async def test_the_ack_comes_inside_the_events_of_the_action(sqlite_url: str) -> None:
    async with table(server_settings(sqlite_url)) as (_, _code, ann, bob):
        mover, other = lead_and_other(ann, bob)
        mine, theirs = len(mover.received), len(other.received)
        seq = await mover.act(mover.legal[0], msg_id="a1")
        await other.wait_for(lambda c: c.last_seq >= seq)
        got = since(mover, mine)
        assert not [m for m in got if isinstance(m, P.Ack)]  # no ack on its own
        [carrier] = [m for m in got if isinstance(m, P.Events) and m.ack is not None]
        assert carrier.ack == P.Ack(id="a1", seq=seq)
        assert carrier.events and carrier.events[-1]["seq"] == seq
        # the other seat gets the same events without anyone's ack
        assert acks_of(since(other, theirs)) == []
        # sent again, the same id gets the ack on its own, the action applied once
        again = len(mover.received)
        await mover.send_raw(P.encode(P.Act(id="a1", action="draw")).decode())
        await mover.wait_for(lambda c: len(c.received) > again)
        assert since(mover, again) == [P.Ack(id="a1", seq=seq)]
        assert mover.last_seq == seq


async def test_a_client_that_does_not_ask_gets_the_ack_on_its_own(sqlite_url: str) -> None:
    async with running_server(server_settings(sqlite_url), seeds=[SEED]) as server:
        code = await new_room(server)
        ann = GameClient(server.url, code, name="Ann", ack_in_events=False)
        bob = GameClient(server.url, code, name="Bob", ack_in_events=False)
        ann.keep_raw = bob.keep_raw = True
        try:
            await ann.connect()
            await bob.connect()
            await ann.command(P.Start)
            await ann.wait_for(lambda c: c.lead >= 0)
            mover = ann if ann.seat == ann.lead else bob
            await mover.wait_for(lambda c: c.must)
            mark = len(mover.received)
            seq = await mover.act(mover.legal[0], msg_id="b1")
            got = since(mover, mark)
            assert [type(m) for m in got if isinstance(m, P.Events | P.Ack)] == [
                P.Events, P.Ack]  # the events, then their ack
            assert got[-1] == P.Ack(id="b1", seq=seq)
            assert all(m.ack is None for m in got if isinstance(m, P.Events))
        finally:
            await ann.close()
            await bob.close()


async def test_a_seat_with_two_connections_gets_the_ack_on_its_own(
        sqlite_url: str) -> None:
    async with table(server_settings(sqlite_url)) as (server, code, ann, bob):
        mover, other = lead_and_other(ann, bob)
        twin = GameClient(server.url, code, token=mover.token)  # a second tab
        twin.keep_raw = True
        await twin.connect()
        try:
            await mover.wait_for(lambda c: c.room["seats"][c.seat]["connected"])
            mine, tabs = len(mover.received), len(twin.received)
            seq = await mover.act(mover.legal[0], msg_id="c1")
            await twin.wait_for(lambda c: c.last_seq >= seq)
            got = since(mover, mine)
            assert all(m.ack is None for m in got if isinstance(m, P.Events))
            assert [m for m in got if isinstance(m, P.Ack)] == [P.Ack(id="c1", seq=seq)]
            # the other tab of the seat never sees the ack of a message it did not send
            assert acks_of(since(twin, tabs)) == []
            assert other.errors == []
        finally:
            await twin.close()
