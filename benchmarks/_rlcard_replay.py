"""The replay check's digests, shared by both sides of ``rlcard_parity.py``: RLCard's own
env in its venv (``_rlcard_parity_worker.py``) and unokit's ``RLCardUnoEnv``. Standard
library only, so that either interpreter can import it.

An env here is anything with RLCard's env API (``reset``, ``step``, ``is_over``,
``get_payoffs``); a policy anything with SplitMix64's ``below(n)``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def state_record(state: dict[str, Any], player: int) -> str:
    """One env state (player, ``obs``, legal ids, ``raw_obs``) as canonical JSON."""
    return json.dumps([player, state["obs"].tolist(), list(state["legal_actions"]),
                       state["raw_obs"]], sort_keys=True)


def replay_digests(env: Any, policy: Any, games: int) -> list[str]:
    """Play ``games`` games, each action drawn by ``policy`` among the legal ids; one
    SHA-256 per game over every state returned and the payoffs."""
    digests: list[str] = []
    for _ in range(games):
        digest = hashlib.sha256()
        state, player = env.reset()
        digest.update(state_record(state, player).encode())
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, player = env.step(legal[policy.below(len(legal))])
            digest.update(state_record(state, player).encode())
        digest.update(json.dumps(env.get_payoffs().tolist()).encode())
        digests.append(digest.hexdigest())
    return digests
