"""The reinforcement-learning environments (unokit.rl): PettingZoo's and Gymnasium's own
checks, the action mapping under random rule sets, hidden information, masks, episode
ends, rewards and the generated tables of docs/rl.md."""

from __future__ import annotations

import copy
import importlib.util
import random
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import gymnasium
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from unokit import Game, Rules, parse_card
from unokit.engine import actions as A
from unokit.rl import encoding as E
from unokit.rl.gymnasium_env import ENV_ID, UnoEnv, register
from unokit.rl.pettingzoo_env import env, raw_env
from unokit.testing.invariants import permuted
from unokit.testing.soak import draw_rules

ROOT = Path(__file__).resolve().parent.parent
ONE_ROUND = {"preset": "official", "rounds": 1}


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    # PettingZoo's checks warn about every dict observation (as for its classic games).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def random_steps(e: Any, rng: random.Random, limit: int) -> Iterator[Any]:
    """Step ``e`` with random legal indices (None for finished agents), yielding the
    observation before each live step."""
    for _ in e.agent_iter(limit):
        obs, _reward, terminated, truncated, _info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        yield obs
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(legal.size)]))


# ----------------------------------------------------------------- library checks
@pytest.mark.parametrize(("rules", "players"), [(ONE_ROUND, 3),
                                                ({"preset": "party", "rounds": 1}, 4)])
def test_pettingzoo_api_test(rules: dict[str, Any], players: int) -> None:
    api_test(env(rules=rules, players=players), num_cycles=150)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: env(rules={"preset": "jump_in", "rounds": 1}, players=4), num_cycles=100)


def test_gymnasium_check_env() -> None:
    check_env(UnoEnv(rules=ONE_ROUND, players=3, opponents=("random", "playfirst")),
              skip_render_check=True)


def test_gymnasium_registered_id() -> None:
    assert register() == ENV_ID
    made = gymnasium.make(ENV_ID, rules=ONE_ROUND, players=2, render_mode="ansi")
    obs, _info = made.reset(seed=4)
    assert made.observation_space.contains(obs)
    assert "player_0" in made.render()
    check_env(made.unwrapped, skip_render_check=True)


# --------------------------------------------------------------- action mapping
def check_mapping(game: Game) -> int:
    """Every seat's legal actions: one index sequence each, decoding back to it."""
    checked = 0
    for seat in range(game.n):
        legal = game.legal_actions(seat)
        if not legal:
            continue
        node = E.decision(legal, seat, game.n)
        seen: dict[int, tuple[int, ...]] = {}
        for path, action in E.paths(node):
            assert action not in seen, f"{A.format_action(action)}: two sequences"
            seen[action] = path
            assert E.decode_action(path, seat, game.n) == action
            assert E.encode_action(action, seat, game.n) == tuple(
                t for t in path if t != E.FINISH)
            assert all(0 <= t < E.NOOP for t in path)
        assert set(seen) == set(legal)
        checked += len(legal)
    return checked


def test_action_mapping_round_trips_under_random_rule_sets() -> None:
    rng = random.Random(20)
    checked = 0
    for _ in range(14):
        rules = draw_rules(rng)
        e = raw_env(rules=rules, max_cycles=350)
        e.reset(seed=rng.randrange(2**32))
        for obs in random_steps(e, rng, 2000):
            assert obs["action_mask"].any()
            if not e.building:
                checked += check_mapping(e.game)
                assert set(e.legal_engine_actions()) == set(e.game.legal_actions(e._sel))
    assert checked > 5000


def test_known_action_sequences() -> None:
    r5, g5, b5, g3 = (parse_card(c) for c in ("R5", "G5", "B5", "G3"))
    rules = Rules.preset("official", players=3, five_exchange=True, multi_play="same_number")
    game = Game.from_setup(rules, hands=[[r5, g5, b5, g3], [parse_card("Y1")],
                                         [parse_card("Y2")]],
                           draw_pile=[parse_card("Y3")] * 3, discard=[parse_card("R1")],
                           current_player=0)
    node = E.decision(game.legal_actions(0), 0, 3)
    five = node.choices[E.play_slot(r5)]
    assert isinstance(five, E.Node)
    assert E.FINISH in five.choices  # R5 alone, or with an exchange or more fives
    assert five.choices[E.FINISH] == A.play(0, r5)
    assert {E.action_name(t) for t in five.choices} >= {"add G5", "add B5", "target +1"}
    assert E.action_name(E.encode_action(A.catch(3, 1), 3, 4)[0]) == "catch +2"
    assert E.decode_action((E.COLOR + 2,), 1, 4) == A.choose_color(1, 2)
    with pytest.raises(ValueError):
        E.decode_action((E.DRAW, E.PASS), 0, 2)
    with pytest.raises(ValueError):
        E.encode_action(A.draw(1), 0, 2)


# ------------------------------------------------------------ hidden information
def schedule(e: raw_env, game: Game) -> tuple[Any, ...]:
    """Whom the environment would ask now, and with which mask, were ``game`` the match."""
    twin = copy.copy(e)
    twin.game = game
    twin._driver = e._driver.copy(game)
    twin._schedule()
    return twin.agent_selection, tuple(twin._queue), twin._window, twin._node.mask


