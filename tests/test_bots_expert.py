"""The expert bot: the evidence it keeps of the plays seen, the weights of its deals, the
draw slack, determinism and no use of hidden cards."""

from __future__ import annotations

import copy
import itertools
import random
from typing import Any

import pytest

from unokit.bots import BOTS, ExpertBot, PlayFirstBot, SearchBot, make_bot, parse_bot_spec, play
from unokit.bots import expert as expert_module
from unokit.bots.base import BotSpecError
from unokit.bots.expert import (
    DRAW_SLACK,
    EXPERT_ITERATIONS,
    EXPERT_ITERATIONS_MANY,
    EXPERT_POLICY,
)
from unokit.bots.likelihood import (
    COLORS,
    NAME_SLACK,
    NAMED,
    PLAYED,
    RANKS,
    EvidenceTracker,
    deal_weight_py,
)
from unokit.bots.memory import failed_mask
from unokit.bots.playout import (
    Plain,
    Position,
    _nth,
    _policy_kind,
    compiled,
    sample_deals,
    search_totals,
)
from unokit.bots.search import CHUNK
from unokit.engine import actions as A
from unokit.engine.cards import COLOR_OF, RANK_OF, parse_card
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.testing.invariants import permuted

c = parse_card
RED, YELLOW, GREEN, BLUE = 0, 1, 2, 3


# ------------------------------------------------------------------ the weights
def test_a_play_weighs_one_over_the_matching_cards() -> None:
    """R9 played on R7 (red in force): the hand before held the R9 and every red card,
    7 and wild of its hand now."""
    row = (1, PLAYED, c("R9"), RED, RANK_OF[c("R7")])
    assert deal_weight_py([c("G1"), c("Y2")], [row], 1, NAME_SLACK) == 1.0
    assert deal_weight_py([c("R1"), c("G7"), c("W")], [row], 1, NAME_SLACK) == 0.25
    assert deal_weight_py([c("R1")], [row], 2, NAME_SLACK) == 1.0  # another seat's row


def test_a_colour_named_weighs_by_the_colour_held_most() -> None:
    row = (1, NAMED, BLUE, 0, 0)
    assert deal_weight_py([c("B1"), c("B2"), c("R3")], [row], 1, 0.2) == 1.0
    assert deal_weight_py([c("B1"), c("R3")], [row], 1, 0.2) == 1.0  # a tie
    assert deal_weight_py([c("B1"), c("R3"), c("R4")], [row], 1, 0.2) == 0.2
    assert deal_weight_py([c("R3"), c("R4")], [row], 1, 0.0) == 0.0


def _spot(evidence: list[tuple[int, int, int, int, int]], slots: list[list[int]] | None = None,
          draw_slack: float = 0.0) -> Position:
    """Seat 0 holds R5 and G5 on R3; seat 1 holds three of the ten unseen cards."""
    pool = [c(name) for name in ("R1", "R2", "R4", "R6", "R7", "R8", "G1", "Y1", "B1", "B2")]
    return Position(pool=pool, sizes=[2, 3], known=[[c("R5"), c("G5")], None],
                    slots=slots or [[], []], discard=[c("R3")], color=RED, direction=1,
                    seat=0, team=[True, False], evidence=evidence, draw_slack=draw_slack)


def test_sampled_deals_carry_the_weight_of_their_hand() -> None:
    row = (1, PLAYED, c("R9"), RED, RANK_OF[c("R3")])
    deals = sample_deals(_spot([row]), 200, 3)
    for hands, pile, weight in deals:
        assert len(hands[1]) == 3 and len(pile) == 7
        reds = sum(1 for card in hands[1] if COLOR_OF[card] == RED)
        assert weight == 1.0 / (1 + reds)
    # Under the weights a hand with many reds is less likely than as dealt.
    dealt = sum(sum(COLOR_OF[x] == RED for x in h[1]) for h, _, _ in deals) / len(deals)
    total = sum(w for _, _, w in deals)
    weighted = sum(w * sum(COLOR_OF[x] == RED for x in h[1]) for h, _, w in deals) / total
    assert weighted < dealt - 0.15  # exactly: 1.8 as dealt, 73/47 = 1.55 weighed


