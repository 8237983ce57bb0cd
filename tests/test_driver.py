"""The table driver (:mod:`unokit.engine.driver`): who is asked to act, in which order,
and the seats that hold after acting out of turn.

- the seats that hold after acting out of turn, until the turn moves on;
- asking one seat at a time (:meth:`Driver.ask`) follows :meth:`Driver.seats_to_ask`, under
  rule sets with every kind of out-of-turn action;
- bot matches (:func:`unokit.bots.play`) and terminal sessions keep their asking order
  (pinned histories of random matches);
- the compiled copy of the PettingZoo environment (:mod:`unokit.rl._sim_kernel`) has, at
  every step, the lead, queue of windows and holding seats of the engine driver;
- the errors of bot specs and bot matches.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

import pytest

from unokit.bots import BotError, BotSpecError, RandomBot, make_bot, parse_bot_spec, play
from unokit.engine import actions as A
from unokit.engine.cards import parse_card
from unokit.engine.driver import Choose, Driver, asking_order, lead_seat
from unokit.engine.errors import IllegalActionError, UnoError
from unokit.engine.game import Game
from unokit.engine.observation import Observation
from unokit.engine.rules import Rules


def cards(text: str) -> list[int]:
    return [parse_card(code) for code in text.split()]


def late_call() -> Game:
    """Seat 1 has just played down to one card without calling UNO; seat 2 is to move."""
    game = Game.from_setup("official,players=3", hands=[cards("R1 R2"), cards("R5 R6"),
                                                        cards("B1 B2")],
                           draw_pile=cards("Y1 Y2 Y3 Y4"), discard=cards("R3"),
                           current_player=1)
    game.apply(A.parse_action("1:R5"))
    return game


def own_jump_in() -> Driver:
    """Seat 0 plays R5 and jumps in on it with its second R5: seat 1 is to move again.
    (False catches give every seat something to do out of turn at any moment.)"""
    game = Game.from_setup("jump_in,players=3,false_catch_penalty=2",
                           hands=[cards("R5 R5 G1 G2"), cards("B1 B2"), cards("Y1 Y2")],
                           draw_pile=cards("Y3 Y4 Y5 Y6"), discard=cards("R3"),
                           current_player=0)
    driver = Driver(game)
    driver.apply(A.parse_action("0:R5"))
    assert game.current == 1 and 0 in driver.windows()
    driver.apply(A.parse_action("0:R5"))
    assert game.current == 1
    return driver


# ------------------------------------------------------------------ the rules
def test_order_lead_last_and_a_late_call_holds_until_the_lead_acts() -> None:
    game = late_call()
    driver = Driver(game)
    assert asking_order(game) == ([0, 1], 2) and driver.lead() == lead_seat(game) == 2
    assert driver.seats_to_ask() == [0, 1, 2]
    driver.apply(A.call_uno(1))
    assert driver.held == {1}
    assert driver.seats_to_ask() == [2]  # seat 0 has nothing to catch any more
    driver.apply(A.draw(2))
    assert driver.held == set()


def test_a_catch_holds_the_catcher() -> None:
    driver = Driver(late_call())
    driver.apply(A.catch(0, 1))
    assert driver.held == {0}
    assert 0 not in driver.seats_to_ask()


def test_a_jump_in_that_leaves_the_turn_where_it_was_holds_until_the_lead_acts() -> None:
    driver = own_jump_in()
    assert driver.held == {0} and 0 not in driver.windows()
    driver.apply(driver.game.legal_actions(1)[0])  # the lead acts
    assert driver.held == set()


def test_record_after_an_outside_apply_is_apply() -> None:
    inside, outside = Driver(late_call()), Driver(late_call())
    for action in (A.call_uno(1), A.draw(2)):
        inside.apply(action)
        outside.game.apply(action)
        outside.record(action)
        assert inside.held == outside.held


def test_an_illegal_action_changes_no_hold_and_copies_are_independent() -> None:
    driver = Driver(late_call())
    driver.apply(A.call_uno(1))
    twin = driver.copy()
    with pytest.raises(IllegalActionError):
        driver.apply(A.call_uno(0))
    assert driver.held == {1}
    twin.held.add(0)
    assert driver.held == {1}
    driver.reset()
    assert driver.held == set() and twin.held == {0, 1}


def test_nobody_is_asked_once_the_match_is_over() -> None:
    game = Game("official,players=2,rounds=1", seed=3)
    list(play(game, [RandomBot(1), RandomBot(2)]))
    driver = Driver(game)
    assert game.is_over() and driver.seats_to_ask() == [] and driver.windows() == []
    assert driver.ask(lambda seat, legal, must: legal[0]) is None


def test_ask_returns_none_when_the_lead_declines() -> None:
    driver = Driver(late_call())
    asked: list[tuple[int, bool]] = []

    def decline(seat: int, legal: list[int], must: bool) -> int | None:
        asked.append((seat, must))
        return None

    assert driver.ask(decline) is None
    assert asked == [(0, False), (1, False), (2, True)]


OUT_OF_TURN = [
    "jump_in,players=3,rounds=1",
    "party,players=4,rounds=1",
    "official,players=3,rounds=1,silence=twos,uno_slap=true,false_catch_penalty=2",
    "official,players=4,rounds=1,five_exchange=true,multi_play=same_number,"
    "skip_on_skip=any,silence=wilds,jump_in=true",
    "classic_ru,players=4,rounds=2",
    "pairs,rounds=2",
]
"""Rule sets with out-of-turn actions of every kind: jump-ins, speech under silence, UNO
calls, catches (false ones too), slaps, Skips passed on, the exchange, teams, next rounds."""


def _drivers(game: Game) -> list[Driver]:
    drivers = [Driver(game)]
    try:
        from unokit.rl.pettingzoo_env import WindowRule
    except ImportError:
        return drivers
    return [*drivers, *(WindowRule(game.rules, windows).driver(game)
                        for windows in ("all", "useful", "none"))]


def _chooser(asked: list[int], lead: int, rng: random.Random) -> Choose:
    """Answers for the seats at random (the lead always answers), noting who was asked."""

    def choose(seat: int, legal: list[int], must: bool) -> int | None:
        asked.append(seat)
        assert must == (seat == lead)
        if must or (legal and rng.random() < 0.4):
            return rng.choice(legal)
        return None

    return choose


@pytest.mark.parametrize("rules_text", OUT_OF_TURN)
def test_asking_one_seat_at_a_time_follows_seats_to_ask(rules_text: str) -> None:
    rules = Rules.from_string(rules_text)
    for index in range(len(_drivers(Game(rules, 0)))):
        rng = random.Random(index)
        game = Game(rules, seed=rng.randrange(2**32))
        driver = _drivers(game)[index]
        for _ in range(400):
            if game.is_over():
                break
            order = driver.seats_to_ask()
            lead = driver.lead()
            assert order[-1] == lead and lead not in order[:-1]
            assert not driver.held & set(order[:-1])
            assert game.legal_actions(lead), "the lead always has something to do"
            asked: list[int] = []
            answer = driver.ask(_chooser(asked, lead, rng))
            assert answer is not None and asked == order[:len(asked)]
            seat, action = answer
            assert seat == asked[-1] and A.action_player(action) == seat
            driver.apply(action)


@pytest.mark.parametrize("rules_text", OUT_OF_TURN)
def test_asks_any_is_whether_seats_to_ask_holds_one_of_the_seats(rules_text: str) -> None:
    """``asks_any(seats)`` (what a room asks to see whether a bot is due) agrees with
    :meth:`Driver.seats_to_ask` for every set of seats, at every step of matches with
    out-of-turn actions, holds and every kind of window."""
    rules = Rules.from_string(rules_text)
    for index in range(len(_drivers(Game(rules, 0)))):
        rng = random.Random(1000 + index)
        game = Game(rules, seed=rng.randrange(2**32))
        driver = _drivers(game)[index]
        subsets = [frozenset(s for s in range(game.n) if mask >> s & 1)
                   for mask in range(1 << game.n)]
        for _ in range(300):
            order = set(driver.seats_to_ask())
            for seats in subsets:
                assert driver.asks_any(seats) == bool(order & seats), (seats, order)
            if game.is_over():
                break
            lead = driver.lead()
            answer = driver.ask(_chooser([], lead, rng))
            assert answer is not None
            driver.apply(answer[1])
        assert not driver.asks_any(frozenset(range(game.n))) or not game.is_over()


# ------------------------------------------------------- bots and the terminal
BOT_PINS: list[tuple[str, int, int, str]] = [
    # (rules, seed, actions, digest of the history) of random bots' matches.
    ("jump_in,players=3,rounds=1", 1, 669, "5443b551f2b57ea4"),
    ("party,players=4,rounds=1", 2, 39615, "b7cf417ab1a179c9"),
    ("official,players=3,rounds=1,silence=twos,uno_slap=true,false_catch_penalty=2", 3, 613,
     "ce79be5d20924fc2"),
    ("official,players=4,rounds=1,five_exchange=true,multi_play=same_number,"
     "skip_on_skip=any,silence=wilds,jump_in=true", 4, 238, "c6fd74ecb443d8bb"),
    ("pairs,rounds=2", 5, 3246, "d4b59a935c125b7a"),
    ("classic_ru,players=2,rounds=2", 6, 154, "e496c5e4e319eed3"),
]
SESSION_PINS: list[tuple[str, int, int, str]] = [
    ("jump_in,players=3,rounds=1", 1, 63, "20991756e9baaf78"),
    ("official,players=3,rounds=1,silence=twos,uno_slap=true,false_catch_penalty=2", 3, 3145,
     "a4bc2584f1ec4b53"),
    ("pairs,rounds=2", 5, 659, "f17ace7d5a0ae37b"),
    ("classic_ru,players=2,rounds=2", 6, 237, "90ea5f71ceec70e0"),
]


def _digest(history: Sequence[int]) -> str:
    return hashlib.sha256(",".join(map(str, history)).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("rules_text", "seed", "length", "digest"), BOT_PINS)
def test_bot_matches_keep_their_asking_order(rules_text: str, seed: int, length: int,
                                   digest: str) -> None:
    rules = Rules.from_string(rules_text)
    game = Game(rules, seed)
    list(play(game, [RandomBot(seed * 16 + seat) for seat in range(rules.players)]))
    assert (len(game.history), _digest(game.history)) == (length, digest)


@pytest.mark.parametrize(("rules_text", "seed", "length", "digest"), SESSION_PINS)
def test_terminal_sessions_keep_their_asking_order(rules_text: str, seed: int, length: int,
                                         digest: str) -> None:
    from unokit.tui.session import Session

    rules = Rules.from_string(rules_text)
    game = Game(rules, seed)
    session = Session.for_game(game, ["random"] * (rules.players - 1))
    rng = random.Random(seed)  # the human: acts out of turn now and then, else when awaited
    while not game.is_over():
        legal = session.legal()
        if legal and rng.random() < 0.1:
            session.apply(rng.choice(legal))
            continue
        move = session.next_move()
        session.apply(rng.choice(legal) if move is None else move.action)
    assert not session.problems
    assert (len(game.history), _digest(game.history)) == (length, digest)


# ---------------------------------------------------------- the compiled copy
KERNEL_CASES = [
    ("official,rounds=2", 3, "all"),
    ("official,rounds=1", 2, "useful"),
    ("classic_ru,rounds=2", 4, "all"),  # a Skip passed on, same colour
    ("official,skip_on_skip=any,uno_self_catch=false,rounds=1", 5, "useful"),
    ("official,skip_on_skip=any,rounds=1", 2, "all"),
    ("seven_o,rounds=1", 4, "all"),
    ("stacking,rounds=1", 6, "none"),
]
"""Rule sets the simulator plays, with UNO calls, catches and Skips passed on (it refuses
jump-ins and silence: their order is checked on the engine driver alone, above)."""


@pytest.mark.parametrize(("rules_text", "players", "windows"), KERNEL_CASES)
def test_the_compiled_asking_order_is_the_engine_drivers(rules_text: str, players: int,
                                                         windows: str) -> None:
    pytest.importorskip("pettingzoo")
    pytest.importorskip("numba")
    from unokit.rl import _sim_kernel as EK
    from unokit.rl.pettingzoo_env import WindowRule, raw_env

    rules = Rules.from_string(rules_text).with_(players=players)
    sim = raw_env(rules=rules, windows=windows, backend="sim")
    assert sim.backend == "sim"
    rng = random.Random(players)
    acted_out_of_turn = 0
    for _episode in range(2):
        seed = rng.randrange(2**32)
        sim.reset(seed=seed)
        game = Game(rules, seed)
        driver = WindowRule(rules, windows).driver(game)
        position = 0  # windows passed since the last action
        for _ in range(1500):
            e = sim._e
            if game.is_over():
                assert e[EK.E_DONE] == 1
                break
            queue, lead = driver.windows(), driver.lead()
            assert int(e[EK.E_LEAD]) == lead
            assert {s for s in range(players) if int(e[EK.E_SPOKE]) >> s & 1} == driver.held
            if position < len(queue):
                assert [int(s) for s in e[EK.E_QUEUE: EK.E_QUEUE + e[EK.E_QLEN]]] == queue
                assert int(e[EK.E_QPOS]) == position
                seat = queue[position]
            else:
                assert e[EK.E_QLEN] == 0
                seat = lead
            assert sim.agent_selection == f"player_{seat}"
            assert sim.in_window == (seat != lead)
            legal = game.legal_actions(seat)
            if seat != lead and (not legal or rng.random() < 0.5):
                sim.step_engine(None)
                position += 1
                continue
            action = rng.choice(legal)
            acted_out_of_turn += seat != lead
            sim.step_engine(action)
            driver.apply(action)
            position = 0
        assert sim.history == game.history
    assert (acted_out_of_turn > 0) == (windows != "none")


def test_the_simulator_refuses_jump_ins_and_silence() -> None:
    pytest.importorskip("pettingzoo")
    from unokit.engine.errors import RulesError
    from unokit.rl.pettingzoo_env import resolve_backend

    for rules_text in ("jump_in", "official,silence=twos", "official,uno_slap=true"):
        with pytest.raises(RulesError):
            resolve_backend("sim", Rules.from_string(rules_text))


# ---------------------------------------------------------------------- errors
def test_bot_specs_raise_bot_spec_errors() -> None:
    rules = Rules.preset("official")
    for spec, options in (("clever", {}), ("hard:sleepy", {}), ("search:x", {}),
                          ("random:fast", {}), ("random", {"speed": 2}),
                          ("hard", {"wings": 2}), ("search", {"iterations": 0}),
                          ("normal", {"personality": "grumpy"})):
        with pytest.raises(BotSpecError) as caught:
            make_bot(spec, rules=rules, **options)
        assert isinstance(caught.value, UnoError) and "\n" not in str(caught.value)
    with pytest.raises(BotSpecError, match="rules"):
        make_bot("search")
    with pytest.raises(BotSpecError, match="unknown bot 'nobody'"):
        parse_bot_spec("nobody")


class _Silent:
    name = "silent"

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        return None


class _Cheater:
    name = "cheater"

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int | None:
        return A.next_round(observation.seat)


def test_bot_errors_name_the_seat_and_pose_as_no_illegal_action() -> None:
    game = Game("official,players=2", 1)
    with pytest.raises(BotError) as caught:
        list(play(game, [_Silent(), _Silent()]))
    error = caught.value
    assert not isinstance(error, IllegalActionError) and isinstance(error, UnoError)
    lead = game.current
    assert (error.seat, error.action) == (lead, None)
    assert str(error) == f"seat {lead}: the silent bot returned no action on its turn"
    with pytest.raises(BotError) as caught:
        list(play(Game("official,players=2", 1), [_Cheater(), _Cheater()]))
    error = caught.value
    assert error.action == A.next_round(error.seat or 0)
    assert str(error) == (f"seat {error.seat}: the cheater bot chose "
                          f"{A.format_action(A.next_round(error.seat or 0))}, which is not "
                          "legal now")
    with pytest.raises(BotError, match="not over after 3 actions") as caught:
        list(play(Game("official,players=2", 1), [RandomBot(1), RandomBot(2)], max_actions=3))
    assert caught.value.seat is None
