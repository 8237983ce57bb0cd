"""Why an action is illegal: the sentence an :class:`~unokit.engine.errors.IllegalActionError`
carries. Only called on the slow path, after an action has been refused.

>>> from unokit import Game, Rules, parse_action
>>> game = Game(Rules.preset("official", players=2, dealer="seat0"), seed=7)
>>> why_illegal(game, parse_action("0:draw"))
"it is seat 1's turn (phase play), not seat 0's"
"""

from __future__ import annotations

from unokit.engine import actions as A
from unokit.engine.cards import CODES, WILD, WILD_DRAW_FOUR
from unokit.engine.errors import ActionCodeError
from unokit.engine.phases import CHALLENGE, CHOOSE_COLOR, DRAWN, MATCH_OVER, PLAY, ROUND_OVER
from unokit.engine.state import GameState
from unokit.engine.tables import PLAYABLE


def why_illegal(game: GameState, action: int) -> str:
    """A sentence saying why an action is not legal now."""
    if not A.is_valid_encoding(action):
        try:
            A.format_action(action)
        except ActionCodeError as exc:
            return f"not an action ({exc})"
        return "not an action"
    parts = A.describe(action)
    player = parts.player
    if player >= game.n:
        return f"there is no seat {player} with {game.n} players"
    phase = game.phase
    if phase is MATCH_OVER:
        return "the match is over"
    if phase is ROUND_OVER:
        return "the round is over: the only action is to start the next round"
    if parts.type == "next":
        return "the round is not over"
    if not game.active[player]:
        return f"seat {player} is out of the {'round' if game.in_match[player] else 'match'}"
    if parts.type == "catch":
        return _why_catch_illegal(game, player, parts.target)
    if parts.type == "uno":
        if game.uno_open != player:
            return "only a player who just played down to one card without calling may call"
        return "a late call is not safe under uno_self_catch = false"
    if player != game.current:
        return f"it is seat {game.current}'s turn (phase {phase.value}), not seat {player}'s"
    expected = {
        PLAY: "play a card or draw",
        DRAWN: "play the drawn card or pass",
        CHALLENGE: "accept the Wild Draw Four (draw) or challenge",
        CHOOSE_COLOR: "name a colour",
    }.get(phase, phase.value)
    if parts.type == "play" and parts.card is not None:
        return _why_play_illegal(game, player, parts.card, parts.color, parts.uno) or expected
    if parts.type == "draw" and phase is PLAY:
        return "drawing is not allowed while holding a playable card (draw_when_playable)"
    if parts.type == "pass" and phase is DRAWN:
        return "the drawn card must be played (play_drawn = must)"
    return f"phase {phase.value}: {expected}"


def _why_catch_illegal(game: GameState, player: int, target: int | None) -> str:
    if target is None or target >= game.n or target == player:
        return "catch another seat"
    if game.uno_open == target and len(game.hands[target]) == 1:
        return "cannot be caught"
    return (f"seat {target} cannot be caught (only a player who played down to one card "
            "without calling, before the next turn begins)")


def _why_play_illegal(game: GameState, player: int, card: int, color: int | None,
                      uno: bool) -> str:
    hand = game.hands[player]
    if card not in hand:
        return f"seat {player} holds no {CODES[card]}"
    if game.phase is DRAWN and card != game.drawn:
        return f"only the drawn card {CODES[game.drawn]} may be played now"
    if game.phase not in (PLAY, DRAWN):
        return ""
    if (card >= WILD) != (color is not None):
        return "a wild needs a colour; other cards take none"
    if uno and len(hand) != 2:
        return "UNO can be called only with a play that leaves one card"
    if not PLAYABLE[game.match * 4 + game.color][card]:
        return f"{CODES[card]} does not match the top card and colour"
    if card == WILD_DRAW_FOUR and game._strict:
        return "a Wild Draw Four may not be played while holding the current colour"
    return ""
