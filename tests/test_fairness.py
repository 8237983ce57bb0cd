"""UNO calls, catches and the turn timer on a real server, with clients whose messages
reach it after a simulated network delay (docs/fairness.md).

Every match here starts from the same seeded deal. The seats play a fixed opening,
worked out with the engine, until seat ``TARGET`` holds two cards and may play one;
then each test plays out one way of finishing that turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server_harness import Running, running_server, server_settings
from unokit.client import ActionRefused, GameClient
from unokit.client.client import create_room
from unokit.engine.actions import PLAY, action_type, action_uno, format_action
from unokit.engine.driver import Driver
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.formats.fairdeal import derive_seed

pytestmark = pytest.mark.asyncio

SERVER_SEED = bytes([3]) * 32
RULES = "official,players=4,rounds=1"
PLAYERS = 4
GRACE = 1.0
"""The catch grace in these tests (the default): twice the longest round trip."""
TRIPS = (0.0, 0.1, 0.25, 0.5)
"""Simulated round trips, in seconds."""


def opening() -> tuple[list[tuple[int, str]], int, str]:
    """The seats' actions (seat, text without the seat) until a seat holds two cards and
    may play, that seat, and its play (without the call)."""
    rules = Rules.preset("official", players=PLAYERS, rounds=1)
    game = Game(rules, derive_seed(SERVER_SEED, {}))
    driver = Driver(game)
    actions: list[tuple[int, str]] = []
    while True:
        lead = driver.lead()
        legal = game.legal_actions(lead)
        plays = [a for a in legal if action_type(a) == PLAY and not action_uno(a)]
        if len(game.hands[lead]) == 2 and plays:
            return actions, lead, format_action(plays[0]).split(":", 1)[1]
        action = next(a for a in legal if not action_uno(a))
        actions.append((lead, format_action(action).split(":", 1)[1]))
        driver.apply(action)


OPENING, TARGET, PLAY_TEXT = opening()
NEAREST = (TARGET + 1) % PLAYERS


class Laggy:
    """A client whose messages reach the server ``trip / 2`` seconds after they are
    sent, and who reacts to what it sees ``trip / 2`` seconds late (one way each)."""

    def __init__(self, client: GameClient, trip: float = 0.0) -> None:
        self.client = client
        self.trip = trip

    async def act(self, text: str) -> int:
        """Send ``text`` after the one-way delay; its ack's sequence number."""
        await asyncio.sleep(self.trip / 2)  # simulated delay
        return await self.client.act(text)

    def send(self, text: str) -> asyncio.Task[int]:
        """:meth:`act` without waiting for the answer (messages sent one after another
        arrive in that order)."""
        return asyncio.ensure_future(self.act(text))

    async def see(self, condition: Any) -> None:
        """Wait until ``condition`` holds, then for the one-way delay back."""
        await self.client.wait_for(condition)
        await asyncio.sleep(self.trip / 2)  # the simulated network delay under test


def events_of(client: GameClient, kind: str, **fields: Any) -> list[dict[str, Any]]:
    return [e for e in client.events if e["kind"] == kind
            and all(e.get(k) == v for k, v in fields.items())]


@contextlib.asynccontextmanager
async def table(tmp_path: Path, **changes: Any) -> AsyncIterator[tuple[Running,
                                                                      list[GameClient]]]:
    """A server, one room of four players, the match started and the opening played."""
    values: dict[str, Any] = {"catch_grace": GRACE}
    values.update(changes)
    settings = server_settings("sqlite:///" + str(tmp_path / "db.sqlite"), **values)
    async with running_server(settings, seeds=[SERVER_SEED]) as server:
        code = (await create_room(server.url, rules=RULES))["code"]
        clients = [await GameClient.join(server.url, code, name=f"P{i}")
                   for i in range(PLAYERS)]
        assert [c.seat for c in clients] == list(range(PLAYERS))
        try:
            await clients[0].command(_start())
            for seat, text in OPENING:
                await clients[seat].wait_for(lambda c, t=text: t in c.legal)
                await clients[seat].act(text)
            target = clients[TARGET]
            await target.wait_for(lambda c: c.must and PLAY_TEXT in c.legal)
            yield server, clients
        finally:
            for client in clients:
                await client.close()


def _start() -> type:
    from unokit.server import protocol as P
    return P.Start


