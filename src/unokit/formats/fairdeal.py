"""Provably fair deals: a match seed that neither the server nor any player can choose,
and the check that a record's every shuffle followed from it.

The scheme ``unokit-deal-v1``, step by step:

1. **Commit.** Before the match the server draws a secret *server seed* of 32 random
   bytes (:func:`new_server_seed`) and publishes its *commitment*,
   ``sha256(server_seed).hexdigest()`` (:func:`commitment`): 64 lowercase hex digits.
2. **Contribute.** Each seated client may then add one value of its own: text of 1 to
   128 characters from ``0-9 a-z A-Z _ -``. A seat gives at most one value; a second one
   is refused, not replaced (:func:`check_entropy`, :func:`add_contribution`). The
   server closes the contributions before it deals.
3. **Derive.** The match seed is :func:`derive_seed`: the SHA-256 digest of the bytes

   ``b"unokit-deal-v1\\n" + server_seed + b"".join(f"{seat}:{value}\\n".encode("ascii")
   for seat, value in sorted(contributions.items()))``

   read as a big-endian integer from its first 8 bytes (``0 <= seed < 2**64``). The seat
   is written in decimal without leading zeros. No value holds ``:`` or a newline, and
   the server seed has a fixed length, so different inputs never give the same bytes.
   The match is ``Game(rules, seed)``; every deal and reshuffle of the engine follows
   from that seed (see ``docs/determinism.md``).
4. **Reveal.** The record of the match (:class:`~unokit.formats.record.Record`) carries
   a ``fairness`` block (:func:`fairness_block`)::

       {"scheme": "unokit-deal-v1", "commitment": "<64 hex>",
        "contributions": {"0": "abc", "2": "x-9"}, "server_seed": "<64 hex>" or null}

   ``server_seed`` stays ``null`` while the match goes on; when it ends, the server
   reveals it (:func:`reveal`).
5. **Verify.** :func:`verify_record` (and ``unokit verify RECORD``) runs the checks of
   :data:`CHECKS`: the scheme is this one; the contributions are valid values of the
   record's seats; ``sha256(server_seed)`` is the commitment; :func:`derive_seed` gives
   the record's seed; and the record replays exactly
   (:func:`unokit.formats.record.replay`, which checks every action and the events
   digest). A client may also pass the commitment it saw published and the value it
   contributed, checked too. A record without a fairness block, or whose server seed is
   not revealed, fails; it never passes.

>>> server_seed = bytes(range(32))
>>> commitment(server_seed)
'630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
>>> contributions = check_entropy([(0, "alice"), (2, "b-2_Z")], players=4)
>>> derive_seed(server_seed, contributions)
9891605117212746361
>>> check_entropy([(1, "x"), (1, "y")])
Traceback (most recent call last):
...
unokit.formats.fairdeal.FairnessError: seat 1 has contributed already

A whole match, from the commitment to the verified record:

>>> from unokit.bots import make_bot, play
>>> from unokit.engine.game import Game
>>> from unokit.engine.rules import Rules
>>> from unokit.formats.record import Record
>>> rules = Rules.preset("official", players=2, rounds=1)
>>> contributions = check_entropy([(1, "bob")], players=2)
>>> game = Game(rules, derive_seed(server_seed, contributions))
>>> for _ in play(game, [make_bot("playfirst", seat) for seat in range(2)]):
...     pass
>>> block = fairness_block(commitment(server_seed), contributions)
>>> record = Record.from_game(game, fairness=reveal(block, server_seed))
>>> report = verify_record(record)
>>> report.passed, [check.name for check in report.checks]
(True, ['scheme', 'contributions', 'commitment', 'seed', 'replay'])
>>> verify_record(Record.from_game(game, fairness=block)).failed()
['commitment', 'seed']
"""

from __future__ import annotations

import hashlib
import secrets
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from unokit.engine.errors import RecordError, UnoError
from unokit.engine.jsontext import short_repr
from unokit.formats.record import Record, replay

SCHEME = "unokit-deal-v1"
"""The name of this scheme, the ``scheme`` of a fairness block."""

DOMAIN = b"unokit-deal-v1\n"
"""The bytes that start every input of :func:`derive_seed`."""

SERVER_SEED_BYTES = 32
"""The length of a server seed in bytes."""

MAX_VALUE_CHARS = 128
"""The longest value a client may contribute, in characters."""

VALUE_CHARS = frozenset(string.ascii_letters + string.digits + "_-")
"""The characters a contributed value may hold."""

