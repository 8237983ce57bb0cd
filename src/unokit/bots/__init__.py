"""Bots that play unokit games through the same view a player has.

:class:`~unokit.bots.base.Bot` is the protocol, :func:`~unokit.bots.base.play` the
driver of a bot match, and :data:`BOTS` maps bot names to their classes:

>>> sorted(BOTS)
['easy', 'expert', 'hard', 'master', 'normal', 'playfirst', 'random', 'search']
>>> make_bot("random", seed=4)
RandomBot(seed=4)
>>> make_bot("hard:aggressive", seed=1)
HardBot(seed=1, level='hard', personality='aggressive')
>>> from unokit import Rules
>>> make_bot("search:200", seed=2, rules=Rules.preset("official", players=2))
SearchBot(seed=2, iterations=200)
>>> parse_bot_spec("search:200")
('search', {'iterations': 200})
"""

from __future__ import annotations

from typing import Any

from unokit.bots.base import (
    Bot,
    BotError,
    BotSpecError,
    SeededBot,
    Step,
    asking_order,
    must_act,
    play,
)
from unokit.bots.expert import ExpertBot
from unokit.bots.heuristic import (
    LEVELS,
    PERSONALITIES,
    EasyBot,
    HardBot,
    HeuristicBot,
    NormalBot,
)
from unokit.bots.master import MasterBot
from unokit.bots.search import SearchBot
from unokit.bots.simple import PlayFirstBot, RandomBot
from unokit.engine.rules import Rules

BOTS: dict[str, type[SeededBot]] = {
    "easy": EasyBot,
    "expert": ExpertBot,
    "hard": HardBot,
    "master": MasterBot,
    "normal": NormalBot,
    "playfirst": PlayFirstBot,
    "random": RandomBot,
    "search": SearchBot,
}
"""Bot name -> bot class (each takes a ``seed``; see :func:`make_bot` for the rest)."""

_TAKES_OPTIONS = {"easy", "expert", "hard", "master", "normal", "search"}
_SEARCHES = {"expert", "master", "search"}
"""The bots that search (``NAME:N``: N deals per decision) and need the rules."""
MAX_ITERATION_DIGITS = 9
"""The most digits of ``N`` in ``search:N``."""


def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``(name, options)`` of a bot spec: a name, optionally followed by ``:`` and a
    personality (``hard:aggressive``) or, for ``search``, ``expert`` and ``master``, an iteration
    count (``search:200``).

    >>> parse_bot_spec(" Normal:Cautious ")
    ('normal', {'personality': 'cautious'})
    >>> parse_bot_spec("hard")
    ('hard', {})
    >>> parse_bot_spec("search:\u00b2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    unokit.bots.base.BotSpecError: search:N needs a positive number of iterations ...

    Raises:
        BotSpecError: no bot has that name, or the part after ``:`` does not fit it.
    """
    name, _, rest = spec.strip().lower().partition(":")
    name, rest = name.strip(), rest.strip()
    if name not in BOTS:
        raise BotSpecError(f"unknown bot {name[:20]!r}; bots: {', '.join(sorted(BOTS))}")
    if not rest:
        return name, {}
    if name in _SEARCHES:
        # ASCII digits only (str.isdigit also takes '²'), and few enough of them that int()
        # neither refuses nor takes long
        if (not (rest.isascii() and rest.isdigit()) or len(rest) > MAX_ITERATION_DIGITS
                or int(rest) < 1):
            raise BotSpecError(f"{name}:N needs a positive number of iterations (at most "
                               f"{MAX_ITERATION_DIGITS} digits), got {rest[:20]!r}")
        return name, {"iterations": int(rest)}
    if name in LEVELS:
        if rest not in PERSONALITIES:
            raise BotSpecError(f"unknown personality {rest[:20]!r}; personalities: "
                               f"{', '.join(PERSONALITIES)}")
        return name, {"personality": rest}
    raise BotSpecError(f"the {name} bot takes no options (got {spec[:40]!r})")


def make_bot(name: str, seed: int = 0, *, rules: Rules | None = None,
             **options: Any) -> SeededBot:
    """A bot by name or spec (see :func:`parse_bot_spec`), with ``options`` for its class
    (e.g. ``personality``, ``iterations``, ``reaction_delay``). ``rules`` goes to the bots
    that use it (the heuristic levels count cards with it; ``search`` needs it) and is
    ignored by the others.

    Raises:
        BotSpecError: no bot has that name, an option does not fit it, or ``search`` was
            asked for without ``rules``.
    """
    key, parsed = parse_bot_spec(name)
    parsed.update(options)
    cls = BOTS[key]
    if key not in _TAKES_OPTIONS:
        if parsed:
            raise BotSpecError(f"the {key} bot takes no options (got {', '.join(parsed)})")
        return cls(seed)
    if key in _SEARCHES and rules is None:
        raise BotSpecError(f"the {key} bot needs the rules: make_bot({key!r}, rules=...)")
    try:
        return cls(seed, rules=rules, **parsed)  # type: ignore[call-arg]
    except BotSpecError:
        raise
    except (TypeError, ValueError) as exc:  # an option of the wrong name, type or value
        raise BotSpecError(f"bad option for the {key} bot: {exc}") from None


__all__ = [
    "BOTS",
    "LEVELS",
    "PERSONALITIES",
    "Bot",
    "BotError",
    "BotSpecError",
    "EasyBot",
    "ExpertBot",
    "HardBot",
    "HeuristicBot",
    "MasterBot",
    "NormalBot",
    "PlayFirstBot",
    "RandomBot",
    "SearchBot",
    "SeededBot",
    "Step",
    "asking_order",
    "make_bot",
    "must_act",
    "parse_bot_spec",
    "play",
]
