"""Exactly-once under everything at once: a Hypothesis state machine mixes new messages,
resends, reconnects, floods of refused ids, seat changes and restarts (the room rebuilt
from the database) at random, over a real room and store, on SQLite and PostgreSQL.

Invariants: every client id of a seat occupant is applied at most once (counted in the
database's actions, chat lines and command answers), each seat's stored occupant is the
one the players saw take it, and an id that was acknowledged always gets its original
ack again, byte for byte, whatever came in between.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from room_kit import Conn, Table, kind
from unokit.server import protocol as P
from unokit.store import Store

CODES = itertools.count()
"""Each run's room gets a code of its own (the PostgreSQL database is shared)."""

DUPLICATES = """
    SELECT seat, occupant, client_id, count(*) FROM (
        SELECT room_id, seat, occupant, client_id FROM actions
        UNION ALL SELECT room_id, seat, occupant, client_id FROM chat
        UNION ALL SELECT room_id, seat, occupant, client_id FROM answers) AS answered
    WHERE client_id IS NOT NULL AND room_id = {room}
    GROUP BY seat, occupant, client_id HAVING count(*) > 1"""


@dataclass
class Holder:
    """A seat's occupant as its player sees it: its connection, its token, what it sent
    and the acks it got. Its ids count from 0, so that a newcomer reuses the ids of the
    seat's earlier holders."""

    token: str
    conn: Conn
    number: int
    """How many holders the seat has had, this one included."""
    sent: dict[str, Any] = field(default_factory=dict)
    acked: dict[str, bytes] = field(default_factory=dict)

    def new_id(self) -> str:
        return f"m-{len(self.sent)}"


class ExactlyOnce(RuleBasedStateMachine):
    """Two seats of a room, played, flooded, changed and restarted at random."""

    url = "sqlite://"

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.store = Store(self.url)
        self.code = f"EO{next(CODES)}"
        self.table: Table | None = None
        self.holders: dict[int, Holder] = {}
        self.floods = 0

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)

    def teardown(self) -> None:
        self.run(self.store.close())
        self.loop.close()

    @property
    def room(self) -> Any:
        assert self.table is not None
        return self.table.room

    # ------------------------------------------------------------ the players
    @initialize()
    def seat_two_players(self) -> None:
        self.table = self.run(Table.open(self.store, code=self.code))
        self._unlimited_chat()
        for seat in (0, 1):
            self._take(seat, 1)

    def _unlimited_chat(self) -> None:
        """No chat cap (it counts by the clock, and a run must replay the same way)."""
        self.room.chat_window = 0.0

    def _take(self, seat: int, number: int) -> None:
        assert self.table is not None
        conn, token = self.run(self.table.join(f"P{seat}-{number}", seat=seat))
        assert conn.welcome()["seat"] == seat
        self.holders[seat] = Holder(token, conn, number)

    def _send(self, holder: Holder, message: Any, conn: Conn | None = None) -> bytes:
        assert self.table is not None
        answer: bytes = self.run(self.table.send(conn or holder.conn, message))
        known = holder.acked.get(message.id)
        if known is not None:
            assert answer == known, (message, answer, known)
        elif kind(answer) == "ack":
            holder.acked[message.id] = answer
        return answer

    def _message(self, seat: int, choice: int, msg_id: str) -> Any:
        """A new message of ``seat``, of whatever its room takes now or refuses."""
        room = self.room
        if room.status == "playing" and choice % 5 != 4:
            legal = room._legal(seat)[0]
            if legal and choice % 5 != 3:
                return P.Act(id=msg_id, action=legal[choice % len(legal)])
            return P.Act(id=msg_id, action="R5" if "R5" not in legal else "B5")
        options = [P.Contribute(id=msg_id, value=f"v{choice}"),
                   P.SetTimer(id=msg_id, seconds=(0, 15, 30, 60, 7)[choice % 5]),
                   P.SendChat(id=msg_id, text=f"line {choice}"),
                   P.Start(id=msg_id)]
        return options[choice % len(options)]

    @rule(seat=st.integers(0, 1), choices=st.lists(st.integers(0, 1000), min_size=1,
                                                   max_size=16))
    def send_new(self, seat: int, choices: list[int]) -> None:
        """New messages (several, so that many acks pile up): of ``seat``, and during
        the match mostly of the seat whose turn it is."""
        for choice in choices:
            room = self.room
            mover = seat
            if room.status == "playing" and room.driver is not None and choice % 3:
                mover = room.driver.lead()  # mostly the seat whose turn it is
            holder = self.holders[mover]
            message = self._message(mover, choice, holder.new_id())
            holder.sent[message.id] = message
            self._send(holder, message)

    @precondition(lambda self: any(h.sent for h in self.holders.values()))
    @rule(seat=st.integers(0, 1), picks=st.lists(st.integers(0, 10_000), min_size=1,
                                                 max_size=8),
          acked=st.booleans(), fresh=st.booleans())
    def resend(self, seat: int, picks: list[int], acked: bool, fresh: bool) -> None:
        """Messages sent again (of the acked ones, or of any), on the seat's connection
        or on a new one."""
        holder = self.holders[seat]
        assert self.table is not None
        ids = list(holder.acked if acked and holder.acked else holder.sent)
        if not ids:
            return
        conn = self.run(self.table.back(holder.token)) if fresh else None
        for pick in picks:
            self._send(holder, holder.sent[ids[pick % len(ids)]], conn)

    @rule(seat=st.integers(0, 1))
    def reconnect(self, seat: int) -> None:
        holder = self.holders[seat]
        self.run(self.table.handle("gone", holder.conn))  # type: ignore[union-attr]
        holder.conn = self.run(self.table.back(holder.token))  # type: ignore[union-attr]

    @rule(seat=st.integers(0, 1), size=st.integers(1, 150), own=st.booleans(),
          connections=st.integers(1, 3))
    def flood(self, seat: int, size: int, own: bool, connections: int) -> None:
        """Refused messages with fresh ids, from the seat's own connection or from new
        ones (``too_many`` and ``illegal`` alike: nothing of it may be acked)."""
        holder = self.holders[seat]
        assert self.table is not None
        conns = [holder.conn] if own else [self.run(self.table.back(holder.token))
                                           for _ in range(connections)]
        for n in range(size):
            self.floods += 1
            msg_id = f"flood-{self.floods}"
            message: Any = (P.SetTimer(id=msg_id, seconds=7) if n % 2 else
                            P.Contribute(id=msg_id, value="not a value!"))
            answer = self.run(self.table.send(conns[n % len(conns)], message))
            assert kind(answer) != "ack"

    @precondition(lambda self: self.table is not None
                  and self.table.room.status == "lobby")
    @rule(seat=st.integers(0, 1))
    def change_seat(self, seat: int) -> None:
        """The seat's player leaves, and someone new takes the seat (and reuses ids)."""
        holder = self.holders[seat]
        leave = P.Leave(id=holder.new_id())
        holder.sent[leave.id] = leave
        assert kind(self._send(holder, leave)) == "ack"
        self._take(seat, holder.number + 1)

    @rule()
    def restart(self) -> None:
        assert self.table is not None
        self.run(self.table.restart())
        self._unlimited_chat()
        for holder in self.holders.values():
            holder.conn = self.run(self.table.back(holder.token))
            assert not holder.conn.closed

    # ------------------------------------------------------------ invariants
    @invariant()
    def each_id_applies_at_most_once(self) -> None:
        if self.table is None:
            return
        twice = self.run(self.table.count(DUPLICATES.format(room=self.room.id)))
        assert twice == []

    @invariant()
    def the_stored_occupants_are_the_holders(self) -> None:
        if self.table is None:
            return
        stored = self.run(self.table.count(
            f"SELECT seat, occupant FROM seats WHERE room_id = {self.room.id} ORDER BY seat"))
        assert stored == [(seat, self.holders[seat].number) for seat in (0, 1)]

    @invariant()
    def every_ack_is_stored(self) -> None:
        """An acked action, chat line or command is in the database, for its occupant."""
        if self.table is None:
            return
        stored = set(self.run(self.table.count(
            f"SELECT seat, occupant, client_id FROM actions WHERE room_id = {self.room.id} "
            f"UNION SELECT seat, occupant, client_id FROM chat WHERE room_id = "
            f"{self.room.id} UNION SELECT seat, occupant, client_id FROM answers WHERE "
            f"room_id = {self.room.id}")))
        for seat, holder in self.holders.items():
            for msg_id in holder.acked:
                assert (seat, holder.number, msg_id) in stored, (seat, msg_id)


