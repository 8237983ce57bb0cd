"""An async client for the game server's protocol (docs/protocol.md).

:class:`GameClient` says hello, keeps every event it was sent (``events``, in sequence
order), what its seat may do (``legal``, ``must``) and the room (``room``). :meth:`act`
sends an action with a fresh client action id and waits for its ack, raising
:class:`ActionRefused` for an error. When the connection drops, :meth:`reconnect` comes
back with the seat token, resumes after the last event seen and sends again, with the
same ids, every action still unanswered (so that none is applied twice); an events
message whose first event comes after a gap (events lost on the way) is left, and the
client reconnects the same way. A message
refused with "nothing was kept, send it again" (``not_stored``, ``unavailable``,
``closing``: a database outage, a restart) stays pending, listed in :attr:`saving`, and
is sent again with the same id after the server's ``retry_after``, then after longer
and longer pauses (:data:`LONGEST_RESEND` at most), until it is answered: nothing the
player did is dropped.
:meth:`chat` writes a line in the table chat; the lines received are kept in
:attr:`chat_lines` (each once, though a new connection gets the room's last lines again).

    client = await GameClient.join("http://127.0.0.1:8000", "ABCDEF", name="Ann")
    await client.wait_for(lambda c: c.must)
    seq = await client.act(client.legal[0])
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import secrets
from collections.abc import Callable
from typing import Any

import httpx
import websockets

from unokit.engine.errors import UnoError
from unokit.server import protocol as P

RESEND_CODES = frozenset({"not_stored", "unavailable", "closing"})
"""Error codes that say nothing was kept: the client sends the message again."""
FIRST_RESEND = 0.5
"""Seconds before the first resend when the error gives no ``retry_after``."""
LONGEST_RESEND = 1.5
"""The longest pause between two resends of one message."""


def resend_pause(retry_after: float | None, tries: int) -> float:
    """Seconds to wait before sending a message again after its ``tries``-th refusal
    (1, 2, ...): ``retry_after`` (else :data:`FIRST_RESEND`), doubled each time, at most
    :data:`LONGEST_RESEND`.

    >>> [resend_pause(0.5, n) for n in (1, 2, 3, 4, 5)]
    [0.5, 1.0, 1.5, 1.5, 1.5]
    >>> resend_pause(None, 1)
    0.5
    """
    first = FIRST_RESEND if retry_after is None or retry_after <= 0 else retry_after
    return float(min(LONGEST_RESEND, first * 2 ** min(tries - 1, 16)))


class ClientError(UnoError):
    """The server could not be reached, or refused the connection."""


class ActionRefused(UnoError):
    """The server refused a message: ``code`` and ``message`` of its error."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


def ws_url(base: str, room: str | None = None) -> str:
    """The WebSocket address of a server's base URL (with the room's code in its path
    when given and made of letters and digits, for a proxy that routes by room).

    >>> ws_url("http://127.0.0.1:8000/"), ws_url("https://uno.example/uno", "ABCDEF")
    ('ws://127.0.0.1:8000/ws', 'wss://uno.example/uno/ws/ABCDEF')
    """
    base = base.rstrip("/")
    code = "" if room is None else room.strip().upper()
    path = f"/ws/{code}" if code.isascii() and code.isalnum() else "/ws"
    if base.startswith("https://"):
        return "wss://" + base.removeprefix("https://") + path
    return "ws://" + base.removeprefix("http://") + path


async def create_room(base: str, **fields: Any) -> dict[str, Any]:
    """``POST /api/rooms``: a new room (``rules``, ``seats``, ``turn_timer``, ``public``,
    ``bots``); its code and invite link."""
    async with httpx.AsyncClient(timeout=30) as http:
        response = await http.post(base.rstrip("/") + "/api/rooms", json=fields)
    data: dict[str, Any] = response.json()
    if response.status_code >= 400:
        raise ActionRefused(data.get("error", "bad_request"), data.get("message", ""))
    return data


