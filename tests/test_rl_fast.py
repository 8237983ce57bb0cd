"""The PettingZoo environment's compiled backend (``backend="sim"``) plays the engine
backend's episodes exactly.

Each case plays seeded random episodes (each index uniform over the mask, from a
``random.Random``) on both backends side by side and compares every step: the selected
agent, its observation vector and mask (``np.array_equal``), the reward, termination,
truncation and info, the window and the play being built, every agent's rewards, and the
vector of another agent; at the end, the engine actions taken and the match itself (the
sim backend's replayed ``game`` equals the engine's).
"""

from __future__ import annotations

import copy
import pickle
import random
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("numba")

from pettingzoo.test import api_test, seed_test

from unokit.engine.errors import RulesError
from unokit.engine.rules import Rules
from unokit.rl.pettingzoo_env import REWARDS, WINDOWS, env, raw_env, resolve_backend

# (rules, [(players, windows, reward, max_cycles), ...]): every preset the simulator plays,
# at several table sizes, with every windows mode and reward scheme; matches of several
# rounds (rounds=3, or a small target score) and truncated episodes.
CASES: list[tuple[str, list[tuple[int, str, str, int | None]]]] = [
    ("official,rounds=1", [(2, "all", "match", None), (5, "useful", "round", None),
                           (10, "none", "points", None)]),
    ("official,target_score=100", [(3, "all", "points", None), (4, "useful", "match", 5000)]),
    ("classic_ru,rounds=3", [(2, "all", "round", 1200), (4, "useful", "points", 1200),
                             (6, "none", "match", 900)]),
    ("stacking,rounds=2", [(3, "all", "match", 1200), (5, "useful", "points", 900),
                           (8, "all", "round", 900)]),
    ("seven_o,rounds=3", [(2, "useful", "match", 1200), (4, "all", "round", 1200),
                          (9, "all", "points", 900)]),
    ("official,draw=until_playable,rounds=2", [(2, "all", "points", 700),
                                                (4, "none", "round", 700),
                                                (7, "useful", "match", 500)]),
    # Other values of the keys the simulator plays.
    ("official,reverse_deflects_draw=true,draw_four_on_draw_two=stack,"
     "draw_two_on_draw_four=stack,skip_on_skip=any,wild_draw_four=strict,rounds=2",
     [(3, "all", "round", 900)]),
    ("seven_o,seven_zero_last_card=apply,uno_self_catch=false,uno_penalty=4,"
     "challenge_guilty_takes_back=true,play_drawn=must,dealer=random,rounds=2",
     [(4, "useful", "points", 900)]),
    ("official,scoring=penalty,target_score=120,going_out_bonus={W+4:50},"
     "lone_zero_points=50,wild_draw_four=free,play_drawn=never,draw_when_playable=false,"
     "two_player_reverse_skips=false,dealer=seat0", [(2, "all", "points", 900)]),
]


def _pair(text: str, players: int, windows: str, reward: str,
          max_cycles: int | None) -> tuple[Any, Any]:
    rules = Rules.load(text).with_(players=players)
    options = {"rules": rules, "windows": windows, "reward": reward, "max_cycles": max_cycles}
    return raw_env(backend="engine", **options), raw_env(backend="sim", **options)


def compare_episode(a: Any, b: Any, seed: int | None, rng: random.Random,
                    tools: bool = False) -> int:
    """Play one episode on both environments with the same random indices; assert every
    step equal. ``tools``: also compare the engine actions offered and the rendering.
    Returns the number of steps."""
    a.reset(seed=seed)
    b.reset(seed=seed)
    names = a.possible_agents
    steps = 0
    for agent in a.agent_iter():
        assert b.agent_selection == agent, f"step {steps}"
        obs_a, reward, terminated, truncated, info = a.last()
        obs_b, *rest = b.last()
        assert rest == [reward, terminated, truncated, info], f"step {steps}"
        assert np.array_equal(obs_a["observation"], obs_b["observation"]), f"step {steps}"
        assert np.array_equal(obs_a["action_mask"], obs_b["action_mask"]), f"step {steps}"
        assert obs_b["observation"].dtype == np.float32
        assert obs_b["action_mask"].dtype == np.int8
        assert (a.in_window, a.building) == (b.in_window, b.building), f"step {steps}"
        assert a.rewards == b.rewards and a._cumulative_rewards == b._cumulative_rewards
        assert a.terminations == b.terminations and a.truncations == b.truncations
        for other in names if steps % 7 == 0 else names[steps % len(names):][:1]:
            assert np.array_equal(a.observe(other)["observation"],
                                  b.observe(other)["observation"]), f"step {steps}"
            assert np.array_equal(a.observe(other)["action_mask"],
                                  b.observe(other)["action_mask"]), f"step {steps}"
        if tools:
            assert a.legal_engine_actions() == b.legal_engine_actions(), f"step {steps}"
        if terminated or truncated:
            a.step(None)
            b.step(None)
            continue
        legal = np.flatnonzero(obs_a["action_mask"])
        index = int(legal[rng.randrange(legal.size)])
        a.step(index)
        b.step(index)
        steps += 1
    assert not b.agents
    assert a.history == b.history
    if tools:
        assert a.game == b.game
    return steps


@pytest.mark.parametrize(("text", "plan"), CASES, ids=[c[0].split(",")[0] + f"-{i}"
                                                      for i, c in enumerate(CASES)])
