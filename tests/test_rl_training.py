"""The environments as researchers use them: the training id ``unokit/Uno-v1``, the flat
observation with the mask apart, opponents (bots with the rules, policies, self-play), the
compiled backend under the Gymnasium env, game summaries, and PettingZoo-classic illegal
actions."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.utils.wrappers import TerminateIllegalWrapper  # type: ignore[import-untyped]

from unokit.rl.gymnasium_env import (
    TRAINING_ENV_ID,
    TRAINING_RULES,
    UnoEnv,
    mask_fn,
    register,
)
from unokit.rl.pettingzoo_env import env, raw_env

ONE_ROUND = {"preset": "official", "rounds": 1}


def first_legal(obs: Any, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def last_legal(obs: Any, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[-1])


def play_out(g: Any, obs: Any, info: dict[str, Any], pick: Any = first_legal,
             limit: int = 10_000) -> tuple[list[Any], float, bool, bool, dict[str, Any]]:
    """Play ``g`` to the end with ``pick``; returns what every step returned."""
    trace: list[Any] = []
    for _ in range(limit):
        obs, reward, terminated, truncated, info = g.step(pick(obs, mask_fn(g)))
        vector = obs if isinstance(obs, np.ndarray) else obs["observation"]
        trace.append((vector.tobytes(), reward, terminated, truncated))
        if terminated or truncated:
            return trace, reward, terminated, truncated, info
    raise AssertionError("the episode did not end")


# ------------------------------------------------------------------ Uno-v1
def test_training_id_has_the_training_defaults() -> None:
    register()
    g = gymnasium.make(TRAINING_ENV_ID)
    inner = g.unwrapped
    assert isinstance(inner, UnoEnv)
    assert inner.aec.n == 2 and inner.aec.rules.rounds == 1
    assert inner.max_steps == 500 and inner.observation_format == "flat"
    assert g.observation_space == inner.aec.observation_space("player_0")["observation"]
    obs, info = g.reset(seed=4)
    assert obs.shape == (641,) and obs.dtype == np.float32
    assert g.observation_space.contains(obs)
    mask = mask_fn(g)
    assert mask.dtype == np.bool_ and mask.shape == (g.action_space.n,)
    assert np.array_equal(mask, info["action_mask"].astype(bool))
    _, reward, terminated, _, info = play_out(g, obs, info)
    summary = info["summary"]
    assert terminated and summary["winner"] in (0, 1)
    assert reward == (1.0 if summary["winner"] == 0 else -1.0)
    assert summary["rounds"] == 1 and summary["turns"] > 0
    assert summary["steps"] >= summary["learner_steps"] > 0
    assert summary["actions"] >= summary["turns"]
    assert sorted(summary["scores"])[0] == 0


def test_v0_is_kept_as_it_was() -> None:
    register()
    inner = gymnasium.make("unokit/Uno-v0").unwrapped
    assert inner.aec.n == 4 and inner.max_steps is None
    assert inner.observation_format == "dict" and inner.backend == "engine"


def test_flat_env_passes_gymnasiums_checker() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(UnoEnv(rules=TRAINING_RULES, observation="flat", opponents=(first_legal,)),
                  skip_render_check=True)


def test_step_limit_truncates_with_a_summary() -> None:
    g = UnoEnv(rules=ONE_ROUND, players=2, max_steps=3, observation="flat")
    obs, info = g.reset(seed=2)
    trace, _, terminated, truncated, info = play_out(g, obs, info)
    assert (len(trace), terminated, truncated) == (3, False, True)
    assert info["summary"]["winner"] == -1 and info["summary"]["learner_steps"] == 3
    with pytest.raises(RuntimeError):
        g.step(0)


# ------------------------------------------------------------------ opponents
def test_named_bots_get_the_rules() -> None:
    rules = {"preset": "classic_ru", "rounds": 1}
    g = UnoEnv(rules=rules, players=3, opponents=("hard", "search:8"))
    assert {type(bot).__name__ for bot in g.bots.values()} == {"HardBot", "SearchBot"}
    for bot in g.bots.values():
        assert bot.rules == g.aec.rules  # type: ignore[attr-defined]
    obs, info = g.reset(seed=1)
    play_out(g, obs, info, limit=400)


def test_policies_play_the_other_seats_on_the_compiled_backend() -> None:
    seen: list[tuple[tuple[int, ...], int]] = []

    def policy(obs: Any, mask: np.ndarray) -> int:
        seen.append((obs.shape, int(mask.sum())))
        return last_legal(obs, mask)

    g = UnoEnv(rules=ONE_ROUND, players=3, opponents=(policy,), observation="flat")
    assert g.backend == "sim"
    obs, info = g.reset(seed=8)
    play_out(g, obs, info)
    assert seen and all(shape == (641,) and legal > 0 for shape, legal in seen)


@pytest.mark.parametrize("observation", ["flat", "dict"])
def test_compiled_and_engine_backends_play_the_same_episode(observation: str) -> None:
    runs = []
    for backend in ("sim", "engine"):
        g = UnoEnv(rules="official,target_score=80", players=3, backend=backend,
                   opponents=(last_legal, first_legal), observation=observation,
                   reward="points")
        obs, info = g.reset(seed=21)
        runs.append(play_out(g, obs, info))
    (trace_a, *end_a), (trace_b, *end_b) = runs
    assert trace_a == trace_b
    assert end_a[:3] == end_b[:3]
    assert end_a[3]["summary"] == end_b[3]["summary"]


def test_self_play_uses_the_learners_policy() -> None:
    g = UnoEnv(rules=ONE_ROUND, players=2, opponents="self", observation="flat")
    with pytest.raises(RuntimeError, match="set_self_policy"):
        g.reset(seed=1)
    calls: list[int] = []

    def learner(obs: Any, mask: np.ndarray) -> int:
        calls.append(1)
        return first_legal(obs, mask)

    g.set_self_policy(learner)
    obs, info = g.reset(seed=1)
    play_out(g, obs, info)
    assert calls


def test_a_policy_choosing_an_illegal_index_is_refused() -> None:
    g = UnoEnv(rules=ONE_ROUND, players=2, opponents=(lambda obs, mask: 10_000,))
    with pytest.raises(ValueError, match="seat 1"):
        obs, info = g.reset(seed=3)
        play_out(g, obs, info)
    with pytest.raises(ValueError):
        UnoEnv(opponents=(42,))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        UnoEnv(observation="pixels")


def test_illegal_action_may_end_the_gymnasium_episode() -> None:
    g = UnoEnv(rules=ONE_ROUND, players=2, illegal_action="terminate", observation="flat")
    g.reset(seed=2)
    bad = int(np.flatnonzero(~g.action_masks())[0])
    _, reward, terminated, truncated, info = g.step(bad)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert info["summary"]["winner"] == -1


# ------------------------------------------------------------------ AEC: illegal actions
@pytest.mark.parametrize("backend", ["engine", "sim"])
def test_aec_illegal_index_ends_the_episode_as_pettingzoo_classic(backend: str) -> None:
    ours = env(rules=ONE_ROUND, players=3, backend=backend)
    theirs = TerminateIllegalWrapper(raw_env(rules=ONE_ROUND, players=3, backend=backend), -1)
    for e in (ours, theirs):
        e.reset(seed=6)
        for _ in range(5):
            e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    offender = ours.agent_selection
    bad = int(np.flatnonzero(ours.last()[0]["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours.step(bad)
        theirs.step(bad)
    assert ours.rewards == theirs.rewards
    assert ours.rewards[offender] == -1.0
    assert sum(ours.rewards.values()) == -1.0
    assert all(ours.terminations.values())
    assert ours.infos[offender]["illegal_action"] is True
    assert ours.infos[offender]["summary"]["winner"] == -1
    assert ours.last()[1] == -1.0  # the offender is selected with its reward
    finished = 0
    for _agent in ours.agent_iter():
        ours.step(None)
        finished += 1
    assert finished == 3 and not ours.agents


def test_raw_env_still_raises_on_an_illegal_index() -> None:
    e = raw_env(rules=ONE_ROUND, players=2)
    e.reset(seed=3)
    bad = int(np.flatnonzero(e.last()[0]["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        e.step(bad)
    with pytest.raises(ValueError):
        raw_env(illegal_action="ignore")


@pytest.mark.parametrize("rules", ["official,rounds=1", "seven_o,target_score=150"])
def test_summaries_agree_between_backends(rules: str) -> None:
    summaries = []
    for backend in ("engine", "sim"):
        e = raw_env(rules=rules, players=3, backend=backend)
        e.reset(seed=13)
        rng = np.random.default_rng(2)
        for _agent in e.agent_iter():
            obs, _, terminated, truncated, info = e.last()
            if terminated or truncated:
                summaries.append(info["summary"])
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    engine, sim = summaries[0], summaries[3]
    assert engine == sim
    assert engine["winner"] >= 0 and engine["turns"] > 0
    assert engine["steps"] >= engine["actions"] >= engine["turns"]


def test_bots_play_the_same_episode_on_both_backends() -> None:
    runs = []
    for backend in ("sim", "engine"):
        g = UnoEnv(rules=ONE_ROUND, players=3, opponents=("playfirst", "normal"),
                   backend=backend, observation="flat")
        assert g.backend == backend
        obs, info = g.reset(seed=17)
        runs.append(play_out(g, obs, info))
    assert runs[0][0] == runs[1][0]
    assert runs[0][4]["summary"] == runs[1][4]["summary"]