class Spammer:
    """A catcher with no delay that sends ``catch TARGET`` again and again, as fast as
    its answers come back, and keeps every answer."""

    def __init__(self, client: GameClient) -> None:
        self.client = client
        self.answers: list[tuple[bool, str]] = []
        """(sent after the play was seen, "ack" or the error code)."""
        self.tries: set[asyncio.Task[None]] = set()
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        played = False
        while True:
            played = played or bool(events_of(self.client, "played", player=TARGET))
            while len(self.tries) < 4:  # four catches in flight at any time
                self.tries.add(asyncio.ensure_future(self._one(played)))
            done, _ = await asyncio.wait(self.tries, return_when=asyncio.FIRST_COMPLETED)
            self.tries -= done

    async def _one(self, played: bool) -> None:
        try:
            await self.client.act(f"catch {TARGET}")
        except ActionRefused as exc:
            self.answers.append((played, exc.code))
        else:
            self.answers.append((played, "ack"))

    def settled(self) -> bool:
        """Answers for three catches sent after the play was seen (held catches are
        answered when the grace ends)."""
        return sum(after for after, _ in self.answers) >= 3

    async def stop(self) -> None:
        for task in (self.task, *self.tries):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def spam_until_settled(clients: list[GameClient], finish: Any) -> list[Spammer]:
    """Every other seat spams catches while ``finish()`` plays the target's turn."""
    spammers = [Spammer(c) for i, c in enumerate(clients) if i != TARGET]
    try:
        await finish()
        for spammer in spammers:
            await spammer.client.wait_for(lambda c, s=spammer: s.settled())
    finally:
        for spammer in spammers:
            await spammer.stop()
    return spammers


@pytest.mark.parametrize("trip", TRIPS)
@pytest.mark.parametrize("how", ["with the play", "ahead", "after the play"])
async def test_a_player_who_calls_in_time_is_never_caught(tmp_path: Path, how: str,
                                                        trip: float) -> None:
    async with table(tmp_path) as (_, clients):
        target = Laggy(clients[TARGET], trip)

        async def finish() -> None:
            if how == "with the play":
                await target.act(PLAY_TEXT + "!")
            elif how == "ahead":
                call, play = target.send("uno"), target.send(PLAY_TEXT)
                await call
                await play
            else:
                play, call = target.send(PLAY_TEXT), target.send("uno")
                await play
                await call

        spammers = await spam_until_settled(clients, finish)
        for client in clients:
            await client.wait_for(lambda c: bool(events_of(c, "uno_called", player=TARGET)))
            assert not events_of(client, "caught", target=TARGET)
        answers = [code for s in spammers for _, code in s.answers]
        assert set(answers) <= {"illegal", "too_late"}
        view = await clients[TARGET].snapshot()
        assert view is not None and len(view["hand"]) == 1


@pytest.mark.parametrize("trips", sorted(set(itertools.permutations((0.0, 0.25, 0.5)))))
async def test_the_nearest_seat_after_wins_the_catch_whatever_the_latencies(
        tmp_path: Path, trips: tuple[float, ...]) -> None:
    async with table(tmp_path) as (_, clients):
        await clients[TARGET].act(PLAY_TEXT)  # no call
        catchers = [i for i in range(PLAYERS) if i != TARGET]
        lags = {seat: Laggy(clients[seat], trip) for seat, trip in zip(catchers, trips,
                                                                        strict=True)}

        async def catch(seat: int) -> str:
            lag = lags[seat]
            await lag.see(lambda c: bool(events_of(c, "played", player=TARGET)))
            try:
                await lag.act(f"catch {TARGET}")
            except ActionRefused as exc:
                return exc.code
            return "ack"

        answers = dict(zip(catchers, await asyncio.gather(*(catch(s) for s in catchers)),
                           strict=True))
        assert answers == {seat: "ack" if seat == NEAREST else "caught"
                           for seat in catchers}
        for client in clients:
            await client.wait_for(lambda c: bool(events_of(c, "caught", target=TARGET)))
            [caught] = events_of(client, "caught", target=TARGET)
            assert caught["player"] == NEAREST


async def test_a_catch_on_oneself_does_not_spoil_the_others(tmp_path: Path) -> None:
    async with table(tmp_path) as (_, clients):
        await clients[TARGET].act(PLAY_TEXT)  # no call
        far = (TARGET + 2) % PLAYERS
        mine = asyncio.ensure_future(clients[TARGET].act(f"catch {TARGET}"))
        theirs = asyncio.ensure_future(clients[far].act(f"catch {TARGET}"))
        with pytest.raises(ActionRefused) as refused:
            await mine
        assert refused.value.code == "illegal"
        await theirs
        await clients[TARGET].wait_for(lambda c: bool(events_of(c, "caught",
                                                                 target=TARGET)))
        assert events_of(clients[TARGET], "caught", target=TARGET)[0]["player"] == far