def test_draws_are_certain_without_slack_and_weighed_with_it() -> None:
    """Seat 1 drew on a red 3 (so, the assumption, it held no red card, no 3 and no wild)
    and has held its three cards since. Without slack no sampled world deals it a red
    card; with a slack of 0.3 about that share of the worlds ignore the draw."""
    mask = failed_mask(c("R3"), RED)
    slots = [[], [mask, mask, mask]]
    strict = sample_deals(_spot([], slots), 400, 5)
    assert not any(COLOR_OF[card] == RED for hands, _, _ in strict for card in hands[1])
    loose = sample_deals(_spot([], slots, draw_slack=0.3), 400, 5)
    with_red = sum(1 for hands, _, _ in loose if any(COLOR_OF[x] == RED for x in hands[1]))
    # A free hand of three from ten cards, six of them red, holds a red card 29 times in 30.
    assert 0.2 * 400 < with_red < 0.4 * 400


@pytest.mark.parametrize("use_compiled", [True, False])
def test_totals_without_evidence_count_every_deal_once(use_compiled: bool) -> None:
    plain = Plain.of(Rules.preset("official", players=2))
    assert plain is not None
    wins, squares, total, total_sq = search_totals(plain, _spot([]), [c("R5"), -1], 50, 9,
                                                   use_compiled=use_compiled)
    assert (total, total_sq) == (50.0, 50.0)
    assert all(0 <= w <= 50 for w in wins) and squares[0] == 0.0
    row = (1, PLAYED, c("R9"), RED, RANK_OF[c("R3")])
    _, _, total, total_sq = search_totals(plain, _spot([row]), [c("R5"), -1], 50, 9,
                                          use_compiled=use_compiled)
    assert 0 < total < 50 and total_sq < total


@pytest.mark.skipif(compiled() is None, reason="numba is not installed")
@pytest.mark.parametrize("policy", [3, 7])
def test_compiled_and_plain_weighted_deals_agree(policy: int) -> None:
    plain = Plain.of(Rules.preset("official", players=2))
    assert plain is not None
    mask = failed_mask(c("R3"), RED)
    rows = [(1, PLAYED, c("W"), RED, RANK_OF[c("R3")]), (1, NAMED, BLUE, 0, 0)]
    spot = _spot(rows, [[], [mask, 0, 0]], draw_slack=0.25)
    for seed in range(4):
        fast = search_totals(plain, spot, [c("R5"), c("G5"), -1], 40, seed, policy=policy)
        slow = search_totals(plain, spot, [c("R5"), c("G5"), -1], 40, seed, policy=policy,
                             use_compiled=False)
        assert fast == slow


# ----------------------------------------------------------------- the evidence
def _four_player_turn() -> tuple[EvidenceTracker, Game]:
    """Seat 0 plays R1 on R5; seat 1 plays R7 (it also holds R2: a choice); seat 2 holds
    nothing red, no 7 and no wild, draws Y9 and keeps it; seat 3 plays a wild naming blue.
    The tracker of seat 0 sees its two turns."""
    rules = Rules.preset("official", players=4, rounds=1)
    hands = [[c("R1"), c("G2"), c("G3")], [c("R7"), c("R2"), c("B4")],
             [c("G4"), c("G6"), c("Y8")], [c("W"), c("Y3"), c("B5")]]
    pile = [c("Y9"), c("B7"), c("B8"), c("Y4"), c("Y5"), c("Y6"), c("G8"), c("G9")]
    game = Game.from_setup(rules, hands=hands, draw_pile=pile, discard=[c("R5")],
                           current_player=0, direction=1, color=RED)
    tracker = EvidenceTracker(rules)
    obs = game.observation(0)
    tracker.update(obs)
    action = A.play(0, c("R1"))
    tracker.chose(obs, action)
    game.apply(action)
    game.apply(A.play(1, c("R7")))
    game.apply(A.draw(2))
    assert game.hands[2][-1] == c("Y9")  # unplayable: the turn passes
    game.apply(A.play(3, c("W"), color=BLUE))
    assert game.current_player == 0
    tracker.update(game.observation(0))
    return tracker, game


