"""The rule set: every key of RULES.md, its type, default, meaning, and the presets.

A rule set is a preset plus overrides. It loads from a mapping (JSON, TOML) or from a
compact one-line string, and :meth:`Rules.to_string` round-trips:

>>> rules = Rules.from_dict({"preset": "official", "players": 3, "target_score": 200})
>>> rules.players, rules.target_score, rules.scoring
(3, 200, 'standard')
>>> rules.to_string()
'official,players=3,target_score=200'
>>> Rules.from_string(rules.to_string()) == rules
True
>>> Rules.from_string("pairs").teams
'pairs'
>>> Rules.from_dict({"jump_in": "yes", "colour": 1})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
unokit.engine.errors.RulesError: invalid rule set: colour: unknown key; jump_in: expected ...
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, NamedTuple

from unokit.engine.cards import CODES, build_deck, parse_card
from unokit.engine.errors import CardCodeError, RulesError


class KeySpec(NamedTuple):
    """How one rule key is typed, what it defaults to and what it means."""

    name: str
    kind: str  # "int", "bool", "choice", "float", "optional_int", "cards"
    default: Any
    choices: tuple[Any, ...]  # for "choice"; (low, high) for numbers, high None = open
    section: int
    meaning: str


_SPECIAL_WILDS = ("WC", "WSW", "WSH", "WD1", "WD2")

KEYS: tuple[KeySpec, ...] = (
    KeySpec("players", "int", 4, (2, 10), 2, "number of players"),
    KeySpec("hand_size", "int", 7, (1, 15), 2, "cards dealt to each player"),
    KeySpec("deck", "choice", "classic", ("classic", "h2o", "attack"), 2, "which deck is used"),
    KeySpec("extra_cards", "cards", (), _SPECIAL_WILDS, 2,
            "cards added to the deck, code -> count"),
    KeySpec("dealer", "choice", "high_card", ("high_card", "random", "seat0"), 2,
            "how the first dealer is chosen"),
    KeySpec("first_card", "choice", "official", ("official", "number_only"), 2,
            "what the start card does; number_only turns cards until a number comes"),
    KeySpec("draw", "choice", "one", ("one", "until_playable"), 2,
            "a turn's draw: one card, or until a playable card comes"),
    KeySpec("play_drawn", "choice", "may", ("may", "must", "never"), 2,
            "whether a playable drawn card may, must or may not be played at once"),
    KeySpec("draw_when_playable", "bool", True, (), 2,
            "a player may draw while holding a playable card"),
    KeySpec("two_player_reverse_skips", "bool", True, (), 2,
            "with two players a Reverse acts as a Skip"),
    KeySpec("wild_draw_four", "choice", "challenge", ("challenge", "strict", "free"), 2,
            "Wild Draw Four: challengeable, only legal without the colour, or free"),
    KeySpec("challenge_guilty_draw", "int", 4, (0, 50), 2,
            "cards a guilty Wild Draw Four player draws"),
    KeySpec("challenge_innocent_draw", "int", 6, (0, 50), 2,
            "cards a wrong challenger draws"),
    KeySpec("challenge_guilty_takes_back", "bool", False, (), 2,
            "a guilty player also takes the Wild Draw Four back"),
    KeySpec("uno_penalty", "int", 2, (0, 50), 2, "cards drawn for a missed UNO call"),
    KeySpec("uno_self_catch", "bool", True, (), 2,
            "a late UNO call made before anyone catches is safe"),
    KeySpec("false_catch_penalty", "int", 0, (0, 50), 2,
            "cards drawn for a wrong catch; 0 rejects such a catch"),
    KeySpec("misplay_penalty", "int", 0, (0, 50), 2,
            "cards drawn for playing a card that does not match; 0 rejects it"),
    KeySpec("scoring", "choice", "standard", ("standard", "penalty", "elimination", "lazy"), 3,
            "how rounds are scored and the match is won"),
    KeySpec("target_score", "int", 500, (1, None), 3, "the score that ends the match"),
    KeySpec("rounds", "optional_int", None, (1, None), 3, "the most rounds a match lasts"),
    KeySpec("lone_zero_points", "int", 0, (0, 1000), 3,
            "what a hand of a single 0 card is worth"),
    KeySpec("going_out_bonus", "cards", (), tuple(code for code in CODES if code), 3,
            "points taken off the total of a player going out on that card"),
    KeySpec("teams", "choice", "none", ("none", "pairs"), 3,
            "seat i plays with seat i + n/2"),
    KeySpec("partner_hands_visible", "bool", False, (), 3, "partners see each other's hands"),
    KeySpec("play_to_last", "bool", False, (), 3,
            "after the first player goes out the others play on to rank the round"),
    KeySpec("progressive_refill", "bool", False, (), 3,
            "emptying the hand at level k > 1 draws k-1 cards; level 1 wins"),
    KeySpec("draw_two_on_draw_two", "choice", "none", ("none", "deflect", "stack"), 4,
            "a Draw Two may answer a Draw Two"),
    KeySpec("draw_four_on_draw_four", "choice", "none", ("none", "stack"), 4,
            "a Wild Draw Four may answer a Wild Draw Four"),
    KeySpec("draw_two_on_draw_four", "choice", "none", ("none", "deflect", "stack"), 4,
            "a Draw Two of the named colour may answer a Wild Draw Four"),
    KeySpec("draw_four_on_draw_two", "choice", "none", ("none", "stack"), 4,
            "a Wild Draw Four may answer a Draw Two"),
    KeySpec("reverse_deflects_draw", "bool", False, (), 4,
            "a Reverse of the current colour passes a pending penalty back"),
    KeySpec("skip_on_skip", "choice", "none", ("none", "same_color", "any"), 4,
            "a skipped player may pass the skip on with a Skip"),
    KeySpec("jump_in", "bool", False, (), 4, "an identical card may be played out of turn"),
    KeySpec("seven_swap", "bool", False, (), 4, "a 7 swaps hands with a chosen player"),
    KeySpec("zero_rotate", "bool", False, (), 4, "a 0 passes every hand on"),
    KeySpec("seven_zero_last_card", "choice", "no_effect", ("no_effect", "apply"), 4,
            "whether a last-card 7 or 0 still swaps or rotates"),
    KeySpec("five_exchange", "bool", False, (), 4, "a 5 lets its player exchange a card"),
    KeySpec("multi_play", "choice", "off", ("off", "same_number"), 4,
            "several cards of one number may be played at once"),
    KeySpec("uno_slap", "bool", False, (), 4, "an UNO call makes everyone slap; the last draws"),
    KeySpec("silence", "choice", "off", ("off", "twos", "wilds"), 4,
            "moments when nobody may speak"),
    KeySpec("silence_penalty", "int", 2, (0, 50), 4, "cards drawn for breaking the silence"),
    KeySpec("wild_color", "choice", "chosen", ("chosen", "next_in_circle"), 4,
            "a wild's colour is chosen, or the next one on the wheel"),
    KeySpec("blank_card_effect", "choice", "wild", ("wild", "transparent", "draw_ten"), 4,
            "what a blank card (WC) does"),
    KeySpec("launcher_fire_chance", "float", 0.3, (0.0, 1.0), 6,
            "UNO Attack: chance that a press fires"),
    KeySpec("launcher_max_burst", "int", 6, (1, 112), 6,
            "UNO Attack: most cards one firing ejects"),
)
"""Every rule key, in the order of RULES.md section 8."""

SPEC: dict[str, KeySpec] = {spec.name: spec for spec in KEYS}

PRESETS: dict[str, dict[str, Any]] = {
    "official": {},
    "classic_ru": {
        "first_card": "number_only",
        "draw_when_playable": False,
        "draw_two_on_draw_two": "deflect",
        "draw_two_on_draw_four": "deflect",
        "skip_on_skip": "same_color",
        "challenge_guilty_takes_back": True,
    },
    "stacking": {"draw_two_on_draw_two": "stack", "draw_four_on_draw_four": "stack"},
    "seven_o": {"seven_swap": True, "zero_rotate": True},
    "jump_in": {"jump_in": True},
    "party": {
        "draw_two_on_draw_two": "stack",
        "draw_four_on_draw_four": "stack",
        "draw_four_on_draw_two": "stack",
        "seven_swap": True,
        "zero_rotate": True,
        "jump_in": True,
        "draw": "until_playable",
    },
    "attack": {"deck": "attack"},
    "h2o": {"deck": "h2o"},
    "pairs": {"teams": "pairs", "players": 4},
}
"""Preset name -> its overrides of the official rules (RULES.md section 7)."""

PRESET_MEANINGS: dict[str, str] = {
    "official": "the classic game and match (Mattel's printed rules)",
    "classic_ru": "the seeds' table rules: number start card, no drawing while able to play, "
    "deflecting Draw Twos, skip on skip, guilty Wild Draw Four taken back",
    "stacking": "Draw Twos and Wild Draw Fours add up until someone draws",
    "seven_o": "a 7 swaps hands, a 0 rotates all hands",
    "jump_in": "an identical card may be played out of turn",
    "party": "both stacks, Wild Draw Four on Draw Two, seven-o, jump-in, draw until playable",
    "attack": "UNO Attack: the card launcher instead of a draw pile",
    "h2o": "UNO H2O: Wild Downpour cards added",
    "pairs": "four players in two teams of partners",
}

_NOT_IN_ATTACK = ("draw", "play_drawn", "draw_when_playable", "draw_two_on_draw_two",
                  "draw_four_on_draw_four", "draw_two_on_draw_four", "draw_four_on_draw_two",
                  "reverse_deflects_draw")
"""Keys that cannot work with ``deck = "attack"``: drawing and draw-card chains."""


@dataclass(frozen=True, slots=True)
class Rules:
    """One complete rule set. Build it with :meth:`from_dict`, :meth:`from_string`,
    :meth:`preset` or :meth:`from_json`/:meth:`from_toml`; the constructor does not
    validate. Maps (``extra_cards``, ``going_out_bonus``) are kept as sorted tuples of
    ``(code, number)`` pairs so that a rule set is hashable."""

    preset_name: str = "official"
    players: int = 4
    hand_size: int = 7
    deck: str = "classic"
    extra_cards: tuple[tuple[str, int], ...] = ()
    dealer: str = "high_card"
    first_card: str = "official"
    draw: str = "one"
    play_drawn: str = "may"
    draw_when_playable: bool = True
    two_player_reverse_skips: bool = True
    wild_draw_four: str = "challenge"
    challenge_guilty_draw: int = 4
    challenge_innocent_draw: int = 6
    challenge_guilty_takes_back: bool = False
    uno_penalty: int = 2
    uno_self_catch: bool = True
    false_catch_penalty: int = 0
    misplay_penalty: int = 0
    scoring: str = "standard"
    target_score: int = 500
    rounds: int | None = None
    lone_zero_points: int = 0
    going_out_bonus: tuple[tuple[str, int], ...] = ()
    teams: str = "none"
    partner_hands_visible: bool = False
    play_to_last: bool = False
    progressive_refill: bool = False
    draw_two_on_draw_two: str = "none"
    draw_four_on_draw_four: str = "none"
    draw_two_on_draw_four: str = "none"
    draw_four_on_draw_two: str = "none"
    reverse_deflects_draw: bool = False
    skip_on_skip: str = "none"
    jump_in: bool = False
    seven_swap: bool = False
    zero_rotate: bool = False
    seven_zero_last_card: str = "no_effect"
    five_exchange: bool = False
    multi_play: str = "off"
    uno_slap: bool = False
    silence: str = "off"
    silence_penalty: int = 2
    wild_color: str = "chosen"
    blank_card_effect: str = "wild"
    launcher_fire_chance: float = 0.3
    launcher_max_burst: int = 6

    # ----------------------------------------------------------------- building
    @classmethod
    def preset(cls, name: str = "official", **overrides: Any) -> Rules:
        """A preset with keyword overrides: ``Rules.preset("official", players=2)``."""
        return cls.from_dict({"preset": name, **overrides})

    @classmethod
    def from_dict(cls, data: Any) -> Rules:
        """A rule set from a mapping ``{"preset": name, key: value, ...}``.

        Raises:
            RulesError: naming every offending key.
        """
        if not isinstance(data, Mapping):
            kind = type(data).__name__
            raise RulesError({"rules": f"expected a mapping of rule keys, got {kind}"})
        problems: dict[str, str] = {}
        preset = data.get("preset", "official")
        if not isinstance(preset, str) or preset not in PRESETS:
            problems["preset"] = f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}"
            preset = "official"
        values: dict[str, Any] = {name: SPEC[name].default for name in SPEC}
        values.update({k: _coerce(SPEC[k], v, {}) for k, v in PRESETS[preset].items()})
        for key in sorted(k for k in data if k != "preset"):
            if not isinstance(key, str) or key not in SPEC:
                problems[str(key)] = "unknown key"
                continue
            values[key] = _coerce(SPEC[key], data[key], problems)
        if problems:
            raise RulesError(problems)
        rules = cls(preset_name=preset, **values)
        rules.validate()
        return rules

    @classmethod
    def from_json(cls, text: str) -> Rules:
        """A rule set from JSON text (an object of rule keys)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RulesError({"rules": f"not valid JSON: {exc}"}) from None
        return cls.from_dict(data)

    @classmethod
    def from_toml(cls, text: str) -> Rules:
        """A rule set from TOML text (top-level rule keys, or a ``[rules]`` table)."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise RulesError({"rules": f"not valid TOML: {exc}"}) from None
        if set(data) == {"rules"} and isinstance(data["rules"], dict):
            data = data["rules"]
        return cls.from_dict(data)

    @classmethod
    def from_string(cls, text: str) -> Rules:
        """A rule set from its compact form: a preset name, then ``key=value`` items,
        comma-separated; maps as ``{WC:4,WSW:1}``; ``rounds=none`` clears ``rounds``.

        >>> Rules.from_string("official, players=2, extra_cards={WC:4}").extra_cards
        (('WC', 4),)
        """
        if not isinstance(text, str):
            raise RulesError({"rules": "expected a string"})
        data: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for index, item in enumerate(_split_items(text)):
            if "=" not in item:
                if index == 0:
                    data["preset"] = item
                else:
                    problems[item or "rules"] = "expected key=value"
                continue
            key, _, raw = item.partition("=")
            key = key.strip()
            if key in data:
                problems[key] = "given twice"
            data[key] = _parse_scalar(raw.strip())
        if problems:
            raise RulesError(problems)
        return cls.from_dict(data)

    @classmethod
    def load(cls, source: str | Mapping[str, Any] | Rules) -> Rules:
        """Whatever a user gave: a :class:`Rules`, a mapping, a compact string, JSON text,
        or a preset name."""
        if isinstance(source, Rules):
            return source
        if isinstance(source, Mapping):
            return cls.from_dict(source)
        text = source.strip()
        if text.startswith("{"):
            return cls.from_json(text)
        return cls.from_string(text)

    # ------------------------------------------------------------------ output
    def to_dict(self, *, full: bool = False) -> dict[str, Any]:
        """``{"preset": name, ...}`` with the keys that differ from the preset, or every
        key with ``full=True``. Maps come out as dicts."""
        base = Rules.from_dict({"preset": self.preset_name})
        out: dict[str, Any] = {"preset": self.preset_name}
        for spec in KEYS:
            value = getattr(self, spec.name)
            if full or value != getattr(base, spec.name):
                out[spec.name] = dict(value) if spec.kind == "cards" else value
        return out

    def to_string(self) -> str:
        """The compact one-line form; :meth:`from_string` reads it back."""
        parts = [self.preset_name]
        for key, value in self.to_dict().items():
            if key != "preset":
                parts.append(f"{key}={format_value(value)}")
        return ",".join(parts)

    def to_json(self) -> str:
        """JSON text of :meth:`to_dict`."""
        return json.dumps(self.to_dict(), sort_keys=False)

    def with_(self, **overrides: Any) -> Rules:
        """A validated copy with some keys changed."""
        data = self.to_dict()
        data.update(overrides)
        return Rules.from_dict(data)

    def extra_cards_dict(self) -> dict[str, int]:
        """``extra_cards`` as a dict."""
        return dict(self.extra_cards)

    def going_out_bonus_dict(self) -> dict[str, int]:
        """``going_out_bonus`` as a dict."""
        return dict(self.going_out_bonus)

    def deck_cards(self) -> list[int]:
        """The cards of the deck these rules play with, in canonical order."""
        return list(_deck_cards(self.deck, tuple(self.extra_cards)))

    # -------------------------------------------------------------- validation
    def validate(self) -> None:
        """Check the combination of keys; raise :class:`RulesError` naming the keys."""
        problems: dict[str, str] = {}
        deck_size = len(self.deck_cards())
        if self.players * self.hand_size >= deck_size:
            problems["players, hand_size"] = (
                f"{self.players} hands of {self.hand_size} need more than the "
                f"{deck_size} cards of the deck"
            )
        if self.teams == "pairs" and self.players not in (4, 6, 8, 10):
            problems["teams, players"] = "pairs need 4, 6, 8 or 10 players"
        if self.teams == "pairs" and self.scoring in ("elimination", "lazy"):
            problems["teams, scoring"] = f"teams cannot be combined with {self.scoring} scoring"
        if self.teams == "pairs" and self.play_to_last:
            problems["teams, play_to_last"] = "with teams the round ends when a player goes out"
        if self.partner_hands_visible and self.teams == "none":
            problems["partner_hands_visible, teams"] = "partners exist only with teams"
        if self.scoring == "lazy" and self.rounds is None:
            problems["scoring, rounds"] = "lazy scoring keeps no points: set rounds"
        if self.going_out_bonus and self.scoring not in ("penalty", "elimination"):
            problems["going_out_bonus, scoring"] = (
                "a going-out bonus needs penalty or elimination scoring"
            )
        if self.deck == "attack":
            inert = [key for key in _NOT_IN_ATTACK if getattr(self, key) != SPEC[key].default]
            if inert:
                problems[", ".join(["deck", *inert])] = (
                    "UNO Attack has no draw pile to draw from (a press replaces drawing) "
                    "and no Draw Two or Wild Draw Four to answer"
                )
        if self.scoring == "elimination" and self.players < 3:
            problems["scoring, players"] = "elimination needs at least 3 players"
        if problems:
            raise RulesError(problems)


@lru_cache(maxsize=64)
def _deck_cards(deck: str, extra_cards: tuple[tuple[str, int], ...]) -> tuple[int, ...]:
    """:meth:`Rules.deck_cards`, built once per deck and extra cards."""
    return tuple(build_deck(deck, dict(extra_cards)))


def _coerce(spec: KeySpec, value: Any, problems: dict[str, str]) -> Any:
    """Check one value against its key's type and range; record a problem if wrong."""
    name, kind = spec.name, spec.kind
    if kind == "bool":
        if isinstance(value, bool):
            return value
        problems[name] = f"expected true or false, got {value!r}"
    elif kind in ("int", "optional_int"):
        if value is None and kind == "optional_int":
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            low, high = spec.choices
            if value < low or (high is not None and value > high):
                top = "" if high is None else f"..{high}"
                problems[name] = f"{value} is out of range {low}{top}"
            return value
        wanted = "an integer or none" if kind == "optional_int" else "an integer"
        problems[name] = f"expected {wanted}, got {value!r}"
    elif kind == "float":
        if isinstance(value, int | float) and not isinstance(value, bool):
            low, high = spec.choices
            if not low <= value <= high:
                problems[name] = f"{value} is out of range {low}..{high}"
            return float(value)
        problems[name] = f"expected a number, got {value!r}"
    elif kind == "choice":
        if value is None and "none" in spec.choices:
            return "none"  # the compact form writes the value none like a missing number
        if isinstance(value, str) and value in spec.choices:
            return value
        problems[name] = f"expected one of {', '.join(spec.choices)}, got {value!r}"
    elif kind == "cards":
        return _coerce_cards(spec, value, problems)
    return spec.default


