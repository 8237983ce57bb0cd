"""The pieces of the server's bots off the loop, on their own: bot specs (the parser and
the server's allow-list), the search bot's deadline, the budget of the thread pool, a
decision made in a worker process (the same as in the server's own), and the settings.
No test waits a fixed time; the search's clock is a fake one."""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from unokit import Game, Rules
from unokit.bots import BotSpecError, make_bot, parse_bot_spec
from unokit.bots import search as search_module
from unokit.bots.search import CHUNK, SearchBot
from unokit.engine.driver import Driver
from unokit.engine.observation import Observation
from unokit.server.bot_pool import Ask, ProcessBotPool, ThreadBotPool, cheap_decision, decide
from unokit.server.bot_specs import check_bot_spec, clamp_bot_spec
from unokit.server.seating import RoomError
from unokit.server.settings import Settings, SettingsError

RULES = Rules.preset("official", players=4)


# ---------------------------------------------------------------- specs
@pytest.mark.parametrize("spec", ["search:\u00b2", "search:\u0661\u0662", "search:" + "9" * 5000,
                                  "search:1234567890", "search:+5", "search: 1_000"])
def test_the_parser_refuses_odd_iteration_counts_with_its_own_error(spec: str) -> None:
    with pytest.raises(BotSpecError):
        parse_bot_spec(spec)
    with pytest.raises(BotSpecError):
        make_bot(spec, rules=RULES)


def test_the_parser_still_reads_plain_counts() -> None:
    assert parse_bot_spec("search:999999999") == ("search", {"iterations": 999_999_999})
    assert parse_bot_spec(" Search : 12 ") == ("search", {"iterations": 12})


@pytest.mark.parametrize("spec", ["search:6001", "search:\u00b2", "search:0", "hard:angry",
                                  "expert:6001", "expert:aggressive",
                                  "playfirst:3", "alien", "x" * 41, 3, None, ["easy"]])
def test_the_allow_list_refuses_with_bad_request(spec: Any) -> None:
    with pytest.raises(RoomError) as refused:
        check_bot_spec(spec, max_iterations=6000)
    assert refused.value.code == "bad_request"


@pytest.mark.parametrize("spec, canonical", [
    ("easy", "easy"), ("Normal:Cautious", "normal:cautious"), ("hard:aggressive",
                                                                "hard:aggressive"),
    ("random", "random"), ("PlayFirst", "playfirst"), ("search", "search"),
    ("search:6000", "search:6000"), (" search : 10 ", "search:10"), ("Expert", "expert"),
    ("expert:6000", "expert:6000")])
def test_the_allow_list_takes_the_levels_and_a_capped_search(spec: str,
                                                             canonical: str) -> None:
    assert check_bot_spec(spec, max_iterations=6000) == canonical


@pytest.mark.parametrize("stored, played", [
    ("search:5000000", "search:6000"), ("search:" + "9" * 3900, "normal"),
    ("search:\u00b2", "normal"), ("gone-bot", "normal"), ("Hard:Cautious", "hard:cautious"),
    ("search", "search"), ("expert:7000", "expert:6000")])
def test_a_stored_spec_is_clamped_never_refused(stored: str, played: str) -> None:
    assert clamp_bot_spec(stored, max_iterations=6000) == played


# ---------------------------------------------------------------- the search's deadline
def search_turn(seed: int = 5) -> tuple[Observation, list[int]]:
    """A position where the search bot searches (its turn, several candidates)."""
    game = Game(RULES, seed=seed)
    driver = Driver(game)
    for _ in range(400):
        seat = game.current_player
        legal = game.legal_actions(seat)
        obs = game.observation(seat)
        bot = SearchBot(1, rules=RULES, iterations=10)
        if obs.phase == "play" and len(bot._candidates(obs, legal)) > 2:
            return obs, legal
        driver.apply(legal[0])
    raise AssertionError("no position to search")


class FakeClock:
    """``time.monotonic`` for the search: one second more at every look."""

    def __init__(self) -> None:
        self.now = itertools.count()

    def monotonic(self) -> float:
        return float(next(self.now))


def test_a_deadline_stops_a_huge_search_after_the_chunks_that_fit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = search_module.search_stats

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[3])
        return real(*args, **kwargs)

    clock = FakeClock()
    monkeypatch.setattr(search_module, "search_stats", counted)
    monkeypatch.setattr(search_module.time, "monotonic", clock.monotonic)
    obs, legal = search_turn()
    bot = SearchBot(1, rules=RULES, iterations=10**9)
    bot.deadline = 3.5  # the clock reads 0, 1, 2, 3 (a chunk after each), then 4
    choice = bot.choose(obs, legal)
    assert choice in legal
    assert calls == [CHUNK] * 4
    assert bot.searched == 1


def test_a_deadline_already_past_plays_the_heuristics_move(
        monkeypatch: pytest.MonkeyPatch) -> None:
    obs, legal = search_turn()
    late = SearchBot(1, rules=RULES, iterations=500)
    late.deadline = 0.0  # long past
    calls: list[int] = []
    monkeypatch.setattr(search_module, "search_stats",
                        lambda *a, **k: calls.append(1))  # never called
    choice = late.choose(obs, legal)
    helper = SearchBot(1, rules=RULES, iterations=500).helper
    helper.observe(obs)
    assert calls == [] and late.searched == 0
    assert choice == helper._choose(obs, list(legal))


