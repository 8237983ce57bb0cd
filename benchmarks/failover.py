"""Stall and kill the processes of a running cluster, and count what that cost: acked
actions lost, twin rooms and double writes.

What it does
    Starts ``--processes`` ``unokit serve`` processes on one PostgreSQL and one Redis
    (short leases: ``--lease`` seconds, renewed every ``--lease-renew``), and keeps
    ``--rooms`` matches in play at once, each new room made on a process picked at
    random and each client connected to a process picked at random (so that most
    clients play through a relay). Every seat is a protocol client choosing at random
    (:class:`kill_restart.Run`'s player); seat 0 plays with an account (an API token), so
    that each match writes XP, a rating and the player's matches. Meanwhile it injects
    ``--events`` disruptions, one at a time, each at a random moment and on a random
    process:

    - a *kill* (SIGKILL): the rooms the process owned must have a new owner and a new
      action stored within the bound the leases give (:func:`takeover_bound`); the
      process is started again;
    - a *stall* (SIGSTOP): it stays stopped until every room it owned has another owner
      (its lease ran out), then goes on (SIGCONT) and must write nothing more for them.

    Clients whose connection closes (a kill, a ``bye`` with ``reconnect``) reconnect to
    any process that runs and send again what was not answered. With ``--rolling N``,
    N rolling restarts follow: each process in turn gets SIGTERM, hands its rooms over
    (:mod:`unokit.server.handover`) and starts again.

What it checks
    For every room (:meth:`kill_restart.Run.check_room`): every ack a client received is
    a stored action of that seat and sequence number; no client action id is stored
    twice; the stored actions replay to the end of the match; every event each client
    received is the replay's, none missing, none twice. A room where a client saw an
    event the replay does not have was served by two processes at once: a *twin room*.
    Then the rows of the accounts: one ``player_matches`` row and one set of XP lines per
    match played, one ``rating_results`` row per seat of each rated match, and each
    account's rating counting exactly its rated matches: any excess is a *double write*.
    And no room of the run was closed or abandoned (a room *dissolved*).

What it reports
    Kills, stalls, rolling restarts, matches, actions stored and acked, the takeover
    and resume times after kills (median, worst), and the counts above (each must be 0).

Run it (PostgreSQL and Redis: scripts/pg_test_server.sh, scripts/redis_test_server.sh)::

    PYTHONPATH=src python benchmarks/failover.py --events 1000 \\
        --database-url "$UNOKIT_TEST_POSTGRES_URL" --redis-url "$UNOKIT_TEST_REDIS_URL"

``--server-database-url`` gives the servers another way to the same database (through
PgBouncer: ``scripts/pgbouncer_test_server.sh``). ``tests/test_failover.py`` runs it
with 20 disruptions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine, create_engine, func, select, text

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kill_restart
from kill_restart import Match, Player, Server
from unokit.client import ActionRefused, ClientError, GameClient
from unokit.server import protocol as P
from unokit.store.leases import LEASES
from unokit.store.models import (
    ActionRow,
    PlayerMatchRow,
    RatingResultRow,
    RatingRow,
    RoomRow,
    XpLineRow,
)

RULES = "official,players={n},rounds=1,hand_size=4"
RECONNECT_TRIES = 600
"""Reconnects a client tries (a short pause between) before it counts as stuck."""


@dataclass
class Options:
    """What a run plays and what it injects."""

    events: int = 1000
    """Stalls and kills injected, one at a time."""
    rooms: int = 6
    """Matches in play at once."""
    processes: int = 3
    stall_share: float = 0.5
    lease: float = 2.0
    lease_renew: float = 0.25
    rolling: int = 0
    """Rolling restarts after the stalls and kills."""
    mean_gap: int = 30
    """The mean number of events the clients receive between two disruptions."""
    pace: float = 0.0
    """Seconds each player thinks before each action (0: none, as fast as it can); with
    it, many rooms play at a pace the machine sustains, as people play."""
    minutes: float = 0.0
    """Stop disrupting after this many minutes, whatever ``events`` says (0: never)."""
    seed: int = 1
    database_url: str = ""
    """The PostgreSQL database (the checks read it directly)."""
    server_database_url: str = ""
    """The servers' way to it (e.g. through PgBouncer); empty: ``database_url``."""
    redis_url: str = ""
    data_dir: str = ""


