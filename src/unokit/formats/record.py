"""Game records: a match as ``(rules, seed, actions)`` plus digests of its events and
of its header (rules, seed, players).

A record is JSON text::

    {"format": "unokit-record", "format_version": 2, "engine_version": "0.1.0",
     "rules": {"preset": "official", "players": 3}, "seed": 7,
     "players": ["Alice", "Bob", "Cara"], "actions": ["1:draw", "2:R5", ...],
     "events_sha256": "...", "header_sha256": "..."}

The events themselves are not stored: :func:`replay` derives them by playing every
action again, checks that each action is legal, and compares the SHA-256 digest of the
resulting event log with ``events_sha256`` (see :func:`events_digest`). ``header_sha256``
(:func:`header_digest`) covers the canonical rules, the seed and the players, so that a
rule which never acted cannot be changed unnoticed either. A record of a match dealt
provably fairly also holds an optional ``"fairness"`` block, last, which
:func:`unokit.formats.fairdeal.verify_record` checks. Records of
format version 1 have no ``header_sha256`` and are still read. A record that is broken in
any way (bad JSON, a missing or mistyped field, an unknown format, an illegal action, a
digest that does not match, a file over :data:`MAX_RECORD_BYTES`) raises
:class:`~unokit.engine.errors.RecordError` and nothing else.

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
from unokit.engine.errors import IllegalActionError, Reason, RecordError, UnoError
from unokit.engine.events import Event
from unokit.engine.game import Game
from unokit.engine.jsontext import MAX_FILE_BYTES, parse_json, read_limited
from unokit.engine.rules import Rules

FORMAT = "unokit-record"
"""The value of a record's ``format`` field."""

FORMAT_VERSION = 2
"""The record format version this module writes. It reads versions 1 and 2."""

READ_VERSIONS = (1, 2)
"""The record format versions this module reads."""

MAX_RECORD_BYTES = MAX_FILE_BYTES
"""The largest record file :meth:`Record.load` reads (64 MB)."""

_FIELDS_V1 = ("format", "format_version", "engine_version", "rules", "seed", "players",
              "actions", "events_sha256")
_FIELDS = (*_FIELDS_V1, "header_sha256")
_OPTIONAL = ("fairness",)
_FAIRNESS_KEYS = ("scheme", "commitment", "contributions", "server_seed")
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


def header_digest(rules: Rules, seed: int, players: Sequence[str]) -> str:
    """The SHA-256 hex digest of a record's header (format version 2): the ASCII line of
    the canonical JSON of ``{"format", "format_version", "players", "rules", "seed"}``
    (keys sorted, no spaces, ASCII only, ``rules`` as :meth:`Rules.to_dict` writes the
    rule set), followed by ``"\\n"``.

    >>> from unokit import Rules
    >>> a = header_digest(Rules.preset("official", players=3), 7, ["A", "B", "C"])
    >>> b = header_digest(Rules.preset("official", players=3, uno_penalty=4), 7,
    ...                   ["A", "B", "C"])
    >>> len(a), a == b
    (64, False)
    """
    header = {"format": FORMAT, "format_version": 2, "players": list(players),
              "rules": rules.to_dict(), "seed": seed}
    line = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(line.encode("ascii") + b"\n").hexdigest()