@pytest.mark.parametrize("trip", TRIPS)
async def test_a_late_call_within_the_grace_beats_every_catch(tmp_path: Path,
                                                              trip: float) -> None:
    async with table(tmp_path) as (server, clients):
        await clients[TARGET].act(PLAY_TEXT)  # no call yet
        catchers = [i for i in range(PLAYERS) if i != TARGET]
        sent = [asyncio.ensure_future(clients[i].act(f"catch {TARGET}")) for i in catchers]
        room = server.rooms.get(clients[0].room_code)
        while room.grace is None or len(room.grace.catches) < len(catchers):
            await asyncio.sleep(0.005)  # poll: no event
        await Laggy(clients[TARGET], trip).act("uno")
        for task in sent:
            with pytest.raises(ActionRefused) as refused:
                await task
            assert refused.value.code == "too_late"
        for client in clients:
            await client.wait_for(lambda c: bool(events_of(c, "uno_called", player=TARGET)))
            assert not events_of(client, "caught", target=TARGET)


async def origins(server: Running, code: str, seat: int) -> list[str]:
    """The origins of seat ``seat``'s stored actions, in order."""
    assert server.rooms.store is not None
    [stored] = await server.rooms.store.load_rooms(code=code)
    return [row.origin for row in stored.actions if row.seat == seat]


async def keep_playing(client: GameClient, stop: asyncio.Event) -> None:
    """Play the first legal action (with the call when there is one) on every turn."""
    while not stop.is_set():
        await client.wait_for(lambda c: c.must or stop.is_set())
        if stop.is_set():
            return
        choice = next((a for a in client.legal if a.endswith("!")), client.legal[0])
        try:
            await client.act(choice)
        except ActionRefused:
            client.must = False  # the state moved on: look again


def away(client: GameClient, seat: int) -> bool:
    return bool(client.room["seats"][seat].get("away", False))


async def test_the_turn_timer_plays_for_an_idle_player_then_marks_them_away(
        tmp_path: Path) -> None:
    settings = server_settings("sqlite:///" + str(tmp_path / "db.sqlite"),
                               timer_scale=0.05, bot_delay=0.3)  # 15 s -> 0.75 s
    async with running_server(settings) as server:
        code = (await create_room(server.url, rules="official,players=3",
                                  turn_timer=15))["code"]
        ann, bob, cid = [await GameClient.join(server.url, code, name=name)
                         for name in ("Ann", "Bob", "Cid")]
        watcher = await GameClient.join(server.url, code, spectate=True)
        stop = asyncio.Event()
        others = [asyncio.ensure_future(keep_playing(c, stop)) for c in (bob, cid)]
        try:
            await ann.command(_start())
            # Ann does nothing: the timer plays her turns, and after two she is away,
            # which every seat and every spectator sees.
            for client in (ann, bob, cid, watcher):
                await client.wait_for(lambda c: away(c, 0))
            assert await origins(server, code, 0) == ["timeout", "timeout"]

            # While she is away a bot plays for her at once, without the timer. (Her seat's
            # events do not tell: a Draw Two played on her is a "drew" of hers too.) Each
            # action is stored before its events go out, so look after every event.
            while len(await origins(server, code, 0)) < 3:
                seen = len(ann.events)
                await ann.wait_for(lambda c, seen=seen: len(c.events) > seen)
            assert (await origins(server, code, 0))[2] == "away"

            # She acts again: she is back, for everyone.
            while True:
                await ann.wait_for(lambda c: c.must)
                try:
                    await ann.act(ann.legal[0])
                    break
                except ActionRefused:
                    ann.must = False
            for client in (ann, bob, cid, watcher):
                await client.wait_for(lambda c: not away(c, 0))
            assert (await origins(server, code, 0))[-1] == "player"
        finally:
            stop.set()
            for task in others:
                await task
            for client in (ann, bob, cid, watcher):
                await client.close()


async def test_a_turn_timer_due_during_the_grace_waits_for_its_end(tmp_path: Path) -> None:
    async with table(tmp_path, timer_scale=0.05) as (server, clients):
        room = server.rooms.get(clients[0].room_code)
        room.turn_timer = 15  # 0.75 s, under the grace (the host sets it between rounds)
        await clients[TARGET].snapshot()  # the room has looked at its timers again
        assert room.timer_due is not None
        calls = 0
        on_due = room._on_due

        async def counted() -> None:
            nonlocal calls
            calls += 1
            await on_due()

        room._on_due = counted  # type: ignore[method-assign]
        await clients[TARGET].act(PLAY_TEXT)  # no call: a grace of 1 s begins
        assert room.grace is not None
        while room.grace is not None:
            await asyncio.sleep(0.01)  # poll: no event
        # The target's lapsed turn timer is not looked at again and again meanwhile.
        assert calls <= 3