HOUSE_OUT_OF_TURN = [
    Rules.preset("jump_in", players=4, rounds=1),
    Rules.preset("official", players=3, rounds=1, skip_on_skip="any", uno_slap=True,
                 silence="twos"),
]


@pytest.mark.parametrize("case", ["random", "jump_in", "skips"])
def test_hidden_cards_change_no_observation_and_no_schedule(case: str) -> None:
    rng = random.Random(5)
    if case == "random":
        rule_sets, share = [draw_rules(rng) for _ in range(6)], 0.25
    else:
        rule_sets, share = [HOUSE_OUT_OF_TURN[case == "skips"]] * 3, 1.0
    compared = 0
    for rules in rule_sets:
        for windows in ("all", "useful"):
            # The engine backend: this test swaps its game (the sim backend plays the same
            # episodes, tests/test_rl_fast.py).
            e = raw_env(rules=rules, max_cycles=150, windows=windows, backend="engine")
            e.reset(seed=rng.randrange(2**32))
            for _obs in random_steps(e, rng, 1000):
                if e.building or rng.random() > share:
                    continue
                game = e.game
                before = schedule(e, game)
                for seat in range(game.n):
                    other = permuted(game, seat, rng)
                    mine = E.ObservationEncoder(rules).encode(game.observation(seat))
                    theirs = E.ObservationEncoder(rules).encode(other.observation(seat))
                    assert np.array_equal(mine, theirs)
                    # The environment's own path (view_fields, incremental encoder) on the
                    # real game, then on the other deal, then on the real game again.
                    agent = f"player_{seat}"
                    twin = copy.copy(e)
                    twin.game = other
                    fast = [e.observe(agent), twin.observe(agent), e.observe(agent)]
                    for obs in fast:
                        assert np.array_equal(obs["observation"], fast[0]["observation"])
                    again = schedule(e, other)
                    assert again[:3] == before[:3]
                    if again[0] == f"player_{seat}":
                        assert again[3] == before[3]
                    compared += 1
    assert compared > 100


def expected_fields(view: Any, n: int) -> dict[str, list[float]]:
    """Some fields of the observation vector, computed from the view the plain way."""

    def block(values: Any) -> list[float]:
        out = [0.0] * E.MAX_SEATS
        for offset in range(n):
            out[offset] = float(values[(view.seat + offset) % n])
        return out

    def counts(cards: Any) -> list[float]:
        out = [0.0] * 73
        for card in cards:
            out[card] += 1.0
        return out

    def one_hot(seat: int | None) -> list[float]:
        out = [0.0] * E.MAX_SEATS
        if seat is not None:
            out[(seat - view.seat) % n] = 1.0
        return out

    return {"hand": counts(view.hand), "discard": counts(view.discard),
            "partner_hand": counts(view.partner_hand or ()),
            "hand_sizes": block(view.hand_sizes), "scores": block(view.scores),
            "active": block(view.active), "levels": block(view.levels),
            "current": one_hot(view.current_player), "dealer": one_hot(view.dealer),
            "uno_open": one_hot(view.uno_open),
            "phase": [float(p == view.phase) for p in E.PHASES],
            "pending_draw": [float(view.pending_draw)], "draw_pile": [float(view.draw_pile_size)]}


def test_observation_fields_follow_the_view() -> None:
    rng = random.Random(13)
    for _ in range(5):
        rules = draw_rules(rng)
        e = raw_env(rules=rules, max_cycles=200)
        e.reset(seed=rng.randrange(2**32))
        for obs in random_steps(e, rng, 400):
            view = e.game.observation(e._sel)
            vector = obs["observation"]
            for name, want in expected_fields(view, e.n).items():
                assert list(vector[E.field_slice(name)]) == want, name
            assert e.observation_space(e.agent_selection).contains(obs)


def test_environment_observation_matches_the_engine_view() -> None:
    rng = random.Random(9)
    e = raw_env(rules={"preset": "party", "rounds": 1}, players=3, max_cycles=300)
    e.reset(seed=2)
    for obs in random_steps(e, rng, 400):
        seat = e._sel
        fresh = E.ObservationEncoder(e.rules).encode(e.game.observation(seat), e.in_window,
                                                     e.building)
        assert np.array_equal(obs["observation"], fresh)
        described = E.describe_observation(obs["observation"])
        assert sum(described.get("hand", [])) == len(e.game.observation(seat).hand)


def test_environment_vectors_match_the_plain_encoding_under_random_rule_sets() -> None:
    rng = random.Random(21)
    for _ in range(6):
        rules = draw_rules(rng)
        e = raw_env(rules=rules, max_cycles=300)
        e.reset(seed=rng.randrange(2**32))
        for obs in random_steps(e, rng, 600):
            seat = e._sel
            plain = E.ObservationEncoder(e.rules).encode(e.game.observation(seat), e.in_window,
                                                         e.building)
            assert np.array_equal(obs["observation"], plain)
            other = rng.randrange(e.n)
            if other != seat:
                got = e.observe(f"player_{other}")["observation"]
                want = E.ObservationEncoder(e.rules).encode(e.game.observation(other))
                assert np.array_equal(got, want)


