"""The state of a game as plain data (JSON-ready), and back: what :meth:`Game.to_dict` and
:meth:`Game.from_dict` use; :mod:`unokit.formats.state_io` reads and writes it as JSON
text.

The dict holds the rules, the generator's state and every state field (cards as
codes), so a game restored from it continues exactly as the original would; the event
log and the action history are not part of the state (a record keeps those).

>>> from unokit import Game, Rules
>>> game = Game(Rules.preset("official", players=3), seed=5)
>>> data = state_to_dict(game)
>>> data["hands"][0] == [card_code(c) for c in game.hands[0]]
True
>>> state_from_dict(data) == game
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from unokit.engine.cards import card_code, parse_card
from unokit.engine.errors import SetupError, UnoError
from unokit.engine.rules import Rules

if TYPE_CHECKING:
    from unokit.engine.game import Game

STATE_FORMAT = "unokit-state"
STATE_VERSION = 1

_CARD_LISTS = ("deck", "draw_pile", "discard")
_CARD_SCALARS = ("drawn",)


def state_to_dict(game: Game) -> dict[str, Any]:
    """Every field of the state, JSON-ready."""
    from unokit.engine.game import STATE_FIELDS

    out: dict[str, Any] = {
        "format": STATE_FORMAT,
        "format_version": STATE_VERSION,
        "rules": game.rules.to_dict(),
        "rng_state": game.rng.state,
    }
    for name in STATE_FIELDS:
        value = getattr(game, name)
        if name in _CARD_LISTS:
            value = [card_code(c) for c in value]
        elif name == "hands":
            value = [[card_code(c) for c in hand] for hand in value]
        elif name in _CARD_SCALARS:
            value = card_code(value) if value >= 0 else None
        elif name == "phase":
            value = value.value
        elif isinstance(value, list):
            value = list(value)
        elif name == "positions":
            value = dict(value)
        out[name] = value
    return out


def state_from_dict(data: Any) -> Game:
    """A game in the state :func:`state_to_dict` wrote.

    Raises:
        SetupError: the data is not a state of this format, or is inconsistent.
    """
    from unokit.engine.game import STATE_FIELDS, Game, Phase

    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise SetupError("not a unokit state (format field missing or wrong)")
    if data.get("format_version") != STATE_VERSION:
        raise SetupError(f"unknown state format version {data.get('format_version')!r}")
    optional = {"positions"}  # states written before the repetition rule have none
    missing = [name for name in (*STATE_FIELDS, "rules", "rng_state")
               if name not in data and name not in optional]
    if missing:
        raise SetupError(f"state fields missing: {', '.join(missing)}")
    try:
        rules = Rules.from_dict(data["rules"])
        game = Game(rules, data["seed"], start=False)
        for name in STATE_FIELDS:
            value = data.get(name, {}) if name in optional else data[name]
            if name == "positions":
                value = _positions(value)
            elif name in _CARD_LISTS:
                value = [parse_card(c) for c in value]
            elif name == "hands":
                value = [[parse_card(c) for c in hand] for hand in value]
            elif name in _CARD_SCALARS:
                value = parse_card(value) if value is not None else -1
            elif name == "phase":
                value = Phase(value)
            setattr(game, name, value)
        game.rng.state = int(data["rng_state"])
        game.derive()  # everything derived: fast paths (from the deck), n_active, ...
    except (UnoError, TypeError, ValueError, KeyError) as exc:
        raise SetupError(f"inconsistent state: {exc}") from None
    if len(game.hands) != game.n:
        raise SetupError(f"{len(game.hands)} hands for {game.n} players")
    return game


def _positions(value: Any) -> dict[str, int]:
    """The repetition counts of a state (digest -> count), checked."""
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and type(v) is int and v > 0 for k, v in value.items()):
        raise SetupError("positions must map position digests to counts above 0")
    return dict(value)