class GameClient:
    """One connection to one room, as a seat or a spectator."""

    def __init__(self, base: str, room: str, *, name: str = "", token: str | None = None,
                 spectate: bool = False, seat: int | None = None, lang: str = "",
                 resend: bool = True, api_token: str | None = None,
                 ack_in_events: bool = True) -> None:
        self.base = base
        self.ack_in_events = ack_in_events
        """Ask the server to send the ack of a game action inside the ``events`` message
        of its events (one message instead of two); either way it is taken as an ack."""
        self.resend = resend
        """Send again a message refused with a code of :data:`RESEND_CODES` (else the
        refusal is raised to the caller like any other)."""
        self.saving: dict[str, int] = {}
        """Ids of messages refused for an outage and waiting to be sent again, with how
        many times each was refused (a player sees these as "saving")."""
        self.on_saving: Callable[[str, int], None] | None = None
        """Told ``(id, tries)`` each time a message is refused for an outage and will be
        sent again (a front end shows "saving")."""
        self._resends: set[asyncio.Task[None]] = set()
        self.lang = lang
        """The language of the server's error texts (``ru``; empty: English)."""
        self.api_token = api_token or os.environ.get("UNOKIT_API_TOKEN") or None
        """An account's API token (else the variable ``UNOKIT_API_TOKEN``), sent as
        ``Authorization: Bearer``: the seat taken is the account's (docs/accounts.md)."""
        self.room_code = room
        self.name = name
        self.token = token
        self.new_token = ""
        """The token this client made for the seat it joins (``Hello.new_token``): a join
        tried again after its answer was lost gets the seat it took the first time."""
        self.spectate = spectate
        self.wanted_seat = seat
        self.seat: int | None = None
        self.room: dict[str, Any] = {}
        self.events: list[dict[str, Any]] = []
        self.last_seq = -1
        self.legal: list[str] = []
        self.must = False
        self.lead = -1
        self.phase = ""
        self.timer: dict[str, Any] | None = None
        self.reveal: dict[str, Any] | None = None
        self.bye: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []
        """Errors without an id (or for ids nobody waits for)."""
        self.chat_lines: list[dict[str, Any]] = []
        """The table chat's lines received (``seat``, ``name``, ``text``, ``at``), oldest
        first, each once."""
        self.received: list[bytes] = []
        """Every message received, as sent (when ``keep_raw``)."""
        self.keep_raw = False
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._pending: dict[str, tuple[P.Act | Any, asyncio.Future[Any]]] = {}
        self._ids = itertools.count()
        self._prefix = secrets.token_hex(4)
        self._changed = asyncio.Event()
        self.closed = asyncio.Event()
        self.gaps = 0
        """Events messages that came after a gap in the events (each made the client
        reconnect and resume after its last event)."""
        self._gap_repair: asyncio.Task[None] | None = None
        self.listeners: list[asyncio.Event] = []
        """Events set after every message (to wait on several clients at once)."""

    # ------------------------------------------------------------ connecting
    @classmethod
    async def join(cls, base: str, room: str, **options: Any) -> GameClient:
        """Connect to ``room`` and wait for the welcome."""
        client = cls(base, room, **options)
        await client.connect()
        return client

    async def connect(self) -> None:
        """Open the connection and say hello (with the token once there is one).

        Raises:
            ClientError: no connection, or the server refused the hello.
        """
        try:
            headers = ({} if self.api_token is None
                       else {"Authorization": f"Bearer {self.api_token}"})
            self._ws = await websockets.connect(ws_url(self.base, self.room_code), max_size=2**24,
                                                open_timeout=30, compression=None,
                                                additional_headers=headers)
        except (OSError, websockets.WebSocketException, TimeoutError) as exc:
            raise ClientError(f"cannot reach {self.base}: {exc}") from None
        self.closed.clear()
        self.bye = None
        joining = self.token is None and not self.spectate
        if joining and not self.new_token:
            self.new_token = secrets.token_urlsafe(18)
        hello = P.Hello(room=self.room_code, token=self.token, name=self.name,
                        spectate=self.spectate and self.token is None,
                        seat=self.wanted_seat if self.token is None else None,
                        last_seq=self.last_seq, lang=self.lang,
                        ack_in_events=self.ack_in_events,
                        commitment=str(self.room.get("commitment", "")),
                        new_token=self.new_token if joining else "")
        await self._ws.send(P.encode(hello).decode())
        welcome = await self._ws.recv()
        if self.keep_raw:
            self.received.append(welcome if isinstance(welcome, bytes) else welcome.encode())
        message = P.decode_server(welcome)
        if isinstance(message, P.Error):
            await self._ws.close()
            raise ClientError(f"{message.code}: {message.message}")
        if not isinstance(message, P.Welcome):
            raise ClientError(f"expected a welcome, got {type(message).__name__}")
        self.seat = message.seat
        if message.token is not None:
            self.token = message.token
        self._new_room(_as_dict(message.room))
        self._reader = asyncio.create_task(self._read())
        for sent, _ in list(self._pending.values()):
            await self._send(sent)

    def _new_room(self, room: dict[str, Any]) -> None:
        """Take the room's description; a new commitment is a rematch's new match,
        whose events count from 0 again."""
        if self.room.get("commitment") not in (None, room.get("commitment")):
            self.events.clear()
            self.last_seq = -1
            self.reveal = None
        self.room = room

    async def reconnect(self) -> None:
        """Connect again after a drop, resuming after :attr:`last_seq`; every action
        still unanswered is sent again with its id."""
        await self.close_socket()
        await self.connect()

    async def _resume_after_gap(self) -> None:
        """Reconnect after a gap in the events (if that fails, the connection is left
        closed, as after any drop: :meth:`reconnect` again)."""
        with contextlib.suppress(ClientError):
            await self.reconnect()

    async def close_socket(self) -> None:
        """Close the connection (pending actions stay pending)."""
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
            self._reader = None
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        self.closed.set()

    async def close(self) -> None:
        """Close, and fail every pending action."""
        for task in list(self._resends):
            task.cancel()
        await self.close_socket()
        for _, future in self._pending.values():
            if not future.done():
                future.set_exception(ClientError("closed"))
        self._pending.clear()

    # ------------------------------------------------------------ reading
    async def _read(self) -> None:
        try:
            async for data in self._ws:
                raw = data if isinstance(data, bytes) else data.encode()
                if self.keep_raw:
                    self.received.append(raw)
                self._take(P.decode_server(raw))
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed.set()
            self._changed.set()
            for listener in self.listeners:
                listener.set()

    def _take(self, message: P.ServerMessage) -> None:
        if (isinstance(message, P.Events) and message.events
                and message.events[0]["seq"] > self.last_seq + 1):
            # events were lost on the way (a server relaying the room lost some): this
            # message is left, and the connection resumes after the last event seen
            self.gaps += 1
            if self._gap_repair is None or self._gap_repair.done():
                self._gap_repair = asyncio.create_task(self._resume_after_gap())
            return
        if isinstance(message, P.Events):
            for event in message.events:
                if event["seq"] > self.last_seq:
                    self.events.append(event)
                    self.last_seq = event["seq"]
            self.legal, self.must = message.legal, message.must
            self.lead, self.phase = message.lead, message.phase
            if message.ack is not None:  # the ack of this client's action, after them
                self._take(message.ack)
        elif isinstance(message, P.Ack | P.Error | P.Snapshot):
            msg_id = message.id
            if (isinstance(message, P.Error) and self.resend and msg_id
                    and message.code in RESEND_CODES and msg_id in self._pending):
                self._resend_later(msg_id, message.retry_after)
                self._changed.set()
                for listener in self.listeners:
                    listener.set()
                return
            if msg_id:
                self.saving.pop(msg_id, None)
            waiting = self._pending.pop(msg_id, None) if msg_id else None
            if waiting is not None and not waiting[1].done():
                if isinstance(message, P.Error):
                    waiting[1].set_exception(ActionRefused(message.code, message.message))
                else:
                    waiting[1].set_result(message)
            elif isinstance(message, P.Error):
                self.errors.append(_as_dict(message))
            if isinstance(message, P.Snapshot):
                self.legal, self.must = message.legal, message.must
        elif isinstance(message, P.RoomState):
            self._new_room(_as_dict(message.room))
        elif isinstance(message, P.Timer):
            self.timer = _as_dict(message)
        elif isinstance(message, P.Reveal):
            self.reveal = _as_dict(message)
        elif isinstance(message, P.Bye):
            self.bye = _as_dict(message)
        elif isinstance(message, P.Chat) and (
                not self.chat_lines or message.at > self.chat_lines[-1]["at"]):
            # ``at`` rises within a room: the last lines sent again after a hello, which
            # are already here, are not kept twice
            self.chat_lines.append(_as_dict(message))
        self._changed.set()
        for listener in self.listeners:
            listener.set()

    async def wait_for(self, condition: Callable[[GameClient], bool],
                       timeout: float = 60.0) -> None:
        """Wait until ``condition(self)`` holds (checked after every message).

        Raises:
            TimeoutError: it did not within ``timeout`` seconds.
        """
        async with asyncio.timeout(timeout):
            while not condition(self):
                self._changed.clear()
                await self._changed.wait()

    # ------------------------------------------------------------ sending
    def _resend_later(self, msg_id: str, retry_after: float | None) -> None:
        """Send the pending message ``msg_id`` again, with its id, after a pause."""
        tries = self.saving.get(msg_id, 0) + 1
        self.saving[msg_id] = tries
        pause = resend_pause(retry_after, tries)
        if self.on_saving is not None:
            self.on_saving(msg_id, tries)

        async def again() -> None:
            await asyncio.sleep(pause)
            pending = self._pending.get(msg_id)
            if pending is not None and not pending[1].done() and self._ws is not None:
                await self._send(pending[0])
        task = asyncio.get_running_loop().create_task(again())
        self._resends.add(task)
        task.add_done_callback(self._resends.discard)

    def new_id(self) -> str:
        """A fresh client action id."""
        return f"{self._prefix}-{next(self._ids)}"

    async def _send(self, message: Any) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            await self._ws.send(P.encode(message).decode())

    async def request(self, message: Any, timeout: float = 60.0) -> Any:
        """Send a message with an id and wait for its answer (an ack or a snapshot).

        Raises:
            ActionRefused: the server answered with an error.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._pending[message.id] = (message, future)
        await self._send(message)
        async with asyncio.timeout(timeout):
            return await future

    async def act(self, action: str, *, msg_id: str | None = None) -> int:
        """Play ``action`` (text without the seat); the sequence number of its ack."""
        ack = await self.request(P.Act(id=msg_id or self.new_id(), action=action))
        return int(ack.seq)

    async def snapshot(self) -> dict[str, Any] | None:
        """The full view of this seat now."""
        answer = await self.request(P.SnapshotRequest(id=self.new_id()))
        return answer.view  # type: ignore[no-any-return]

    async def chat(self, text: str, *, msg_id: str | None = None) -> int:
        """Write ``text`` in the table chat; the sequence number of its ack (under the
        silence rule a line may cost a ``say``: see docs/protocol.md).

        Raises:
            ActionRefused: refused (``bad_request``, ``not_seated``, ``rate_limited``).
        """
        ack = await self.request(P.SendChat(id=msg_id or self.new_id(), text=text))
        return int(ack.seq)

    async def command(self, kind: type, **fields: Any) -> int:
        """A host command or other message with an id (``P.Start``, ``P.AddBot``, ...)."""
        ack = await self.request(kind(id=self.new_id(), **fields))
        return int(ack.seq)

    async def start(self) -> int:
        """The host starts the match (``start``)."""
        return await self.command(P.Start)

    async def add_bot(self, bot: str = "normal", seat: int | None = None) -> int:
        """The host seats a bot (``add_bot``)."""
        return await self.command(P.AddBot, bot=bot, seat=seat)

    async def remove_bot(self, seat: int) -> int:
        """The host takes the bot off ``seat`` (``remove_bot``)."""
        return await self.command(P.RemoveBot, seat=seat)

    async def set_timer(self, seconds: int) -> int:
        """The host sets the turn timer (``set_timer``)."""
        return await self.command(P.SetTimer, seconds=seconds)

    async def send_raw(self, text: str | bytes) -> None:
        """Send any text as is (for tests of what the server refuses)."""
        await self._ws.send(text)


def _as_dict(message: Any) -> dict[str, Any]:
    import msgspec
    data: dict[str, Any] = msgspec.to_builtins(message)
    return data
