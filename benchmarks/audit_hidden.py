"""Hidden-information audit of the game server.

It starts the server in this process (SQLite in a temporary folder, no bot delay, no
pause between rounds), and plays seeded matches under the presets official, party,
attack, h2o, seven_o and pairs (in turn): two protocol clients and bots in the seats, and
one spectator. The clients keep every message they receive, as sent. Besides legal moves
they send actions out of turn, illegal and malformed messages, catches, host commands in
the middle of a round and snapshot requests, and now and then reconnect, so that error
texts, snapshots and resumed event streams are all covered.

After each match the true game is rebuilt from the room's record and every message each
viewer received is checked three ways:

1. each event with sequence number ``k`` equals ``redact(log[k], viewer).to_dict()``;
2. each snapshot's view equals the viewer's true observation at the snapshot's sequence
   number; its ``hand`` is the viewer's own hand, ``partner_hand`` is set only under
   ``partner_hands_visible``, and a spectator's hand is empty;
3. independently of the engine's redaction, every card code anywhere in any message
   (error texts included) must be one the viewer may know at that moment: a card that
   has been in its own hand (or its partner's, when partners see each other's hands), a
   card that has been face up (the discard pile, the dealer draw, the start card, a
   misplayed or a discarded card), a hand shown to it by a challenge, the hands laid open
   when a round ends (for scoring, as at a real table), or a card code the viewer itself
   put in the message the error answers.

What a round's end reveals: ``round_ended`` carries every hand (``data.hands``) for the
seats at the table; the engine's redaction drops them for spectators, who see no hand
before the match ends. The audit counts any spectator message that still holds them
(``spectator_round_end_hands``) as a violation (``--lenient-spectators`` allows them).

    python benchmarks/audit_hidden.py --matches 1000 --seed 1

It prints a summary and exits with status 1 on any violation or any match that failed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import re
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn

from unokit.client import GameClient
from unokit.client.client import ActionRefused, ClientError
from unokit.engine.cards import CODES
from unokit.engine.events import EventKind, redact
from unokit.engine.phases import MATCH_OVER
from unokit.engine.rules import Rules
from unokit.engine.scoring import partner
from unokit.formats.record import Record, replay_steps
from unokit.server import protocol as P
from unokit.server.app import create_app
from unokit.server.rooms import Rooms
from unokit.server.settings import Settings

PRESETS = ("official", "party", "attack", "h2o", "seven_o", "pairs")

_CODE_ALT = "|".join(re.escape(c) for c in sorted(CODES, key=len, reverse=True))
CARD_PATTERN = re.compile(rf"(?<![A-Za-z0-9+_-])({_CODE_ALT})(?![A-Za-z0-9+_-])")
"""A card code standing alone in a text ("R5", "W+4" in "W+4>b!", "GDA")."""

SKIPPED_KEYS = frozenset({"token", "commitment", "server_seed", "seed", "contributions",
                          "id", "invite", "code", "rules", "rules_text", "name", "bot"})
"""Fields that hold no game information (identifiers, rule texts, names)."""

PUBLIC_CARD = frozenset({EventKind.PLAYED, EventKind.START_CARD, EventKind.DEALER_DRAW,
                         EventKind.PUT_BACK, EventKind.MISPLAYED, EventKind.TOOK_BACK})
"""Events whose ``card`` lies face up on the table."""

MATCH_TIMEOUT = 120.0


def card_codes(text: str) -> list[str]:
    """The card codes standing alone in ``text``.

    >>> card_codes("seat 1 holds no R5; play W+4>b! or WD2, not R55 or xR5")
    ['R5', 'W+4', 'WD2']
    """
    return CARD_PATTERN.findall(text)


def match_rules(index: int, hand_size: int | None = None) -> str:
    """The rule text of match ``index``: the presets in turn, 3 or 4 seats, one round
    (every seventh match two, so that a round ends before the match does), and partners
    who see each other's hands in every other pairs match; ``hand_size``: deal that many
    cards instead of the preset's (shorter matches).

    >>> for i in (0, 5, 11, 14):
    ...     print(match_rules(i))
    official,players=3,rounds=1
    pairs,players=4,rounds=1
    pairs,players=4,rounds=1,partner_hands_visible=true
    attack,players=3,rounds=2
    """
    preset = PRESETS[index % len(PRESETS)]
    players = 4 if preset == "pairs" else 3 + (index // len(PRESETS)) % 2
    rounds = 2 if index % 7 == 0 and index else 1
    text = f"{preset},players={players},rounds={rounds}"
    if preset == "pairs" and (index // len(PRESETS)) % 2:
        text += ",partner_hands_visible=true"
    if hand_size is not None:
        text += f",hand_size={hand_size}"
    return text


# ---------------------------------------------------------------- the server
@contextlib.asynccontextmanager
async def running_server(settings: Settings,
                         seeds: list[bytes] | None = None) -> AsyncIterator[tuple[str, Rooms]]:
    """The server on 127.0.0.1 and a free port, in this event loop: its base URL and its
    rooms; ``seeds``: the server seeds of the rooms, in the order they are created."""
    rooms = Rooms(settings)
    if seeds is not None:
        queue = list(seeds)
        rooms.server_seeds = lambda: queue.pop(0)
    config = uvicorn.Config(create_app(settings, rooms), host="127.0.0.1", port=0,
                            log_config=None, access_log=False, lifespan="on",
                            ws_max_size=64 * 1024)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError("the server did not start")
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", rooms
    finally:
        server.should_exit = True
        await task


def audit_settings(folder: str, **changes: Any) -> Settings:
    """SQLite in ``folder``, no bot delay, no pause between rounds, a short catch grace."""
    values: dict[str, Any] = {"database_url": f"sqlite:///{folder}/audit.db",
                              "data_dir": folder, "bot_delay": 0.0, "round_pause": 0.0,
                              "catch_grace": 0.02, "rate": 10000.0, "burst": 10000,
                              "log_level": "error", "handshake_rate": 0,
                              "conns_per_address": 0, "room_rate": 0,
                              "lobbies_per_address": 0}
    values.update(changes)
    return Settings(**values)


# ---------------------------------------------------------------- the clients
@dataclass
class Watcher:
    """One audited connection: a seat (``None``: a spectator), its client, what it sent."""

    client: GameClient
    rng: random.Random
    n: int
    sent: dict[str, str] = field(default_factory=dict)
    """Message id -> the text sent with it."""
    raw: list[str] = field(default_factory=list)
    """Raw texts sent without a known id."""
    received: list[bytes] = field(default_factory=list)
    """Every message received, over every connection of this viewer."""
    reconnects: int = 0

    @property
    def viewer(self) -> int | None:
        seat: int | None = self.client.seat
        return seat

    def harvest(self) -> None:
        self.received.extend(self.client.received)
        self.client.received.clear()

    async def act(self, text: str) -> None:
        msg_id = self.client.new_id()
        self.sent[msg_id] = text
        with contextlib.suppress(ActionRefused):
            await self.client.act(text, msg_id=msg_id)

    async def snapshot(self) -> None:
        with contextlib.suppress(ActionRefused):
            await self.client.snapshot()

    async def raw_send(self, text: str) -> None:
        self.raw.append(text)
        await self.client.send_raw(text)

    async def reconnect(self) -> None:
        self.reconnects += 1
        self.harvest()
        await self.client.reconnect()


async def open_watcher(base: str, code: str, rng: random.Random, n: int,
                       **options: Any) -> Watcher:
    client = GameClient(base, code, **options)
    client.keep_raw = True
    await client.connect()
    return Watcher(client, rng, n)


def random_text(rng: random.Random, n: int) -> str:
    """An action text that is usually illegal now: any card, any move, any seat."""
    card = rng.choice(CODES)
    roll = rng.randrange(10)
    if roll < 4:
        return f"{card}>{rng.choice('rygb')}" if card.startswith("W") else card
    if roll < 5:
        return f"{card}!" if not card.startswith("W") else f"{card}>g!"
    return rng.choice(["draw", "pass", "challenge", "uno", f"catch {rng.randrange(n)}",
                       "color g", "next", f"swap {rng.randrange(n)}", "zz", f"give {card}"])


MALFORMED = (
    "not json at all",
    '{"type": "act", "id": "m1"}',
    '{"type": "fly", "id": "m2"}',
    '{"type": "act", "id": "bad id!", "action": "draw"}',
    '{"type": "act", "id": "m3", "action": 5}',
    '{"type": "act", "id": "m4", "action": "R5", "extra": 1}',
    '[1, 2, 3]',
)


async def noise(w: Watcher) -> None:
    """Something other than a legal move: an illegal or out-of-turn action, a malformed
    message, a host command mid-round, a snapshot, a reconnection."""
    rng, client = w.rng, w.client
    roll = rng.randrange(20)
    if roll < 8:
        await w.act(random_text(rng, w.n))
    elif roll < 10:
        legal = [a for a in client.legal if a != "next"]
        if legal:
            await w.act(rng.choice(legal))
    elif roll < 13:
        await w.snapshot()
    elif roll < 15:
        await w.raw_send(rng.choice(MALFORMED))
    elif roll < 16:
        await w.raw_send('{"type": "act", "id": "big", "action": "' + "R5" * 2100 + '"}')
    elif roll < 18:
        kind = rng.choice([P.Start, P.Kick, P.RemoveBot, P.AddBot, P.SetTimer])
        fields: dict[str, Any] = {}
        if kind in (P.Kick, P.RemoveBot):
            fields["seat"] = rng.randrange(w.n)
        elif kind is P.SetTimer:
            fields["seconds"] = 15
        with contextlib.suppress(ActionRefused):
            await client.command(kind, **fields)
    elif roll < 19:
        await w.reconnect()
    else:
        await w.act(f"catch {rng.randrange(w.n)}")


def _over(client: GameClient) -> bool:
    return client.reveal is not None


async def play(w: Watcher) -> None:
    """Play a random legal move whenever it is this seat's turn, with noise between, until
    the match ends."""
    client, rng = w.client, w.rng
    while client.reveal is None:
        seen = len(client.events)
        await client.wait_for(lambda c, seen=seen: c.reveal is not None or c.must
                              or len(c.events) != seen)
        if _over(client):
            return
        if rng.random() < 0.15:
            await noise(w)
        if client.must and client.legal:
            choice = rng.choice(client.legal)
            msg_id = client.new_id()
            w.sent[msg_id] = choice
            try:
                await client.act(choice, msg_id=msg_id)
            except ActionRefused:
                await w.snapshot()  # the turn moved on: look again


async def watch(w: Watcher) -> None:
    """A spectator: snapshots, a refused action and a reconnection now and then."""
    client, rng = w.client, w.rng
    while client.reveal is None:
        seen = len(client.events)
        await client.wait_for(lambda c, seen=seen: c.reveal is not None
                              or len(c.events) != seen)
        roll = rng.random()
        if roll < 0.05:
            await w.snapshot()
        elif roll < 0.07:
            await w.act(random_text(rng, w.n))
        elif roll < 0.08:
            await w.reconnect()


# ---------------------------------------------------------------- one match
@dataclass
class Tally:
    """What the audit saw and found."""

    matches: int = 0
    presets: Counter[str] = field(default_factory=Counter)
    messages: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    snapshots: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    codes_scanned: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0
    spectator_round_end_hands: int = 0
    stopped: str = ""
    violations: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    """What the server logged at ERROR or above (a room that failed and was rebuilt,
    a write the database refused): none is expected."""

    def report(self) -> dict[str, Any]:
        return {"matches": self.matches, "presets": dict(self.presets),
                "messages": dict(self.messages), "events": dict(self.events),
                "snapshots": dict(self.snapshots), "error_codes": dict(self.errors),
                "card_codes_scanned": dict(self.codes_scanned),
                "reconnects": self.reconnects,
                "spectator_round_end_hands": self.spectator_round_end_hands,
                "stopped": self.stopped or None,
                "violations": len(self.violations), "failures": len(self.failures),
                "server_errors": len(self.server_errors),
                "first_violations": self.violations[:20],
                "first_failures": self.failures[:20],
                "first_server_errors": self.server_errors[:20]}


SERVER_LOGGERS = ("unokit", "uvicorn.error")
"""The loggers whose errors the audit counts (the rooms, the store, the app; uvicorn's
own, which logs what escapes an endpoint)."""


class ServerErrors(logging.Handler):
    """Keeps what the server logs at ERROR or above, with its traceback, in a tally."""

    def __init__(self, tally: Tally) -> None:
        super().__init__(logging.ERROR)
        self.tally = tally

    def emit(self, record: logging.LogRecord) -> None:
        text = f"{record.name}: {record.getMessage()}"
        room = getattr(record, "room", None)
        if room is not None:
            text += f" (room {room})"
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            text += f": {type(error).__name__}: {error}\n" + "".join(
                traceback.format_exception(error)[-6:])
        self.tally.server_errors.append(text)


def room_state(rooms: Rooms | None, code: str) -> str:
    """What the server's room holds, for the report of a match that did not end."""
    room = None if rooms is None else rooms.rooms.get(code)
    if room is None:
        return "room not live"
    now = asyncio.get_running_loop().time()
    game, driver, task = room.game, room.driver, room.task
    parts = [f"status {room.status}", f"inbox {room.inbox.qsize()}"]
    if task is not None and task.done():
        error = None if task.cancelled() else task.exception()
        parts.append(f"task ended ({'cancelled' if task.cancelled() else repr(error)})")
    if room.grace is not None:
        parts.append(f"grace on {room.grace.target} for {room.grace.until - now:.3f} s, "
                     f"{len(room.grace.catches)} catches, {len(room.grace.waiting)} waiting")
    for name in ("bot_due", "timer_due", "pause_due"):
        due = getattr(room, name)
        parts.append(f"{name} {'-' if due is None else f'{due - now:.3f} s'}")
    if game is not None and driver is not None:
        lead = driver.lead()
        parts.append(f"phase {game.phase} lead {lead} legal {len(game.legal_actions(lead))} "
                     f"held {sorted(driver.held)} auto {sorted(room._automatic())} "
                     f"uno_open {game.uno_open} declined {room._declined}")
    return ", ".join(parts)