def takeover_bound(options: Options) -> float:
    """Seconds within which a room of a killed process has a new owner: its lease
    runs out (``lease``; a process of the same machine sees at once that the owner is
    gone) and a survivor's next lease tick (``lease_renew``) claims it, plus one tick
    more for the claim's own transaction and the room's first write.

    >>> takeover_bound(Options(lease=2.0, lease_renew=0.25))
    2.5
    """
    return options.lease + 2 * options.lease_renew


@dataclass
class Report:
    """What a run did and found."""

    kills: int = 0
    stalls: int = 0
    rolling_restarts: int = 0
    matches: int = 0
    actions: int = 0
    acked: int = 0
    resent: int = 0
    takeover_s: list[float] = field(default_factory=list)
    resume_s: list[float] = field(default_factory=list)
    lost_acked: int = 0
    twin_rooms: int = 0
    double_writes: int = 0
    dissolved: int = 0
    abandoned: int = 0
    """Rooms given up in the lobby: a kill took the answer to a seat's hello."""
    rated_rows: int = 0
    wall_s: float = 0.0
    failures: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        """The figures, as JSON-ready values."""
        def p50(xs: list[float]) -> float | None:
            return round(statistics.median(xs), 3) if xs else None

        return {
            "kills": self.kills, "stalls": self.stalls,
            "rolling_restarts": self.rolling_restarts, "matches": self.matches,
            "actions_stored": self.actions, "actions_acked": self.acked,
            "actions_resent_after_reconnect": self.resent,
            "takeover_s_p50": p50(self.takeover_s),
            "takeover_s_max": round(max(self.takeover_s), 3) if self.takeover_s else None,
            "resume_s_p50": p50(self.resume_s),
            "resume_s_max": round(max(self.resume_s), 3) if self.resume_s else None,
            "lost_acked_actions": self.lost_acked, "twin_rooms": self.twin_rooms,
            "double_writes": self.double_writes, "rooms_dissolved": self.dissolved,
            "rooms_given_up_in_lobby": self.abandoned,
            "account_rows_checked": self.rated_rows,
            "wall_s": round(self.wall_s, 1), "failures": len(self.failures)}


