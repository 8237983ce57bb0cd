"""Kill the game server with SIGKILL at random moments, restart it, and check that
nothing was lost.

What it does
    Starts ``unokit serve`` as a child process (no bot delay, no pause between rounds, a
    short catch grace) on a free port and a fresh database, and plays ``--matches``
    matches, ``--concurrency`` at a time. Some rooms are human games (every seat a
    protocol client, :class:`unokit.client.GameClient`, choosing actions at random, now
    and then forgetting to call UNO and catching others); the rest are bot-filled (one
    client at seat 0, bots in the other seats, and a spectator). ``--kills`` times it
    kills the server with SIGKILL at a random moment (after a random number of events
    the clients received), starts it again on the same port and database, and the
    clients reconnect: each resumes after the last event it saw and sends again, with
    the same ids, every action still unanswered.

What it checks, for every room
    (a) every ack a client received (client action id, sequence number) is a stored
    action of that room, of that client's seat, with that sequence number; (b) no client
    action id is stored twice in a room; (c) replaying the stored ``(rules, seed,
    actions)`` from scratch, without interruption, reaches the end of the match, each
    action ending on the sequence number stored with it, and every event each client
    received (its seat's view; the spectator's view) is exactly the replay's event as
    :func:`unokit.engine.events.redact` shows it to that viewer, none missing, none twice.
    Where the running server still holds the room, its record
    (``GET /api/rooms/{code}/record``) holds the same actions and verifies.

What it reports
    Kills, matches, actions stored, actions acknowledged to clients, actions sent again
    after a reconnect, the seconds from starting the process to ``/readyz`` answering
    200 (median, 99th percentile, worst) and every failure.

Run it::

    PYTHONPATH=src python benchmarks/kill_restart.py --matches 1000 --kills 200

``tests/test_kill_restart.py`` runs it with fewer matches and at least 20 kills.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, select

import unokit
from unokit.client import ActionRefused, GameClient
from unokit.engine.actions import parse_action
from unokit.engine.events import redact
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.formats.record import Record, replay
from unokit.server import protocol as P
from unokit.store.models import ActionRow, RoomRow

HUMAN_RULES = "official,players={n},rounds=1,hand_size=4"
BOT_RULES = "official,players={n},rounds=1,hand_size=4"
STALL = 120.0
"""Seconds a match may go without any event before it counts as stuck."""


@dataclass
class Options:
    """What a run plays and how often it kills."""

    matches: int = 40
    kills: int = 20
    concurrency: int = 8
    seed: int = 1
    human_share: float = 0.5
    """The share of rooms that are human games (the rest are bot-filled)."""
    database_url: str = ""
    """SQLAlchemy URL; empty: SQLite in a fresh data directory."""
    data_dir: str = ""
    """Where the SQLite database and the server's log go; empty: a temporary one."""
    mean_gap: int = 0
    """The mean number of events between kills; 0: worked out from matches and kills."""


