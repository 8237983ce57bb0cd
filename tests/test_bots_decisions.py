"""The bots' memory and decisions in constructed positions.

The memory (:class:`unokit.bots.memory.Tracker`) is walked through short courses of play
built with :meth:`Game.from_setup` (the draw pile stacked), and its inferences checked:
who lacks what, what a named colour says, what a play that contradicts an inference
undoes, and that the search bot deals hidden cards that respect them. The heuristic's
decisions that have a clear right answer, and the ways the personalities differ, are
checked in positions of their own; the search bot's candidates, its legal answers at
random moments of random rule sets, and its two playout engines on positions with
memory, partners and other rules.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

from checked_bot import Checked
from unokit.bots import HeuristicBot, SearchBot
from unokit.bots.memory import FEATURES, WILD_BIT, failed_mask
from unokit.bots.playout import Plain, Position, compiled, fill_slots, search_stats
from unokit.engine import actions as A
from unokit.engine.cards import COLOR_OF, RANK_OF, WILD, parse_card
from unokit.engine.game import Game
from unokit.engine.rules import Rules
from unokit.testing.soak import draw_rules

R, Y, G, B = 0, 1, 2, 3


def cards(*codes: str) -> list[int]:
    return [parse_card(code) for code in codes]


def position(hands: list[list[int]], top: str, pile: tuple[str, ...] = (), *,
             current: int = 0, **rules: object) -> Game:
    """A dealt round: ``pile`` are the first cards to be drawn, the rest of the deck
    after them."""
    players = len(hands)
    kind = Rules.preset("official", players=players, **rules)  # type: ignore[arg-type]
    rest = list(kind.deck_cards())
    first = cards(*pile)
    for card in [c for hand in hands for c in hand] + [parse_card(top)] + first:
        rest.remove(card)
    return Game.from_setup(kind, hands=hands, draw_pile=first + rest, discard=[parse_card(top)],
                           current_player=current)


def draw_and_keep(game: Game, seat: int) -> None:
    game.apply(A.draw(seat))
    if game.phase.value == "drawn":
        game.apply(A.pass_turn(seat))


def own_play(bot: HeuristicBot | SearchBot, game: Game, seat: int, code: str) -> None:
    """The bot's seat plays ``code``: asked with that play as its only choice, so that
    its memory sees the observation and its own action."""
    action = bot.choose(game.observation(seat), [A.play(seat, parse_card(code))])
    assert action == A.play(seat, parse_card(code))
    game.apply(action)


def lacks(mask: int, color: int) -> bool:
    return bool(mask & (1 << color))


# ------------------------------------------------------------------------ memory
def _three_seat_walk(bot: HeuristicBot | SearchBot) -> Game:
    """Seat 0 plays R5; seat 1 (no red, no 5, no wild) draws Y9 and keeps it; seat 2
    plays R7. Seat 0 is asked next."""
    game = position([cards("R5", "R+2", "G7", "G8", "Y3", "B9"), cards("Y1", "Y2", "B3"),
                     cards("R7", "R1", "G2", "G9", "B4")], "R3", ("Y9", "G5"))
    own_play(bot, game, 0, "R5")
    draw_and_keep(game, 1)
    game.apply(A.play(2, parse_card("R7")))
    assert game.current_player == 0
    return game


def test_a_seat_that_drew_lacks_what_it_could_not_match() -> None:
    bot = HeuristicBot(0, level="hard")
    game = _three_seat_walk(bot)
    obs = game.observation(0)
    tracker = bot.tracker
    tracker.update(obs)
    mask = failed_mask(parse_card("R5"), R)
    assert mask == (1 << R) | (1 << (4 + 5)) | WILD_BIT
    assert tracker.slots(1) == [mask] * 4  # the card kept lacks them too
    assert tracker.slots(2) == [0] * 4  # played without drawing: nothing learnt
    unseen = tracker.unseen(obs)
    assert sum(unseen.values()) == 108 - 5 - 3  # own hand and the discard pile
    assert tracker.has_chance(1, R, unseen) == 0.0
    assert tracker.lack(1, R) == 1.0 and tracker.lack(1, Y) == 0.0
    # Each of the four cards is one of the unseen cards that fit the slot.
    fitting = {card: n for card, n in unseen.items()
               if card < WILD and COLOR_OF[card] != R and RANK_OF[card] != 5}
    share = sum(n for card, n in fitting.items() if COLOR_OF[card] == Y) / sum(fitting.values())
    assert tracker.has_chance(1, Y, unseen) == pytest.approx(1 - (1 - share) ** 4)
    assert tracker.has_chance(2, R, unseen) > 0.5
    assert tracker.named(1) == -1


def test_constraints_add_up_and_a_drawn_card_played_leaves_them() -> None:
    """Then seat 0 plays G7; seat 1 draws G5 and plays it; seat 2 plays G2: seat 1's four
    cards lack red and green (and 5, 7 and wilds)."""
    bot = HeuristicBot(0, level="hard")
    game = _three_seat_walk(bot)
    own_play(bot, game, 0, "G7")
    game.apply(A.draw(1))
    game.apply(A.play(1, parse_card("G5")))
    game.apply(A.play(2, parse_card("G2")))
    obs = game.observation(0)
    bot.tracker.update(obs)
    both = failed_mask(parse_card("R5"), R) | failed_mask(parse_card("G7"), G)
    assert bot.tracker.slots(1) == [both] * 4
    unseen = bot.tracker.unseen(obs)
    assert bot.tracker.has_chance(1, R, unseen) == bot.tracker.has_chance(1, G, unseen) == 0.0
    assert bot.tracker.has_chance(1, B, unseen) > 0.5


def test_cards_taken_later_are_unconstrained() -> None:
    """Seat 0 plays a Draw Two on seat 1 instead: the two cards it takes may be red."""
    bot = HeuristicBot(0, level="hard")
    game = _three_seat_walk(bot)
    own_play(bot, game, 0, "R+2")
    game.apply(A.play(2, parse_card("R1")))
    assert game.current_player == 0 and len(game.hands[1]) == 6
    obs = game.observation(0)
    bot.tracker.update(obs)
    slots = bot.tracker.slots(1)
    assert sorted(slots) == [0, 0] + [failed_mask(parse_card("R5"), R)] * 4
    assert bot.tracker.lack(1, R) == pytest.approx(4 / 6)
    assert 0.0 < bot.tracker.has_chance(1, R, bot.tracker.unseen(obs)) < 0.7


def test_a_play_against_an_inference_undoes_it() -> None:
    """Seat 1 draws although it holds R1 (the rules let it); the memory takes it to lack
    red until it plays R1: then nothing is assumed about its hand."""
    bot = HeuristicBot(0, level="hard")
    game = position([cards("R5", "R6", "G7", "B8", "Y2"), cards("R1", "Y1", "Y4")], "R3",
                    ("Y9",))
    own_play(bot, game, 0, "R5")
    draw_and_keep(game, 1)
    bot.tracker.update(game.observation(0))
    assert all(lacks(mask, R) for mask in bot.tracker.slots(1))
    own_play(bot, game, 0, "R6")
    game.apply(A.play(1, parse_card("R1")))
    obs = game.observation(0)
    bot.tracker.update(obs)
    assert bot.tracker.slots(1) == [0, 0, 0]
    assert bot.tracker.has_chance(1, R, bot.tracker.unseen(obs)) > 0.3


def _named_blue(level: str) -> tuple[HeuristicBot, Game]:
    """Two players: seat 0 plays R5, seat 1 plays a wild naming blue and is down to one
    card. Seat 0 holds W, B1, B2, G3."""
    game = position([cards("R5", "W", "B1", "B2", "G3"), cards("W", "Y7")], "R3")
    bot = HeuristicBot(0, level=level, rules=game.rules)
    own_play(bot, game, 0, "R5")
    game.apply(A.play(1, parse_card("W"), color=B, uno=True))
    return bot, game


def test_a_named_colour_binds_a_card_to_it() -> None:
    bot, game = _named_blue("hard")
    obs = game.observation(0)
    bot.tracker.update(obs)
    assert bot.tracker.named(1) == B
    [slot] = bot.tracker.slots(1)
    assert slot == WILD_BIT | (1 << R) | (1 << Y) | (1 << G)  # a blue card, no other
    unseen = bot.tracker.unseen(obs)
    assert bot.tracker.has_chance(1, B, unseen) == 1.0
    assert bot.tracker.has_chance(1, G, unseen) == 0.0


def test_the_wild_leaves_the_colour_an_opponent_near_out_lacks() -> None:
    """Seat 0 plays its wild; blue is the colour it holds most, but the opponent's last
    card is blue: the card-counting level names green, the others blue."""
    for level, expected in (("hard", G), ("normal", B)):
        bot, game = _named_blue(level)
        wilds = [a for a in game.legal_actions(0) if A.action_card(a) == parse_card("W")]
        assert len(wilds) == 4
        for seed in range(5):
            twin = copy.deepcopy(bot)
            twin.reset(seed)
            twin.tracker = copy.deepcopy(bot.tracker)
            action = twin.choose(game.observation(0), wilds)
            assert action is not None and A.action_color(action) == expected, level


def test_search_deals_respect_the_memory() -> None:
    """The search bot's deals give seat 1 only cards its slots allow (no red, no 5, no
    wild), and the other hidden cards anywhere."""
    rules = Rules.preset("official", players=3)
    bot = SearchBot(0, rules=rules, iterations=4)
    game = _three_seat_walk(bot)
    obs = game.observation(0)
    bot.helper.observe(obs)
    assert bot.helper.tracker.lack(1, R) == 1.0
    pool = bot._unseen(obs)
    assert pool is not None and len(pool) == 4 + 4 + obs.draw_pile_size
    rng = random.Random(3)
    seat2_red = 0
    for _ in range(200):
        hands, pile = bot._hands(obs, pool, rng)
        assert hands[0] == list(obs.hand)
        assert [len(h) for h in hands] == list(obs.hand_sizes)
        assert Counter(hands[1] + hands[2] + pile) == Counter(pool)
        for card in hands[1]:
            assert card < WILD and COLOR_OF[card] != R and RANK_OF[card] != 5
        seat2_red += any(c < WILD and COLOR_OF[c] == R for c in hands[2])
    assert seat2_red > 50


def test_fill_slots_deals_the_last_fitting_card() -> None:
    c = parse_card
    pool = cards("R1", "G1", "Y2", "B1", "W")
    hands = [[-1, -1, -1, -1]]
    bound_green = WILD_BIT | (1 << R) | (1 << Y) | (1 << B)
    no_red = WILD_BIT | (1 << R)
    impossible = FEATURES[c("R1")] | FEATURES[c("G1")] | FEATURES[c("Y2")] | WILD_BIT \
        | (1 << B)
    fill_slots(pool, [(bound_green, 0, 0), (no_red, 0, 1), (impossible, 0, 2), (0, 0, 3)],
               hands)
    # Each card dealt is swapped with the last one before it is taken: R1 W Y2 B1 | G1,
    # then R1 W Y2 | B1; nothing fits: Y2; the free slot: W.
    assert hands[0] == [c("G1"), c("B1"), c("Y2"), c("W")]
    assert pool == [c("R1")]


# -------------------------------------------------------------- heuristic decisions
def test_skip_and_draw_two_against_a_next_player_with_one_card() -> None:
    for attack in ("RS", "R+2"):
        game = position([cards(attack, "R4", "G6", "B7"), cards("Y1"),
                         cards("Y7", "Y8", "Y9", "B1")], "R3")
        for level in ("normal", "hard"):
            for seed in range(3):
                bot = HeuristicBot(seed, level=level, rules=game.rules)
                action = bot.choose(game.observation(0), game.legal_actions(0))
                assert action == A.play(0, parse_card(attack)), (attack, level)


def test_the_attack_is_worth_more_the_closer_the_next_player_is_to_going_out() -> None:
    gaps = []
    for size in (1, 2, 4, 7):
        game = position([cards("RS", "R9", "R4", "G6"), cards(*["Y1", "Y2", "Y3", "Y4", "Y5",
                                                                 "Y6", "Y7"][:size]),
                         cards("B7", "B8", "B9")], "R3")
        bot = HeuristicBot(0, level="normal", rules=game.rules)
        view = bot._view(game.observation(0))
        gaps.append(bot.score(view, A.play(0, parse_card("RS")))
                    - bot.score(view, A.play(0, parse_card("R9"))))
    assert gaps == sorted(gaps, reverse=True) and gaps[0] > gaps[-1] + 0.5


def test_challenge_follows_the_memory() -> None:
    """Seat 0 drew on red, then drew a Wild Draw Four on red and played it. The level
    that counts cards knows it held no red: no challenge; the others challenge a Wild
    Draw Four from a hand of ten."""
    game = position([cards("Y1", "Y2", "Y3", "Y4", "B3", "B4", "G3", "G4", "Y7"),
                     cards("R5", "R6", "G1", "G2", "B1", "B2")], "R9", ("Y9", "W+4"),
                    current=1)
    hard = HeuristicBot(0, level="hard", rules=game.rules)
    own_play(hard, game, 1, "R5")
    draw_and_keep(game, 0)
    own_play(hard, game, 1, "R6")
    game.apply(A.draw(0))
    game.apply(A.play(0, parse_card("W+4"), color=Y))
    assert game.phase.value == "challenge" and len(game.hands[0]) == 10
    obs = game.observation(1)
    legal = game.legal_actions(1)
    assert hard.choose(obs, legal) == A.draw(1)
    assert hard.tracker.color_under_top(obs) == R
    assert hard.tracker.has_chance(0, R, hard.tracker.unseen(obs)) == 0.0
    assert HeuristicBot(0, level="normal", rules=game.rules).choose(obs, legal) \
        == A.challenge(1)
    assert HeuristicBot(0, level="hard", rules=game.rules).choose(obs, legal) \
        == A.challenge(1)  # the same level without the memory of the walk


@pytest.mark.parametrize(("accused", "expected"), [
    (1, {"aggressive": "challenge", "balanced": "draw", "cautious": "draw"}),
    (2, {"aggressive": "challenge", "balanced": "challenge", "cautious": "draw"}),
])
def test_personalities_challenge_with_their_margins(accused: int,
                                                    expected: dict[str, str]) -> None:
    hand = cards("W+4", "B1", "B2")[:accused + 1]
    game = position([hand, cards("Y1", "Y2", "G3")], "R3")
    game.apply(A.play(0, parse_card("W+4"), color=Y, uno=accused == 1))
    assert game.phase.value == "challenge"
    legal = game.legal_actions(1)
    for personality, answer in expected.items():
        bot = HeuristicBot(0, level="normal", personality=personality, rules=game.rules)
        want = A.challenge(1) if answer == "challenge" else A.draw(1)
        assert bot.choose(game.observation(1), legal) == want, personality


def test_only_the_aggressive_bluff_a_wild_draw_four() -> None:
    """Holding red, with a Wild Draw Four and an opponent on one card."""
    game = position([cards("W+4", "R4", "G6", "G7", "B7"), cards("Y1")], "R3")
    legal = game.legal_actions(0)
    for level in ("normal", "hard"):
        for personality in ("cautious", "balanced", "aggressive"):
            chosen = {HeuristicBot(seed, level=level, personality=personality,
                                   rules=game.rules).choose(game.observation(0), legal)
                      for seed in range(8)}
            bluffs = {a for a in chosen if a is not None
                      and A.action_card(a) == parse_card("W+4")}
            if personality == "aggressive":
                assert chosen == bluffs, level
            else:
                assert not bluffs and chosen == {A.play(0, parse_card("R4"))}, personality


def test_cautious_keeps_wilds_harder_than_aggressive() -> None:
    game = position([cards("W", "R4", "G6", "G7", "G8"), cards("Y1", "Y2", "Y3", "Y4")], "R3")
    gaps = {}
    for personality in ("cautious", "balanced", "aggressive"):
        bot = HeuristicBot(0, level="normal", personality=personality, rules=game.rules)
        view = bot._view(game.observation(0))
        wild = max(bot.score(view, A.play(0, parse_card("W"), color=color)) for color in range(4))
        gaps[personality] = bot.score(view, A.play(0, parse_card("R4"))) - wild
    assert gaps["cautious"] > gaps["balanced"] + 1.0 > gaps["aggressive"] + 2.0
    assert gaps["balanced"] > 0  # R4 before the wild
    # With no other play the wild is played by all of them.
    game = position([cards("W", "G6", "G7", "G8"), cards("Y1", "Y2", "Y3", "Y4")], "R3")
    for personality in ("cautious", "balanced", "aggressive"):
        bot = HeuristicBot(0, level="normal", personality=personality, rules=game.rules)
        action = bot.choose(game.observation(0), game.legal_actions(0))
        assert action == A.play(0, parse_card("W"), color=G), personality


def test_chaotic_varies_where_the_others_agree() -> None:
    game = position([cards("W", "R4", "G6", "G7", "G8"), cards("Y1", "Y2", "Y3", "Y4")], "R3")
    legal = game.legal_actions(0)
    for personality, low, high in (("balanced", 1, 1), ("cautious", 1, 1), ("chaotic", 3, 99)):
        chosen = [HeuristicBot(seed, level="normal", personality=personality,
                               rules=game.rules).choose(game.observation(0), legal)
                  for seed in range(30)]
        assert low <= len(set(chosen)) <= high, personality
        assert A.play(0, parse_card("R4")) in chosen
    again = [HeuristicBot(seed, level="normal", personality="chaotic", rules=game.rules)
             .choose(game.observation(0), legal) for seed in range(30)]
    assert again == chosen  # noise, but seeded


# --------------------------------------------------------------------- search bot
def test_candidates() -> None:
    game = position([cards("W", "R4", "R5", "G3", "Y3", "B7"), cards("Y1", "Y2")], "R3")
    obs, legal = game.observation(0), game.legal_actions(0)
    shown = {k: SearchBot(0, rules=game.rules, candidates=k)._candidates(obs, legal)
             for k in (1, 2, 4, 6)}
    assert [len(shown[k]) for k in (1, 2, 4, 6)] == [1, 2, 4, 9]
    for k in (2, 4):
        assert shown[6][:k] == shown[k]  # best first, the same order
    wild = [a for a in shown[6] if A.action_card(a) == parse_card("W")]
    assert sorted(A.action_color(a) for a in wild) == [R, Y, G, B]
    assert A.draw(0) in shown[6] and all(a in legal for a in shown[6])
    assert A.play(0, parse_card("B7")) not in shown[6]  # does not match
    # Down to two cards: every candidate play calls UNO.
    game = position([cards("R4", "R5"), cards("Y1", "Y2")], "R3")
    found = SearchBot(0, rules=game.rules)._candidates(game.observation(0),
                                                       game.legal_actions(0))
    plays = [a for a in found if A.action_type(a) == A.PLAY]
    assert len(plays) == 2 and all(a & A.UNO_FLAG for a in plays)


def test_search_ignores_the_hidden_cards_of_a_constructed_position() -> None:
    """Two deals that differ only in the opponents' hands and the draw pile: the same
    seed makes the same decision (and the same deals of its own)."""
    rules = Rules.preset("official", players=3)
    mine = cards("R4", "R5", "G3", "W", "B7")
    decisions = []
    for variant in range(3):
        rest = list(rules.deck_cards())
        for card in [*mine, parse_card("R3")]:
            rest.remove(card)
        random.Random(variant).shuffle(rest)
        hands = [mine, rest[:4], rest[4:6]]
        game = Game.from_setup(rules, hands=hands, draw_pile=rest[6:],
                               discard=cards("R3"), current_player=0)
        bot = SearchBot(8, rules=rules, iterations=60)
        decisions.append(bot.choose(game.observation(0), game.legal_actions(0)))
        assert bot.searched == 1
    assert decisions[0] is not None and decisions.count(decisions[0]) == 3


@pytest.mark.parametrize("seed", range(4))
def test_search_answers_every_seat_at_random_moments(seed: int) -> None:
    """At random positions of random play under random rule sets (two to four players),
    the search bot answers any seat legally (None only when the seat need not act)."""
    rng = random.Random(1000 + seed)
    rules = draw_rules(rng)
    while rules.players > 4:
        rules = draw_rules(rng)
    game = Game(rules, seed)
    bot = Checked(SearchBot(seed, rules=rules, iterations=3))
    for _ in range(40):
        if game.is_over():
            break
        for seat in range(game.n):
            legal = game.legal_actions(seat)
            if legal:
                bot.choose(game.observation(seat), legal)
        actors = [s for s in range(game.n) if game.legal_actions(s)]
        seat = game.current_player
        if seat is None or not game.legal_actions(seat):
            seat = actors[0]
        game.apply(rng.choice(game.legal_actions(seat)))
    assert bot.calls > 20


def _memory_spot(players: int, rules: Rules) -> tuple[Plain, Position, list[int]]:
    """A position with slots: seat 1 lacks red and wilds, seat 2 (if any) is bound to
    one green card; seat 0's partner hand is known where there are teams."""
    plain = Plain.of(rules)
    assert plain is not None
    game = Game(rules, players * 7)
    hands = game.hands
    me = 0
    team = [s % 2 == 0 for s in range(players)] if rules.teams == "pairs" else \
        [s == 0 for s in range(players)]
    known: list[list[int] | None] = [list(hands[0])] + [None] * (players - 1)
    if rules.teams == "pairs":
        known[2] = list(hands[2])
    hidden = [c for s in range(players) if known[s] is None for c in hands[s]]
    slots: list[list[int]] = [[] for _ in range(players)]
    slots[1] = [WILD_BIT | (1 << R)] * len(hands[1])
    if players > 2 and known[2] is None:
        slots[2] = [WILD_BIT | (1 << R) | (1 << Y) | (1 << B)] + [0] * (len(hands[2]) - 1)
    spot = Position(pool=sorted(hidden + game.draw_pile), sizes=[len(h) for h in hands],
                    known=known, slots=slots, discard=list(game.discard), color=game.color,
                    direction=game.direction, seat=me, team=team)
    hand = hands[me]
    firsts = [c if c < WILD else c | (G << 8) for c in sorted(set(hand))[:3]] + [-1]
    return plain, spot, firsts