@contextlib.contextmanager
def server_environment(options: Options) -> Iterator[None]:
    """The environment the server processes start with (set here, restored after)."""
    wanted = {
        "UNOKIT_REDIS_URL": options.redis_url, "UNOKIT_LEASE": str(options.lease),
        "UNOKIT_LEASE_RENEW": str(options.lease_renew), "UNOKIT_BOT_WORKERS": "0",
        # the clients act as fast as answers come, all from this machine
        "UNOKIT_RATE": "10000", "UNOKIT_BURST": "10000", "UNOKIT_GUEST_RATE": "0",
        "UNOKIT_LOGIN_RATE": "0", "UNOKIT_ACCOUNT_RATE": "0",
        "UNOKIT_HASH_MEMORY_KIB": "8"}
    before = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class Cluster:
    """The server processes, which ones run, and who owns what."""

    def __init__(self, options: Options, data_dir: Path) -> None:
        self.options = options
        url = options.server_database_url or options.database_url
        self.servers = []
        for i in range(options.processes):
            folder = data_dir / f"p{i}"
            folder.mkdir(parents=True, exist_ok=True)
            self.servers.append(Server(folder, url))
        self.stalled: set[int] = set()
        self.engine: Engine = create_engine(options.database_url)
        self.changed = asyncio.Event()

    def running(self) -> list[Server]:
        return [s for i, s in enumerate(self.servers)
                if s.up.is_set() and i not in self.stalled]

    async def pick(self, rng: random.Random) -> Server:
        """A process that runs (waiting for one if none does)."""
        while True:
            running = self.running()
            if running:
                return rng.choice(running)
            self.changed.clear()
            await self.changed.wait()

    def owned(self, server: Server) -> dict[str, str]:
        """The rooms in the lobby or in play whose lease ``server`` holds: code ->
        owner."""
        assert server.proc is not None
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(RoomRow.code, LEASES.c.owner)
                .join(LEASES, LEASES.c.room_id == RoomRow.id)
                .where(LEASES.c.owner.like(f"%/{server.proc.pid}/%"),
                       RoomRow.status.in_(("lobby", "playing")))).all()
        return {str(code): str(owner) for code, owner in rows}

    def owners(self, codes: list[str]) -> dict[str, tuple[str, str]]:
        """code -> (lease owner, room status)."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(RoomRow.code, LEASES.c.owner, RoomRow.status)
                .join(LEASES, LEASES.c.room_id == RoomRow.id)
                .where(RoomRow.code.in_(codes))).all()
        return {str(code): (str(owner), str(status)) for code, owner, status in rows}

    def why_held(self, codes: list[str]) -> str:
        """What the database says of rooms no process took over: each lease's owner and
        how long it has run out, and the transactions open for over a second (a claim
        skips a lease row that a write of its owner holds locked)."""
        with self.engine.connect() as connection:
            leases = connection.execute(
                select(RoomRow.code, RoomRow.status, LEASES.c.owner,
                       LEASES.c.lease_until - func.extract("epoch", func.clock_timestamp()))
                .join(LEASES, LEASES.c.room_id == RoomRow.id)
                .where(RoomRow.code.in_(codes))).all()
            open_ = connection.execute(text(
                "SELECT pid, state, wait_event_type, wait_event, "
                "extract(epoch FROM clock_timestamp() - xact_start), left(query, 80) "
                "FROM pg_stat_activity WHERE xact_start < clock_timestamp() - "
                "interval '1 second' AND pid <> pg_backend_pid()")).all()
        return (f"leases {[tuple(row) for row in leases]}; "
                f"open transactions {[tuple(row) for row in open_]}")

    def last_action_at(self, codes: list[str]) -> dict[str, float]:
        """code -> the time of its last stored action (the server's wall clock)."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(RoomRow.code, func.max(ActionRow.at))
                .join(ActionRow, ActionRow.room_id == RoomRow.id)
                .where(RoomRow.code.in_(codes)).group_by(RoomRow.code)).all()
        return {str(code): float(at) for code, at in rows if at is not None}

    async def moved(self, before: dict[str, str], limit: float) -> dict[str, float]:
        """Wait until every room of ``before`` (code -> its owner) has another owner,
        or is over, or is gone (an empty lobby that the process which took it over
        closed and deleted): code -> seconds it took; fails after ``limit`` seconds."""
        began = time.monotonic()
        took: dict[str, float] = {}
        while len(took) < len(before):
            left = [c for c in before if c not in took]
            now = self.owners(left)
            for code in left:
                owner, status = now.get(code, ("", "deleted"))
                if (owner and owner != before[code]) or status not in ("lobby", "playing"):
                    took[code] = time.monotonic() - began
            if time.monotonic() - began > limit:
                stuck = sorted(set(before) - set(took))[:5]
                raise RuntimeError(f"rooms not taken over within {limit:g} s: {stuck}; "
                                   f"{self.why_held(stuck)}")
            await asyncio.sleep(0.02)  # polling the condition: a row other processes write
        return took

    async def start(self, server: Server) -> None:
        await server.start()
        self.changed.set()