async def run_match(base: str, index: int, seed: int, tally: Tally,
                    strict_spectators: bool = True, hand_size: int | None = None,
                    rooms: Rooms | None = None) -> None:
    """Play and audit one match."""
    rules_text = match_rules(index, hand_size)
    rules = Rules.from_string(rules_text)
    n = rules.players
    async with httpx.AsyncClient(timeout=30) as http:
        made = (await http.post(base + "/api/rooms", json={"rules": rules_text})).json()
    code = made["code"]
    base_rng = random.Random(seed * 1_000_003 + index)
    ann = await open_watcher(base, code, random.Random(base_rng.random()), n, name="Ann")
    bob = await open_watcher(base, code, random.Random(base_rng.random()), n, name="Bob")
    eve = await open_watcher(base, code, random.Random(base_rng.random()), n,
                             name="Eve", spectate=True)
    watchers = [ann, bob, eve]
    try:
        for _ in range(n - 2):
            await ann.client.command(P.AddBot, bot=base_rng.choice(["easy", "normal"]))
        await ann.client.command(P.Contribute, value=f"ann{index}")
        await ann.client.command(P.Start)
        async with asyncio.timeout(MATCH_TIMEOUT):
            await asyncio.gather(play(ann), play(bob), watch(eve))
        async with httpx.AsyncClient(timeout=30) as http:
            data = (await http.get(f"{base}/api/rooms/{code}/record")).json()
    except (TimeoutError, ClientError, ActionRefused) as exc:
        states = "; ".join(f"{w.viewer}: seq {w.client.last_seq} phase {w.client.phase} "
                           f"lead {w.client.lead} must {w.client.must} legal "
                           f"{w.client.legal}" for w in watchers)
        tally.failures.append(f"match {index} ({rules_text}, room {code}): "
                              f"{type(exc).__name__}: {exc} [{states}] server: "
                              f"{room_state(rooms, code)}")
        return
    finally:
        for w in watchers:
            w.harvest()
            await w.client.close()
    tally.matches += 1
    tally.reconnects += sum(w.reconnects for w in watchers)
    tally.presets[rules_text.split(",")[0]] += 1
    audit(Record.from_dict(data), rules, watchers, tally, f"match {index} ({rules_text})",
          strict_spectators)


