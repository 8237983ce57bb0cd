"""Pinned observations and masks of the RL environments: seeded random episodes under
several rule sets must give exactly the vectors recorded in ``tests/golden/rl_pins.json``
(a digest of every step, and a few steps in full), so that work on the environments' speed
cannot change what agents see.

Regenerate (only for an intended change of the encoding)::

    PYTHONPATH=src python tests/test_rl_pins.py --write
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from unokit.rl.gymnasium_env import UnoEnv
from unokit.rl.pettingzoo_env import env, raw_env

PINS = Path(__file__).resolve().parent / "golden" / "rl_pins.json"
FULL_STEPS = (0, 1, 2, 17, 60)
"""Steps recorded in full (sparse vector and mask indices)."""

CASES: dict[str, dict[str, Any]] = {
    "official_2p_one_round": {"rules": {"preset": "official", "players": 2, "rounds": 1},
                              "seed": 0, "wrapped": True},
    "official_3p_match": {"rules": {"preset": "official", "players": 3, "rounds": 2},
                          "seed": 11, "wrapped": False, "limit": 1500},
    "party_4p": {"rules": {"preset": "party", "players": 4, "rounds": 1}, "seed": 3,
                 "wrapped": True, "limit": 1500},
    "jump_in_4p_useful": {"rules": {"preset": "jump_in", "players": 4, "rounds": 1},
                          "seed": 5, "wrapped": False, "windows": "useful", "limit": 1500},
    "house_3p": {"rules": {"preset": "official", "players": 3, "rounds": 1,
                           "five_exchange": True, "multi_play": "same_number",
                           "seven_swap": True, "skip_on_skip": "any", "uno_slap": True,
                           "silence": "twos"},
                 "seed": 7, "wrapped": True, "limit": 1500, "reward": "points"},
    "pairs_4p": {"rules": {"preset": "pairs", "rounds": 2}, "seed": 9, "wrapped": False,
                 "limit": 1500, "reward": "round"},
    "official_5p_none": {"rules": {"preset": "official", "players": 5, "rounds": 1},
                         "seed": 2, "wrapped": True, "windows": "none", "limit": 1500},
}
GYM_CASE = {"rules": {"preset": "official", "rounds": 1}, "players": 3,
            "opponents": ["random", "playfirst"], "seed": 4, "limit": 400}


def _sparse(vector: Any) -> list[list[float]]:
    return [[int(i), float(vector[i])] for i in np.flatnonzero(vector)]


def _step_record(obs: dict[str, Any]) -> dict[str, Any]:
    return {"observation": _sparse(obs["observation"]),
            "mask": [int(i) for i in np.flatnonzero(obs["action_mask"])]}


def _hash(digest: Any, obs: dict[str, Any]) -> None:
    vector = obs["observation"]
    mask = obs["action_mask"]
    assert vector.dtype == np.float32 and vector.shape == (641,)
    assert mask.dtype == np.int8 and mask.shape == (362,)
    digest.update(vector.tobytes())
    digest.update(mask.tobytes())


def trace_aec(case: dict[str, Any]) -> dict[str, Any]:
    """Play one seeded random episode; the digest covers, at every step, the selected
    agent, its observation, mask, reward and flags, and another agent's observation."""
    maker = env if case["wrapped"] else raw_env
    e = maker(rules=case["rules"], windows=case.get("windows", "all"),
              reward=case.get("reward", "match"))
    e.reset(seed=case["seed"])
    rng = random.Random(case["seed"])
    digest = hashlib.sha256()
    full: dict[str, Any] = {}
    steps = 0
    names = e.unwrapped.possible_agents
    for agent in e.agent_iter(case.get("limit", 100_000)):
        obs, reward, terminated, truncated, _info = e.last()
        digest.update(f"{agent} {reward} {terminated} {truncated}".encode())
        _hash(digest, obs)
        other = names[steps % len(names)]
        _hash(digest, e.observe(other))
        if terminated or truncated:
            e.step(None)
            continue
        if steps in FULL_STEPS:
            full[str(steps)] = {"agent": agent, **_step_record(obs)}
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(legal.size)]))
        steps += 1
    return {"steps": steps, "digest": digest.hexdigest(), "full": full}


def trace_gym(case: dict[str, Any]) -> dict[str, Any]:
    """The same for the Gymnasium environment (bots at the other seats)."""
    e = UnoEnv(rules=case["rules"], players=case["players"], opponents=case["opponents"])
    obs, info = e.reset(seed=case["seed"])
    rng = random.Random(case["seed"])
    digest = hashlib.sha256()
    full: dict[str, Any] = {}
    steps = 0
    while steps < case["limit"]:
        _hash(digest, obs)
        digest.update(info["action_mask"].tobytes())
        if steps in FULL_STEPS:
            full[str(steps)] = _step_record(obs)
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, terminated, truncated, info = e.step(int(legal[rng.randrange(legal.size)]))
        digest.update(f"{reward} {terminated} {truncated}".encode())
        steps += 1
        if terminated or truncated:
            break
    return {"steps": steps, "digest": digest.hexdigest(), "full": full}


def record() -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = {name: trace_aec(case) for name, case in CASES.items()}
        out["gymnasium"] = trace_gym(GYM_CASE)
    return out


@pytest.fixture(scope="module")
def pins() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PINS.read_text())
    return data


@pytest.mark.parametrize("name", [*CASES, "gymnasium"])
def test_pinned_episode(name: str, pins: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = trace_gym(GYM_CASE) if name == "gymnasium" else trace_aec(CASES[name])
    want = pins[name]
    for step, values in want["full"].items():
        assert got["full"][step] == values, f"step {step}"
    assert got["steps"] == want["steps"]
    assert got["digest"] == want["digest"]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: PYTHONPATH=src python tests/test_rl_pins.py --write")
    PINS.write_text(json.dumps(record(), separators=(",", ":")) + "\n")
    print(f"wrote {PINS}")