CHECKS = ("scheme", "contributions", "commitment", "seed", "replay")
"""The checks of :func:`verify_record`, in order (plus ``published commitment`` and
``own contributions`` when the caller gives what it saw)."""

_HEX = frozenset("0123456789abcdef")


class FairnessError(UnoError):
    """A contribution, a server seed or a fairness block that the scheme refuses."""


# ------------------------------------------------------------------ the server's part
def new_server_seed() -> bytes:
    """A fresh secret server seed: :data:`SERVER_SEED_BYTES` bytes from :mod:`secrets`.

    >>> len(new_server_seed()), new_server_seed() == new_server_seed()
    (32, False)
    """
    return secrets.token_bytes(SERVER_SEED_BYTES)


def commitment(server_seed: bytes) -> str:
    """The published commitment to a server seed: ``sha256(server_seed).hexdigest()``.

    >>> commitment(bytes(32))
    '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'

    Raises:
        FairnessError: ``server_seed`` is not :data:`SERVER_SEED_BYTES` bytes.
    """
    return hashlib.sha256(_check_server_seed(server_seed)).hexdigest()


def check_value(value: object) -> str:
    """``value`` if it is a valid contribution: text of 1 to :data:`MAX_VALUE_CHARS`
    characters from :data:`VALUE_CHARS`.

    >>> check_value("x_9-A")
    'x_9-A'
    >>> check_value("a b")
    Traceback (most recent call last):
    ...
    unokit.formats.fairdeal.FairnessError: a value holds only [0-9a-zA-Z_-], not 'a b'

    Raises:
        FairnessError: it is not text, is empty or too long, or holds another character.
    """
    if not isinstance(value, str):
        raise FairnessError(f"a contributed value is text, not {short_repr(value)}")
    if not 1 <= len(value) <= MAX_VALUE_CHARS:
        raise FairnessError(f"a contributed value has 1 to {MAX_VALUE_CHARS} characters, "
                            f"not {len(value)}")
    if not set(value) <= VALUE_CHARS:
        raise FairnessError(f"a value holds only [0-9a-zA-Z_-], not {short_repr(value)}")
    return value


def check_entropy(contributions: Iterable[tuple[int, str]],
                  players: int | None = None) -> dict[int, str]:
    """The contributions ``(seat, value)`` as a dict seat -> value, once each is checked:
    a seat number (``0 <= seat < players`` when ``players`` is given), a valid value
    (:func:`check_value`) and at most one value per seat.

    >>> check_entropy([(2, "b"), (0, "a")])
    {0: 'a', 2: 'b'}
    >>> check_entropy([(4, "a")], players=4)
    Traceback (most recent call last):
    ...
    unokit.formats.fairdeal.FairnessError: seat 4: there are seats 0..3

    Raises:
        FairnessError: naming the first contribution refused.
    """
    checked: dict[int, str] = {}
    for item in contributions:
        if not isinstance(item, tuple) or len(item) != 2:
            raise FairnessError(f"a contribution is a pair (seat, value), not "
                                f"{short_repr(item)}")
        seat, value = item
        checked = add_contribution(checked, seat, value, players)
    return dict(sorted(checked.items()))


def add_contribution(contributions: Mapping[int, str], seat: int, value: str,
                     players: int | None = None) -> dict[int, str]:
    """A new dict: ``contributions`` plus ``seat``'s ``value``, checked as
    :func:`check_entropy` checks them. ``contributions`` is left unchanged.

    >>> add_contribution({0: "a"}, 1, "b")
    {0: 'a', 1: 'b'}
    >>> add_contribution({0: "a"}, 0, "b")
    Traceback (most recent call last):
    ...
    unokit.formats.fairdeal.FairnessError: seat 0 has contributed already

    Raises:
        FairnessError: the seat is not a seat, has contributed already, or the value is
            not valid.
    """
    if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
        raise FairnessError(f"a seat is a number 0 or more, not {short_repr(seat)}")
    if players is not None and seat >= players:
        raise FairnessError(f"seat {seat}: there are seats 0..{players - 1}")
    if seat in contributions:
        raise FairnessError(f"seat {seat} has contributed already")
    return {**contributions, seat: check_value(value)}


