"""The phases of a game: what it waits for.

>>> Phase("respond") is RESPOND
True
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """What the game waits for."""

    PLAY = "play"
    DRAWN = "drawn"
    CHOOSE_COLOR = "choose_color"
    CHALLENGE = "challenge"
    RESPOND = "respond"
    EXCHANGE = "exchange"
    SLAP = "slap"
    ROUND_OVER = "round_over"
    MATCH_OVER = "match_over"


PLAY, DRAWN, CHOOSE_COLOR, CHALLENGE = Phase.PLAY, Phase.DRAWN, Phase.CHOOSE_COLOR, Phase.CHALLENGE
RESPOND, EXCHANGE, SLAP = Phase.RESPOND, Phase.EXCHANGE, Phase.SLAP
ROUND_OVER, MATCH_OVER = Phase.ROUND_OVER, Phase.MATCH_OVER

TURN_OVER: tuple[Phase, ...] = (ROUND_OVER, MATCH_OVER)
"""The phases in which no turn is under way (the round or the match has ended)."""

__all__ = ["CHALLENGE", "CHOOSE_COLOR", "DRAWN", "EXCHANGE", "MATCH_OVER", "PLAY", "RESPOND",
           "ROUND_OVER", "SLAP", "TURN_OVER", "Phase"]
