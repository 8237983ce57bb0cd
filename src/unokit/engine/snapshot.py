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

from unokit.engine.cards import card_code
from unokit.engine.errors import SetupError, UnoError
from unokit.engine.rules import Rules
from unokit.engine.state_check import check_state, read_fields, read_rng_state, short_repr

if TYPE_CHECKING:
    from unokit.engine.game import Game

STATE_FORMAT = "unokit-state"
STATE_VERSION = 1

_CARD_LISTS = ("deck", "draw_pile", "discard")
_CARD_SCALARS = ("drawn",)
_HEADER = ("format", "format_version", "rules", "rng_state")


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

    Nothing in ``data`` is trusted: every field is checked, then whether the fields fit
    together (:mod:`unokit.engine.state_check`), and the derived state is computed again.

    Raises:
        SetupError: the data is not a state of this format, or a field is missing,
            malformed or does not fit the others (the message names the field).
    """
    from unokit.engine.game import STATE_FIELDS, Game

    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise SetupError("not a unokit state (format field missing or wrong)")
    version = data.get("format_version")
    if type(version) is not int or version != STATE_VERSION:
        raise SetupError(f"unknown state format version {short_repr(version)}")
    # States written before the repetition rule have no positions.
    optional: dict[str, Any] = {"positions": {}}
    known = {*STATE_FIELDS, *_HEADER}
    missing = [name for name in (*STATE_FIELDS, *_HEADER)
               if name not in data and name not in optional]
    if missing:
        raise SetupError(f"state fields missing: {', '.join(missing)}")
    unknown = sorted(short_repr(name) for name in data if name not in known)
    if unknown:
        more = ", ..." if len(unknown) > 5 else ""
        raise SetupError(f"state fields unknown: {', '.join(unknown[:5])}{more}")
    try:
        rules = Rules.from_dict(data["rules"])
    except UnoError as exc:
        raise SetupError(f"rules: {exc}") from None
    rng_state = read_rng_state(data["rng_state"])
    fields = read_fields({**optional, **data}, STATE_FIELDS, rules.players)
    game = Game(rules, fields["seed"], start=False)
    for name, value in fields.items():
        setattr(game, name, value)
    game.rng.state = rng_state
    game.n_active = sum(game.active)
    check_state(game)
    game.derive()  # everything derived: fast paths (from the deck), n_active, ...
    return game
