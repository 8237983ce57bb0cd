"""unokit: the UNO card game engine, with its rules, records and tools.

>>> import unokit
>>> game = unokit.Game(unokit.Rules.preset("official", players=3), seed=1)
>>> game.current_player in (0, 1, 2)
True
"""

from unokit.actions import format_action, parse_action
from unokit.cards import card_code, parse_card
from unokit.errors import (
    ActionCodeError,
    CardCodeError,
    IllegalActionError,
    RecordError,
    RulesError,
    ScenarioError,
    SetupError,
    UnoError,
)
from unokit.events import Event, EventKind, redact
from unokit.game import Game, Phase
from unokit.observation import Observation
from unokit.record import Record, replay
from unokit.rules import PRESETS, Rules

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "ActionCodeError",
    "CardCodeError",
    "Event",
    "EventKind",
    "Game",
    "IllegalActionError",
    "Observation",
    "Phase",
    "Record",
    "RecordError",
    "Rules",
    "RulesError",
    "ScenarioError",
    "SetupError",
    "UnoError",
    "__version__",
    "card_code",
    "format_action",
    "parse_action",
    "parse_card",
    "redact",
    "replay",
]