def derive_seed(server_seed: bytes, contributions: Mapping[int, str]) -> int:
    """The match seed: the first 8 bytes, big-endian, of the SHA-256 digest of
    :data:`DOMAIN`, the server seed and one line ``f"{seat}:{value}\\n"`` per
    contribution in increasing seat order (see the module's description).

    >>> derive_seed(bytes(32), {})
    9417562110784612965
    >>> derive_seed(bytes(32), {1: "a"}) == derive_seed(bytes(32), {1: "b"})
    False

    Raises:
        FairnessError: the server seed is not :data:`SERVER_SEED_BYTES` bytes, or a
            contribution is not valid.
    """
    digest = hashlib.sha256(DOMAIN + _check_server_seed(server_seed))
    for seat, value in check_entropy(contributions.items()).items():
        digest.update(f"{seat}:{value}\n".encode("ascii"))
    return int.from_bytes(digest.digest()[:8], "big")


def fairness_block(commitment: str, contributions: Mapping[int, str],
                   server_seed: bytes | None = None) -> dict[str, Any]:
    """The ``fairness`` block of a record: the scheme, the commitment, the contributions
    (seats as text, in increasing order) and the server seed in hex (``None``, JSON
    ``null``, until it is revealed).

    >>> fairness_block("ab" * 32, {1: "x"})["contributions"]
    {'1': 'x'}

    Raises:
        FairnessError: the commitment is not 64 lowercase hex digits, a contribution is
            not valid, or the server seed does not match the commitment.
    """
    if not _is_hex64(commitment):
        raise FairnessError("a commitment is 64 lowercase hex digits")
    checked = check_entropy(contributions.items())
    block: dict[str, Any] = {
        "scheme": SCHEME,
        "commitment": commitment,
        "contributions": {str(seat): value for seat, value in checked.items()},
        "server_seed": None,
    }
    return block if server_seed is None else reveal(block, server_seed)


def reveal(block: Mapping[str, Any], server_seed: bytes) -> dict[str, Any]:
    """A copy of ``block`` with ``server_seed`` revealed (in hex), after checking that it
    matches the block's commitment.

    Raises:
        FairnessError: the server seed is not the committed one.
    """
    if commitment(server_seed) != block.get("commitment"):
        raise FairnessError("the server seed does not match the commitment")
    contributions = block.get("contributions")
    return {**block, "contributions": dict(contributions or {}),
            "server_seed": server_seed.hex()}


# ------------------------------------------------------------------ verification
class Check(NamedTuple):
    """One check of :func:`verify_record`."""

    name: str
    """One of :data:`CHECKS`."""
    passed: bool
    """Whether it passed."""
    reason: str
    """One line: what was checked, or why it failed."""


@dataclass(frozen=True)
class VerifyReport:
    """What :func:`verify_record` found: one :class:`Check` per check, in order."""

    checks: tuple[Check, ...]

    @property
    def passed(self) -> bool:
        """Whether every check passed (a report without checks does not pass)."""
        return bool(self.checks) and all(check.passed for check in self.checks)

    def failed(self) -> list[str]:
        """The names of the checks that failed."""
        return [check.name for check in self.checks if not check.passed]

    def lines(self) -> list[str]:
        """One line per check: ``ok  NAME`` or ``FAIL NAME: reason``."""
        return [f"ok  {c.name}" if c.passed else f"FAIL {c.name}: {c.reason}"
                for c in self.checks]


def verify_record(record: Record | str | bytes | Mapping[str, Any], *,
                  published: str | None = None,
                  mine: Mapping[int, str] | None = None) -> VerifyReport:
    """Check that a record's deal was fair: the checks of :data:`CHECKS` (see the
    module's description). ``published`` is the commitment the caller saw before the
    match, and ``mine`` the values it contributed; each, when given, is one more check.

    Raises:
        RecordError: ``record`` is not a record at all (bad JSON, missing fields); a
            record that is one but fails a check gives a failed check instead.
    """
    rec = _record(record)
    checks: list[Check] = []
    block = rec.fairness
    if block is None:
        why = "the record has no fairness block"
        checks += [Check("scheme", False, why), Check("contributions", False, why),
                   Check("commitment", False, why), Check("seed", False, why)]
    elif block["scheme"] != SCHEME:
        why = f"unknown scheme {short_repr(block['scheme'])}, this unokit knows {SCHEME!r}"
        checks.append(Check("scheme", False, why))
        checks += [Check(name, False, "not checked: unknown scheme")
                   for name in ("contributions", "commitment", "seed")]
    else:
        checks.append(Check("scheme", True, f"the scheme is {SCHEME}"))
        checks += _block_checks(block, rec)
    checks.append(_replay_check(rec))
    if published is not None:
        checks.append(_published_check(block, published))
    if mine is not None:
        checks.append(_mine_check(block, mine))
    return VerifyReport(tuple(checks))