# ---------------------------------------------------------------- the check
@dataclass
class Truth:
    """The true game, step by step, as the record replays it."""

    log: list[Any]
    last_seq: list[int]
    """The last event's sequence number after each step (step 0: the set-up)."""
    known: dict[int | None, list[frozenset[str]]]
    """Viewer -> the card codes it may know after each step."""
    hands: list[list[list[str]]]
    """Every hand (as sorted codes) after each step."""
    views: dict[tuple[int, int | None], dict[str, Any]]
    """(step, viewer) -> the true observation, where a snapshot asks for it."""
    over: list[bool]
    """Whether the match is over after each step."""


def rebuild(record: Record, rules: Rules, viewers: list[int | None],
            snapshot_seqs: set[tuple[int, int | None]]) -> Truth:
    """Replay ``record``, working out what each viewer may know after each step."""
    last_seq: list[int] = []
    hands: list[list[list[str]]] = []
    over: list[bool] = []
    known: dict[int | None, list[frozenset[str]]] = {v: [] for v in viewers}
    seen: dict[int | None, set[str]] = {v: set() for v in viewers}
    public: set[str] = set()
    views: dict[tuple[int, int | None], dict[str, Any]] = {}
    previous: list[list[int]] = []
    game = None
    for step, (_, events, game) in enumerate(replay_steps(record)):
        shown: dict[int, set[str]] = {}
        for event in events:
            if event.kind in PUBLIC_CARD and event.card >= 0:
                public.add(CODES[event.card])
            if event.kind is EventKind.DISCARDED:
                public.update(CODES[c] for c in event.cards)
            if event.kind is EventKind.ROUND_ENDED:
                public.update(CODES[c] for hand in game.hands for c in hand)
            if event.kind is EventKind.HAND_SHOWN and previous:
                shown.setdefault(event.player, set()).update(
                    CODES[c] for c in previous[event.target])
        public.update(CODES[c] for c in game.discard)
        for viewer in viewers:
            mine = seen[viewer]
            mine.update(public)
            if viewer is not None:
                mine.update(CODES[c] for c in game.hands[viewer])
                mate = partner(rules, viewer)
                if rules.partner_hands_visible and mate >= 0:
                    mine.update(CODES[c] for c in game.hands[mate])
                mine.update(shown.get(viewer, ()))
            known[viewer].append(frozenset(mine))
        seq = game.log[-1].seq
        last_seq.append(seq)
        hands.append([sorted(CODES[c] for c in hand) for hand in game.hands])
        over.append(game.phase is MATCH_OVER)
        for viewer in viewers:
            if (seq, viewer) in snapshot_seqs:
                views[(step, viewer)] = game.observation(viewer).to_dict()
        previous = [list(hand) for hand in game.hands]
    assert game is not None
    return Truth(list(game.log), last_seq, known, hands, views, over)


