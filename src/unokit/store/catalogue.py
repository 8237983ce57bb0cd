"""The challenges and the cosmetics, defined as data and checked when they are loaded.

:data:`CHALLENGE_DATA` and :data:`COSMETIC_DATA` are plain tables (a list of mappings
each, as a TOML file's ``[[challenge]]`` tables would read); :func:`load_challenges`
and :func:`load_cosmetics` check every entry and raise :class:`CatalogueError` naming
each bad key. The module loads both at import (:data:`CHALLENGES`, :data:`COSMETICS`),
so that a bad table stops the server at once. Titles and names are marked with
``N_()`` and shown in the client's language (:func:`unokit.i18n.localize`).

A challenge counts one **metric** of the matches a player finishes in its **period**
(``daily``: a UTC day; ``weekly``: Monday to Monday, UTC), optionally only matches
whose rules match its **rules** condition, until its **goal**; its reward is ``xp`` and
``coins``. The metrics (:data:`METRICS`) are counted for a player from the match's
record as its XP lines are (:mod:`unokit.store.seatings`): a leaver counts nothing.

>>> [c.id for c in CHALLENGES if c.period == "weekly"][:2]
['weekly.play_20', 'weekly.win_5']
>>> load_challenges([{"id": "x", "period": "hourly", "metric": "matches_won", "goal": 1,
...                   "xp": 1, "coins": 1, "title": "t", "colour": 3}])
Traceback (most recent call last):
...
unokit.store.catalogue.CatalogueError: challenge x: colour: unknown key; period: daily or weekly
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from unokit.engine.rules import SPEC, Rules
from unokit.i18n import N_

METRICS: dict[str, str] = {
    "matches_played": "matches the player held a seat in at the end",
    "matches_won": "matches the player's team won",
    "rounds_won": "rounds a seat the player held then won (its team's)",
    "draw_twos": "Draw Twos the player chose to play",
    "wild_draw_fours": "Wild Draw Fours the player chose to play",
    "uno_catches": "missed UNO calls the player caught",
}
"""What a challenge may count, each per finished match of a player (a leaver: none)."""

PERIODS = ("daily", "weekly")
SLOTS = ("card_back", "table")
"""Where a cosmetic goes: the back of the cards, the colour of the table."""

ID = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)*")
"""A challenge's or a cosmetic's id: lower-case words joined by dots (at most 40)."""
COLOUR = re.compile(r"#[0-9a-f]{6}")
MOST_XP = 1000
MOST_COINS = 10_000
MOST_GOAL = 1000
MOST_PRICE = 100_000

CHALLENGE_DATA: list[dict[str, Any]] = [
    {"id": "daily.play_3", "period": "daily", "metric": "matches_played", "goal": 3,
     "xp": 15, "coins": 10, "title": N_("Play 3 matches")},
    {"id": "daily.win_rounds_3", "period": "daily", "metric": "rounds_won", "goal": 3,
     "xp": 15, "coins": 10, "title": N_("Win 3 rounds")},
    {"id": "daily.wild_draw_fours_3", "period": "daily", "metric": "wild_draw_fours",
     "goal": 3, "xp": 10, "coins": 10, "title": N_("Play 3 Wild Draw Fours")},
    {"id": "daily.catch_2", "period": "daily", "metric": "uno_catches", "goal": 2,
     "xp": 15, "coins": 15, "title": N_("Catch 2 missed UNO calls")},
    {"id": "daily.win_stacking", "period": "daily", "metric": "matches_won", "goal": 1,
     "rules": {"draw_two_on_draw_two": "stack"}, "xp": 25, "coins": 20,
     "title": N_("Win a match where Draw Twos stack")},
    {"id": "weekly.play_20", "period": "weekly", "metric": "matches_played", "goal": 20,
     "xp": 60, "coins": 50, "title": N_("Play 20 matches")},
    {"id": "weekly.win_5", "period": "weekly", "metric": "matches_won", "goal": 5,
     "xp": 80, "coins": 60, "title": N_("Win 5 matches")},
    {"id": "weekly.draw_twos_15", "period": "weekly", "metric": "draw_twos", "goal": 15,
     "xp": 40, "coins": 30, "title": N_("Play 15 Draw Twos")},
    {"id": "weekly.catch_8", "period": "weekly", "metric": "uno_catches", "goal": 8,
     "xp": 50, "coins": 40, "title": N_("Catch 8 missed UNO calls")},
]
"""The challenges: ``id``, ``period``, ``metric``, ``goal``, ``xp``, ``coins``,
``title`` and, optionally, ``rules`` (rule key: a value or a list of values)."""

COSMETIC_DATA: list[dict[str, Any]] = [
    {"id": "card_back.classic", "slot": "card_back", "price": 0, "colour": "#c62828",
     "name": N_("Classic red card back")},
    {"id": "card_back.midnight", "slot": "card_back", "price": 100, "colour": "#1a237e",
     "name": N_("Midnight card back")},
    {"id": "card_back.sunset", "slot": "card_back", "price": 150, "colour": "#ef6c00",
     "name": N_("Sunset card back")},
    {"id": "card_back.forest", "slot": "card_back", "price": 250, "colour": "#1b5e20",
     "name": N_("Forest card back")},
    {"id": "table.green", "slot": "table", "price": 0, "colour": "#2e7d32",
     "name": N_("Green table")},
    {"id": "table.blue", "slot": "table", "price": 80, "colour": "#1565c0",
     "name": N_("Blue table")},
    {"id": "table.wine", "slot": "table", "price": 120, "colour": "#6a1b3a",
     "name": N_("Wine table")},
    {"id": "table.walnut", "slot": "table", "price": 200, "colour": "#5d4037",
     "name": N_("Walnut table")},
]
"""The cosmetics: ``id``, ``slot``, ``price`` (coins; 0: everyone has it, the slot's
default), ``colour`` and ``name``. Coins buy nothing else."""


class CatalogueError(ValueError):
    """A challenge or cosmetic table is wrong: the message names each bad key."""


@dataclass(frozen=True)
class Challenge:
    """One challenge, as loaded."""

    id: str
    period: str
    metric: str
    goal: int
    xp: int
    coins: int
    title: str
    """English, marked for translation."""
    rules: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    """The condition on a match's rules: each key with the values it may have."""

    def counts(self, rules: Rules) -> bool:
        """Whether a match of ``rules`` counts for this challenge.

        >>> [c for c in CHALLENGES if c.id == "daily.win_stacking"][0].counts(
        ...     Rules.preset("stacking"))
        True
        """
        return all(getattr(rules, key) in values for key, values in self.rules)

    def rules_json(self) -> dict[str, Any]:
        """The condition as the API shows it (a key with one value: that value)."""
        return {k: v[0] if len(v) == 1 else list(v) for k, v in self.rules}


