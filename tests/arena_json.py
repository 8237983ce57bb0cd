"""A helper the arena tests share: an arena JSON without what depends on the clock."""

from __future__ import annotations

from typing import Any


def without_times(data: dict[str, Any], *also: str) -> dict[str, Any]:
    """``data`` (``ArenaResult.to_dict()``) without the seconds, the rate of games, the
    jobs and the decision times, and without the top-level keys ``also`` (e.g. ``parts``,
    which depends on how the games were split)."""
    data = dict(data)
    for key in ("seconds", "games_per_second", *also):
        data.pop(key)
    data["inputs"] = {k: v for k, v in data["inputs"].items() if k != "jobs"}
    for group in ("bots", "entries"):
        data[group] = [{k: v for k, v in item.items() if k != "decision_time"}
                       for item in data[group]]
    return data