def _step_at(truth: Truth, seq: int) -> int:
    """The first step after which the log reaches ``seq`` (-1 before the match)."""
    if seq < 0:
        return -1
    for step, last in enumerate(truth.last_seq):
        if last >= seq:
            return step
    return len(truth.last_seq) - 1


def _strings(value: Any, key: str = "") -> list[str]:
    if key in SKIPPED_KEYS:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(v, str(k))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def audit(record: Record, rules: Rules, watchers: list[Watcher], tally: Tally,
          label: str, strict_spectators: bool = True) -> None:
    """Check every message each watcher received against the true game."""
    decoded = [(w, [json.loads(raw) for raw in w.received]) for w in watchers]
    wanted = {(m["seq"], w.viewer) for w, messages in decoded for m in messages
              if m.get("type") == "snapshot"}
    truth = rebuild(record, rules, [w.viewer for w in watchers], wanted)
    for w, messages in decoded:
        viewer = w.viewer
        kind = "spectator" if viewer is None else "player"
        raw_codes = {c for text in w.raw for c in card_codes(text)}
        seq = -1
        for number, message in enumerate(messages):
            where = f"{label}, {kind} {viewer}, message {number} ({message.get('type')})"
            tally.messages[kind] += 1
            mtype = message.get("type")
            if mtype == "events":
                for event in message["events"]:
                    k = event["seq"]
                    expected = _json(redact(truth.log[k], viewer).to_dict())
                    if event != expected:
                        tally.violations.append(f"{where}: event {k} is {event}, "
                                                f"expected {expected}")
                    tally.events[kind] += 1
                    seq = max(seq, k)
                    if (viewer is None and event["kind"] == "round_ended"
                            and any(event.get("data", {}).get("hands", []))
                            and not truth.over[_step_at(truth, k)]):
                        tally.spectator_round_end_hands += 1
                        if strict_spectators:
                            tally.violations.append(f"{where}: a spectator sees the hands "
                                                    f"of round end {k} before the match "
                                                    "ends")
            elif mtype == "snapshot":
                seq = max(seq, message["seq"])
                check_snapshot(truth, rules, message, viewer, where, tally)
                tally.snapshots[kind] += 1
            extra: set[str] = set()
            if mtype == "error":
                tally.errors[message.get("code", "?")] += 1
                msg_id = message.get("id")
                if msg_id is not None and msg_id in w.sent:
                    extra = set(card_codes(w.sent[msg_id]))
                else:
                    extra = raw_codes
            step = _step_at(truth, seq)
            allowed = truth.known[viewer][step] if step >= 0 else frozenset()
            for text in _strings(message):
                for card in card_codes(text):
                    tally.codes_scanned[kind] += 1
                    if card not in allowed and card not in extra:
                        tally.violations.append(f"{where}: {card} is not in this viewer's "
                                                f"view at event {seq}: {text[:200]!r}")