def _block_checks(block: Mapping[str, Any], rec: Record) -> list[Check]:
    """The contributions, commitment and seed checks of a block of this scheme."""
    checks: list[Check] = []
    contributions: dict[int, str] | None = None
    try:
        contributions = _parse_contributions(block["contributions"], len(rec.players))
    except FairnessError as exc:
        checks.append(Check("contributions", False, str(exc)))
    else:
        seats = ", ".join(map(str, contributions)) or "none"
        checks.append(Check("contributions", True, f"valid values from seats: {seats}"))
    hex_seed = block["server_seed"]
    server_seed = None if hex_seed is None else bytes.fromhex(hex_seed)
    if server_seed is None:
        checks.append(Check("commitment", False, "the server seed is not revealed "
                            "(server_seed is null)"))
    elif commitment(server_seed) != block["commitment"]:
        checks.append(Check("commitment", False, "sha256(server_seed) is not the "
                            f"commitment {block['commitment'][:16]}..."))
    else:
        checks.append(Check("commitment", True, "sha256(server_seed) is the commitment "
                            f"{block['commitment'][:16]}..."))
    if server_seed is None:
        checks.append(Check("seed", False, "not checked: the server seed is not revealed"))
    elif contributions is None:
        checks.append(Check("seed", False, "not checked: the contributions are not valid"))
    else:
        derived = derive_seed(server_seed, contributions)
        if derived == rec.seed:
            checks.append(Check("seed", True, f"the seed {rec.seed} is derived from the "
                                "server seed and the contributions"))
        else:
            checks.append(Check("seed", False, f"the record's seed {rec.seed} is not the "
                                f"derived seed {derived}"))
    return checks


def _replay_check(rec: Record) -> Check:
    try:
        game = replay(rec)
    except RecordError as exc:
        return Check("replay", False, str(exc))
    return Check("replay", True, f"{len(rec.actions)} actions replay from Game(rules, "
                 f"{game.seed}) to the recorded events digest")


def _published_check(block: Mapping[str, Any] | None, published: str) -> Check:
    name = "published commitment"
    if block is None:
        return Check(name, False, "the record has no fairness block")
    if block["commitment"] != published.strip().lower():
        return Check(name, False, f"the record's commitment {block['commitment'][:16]}... "
                     f"is not the published {short_repr(published, 24)}")
    return Check(name, True, "the record's commitment is the published one")


def _mine_check(block: Mapping[str, Any] | None, mine: Mapping[int, str]) -> Check:
    name = "own contributions"
    if block is None:
        return Check(name, False, "the record has no fairness block")
    held = block["contributions"]
    for seat, value in sorted(mine.items()):
        if held.get(str(seat)) != value:
            got = held.get(str(seat))
            now = "no value" if got is None else short_repr(got)
            return Check(name, False, f"seat {seat} contributed {short_repr(value)}, the "
                         f"record has {now}")
    return Check(name, True, f"the record holds the values of seats "
                 f"{', '.join(map(str, sorted(mine))) or 'none'}")


def _parse_contributions(raw: Mapping[str, str], players: int) -> dict[int, str]:
    """A block's contributions (seats as decimal text) as seat -> value, checked."""
    pairs: list[tuple[int, str]] = []
    for key, value in raw.items():
        canonical = (0 < len(key) <= 3 and key.isascii() and key.isdigit()
                     and key == str(int(key)))
        if not canonical:
            raise FairnessError(f"{short_repr(key)} is not a seat number")
        pairs.append((int(key), value))
    return check_entropy(pairs, players)


def _record(record: Record | str | bytes | Mapping[str, Any]) -> Record:
    if isinstance(record, Record):
        return Record.from_dict(record.to_dict())
    if isinstance(record, str | bytes):
        return Record.from_json(record)
    return Record.from_dict(record)


def _check_server_seed(server_seed: bytes) -> bytes:
    if not isinstance(server_seed, bytes) or len(server_seed) != SERVER_SEED_BYTES:
        raise FairnessError(f"a server seed is {SERVER_SEED_BYTES} bytes")
    return server_seed


def _is_hex64(text: object) -> bool:
    return isinstance(text, str) and len(text) == 64 and set(text) <= _HEX


__all__ = [
    "CHECKS",
    "DOMAIN",
    "MAX_VALUE_CHARS",
    "SCHEME",
    "SERVER_SEED_BYTES",
    "VALUE_CHARS",
    "Check",
    "FairnessError",
    "VerifyReport",
    "add_contribution",
    "check_entropy",
    "check_value",
    "commitment",
    "derive_seed",
    "fairness_block",
    "new_server_seed",
    "reveal",
    "verify_record",
]
