"""Rule scenarios: set up a round, act, check (the file format of SCENARIOS.md).

>>> result = run_scenario({
...     "name": "a red five on a red three",
...     "rules": {"preset": "official"},
...     "setup": {"hands": [["R5", "G1"], ["B1"]], "discard": ["R3"],
...               "draw_pile": ["Y1"], "current_player": 0},
...     "steps": [{"do": {"player": 0, "play": "R5", "uno": True},
...                "expect": {"current_player": 1, "top": "R5", "hand_sizes": [1, 1]}}],
... })
>>> result.passed, result.line()
(True, 'PASS a red five on a red three')
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unokit.engine import actions as A
from unokit.engine.cards import CODES, COLOR_LETTERS, parse_card, parse_color
from unokit.engine.errors import ActionCodeError, ScenarioError, UnoError
from unokit.engine.game import Game
from unokit.engine.jsontext import MAX_FILE_BYTES, parse_json, read_limited, short_repr
from unokit.engine.rules import Rules

_ACTION_KEYS = {"play", "draw", "pass", "challenge", "uno", "catch", "color", "next_round",
                "slap", "say", "target", "exchange_with", "give"}
_EXPECT_KEYS = {"current_player", "phase", "top", "color", "direction", "hand_sizes", "hands",
                "draw_pile_size", "discard_size", "pending_draw", "round_winner", "round_loser",
                "round_points", "scores", "match_winner", "finish_order"}
_SETUP_KEYS = {"hands", "draw_pile", "discard", "dealer", "current_player", "direction",
               "color", "scores", "launcher", "seed"}
_SCENARIO_KEYS = {"name", "rules", "setup", "steps", "comment"}

MAX_SCENARIO_BYTES = MAX_FILE_BYTES
"""The largest scenario file :func:`run_file` reads (64 MB)."""

MAX_NAME_LENGTH = 1000
"""The longest scenario name accepted."""


@dataclass(frozen=True)
class ScenarioResult:
    """The outcome of one scenario."""

    name: str
    passed: bool
    message: str = ""

    def line(self) -> str:
        """``PASS name`` or ``FAIL name: message``."""
        return f"PASS {self.name}" if self.passed else f"FAIL {self.name}: {self.message}"


def _cards(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        raise ScenarioError(f"{where}: expected a list of card codes")
    try:
        return [parse_card(code) for code in value]
    except UnoError as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def _seat(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 9:
        raise ScenarioError(f"{where}: expected a seat number, got {short_repr(value)}")
    return value


def build_game(data: Mapping[str, Any]) -> Game:
    """The game a scenario's ``rules`` and ``setup`` describe."""
    setup = data.get("setup", {})
    if not isinstance(setup, Mapping):
        raise ScenarioError("setup: expected an object")
    unknown = set(setup) - _SETUP_KEYS
    if unknown:
        raise ScenarioError(f"setup: unknown keys {', '.join(sorted(unknown))}")
    if "hands" not in setup or not isinstance(setup["hands"], list):
        raise ScenarioError("setup: hands (a list per seat) is required")
    hands = [_cards(hand, f"setup.hands[{i}]") for i, hand in enumerate(setup["hands"])]
    rules_data = data.get("rules", {"preset": "official"})
    if not isinstance(rules_data, Mapping):
        raise ScenarioError("rules: expected an object")
    rules_data = dict(rules_data)
    rules_data.setdefault("players", len(hands))
    try:
        rules = Rules.from_dict(rules_data)
    except UnoError as exc:
        raise ScenarioError(f"rules: {exc}") from None
    launcher = setup.get("launcher")
    if launcher is not None and (not isinstance(launcher, list) or not all(
            isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in launcher)):
        raise ScenarioError("setup.launcher: expected a list of card counts >= 0")
    direction = setup.get("direction", "cw")
    if direction not in ("cw", "ccw"):
        raise ScenarioError(f"setup.direction: expected cw or ccw, got {short_repr(direction)}")
    color = setup.get("color")
    seed = setup.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise ScenarioError(f"setup.seed: expected an integer 0..2**64-1, got {short_repr(seed)}")
    scores = setup.get("scores")
    if scores is not None and (not isinstance(scores, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in scores)):
        raise ScenarioError("setup.scores: expected a list of integers")
    try:
        return Game.from_setup(
            rules,
            hands=hands,
            draw_pile=_cards(setup.get("draw_pile", []), "setup.draw_pile"),
            discard=_cards(setup["discard"], "setup.discard") if "discard" in setup else None,
            dealer=_seat(setup["dealer"], "setup.dealer") if "dealer" in setup else None,
            current_player=(_seat(setup["current_player"], "setup.current_player")
                            if "current_player" in setup else None),
            direction=1 if direction == "cw" else -1,
            color=parse_color(color) if color is not None else None,
            scores=scores,
            seed=seed,
            launcher=launcher,
        )
    except UnoError as exc:
        if isinstance(exc, ScenarioError):
            raise
        raise ScenarioError(f"setup: {exc}") from None