@pytest.mark.skipif(compiled() is None, reason="numba is not installed")
@pytest.mark.parametrize(("text", "players", "policy"), [
    ("official", 3, 0),
    ("official,wild_draw_four=strict,draw=until_playable", 2, 1),
    ("official,challenge_guilty_takes_back=true,challenge_innocent_draw=2,play_drawn=never",
     3, 3),
    ("official,teams=pairs,two_player_reverse_skips=false", 4, 2),
])
def test_compiled_and_plain_search_stats_agree(text: str, players: int, policy: int) -> None:
    rules = Rules.load(text).with_(players=players)
    plain, spot, firsts = _memory_spot(players, rules)
    for seed, rate in ((1, 0.5), (2, 1.0)):
        fast = search_stats(plain, spot, firsts, 30, seed, rate=rate, policy=policy)
        slow = search_stats(plain, spot, firsts, 30, seed, rate=rate, policy=policy,
                            use_compiled=False)
        assert fast == slow
        wins, squares = fast
        assert all(0.0 <= w <= 30.0 for w in wins)
        assert squares[0] == 0.0  # the first move against itself
        # Paired outcomes are 0, 0.5 or 1: a squared difference is at most 1 per deal.
        assert all(0.0 <= s <= 30.0 for s in squares)
        assert any(s > 0 for s in squares[1:]) or len(set(wins)) == 1


def test_the_memory_keeps_the_colour_the_bot_named_under_a_wild_draw_four() -> None:
    """Seat 1 (the bot) plays B5; seat 0 draws on blue and keeps the card; the bot plays a
    wild naming blue; seat 0 draws again and plays the drawn Wild Draw Four straight onto
    it. The colour under the Wild Draw Four is the one the bot named, and seat 0 drew on
    it: no challenge."""
    game = position([cards("Y1", "Y2", "Y3", "Y4", "G3", "G4", "R7"),
                     cards("B5", "W", "G1", "G2", "R1", "R2")], "B9", ("Y9", "W+4"),
                    current=1)
    hard = HeuristicBot(0, level="hard", rules=game.rules)
    own_play(hard, game, 1, "B5")
    draw_and_keep(game, 0)
    action = hard.choose(game.observation(1), [A.play(1, parse_card("W"), color=B)])
    game.apply(action)
    game.apply(A.draw(0))
    assert game.phase.value == "drawn"
    game.apply(A.play(0, parse_card("W+4"), color=Y))
    assert game.phase.value == "challenge"
    obs = game.observation(1)
    assert hard.tracker.color_under_top(obs) == B
    assert hard.choose(obs, game.legal_actions(1)) == A.draw(1)