def _coerce_cards(spec: KeySpec, value: Any, problems: dict[str, str]) -> Any:
    if isinstance(value, tuple):
        value = dict(value)
    if not isinstance(value, Mapping):
        problems[spec.name] = f"expected a map of card code -> number, got {value!r}"
        return spec.default
    pairs: list[tuple[str, int]] = []
    for code, count in value.items():
        try:
            parse_card(code)
        except CardCodeError:
            problems[spec.name] = f"unknown card code {code!r}"
            continue
        if code not in spec.choices:
            problems[spec.name] = f"{code} cannot be used here; allowed: {', '.join(spec.choices)}"
        elif not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 1000:
            problems[spec.name] = f"{code}: expected a whole number 0..1000, got {count!r}"
        elif count:
            pairs.append((code, count))
    return tuple(sorted(pairs, key=lambda pair: parse_card(pair[0])))


def _split_items(text: str) -> list[str]:
    items: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        if char == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    tail = "".join(current).strip()
    if tail or items:
        items.append(tail)
    return [item for item in items if item]


def _parse_scalar(raw: str) -> Any:
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    if raw.startswith("{") and raw.endswith("}"):
        out: dict[str, Any] = {}
        for item in _split_items(raw[1:-1]):
            code, _, count = item.partition(":")
            out[code.strip()] = _parse_scalar(count.strip())
        return out
    for convert in (int, float):
        try:
            return convert(raw)
        except ValueError:
            pass
    return raw


def format_value(value: Any) -> str:
    """A rule value as the compact rule string writes it.

    >>> format_value(True), format_value(None), format_value((("WC", 4),)), format_value(7)
    ('true', 'none', '{WC:4}', '7')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{v}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        return format_value(dict(value))
    return str(value)


def rule_fields() -> list[str]:
    """The names of every rule key, in the order of RULES.md section 8."""
    return [f.name for f in fields(Rules) if f.name != "preset_name"]


OFFICIAL = Rules()
"""The official rules with four players (built without validation; it is valid)."""

__all__ = [
    "KEYS",
    "OFFICIAL",
    "PRESETS",
    "PRESET_MEANINGS",
    "SPEC",
    "KeySpec",
    "Rules",
    "format_value",
    "rule_fields",
]