def test_a_search_the_deadline_does_not_cut_chooses_the_same_every_time() -> None:
    obs, legal = search_turn()
    first, second = (SearchBot(9, rules=RULES, iterations=400) for _ in range(2))
    first.deadline = second.deadline = float("inf")
    assert first.choose(obs, legal) == second.choose(obs, legal)
    # one draw of the bot's generator per decision, cut short or not: later choices
    # do not depend on the machine's speed
    cut = SearchBot(9, rules=RULES, iterations=400)
    cut.deadline = 0.0
    cut.choose(obs, legal)
    assert cut.rng.getstate() == first.rng.getstate()


# ---------------------------------------------------------------- the pools
def asks_of(game: Game, seats: Sequence[int]) -> list[Ask]:
    return [Ask(seat, game.observation(seat), tuple(game.legal_actions(seat)),
                seat == game.current_player) for seat in seats]


class Blocked:
    """A bot that waits on ``release`` (a thread of the pool stays busy until then)."""

    name = "blocked"

    def __init__(self) -> None:
        self.release = threading.Event()

    def choose(self, observation: Observation, legal: Sequence[int]) -> int | None:
        self.release.wait()
        return legal[-1]


def test_the_thread_pool_plays_the_cheap_move_past_the_budget() -> None:
    game = Game(RULES, seed=4)
    seat = game.current_player
    asks = asks_of(game, [seat])
    bot = Blocked()

    async def run() -> Any:
        pool = ThreadBotPool(0.05)
        try:
            return await pool.decide({seat: bot}, asks, 11), pool
        finally:
            bot.release.set()
            await pool.close()

    decision, pool = asyncio.run(run())
    assert decision.fallback == "late" and pool.fallbacks["late"] == 1
    assert decision.bots is None  # the thread still held the bot: the room makes a new one
    assert (decision.seat, decision.action) == cheap_decision(asks, 11)


def test_a_decision_in_a_worker_process_is_the_one_made_here() -> None:
    game = Game(RULES, seed=8)
    driver = Driver(game)
    here = {s: make_bot(spec, 100 + s, rules=RULES)
            for s, spec in enumerate(["normal", "search:300", "hard:aggressive", "easy"])}
    there = {s: make_bot(spec, 100 + s, rules=RULES)
             for s, spec in enumerate(["normal", "search:300", "hard:aggressive", "easy"])}

    async def run() -> list[tuple[Any, Any]]:
        # a budget no decision reaches, however slowly the nice worker runs beside the
        # other tests: this test is about what is decided, not how soon
        pool = ProcessBotPool(600.0, 1)
        pairs = []
        try:
            for _ in range(12):
                order = [s for s in driver.seats_to_ask()]
                asks = asks_of(game, order)
                asked = {a.seat: there[a.seat] for a in asks}
                decision = await pool.decide(asked, asks, 0)
                assert decision.fallback is None, decision.fallback
                assert decision.bots is not None
                there.update(decision.bots)  # what the bots learnt comes back
                local = decide({a.seat: here[a.seat] for a in asks}, asks, float("inf"))
                pairs.append((local, (decision.seat, decision.action)))
                assert decision.action is not None
                driver.apply(decision.action)
        finally:
            await pool.close()
        return pairs

    pairs = asyncio.run(run())
    assert all(local == remote for local, remote in pairs), pairs


# ---------------------------------------------------------------- settings
@pytest.mark.parametrize("name, value", [("UNOKIT_BOT_BUDGET", "nan"),
                                         ("UNOKIT_BOT_BUDGET", "0"),
                                         ("UNOKIT_BOT_BUDGET", "inf"),
                                         ("UNOKIT_BOT_WORKERS", "-1"),
                                         ("UNOKIT_BOT_WORKERS", "65"),
                                         ("UNOKIT_BOT_MAX_ITERATIONS", "0"),
                                         ("UNOKIT_BOT_MAX_ITERATIONS", "many")])
def test_bot_settings_out_of_range_are_refused(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_bot_settings_have_their_defaults() -> None:
    settings = Settings.from_env({})
    assert (settings.bot_budget, settings.bot_max_iterations) == (0.2, 6000)
    assert 1 <= settings.bot_workers <= 2
    assert Settings.from_env({"UNOKIT_BOT_WORKERS": "0"}).bot_workers == 0


@pytest.mark.parametrize(("cpus", "workers"), [(None, 1), (1, 1), (2, 1), (3, 2), (64, 2)])
def test_the_default_bot_workers_leave_a_cpu_to_the_event_loop(
        monkeypatch: pytest.MonkeyPatch, cpus: int | None, workers: int) -> None:
    # two workers busy with search bots on a two-CPU machine would leave the event loop
    # every room shares no CPU of its own
    monkeypatch.setattr(os, "cpu_count", lambda: cpus)
    assert Settings.from_env({}).bot_workers == workers
