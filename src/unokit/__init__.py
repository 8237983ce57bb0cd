"""unokit: the UNO card game engine, with its rules, records and tools.

>>> import unokit
>>> game = unokit.Game(unokit.Rules.preset("official", players=3), seed=1)
>>> game.current_player in (0, 1, 2)
True
"""

from unokit._version import __version__
from unokit.engine.actions import format_action, parse_action
from unokit.engine.cards import card_code, parse_card
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
from unokit.formats.record import Record, replay

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
