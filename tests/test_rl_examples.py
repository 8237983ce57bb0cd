"""The examples in ``examples/``: the numpy one runs here; the Stable-Baselines3 ones
import without torch (they load it lazily), their PettingZoo wrapper plays whole
episodes, and they train a few steps where sb3-contrib is installed (it is not a
unokit dependency) or else say what to install."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sb3_installed() -> bool:
    return importlib.util.find_spec("sb3_contrib") is not None


def test_vector_reinforce_runs_and_reports() -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "vector_reinforce.py"), "--num-envs", "16",
         "--steps", "20000", "--batch", "4", "--report-every", "10000"],
        capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("steps")]
    assert len(lines) == 2
    for line in lines:
        rate = float(line.split("wins")[1].split()[0])
        assert 0.0 <= rate <= 1.0


def test_vector_reinforce_learns_from_its_updates() -> None:
    example = load("vector_reinforce")
    policy = example.LinearPolicy(3, 4, np.ones(3), seed=0)
    x = np.array([[1.0, 0.0, 0.5]])
    mask = np.array([[True, True, False, True]])
    before = policy.probabilities(x, mask)[0]
    assert before[2] == 0.0 and np.isclose(before.sum(), 1.0)
    for _ in range(20):
        policy.update(x, mask, np.array([3]), np.array([1.0]), lr=0.5)
    after = policy.probabilities(x, mask)[0]
    assert after[3] > before[3] and after[2] == 0.0
    picks = policy.sample(np.repeat(policy.probabilities(x, mask), 200, axis=0))
    assert set(picks.tolist()) <= {0, 1, 3}


@pytest.mark.parametrize("name", ["maskable_ppo", "pettingzoo_sb3_selfplay"])
def test_sb3_examples_import_without_torch_and_run_or_say_what_is_missing(
        name: str, capsys: pytest.CaptureFixture[str]) -> None:
    torch_before = "torch" in sys.modules
    example = load(name)
    assert ("torch" in sys.modules) == torch_before  # nothing heavy at import
    if sb3_installed():
        assert example.main(["--timesteps", "64"]) == 0
    else:
        assert example.main(["--timesteps", "64"]) == 2
        assert "pip install sb3-contrib" in capsys.readouterr().err


def test_pettingzoo_wrapper_plays_whole_episodes() -> None:
    wrapper = load("pettingzoo_sb3_selfplay").make_wrapper(players=2)
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, _ = wrapper.reset(seed=seed)
        assert obs.shape == wrapper.observation_space.shape
        rewards = []
        for _ in range(20_000):
            mask = wrapper.action_mask()
            assert mask.dtype == np.bool_ and mask.any()
            obs, reward, terminated, truncated, _ = wrapper.step(
                int(rng.choice(np.flatnonzero(mask))))
            rewards.append(reward)
            if terminated or truncated:
                break
        assert terminated
        assert rewards[-1] in (-1.0, 1.0)
        assert all(r == 0.0 for r in rewards[:-1])
