"""Game records: a match as ``(rules, seed, actions)`` plus a digest of its events.

A record is JSON text::

    {"format": "unokit-record", "format_version": 1, "engine_version": "0.1.0",
     "rules": {"preset": "official", "players": 3}, "seed": 7,
     "players": ["Alice", "Bob", "Cara"], "actions": ["1:draw", "2:R5", ...],
     "events_sha256": "..."}

The events themselves are not stored: :func:`replay` derives them by playing every
action again, checks that each action is legal, and compares the SHA-256 digest of the
resulting event log with ``events_sha256`` (see :func:`events_digest`). A record that
is broken in any way (bad JSON, a missing or mistyped field, an unknown format, an
illegal action, a digest that does not match) raises :class:`~unokit.engine.errors.RecordError`
and nothing else.

>>> from unokit import Game, Rules
>>> game = Game(Rules.preset("official", players=2, dealer="seat0"), seed=7)
>>> _ = game.apply(game.legal_actions(1)[-1])
>>> record = Record.from_game(game)
>>> record.actions
['1:draw']
>>> replay(Record.from_json(record.to_json())) == game
True
>>> record.actions[0] = "1:pass"
>>> replay(record)
Traceback (most recent call last):
...
unokit.engine.errors.RecordError: action 0 ('1:pass') is illegal: phase play: play a card or draw
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from unokit.engine.actions import format_action, parse_action
from unokit.engine.errors import IllegalActionError, RecordError, UnoError
from unokit.engine.events import Event
from unokit.engine.game import Game
from unokit.engine.rules import Rules

FORMAT = "unokit-record"
"""The value of a record's ``format`` field."""

FORMAT_VERSION = 1
"""The record format version this module writes and reads."""

_FIELDS = ("format", "format_version", "engine_version", "rules", "seed", "players",
           "actions", "events_sha256")
_HEX = frozenset("0123456789abcdef")


def _engine_version() -> str:
    from unokit._version import __version__
    return __version__


def default_names(players: int) -> list[str]:
    """The player names used when none are given: ``Seat 0``, ``Seat 1``, ...

    >>> default_names(2)
    ['Seat 0', 'Seat 1']
    """
    return [f"Seat {seat}" for seat in range(players)]