def test_sim_backend_plays_the_engine_episodes(
        text: str, plan: list[tuple[int, str, str, int | None]]) -> None:
    steps = 0
    for players, windows, reward, max_cycles in plan:
        a, b = _pair(text, players, windows, reward, max_cycles)
        assert (a.backend, b.backend) == ("engine", "sim")
        rng = random.Random(players)
        for seed in (players, 1000 + players, 2000 + players):
            steps += compare_episode(a, b, seed, rng)
    assert steps > 500


def test_many_starts() -> None:
    """Short episodes of many deals (start cards, dealers, table sizes), each with a
    preset, table size, windows mode and reward scheme drawn at random."""
    rng = random.Random(99)
    presets = ["official", "classic_ru", "stacking", "seven_o", "official,draw=until_playable"]
    for _ in range(60):
        a, b = _pair(rng.choice(presets), rng.randint(2, 10), rng.choice(WINDOWS),
                     rng.choice(REWARDS), 200)
        compare_episode(a, b, rng.randrange(2**64), rng)


def test_episodes_truncate_and_resets_follow_the_same_seeds() -> None:
    a, b = _pair("seven_o", 3, "all", "points", 40)
    rng = random.Random(3)
    for seed in (2**64 - 1, -5, None, None, 7, None):
        assert compare_episode(a, b, seed, rng) == 40
        assert all(b.truncations.values()) or not b.agents


def test_tools_agree_step_by_step() -> None:
    """``legal_engine_actions`` (in order), ``step_engine``, ``render`` and the replayed
    ``game`` of the sim backend agree with the engine's."""
    for text, players in [("seven_o,rounds=2", 3), ("classic_ru,rounds=1", 2)]:
        rules = Rules.load(text).with_(players=players)
        a = raw_env(rules=rules, render_mode="ansi", backend="engine", max_cycles=400)
        b = raw_env(rules=rules, render_mode="ansi", backend="sim", max_cycles=400)
        compare_episode(a, b, 11, random.Random(1), tools=True)
        # Whole engine actions (and None for noop), as bots take them.
        a.reset(seed=4)
        b.reset(seed=4)
        rng = random.Random(4)
        for _ in range(300):
            assert b.render() == a.render()
            assert b.game == a.game
            legal = a.legal_engine_actions()
            assert b.legal_engine_actions() == legal
            assert [b.action_tokens(x) for x in legal] == [a.action_tokens(x) for x in legal]
            window = a.in_window and (not legal or rng.random() < 0.5)
            choice = None if window else rng.choice(legal)
            a.step_engine(choice)
            b.step_engine(choice)
            assert b.agent_selection == a.agent_selection
            assert np.array_equal(a.last()[0]["observation"], b.last()[0]["observation"])
            if not b.agents or a.terminations[a.agent_selection]:
                break
        with pytest.raises(ValueError):
            b.step_engine(-12345)


def test_sim_backend_refuses_bad_indices_and_changes_nothing() -> None:
    e = raw_env(rules="seven_o", players=2, backend="sim")
    e.reset(seed=3)
    mask = e.observe(e.agent_selection)["action_mask"]
    before = (e.agent_selection, e.history, e.last()[0]["observation"].tobytes())
    for bad in (int(np.flatnonzero(mask == 0)[0]), -1, 10**30):
        with pytest.raises(ValueError):
            e.step(bad)
    assert (e.agent_selection, e.history, e.last()[0]["observation"].tobytes()) == before
    with pytest.raises(ValueError):
        e.step(None)
    with pytest.raises(AttributeError):
        e.game = e.game


def test_copies_have_their_own_state() -> None:
    e = raw_env(rules="official", players=3, backend="sim")
    e.reset(seed=5)
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    for twin in (copy.deepcopy(e), pickle.loads(pickle.dumps(e)), copy.copy(e)):
        assert twin.backend == "sim" and twin.history == e.history
        assert np.array_equal(twin.last()[0]["observation"], e.last()[0]["observation"])
        before = e.last()[0]["observation"].copy()
        twin.step(int(np.flatnonzero(twin.last()[0]["action_mask"])[-1]))
        assert twin.history != e.history
        assert np.array_equal(e.last()[0]["observation"], before)
    assert copy.copy(raw_env(rules="official", backend="engine")).backend == "engine"


def test_backend_choice() -> None:
    party = Rules.preset("party", rounds=1)
    with pytest.raises(RulesError) as caught:
        raw_env(rules=party, backend="sim")
    assert "jump_in" in caught.value.keys
    assert raw_env(rules=party).backend == "engine"
    assert raw_env(rules=party, backend="auto").backend == "engine"
    assert raw_env(rules="classic_ru").backend == "sim"
    assert env(rules="official", backend="engine").unwrapped.backend == "engine"
    assert resolve_backend("auto", Rules.preset("seven_o")) == "sim"
    with pytest.raises(ValueError):
        raw_env(rules="official", backend="fast")


def test_pettingzoo_api_and_seed_tests_with_the_sim_backend() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(rules={"preset": "seven_o", "rounds": 1}, players=3, backend="sim"),
                 num_cycles=150)
        seed_test(lambda: env(rules={"preset": "classic_ru", "rounds": 1}, players=4,
                              backend="sim"), num_cycles=100)
