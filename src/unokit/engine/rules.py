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
unokit.engine.errors.RulesError: invalid rule set: colour: unknown key; did you mean wild_color? ...
"""

from __future__ import annotations

import difflib
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any, Literal

from unokit.engine.cards import CODES, build_deck, parse_card
from unokit.engine.errors import Reason, RulesError
from unokit.engine.jsontext import MAX_DEPTH, nesting_depth, parse_json, short_repr
from unokit.engine.rule_values import (
    KeySpec,
    coerce_value,
    format_value,
    parse_scalar,
    split_items,
)

DeckName = Literal["classic", "h2o", "attack"]
DealerChoice = Literal["high_card", "random", "seat0"]
FirstCardChoice = Literal["official", "number_only"]
DrawChoice = Literal["one", "until_playable"]
PlayDrawnChoice = Literal["may", "must", "never"]
WildDrawFourChoice = Literal["challenge", "strict", "free"]
ScoringChoice = Literal["standard", "penalty", "elimination", "lazy"]
TeamsChoice = Literal["none", "pairs"]
DeflectOrStack = Literal["none", "deflect", "stack"]
"""``draw_two_on_draw_two`` and ``draw_two_on_draw_four``."""
StackChoice = Literal["none", "stack"]
"""``draw_four_on_draw_four`` and ``draw_four_on_draw_two``."""
SkipOnSkipChoice = Literal["none", "same_color", "any"]
LastCardChoice = Literal["no_effect", "apply"]
MultiPlayChoice = Literal["off", "same_number"]
SilenceChoice = Literal["off", "twos", "wilds"]
WildColorChoice = Literal["chosen", "next_in_circle"]
BlankCardChoice = Literal["wild", "transparent", "draw_ten"]




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
    "online": {"teams": "pairs", "players": 4, "draw_two_on_draw_two": "stack",
               "target_score": 100},
}
"""Preset name -> its overrides of the official rules (RULES.md section 7)."""

PRESET_MEANINGS: dict[str, str] = {
    "official": "the classic game and match (Mattel's printed rules)",
    "classic_ru": "the Russian table rules: number start card, no drawing while able to play, "
    "deflecting Draw Twos, skip on skip, guilty Wild Draw Four taken back",
    "stacking": "Draw Twos and Wild Draw Fours add up until someone draws",
    "seven_o": "a 7 swaps hands, a 0 rotates all hands",
    "jump_in": "an identical card may be played out of turn",
    "party": "both stacks, Wild Draw Four on Draw Two, seven-o, jump-in, draw until playable",
    "attack": "UNO Attack: the card launcher instead of a draw pile",
    "h2o": "UNO H2O: Wild Downpour cards added",
    "pairs": "four players in two teams of partners",
    "online": "the online game: two pairs, Draw Twos stack, the first pair to 100 points wins",
}

_NOT_IN_ATTACK = ("draw", "play_drawn", "draw_when_playable", "draw_two_on_draw_two",
                  "draw_four_on_draw_four", "draw_two_on_draw_four", "draw_four_on_draw_two",
                  "reverse_deflects_draw")
"""Keys that cannot work with ``deck = "attack"``: drawing and draw-card chains."""

_WILD_DRAW_FOUR_KEYS = ("wild_draw_four", "challenge_guilty_draw", "challenge_innocent_draw",
                        "challenge_guilty_takes_back")
"""Keys about the Wild Draw Four; all but the first about its challenge."""


@dataclass(frozen=True, slots=True)
class Rules:
    """One complete rule set. Build it with :meth:`from_dict`, :meth:`from_string`,
    :meth:`preset` or :meth:`from_json`/:meth:`from_toml`; the constructor does not
    validate. Maps (``extra_cards``, ``going_out_bonus``) are kept as sorted tuples of
    ``(code, number)`` pairs so that a rule set is hashable."""

    preset_name: str = "official"
    players: int = 4
    hand_size: int = 7
    deck: DeckName = "classic"
    extra_cards: tuple[tuple[str, int], ...] = ()
    dealer: DealerChoice = "high_card"
    first_card: FirstCardChoice = "official"
    draw: DrawChoice = "one"
    play_drawn: PlayDrawnChoice = "may"
    draw_when_playable: bool = True
    two_player_reverse_skips: bool = True
    wild_draw_four: WildDrawFourChoice = "challenge"
    challenge_guilty_draw: int = 4
    challenge_innocent_draw: int = 6
    challenge_guilty_takes_back: bool = False
    uno_penalty: int = 2
    uno_self_catch: bool = True
    false_catch_penalty: int = 0
    misplay_penalty: int = 0
    scoring: ScoringChoice = "standard"
    target_score: int = 500
    rounds: int | None = None
    lone_zero_points: int = 0
    going_out_bonus: tuple[tuple[str, int], ...] = ()
    teams: TeamsChoice = "none"
    partner_hands_visible: bool = False
    play_to_last: bool = False
    progressive_refill: bool = False
    draw_two_on_draw_two: DeflectOrStack = "none"
    draw_four_on_draw_four: StackChoice = "none"
    draw_two_on_draw_four: DeflectOrStack = "none"
    draw_four_on_draw_two: StackChoice = "none"
    reverse_deflects_draw: bool = False
    skip_on_skip: SkipOnSkipChoice = "none"
    jump_in: bool = False
    seven_swap: bool = False
    zero_rotate: bool = False
    seven_zero_last_card: LastCardChoice = "no_effect"
    five_exchange: bool = False
    multi_play: MultiPlayChoice = "off"
    uno_slap: bool = False
    silence: SilenceChoice = "off"
    silence_penalty: int = 2
    wild_color: WildColorChoice = "chosen"
    blank_card_effect: BlankCardChoice = "wild"
    launcher_fire_chance: float = 0.3
    launcher_max_burst: int = 6

    # ----------------------------------------------------------------- building
    @classmethod
    def preset(cls, name: str = "official", **overrides: Any) -> Rules:
        """A preset with keyword overrides: ``Rules.preset("official", players=2)``."""
        return cls.from_dict({"preset": name, **overrides})

    @classmethod
    def from_dict(cls, data: Any, *, drop_inert: bool = False) -> Rules:
        """A rule set from a mapping ``{"preset": name, key: value, ...}``. Keys that
        would have no effect (:meth:`inert_keys`) are refused, or reset to their defaults
        with ``drop_inert=True``.

        >>> Rules.from_dict({"preset": "official", "jumpin": True})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        unokit.engine.errors.RulesError: invalid rule set: jumpin: unknown key; did you mean ...

        Raises:
            RulesError: naming every offending key.
        """
        if not isinstance(data, Mapping):
            kind = type(data).__name__
            raise RulesError({"rules": Reason("expected a mapping of rule keys, got {kind}",
                                              kind=kind)})
        problems: dict[str, str] = {}
        preset = data.get("preset", "official")
        if not isinstance(preset, str) or preset not in PRESETS:
            problems["preset"] = _unknown_preset(preset)
            preset = "official"
        values: dict[str, Any] = {name: SPEC[name].default for name in SPEC}
        values.update({k: coerce_value(SPEC[k], v, {}) for k, v in PRESETS[preset].items()})
        for key in sorted((k for k in data if k != "preset"), key=_key_text):
            if not isinstance(key, str) or key not in SPEC:
                problems[_key_text(key)] = _unknown_key(key)
                continue
            values[key] = coerce_value(SPEC[key], data[key], problems)
        if problems:
            raise RulesError(problems)
        rules = cls(preset_name=preset, **values)
        if drop_inert:
            rules = rules.without_inert()
        rules.validate()
        return rules

    @classmethod
    def from_json(cls, text: str | bytes) -> Rules:
        """A rule set from JSON text (an object of rule keys).

        Raises:
            RulesError: the text is not JSON (or nested too deeply, or holds a number of
                more than 4300 digits) or not a valid rule set.
        """
        return cls.from_dict(parse_json(text, _rules_error))

    @classmethod
    def from_toml(cls, text: str) -> Rules:
        """A rule set from TOML text (top-level rule keys, or a ``[rules]`` table).

        Raises:
            RulesError: the text is not TOML or not a valid rule set.
        """
        if not isinstance(text, str):
            raise _rules_error(Reason("expected TOML text, got {kind}",
                                      kind=type(text).__name__))
        try:
            data = tomllib.loads(text)
        except RecursionError:
            raise _rules_error(_TOML_DEPTH) from None
        except ValueError as exc:  # TOMLDecodeError, numbers of more than 4300 digits
            message = str(exc)
            if "integer string conversion" in message:
                raise _rules_error(Reason("not valid TOML: a number with more than 4300 "
                                          "digits")) from None
            raise _rules_error(Reason("not valid TOML: {problem}", problem=message)) from None
        if nesting_depth(data) > MAX_DEPTH:
            raise _rules_error(_TOML_DEPTH)
        if set(data) == {"rules"} and isinstance(data["rules"], dict):
            data = data["rules"]
        return cls.from_dict(data)

    @classmethod
    def from_string(cls, text: str) -> Rules:
        """A rule set from its compact form: a preset name, then ``key=value`` items,
        comma-separated; maps as ``{WC:4,WSW:1}``; ``rounds=none`` clears ``rounds``.
        Numbers are written with the digits 0-9.

        >>> Rules.from_string("official, players=2, extra_cards={WC:4}").extra_cards
        (('WC', 4),)
        >>> Rules.from_string("players=3,official")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        unokit.engine.errors.RulesError: invalid rule set: official: a preset name comes first: ...

        Raises:
            RulesError: naming every offending item or key.
        """
        if not isinstance(text, str):
            raise _rules_error(Reason("expected a rule string, got {kind}",
                                      kind=type(text).__name__))
        items = split_items(text)
        if not any(items):
            raise _rules_error(Reason("no rules given: write a preset name (official), "
                                      "then key=value items, e.g. official,players=3"))
        data: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for index, item in enumerate(items):
            if not item:
                problems["rules"] = Reason("an empty item (two commas in a row, or one at an "
                                            "end)")
                continue
            if "=" not in item:
                if index == 0:
                    data["preset"] = item
                elif item in PRESETS:
                    rest = [other for other in items if other and other != item]
                    problems[item] = Reason("a preset name comes first: {order}",
                                            order=",".join([item, *rest]))
                else:
                    problems[_key_text(item)] = Reason("expected key=value")
                continue
            key, _, raw = item.partition("=")
            key = key.strip()
            if not key:
                problems[_key_text(item)] = Reason("expected key=value: the key is missing")
                continue
            if key in data:
                problems[key] = Reason("given twice")
            data[key] = parse_scalar(raw.strip())
        if problems:
            raise RulesError(problems)
        return cls.from_dict(data)

    @classmethod
    def load(cls, source: str | Mapping[str, Any] | Rules) -> Rules:
        """Whatever a user gave: a :class:`Rules`, a mapping, a compact string, JSON text,
        or a preset name.

        Raises:
            RulesError: a bad rule set, or something else than these.
        """
        if isinstance(source, Rules):
            return source
        if isinstance(source, Mapping):
            return cls.from_dict(source)
        if not isinstance(source, str):
            raise _rules_error(Reason("expected a rule set, a mapping or a rule string, "
                                      "got {kind}", kind=type(source).__name__))
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
    def inert_keys(self) -> dict[str, str]:
        """Keys set away from their default that can have no effect under the other
        keys, each problem naming the key and the keys that make it inert (docs/rules.md,
        "Keys without effect"). :meth:`validate` refuses every one of them.

        >>> Rules(silence_penalty=3).inert_keys()
        {'silence_penalty, silence': 'silence_penalty acts only when silence is not off'}
        >>> Rules(silence="twos", silence_penalty=3).inert_keys()
        {}
        """
        return {label: why for _, label, why in self._inert()}

    def without_inert(self) -> Rules:
        """A copy with every key of :meth:`inert_keys` back at its default (for random
        rule sets: drawn keys that would have no effect are dropped).

        >>> rules = Rules(deck="attack", zero_rotate=True, seven_zero_last_card="apply")
        >>> rules.without_inert() == Rules(deck="attack")
        True
        """
        rules = self
        while True:
            found = rules._inert()
            if not found:
                return rules
            reset = {key: SPEC[key].default for keys, _, _ in found for key in keys}
            rules = replace(rules, **reset)

    def _inert(self) -> list[tuple[tuple[str, ...], str, str]]:
        """``(inert keys, the keys a message names, why)`` for :meth:`inert_keys`."""
        found: list[tuple[tuple[str, ...], str, str]] = []
        changed = {spec.name for spec in KEYS if getattr(self, spec.name) != spec.default}
        attack = self.deck == "attack"

        def refuse(keys: list[str], causes: str, why: str, *, causes_first: bool = False
                   ) -> None:
            keys = [key for key in keys if key in changed]
            if keys:
                label = [causes, *keys] if causes_first else [*keys, causes]
                found.append((tuple(keys), ", ".join(label), why))

        if attack:
            refuse(list(_NOT_IN_ATTACK), "deck",
                   Reason("UNO Attack has no draw pile to draw from (a press replaces "
                          "drawing) and no Draw Two or Wild Draw Four to answer"),
                   causes_first=True)
            refuse(list(_WILD_DRAW_FOUR_KEYS), "deck",
                   Reason("the UNO Attack deck has no Wild Draw Four"))
            refuse(["zero_rotate"], "deck", Reason("the UNO Attack deck has no 0 cards"))
        else:
            refuse(["launcher_fire_chance", "launcher_max_burst"], "deck",
                   Reason("the card launcher exists only with deck=attack"))
            if self.wild_draw_four != "challenge":
                refuse(list(_WILD_DRAW_FOUR_KEYS[1:]), "wild_draw_four",
                       Reason("a Wild Draw Four is challenged only with "
                              "wild_draw_four=challenge"))
        if self.teams == "none":
            refuse(["partner_hands_visible"], "teams",
                   Reason("partners exist only with teams"))
        if self.silence == "off":
            refuse(["silence_penalty"], "silence",
                   Reason("silence_penalty acts only when silence is not off"))
        if not (self.seven_swap or (self.zero_rotate and not attack)):
            refuse(["seven_zero_last_card"], "seven_swap, zero_rotate",
                   Reason("a last-card 7 or 0 acts only with seven_swap or zero_rotate"))
        deck = set(self.deck_cards())
        if parse_card("WC") not in deck:
            refuse(["blank_card_effect"], "extra_cards",
                   Reason("the deck has no blank card (WC); add some with {example}",
                          example="extra_cards={WC:4}"))
        missing = [code for code, _ in self.going_out_bonus if parse_card(code) not in deck]
        if missing:
            found.append((("going_out_bonus",), "going_out_bonus, deck",
                          Reason("the deck has no {cards} to go out on",
                                 cards=", ".join(missing))))
        if self.scoring == "lazy":
            refuse(["target_score"], "scoring",
                   Reason("lazy scoring keeps no points; the match lasts the given "
                          "rounds"))
        return found

    def validate(self) -> None:
        """Check the combination of keys; raise :class:`RulesError` naming the keys."""
        problems: dict[str, str] = {}
        deck_size = len(self.deck_cards())
        if self.players * self.hand_size >= deck_size:
            problems["players, hand_size"] = Reason(
                "{players} hands of {hand_size} need more than the {deck_size} cards of "
                "the deck", players=self.players, hand_size=self.hand_size,
                deck_size=deck_size)
        if self.teams == "pairs" and self.players not in (4, 6, 8, 10):
            problems["teams, players"] = Reason("pairs need 4, 6, 8 or 10 players")
        if self.teams == "pairs" and self.scoring in ("elimination", "lazy"):
            problems["teams, scoring"] = Reason(
                "teams cannot be combined with {scoring} scoring", scoring=self.scoring)
        if self.teams == "pairs" and self.play_to_last:
            problems["teams, play_to_last"] = Reason(
                "with teams the round ends when a player goes out")
        if self.scoring == "lazy" and self.rounds is None:
            problems["scoring, rounds"] = Reason("lazy scoring keeps no points: set rounds")
        if self.going_out_bonus and self.scoring not in ("penalty", "elimination"):
            problems["going_out_bonus, scoring"] = Reason(
                "a going-out bonus needs penalty or elimination scoring")
        problems.update(self.inert_keys())
        if self.scoring == "elimination" and self.players < 3:
            problems["scoring, players"] = Reason("elimination needs at least 3 players")
        if problems:
            raise RulesError(problems)


@lru_cache(maxsize=64)
def _deck_cards(deck: str, extra_cards: tuple[tuple[str, int], ...]) -> tuple[int, ...]:
    """:meth:`Rules.deck_cards`, built once per deck and extra cards."""
    return tuple(build_deck(deck, dict(extra_cards)))


_TOML_DEPTH = Reason("not valid TOML: nested more than {depth} levels deep", depth=MAX_DEPTH)


def _rules_error(message: str) -> RulesError:
    """A :class:`RulesError` about the rule set as a whole."""
    return RulesError({"rules": message})


def _key_text(key: Any) -> str:
    """A key as a message shows it: short, and quoted if it is not plain text."""
    if not isinstance(key, str):
        return short_repr(key)
    if not key.isprintable():
        return short_repr(key)
    return key if len(key) <= 40 else key[:37] + "..."


def _unknown_key(key: Any) -> str:
    """The problem of an unknown key, with the nearest key if one is close."""
    if isinstance(key, str):
        close = difflib.get_close_matches(key, list(SPEC), n=1)
        if close:
            return Reason("unknown key; did you mean {key}? (unokit rules lists every key)",
                          key=close[0])
    return Reason("unknown key (unokit rules lists every key)")


def _unknown_preset(preset: Any) -> str:
    """The problem of an unknown preset, with the nearest preset if one is close."""
    close = difflib.get_close_matches(preset, list(PRESETS), n=1) if isinstance(preset, str) else []
    shown, presets = short_repr(preset), ", ".join(PRESETS)
    if close:
        return Reason("unknown preset {preset}; did you mean {close}?; presets: {presets}",
                      preset=shown, close=close[0], presets=presets)
    return Reason("unknown preset {preset}; presets: {presets}", preset=shown,
                  presets=presets)


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
