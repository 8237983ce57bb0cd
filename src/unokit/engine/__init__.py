"""The rules engine: cards, actions, rules, phases, events, errors, the generator, scoring,
the game and its rule modules, set-ups, explanations and observations.

Pure Python on the standard library alone, with no I/O: every other part of unokit (the
file formats, the bots, the simulator, the learning environments, the arena, the terminal
game, the command line) is built on it and nothing here imports them.

>>> from unokit.engine import Game, Rules
>>> Game(Rules.preset("official", players=2), seed=1).n
2
"""

from unokit.engine.actions import Action, Seat, format_action, parse_action
from unokit.engine.cards import CardKind, card_code, parse_card
from unokit.engine.errors import (
    ActionCodeError,
    CardCodeError,
    IllegalActionError,
    RecordError,
    RulesError,
    ScenarioError,
    SetupError,
    UnoError,
)
from unokit.engine.events import Event, EventKind, redact
from unokit.engine.game import Game, Phase
from unokit.engine.observation import Observation
from unokit.engine.rules import PRESETS, Rules

__all__ = [
    "PRESETS",
    "Action",
    "ActionCodeError",
    "CardCodeError",
    "CardKind",
    "Event",
    "EventKind",
    "Game",
    "IllegalActionError",
    "Observation",
    "Phase",
    "RecordError",
    "Rules",
    "RulesError",
    "ScenarioError",
    "Seat",
    "SetupError",
    "UnoError",
    "card_code",
    "format_action",
    "parse_action",
    "parse_card",
    "redact",
]