def check_snapshot(truth: Truth, rules: Rules, message: dict[str, Any],
                   viewer: int | None, where: str, tally: Tally) -> None:
    """A snapshot's view is the viewer's true observation then, and shows no other hand."""
    view = message.get("view")
    seq = message["seq"]
    if seq < 0:
        if view is not None:
            tally.violations.append(f"{where}: a view before the match: {view}")
        return
    steps = [s for s, last in enumerate(truth.last_seq) if last == seq]
    if not any(truth.views.get((s, viewer)) == _json(view) for s in steps):
        tally.violations.append(f"{where}: the view at event {seq} is not the true "
                                f"observation: {view}")
        return
    assert view is not None
    hands = truth.hands[steps[-1]]
    own = [] if viewer is None else hands[viewer]
    if sorted(view["hand"]) != own:
        tally.violations.append(f"{where}: hand {view['hand']} is not the own hand {own}")
    mate = -1 if viewer is None else partner(rules, viewer)
    if rules.partner_hands_visible and mate >= 0:
        if sorted(view["partner_hand"] or []) != hands[mate]:
            tally.violations.append(f"{where}: partner_hand {view['partner_hand']}")
    elif view["partner_hand"] is not None:
        tally.violations.append(f"{where}: partner_hand {view['partner_hand']} without "
                                "partner_hands_visible")