# ------------------------------------------------------------- episodes, masks
@pytest.mark.parametrize(("players", "windows"), [(2, "all"), (4, "useful"), (5, "none")])
def test_episodes_end_and_masks_are_never_empty(players: int, windows: str) -> None:
    rng = random.Random(players)
    for seed in range(2):
        e = env(rules={"preset": "official", "rounds": 1, "hand_size": 4}, players=players,
                windows=windows)
        e.reset(seed=seed)
        for obs in random_steps(e, rng, 100_000):
            mask = obs["action_mask"]
            assert mask.any()
            assert mask[E.NOOP] == e.unwrapped.in_window
            for name in e.unwrapped.possible_agents:
                if name != e.agent_selection:
                    assert not e.observe(name)["action_mask"].any()
        assert e.unwrapped.game.is_over()
        assert not e.agents


def test_max_cycles_truncates() -> None:
    e = env(rules="official", players=3, max_cycles=10)
    e.reset(seed=1)
    steps = list(random_steps(e, random.Random(1), 1000))
    assert len(steps) == 10
    assert not e.agents and not e.unwrapped.game.is_over()


def test_illegal_index_raises_and_changes_nothing() -> None:
    e = raw_env(rules="official", players=2)
    e.reset(seed=3)
    mask = e.observe(e.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    state = e.game.state_key()
    with pytest.raises(ValueError):
        e.step(bad)
    assert e.game.state_key() == state


def test_seeded_resets_repeat_and_unseeded_ones_follow() -> None:
    first, second = raw_env(rules="official"), raw_env(rules="official")
    first.reset(seed=12)
    second.reset(seed=12)
    assert first.game == second.game == Game(first.rules, 12)
    first.reset()
    second.reset()
    assert first.game == second.game


# ------------------------------------------------------------------- rewards
def play_out(e: Any, rng: random.Random) -> dict[str, float]:
    """Play ``e`` to the end with random legal indices; every agent's summed rewards (as
    ``last()`` hands them out)."""
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter(100_000):
        obs, reward, terminated, truncated, _info = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.randrange(legal.size)]))
    return totals


@pytest.mark.parametrize("scheme", ["match", "round", "points"])
def test_rewards(scheme: str) -> None:
    rules = {"preset": "official", "rounds": 2, "hand_size": 3}
    e = env(rules=rules, players=3, reward=scheme)
    e.reset(seed=8)
    totals = play_out(e, random.Random(3))
    game = e.unwrapped.game
    assert game.is_over()
    if scheme == "points":
        assert [totals[f"player_{s}"] for s in range(3)] == game.scores
    elif scheme == "match":
        winner = f"player_{game.match_winner}"
        assert totals == {name: 1.0 if name == winner else -1.0 for name in totals}
    else:
        assert sum(totals.values()) == -2.0  # two rounds: +1 -1 -1 each
        assert max(totals.values()) <= 2.0


def test_team_rewards_go_to_both_partners() -> None:
    e = env(rules={"preset": "pairs", "rounds": 1, "hand_size": 3})
    e.reset(seed=4)
    totals = play_out(e, random.Random(4))
    winner = e.unwrapped.game.match_winner
    mates = {f"player_{winner}", f"player_{(winner + 2) % 4}"}
    assert totals == {name: 1.0 if name in mates else -1.0 for name in totals}


# ---------------------------------------------------------------- gymnasium
def test_gymnasium_episodes_with_bots() -> None:
    for seat, players in ((0, 2), (2, 4)):
        g = UnoEnv(rules=ONE_ROUND, players=players, seat=seat,
                   opponents=("random", "playfirst"))
        obs, info = g.reset(seed=seat)
        terminated = truncated = False
        steps = 0
        rng = random.Random(seat)
        while not (terminated or truncated):
            legal = np.flatnonzero(g.action_masks())
            assert np.array_equal(obs["action_mask"], info["action_mask"])
            obs, reward, terminated, truncated, info = g.step(int(rng.choice(legal)))
            steps += 1
            assert steps < 50_000
        assert reward in (-1.0, 1.0) and g.game.is_over()


def test_gymnasium_illegal_action_is_penalized_or_raises() -> None:
    g = UnoEnv(rules=ONE_ROUND, players=2)
    obs, _ = g.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    state = g.game.state_key()
    _, reward, terminated, _truncated, info = g.step(bad)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, False, True)
    assert g.game.state_key() == state
    strict = UnoEnv(rules=ONE_ROUND, players=2, illegal_action="raise")
    strict.reset(seed=1)
    with pytest.raises(ValueError):
        strict.step(bad)


# ---------------------------------------------------------------- packaging, docs
def test_importing_unokit_needs_no_numpy() -> None:
    code = ("import sys, unokit, unokit.rl; "
            "assert not {'numpy', 'gymnasium', 'pettingzoo'} & set(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_docs_tables_are_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("gen_rl_docs",
                                                  ROOT / "scripts" / "gen_rl_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    assert module.render(text) == text, "run scripts/gen_rl_docs.py"