def event_line(event: Event) -> str:
    """The canonical JSON text of one event (sorted keys, no spaces, ASCII only)."""
    return json.dumps(event.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def events_digest(events: Iterable[Event]) -> str:
    """The SHA-256 hex digest of an event log: the canonical JSON of each event's
    :meth:`~unokit.engine.events.Event.to_dict`, one per line, each line ending in ``\\n``.

    >>> from unokit.engine.events import Event, EventKind
    >>> len(events_digest([Event(0, EventKind.START_CARD, card=5)]))
    64
    >>> events_digest([]) == hashlib.sha256(b"").hexdigest()
    True
    """
    digest = hashlib.sha256()
    for event in events:
        digest.update(event_line(event).encode("ascii"))
        digest.update(b"\n")
    return digest.hexdigest()


@dataclass(kw_only=True)
class Record:
    """One match, as stored. Build it with :meth:`from_game` or read it with
    :meth:`from_json` / :meth:`load`; check and play it with :func:`replay`."""

    format: str = FORMAT
    """Always ``"unokit-record"``."""
    format_version: int = FORMAT_VERSION
    """The version of this format (1)."""
    engine_version: str = field(default_factory=_engine_version)
    """The unokit version that wrote the record."""
    rules: dict[str, Any]
    """The rule set, as :meth:`Rules.to_dict` writes it."""
    seed: int
    """The game seed, ``0 <= seed < 2**64``."""
    players: list[str]
    """A name for every seat."""
    actions: list[str]
    """Every action of the match, in text form (``"0:R5"``)."""
    events_sha256: str
    """:func:`events_digest` of the whole event log after the last action."""

    # ------------------------------------------------------------ building
    @classmethod
    def from_game(cls, game: Game, players: Sequence[str] | None = None) -> Record:
        """The record of a game started with ``Game(rules, seed)``, up to now.

        Raises:
            RecordError: the game was set up some other way (``Game.from_setup``), or
                ``players`` does not name every seat.
        """
        names = default_names(game.n) if players is None else [str(p) for p in players]
        if len(names) != game.n:
            raise RecordError(f"{len(names)} player names for {game.n} seats")
        fresh = Game(game.rules, game.seed)
        if game.log[: len(fresh.log)] != fresh.log:
            raise RecordError("only a game started with Game(rules, seed) can be recorded")
        return cls(
            rules=game.rules.to_dict(),
            seed=game.seed,
            players=names,
            actions=[format_action(action) for action in game.history],
            events_sha256=events_digest(game.log),
        )

    # ------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict, fields in the order of the format."""
        return {
            "format": self.format,
            "format_version": self.format_version,
            "engine_version": self.engine_version,
            "rules": self.rules,
            "seed": self.seed,
            "players": list(self.players),
            "actions": list(self.actions),
            "events_sha256": self.events_sha256,
        }

    def to_json(self) -> str:
        """The record as JSON text (indented, one action per line, ending in a newline)."""
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_dict(cls, data: Any) -> Record:
        """A record from parsed JSON; every field is checked for presence and type.

        Raises:
            RecordError: naming the first field that is missing or wrong.
        """
        if not isinstance(data, Mapping):
            raise RecordError(f"a record is a JSON object, not {_json_type(data)}")
        unknown = sorted(str(key) for key in data if key not in _FIELDS)
        if unknown:
            raise RecordError(f"unknown record fields: {', '.join(unknown)}")
        for name in _FIELDS:
            if name not in data:
                raise RecordError(f"the record has no {name!r} field")
        fmt = data["format"]
        if fmt != FORMAT:
            raise RecordError(f"format: expected {FORMAT!r}, got {_short(fmt)}")
        version = data["format_version"]
        if not _is_int(version):
            raise RecordError(f"format_version: expected an integer, got {_short(version)}")
        if version != FORMAT_VERSION:
            raise RecordError(f"format_version {version} is not supported "
                              f"(this unokit reads version {FORMAT_VERSION})")
        if not isinstance(data["engine_version"], str):
            raise RecordError("engine_version: expected text")
        if not isinstance(data["rules"], Mapping):
            raise RecordError(f"rules: expected an object, got {_json_type(data['rules'])}")
        seed = data["seed"]
        if not _is_int(seed) or not 0 <= seed < 2**64:
            raise RecordError(f"seed: expected an integer 0 <= seed < 2**64, got {_short(seed)}")
        players = _text_list(data["players"], "players")
        actions = _text_list(data["actions"], "actions")
        digest = data["events_sha256"]
        if not isinstance(digest, str) or len(digest) != 64 or not set(digest) <= _HEX:
            raise RecordError("events_sha256: expected 64 lowercase hex digits")
        return cls(
            format=fmt,
            format_version=version,
            engine_version=data["engine_version"],
            rules=dict(data["rules"]),
            seed=seed,
            players=players,
            actions=actions,
            events_sha256=digest,
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Record:
        """A record from JSON text.

        Raises:
            RecordError: the text is not JSON or not a valid record.
        """
        if not isinstance(text, str | bytes):
            raise RecordError(f"expected JSON text, got {type(text).__name__}")
        try:
            data = json.loads(text)
        except RecursionError:
            raise RecordError("not valid JSON: nested too deeply") from None
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, huge numbers
            raise RecordError(f"not valid JSON: {exc}") from None
        return cls.from_dict(data)

    # ------------------------------------------------------------ files
    def save(self, path: str | Path) -> None:
        """Write the record to ``path`` as JSON (UTF-8)."""
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Record:
        """Read a record file.

        Raises:
            RecordError: the file cannot be read or is not a valid record.
        """
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            return cls.from_json(raw)
        except RecordError as exc:
            raise RecordError(f"{path}: {exc}") from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "text", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _text_list(value: Any, name: str) -> list[str]:
    if not isinstance(value, list):
        raise RecordError(f"{name}: expected a list, got {_json_type(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise RecordError(f"{name}[{index}]: expected text, got {_json_type(item)}")
    return list(value)


def _as_record(record: Record | str | bytes | Mapping[str, Any]) -> Record:
    if isinstance(record, Record):
        # A record built in code is checked like one read from JSON.
        return Record.from_dict(record.to_dict())
    if isinstance(record, str | bytes):
        return Record.from_json(record)
    return Record.from_dict(record)


# ------------------------------------------------------------------ replay
class ReplayStep(NamedTuple):
    """One step of :func:`replay_steps`."""

    action: int | None
    """The action applied (``None`` for the set-up before the first action)."""
    events: list[Event]
    """The events it caused."""
    game: Game
    """The game after it (the same object at every step, updated in place)."""


def replay_steps(record: Record | str | bytes | Mapping[str, Any]) -> Iterator[ReplayStep]:
    """Play a record step by step.

    The first step is ``(None, set-up events, game)``: choosing the dealer, the deal and
    the start card. Then comes one step per action. After the last step the event digest
    is checked; a mismatch raises :class:`RecordError` at that point.

    Raises:
        RecordError: the record is broken; the message names the action index and text.
    """
    rec = _as_record(record)
    try:
        rules = Rules.from_dict(rec.rules)
    except UnoError as exc:
        raise RecordError(f"rules: {exc}") from None
    if len(rec.players) != rules.players:
        raise RecordError(f"players: {len(rec.players)} names for {rules.players} seats")
    try:
        game = Game(rules, rec.seed)
    except UnoError as exc:
        raise RecordError(f"the game cannot start: {exc}") from None
    yield ReplayStep(None, list(game.log), game)
    for index, text in enumerate(rec.actions):
        try:
            action = parse_action(text)
        except UnoError as exc:
            raise RecordError(f"action {index} ({text!r}) is not an action: {exc}") from None
        try:
            events = game.apply(action)
        except IllegalActionError as exc:
            raise RecordError(f"action {index} ({text!r}) is illegal: {exc.reason}") from None
        except UnoError as exc:
            raise RecordError(f"action {index} ({text!r}) failed: {exc}") from None
        yield ReplayStep(action, events, game)
    digest = events_digest(game.log)
    if digest != rec.events_sha256:
        made_by = rec.engine_version
        here = _engine_version()
        why = ("the record was changed after it was written" if made_by == here
               else f"it was written by unokit {made_by}, this is {here}")
        raise RecordError(f"the events digest does not match after {len(rec.actions)} "
                          f"actions: {why}")


def replay(record: Record | str | bytes | Mapping[str, Any]) -> Game:
    """Play a whole record again and return the game after its last action.

    Every action is checked for legality and the event digest is compared.

    Raises:
        RecordError: the record is broken or was tampered with.
    """
    game: Game | None = None
    for step in replay_steps(record):
        game = step.game
    assert game is not None  # replay_steps always yields the set-up step
    return game


__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Record",
    "ReplayStep",
    "default_names",
    "event_line",
    "events_digest",
    "replay",
    "replay_steps",
]