@dataclass
class Report:
    """What a run did and found."""

    kills: int = 0
    restarts: int = 0
    matches: int = 0
    human_matches: int = 0
    bot_matches: int = 0
    actions: int = 0
    acked: int = 0
    resent: int = 0
    refused: int = 0
    abandoned: int = 0
    """Rooms given up in the lobby because a kill came before a client was seated
    (the seat may be taken, but the client never got its token)."""
    ready_s: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    failures: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        """The figures, as JSON-ready values."""
        ready = sorted(self.ready_s)
        return {
            "kills": self.kills, "restarts": self.restarts, "matches": self.matches,
            "human_matches": self.human_matches, "bot_matches": self.bot_matches,
            "actions_stored": self.actions, "actions_acked": self.acked,
            "actions_resent_after_reconnect": self.resent, "actions_refused": self.refused,
            "rooms_abandoned_in_lobby": self.abandoned,
            "ready_s_p50": round(statistics.median(ready), 3) if ready else None,
            "ready_s_p99": round(ready[min(len(ready) - 1, int(len(ready) * 0.99))], 3)
            if ready else None,
            "ready_s_max": round(ready[-1], 3) if ready else None,
            "wall_s": round(self.wall_s, 1), "failures": len(self.failures)}


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """``unokit serve`` as a child process that can be killed and started again."""

    def __init__(self, data_dir: Path, database_url: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        self.database_url = database_url or f"sqlite:///{data_dir / 'unokit.db'}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.up = asyncio.Event()
        """Set while the server answers ``/readyz``; cleared just before each kill."""
        self.log = (data_dir / "server.log").open("ab")

    async def start(self) -> float:
        """Start the process and wait for ``/readyz``; the seconds it took."""
        src = str(Path(unokit.__file__).resolve().parents[1])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (src, os.environ.get("PYTHONPATH", "")) if p),
            # every client comes from this machine: lift the per-address limits
            "UNOKIT_HANDSHAKE_RATE": "0", "UNOKIT_CONNS_PER_ADDRESS": "0",
            "UNOKIT_ROOM_RATE": "0", "UNOKIT_LOBBIES_PER_ADDRESS": "0"}
        began = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "unokit.cli", "serve", "--port", str(self.port),
             "--data-dir", str(self.data_dir), "--database-url", self.database_url,
             "--bot-delay", "0", "--round-pause", "0", "--catch-grace", "0.05",
             "--log-level", "warning"], env=env, stdout=self.log, stderr=self.log)
        async with httpx.AsyncClient(timeout=5) as http:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the server exited with {self.proc.returncode}; "
                                       f"see {self.data_dir / 'server.log'}")
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(self.url + "/readyz")).status_code == 200:
                        break
                await asyncio.sleep(0.02)  # polling the condition
        self.up.set()
        return time.perf_counter() - began

    def kill(self) -> None:
        """SIGKILL the process and reap it."""
        assert self.proc is not None
        self.up.clear()
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        """Stop the process (SIGTERM, then SIGKILL)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class Player:
    """One client and what it saw: its acks (id -> sequence number)."""

    def __init__(self, client: GameClient, rng: random.Random, *, plays: bool) -> None:
        self.client = client
        self.rng = rng
        self.plays = plays
        self.acks: dict[str, int] = {}
        self.resent = 0
        self.refused = 0


@dataclass
class Match:
    """One room the run played."""

    code: str
    kind: str
    players: list[Player]


class Run:
    """One run: the server, the matches, the killer."""

    def __init__(self, options: Options, server: Server) -> None:
        self.options = options
        self.server = server
        self.rng = random.Random(options.seed)
        self.report = Report()
        self.matches: list[Match] = []
        self.started = 0
        self.finished = 0
        self.clients: list[GameClient] = []
        self.failed = asyncio.Event()
        self.abandon_reasons: list[str] = []
        """Why each abandoned room's hello failed."""

    def fail(self, text: str) -> None:
        self.report.failures.append(text)
        self.failed.set()

    def events_seen(self) -> int:
        return sum(len(c.events) for c in self.clients)

    # ------------------------------------------------------------ connecting
    async def reconnect(self, client: GameClient) -> None:
        """Connect again once the server is back (again after each further kill)."""
        pending = len(client._pending)
        refusals = 0
        while True:
            await self.server.up.wait()
            try:
                await client.reconnect()
                break
            except Exception as exc:  # killed again meanwhile, or refused
                if self.server.up.is_set():
                    refusals += 1
                    if refusals >= 5:
                        raise RuntimeError(f"reconnect refused: {exc}") from exc
                    await asyncio.sleep(0.05)
        for player in self._players_of(client):
            player.resent += pending

    def _players_of(self, client: GameClient) -> list[Player]:
        return [p for m in self.matches for p in m.players if p.client is client]

    async def http(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One HTTP request, retried while the server is down."""
        while True:
            await self.server.up.wait()
            try:
                async with httpx.AsyncClient(timeout=30) as http:
                    return await http.request(method, self.server.url + path, **kwargs)
            except httpx.HTTPError:
                await asyncio.sleep(0.01)

    async def join(self, code: str, **options: Any) -> GameClient | None:
        """A new client seated (or watching) in ``code``; None if a kill interrupted the
        hello (the seat may have been given, but the token was lost with the answer)."""
        await self.server.up.wait()
        try:
            client = await GameClient.join(self.server.url, code, **options)
        except Exception as exc:  # the server went down meanwhile
            self.abandon_reasons.append(f"{type(exc).__name__}: {exc}")
            return None
        self.clients.append(client)
        return client

    async def request(self, client: GameClient, message: Any) -> Any:
        """Send a message with an id and wait for its answer, reconnecting as needed."""
        task = asyncio.ensure_future(client.request(message, timeout=STALL))
        try:
            while not task.done():
                closed = asyncio.ensure_future(client.closed.wait())
                await asyncio.wait({task, closed}, return_when=asyncio.FIRST_COMPLETED)
                closed.cancel()
                if not task.done() and client.closed.is_set():
                    await self.reconnect(client)
            return task.result()
        finally:
            task.cancel()

    # ------------------------------------------------------------ one match
    async def match(self, index: int) -> None:
        """Play match ``index`` in a new room (in another one if a kill cut the lobby
        short)."""
        rng = random.Random(self.rng.getrandbits(64))
        while not await self.one_room(index, rng):
            pass

    async def one_room(self, index: int, rng: random.Random) -> bool:
        """Play one room to its end; False if it was abandoned in the lobby."""
        human = rng.random() < self.options.human_share
        n = rng.choice([2, 2, 3, 4]) if human else rng.choice([2, 3, 4])
        rules = (HUMAN_RULES if human else BOT_RULES).format(n=n)
        body: dict[str, Any] = {"rules": rules}
        if not human:
            body["bots"] = [rng.choice(["easy", "normal"]) for _ in range(n - 1)]
        response = await self.http("POST", "/api/rooms", json=body)
        if response.status_code != 201:
            self.fail(f"match {index}: POST /api/rooms answered {response.status_code}")
            return True
        code = response.json()["code"]
        seated = 1 if not human else n
        players: list[Player] = []
        for seat in range(seated):
            client = await self.join(code, name=f"P{seat}", seat=seat)
            if client is None:
                self.report.abandoned += 1
                for player in players:
                    await player.client.close()
                return False
            players.append(Player(client, random.Random(rng.getrandbits(64)), plays=True))
        if not human:
            watcher = await self.join(code, spectate=True)
            if watcher is not None:
                players.append(Player(watcher, rng, plays=False))
        match = Match(code, "human" if human else "bot", players)
        self.matches.append(match)
        host = players[0]
        try:
            await self.request(host.client, P.Start(id=host.client.new_id()))
        except ActionRefused as exc:
            # A Start sent again after a restart, the first having started the match:
            # the server keeps no answers to host commands over a restart, so it refuses
            # the second (the match started once; the events below show it).
            if exc.code not in ("mid_round", "bad_request"):
                self.fail(f"room {code}: start refused: {exc}")
                return True
        try:
            await asyncio.gather(*(self.play(match, p) for p in players))
        except Exception as exc:  # a failure of this room, reported
            self.fail(f"room {code}: {type(exc).__name__}: {exc}")
        for player in players:
            await player.client.close()
        self.finished += 1
        self.report.matches += 1
        if human:
            self.report.human_matches += 1
        else:
            self.report.bot_matches += 1
        return True

    async def play(self, match: Match, player: Player) -> None:
        """Play (or watch) until the match is over."""
        client = player.client
        tried = -2
        while client.reveal is None:
            if client.closed.is_set():
                await self.reconnect(client)
                continue

            def ready(c: GameClient, tried: int = tried) -> bool:
                return (c.reveal is not None or c.closed.is_set()
                        or (player.plays and (c.must or (bool(c.legal)
                                                         and c.last_seq != tried))))
            try:
                await client.wait_for(ready, timeout=STALL)
            except TimeoutError:
                raise RuntimeError(f"seat {client.seat}: no event for {STALL} s") from None
            if client.reveal is not None or client.closed.is_set():
                continue
            text = self.choose(player)
            tried = client.last_seq
            if text is None:
                continue
            msg_id = client.new_id()
            try:
                ack = await self.request(client, P.Act(id=msg_id, action=text))
            except ActionRefused:
                player.refused += 1
                # the state moved on (a catch, a bot): look again
                with contextlib.suppress(ActionRefused):
                    await self.request(client, P.SnapshotRequest(id=client.new_id()))
                continue
            player.acks[msg_id] = int(ack.seq)

    @staticmethod
    def choose(player: Player) -> str | None:
        """A random legal action: plays call UNO most of the time; catches are tried
        now and then; out of turn, usually nothing."""
        client, rng = player.client, player.rng
        legal = list(client.legal)
        if not client.must:
            catches = [a for a in legal if a.startswith("catch") or a == "uno"]
            return rng.choice(catches) if catches and rng.random() < 0.5 else None
        catches = [a for a in legal if a.startswith("catch")]
        if catches and rng.random() < 0.7:
            return rng.choice(catches)
        calls = [a for a in legal if a.endswith("!")]
        if calls and rng.random() < 0.8:
            return rng.choice(calls)
        plays = [a for a in legal if a not in ("draw", "pass")]
        if plays and rng.random() < 0.85:
            return rng.choice(plays)
        return rng.choice(legal)

    # ------------------------------------------------------------ the killer
    async def killer(self) -> None:
        options = self.options
        total = options.matches
        gap = options.mean_gap or 40
        for k in range(options.kills):
            target = (k + 1) * total // (options.kills + 1)
            while self.finished < target and self.finished < total:
                await asyncio.sleep(0.01)
            if self.failed.is_set():
                return
            wait_events = self.rng.randint(0, 2 * gap)
            mark = self.events_seen()
            while self.events_seen() - mark < wait_events and self.finished < total:
                await asyncio.sleep(0.005)
            self.server.kill()
            self.report.kills += 1
            self.report.ready_s.append(await self.server.start())
            self.report.restarts += 1

    async def matches_loop(self) -> None:
        slots = asyncio.Semaphore(self.options.concurrency)

        async def one(index: int) -> None:
            async with slots:
                await self.match(index)

        await asyncio.gather(*(one(i) for i in range(self.options.matches)))

    # ------------------------------------------------------------ checks
    async def check(self) -> None:
        engine = create_engine(self.server.database_url)
        rooms_t, actions_t = RoomRow.__table__, ActionRow.__table__
        try:
            with engine.connect() as conn:
                for match in self.matches:
                    row = conn.execute(select(rooms_t).where(
                        rooms_t.c.code == match.code)).one()
                    stored = list(conn.execute(select(actions_t).where(
                        actions_t.c.room_id == row.id).order_by(actions_t.c.n)))
                    self.check_room(match, row, stored)
        finally:
            engine.dispose()
        for match in self.matches:
            response = await self.http("GET", f"/api/rooms/{match.code}/record")
            if response.status_code == 404:
                continue  # finished before the last restart: not held in memory
            record = Record.from_dict(response.json())
            try:
                replay(record)
            except Exception as exc:
                self.fail(f"room {match.code}: the server's record does not replay: {exc}")

    def check_room(self, match: Match, row: Any, stored: list[Any]) -> None:
        code = match.code
        self.report.actions += len(stored)
        ids = [a.client_id for a in stored if a.client_id is not None]
        if len(ids) != len(set(ids)):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            self.fail(f"room {code}: client action ids stored twice: {dup[:5]}")
        by_id = {a.client_id: a for a in stored if a.client_id is not None}
        for player in match.players:
            self.report.acked += len(player.acks)
            self.report.resent += player.resent
            self.report.refused += player.refused
            for msg_id, seq in player.acks.items():
                action = by_id.get(msg_id)
                if action is None:
                    self.fail(f"room {code}: acked action {msg_id} (seq {seq}) not stored")
                elif action.seq != seq or action.seat != player.client.seat:
                    self.fail(f"room {code}: acked action {msg_id} seq {seq} seat "
                              f"{player.client.seat} stored as seq {action.seq} seat "
                              f"{action.seat}")
        if row.seed is None:
            self.fail(f"room {code}: the match never started")
            return
        game = Game(Rules.from_dict(json.loads(row.rules)), int(row.seed))
        for i, action in enumerate(stored):
            if action.n != i:
                self.fail(f"room {code}: action {action.n} stored at place {i}")
                return
            try:
                game.apply(parse_action(action.action))
            except Exception as exc:
                self.fail(f"room {code}: action {i} ({action.action}) does not replay: {exc}")
                return
            if game.log[-1].seq != action.seq:
                self.fail(f"room {code}: action {i} replays to event {game.log[-1].seq}, "
                          f"stored {action.seq}")
                return
        if not game.is_over():
            self.fail(f"room {code}: the replayed match is not over")
        for player in match.players:
            seat = player.client.seat
            expected = [redact(e, seat).to_dict() for e in game.log]
            seen = player.client.events
            seqs = [e["seq"] for e in seen]
            if seqs != list(range(len(game.log))):
                missing = sorted(set(range(len(game.log))) - set(seqs))
                self.fail(f"room {code}: viewer {seat} saw events {len(seqs)} of "
                          f"{len(game.log)}; missing {missing[:5]}, twice "
                          f"{len(seqs) - len(set(seqs))}")
            elif seen != expected:
                first = next(i for i, (a, b) in enumerate(zip(seen, expected, strict=True))
                             if a != b)
                self.fail(f"room {code}: viewer {seat} event {first} differs from the replay")


async def run(options: Options) -> Report:
    """One run: play, kill, restart, check."""
    with contextlib.ExitStack() as stack:
        data_dir = Path(options.data_dir) if options.data_dir else Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="unokit-kill-")))
        data_dir.mkdir(parents=True, exist_ok=True)
        server = Server(data_dir, options.database_url)
        began = time.perf_counter()
        runner = Run(options, server)
        try:
            runner.report.ready_s.append(await server.start())
            killer = asyncio.create_task(runner.killer())
            await runner.matches_loop()
            await killer
            await runner.check()
        finally:
            for client in runner.clients:
                await client.close()
            server.stop()
        runner.report.wall_s = time.perf_counter() - began
        return runner.report


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: prints the figures as JSON (and each failure); status 1 on any
    failure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--human-share", type=float, default=0.5)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--data-dir", default="")
    parser.add_argument("--mean-gap", type=int, default=0)
    args = parser.parse_args(argv)
    options = Options(matches=args.matches, kills=args.kills,
                      concurrency=args.concurrency, seed=args.seed,
                      human_share=args.human_share, database_url=args.database_url,
                      data_dir=args.data_dir, mean_gap=args.mean_gap)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop the server too
    report = asyncio.run(run(options))
    print(json.dumps(report.figures(), indent=2))
    for failure in report.failures:
        print("FAIL", failure)
    return 1 if report.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