@dataclass(kw_only=True)
class Record:
    """One match, as stored. Build it with :meth:`from_game` or read it with
    :meth:`from_json` / :meth:`load`; check and play it with :func:`replay`."""

    format: str = FORMAT
    """Always ``"unokit-record"``."""
    format_version: int = FORMAT_VERSION
    """The version of this format (2; 1 for a record written before it)."""
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
    header_sha256: str | None = None
    """:func:`header_digest` of the rules, seed and players; ``None`` in a record of
    format version 1."""
    fairness: dict[str, Any] | None = None
    """The provably fair deal of the match (:mod:`unokit.formats.fairdeal`): ``{"scheme",
    "commitment", "contributions", "server_seed"}``, or ``None`` for a match dealt
    without one. Optional, in format version 2 only, and not covered by
    ``header_sha256``: :func:`unokit.formats.fairdeal.verify_record` checks it."""

    # ------------------------------------------------------------ building
    @classmethod
    def from_game(cls, game: Game, players: Sequence[str] | None = None, *,
                  fairness: Mapping[str, Any] | None = None) -> Record:
        """The record of a game started with ``Game(rules, seed)``, up to now, with the
        ``fairness`` block of its deal if there is one.

        Raises:
            RecordError: the game was set up some other way (``Game.from_setup``), or
                ``players`` does not name every seat.
        """
        names = default_names(game.n) if players is None else [str(p) for p in players]
        if len(names) != game.n:
            raise RecordError(Reason("{names} player names for {seats} seats", names=len(names),
                                     seats=game.n))
        fresh = Game(game.rules, game.seed)
        if game.log[: len(fresh.log)] != fresh.log:
            raise RecordError(Reason("only a game started with Game(rules, seed) can be "
                                     "recorded"))
        digest = events_digest(game.log)
        return cls(
            rules=game.rules.to_dict(),
            seed=game.seed,
            players=names,
            actions=[format_action(action) for action in game.history],
            events_sha256=digest,
            header_sha256=header_digest(game.rules, game.seed, names),
            fairness=None if fairness is None else _fairness(fairness),
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
            **({} if self.format_version == 1 else {"header_sha256": self.header_sha256}),
            **({} if self.fairness is None else {"fairness": _copy_fairness(self.fairness)}),
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
            raise RecordError(Reason("a record is a JSON object, not {kind}",
                                     kind=_json_type(data)))
        version = data.get("format_version")
        expected = _FIELDS_V1 if _is_int(version) and version == 1 else _FIELDS
        optional = () if expected is _FIELDS_V1 else _OPTIONAL
        if optional == () and "fairness" in data:
            raise RecordError(Reason("fairness: a record of format version 1 has no fairness "
                                     "block"))
        unknown = sorted(_short_text(key) for key in data
                         if key not in expected and key not in optional)
        if unknown:
            raise RecordError(Reason("unknown record fields: {fields}",
                                     fields=", ".join(unknown)))
        for name in expected:
            if name not in data:
                raise RecordError(Reason("the record has no {field} field", field=repr(name)))
        fmt = data["format"]
        if fmt != FORMAT:
            raise RecordError(Reason("format: expected {expected}, got {value}",
                                     expected=repr(FORMAT), value=_short(fmt)))
        version = data["format_version"]
        if not _is_int(version):
            raise RecordError(Reason("format_version: expected an integer, got {value}",
                                     value=_short(version)))
        if version not in READ_VERSIONS:
            raise RecordError(Reason("format_version {value} is not supported (this "
                                     "unokit reads versions 1 and {version})",
                                     value=_short(version), version=FORMAT_VERSION))
        if not isinstance(data["engine_version"], str):
            raise RecordError(Reason("engine_version: expected text"))
        if not isinstance(data["rules"], Mapping):
            raise RecordError(Reason("rules: expected an object, got {kind}",
                                     kind=_json_type(data["rules"])))
        seed = data["seed"]
        if not _is_int(seed) or not 0 <= seed < 2**64:
            raise RecordError(Reason("seed: expected an integer 0 <= seed < 2**64, got {value}",
                                     value=_short(seed)))
        players = _text_list(data["players"], "players")
        actions = _text_list(data["actions"], "actions")
        digest = _hex_digest(data, "events_sha256")
        whole = _hex_digest(data, "header_sha256") if version >= 2 else None
        fair = _fairness(data["fairness"]) if "fairness" in data else None
        return cls(
            format=fmt,
            format_version=version,
            engine_version=data["engine_version"],
            rules=dict(data["rules"]),
            seed=seed,
            players=players,
            actions=actions,
            events_sha256=digest,
            header_sha256=whole,
            fairness=fair,
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Record:
        """A record from JSON text.

        Raises:
            RecordError: the text is not JSON or not a valid record.
        """
        return cls.from_dict(parse_json(text, RecordError))

    # ------------------------------------------------------------ files
    def save(self, path: str | Path) -> None:
        """Write the record to ``path`` as JSON (UTF-8)."""
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Record:
        """Read a record file.

        Raises:
            RecordError: the file cannot be read, is larger than :data:`MAX_RECORD_BYTES`
                or is not a valid record.
        """
        raw = read_limited(path, RecordError, MAX_RECORD_BYTES)
        try:
            return cls.from_json(raw)
        except RecordError as exc:
            raise RecordError(Reason("{path}: {problem}", path=str(path), problem=exc)) from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json_type(value: Any) -> str:
    names = {dict: Reason("an object"), list: Reason("a list"), str: Reason("text"),
             bool: Reason("a boolean"), int: Reason("a number"), float: Reason("a number"),
             type(None): Reason("null")}
    return names.get(type(value), type(value).__name__)


def _hex_digest(data: Mapping[str, Any], name: str, label: str | None = None,
                or_else: str = "") -> str:
    digest = data[name]
    if not isinstance(digest, str) or len(digest) != 64 or not set(digest) <= _HEX:
        if or_else:
            raise RecordError(Reason("{field}: expected 64 lowercase hex digits or null "
                                     "(not revealed)", field=label or name))
        raise RecordError(Reason("{field}: expected 64 lowercase hex digits",
                                 field=label or name))
    return digest


def _fairness(value: Any) -> dict[str, Any]:
    """A checked copy of a fairness block: its four fields and their types (what they
    mean is checked by :func:`unokit.formats.fairdeal.verify_record`)."""
    if not isinstance(value, Mapping):
        raise RecordError(Reason("fairness: expected an object, got {kind}",
                                 kind=_json_type(value)))
    unknown = sorted(_short_text(key) for key in value if key not in _FAIRNESS_KEYS)
    if unknown:
        raise RecordError(Reason("fairness: unknown fields: {fields}",
                                 fields=", ".join(unknown)))
    for name in _FAIRNESS_KEYS:
        if name not in value:
            raise RecordError(Reason("fairness: no {field} field", field=repr(name)))
    if not isinstance(value["scheme"], str):
        raise RecordError(Reason("fairness.scheme: expected text, got {kind}",
                                 kind=_json_type(value["scheme"])))
    commitment = _hex_digest(value, "commitment", "fairness.commitment")
    server_seed = value["server_seed"]
    if server_seed is not None:
        server_seed = _hex_digest(value, "server_seed", "fairness.server_seed",
                                  " or null (not revealed)")
    contributions = value["contributions"]
    if not isinstance(contributions, Mapping):
        raise RecordError(Reason("fairness.contributions: expected an object, got {kind}",
                                 kind=_json_type(contributions)))
    for seat, text in contributions.items():
        if not isinstance(seat, str):
            raise RecordError(Reason("fairness.contributions: expected text keys (seat "
                                     "numbers)"))
        if not isinstance(text, str):
            raise RecordError(Reason("fairness.contributions[{seat}]: expected text, got "
                                     "{kind}", seat=_short(seat), kind=_json_type(text)))
    return {"scheme": value["scheme"], "commitment": commitment,
            "contributions": dict(contributions), "server_seed": server_seed}


def _copy_fairness(block: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a fairness block, so that a written dict shares nothing with the record."""
    copy = dict(block)
    if isinstance(copy.get("contributions"), Mapping):
        copy["contributions"] = dict(copy["contributions"])
    return copy


def _short_text(value: Any) -> str:
    text = value if isinstance(value, str) and value.isprintable() else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _text_list(value: Any, name: str) -> list[str]:
    if not isinstance(value, list):
        raise RecordError(Reason("{field}: expected a list, got {kind}", field=name,
                                 kind=_json_type(value)))
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise RecordError(Reason("{field}[{index}]: expected text, got {kind}", field=name,
                                     index=index, kind=_json_type(item)))
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
        # Version 1 records may hold keys that have no effect, which are refused now;
        # reset to their defaults they change nothing in the game.
        rules = Rules.from_dict(rec.rules, drop_inert=rec.format_version == 1)
    except UnoError as exc:
        raise RecordError(Reason("rules: {problem}", problem=exc)) from None
    if len(rec.players) != rules.players:
        raise RecordError(Reason("players: {names} names for {seats} seats",
                                 names=len(rec.players), seats=rules.players))
    if (rec.header_sha256 is not None
            and header_digest(rules, rec.seed, rec.players)
            != rec.header_sha256):
        raise RecordError(Reason("the header digest does not match: the rules, seed or "
                                 "players {why}", why=_changed_why(rec.engine_version)))
    try:
        game = Game(rules, rec.seed)
    except UnoError as exc:
        raise RecordError(Reason("the game cannot start: {problem}", problem=exc)) from None
    yield ReplayStep(None, list(game.log), game)
    for index, text in enumerate(rec.actions):
        try:
            action = parse_action(text)
        except UnoError as exc:
            raise RecordError(Reason("action {index} ({text}) is not an action: {problem}",
                                     index=index, text=repr(text), problem=exc)) from None
        try:
            events = game.apply(action)
        except IllegalActionError as exc:
            raise RecordError(Reason("action {index} ({text}) is illegal: {problem}",
                                     index=index, text=repr(text), problem=exc.reason)
                              ) from None
        except UnoError as exc:
            raise RecordError(Reason("action {index} ({text}) failed: {problem}", index=index,
                                     text=repr(text), problem=exc)) from None
        yield ReplayStep(action, events, game)
    digest = events_digest(game.log)
    if digest != rec.events_sha256:
        made_by = rec.engine_version
        here = _engine_version()
        why = (Reason("the record was changed after it was written") if made_by == here
               else Reason("it was written by unokit {made_by}, this is {here}",
                           made_by=_short_text(made_by), here=here))
        raise RecordError(Reason("the events digest does not match after {n} actions: {why}",
                                 n=len(rec.actions), why=why))


def _changed_why(made_by: str) -> str:
    """Why a record digest differs, for the message."""
    here = _engine_version()
    if made_by == here:
        return Reason("were changed after it was written")
    return Reason("were changed after it was written, or unokit {made_by} wrote them "
                  "differently (this is {here})", made_by=_short_text(made_by), here=here)


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
    "MAX_RECORD_BYTES",
    "READ_VERSIONS",
    "Record",
    "ReplayStep",
    "default_names",
    "event_line",
    "events_digest",
    "header_digest",
    "replay",
    "replay_steps",
]
