"""The vectorised environment (:mod:`unokit.rl.vector_env`) plays the AEC environment's
episodes game by game.

Each case steps a :class:`VectorUnoEnv` with random legal indices and, beside every game,
an engine-backed ``raw_env`` reset with that game's episode seed and given the same
indices; every step compares the selected seat, the observation vector and mask (bit for
bit), every seat's reward, termination and truncation, and at each episode's end the
summary (winner, scores, steps, engine actions, rounds) with the engine's match.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from unokit.engine.errors import RulesError
from unokit.rl.pettingzoo_env import raw_env
from unokit.rl.vector_env import END_REASONS, VectorUnoEnv

CASES: list[tuple[str, int, str, str, int | None, int]] = [
    # rules, players, windows, reward, max_steps, vector steps
    ("official,rounds=1", 2, "all", "match", None, 700),
    ("official,rounds=1", 2, "useful", "round", 60, 300),
    ("official,target_score=60", 3, "all", "points", 400, 500),
    ("stacking,rounds=2", 4, "none", "match", 300, 400),
    ("seven_o,rounds=1,scoring=penalty", 3, "useful", "points", None, 1500),
]


def _aec(rules: str, players: int, windows: str, reward: str,
         max_steps: int | None, seed: int) -> raw_env:
    aec = raw_env(rules=rules, players=players, windows=windows, reward=reward,
                  max_cycles=max_steps, backend="engine")
    aec.reset(seed=seed)
    return aec


def _check_selected(aec: raw_env, state: Any, i: int) -> None:
    agent = aec.agent_selection
    assert state.current_player[i] == aec.possible_agents.index(agent)
    obs = aec.observe(agent)
    assert np.array_equal(state.observation[i], obs["observation"])
    assert np.array_equal(state.legal_action_mask[i], obs["action_mask"].astype(bool))


@pytest.mark.parametrize(("rules", "players", "windows", "reward", "max_steps", "steps"),
                         CASES)
def test_games_match_the_aec_environment_step_by_step(
        rules: str, players: int, windows: str, reward: str, max_steps: int | None,
        steps: int) -> None:
    size = 3
    venv = VectorUnoEnv(size, rules=rules, players=players, windows=windows, reward=reward,
                        max_steps=max_steps)
    state = venv.reset(seed=11)
    aecs = [_aec(rules, players, windows, reward, max_steps, int(state.episode_seed[i]))
            for i in range(size)]
    for i in range(size):
        _check_selected(aecs[i], state, i)
    rng = np.random.default_rng(5)
    episodes = 0
    for _ in range(steps):
        actions = venv.sample_legal(state, rng)
        state = venv.step(actions)
        for i, aec in enumerate(aecs):
            aec.step(int(actions[i]))
            rewards = [aec.rewards[name] for name in aec.possible_agents]
            assert state.rewards[i].tolist() == rewards
            ended = all(aec.terminations.values()) or all(aec.truncations.values())
            assert bool(state.terminated[i]) == all(aec.terminations.values())
            assert bool(state.truncated[i]) == (all(aec.truncations.values())
                                                and not state.terminated[i])
            assert bool(state.episode["done"][i]) == ended
            if ended:
                episodes += 1
                game = aec.game
                summary = {key: state.episode[key][i] for key in state.episode}
                over = game.is_over()
                assert summary["winner"] == (game.match_winner if over else -1)
                assert summary["scores"].tolist() == list(game.scores)
                assert summary["actions"] == len(game.history)
                assert summary["rounds"] == game.round_no
                assert END_REASONS[summary["reason"]] == ("ended" if over else "truncated")
                aecs[i] = aec = _aec(rules, players, windows, reward, max_steps,
                                     int(state.episode_seed[i]))
                assert summary["seed"] != state.episode_seed[i]
            _check_selected(aec, state, i)
    assert episodes >= 2  # auto-reset was exercised


def test_same_seed_same_games_and_episode_seeds_differ() -> None:
    first, second = VectorUnoEnv(4), VectorUnoEnv(4)
    a, b = first.reset(seed=3), second.reset(seed=3)
    assert np.array_equal(a.observation, b.observation)
    assert np.array_equal(a.episode_seed, b.episode_seed)
    assert len(set(a.episode_seed.tolist())) == 4
    assert (a.episode_seed >= 0).all()
    c = VectorUnoEnv(4).reset(seed=4)
    assert not np.array_equal(a.episode_seed, c.episode_seed)


def test_illegal_index_raises_and_steps_no_game() -> None:
    venv = VectorUnoEnv(3)
    state = venv.reset(seed=1)
    legal = venv.sample_legal(state, np.random.default_rng(0))
    actions = legal.copy()
    actions[1] = int(np.flatnonzero(~state.legal_action_mask[1])[0])
    with pytest.raises(ValueError, match="game 1"):
        venv.step(actions)
    with pytest.raises(ValueError, match="game 2"):
        venv.step(np.array([legal[0], legal[1], 9999]))
    with pytest.raises(ValueError, match="one per game"):
        venv.step(actions[:2])
    # Nothing changed: the legal actions still step every game as before.
    again = VectorUnoEnv(3)
    again.reset(seed=1)
    assert np.array_equal(venv.step(legal).observation, again.step(legal).observation)


def test_illegal_index_terminates_the_offenders_episode() -> None:
    venv = VectorUnoEnv(2, illegal_action="terminate", illegal_reward=-2.0)
    state = venv.reset(seed=1)
    seed_before = state.episode_seed.copy()
    actions = venv.sample_legal(state, np.random.default_rng(0))
    offender = int(state.current_player[0])
    actions[0] = int(np.flatnonzero(~state.legal_action_mask[0])[0])
    after = venv.step(actions)
    assert after.terminated.tolist() == [True, False]
    expected = [0.0, 0.0]
    expected[offender] = -2.0
    assert after.rewards[0].tolist() == expected
    assert END_REASONS[after.episode["reason"][0]] == "illegal"
    assert after.episode["illegal_seat"][0] == offender
    assert after.episode["winner"][0] == -1
    assert after.episode_seed[0] != seed_before[0]  # the next episode has begun
    assert after.episode_seed[1] == seed_before[1]


def test_two_threads_step_the_same_games() -> None:
    one, two = VectorUnoEnv(6), VectorUnoEnv(6, threads=2)
    s1, s2 = one.reset(seed=9), two.reset(seed=9)
    rng = np.random.default_rng(1)
    for _ in range(150):
        actions = one.sample_legal(s1, rng)
        s1, s2 = one.step(actions), two.step(actions)
        assert np.array_equal(s1.observation, s2.observation)
        assert np.array_equal(s1.rewards, s2.rewards)
        assert np.array_equal(s1.episode_seed, s2.episode_seed)


def test_bad_options_and_rules_are_refused() -> None:
    with pytest.raises(RulesError):
        VectorUnoEnv(2, rules="party")
    for options in ({"reward": "x"}, {"windows": "x"}, {"max_steps": 0},
                    {"illegal_action": "x"}, {"threads": 0}):
        with pytest.raises(ValueError):
            VectorUnoEnv(2, **options)
    with pytest.raises(ValueError):
        VectorUnoEnv(0)
    with pytest.raises(RuntimeError):
        VectorUnoEnv(1).step(np.zeros(1, dtype=np.int64))


def test_compiled_code_is_dropped_when_a_source_changes(tmp_path: Any) -> None:
    from unokit.rl._sim_kernel import drop_stale_cache

    source = tmp_path / "kernel.py"
    source.write_text("A = 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    (cache / "f.nbi").write_text("")
    (cache / "m.pyc").write_text("")
    assert drop_stale_cache(cache, (source,))  # no stamp yet: dropped
    assert not (cache / "f.nbi").exists() and (cache / "m.pyc").exists()
    (cache / "f.nbc").write_text("")
    assert not drop_stale_cache(cache, (source,))  # unchanged: kept
    assert (cache / "f.nbc").exists()
    source.write_text("A = 2\n")
    assert drop_stale_cache(cache, (source,))
    assert not (cache / "f.nbc").exists()
