"""The simple bots: only legal actions, for any seat at any moment, under any rule set
of RULES.md sections 1-3; and the bot match driver."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import islice

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checked_bot import Checked
from strategies import pick_action, rule_sets, seeds
from unokit.bots import (
    BOTS,
    Bot,
    BotError,
    PlayFirstBot,
    RandomBot,
    make_bot,
    play,
)
from unokit.engine import actions as A
from unokit.engine.events import EventKind
from unokit.engine.game import Game
from unokit.engine.observation import Observation
from unokit.engine.rules import Rules


def bots_for(names: Sequence[str], players: int, seed: int) -> list[Checked]:
    return [Checked(make_bot(names[seat % len(names)], seed * 16 + seat))
            for seat in range(players)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), seed=seeds,
       names=st.lists(st.sampled_from(sorted(set(BOTS) - {"search", "expert", "master"})),
                      min_size=1, max_size=4))
def test_bot_matches_with_legal_actions(rules: Rules, seed: int, names: list[str]) -> None:
    """Bot matches: only legal actions. PlayFirst matches end; random players may make a
    round last very long (wrong catches under ``false_catch_penalty`` feed their hands),
    so those are cut off after a few thousand actions."""
    game = Game(rules, seed)
    bots = bots_for(names, rules.players, seed % 1000)
    only_playfirst = set(names) == {"playfirst"}
    for _ in islice(play(game, bots), 50_000 if only_playfirst else 3_000):
        pass
    if only_playfirst:
        assert game.is_over()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), seed=seeds, actor_seed=st.integers(0, 2**32))
def test_any_seat_at_any_moment(rules: Rules, seed: int, actor_seed: int) -> None:
    """Random play by everyone (out of turn too); at every position every bot of every
    seat answers legally or, when it is not its turn, with None."""
    game = Game(rules, seed)
    rng = random.Random(actor_seed)
    bots = [Checked(cls(actor_seed % 97)) for cls in (RandomBot, PlayFirstBot)]
    for _ in range(300):
        if game.is_over():
            break
        for seat in range(game.n):
            legal = game.legal_actions(seat)
            for bot in bots:
                if legal:
                    bot.choose(game.observation(seat), legal)
        game.apply(pick_action(game, rng))


def test_playfirst_plays_cleanly() -> None:
    """All-PlayFirst matches: UNO is always called, nobody is caught, nothing is
    challenged or misplayed, and a playable card is never kept while drawing instead."""
    rules = Rules.preset("official", misplay_penalty=2, false_catch_penalty=2,
                         uno_self_catch=False, rounds=2)
    for seed in range(8):
        game = Game(rules.with_(players=2 + seed % 5), seed)
        for _ in play(game, [PlayFirstBot(seed * 16 + s) for s in range(game.n)]):
            pass
        kinds = {event.kind for event in game.log}
        assert not kinds & {EventKind.CAUGHT, EventKind.FALSE_CATCH, EventKind.CHALLENGED,
                            EventKind.MISPLAYED}


def test_playfirst_catches_random_players() -> None:
    caught_by_playfirst = 0
    for seed in range(10):
        game = Game(Rules.preset("official", players=2, rounds=3), seed)
        for _ in play(game, [PlayFirstBot(seed), RandomBot(seed)]):
            pass
        caught_by_playfirst += sum(
            1 for e in game.log if e.kind is EventKind.CAUGHT and e.player == 0)
    assert caught_by_playfirst > 0


def test_playfirst_names_its_main_colour() -> None:
    game = Game(Rules.preset("official", players=2, dealer="seat0"), 1)
    # Find a position where seat 1 may play a wild; check the colour it names.
    bot = PlayFirstBot(0)
    rng = random.Random(0)
    for _ in range(3000):
        if game.is_over():
            break
        seat = game.current_player
        if seat is not None and game.phase.value == "play":
            obs = game.observation(seat)
            action = bot.choose(obs, game.legal_actions(seat))
            assert action is not None
            parts = A.describe(action)
            if parts.card is not None and parts.card >= 64:
                rest = list(obs.hand)
                rest.remove(parts.card)
                counts = [sum(1 for c in rest if c < 64 and c // 16 == col) for col in range(4)]
                if any(counts):
                    assert parts.color is not None
                    assert counts[parts.color] == max(counts)
            if len(obs.hand) == 2 and parts.type == "play":
                assert parts.uno
        game.apply(pick_action(game, rng))


def test_playfirst_accepts_wild_draw_four_and_starts_next_round() -> None:
    bot = PlayFirstBot(0)
    game = Game(Rules.preset("official", players=2, rounds=2), 3)
    rng = random.Random(1)
    seen = set()
    for _ in range(5000):
        if game.is_over():
            break
        for seat in range(game.n):
            legal = game.legal_actions(seat)
            if not legal:
                continue
            obs = game.observation(seat)
            action = bot.choose(obs, legal)
            if obs.phase == "challenge" and obs.current_player == seat:
                assert action == A.draw(seat)
                seen.add("challenge")
            if obs.phase == "round_over":
                assert action == A.next_round(seat)
                seen.add("round_over")
        game.apply(pick_action(game, rng))
    assert "round_over" in seen


def test_driver_is_deterministic() -> None:
    def run() -> list[int]:
        game = Game("official,players=3,rounds=2", 12)
        for _ in play(game, [make_bot("random", 1), make_bot("playfirst", 2),
                             make_bot("random", 3)]):
            pass
        return game.history

    assert run() == run()


def test_false_catches_cannot_loop_forever() -> None:
    """Random bots may catch anyone at any time here (each wrong catch costs a card);
    the driver asks each seat at most once out of turn between two turns."""
    rules = Rules.preset("official", players=4, false_catch_penalty=1, hand_size=3, rounds=1)
    for seed in (0, 5):
        game = Game(rules, seed)
        for _ in play(game, [RandomBot(seed + s) for s in range(4)], max_actions=500_000):
            pass
        assert game.is_over()


class Silent:
    name = "silent"

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        return None


class Cheater:
    name = "cheater"

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        return A.next_round(observation.seat)


def test_driver_rejects_bad_bots() -> None:
    assert isinstance(Silent(), Bot)
    with pytest.raises(BotError, match="no action on its turn"):
        list(play(Game("official,players=2", 1), [Silent(), Silent()]))
    with pytest.raises(BotError, match="not legal"):
        list(play(Game("official,players=2", 1), [Cheater(), Cheater()]))
    with pytest.raises(ValueError, match="3 bots for 2 seats"):
        list(play(Game("official,players=2", 1), [Silent()] * 3))


def test_make_bot() -> None:
    assert isinstance(make_bot(" PlayFirst ", 3), PlayFirstBot)
    with pytest.raises(ValueError, match="unknown bot 'clever'"):
        make_bot("clever")
    bot = RandomBot(5)
    first = bot.rng.random()
    bot.reset()
    assert bot.rng.random() == first