class Run:
    """One run: the cluster, the matches, the disruptions, the checks."""

    def __init__(self, options: Options, cluster: Cluster) -> None:
        self.options = options
        self.cluster = cluster
        self.rng = random.Random(options.seed)
        self.report = Report()
        self.matches: list[Match] = []
        self.clients: list[GameClient] = []
        self.tokens: list[str] = []
        self.accounts: dict[str, int] = {}
        """API token -> account id."""
        self.done_injecting = asyncio.Event()
        self.started = 0
        """Matches started so far."""
        self.all_live = asyncio.Event()
        """Set once as many matches started as there are room slots: every slot plays."""
        self.failed = asyncio.Event()

    def fail(self, text: str) -> None:
        self.report.failures.append(text)
        self.failed.set()

    def events_seen(self) -> int:
        return sum(len(c.events) for c in self.clients)

    # ------------------------------------------------------------ accounts
    async def make_accounts(self) -> None:
        """One account (an API token) per room slot, for seat 0; named afresh for each
        run, so that runs on one database do not meet each other's names."""
        server = await self.cluster.pick(self.rng)
        run = secrets.token_hex(3)
        for i in range(self.options.rooms):
            async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
                guest = await http.post("/api/guest", json={})
                claimed = await http.post("/api/account/claim", json={
                    "username": f"F{run}_{i}", "password": "a long password"})
                made = await http.post("/api/account/tokens", json={"label": "failover"})
            if 201 not in (guest.status_code,) or made.status_code not in (200, 201):
                raise RuntimeError(f"no account: {claimed.status_code} {made.text[:200]}")
            self.tokens.append(made.json()["token"])
            self.accounts[self.tokens[-1]] = int(claimed.json()["id"])

    # ------------------------------------------------------------ clients
    async def connect(self, client: GameClient, *, first: bool) -> None:
        """Connect (again) to any process that runs."""
        for _ in range(RECONNECT_TRIES):
            server = await self.cluster.pick(self.rng)
            client.base = server.url
            try:
                if first:
                    await client.connect()
                else:
                    await client.reconnect()
                return
            except Exception as exc:  # that process went meanwhile, or the room moves
                if first and str(exc).startswith("room_full"):
                    # the same hello (its new_token) gets back a seat its first try took,
                    # so a full room here is one the lobby's sweep emptied and refilled
                    raise ClientError(str(exc)) from None
                await asyncio.sleep(0.05)  # a retry's spacing: nothing to wait on
        raise RuntimeError(f"seat {client.seat}: could not reconnect")

    async def request(self, player: Player, message: Any) -> Any:
        """Send a message with an id and wait for its answer, reconnecting as needed."""
        client = player.client
        task = asyncio.ensure_future(client.request(message, timeout=kill_restart.STALL))
        try:
            while not task.done():
                closed = asyncio.ensure_future(client.closed.wait())
                await asyncio.wait({task, closed}, return_when=asyncio.FIRST_COMPLETED)
                closed.cancel()
                if not task.done() and client.closed.is_set():
                    player.resent += len(client._pending)
                    await self.connect(client, first=False)
            return task.result()
        finally:
            task.cancel()

    async def play(self, player: Player) -> None:
        """Play until the match is over (kill_restart's player, any process)."""
        client = player.client
        tried = -2
        while client.reveal is None:
            if client.closed.is_set():
                await self.connect(client, first=False)
                continue

            def ready(c: GameClient, tried: int = tried) -> bool:
                return (c.reveal is not None or c.closed.is_set()
                        or c.must or (bool(c.legal) and c.last_seq != tried))
            try:
                await client.wait_for(ready, timeout=kill_restart.STALL)
            except TimeoutError:
                raise RuntimeError(f"seat {client.seat} at {client.base}: no event for "
                                   f"{kill_restart.STALL:g} s after {client.last_seq}, "
                                   f"must={client.must}") from None
            if client.reveal is not None or client.closed.is_set():
                continue
            text = kill_restart.Run.choose(player)
            tried = client.last_seq
            if text is None:
                continue
            if self.options.pace:
                await asyncio.sleep(self.options.pace)  # the player's thinking time
            msg_id = client.new_id()
            try:
                ack = await self.request(player, P.Act(id=msg_id, action=text))
            except ActionRefused:
                player.refused += 1
                with contextlib.suppress(ActionRefused):
                    await self.request(player, P.SnapshotRequest(id=client.new_id()))
                continue
            player.acks[msg_id] = int(ack.seq)

    # ------------------------------------------------------------ rooms
    async def one_room(self, slot: int, rng: random.Random) -> None:
        n = rng.choice([2, 2, 3])
        server = await self.cluster.pick(rng)
        made = None
        for _ in range(RECONNECT_TRIES):
            with contextlib.suppress(httpx.HTTPError):
                async with httpx.AsyncClient(timeout=30) as http:
                    made = await http.post(server.url + "/api/rooms",
                                           json={"rules": RULES.format(n=n)})
                if made.status_code == 201:
                    break
            server = await self.cluster.pick(rng)
            await asyncio.sleep(0.05)  # a retry's spacing on another process
        if made is None or made.status_code != 201:
            self.fail(f"slot {slot}: no room could be made")
            return
        code = made.json()["code"]
        players: list[Player] = []
        for seat in range(n):
            client = GameClient(server.url, code, name=f"P{seat}", seat=seat,
                                api_token=self.tokens[slot] if seat == 0 else None)
            try:
                await self.connect(client, first=True)
            except ClientError:
                self.report.abandoned += 1
                for player in players:
                    await player.client.close()
                return
            self.clients.append(client)
            players.append(Player(client, random.Random(rng.getrandbits(64)), plays=True))
        match = Match(code, "human", players)
        self.matches.append(match)
        try:
            await self.request(players[0], P.Start(id=players[0].client.new_id()))
        except ActionRefused as exc:
            # a Start sent again once the first started the match (its answer lost with
            # a process) is refused as already done; any other refusal leaves the room
            # in its lobby, and is a failure to report, not a match to wait for
            if exc.code != "mid_round" and "already started" not in exc.message:
                self.fail(f"room {code}: start refused: {exc}")
                for player in players:
                    await player.client.close()
                return
        self.started += 1
        if self.started >= self.options.rooms:
            self.all_live.set()
        try:
            await asyncio.gather(*(self.play(p) for p in players))
        except Exception as exc:  # a failure of this room, reported
            self.fail(f"room {code}: {type(exc).__name__}: {exc}")
        for player in players:
            await player.client.close()
        self.report.matches += 1

    async def slot(self, slot: int) -> None:
        rng = random.Random(self.rng.getrandbits(64))
        while not self.done_injecting.is_set() and not self.failed.is_set():
            await self.one_room(slot, rng)

    # ------------------------------------------------------------ disruptions
    async def kill(self, index: int) -> None:
        cluster, server = self.cluster, self.cluster.servers[index]
        owned = cluster.owned(server)
        began, wall = time.monotonic(), time.time()
        server.kill()
        cluster.changed.set()
        bound = takeover_bound(self.options)
        took = await cluster.moved(owned, 30 * bound)
        self.report.takeover_s.extend(took.values())
        # resumed: a new action stored after the kill in every room still in play
        waiting = set(owned)
        while waiting and time.monotonic() - began < 30 * bound:
            now = cluster.last_action_at(sorted(waiting))
            states = cluster.owners(sorted(waiting))
            for code in list(waiting):
                if now.get(code, 0.0) > wall:
                    self.report.resume_s.append(now[code] - wall)
                    waiting.discard(code)
                elif states.get(code, ("", "lobby"))[1] != "playing":
                    waiting.discard(code)  # over, or not started: nothing to resume
            await asyncio.sleep(0.02)  # polling the condition: rows other processes write
        if waiting:
            self.fail(f"kill {self.report.kills}: rooms did not resume: {sorted(waiting)}")
        await cluster.start(server)  # once the rooms resumed: its start takes CPU
        self.report.kills += 1

    async def stall(self, index: int) -> None:
        cluster, server = self.cluster, self.cluster.servers[index]
        assert server.proc is not None
        owned = cluster.owned(server)
        cluster.stalled.add(index)
        os.kill(server.proc.pid, signal.SIGSTOP)
        try:
            await cluster.moved(owned, 30 * takeover_bound(self.options))
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
            cluster.stalled.discard(index)
            cluster.changed.set()
        self.report.stalls += 1

    async def inject(self) -> None:
        options = self.options
        try:
            # disruptions come once every slot has a match under way: a rolling restart
            # "during N live rooms" finds N rooms in play, not rooms being made
            live = asyncio.ensure_future(self.all_live.wait())
            failed = asyncio.ensure_future(self.failed.wait())
            await asyncio.wait({live, failed}, return_when=asyncio.FIRST_COMPLETED)
            live.cancel()
            failed.cancel()
            ends = time.monotonic() + options.minutes * 60 if options.minutes else None
            for _ in range(options.events):
                if ends is not None and time.monotonic() > ends:
                    break  # --minutes: the disruptions made so far are the run's
                wait_events = self.rng.randint(0, 2 * options.mean_gap)
                mark = self.events_seen()
                while self.events_seen() - mark < wait_events and not self.failed.is_set():
                    await asyncio.sleep(0.005)  # polling the clients' event counts
                if self.failed.is_set():
                    return
                index = self.rng.randrange(options.processes)
                if self.rng.random() < options.stall_share:
                    await self.stall(index)
                else:
                    await self.kill(index)
                done = self.report.kills + self.report.stalls
                if done % 50 == 0:  # a long run says how far it is, on stderr
                    print(f"{done} of {options.events} disruptions, {self.report.matches} "
                          f"matches", file=sys.stderr, flush=True)
            for _ in range(options.rolling):
                for server in self.cluster.servers:
                    await self.restart_gracefully(server)
                self.report.rolling_restarts += 1
        except Exception as exc:
            self.fail(f"disruption: {type(exc).__name__}: {exc}")
        finally:
            self.done_injecting.set()

    async def restart_gracefully(self, server: Server) -> None:
        """SIGTERM (the rooms are handed over), then start it again."""
        assert server.proc is not None
        server.up.clear()
        self.cluster.changed.set()
        server.proc.terminate()
        await asyncio.to_thread(server.proc.wait, 60)
        await self.cluster.start(server)

    # ------------------------------------------------------------ checks
    def check(self) -> None:
        checker = kill_restart.Run(kill_restart.Options(), None)  # type: ignore[arg-type]
        engine = self.cluster.engine
        rooms_t, actions_t = RoomRow.__table__, ActionRow.__table__
        with engine.connect() as conn:
            for match in self.matches:
                row = conn.execute(select(rooms_t).where(rooms_t.c.code == match.code)).one()
                if row.status in ("closed", "abandoned"):
                    self.report.dissolved += 1
                    self.fail(f"room {match.code}: {row.status}")
                stored = list(conn.execute(select(actions_t).where(
                    actions_t.c.room_id == row.id).order_by(actions_t.c.n)))
                before = len(checker.report.failures)
                checker.check_room(match, row, stored)
                for failure in checker.report.failures[before:]:
                    if "not stored" in failure:
                        self.report.lost_acked += 1
                    elif "stored twice" in failure:
                        self.report.double_writes += 1
                    elif "differs" in failure or "stored as" in failure:
                        self.report.twin_rooms += 1  # two processes served it at once
                    self.fail(failure)
            self.check_accounts(conn)
        self.report.actions = checker.report.actions
        self.report.acked = checker.report.acked
        self.report.resent = sum(p.resent for m in self.matches for p in m.players)

    def check_accounts(self, conn: Any) -> None:
        """One match line and one set of XP lines per match, one rating entrant per
        seat, each rating counting its matches: any excess is a double write."""
        finished = {m.code for m in self.matches}
        rooms = dict(conn.execute(select(RoomRow.code, RoomRow.id).where(
            RoomRow.code.in_(finished))).all())
        ids = list(rooms.values())
        if not ids:
            return
        for player_id in self.accounts.values():
            lines = conn.execute(select(func.count()).select_from(PlayerMatchRow).where(
                PlayerMatchRow.player_id == player_id,
                PlayerMatchRow.match_id.in_(ids))).scalar_one()
            played = conn.execute(select(func.count(func.distinct(
                PlayerMatchRow.match_id))).where(PlayerMatchRow.player_id == player_id))\
                .scalar_one()
            xp = conn.execute(select(XpLineRow.match_id, XpLineRow.reason, func.count())
                              .where(XpLineRow.player_id == player_id)
                              .group_by(XpLineRow.match_id, XpLineRow.reason)).all()
            entrant = conn.execute(select(func.count()).select_from(RatingResultRow).where(
                RatingResultRow.player_id == player_id)).scalar_one()
            rating = conn.execute(select(RatingRow.matches).where(
                RatingRow.player_id == player_id)).scalar()
            self.report.rated_rows += lines + len(xp) + entrant
            extra = (lines - played) + sum(n - 1 for _, _, n in xp)
            if rating is not None and rating != entrant:
                extra += abs(rating - entrant)
            if extra:
                self.report.double_writes += extra
                self.fail(f"player {player_id}: {extra} rows written twice")
        seats = conn.execute(select(RatingResultRow.match_id, func.count())
                             .where(RatingResultRow.match_id.in_(ids))
                             .group_by(RatingResultRow.match_id)).all()
        sizes = {rooms[m.code]: len(m.players) for m in self.matches}
        for match_id, count in seats:
            if count > sizes.get(match_id, count):
                self.report.double_writes += count - sizes[match_id]
                self.fail(f"match {match_id}: {count} rating entrants for "
                          f"{sizes[match_id]} seats")


