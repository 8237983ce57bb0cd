"""The HTTP API of challenges, coins and cosmetics (docs/accounts.md, "Challenges and
coins").

==========================================  ==========================================
``GET /api/challenges``                     the player's challenges: this day's and
                                            this week's, with progress, and completed
                                            ones of past periods still to claim
``POST /api/challenges/claim``              ``{"id", "ends_at"}``: pay a completed
                                            challenge's reward (once)
``GET /api/shop``                           the cosmetics, their prices, and the
                                            player's coins, owned and chosen ones
``POST /api/shop/buy``                      ``{"id"}``: buy a cosmetic with coins
``POST /api/shop/choose``                   ``{"id"}``: use a cosmetic of one's own
==========================================  ==========================================

Rewards are claimed, not paid on their own: a claim pays the challenge's XP and coins
once (:func:`unokit.store.challenges.claim_reward`), however many come at once. The
reads and the claim take a session or an API token; spending (buy, choose) takes the
browser's session. Each POST comes from an allowed origin as ``application/json``, like
the accounts API, and a player's POSTs here are limited to :data:`BURST` at once, then
one every ``1 / RATE`` seconds.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from unokit.i18n import N_, localize, pick_language
from unokit.server.accounts import _body, _guarded, _json, _now, _store, _who
from unokit.server.limits import AddressBuckets, Refused
from unokit.server.seating import RoomError
from unokit.store import challenges as stored
from unokit.store import coins
from unokit.store.catalogue import CHALLENGE_BY_ID, COSMETIC_BY_ID, COSMETICS

RATE = 1.0
"""A player's claims, buys and choices a second, past the burst."""
BURST = 30
MOST_END = 2**40
"""The largest period end a claim may name (seconds since the epoch)."""

NO_CHALLENGE = N_("no such challenge")
NO_COSMETIC = N_("no such cosmetic")


def _lang(request: Request) -> str:
    return pick_language(request.headers.get("accept-language"))


def _spend_limit(request: Request, player_id: int) -> None:
    """Take one of the player's tokens for a claim, a buy or a choice.

    Raises:
        Refused: ``rate_limited`` (429, with ``Retry-After``).
    """
    buckets: AddressBuckets | None = getattr(request.app.state, "reward_limits", None)
    if buckets is None:
        buckets = AddressBuckets(RATE, BURST)
        request.app.state.reward_limits = buckets
    wait = buckets.take(f"player:{player_id}")
    if wait > 0:
        raise Refused("rate_limited", 429, N_("too many requests: try again in a moment"),
                      retry_after=max(1, round(wait)))


def _item_id(data: dict[str, Any], known: dict[str, Any], missing: str) -> str:
    value = data.get("id")
    if not isinstance(value, str):
        raise RoomError("bad_request", N_("{name}: a string"), name="id")
    if value not in known:
        raise Refused("not_found", 404, missing)
    return value


async def list_challenges(request: Request) -> Response:
    """The player's challenges of the current day and week, and those of past periods
    completed and still to claim."""
    who = await _who(request, tokens=True)
    now = _now(request)
    entries = await stored.player_challenges(_store(request), who.player.id, now=now)
    lang = _lang(request)
    return _json({"now": now, "challenges": [
        entry.json(localize(lang, entry.challenge.title)) for entry in entries]})


async def claim(request: Request) -> Response:
    """Pay a completed challenge's reward: ``{"id", "ends_at"}`` (the period's end)."""
    data = await _body(request)
    who = await _who(request, tokens=True)
    challenge_id = _item_id(data, CHALLENGE_BY_ID, NO_CHALLENGE)
    end = data.get("ends_at")
    if not isinstance(end, int) or isinstance(end, bool) or not 0 < end <= MOST_END:
        raise RoomError("bad_request", N_("ends_at: the end of the challenge's period "
                                          "(seconds since the epoch)"))
    _spend_limit(request, who.player.id)
    try:
        paid = await stored.claim_reward(_store(request), who.player.id, challenge_id, end,
                                         now=_now(request))
    except stored.BadPeriod as exc:
        if exc.reason == "expired":
            raise Refused("expired", 409, N_("that period ended more than {days} days ago"),
                          days=stored.CLAIM_DAYS) from None
        raise RoomError("bad_request", N_("ends_at: not the end of one of this challenge's "
                                          "periods so far")) from None
    if paid == "not_complete":
        raise Refused("not_complete", 409, N_("this challenge is not complete"))
    if paid == "claimed":
        raise Refused("claimed", 409, N_("this reward was paid already"))
    assert isinstance(paid, stored.Paid)
    return _json({"id": challenge_id, "ends_at": end, "xp": paid.xp, "coins": paid.coins,
                  "balance": paid.balance})


async def shop(request: Request) -> Response:
    """The cosmetics with their prices, and the player's coins and cosmetics."""
    who = await _who(request, tokens=True)
    held = await coins.wallet(_store(request), who.player.id)
    lang = _lang(request)
    owned = set(held.owned)
    return _json({"coins": held.coins, "items": [
        {"id": item.id, "slot": item.slot, "name": localize(lang, item.name),
         "price": item.price, "colour": item.colour,
         "owned": item.price == 0 or item.id in owned,
         "chosen": held.chosen.get(item.slot) == item.id} for item in COSMETICS]})


async def buy(request: Request) -> Response:
    """Buy a cosmetic: ``{"id"}``; the coins left."""
    data = await _body(request)
    who = await _who(request)
    item_id = _item_id(data, COSMETIC_BY_ID, NO_COSMETIC)
    _spend_limit(request, who.player.id)
    left = await coins.buy(_store(request), who.player.id, item_id, now=_now(request))
    if left == "owned":
        raise Refused("owned", 409, N_("you have this cosmetic already"))
    if left == "too_poor":
        raise Refused("too_poor", 409, N_("not enough coins"))
    return _json({"id": item_id, "coins": left})


async def choose(request: Request) -> Response:
    """Use a cosmetic of one's own in its slot: ``{"id"}``."""
    data = await _body(request)
    who = await _who(request)
    item_id = _item_id(data, COSMETIC_BY_ID, NO_COSMETIC)
    _spend_limit(request, who.player.id)
    if not await coins.choose(_store(request), who.player.id, item_id):
        raise Refused("not_owned", 409, N_("buy this cosmetic first"))
    held = await coins.wallet(_store(request), who.player.id)
    return _json({"chosen": held.chosen})


def routes() -> list[BaseRoute]:
    """The routes of this module."""
    return [
        Route("/api/challenges", _guarded(list_challenges), methods=["GET"]),
        Route("/api/challenges/claim", _guarded(claim), methods=["POST"]),
        Route("/api/shop", _guarded(shop), methods=["GET"]),
        Route("/api/shop/buy", _guarded(buy), methods=["POST"]),
        Route("/api/shop/choose", _guarded(choose), methods=["POST"]),
    ]