# ---------------------------------------------------------------- running it
async def run_audit(matches: int, seed: int, *, start: int = 0,
                    strict_spectators: bool = True, progress: bool = False,
                    minutes: float | None = None, hand_size: int | None = None) -> Tally:
    """Play and audit matches ``start`` to ``start + matches - 1`` of the run of
    ``seed`` (or as many as ``minutes`` allow), dealing ``hand_size`` cards if given;
    what was checked and found."""
    tally = Tally()
    indices = range(start, start + matches)
    seeds = [random.Random(seed * 7919 + i).randbytes(32) for i in indices]
    catcher = ServerErrors(tally)
    with contextlib.ExitStack() as stack:
        for name in SERVER_LOGGERS:
            logging.getLogger(name).addHandler(catcher)
            stack.callback(logging.getLogger(name).removeHandler, catcher)
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="unokit-audit-"))
        async with running_server(audit_settings(folder), seeds=seeds) as (base, rooms):
            started = time.monotonic()
            for done, index in enumerate(indices):
                if minutes is not None and time.monotonic() - started > minutes * 60:
                    tally.stopped = f"stopped after {done} matches ({minutes} minutes)"
                    break
                await run_match(base, index, seed, tally, strict_spectators, hand_size,
                                rooms)
                if progress and (done + 1) % 50 == 0:
                    print(f"{done + 1} matches, {time.monotonic() - started:.0f} s, "
                          f"{len(tally.violations)} violations", file=sys.stderr, flush=True)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lenient-spectators", dest="strict_spectators",
                        action="store_false",
                        help="allow the hands a spectator sees at the end of a round "
                        "before the match ends")
    parser.add_argument("--minutes", type=float, default=None,
                        help="stop starting matches after this long, and report")
    parser.add_argument("--hand-size", type=int, default=None,
                        help="deal this many cards instead of the preset's")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    started = time.monotonic()
    tally = asyncio.run(run_audit(args.matches, args.seed,
                                  strict_spectators=args.strict_spectators, progress=True,
                                  minutes=args.minutes, hand_size=args.hand_size))
    report = tally.report()
    report["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            if key.startswith("first_"):
                for line in value:
                    print(f"  {line}")
            else:
                print(f"{key}: {value}")
    short = tally.matches < args.matches and not tally.stopped
    return 1 if tally.violations or tally.failures or tally.server_errors or short else 0


if __name__ == "__main__":
    sys.exit(main())
