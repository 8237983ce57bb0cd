"""A PettingZoo AEC environment: every seat of a unokit match is an agent.

Agents are ``player_0`` .. ``player_{n-1}`` (seat numbers). Each observation is a dict
``{"observation": float32 vector, "action_mask": int8 vector}`` (see
:mod:`unokit.rl.encoding` and ``docs/rl.md``); the selected agent's mask is never empty
while the match runs, every other agent's is all zeros.

Who is selected. After every action the environment asks the seats that may act out of
turn, one at a time in seat order after the *lead* (the current player; the first seat
still to slap; seat 0 between rounds), then the lead: the order of
:class:`unokit.engine.driver.Driver` (:class:`WindowRule` says which seats, at which
moments). Each asked seat gets a *window*: its legal actions plus ``noop``, which lets
the moment pass. A seat that has acted out of turn is not asked again until the turn
moves on (:class:`unokit.engine.driver.Driver`). Out-of-turn plays that depend on the
seat's own cards (jump-in, passing a Skip on) are offered on public grounds alone (to
every active seat whenever a jump-in is possible, to the skipped seat after a Skip), so
being asked tells the others nothing. ``windows="useful"`` leaves out the windows that
only offer speech (``silence``) and catches of seats that cannot be caught;
``windows="none"`` asks only the lead.

Rewards come at round and match ends: ``reward="match"`` (default) +1 to the match winner
(and partner), -1 to everyone else; ``"round"`` the same for each round's winner;
``"points"`` each round's change of the match total, negated where low totals win
(``penalty``, ``elimination``; nothing under ``lazy`` scoring). The episode is the whole
match (``rounds = 1`` in the rules makes it one round); ``max_cycles`` truncates it after
that many steps. Illegal indices: ``illegal_action="raise"`` (``raw_env``'s default)
raises ``ValueError`` and changes nothing; ``"terminate"`` (``env()``'s default, as
PettingZoo's classic games) ends the episode: ``illegal_reward`` (-1) for the offender,
0 for the others, every agent terminated, ``info["illegal_action"]`` for the offender.
When the episode ends every agent's info holds ``"summary"`` (:meth:`raw_env.summary`).

Backends: ``backend="engine"`` plays the match on :class:`unokit.Game`; ``"sim"`` plays it
on the simulator's compiled kernel (:mod:`unokit.rl._sim_kernel`, for the rule sets
:mod:`unokit.sim.support` accepts), step for step the same episode, observations and
masks bit for bit; ``"auto"`` (the default) takes ``"sim"`` where numba is installed and
the simulator plays the rules, else ``"engine"``.

>>> from unokit.rl.pettingzoo_env import env
>>> e = env(rules={"preset": "official", "rounds": 1}, players=2)
>>> e.reset(seed=3)
>>> e.agent_selection
'player_0'
>>> obs, reward, terminated, truncated, info = e.last()
>>> obs["observation"].shape, obs["action_mask"].shape
((641,), (362,))
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import logger, spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]
from pettingzoo.utils.env import AECIterable  # type: ignore[import-untyped]
from pettingzoo.utils.env_logger import EnvLogger  # type: ignore[import-untyped]

from unokit.engine import actions as A
from unokit.engine.cards import CODES, COLOR_LETTERS, WILD_DRAW_FOUR
from unokit.engine.driver import Driver
from unokit.engine.game import Game
from unokit.engine.observation import view_fields as _view_fields
from unokit.engine.phases import CHALLENGE, DRAWN, MATCH_OVER, PLAY, RESPOND, ROUND_OVER, SLAP
from unokit.engine.rules import Rules
from unokit.engine.scoring import teammates
from unokit.engine.support import Declaration
from unokit.rl.encoding import (
    ACTION_SIZE,
    NOOP,
    NOOP_ACTION,
    Node,
    ObservationEncoder,
    action_name,
    decision,
    encode_action,
)
from unokit.sim.support import CORE_SUPPORT as SIMULATOR_SUPPORT
from unokit.sim.support import check_supported, unsupported

REWARDS = ("match", "round", "points")
"""Reward schemes (see the module docstring)."""
WINDOWS = ("all", "useful", "none")
"""Which out-of-turn windows are offered (see the module docstring)."""
BACKENDS = ("auto", "engine", "sim")
"""Where the match is played (see the module docstring)."""
ILLEGAL_ACTIONS = ("raise", "terminate")
"""What an index the mask does not allow does (see the module docstring)."""
_CACHE_LIMIT = 200_000
_DONE_NODE = Node({})
_NO_QUEUE: list[int] = []


class WindowRule:
    """Which seats the environment asks out of turn, and when, for ``rules`` and a
    ``windows`` mode (see the module docstring): :meth:`open` and :meth:`offered` are the
    ``windows_open`` and ``offered`` of the environment's :class:`~unokit.engine.driver.Driver`
    (:meth:`driver`).

    >>> from unokit.engine.game import Game
    >>> rule = WindowRule(Rules.preset("official", players=3), "all")
    >>> driver = rule.driver(Game(rule.rules, seed=1))
    >>> driver.seats_to_ask() == [driver.lead()]
    True
    """

    __slots__ = ("_always", "_jump_in", "_on", "_skip_rule", "_useful", "rules", "windows")

    def __init__(self, rules: Rules, windows: str = "all") -> None:
        if windows not in WINDOWS:
            raise ValueError(f"windows must be one of {', '.join(WINDOWS)}, not {windows!r}")
        self.rules = rules
        self.windows = windows
        self._on = windows != "none"
        self._useful = windows == "useful"
        self._jump_in = rules.jump_in
        self._skip_rule = rules.skip_on_skip != "none"
        self._always = rules.jump_in or (windows == "all" and (
            rules.silence != "off" or rules.false_catch_penalty > 0))
        """Whether out-of-turn actions may arise at any moment (else only while an UNO
        call is open, during a slap or after a Skip)."""

    def open(self, game: Game) -> bool:
        """Whether any window may open now (never between rounds)."""
        phase = game.phase
        return self._on and phase is not ROUND_OVER and (
            self._always or game.uno_open >= 0 or phase is SLAP
            or (self._skip_rule and game.skip_from >= 0))

    def offered(self, game: Game, seat: int) -> bool:
        """Whether ``seat`` (not the lead) gets a window now; decided by what everyone
        can see."""
        if not game.active[seat]:
            return False
        if game.phase is PLAY:
            # Plays that hang on the seat's own cards: offered whenever the public state
            # allows them, so that a window says nothing about a hand (and no list of
            # legal actions is needed).
            if (self._jump_in and not game.fresh and game.discard
                    and game.discard[-1] != WILD_DRAW_FOUR):
                return True
            if self._skip_rule and seat == game.skip_from:
                return True
        legal = game.legal_actions(seat)
        if self._useful:
            open_seat = game.uno_open
            legal = [a for a in legal if A.action_type(a) != A.SAY
                     and (A.action_type(a) != A.CATCH or A.action_target(a) == open_seat)]
        return bool(legal)

    def driver(self, game: Game) -> Driver:
        """The driver that selects the agents of ``game``."""
        return Driver(game, offered=self.offered, windows_open=self.open)


def env(rules: Rules | str | Mapping[str, Any] = "official", players: int | None = None,
        render_mode: str | None = None, **options: Any) -> Any:
    """The environment as PettingZoo's classic games ship it: :class:`raw_env` in an
    order-enforcing wrapper, an illegal index ending the episode with -1 for the offender
    (``illegal_action="terminate"``). ``options``: ``reward``, ``windows``,
    ``max_cycles``, ``backend``, ``illegal_action``, ``illegal_reward``."""
    options.setdefault("illegal_action", "terminate")
    return OrderEnforcing(
        raw_env(rules=rules, players=players, render_mode=render_mode, **options))


def _load_rules(rules: Rules | str | Mapping[str, Any], players: int | None) -> Rules:
    loaded = Rules.load(rules)
    if players is not None and players != loaded.players:
        loaded = loaded.with_(players=players)
    return loaded


SIM_BACKEND_SUPPORT: Declaration = dict(SIMULATOR_SUPPORT)
"""The rules the ``sim`` backend (:mod:`unokit.rl.fast_backend`) plays, key by key (see
:mod:`unokit.engine.support`): those of the simulator's kernel, which it runs; its
schedule, masks and encoding (:mod:`unokit.rl._sim_kernel`) cover every rule set the
kernel plays (``tests/test_rl_fast.py``)."""


def resolve_backend(backend: str, rules: Rules) -> str:
    """The backend (``"engine"`` or ``"sim"``) that ``backend`` means for ``rules``.

    Raises:
        ValueError: an unknown backend.
        RulesError: ``"sim"`` for rules the simulator does not play (naming the keys).
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if backend == "engine":
        return backend
    if backend == "sim":
        check_supported(rules, SIM_BACKEND_SUPPORT)
        return backend
    if unsupported(rules, SIM_BACKEND_SUPPORT):
        return "engine"
    try:
        import numba  # noqa: F401
    except ImportError:
        return "engine"
    return "sim"


class OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order-enforcing wrapper with direct paths for the calls made at every
    step (``last``, ``step``, ``agents``, ``agent_selection``); same checks, same
    behaviour."""

    @property
    def agents(self) -> list[str]:
        """The agents still in the episode."""
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        agents: list[str] = self.env.agents
        return agents

    @property
    def agent_selection(self) -> str:
        """The agent to act."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        selection: str = self.env.agent_selection
        return selection

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        """See :meth:`pettingzoo.AECEnv.agent_iter` (the same checks as PettingZoo's
        order-enforcing iterator)."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """See :meth:`pettingzoo.AECEnv.last`."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        result: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return result

    def step(self, action: Any) -> None:
        """See :meth:`pettingzoo.AECEnv.step`."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)


class _AgentIterable(AECIterable):  # type: ignore[misc]
    """What :meth:`OrderEnforcing.agent_iter` returns: iterates over a generator."""

    def __iter__(self) -> Iterator[str]:
        return _agents(self.env, self.max_iter)


class _RawAgentIterable(AECIterable):  # type: ignore[misc]
    """What :meth:`raw_env.agent_iter` returns: iterates over a generator."""

    def __iter__(self) -> Iterator[str]:
        return _raw_agents(self.env, self.max_iter)


def _raw_agents(env: raw_env, max_iter: int) -> Iterator[str]:
    """The selected agent while agents remain, at most ``max_iter`` times."""
    while env.agents and max_iter > 0:
        max_iter -= 1
        yield env.agent_selection


def _agents(wrapper: OrderEnforcing, max_iter: int) -> Iterator[str]:
    """The selected agent while agents remain, at most ``max_iter`` times; like
    PettingZoo's order-enforcing iterator, each one must be followed by a step."""
    inner = wrapper.env
    while inner.agents and max_iter > 0:
        max_iter -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        yield inner.agent_selection