def test_the_tracker_keeps_the_choices_seen_since_the_last_turn() -> None:
    tracker, game = _four_player_turn()
    obs = game.observation(0)
    assert tracker.evidence(obs) == [
        (1, PLAYED, c("R7"), RED, RANK_OF[c("R1")]),
        (3, PLAYED, c("W"), RED, RANK_OF[c("R7")]),
        (3, NAMED, BLUE, 0, 0),
    ]
    # Seat 2 drew: the memory's slots say what it lacks (no weight of its own).
    assert tracker.slots(2)[:3] == [failed_mask(c("R7"), RED)] * 3
    # The evidence is of that position only.
    game.apply(A.draw(0))
    assert tracker.evidence(game.observation(0)) == []


def test_a_card_played_after_a_draw_is_no_choice() -> None:
    rules = Rules.preset("official", players=2, rounds=1)
    hands = [[c("R1"), c("G2"), c("G3")], [c("Y7"), c("Y2"), c("B4")]]
    pile = [c("R9"), c("B7"), c("B8"), c("Y4")]
    game = Game.from_setup(rules, hands=hands, draw_pile=pile, discard=[c("R5")],
                           current_player=0, direction=1, color=RED)
    tracker = EvidenceTracker(rules)
    obs = game.observation(0)
    tracker.update(obs)
    tracker.chose(obs, A.play(0, c("R1")))
    game.apply(A.play(0, c("R1")))
    game.apply(A.draw(1))
    assert game.hands[1][-1] == c("R9")
    game.apply(A.play(1, c("R9")))
    tracker.update(game.observation(0))
    assert tracker.evidence(game.observation(0)) == []
    # The draw is the memory's: the three cards held then lack red, 1 and wilds.
    assert tracker.slots(1) == [failed_mask(c("R1"), RED)] * 3


# ------------------------------------------------------------------------- bot
def test_registered_with_its_defaults() -> None:
    rules = Rules.preset("official", players=2)
    assert BOTS["expert"] is ExpertBot
    assert parse_bot_spec("expert:300") == ("expert", {"iterations": 300})
    bot = make_bot("expert", 1, rules=rules)
    assert isinstance(bot, ExpertBot) and isinstance(bot, SearchBot)
    assert (bot.policy, bot.draw_slack, bot.name_slack) == (EXPERT_POLICY, DRAW_SLACK, NAME_SLACK)
    assert bot.iterations == EXPERT_ITERATIONS
    four = ExpertBot(0, rules=Rules.preset("official", players=4))
    assert four.iterations == EXPERT_ITERATIONS_MANY
    party = ExpertBot(0, rules=Rules.preset("party", players=4))
    assert party.iterations == SearchBot(0, rules=Rules.preset("party", players=4)).iterations
    assert ExpertBot(0, rules=rules, iterations=7).iterations == 7
    assert isinstance(bot.helper.tracker, EvidenceTracker)
    with pytest.raises(BotSpecError, match="needs the rules"):
        make_bot("expert", 1)
    with pytest.raises(BotSpecError):
        make_bot("expert", 1, rules=rules, draw_slack=2.0)
    with pytest.raises(BotSpecError):
        make_bot("expert", 1, rules=rules, name_slack=-0.1)


def test_same_seed_same_choices() -> None:
    def run(seed: int, players: int) -> list[int]:
        rules = Rules.preset("official", players=players, rounds=1)
        game = Game(rules, 4)
        bots = [make_bot("expert:40", seed + seat, rules=rules) for seat in range(players)]
        for _ in play(game, bots):
            pass
        return game.history

    for players in (2, 4):
        assert run(3, players) == run(3, players)