def action_from_step(do: Mapping[str, Any]) -> int:
    """The action of a step's ``do`` object."""
    if not isinstance(do, Mapping):
        raise ScenarioError("do: expected an object")
    unknown = set(do) - _ACTION_KEYS - {"player"}
    if unknown:
        raise ScenarioError(f"do: unknown keys {', '.join(sorted(unknown))}")
    if "player" not in do:
        raise ScenarioError("do: player is required")
    player = _seat(do["player"], "do.player")
    try:
        if "play" in do:
            play = do["play"]
            cards = [play] if not isinstance(play, list) else play
            if not cards:
                raise ScenarioError("do.play: no card")
            kinds = [parse_card(code) for code in cards]
            color = do.get("color")
            target = do.get("target", do.get("exchange_with"))
            if target is not None:
                target = _seat(target, "do.target")
            give = do.get("give")
            return A.play(player, kinds[0],
                          color=parse_color(color) if color is not None else None,
                          target=target, uno=do.get("uno") is True,
                          give=parse_card(give) if give is not None else None,
                          extra=tuple(kinds[1:]))
        for flag, build in (("draw", A.draw), ("pass", A.pass_turn),
                            ("challenge", A.challenge), ("uno", A.call_uno),
                            ("next_round", A.next_round), ("slap", A.slap)):
            if do.get(flag) is True:
                return build(player)
        if "say" in do:
            return A.say(player)
        if "catch" in do:
            return A.catch(player, _seat(do["catch"], "do.catch"))
        if "give" in do:
            return A.give_back(player, parse_card(do["give"]))
        if "color" in do:
            return A.choose_color(player, parse_color(do["color"]))
    except ActionCodeError as exc:
        # An action that cannot be encoded is rejected like an illegal one; the message
        # shows the step's action, not the integer it would have been.
        raise ActionCodeError(f"{_do_text(do)}: {_without_code(exc)}") from None
    except UnoError as exc:
        if isinstance(exc, ScenarioError):
            raise
        raise ScenarioError(f"do: {exc}") from None
    raise ScenarioError(f"do: no action in {_do_text(do)}")


def _one_line(text: str, limit: int = 200) -> str:
    """``text`` as one printable line of at most ``limit`` characters."""
    text = "".join(char if char.isprintable() else " " for char in text[:limit])
    return text if len(text) < limit else text[: limit - 3] + "..."


def _do_text(do: Mapping[str, Any]) -> str:
    """A step's ``do`` object as compact JSON, for messages."""
    try:
        text = json.dumps(dict(do), separators=(",", ":"), ensure_ascii=True)
    except (TypeError, ValueError):
        return short_repr(dict(do), 120)
    return text if len(text) <= 120 else text[:117] + "..."


_CODE_PREFIX = re.compile(r"-?[0-9]+:? ")


def _without_code(exc: Exception) -> str:
    """An action error's message without the action integer it starts with."""
    return _CODE_PREFIX.sub("", str(exc), count=1) if _CODE_PREFIX.match(str(exc)) else str(exc)


def actual_value(game: Game, key: str) -> Any:
    """The value an ``expect`` key is compared with, read off the game."""
    if key == "current_player":
        return game.current_player
    if key == "phase":
        return game.phase.value
    if key == "top":
        return CODES[game.top] if game.top >= 0 else None
    if key == "color":
        return COLOR_LETTERS[game.color] if game.color >= 0 else None
    if key == "direction":
        return "cw" if game.direction == 1 else "ccw"
    if key == "hand_sizes":
        return game.hand_sizes()
    if key == "draw_pile_size":
        return len(game.draw_pile)
    if key == "discard_size":
        return len(game.discard)
    if key == "pending_draw":
        return game.pending
    if key in ("round_winner", "round_loser", "match_winner"):
        value = getattr(game, key)
        return None if value < 0 else value
    if key in ("round_points", "scores", "finish_order"):
        return list(getattr(game, key))
    raise ScenarioError(f"expect: unknown key {key!r}")


def check_expect(game: Game, expect: Mapping[str, Any]) -> list[str]:
    """Differences between ``expect`` and the game, as readable strings."""
    if not isinstance(expect, Mapping):
        raise ScenarioError("expect: expected an object")
    unknown = set(expect) - _EXPECT_KEYS
    if unknown:
        raise ScenarioError(f"expect: unknown keys {', '.join(sorted(unknown))}")
    diffs = []
    for key, want in expect.items():
        if key == "hands":
            if not isinstance(want, Mapping):
                raise ScenarioError("expect.hands: expected {seat: [codes]}")
            for seat_text, codes in want.items():
                seat_text = str(seat_text)
                if (not seat_text.isascii() or not seat_text.isdigit() or len(seat_text) > 2
                        or int(seat_text) >= game.n):
                    raise ScenarioError(f"expect.hands: {seat_text!r} is not a seat")
                got = Counter(CODES[c] for c in game.hands[int(seat_text)])
                _cards(codes, f"expect.hands[{seat_text}]")
                if got != Counter(codes):
                    diffs.append(f"hands[{seat_text}]: expected {sorted(codes)}, "
                                 f"got {sorted(got.elements())}")
            continue
        got = actual_value(game, key)
        if got != want:
            diffs.append(f"{key}: expected {short_repr(want, 200)}, got {got!r}")
    return diffs