def check(url: str, examples: int) -> None:
    machine = type("Machine", (ExactlyOnce,), {"url": url})
    run_state_machine_as_test(machine, settings=settings(
        max_examples=examples, stateful_step_count=25, deadline=None))


def test_exactly_once_on_sqlite() -> None:
    check("sqlite://", 30)


def test_exactly_once_on_each_database(database_url: str) -> None:
    check(database_url, 10)


def test_the_machine_sees_duplicates() -> None:
    # the invariant's query finds an id stored twice for one occupant (so that it can
    # fail), and not the same id of two occupants
    async def probe() -> tuple[list[Any], list[Any]]:
        store = Store("sqlite://")
        try:
            table = await Table.open(store, code="DUP")
            ann, _ = await table.join("Ann")
            await table.send(ann, P.SendChat(id="c-1", text="hi"))
            await table.send(ann, P.Leave(id="l-1"))
            bea, _ = await table.join("Bea", seat=0)
            await table.send(bea, P.SendChat(id="c-1", text="hi"))
            clean = await table.count(DUPLICATES.format(room=table.room.id))

            def again(connection: Any) -> None:
                connection.exec_driver_sql(
                    "INSERT INTO chat (room_id, n, seat, name, text, at, client_id, seq, "
                    f"occupant) VALUES ({table.room.id}, 99, 0, 'Bea', 'hi', 1, 'c-1', -1, 2)")
            await store.run(again)
            return clean, await table.count(DUPLICATES.format(room=table.room.id))
        finally:
            await store.close()
    clean, doubled = asyncio.run(probe())
    assert clean == [] and doubled == [(0, 2, "c-1", 2)]

