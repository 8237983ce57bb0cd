"""Why an action is illegal: the sentence an :class:`~unokit.engine.errors.IllegalActionError`
carries. Only called on the slow path, after an action has been refused.

Each sentence is a :class:`~unokit.engine.errors.Reason`: English, with its template and
parameters kept for a translation (the server says it in its client's language).

>>> from unokit import Game, Rules, parse_action
>>> game = Game(Rules.preset("official", players=2, dealer="seat0"), seed=7)
>>> why_illegal(game, parse_action("0:draw"))
"it is seat 1's turn (phase play), not seat 0's"
"""

from __future__ import annotations

from unokit.engine import actions as A
from unokit.engine.cards import CODES, WILD, WILD_DRAW_FOUR
from unokit.engine.errors import ActionCodeError, Reason
from unokit.engine.phases import CHALLENGE, CHOOSE_COLOR, DRAWN, MATCH_OVER, PLAY, ROUND_OVER
from unokit.engine.state import GameState
from unokit.engine.tables import PLAYABLE


def why_illegal(game: GameState, action: int) -> Reason:
    """A sentence saying why an action is not legal now."""
    if not A.is_valid_encoding(action):
        try:
            A.format_action(action)
        except ActionCodeError as exc:
            return Reason("not an action ({problem})", problem=str(exc))
        return Reason("not an action")
    parts = A.describe(action)
    player = parts.player
    if player >= game.n:
        return Reason("there is no seat {seat} with {players} players", seat=player,
                      players=game.n)
    phase = game.phase
    if phase is MATCH_OVER:
        return Reason("the match is over")
    if phase is ROUND_OVER:
        return Reason("the round is over: the only action is to start the next round")
    if parts.type == "next":
        return Reason("the round is not over")
    if not game.active[player]:
        if game.in_match[player]:
            return Reason("seat {seat} is out of the round", seat=player)
        return Reason("seat {seat} is out of the match", seat=player)
    if parts.type == "catch":
        return _why_catch_illegal(game, player, parts.target)
    if parts.type == "uno":
        if game.uno_open != player:
            return Reason("only a player who just played down to one card without calling "
                          "may call")
        return Reason("a late call is not safe under uno_self_catch = false")
    if player != game.current:
        return Reason("it is seat {current}'s turn (phase {phase}), not seat {seat}'s",
                      current=game.current, phase=phase.value, seat=player)
    expected = {
        PLAY: Reason("play a card or draw"),
        DRAWN: Reason("play the drawn card or pass"),
        CHALLENGE: Reason("accept the Wild Draw Four (draw) or challenge"),
        CHOOSE_COLOR: Reason("name a colour"),
    }.get(phase) or Reason(phase.value)
    if parts.type == "play" and parts.card is not None:
        return _why_play_illegal(game, player, parts.card, parts.color, parts.uno) or expected
    if parts.type == "draw" and phase is PLAY:
        return Reason("drawing is not allowed while holding a playable card "
                      "(draw_when_playable)")
    if parts.type == "pass" and phase is DRAWN:
        return Reason("the drawn card must be played (play_drawn = must)")
    return Reason("phase {phase}: {expected}", phase=phase.value, expected=expected)


def _why_catch_illegal(game: GameState, player: int, target: int | None) -> Reason:
    if target is None or target >= game.n or target == player:
        return Reason("catch another seat")
    if game.uno_open == target and len(game.hands[target]) == 1:
        return Reason("cannot be caught")
    return Reason("seat {target} cannot be caught (only a player who played down to one card "
                  "without calling, before the next turn begins)", target=target)


def _why_play_illegal(game: GameState, player: int, card: int, color: int | None,
                      uno: bool) -> Reason | None:
    hand = game.hands[player]
    if card not in hand:
        return Reason("seat {seat} holds no {card}", seat=player, card=CODES[card])
    if game.phase is DRAWN and card != game.drawn:
        return Reason("only the drawn card {card} may be played now", card=CODES[game.drawn])
    if game.phase not in (PLAY, DRAWN):
        return None
    if (card >= WILD) != (color is not None):
        return Reason("a wild needs a colour; other cards take none")
    if uno and len(hand) != 2:
        return Reason("UNO can be called only with a play that leaves one card")
    if not PLAYABLE[game.match * 4 + game.color][card]:
        return Reason("{card} does not match the top card and colour", card=CODES[card])
    if card == WILD_DRAW_FOUR and game._strict:
        return Reason("a Wild Draw Four may not be played while holding the current colour")
    return None
