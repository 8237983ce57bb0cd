"""Which bots the server seats: the allow-list of bot specs that come from the network.

A spec from ``POST /api/rooms`` (``bots``), ``POST /api/play-now`` (``bot``) or the host's
``add_bot`` is one of the server's bots (``easy``, ``normal``, ``hard``, each with an
optional personality; ``random``; ``playfirst``; ``search``, ``expert`` and ``master``,
each with an optional number of deals up to ``bot_max_iterations``), at most :data:`SPEC_LIMIT`
characters. The room stores it in its canonical form (lower case, no spaces). Anything
else is refused with ``bad_request``.

>>> check_bot_spec(" Hard:Aggressive ", max_iterations=6000)
'hard:aggressive'
>>> check_bot_spec("search:9000", max_iterations=6000)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
unokit.server.seating.RoomError: bad_request: a search bot makes at most 6000 deals ...

A spec read back from the database is never refused (the room must come back): one
above the cap is lowered to it, and one the server no longer knows becomes ``normal``.

>>> clamp_bot_spec("search:5000000", max_iterations=6000)
'search:6000'
>>> clamp_bot_spec("search:" + "9" * 3900, max_iterations=6000)
'normal'
"""

from __future__ import annotations

from typing import Any

from unokit.bots import parse_bot_spec
from unokit.bots.base import BotSpecError
from unokit.i18n import N_
from unokit.server.seating import RoomError

SPEC_LIMIT = 40
"""The longest bot spec the server reads, in characters."""
FALLBACK_SPEC = "normal"
"""What a stored spec the server cannot read becomes."""


def canonical(name: str, options: dict[str, Any]) -> str:
    """The spec of a bot name and its parsed options.

    >>> canonical("search", {"iterations": 200}), canonical("easy", {})
    ('search:200', 'easy')
    """
    if "iterations" in options:
        return f"{name}:{options['iterations']}"
    if "personality" in options:
        return f"{name}:{options['personality']}"
    return name


def check_bot_spec(spec: object, *, max_iterations: int) -> str:
    """The canonical form of a bot spec from the network.

    Raises:
        RoomError: ``bad_request``: not a text, too long, no such bot, options that do
            not fit it, or more deals than ``max_iterations``.
    """
    if not isinstance(spec, str):
        raise RoomError("bad_request", N_("a bot is named by a text, such as \"normal\""))
    if len(spec) > SPEC_LIMIT:
        raise RoomError("bad_request", N_("a bot spec is at most {limit} characters"),
                        limit=SPEC_LIMIT)
    try:
        name, options = parse_bot_spec(spec)
    except BotSpecError:
        raise RoomError("bad_request", N_("no bot is called \"{spec}\": the bots are easy, "
                                          "normal and hard (each with a personality: "
                                          "easy:cautious), random, playfirst, search, "
                                          "expert and master (search:N, expert:N, "
                                          "master:N: N deals)"),
                        spec=spec.strip()[:SPEC_LIMIT]) from None
    if options.get("iterations", 0) > max_iterations:
        raise RoomError("bad_request", N_("a search bot makes at most {limit} deals per "
                                          "decision on this server"), limit=max_iterations)
    return canonical(name, options)


def clamp_bot_spec(spec: str, *, max_iterations: int) -> str:
    """A stored bot spec as the server plays it: canonical, ``search:N`` lowered to
    ``max_iterations``, :data:`FALLBACK_SPEC` for one it cannot read (never raises)."""
    if len(spec) > SPEC_LIMIT:
        return FALLBACK_SPEC
    try:
        name, options = parse_bot_spec(spec)
    except BotSpecError:
        return FALLBACK_SPEC
    if options.get("iterations", 0) > max_iterations:
        options["iterations"] = max_iterations
    return canonical(name, options)
