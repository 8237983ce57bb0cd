"""A unokit bot as a remote player: ``unokit bot --server URL --room CODE --bot LEVEL``.

The bot joins a seat (or takes back its seat with a token), and whenever the server says
its seat may act, it asks for a snapshot of its view, lets the bot choose from the legal
actions, and sends the choice. A refused action is logged and the bot asks again; a drop
of the connection is followed by a reconnect that resumes where it stopped.

>>> view = {"seat": 0, "phase": "play", "current_player": 0, "direction": "cw",
...         "top": "R5", "color": "R", "hand": ["R1", "B2"], "hand_sizes": [2, 3],
...         "draw_pile_size": 50, "discard": ["R5"], "scores": [0, 0], "dealer": 1,
...         "round": 1, "pending_draw": 0, "uno_open": None, "drawn_card": None,
...         "partner_hand": None, "active": [True, True], "in_match": [True, True],
...         "finish_order": [], "levels": [1, 1], "round_winner": None,
...         "match_winner": None, "slap_left": []}
>>> observation_from_view(view).hand == tuple(sorted(observation_from_view(view).hand))
True
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from unokit.bots import make_bot
from unokit.client.client import ActionRefused, ClientError, GameClient
from unokit.engine.actions import format_action, parse_action
from unokit.engine.cards import COLOR_LETTERS, parse_card
from unokit.engine.observation import Observation
from unokit.engine.rules import Rules
from unokit.i18n import current_language

LOG = logging.getLogger("unokit.bot")


def _card(code: str | None) -> int:
    return -1 if code is None else parse_card(code)


def observation_from_view(view: dict[str, Any]) -> Observation:
    """The :class:`Observation` of a snapshot's ``view`` (its :meth:`to_dict`)."""
    def cards(codes: list[str] | None) -> tuple[int, ...]:
        return tuple(parse_card(c) for c in codes or [])
    color = view.get("color")
    return Observation(
        seat=view["seat"], phase=view["phase"], current_player=view["current_player"],
        direction=1 if view["direction"] == "cw" else -1, top=_card(view["top"]),
        color=COLOR_LETTERS.index(color) if color else -1,
        hand=tuple(sorted(cards(view["hand"]))), hand_sizes=tuple(view["hand_sizes"]),
        draw_pile_size=view["draw_pile_size"], discard=cards(view["discard"]),
        scores=tuple(view["scores"]), dealer=view["dealer"], round=view["round"],
        pending_draw=view["pending_draw"], uno_open=view["uno_open"],
        drawn_card=None if view["drawn_card"] is None else parse_card(view["drawn_card"]),
        partner_hand=(None if view["partner_hand"] is None
                      else cards(view["partner_hand"])),
        active=tuple(view["active"]), in_match=tuple(view["in_match"]),
        finish_order=tuple(view["finish_order"]), levels=tuple(view["levels"]),
        round_winner=view["round_winner"], match_winner=view["match_winner"],
        slap_left=tuple(view.get("slap_left", ())))


async def run_bot(base: str, room: str, bot: str = "normal", *, name: str = "",
                  token: str | None = None, seed: int = 0,
                  client: GameClient | None = None,
                  api_token: str | None = None) -> GameClient:
    """Play ``room`` with the bot ``bot`` until the match ends; the client (its
    ``reveal`` set).

    Raises:
        ClientError: the room could not be joined.
        BotSpecError: no such bot.
    """
    rules_bot = make_bot(bot, seed)  # checks the spec before joining
    del rules_bot
    if client is None:
        client = await GameClient.join(base, room, name=name or f"{bot} bot", token=token,
                                       lang=current_language(), api_token=api_token)
    if client.seat is None:
        raise ClientError("the bot has no seat (the room is full)")
    client.on_saving = _say_saving
    seat = client.seat
    player = make_bot(bot, seed, rules=Rules.from_dict(client.room["rules"]))
    while client.reveal is None:
        try:
            await client.wait_for(lambda c: c.reveal is not None or bool(c.legal)
                                  or c.closed.is_set(), timeout=3600)
        except TimeoutError:
            continue
        if _over(client):
            break
        if client.closed.is_set():
            if client.bye is not None and not client.bye.get("reconnect", True):
                raise ClientError(f"the server closed the seat: {client.bye['reason']}")
            await _reconnect(client)
            continue
        try:
            view = await client.snapshot()
        except ActionRefused as exc:
            await _pause_if_limited(exc)
            continue
        except (ClientError, TimeoutError):
            continue
        legal_texts = list(client.legal)
        if view is None or not legal_texts:
            client.legal = []
            continue
        legal = [parse_action(f"{seat}:{text}") for text in legal_texts]
        choice = player.choose(observation_from_view(view), legal)
        if choice is None:
            if not client.must:
                # nothing to do out of turn: wait for the next events
                client.legal = []
                continue
            choice = legal[0]
        try:
            await client.act(format_action(choice).split(":", 1)[1])
        except ActionRefused as exc:
            # the state may have moved on, or the server wants fewer messages: the next
            # snapshot says what this seat may do now (clearing the legal actions here
            # would wait for events that never come when it is still this seat's turn)
            LOG.info("action refused", extra={"code": exc.code})
            await _pause_if_limited(exc)
        except (ClientError, TimeoutError):
            continue
    return client


def _say_saving(msg_id: str, tries: int) -> None:
    """The server did not keep an action (a database outage): the client sends it
    again with the same id; say so the first time."""
    if tries == 1:
        LOG.info("saving: the server did not keep the action yet; sending it again",
                 extra={"id": msg_id})


RATE_PAUSE = 0.2
"""Seconds the bot waits after the server answered ``rate_limited``."""


async def _pause_if_limited(exc: ActionRefused) -> None:
    if exc.code == "rate_limited":
        await asyncio.sleep(RATE_PAUSE)


def _over(client: GameClient) -> bool:
    return client.reveal is not None


async def _reconnect(client: GameClient) -> None:
    delay = 0.2
    while True:
        try:
            await client.reconnect()
            return
        except ClientError:
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