@pytest.mark.parametrize("players", [2, 4])
def test_hidden_cards_play_no_part(players: int) -> None:
    """At every turn of a game, a copy of the bot (memory and evidence included) chooses
    the same on the real game and on one whose hidden cards lie differently."""
    rules = Rules.preset("official", players=players, rounds=1)
    rng = random.Random(7)
    game = Game(rules, 21)
    bot = ExpertBot(2, rules=rules, iterations=30)
    checked = weighed = 0
    for _ in play(game, [bot, *(PlayFirstBot(seat) for seat in range(1, players))]):
        if game.is_over() or game.current_player != 0:
            continue
        obs = game.observation(0)
        other = permuted(game, 0, rng)
        assert other.observation(0) == obs
        twin = copy.deepcopy(bot)
        mine = copy.deepcopy(bot).choose(obs, game.legal_actions(0))
        assert twin.choose(other.observation(0), other.legal_actions(0)) == mine
        tracker = twin.helper.tracker  # it has seen this turn
        assert isinstance(tracker, EvidenceTracker)
        weighed += bool(tracker.evidence(obs))
        checked += 1
    assert checked > 5 and weighed > 0


def test_plays_other_rules_unweighted() -> None:
    rules = Rules.preset("seven_o", players=3, rounds=1)
    bot = ExpertBot(1, rules=rules, iterations=40)
    game = Game(rules, 5)
    for _ in play(game, [bot, PlayFirstBot(1), PlayFirstBot(2)]):
        pass
    assert game.is_over()


def test_a_deadline_stops_the_search() -> None:
    """With a deadline already past the bot still answers (the heuristic's choice)."""
    rules = Rules.preset("official", players=2, rounds=1)
    game = Game(rules, 2)
    seat = game.current_player
    assert seat is not None
    bot = ExpertBot(1, rules=rules)
    bot.deadline = 0.0
    action = bot.choose(game.observation(seat), game.legal_actions(seat))
    assert action in game.legal_actions(seat)
    assert bot.searched == 0


def test_policy_plays_an_action_card_first() -> None:
    """Playout policy +4: the bot's side plays a matching Skip, Reverse or Draw Two
    before any other matching card (never a wild as one)."""
    hand = [c("R2"), c("W"), c("G1"), c("GS")]
    counts = [0, 0, 0, 0]
    # Red in force on a green Skip: the green Skip and R2 match; the Skip goes first.
    kind, options, best = _policy_kind(hand, 4, RED, RANK_OF[c("GS")], True, 2, False, counts,
                                       RANKS, COLORS)
    assert options == 1
    assert _nth(hand, 4, 0, kind, RED, RANK_OF[c("GS")], best, counts, RANKS, COLORS) == c("GS")
    # Without a matching action card: a matching card at random as before.
    kind, options, _ = _policy_kind(hand[:3], 3, RED, RANK_OF[c("R9")], True, 2, False,
                                    counts, RANKS, COLORS)
    assert options == 1
    assert _nth(hand, 3, 0, kind, RED, RANK_OF[c("R9")], 0, counts, RANKS, COLORS) == c("R2")
    # The other side is not affected.
    kind, options, _ = _policy_kind(hand, 4, RED, RANK_OF[c("GS")], False, 2, False, counts,
                                    RANKS, COLORS)
    assert options == 2


def test_a_deadline_stops_a_huge_search_after_the_chunks_that_fit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's deadline: chunks of CHUNK deals until the clock passes it (a fake
    clock, one second more at every look)."""
    calls: list[int] = []
    real = expert_module.search_totals

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[3])
        return real(*args, **kwargs)

    ticks = itertools.count()
    monkeypatch.setattr(expert_module, "search_totals", counted)
    monkeypatch.setattr(expert_module.time, "monotonic", lambda: float(next(ticks)))
    rules = Rules.preset("official", players=4, rounds=1)
    game = Game(rules, 5)
    for _ in range(400):
        seat = game.current_player
        assert seat is not None
        obs, legal = game.observation(seat), game.legal_actions(seat)
        probe = ExpertBot(1, rules=rules, iterations=10)
        if obs.phase == "play" and len(probe._candidates(obs, legal)) > 2:
            break
        game.apply(legal[0])
    bot = ExpertBot(1, rules=rules, iterations=10**9)
    bot.deadline = 3.5  # the clock reads 0, 1, 2, 3 (a chunk after each), then 4
    assert bot.choose(obs, legal) in legal
    assert calls == [CHUNK] * 4
    assert bot.searched == 1