def _scenario_name(data: Mapping[str, Any], default: str) -> tuple[str, str]:
    """The scenario's name, and a problem with it ("" if none)."""
    if "name" not in data:
        return default, ""
    name = data["name"]
    if not isinstance(name, str):
        return default, f"name: expected text, got {short_repr(name)}"
    if not name.strip() or len(name) > MAX_NAME_LENGTH or not name.isprintable():
        return default, (f"name: expected one line of 1..{MAX_NAME_LENGTH} printable "
                         f"characters, got {short_repr(name)}")
    return name, ""


def run_scenario(data: Any, name: str | None = None) -> ScenarioResult:
    """Run one scenario given as parsed JSON.

    >>> run_scenario({"name": "x", "setup": {}}).line()
    'FAIL x: setup: hands (a list per seat) is required'
    >>> run_scenario({"name": {"a": 1}}, name="file").line()
    "FAIL file: name: expected text, got {'a': 1}"
    """
    if not isinstance(data, Mapping):
        return ScenarioResult(name or "?", False, "a scenario must be a JSON object")
    name, problem = _scenario_name(data, name or "?")
    if problem:
        return ScenarioResult(name, False, problem)
    unknown = set(data) - _SCENARIO_KEYS
    if unknown:
        shown = ", ".join(sorted(short_repr(key) if not isinstance(key, str) else key[:40]
                                 for key in unknown))
        return ScenarioResult(name, False, f"unknown keys {shown}")
    try:
        game = build_game(data)
    except UnoError as exc:
        return ScenarioResult(name, False, str(exc))
    steps = data.get("steps", [])
    if not isinstance(steps, list):
        return ScenarioResult(name, False, "steps: expected a list")
    for number, step in enumerate(steps, 1):
        try:
            message = _run_step(game, step)
        except UnoError as exc:
            message = str(exc)
        if message:
            return ScenarioResult(name, False, f"step {number}: {message}")
    return ScenarioResult(name, True)


def _run_step(game: Game, step: Any) -> str:
    if not isinstance(step, Mapping):
        raise ScenarioError("a step must be an object")
    unknown = set(step) - {"do", "expect", "error", "comment"}
    if unknown:
        raise ScenarioError(f"unknown step keys {', '.join(sorted(unknown))}")
    if "do" in step:
        try:
            action = action_from_step(step["do"])
            try:
                A.format_action(action)  # an action the encoder takes but that is no action
            except ActionCodeError as exc:
                raise ActionCodeError(f"{_do_text(step['do'])}: {_without_code(exc)}") from None
        except ActionCodeError as exc:
            if step.get("error") is True:
                return "; ".join(check_expect(game, step.get("expect", {})))
            return f"the action was rejected: {exc}"
        if step.get("error") is True:
            before = game.copy()
            try:
                game.apply(action)
            except UnoError:
                if game != before:
                    return "the rejected action changed the state"
            else:
                return f"{A.format_action(action)} was accepted, but should be rejected"
        else:
            try:
                game.apply(action)
            except UnoError as exc:
                return f"{A.format_action(action)} was rejected: {exc}"
    diffs = check_expect(game, step.get("expect", {}))
    return "; ".join(diffs)


def scenario_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """The ``.json`` files named, and those inside named folders, sorted."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(path.rglob("*.json"))
        else:
            yield path


def run_file(path: str | Path) -> ScenarioResult:
    """Run a scenario file; a broken file is a failure with a clear message, and so is
    a crash of the runner itself (under the scenario's name).

    A file larger than :data:`MAX_SCENARIO_BYTES` is refused unread.
    """
    path = Path(path)
    try:
        raw = read_limited(path, ScenarioError, MAX_SCENARIO_BYTES)
    except ScenarioError as exc:
        return ScenarioResult(str(path), False, str(exc).removeprefix(f"{path}: "))
    try:
        data = parse_json(raw, ScenarioError)
    except ScenarioError as exc:
        return ScenarioResult(str(path), False, str(exc))
    try:
        return run_scenario(data, name=path.stem)
    except Exception as exc:  # a bug in the runner or the engine: one FAIL line
        name = path.stem
        if isinstance(data, Mapping):
            name = _scenario_name(data, path.stem)[0]
        return ScenarioResult(name, False, f"the scenario runner crashed: "
                                           f"{type(exc).__name__}: {_one_line(str(exc))}")