class raw_env(AECEnv):  # type: ignore[misc]
    """The AEC environment without wrappers (see the module docstring).

    Args:
        rules: a rule set (:class:`~unokit.engine.rules.Rules`, a mapping, a preset name or
            compact string).
        players: overrides the rules' ``players`` (2-10).
        render_mode: ``None``, ``"human"`` (print) or ``"ansi"`` (return the text).
        reward: ``"match"``, ``"round"`` or ``"points"``.
        windows: ``"all"``, ``"useful"`` or ``"none"``.
        max_cycles: truncate the episode after this many steps (``None``: never).
        backend: ``"auto"``, ``"engine"`` or ``"sim"`` (see the module docstring).
        illegal_action: ``"raise"`` or ``"terminate"`` (see the module docstring).
        illegal_reward: the offender's reward under ``"terminate"``.

    Raises:
        RulesError: ``backend="sim"`` and the simulator does not play the rules.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads it from the class)
        "render_modes": ["human", "ansi"],
        "name": "unokit_uno_v0",
        "is_parallelizable": False,
    }
    backend = "engine"
    """The backend playing the match: ``"engine"`` or ``"sim"`` (then the object is a
    :class:`unokit.rl.fast_backend.SimEnv`, a subclass)."""

    def __new__(cls, rules: Rules | str | Mapping[str, Any] = "official",
                players: int | None = None, render_mode: str | None = None,
                reward: str = "match", windows: str = "all",
                max_cycles: int | None = None, backend: str = "auto",
                illegal_action: str = "raise", illegal_reward: float = -1.0) -> raw_env:
        """An environment of the class that plays the backend (see the module docstring)."""
        if cls is raw_env and resolve_backend(backend, _load_rules(rules, players)) == "sim":
            from unokit.rl.fast_backend import SimEnv

            cls = SimEnv
        made: raw_env = super().__new__(cls)
        return made

    def __getnewargs_ex__(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """What a copy or unpickling passes to :meth:`__new__`: the class of this object
        (not the default backend's)."""
        return (), {"backend": "engine"}

    def __init__(self, rules: Rules | str | Mapping[str, Any] = "official",
                 players: int | None = None, render_mode: str | None = None,
                 reward: str = "match", windows: str = "all",
                 max_cycles: int | None = None, backend: str = "auto",
                 illegal_action: str = "raise", illegal_reward: float = -1.0) -> None:
        super().__init__()
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTIONS)}, "
                             f"not {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        loaded = _load_rules(rules, players)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if windows not in WINDOWS:
            raise ValueError(f"windows must be one of {', '.join(WINDOWS)}, not {windows!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError("max_cycles must be at least 1")
        self.rules = loaded
        self.render_mode = render_mode
        self.reward_scheme = reward
        self.windows = windows
        self.max_cycles = max_cycles
        n = self.n = loaded.players
        self.possible_agents = [f"player_{seat}" for seat in range(n)]
        self._index = {name: seat for seat, name in enumerate(self.possible_agents)}
        self.encoder = ObservationEncoder(loaded)
        """Turns views into vectors (:class:`~unokit.rl.encoding.ObservationEncoder`)."""
        self._encode = self.encoder.encode_fields
        self.observation_spaces = {
            name: spaces.Dict({
                "observation": spaces.Box(self.encoder.low, self.encoder.high,
                                          dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (ACTION_SIZE,), dtype=np.int8),
            })
            for name in self.possible_agents
        }
        self.action_spaces = {name: spaces.Discrete(ACTION_SIZE)
                              for name in self.possible_agents}
        self.window_rule = WindowRule(loaded, windows)
        """Which seats are asked out of turn, and when (:class:`WindowRule`)."""
        self._points_sign = {"standard": 1.0, "penalty": -1.0, "elimination": -1.0,
                             "lazy": 0.0}[loaded.scoring]
        self._teams = [teammates(loaded, seat) for seat in range(n)]
        self._enc_cache: dict[int, tuple[int, ...]] = {}
        self._tokens: dict[int, int] = {}
        """Engine action -> its action index (-1: it takes several)."""
        self._nodes: tuple[dict[tuple[int, ...], Node], dict[tuple[int, ...], Node]] = ({}, {})
        self._seeds = random.Random()
        if self.backend == "engine":
            self.game: Game = Game(loaded, seed=0)
            """The match being played (for tools and tests; agents see only
            observations)."""
            self._driver = self.window_rule.driver(self.game)
        self._sel = 0
        self._lead = 0
        self._queue: list[int] = _NO_QUEUE
        self._window = False
        self._building: tuple[int, ...] = ()
        self._node = _DONE_NODE
        self._done = True
        self._dirty = False
        self._steps = 0
        self._turns = 0
        self._scores_before: list[int] = []

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        """See :meth:`pettingzoo.AECEnv.agent_iter`."""
        return _RawAgentIterable(self, max_iter)

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same :class:`gymnasium.spaces.Dict` object on every call for an agent."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(ACTION_SIZE)``, the same object on every call for an agent."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new match. ``seed`` is the game's seed (``Game(rules, seed)``); later
        resets without a seed draw seeds that follow from it."""
        if seed is not None:
            self._seeds.seed(seed)
            game_seed = seed % 2**64
        else:
            game_seed = self._seeds.getrandbits(63)
        self.game = Game(self.rules, seed=game_seed)
        self._driver = self.window_rule.driver(self.game)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {name: {} for name in self.agents}
        self._done = False
        self._dirty = False
        self._steps = 0
        self._turns = 0
        self._scores_before = list(self.game.scores)
        self.encoder.forget()
        self._schedule()

    # ----------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """The agent's observation and action mask (the vector is built from
        :func:`unokit.engine.observation.view_fields` only: what ``game.observation(seat)``
        holds)."""
        seat = self._index[agent]
        if seat == self._sel and not self._done:
            return {"observation": self._encode(_view_fields(self.game, seat), self._window,
                                                self._building),
                    "action_mask": self._node.array.copy()}
        return {"observation": self._encode(_view_fields(self.game, seat)),
                "action_mask": np.zeros(ACTION_SIZE, dtype=np.int8)}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, cumulative reward, termination, truncation
        and info (see :meth:`pettingzoo.AECEnv.last`)."""
        agent = self.agent_selection
        obs: dict[str, npt.NDArray[Any]] | None = None
        if observe:
            # While the match runs the selected agent is seat _sel.
            obs = self.observe(agent) if self._done else self._selected_observation()
        return (obs, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def observe_mask(self) -> npt.NDArray[np.int8]:
        """The selected agent's action mask alone (all zeros once the episode is over)."""
        if self._done:
            return np.zeros(ACTION_SIZE, dtype=np.int8)
        return self._selected_mask()

    # What last() and observe_mask() read on this backend (the sim backend has its own).
    def _selected_observation(self) -> dict[str, npt.NDArray[Any]]:
        return {"observation": self._encode(_view_fields(self.game, self._sel), self._window,
                                            self._building),
                "action_mask": self._node.array.copy()}

    def _selected_mask(self) -> npt.NDArray[np.int8]:
        return self._node.array.copy()

    # -------------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        """Take the selected agent's action (an index whose mask entry is 1)."""
        if self._done:
            self._was_dead_step(action)
            return
        agent = self.agent_selection
        if action is None:
            raise ValueError(f"{agent} must act: None is only for finished agents")
        token = int(action)
        choice = self._node.choices.get(token)
        if choice is None:
            self._illegal(token)
            return
        self._cumulative_rewards[agent] = 0.0
        if self._dirty:
            self._zero_rewards()
        if type(choice) is int:
            if choice != NOOP_ACTION:
                self._apply(choice)
            else:
                self._pass_window()
        else:
            assert isinstance(choice, Node)
            self._building = (*self._building, token)
            self._node = choice
        self._count_step()

    def step_engine(self, action: int | None) -> None:
        """Take a whole engine action (an ``int`` of :mod:`unokit.engine.actions`) for the
        selected agent, or ``None`` to let a window pass: for bots and scripted seats.

        Raises:
            ValueError: the action is not one the selected agent may take now.
        """
        agent = self.agent_selection
        if self._done:
            raise ValueError("the episode is over")
        if self.building:
            raise ValueError(f"{agent} is in the middle of a play; finish it with step()")
        if action is None:
            if not self.in_window:
                raise ValueError(f"{agent} must act: it is not in a window")
            self._begin(agent)
            self._engine_pass()
        else:
            if action not in self._engine_legal():
                raise ValueError(f"{A.format_action(action)} is not legal for {agent} now")
            self._begin(agent)
            self._engine_apply(action)
        self._count_step()

    # What step_engine does on this backend (the sim backend has its own).
    def _engine_legal(self) -> list[int]:
        return self.game.legal_actions(self._sel)

    def _engine_pass(self) -> None:
        self._pass_window()

    def _engine_apply(self, action: int) -> None:
        self._apply(action)

    def _begin(self, agent: str) -> None:
        self._cumulative_rewards[agent] = 0.0
        if self._dirty:
            self._zero_rewards()

    def _zero_rewards(self) -> None:
        rewards = self.rewards
        for name in rewards:
            rewards[name] = 0.0
        self._dirty = False

    def _count_step(self) -> None:
        """Count a step; at the episode's end (the match over, or ``max_cycles`` reached)
        put the summary into every agent's info."""
        self._steps += 1
        if self._done:
            self._summarise()
        elif self.max_cycles is not None and self._steps >= self.max_cycles:
            self._done = True
            for name in self.agents:
                self.truncations[name] = True
            self._summarise()

    def _illegal(self, token: int) -> None:
        """An index the mask does not allow (see the module docstring)."""
        agent = self.agent_selection
        if self.illegal_action == "raise":
            name = action_name(token) if 0 <= token < ACTION_SIZE else "out of range"
            raise ValueError(f"action {token} ({name}) is not legal for {agent} now")
        self._zero_rewards()
        for name in self.agents:
            self.terminations[name] = True
        self.rewards[agent] = self._cumulative_rewards[agent] = self.illegal_reward
        self._dirty = True
        self._done = True
        self.infos[agent]["illegal_action"] = True
        self._steps += 1
        self._summarise()

    def _summarise(self) -> None:
        """Every agent's info gets the summary of the episode that just ended."""
        summary = self.summary()
        for name in self.agents:
            self.infos[name]["summary"] = summary

    def summary(self) -> dict[str, Any]:
        """The game so far: ``winner`` (the match winner's seat, -1 while none),
        ``scores`` (match totals by seat), ``steps`` (every agent's, this episode),
        ``actions`` (engine actions applied), ``turns`` (plays, draws that end a turn,
        passes, challenges, penalties taken), ``rounds`` (the round number).

        >>> e = raw_env(rules={"preset": "official", "rounds": 1}, players=2)
        >>> e.reset(seed=1)
        >>> e.summary()
        {'winner': -1, 'scores': [0, 0], 'steps': 0, 'actions': 0, 'turns': 0, 'rounds': 1}
        """
        game = self.game
        return {"winner": game.match_winner if game.phase is MATCH_OVER else -1,
                "scores": list(game.scores), "steps": self._steps,
                "actions": len(game.history), "turns": self._turns, "rounds": game.round_no}

    def _pass_window(self) -> None:
        queue = self._queue
        queue.pop(0)
        if queue:
            self._select(queue[0], True)
        else:
            self._select(self._lead, False)

    def _apply(self, action: int) -> None:
        game = self.game
        phase = game.phase
        self._driver.apply(action)
        now = game.phase
        kind = A.action_type(action)  # turns, as unokit.sim.policies.play_reference counts
        if kind == A.PLAY or kind == A.PASS or kind == A.CHALLENGE or (kind == A.DRAW and (
                phase is CHALLENGE or phase is RESPOND or now is not DRAWN)):
            self._turns += 1
        if now is not phase and (now is ROUND_OVER or now is MATCH_OVER):
            self._round_over()
        self._schedule()

    # --------------------------------------------------------------- schedule
    def _schedule(self) -> None:
        """Select the next agent: the first seat owed a window, else the lead."""
        if self.game.phase is MATCH_OVER:
            self._done = True
            self._node = _DONE_NODE
            for name in self.agents:
                self.terminations[name] = True
            return
        driver = self._driver
        lead = self._lead = driver.lead()
        queue = driver.windows()
        if queue:
            self._queue = queue
            self._select(queue[0], True)
            return
        self._queue = _NO_QUEUE
        self._select(lead, False)

    def _select(self, seat: int, window: bool) -> None:
        self._sel = seat
        self.agent_selection = self.possible_agents[seat]
        self._window = window
        self._building = ()
        legal = self.game.legal_tuple(seat)
        node = self._nodes[window].get(legal)
        if node is None:
            node = self._new_node(seat, window, legal)
        self._node = node

    def _new_node(self, seat: int, window: bool, legal: tuple[int, ...]) -> Node:
        """The decision of ``seat`` with these legal actions, built and kept."""
        if not legal and not window:
            raise RuntimeError(f"seat {seat} must act but has no legal action")
        cache = self._nodes[window]
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
        tokens = self._tokens
        if len(tokens) > _CACHE_LIMIT:
            tokens.clear()
            self._enc_cache.clear()
        # One token per action (the usual case): no tree to build.
        choices: dict[int, int | Node] = {}
        for action in legal:
            token = tokens.get(action)
            if token is None:
                encoded = self._enc_cache[action] = encode_action(action, seat, self.n)
                token = tokens[action] = encoded[0] if len(encoded) == 1 else -1
            if token < 0:
                node = decision(legal, seat, self.n, window, self._enc_cache)
                break
            choices[token] = action
        else:
            if window:
                choices[NOOP] = NOOP_ACTION
            node = Node(choices)
        cache[legal] = node
        return node

    # ----------------------------------------------------------------- rewards
    def _round_over(self) -> None:
        game = self.game
        self._reward_round(list(game.scores), game.round_winner,
                           game.match_winner if game.phase is MATCH_OVER else -1)

    def _reward_round(self, scores: list[int], round_winner: int, match_winner: int) -> None:
        """Give the rewards of a round that just ended (both backends): ``scores`` are
        the match totals now, ``match_winner`` is -1 unless the match is over too."""
        n = self.n
        values = [0.0] * n
        scheme = self.reward_scheme
        if scheme == "points":
            sign = self._points_sign
            before = self._scores_before
            values = [sign * (scores[s] - before[s]) for s in range(n)]
        else:
            winner = round_winner if scheme == "round" else match_winner
            if winner >= 0:
                mates = self._teams[winner]
                values = [1.0 if s in mates else -1.0 for s in range(n)]
        self._scores_before = scores
        if any(values):
            for seat, value in enumerate(values):
                name = self.possible_agents[seat]
                self.rewards[name] = value
                self._cumulative_rewards[name] += value
            self._dirty = True

    # ------------------------------------------------------------------- tools
    def legal_engine_actions(self) -> list[int]:
        """The engine actions the selected agent may take now (within a play being
        built, those that start with its tokens)."""
        return [] if self._done else self._node.actions()

    def action_tokens(self, action: int) -> tuple[int, ...]:
        """The action indices that take an engine action of the selected agent."""
        return encode_action(action, self._sel, self.n)

    @property
    def history(self) -> list[int]:
        """The engine actions applied since the reset, in order (a copy)."""
        return list(self.game.history)

    @property
    def in_window(self) -> bool:
        """Whether the selected agent is in an out-of-turn window (``noop`` allowed)."""
        return self._window and not self._done

    @property
    def building(self) -> tuple[int, ...]:
        """The tokens of the play the selected agent is building (empty if none)."""
        return self._building

    def render(self) -> str | None:
        """The table with every hand shown (an all-seeing view: neither an agent's nor a
        spectator's, who sees no hand)."""
        if self.render_mode is None:
            logger.warn("render() without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        game = self.game
        top = CODES[game.discard[-1]] if game.discard else "-"
        color = COLOR_LETTERS[game.color] if game.color >= 0 else "-"
        lines = [f"round {game.round_no}, phase {game.phase.value}, top {top}, colour {color}, "
                 f"{'clockwise' if game.direction == 1 else 'counter-clockwise'}, "
                 f"draw pile {len(game.draw_pile)}, pending {game.pending}"]
        for seat in range(self.n):
            mark = ">" if seat == self._sel and not self._done else " "
            hand = " ".join(CODES[c] for c in sorted(game.hands[seat]))
            lines.append(f"{mark} {self.possible_agents[seat]}: {hand or '(none)'}  "
                         f"[score {game.scores[seat]}]")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


__all__ = ["BACKENDS", "ILLEGAL_ACTIONS", "NOOP", "REWARDS", "WINDOWS", "WindowRule", "env",
           "raw_env", "resolve_backend"]