@dataclass(frozen=True)
class Cosmetic:
    """One cosmetic, as loaded."""

    id: str
    slot: str
    price: int
    colour: str
    name: str
    """English, marked for translation."""


_CHALLENGE_KEYS = {"id", "period", "metric", "goal", "xp", "coins", "title", "rules"}
_COSMETIC_KEYS = {"id", "slot", "price", "colour", "name"}


def _whole(value: Any, least: int, most: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and least <= value <= most


def _rule_values(key: str, value: Any) -> tuple[Any, ...] | str:
    """The values a condition allows for the rule ``key``, or why not."""
    spec = SPEC.get(key)
    if spec is None:
        return "unknown rule key"
    values = tuple(value) if isinstance(value, list) else (value,)
    if not values:
        return "at least one value"
    for each in values:
        if spec.kind == "choice" and each not in spec.choices:
            return "one of " + ", ".join(map(str, spec.choices))
        if spec.kind == "bool" and not isinstance(each, bool):
            return "true or false"
        if spec.kind == "int" and not _whole(each, spec.choices[0],
                                             spec.choices[1] or 10**9):
            return "a whole number the rule allows"
        if spec.kind not in ("choice", "bool", "int"):
            return "a rule that a condition cannot name"
    return values


def _problems(entry: Any, keys: set[str], required: set[str]) -> dict[str, str]:
    if not isinstance(entry, Mapping):
        return {"entry": "a table of keys"}
    problems = {str(k): "unknown key" for k in entry if k not in keys}
    problems.update({k: "missing" for k in sorted(required) if k not in entry})
    if "id" in entry and not (isinstance(entry["id"], str) and len(entry["id"]) <= 40
                              and ID.fullmatch(entry["id"])):
        problems["id"] = "lower-case words joined by dots, at most 40 characters"
    return problems


def _check_challenge(entry: Any) -> Challenge | dict[str, str]:
    problems = _problems(entry, _CHALLENGE_KEYS, _CHALLENGE_KEYS - {"rules"})
    if not isinstance(entry, Mapping):
        return problems
    get: Any = entry.get
    if "period" in entry and get("period") not in PERIODS:
        problems["period"] = "daily or weekly"
    if "metric" in entry and get("metric") not in METRICS:
        problems["metric"] = "one of " + ", ".join(METRICS)
    for key, most in (("goal", MOST_GOAL), ("xp", MOST_XP), ("coins", MOST_COINS)):
        if key in entry and not _whole(get(key), 1 if key == "goal" else 0, most):
            problems[key] = f"a whole number from {1 if key == 'goal' else 0} to {most}"
    if "title" in entry and not (isinstance(get("title"), str) and 0 < len(get("title")) <= 80):
        problems["title"] = "a text of 1 to 80 characters"
    condition: list[tuple[str, tuple[Any, ...]]] = []
    if "rules" in entry:
        if not isinstance(get("rules"), Mapping) or not get("rules"):
            problems["rules"] = "a table of rule keys and values"
        else:
            for key, value in sorted(get("rules").items(), key=lambda kv: str(kv[0])):
                allowed = _rule_values(str(key), value)
                if isinstance(allowed, str):
                    problems[f"rules.{key}"] = allowed
                else:
                    condition.append((str(key), allowed))
    if problems:
        return problems
    return Challenge(entry["id"], entry["period"], entry["metric"], entry["goal"],
                     entry["xp"], entry["coins"], entry["title"], tuple(condition))


def _check_cosmetic(entry: Any) -> Cosmetic | dict[str, str]:
    problems = _problems(entry, _COSMETIC_KEYS, _COSMETIC_KEYS)
    if not isinstance(entry, Mapping):
        return problems
    if "slot" in entry and entry["slot"] not in SLOTS:
        problems["slot"] = "one of " + ", ".join(SLOTS)
    if "price" in entry and not _whole(entry["price"], 0, MOST_PRICE):
        problems["price"] = f"a whole number from 0 to {MOST_PRICE}"
    if "colour" in entry and not (isinstance(entry["colour"], str)
                                  and COLOUR.fullmatch(entry["colour"])):
        problems["colour"] = "#rrggbb in lower case"
    if "name" in entry and not (isinstance(entry["name"], str) and 0 < len(entry["name"]) <= 80):
        problems["name"] = "a text of 1 to 80 characters"
    if "id" in entry and "slot" in entry and isinstance(entry["id"], str) \
            and not entry["id"].startswith(f"{entry['slot']}."):
        problems.setdefault("id", "begins with its slot and a dot")
    if problems:
        return problems
    return Cosmetic(entry["id"], entry["slot"], entry["price"], entry["colour"], entry["name"])


def _load(kind: str, entries: Iterable[Any], check: Any) -> list[Any]:
    loaded: list[Any] = []
    errors: list[str] = []
    seen: set[str] = set()
    for n, entry in enumerate(entries):
        result = check(entry)
        name = entry.get("id") if isinstance(entry, Mapping) else None
        label = f"{kind} {name}" if isinstance(name, str) else f"{kind} #{n + 1}"
        if isinstance(result, dict):
            errors.append(f"{label}: " + "; ".join(f"{k}: {v}" for k, v in sorted(result.items())))
        elif result.id in seen:
            errors.append(f"{label}: id: used twice")
        else:
            seen.add(result.id)
            loaded.append(result)
    if errors:
        raise CatalogueError("\n".join(errors))
    return loaded


def load_challenges(entries: Iterable[Any]) -> tuple[Challenge, ...]:
    """The challenges of a table (see :data:`CHALLENGE_DATA`).

    Raises:
        CatalogueError: naming every bad key of every bad entry.
    """
    return tuple(_load("challenge", entries, _check_challenge))


def load_cosmetics(entries: Iterable[Any]) -> tuple[Cosmetic, ...]:
    """The cosmetics of a table (see :data:`COSMETIC_DATA`): each slot needs exactly one
    free cosmetic, its default.

    >>> load_cosmetics([{"id": "table.red", "slot": "table", "price": 5,
    ...                  "colour": "#ff0000", "name": "Red"}])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    unokit.store.catalogue.CatalogueError: card_back, table: exactly one ... (the default)

    Raises:
        CatalogueError: naming every bad key of every bad entry.
    """
    loaded: list[Cosmetic] = _load("cosmetic", entries, _check_cosmetic)
    bad = [slot for slot in SLOTS
           if sum(1 for c in loaded if c.slot == slot and c.price == 0) != 1]
    if bad:
        raise CatalogueError(f"{', '.join(bad)}: exactly one cosmetic of price 0 (the default)")
    return tuple(loaded)


CHALLENGES: tuple[Challenge, ...] = load_challenges(CHALLENGE_DATA)
"""The challenges, checked."""
CHALLENGE_BY_ID: dict[str, Challenge] = {c.id: c for c in CHALLENGES}
COSMETICS: tuple[Cosmetic, ...] = load_cosmetics(COSMETIC_DATA)
"""The cosmetics, checked."""
COSMETIC_BY_ID: dict[str, Cosmetic] = {c.id: c for c in COSMETICS}
DEFAULTS: dict[str, str] = {c.slot: c.id for c in COSMETICS if c.price == 0}
"""Each slot's free cosmetic: what a player has there until they choose another."""