async def run(options: Options) -> Report:
    """One run: start the cluster, play and disrupt, check."""
    if not options.database_url.startswith("postgresql") or not options.redis_url:
        raise SystemExit("failover: needs --database-url (PostgreSQL) and --redis-url")
    with contextlib.ExitStack() as stack:
        data_dir = Path(options.data_dir) if options.data_dir else Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="unokit-failover-")))
        stack.enter_context(server_environment(options))
        cluster = Cluster(options, data_dir)
        runner = Run(options, cluster)
        began = time.perf_counter()
        try:
            await asyncio.gather(*(cluster.start(s) for s in cluster.servers))
            await runner.make_accounts()
            injector = asyncio.create_task(runner.inject())
            await asyncio.gather(*(runner.slot(i) for i in range(options.rooms)))
            await injector
            runner.check()
        finally:
            for client in runner.clients:
                await client.close()
            for index in list(cluster.stalled):
                proc = cluster.servers[index].proc
                if proc is not None:
                    os.kill(proc.pid, signal.SIGCONT)
            for server in cluster.servers:
                server.stop()
            cluster.engine.dispose()
        runner.report.wall_s = time.perf_counter() - began
        return runner.report


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: prints the figures as JSON (and each failure); status 1 on any
    failure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--rooms", type=int, default=6)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--stall-share", type=float, default=0.5)
    parser.add_argument("--lease", type=float, default=2.0)
    parser.add_argument("--lease-renew", type=float, default=0.25)
    parser.add_argument("--rolling", type=int, default=0)
    parser.add_argument("--mean-gap", type=int, default=30)
    parser.add_argument("--pace", type=float, default=0.0,
                        help="seconds each player thinks before each action")
    parser.add_argument("--minutes", type=float, default=0.0,
                        help="stop disrupting after this long (0: after --events)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", default=os.environ.get(
        "UNOKIT_TEST_POSTGRES_URL", ""))
    parser.add_argument("--server-database-url", default="")
    parser.add_argument("--redis-url", default=os.environ.get("UNOKIT_TEST_REDIS_URL", ""))
    parser.add_argument("--data-dir", default="")
    args = parser.parse_args(argv)
    options = Options(events=args.events, rooms=args.rooms, processes=args.processes,
                      stall_share=args.stall_share, lease=args.lease,
                      lease_renew=args.lease_renew, rolling=args.rolling,
                      mean_gap=args.mean_gap, pace=args.pace, seed=args.seed,
                      minutes=args.minutes,
                      database_url=args.database_url,
                      server_database_url=args.server_database_url,
                      redis_url=args.redis_url, data_dir=args.data_dir)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop the servers too
    report = asyncio.run(run(options))
    print(json.dumps(report.figures(), indent=2))
    for failure in report.failures:
        print("FAIL", failure)
    return 1 if report.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
