"""RLCard compatibility mode: UNO exactly as RLCard 1.2.0 plays it, with its 61 actions,
its 4x4x15 observation planes and its payoffs, so that results published with RLCard can be
reproduced with unokit.

**Why a separate module.** RLCard's UNO is not a rule set of the engine's schema
(``RULES.md``): several of its behaviours are not UNO rules at all but consequences of how
its code is written (a drawn wild card played by itself with a random colour and no
effect, every played card including the top card shuffled back into the draw pile, Wild
Draw Four legal only when nothing else is, no UNO call, no challenge). Adding rule keys for
them would put non-rules into the schema, so this module is a small game of its own that
shares only the random number generator (:class:`unokit.engine.rng.SplitMix64`) and the error
types with the engine. It does not use :class:`unokit.engine.game.Game`.

**What is the same as RLCard 1.2.0** (``rlcard/games/uno/*.py`` and ``rlcard/envs/uno.py``):
every rule below, the order of the legal actions, the action ids, the observation planes,
the raw state dict and the payoffs. **What differs:** the random numbers. RLCard shuffles
with ``numpy.random.RandomState``; here every shuffle and random colour comes from one
SplitMix64 stream, so a seed gives the same games as in unokit on any machine, and the
games are distributed as RLCard's but are not the same games for the same seed
(``benchmarks/rlcard_parity.py`` checks the distributions).

Deviations of RLCard 1.2.0 from the official rules (``RULES.md`` section 2):

1. *Deal.* No dealer: seat 0 is first, 7 cards each (seat 0's seven, then seat 1's...).
2. *Start card.* A Wild Draw Four is put back and the whole draw pile reshuffled until
   another card turns up. A Wild takes a random colour (nobody chooses). A Skip: seat 1
   starts. A Reverse: play runs counter-clockwise and the last seat starts (seat 1 with
   two players). A Draw Two: seat 0 draws two cards and then plays (is not skipped).
3. *Legal plays.* A card of the current colour or of the top card's rank/symbol, or a
   Wild (always). A Wild Draw Four only when no other card, plain Wild included, can be
   played; there is no challenge. Drawing is allowed only when nothing can be played.
4. *Drawing.* One card is drawn and the turn ends. A drawn wild (either kind) is played
   at once with a random colour and no effect (a drawn Wild Draw Four makes nobody draw).
   A drawn card of the current colour is played at once (a number becomes the top card;
   a Skip, Reverse or Draw Two takes effect). Any other drawn card, even one matching the
   top card's rank or symbol only, goes to the hand. Nobody chooses.
5. *Reverse with two players* changes the direction only: the other player plays next
   (in the official rules it acts as a Skip).
6. *Draw Two / Wild Draw Four* played from the hand: the next player draws 2 / 4 and is
   skipped (as in the official rules), also when the card was the player's last one.
7. *No UNO call*, no penalty for not calling, no scoring: the game is one hand and ends
   when a hand is empty.
8. *Empty draw pile.* Every card played since the last reshuffle, the top card included,
   goes back into the draw pile, which is shuffled whole; the top card stays the target
   (its colour and rank still count) while being a card of the pile. The same happens
   before a Draw Two or Wild Draw Four penalty when fewer than 2 / 4 cards are left.
   If there are still not enough cards, RLCard stops with an ``IndexError``; here
   :class:`DeckExhaustedError` is raised.
9. *Payoffs.* ``+1`` to the winner and ``-1`` to seat ``(1 - winner) mod n``, 0 to every
   other seat (for two players: +1 / -1; with three players a win of seat 2 gives seat 2
   ``-1``, as in RLCard, where the second assignment overwrites the first).
10. *Players.* RLCard's ``UnoGame`` takes any number of players and its environment
    always has two (it ignores ``game_num_players`` for UNO). :class:`RLCardUnoGame`
    takes 2 to 15 (15 x 7 cards and a start card fit in the deck);
    :class:`RLCardUnoEnv` takes ``game_num_players`` (default 2).

Encoding quirks kept as RLCard has them: a played Wild takes the first wild of that kind
in the hand; the observation's *target* plane marks a wild target under the colour
*printed* on that card when the deck was built (each colour has one Wild and one Wild
Draw Four), not the colour chosen for it (RLCard's ``card.str`` is not updated when the
colour changes); the raw state's ``hand`` and ``played_cards`` show the colour a wild
was last given; the ``legal_actions`` ids of any seat's env state are the current
player's. Cards here are ints equal to the action id of the card as the deck built
it (``colour * 15 + trait``, colours r, g, b, y as in RLCard, traits ``0``-``9``,
``skip``, ``reverse``, ``draw_2``, ``wild``, ``wild_draw_4``); action 60 is ``draw``.

>>> game = RLCardUnoGame(num_players=2, seed=3)
>>> game.current_player, len(game.hands[0]), len(game.hands[1])
(0, 7, 7)
>>> state = game.get_state(0)
>>> state["hand"], state["target"]
(['r-6', 'b-skip', 'b-5', 'r-4', 'r-reverse', 'b-6', 'r-7'], 'b-7')
>>> game.legal_actions(), state["legal_actions"]
([40, 35, 36, 7], ['b-skip', 'b-5', 'b-6', 'r-7'])
>>> while not game.is_over():
...     _ = game.step(game.legal_actions()[0])
>>> game.winner, game.payoffs()
(1, [-1, 1])

The environment mirrors ``rlcard.make("uno")``:

>>> env = RLCardUnoEnv({"seed": 5})
>>> state, player = env.reset()
>>> state["obs"].shape, list(state["legal_actions"])[:3], player
((4, 4, 15), [...], 0)
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from unokit.engine.errors import IllegalActionError, UnoError
from unokit.engine.rng import SplitMix64

# ------------------------------------------------------------------- cards and actions
COLORS: tuple[str, ...] = ("r", "g", "b", "y")
"""RLCard's colours in its order (``COLOR_MAP``): the colour index of a card id."""
TRAITS: tuple[str, ...] = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
                           "skip", "reverse", "draw_2", "wild", "wild_draw_4")
"""RLCard's traits in its order (``TRAIT_MAP``)."""
SKIP, REVERSE, DRAW_2, WILD, WILD_DRAW_4 = 10, 11, 12, 13, 14
DRAW = 60
"""The action id of ``draw``."""
NUM_ACTIONS = 61
ACTION_LIST: tuple[str, ...] = (
    *(f"{c}-{t}" for c in COLORS for t in TRAITS), "draw")
"""Action names by id, as RLCard's ``ACTION_LIST`` (``r-0`` is 0, ``y-wild_draw_4`` 59)."""
ACTION_SPACE: dict[str, int] = {name: i for i, name in enumerate(ACTION_LIST)}
"""Action ids by name, as RLCard's ``ACTION_SPACE``."""
STATE_SHAPE = (4, 4, 15)
"""The observation's shape: planes (not held, held once, held twice, target) x colour x trait."""

COLOR_OF: tuple[int, ...] = tuple(i // 15 for i in range(60))
TRAIT_OF: tuple[int, ...] = tuple(i % 15 for i in range(60))
_WILDS = tuple(c * 15 + WILD for c in range(4))
_WILD4S = tuple(c * 15 + WILD_DRAW_4 for c in range(4))
_DRAW_ONLY = (DRAW,)


def action_id(action: int | str) -> int:
    """The id of an action given by id or by RLCard's name.

    >>> action_id("g-reverse"), action_id("draw"), action_id(7)
    (26, 60, 7)
    """
    if isinstance(action, str):
        if action not in ACTION_SPACE:
            raise UnoError(f"no RLCard UNO action is called {action!r}")
        return ACTION_SPACE[action]
    if not 0 <= action < NUM_ACTIONS:
        raise UnoError(f"RLCard UNO action ids are 0-60, not {action}")
    return int(action)


def init_deck() -> list[int]:
    """The 108 cards in the order RLCard's ``init_deck`` builds them (before the shuffle):
    for each colour a 0, two of each of 1-9, two Skips, Reverses and Draw Twos, one Wild
    and one Wild Draw Four printed with that colour.

    >>> deck = init_deck()
    >>> len(deck), deck[:4], deck[25:27]
    (108, [0, 1, 1, 2], [13, 14])
    """
    deck: list[int] = []
    for color in range(4):
        base = color * 15
        deck.append(base)
        for num in range(1, 10):
            deck += (base + num, base + num)
        for trait in (SKIP, REVERSE, DRAW_2):
            deck += (base + trait, base + trait)
        deck += (base + WILD, base + WILD_DRAW_4)
    return deck


class DeckExhaustedError(UnoError):
    """A card must be drawn and neither the draw pile nor the played cards have enough
    (RLCard 1.2.0 stops with an ``IndexError`` at the same point)."""


# ---------------------------------------------------------------------------- the game
class RLCardUnoGame:
    """One game (one hand) under RLCard 1.2.0's UNO rules; see the module docstring.

    ``hands[p]`` lists seat ``p``'s cards in RLCard's hand order; ``deck`` is the draw
    pile (top = end); ``played`` the cards played since the last reshuffle (the target
    included). The constructor deals the first game; :meth:`init_game` deals another,
    continuing the same random stream (as RLCard's ``init_game`` does).

    >>> g = RLCardUnoGame(seed=1)
    >>> sum(map(len, g.hands)) + len(g.deck) + len(g.played)
    108
    """

    def __init__(self, num_players: int = 2, seed: int = 0) -> None:
        if not 2 <= num_players <= 15:
            raise UnoError(f"RLCard UNO compat needs 2 to 15 players, not {num_players}")
        self.num_players = num_players
        self.seed = seed
        self.rng = SplitMix64(seed)
        self.init_game()

    # -- set-up
    def init_game(self) -> int:
        """Deal a new game (RLCard's ``init_game``); return the first player."""
        n = self.num_players
        self.deck: list[int] = init_deck()
        self.rng.shuffle(self.deck)
        self.color: list[int] = list(COLOR_OF)
        """The colour each card id shows now; only wilds ever change it."""
        self.hands: list[list[int]] = []
        for _ in range(n):
            self.hands.append([self.deck.pop() for _ in range(7)])
        self.direction = 1
        self.current_player = 0
        self.winner: int | None = None
        self.played: list[int] = []
        # flip_top_card
        top = self.deck.pop()
        while TRAIT_OF[top] == WILD_DRAW_4:
            self.deck.append(top)
            self.rng.shuffle(self.deck)
            top = self.deck.pop()
        if TRAIT_OF[top] == WILD:
            self.color[top] = self.rng.below(4)
        self.target = top
        self.played.append(top)
        # perform_top_card
        trait = TRAIT_OF[top]
        if trait == SKIP:
            self.current_player = 1
        elif trait == REVERSE:
            self.direction = -1
            self.current_player = (0 - 1) % n
        elif trait == DRAW_2:
            self._deal(self.current_player, 2)
        return self.current_player

    def copy(self) -> RLCardUnoGame:
        """An independent copy (its random stream continues from the same point)."""
        new = RLCardUnoGame.__new__(RLCardUnoGame)
        new.__dict__.update(self.__dict__)
        new.rng = SplitMix64(0)
        new.rng.state = self.rng.state
        new.deck, new.color, new.played = list(self.deck), list(self.color), list(self.played)
        new.hands = [list(h) for h in self.hands]
        return new

    # -- queries
    def is_over(self) -> bool:
        """True once a hand is empty."""
        return self.winner is not None

    @property
    def target_color(self) -> int:
        """The colour to match: the top card's, or the colour its wild was given."""
        return self.color[self.target]

    def raw_legal_actions(self, player: int | None = None) -> list[int]:
        """RLCard's ``get_legal_actions`` as ids, in its order and with its repeats (a
        card held twice is listed twice). ``player`` defaults to the current one."""
        hand = self.hands[self.current_player if player is None else player]
        tcolor = self.color[self.target]
        ttrait = TRAIT_OF[self.target]
        legal: list[int] = []
        wild = wild4 = False
        for card in hand:
            trait = TRAIT_OF[card]
            if trait == WILD_DRAW_4:
                wild4 = True
            elif trait == WILD:
                if not wild:
                    wild = True
                    legal += _WILDS
            elif COLOR_OF[card] == tcolor or trait == ttrait:
                legal.append(card)
        if legal:
            return legal
        return list(_WILD4S) if wild4 else list(_DRAW_ONLY)

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The distinct legal action ids in RLCard's order (the keys of its env's
        ``legal_actions``).

        >>> g = RLCardUnoGame(seed=3)
        >>> g.hands[0] = [ACTION_SPACE["g-wild"], ACTION_SPACE["b-wild_draw_4"]]
        >>> [ACTION_LIST[a] for a in g.legal_actions()]
        ['r-wild', 'g-wild', 'b-wild', 'y-wild']
        >>> g.hands[0] = [ACTION_SPACE["b-wild_draw_4"], ACTION_SPACE["r-1"]]
        >>> [ACTION_LIST[a] for a in g.legal_actions()]
        ['r-wild_draw_4', 'g-wild_draw_4', 'b-wild_draw_4', 'y-wild_draw_4']
        """
        return list(dict.fromkeys(self.raw_legal_actions(player)))

    def card_str(self, card: int) -> str:
        """A card as RLCard writes it now (``get_str()``: a wild with its current colour)."""
        return f"{COLORS[self.color[card]]}-{TRAITS[TRAIT_OF[card]]}"

    def get_state(self, player: int) -> dict[str, Any]:
        """RLCard's raw state of ``player`` (``UnoGame.get_state``): ``hand``, ``target``
        (the top card's name as printed, see the module docstring), ``played_cards``,
        ``legal_actions`` (names, RLCard's order and repeats), ``num_cards``,
        ``num_players`` and ``current_player``."""
        card_str = self.card_str
        return {
            "hand": [card_str(c) for c in self.hands[player]],
            "target": ACTION_LIST[self.target],
            "played_cards": [card_str(c) for c in self.played],
            "legal_actions": [ACTION_LIST[a] for a in self.raw_legal_actions(player)],
            "num_cards": [len(h) for h in self.hands],
            "num_players": self.num_players,
            "current_player": self.current_player,
        }

    def payoffs(self) -> list[int]:
        """RLCard's payoffs: all 0 until the game ends, then +1 to the winner and -1 to
        seat ``(1 - winner) mod n`` (written second, so it wins a clash)."""
        pay = [0] * self.num_players
        if self.winner is not None:
            pay[self.winner] = 1
            pay[(1 - self.winner) % self.num_players] = -1
        return pay

    # -- moves
    def step(self, action: int | str) -> int:
        """Apply the current player's action (id or RLCard name); return the next player.
        Raises :class:`~unokit.engine.errors.IllegalActionError` (game unchanged) for an action
        that is not legal now."""
        a = action_id(action)
        if self.winner is not None:
            raise IllegalActionError(ACTION_LIST[a], "the game is over")
        if a not in self.raw_legal_actions():
            raise IllegalActionError(ACTION_LIST[a], "not a legal action now")
        return self._apply(a)

    def _apply(self, a: int) -> int:
        """:meth:`step` for a legal action id, unchecked."""
        if a == DRAW:
            self._draw()
            return self.current_player
        p = self.current_player
        hand = self.hands[p]
        trait = TRAIT_OF[a]
        if trait >= WILD:
            index = next(i for i, c in enumerate(hand) if TRAIT_OF[c] == trait)
            self.color[hand[index]] = COLOR_OF[a]
        else:
            index = hand.index(a)
        card = hand.pop(index)
        if not hand:
            self.winner = p
        self.played.append(card)
        if trait <= 9:
            self.current_player = (p + self.direction) % self.num_players
            self.target = card
        else:
            self._action_card(card)
        return self.current_player

    def _replace_deck(self) -> None:
        self.deck += self.played
        self.rng.shuffle(self.deck)
        self.played = []

    def _deal(self, player: int, count: int) -> None:
        if len(self.deck) < count:
            raise DeckExhaustedError(
                f"seat {player} must draw {count} and the draw pile has {len(self.deck)}")
        hand, deck = self.hands[player], self.deck
        for _ in range(count):
            hand.append(deck.pop())

    def _draw(self) -> None:
        if not self.deck:
            self._replace_deck()
        if not self.deck:
            raise DeckExhaustedError(f"seat {self.current_player} must draw; no cards left")
        card = self.deck.pop()
        trait = TRAIT_OF[card]
        step = self.direction
        if trait >= WILD:
            self.color[card] = self.rng.below(4)
            self.target = card
            self.played.append(card)
            self.current_player = (self.current_player + step) % self.num_players
        elif COLOR_OF[card] == self.color[self.target]:
            self.played.append(card)
            if trait <= 9:
                self.target = card
                self.current_player = (self.current_player + step) % self.num_players
            else:
                self._action_card(card)
        else:
            self.hands[self.current_player].append(card)
            self.current_player = (self.current_player + step) % self.num_players

    def _action_card(self, card: int) -> None:
        """RLCard's ``_preform_non_number_action``: the effect of a non-number card."""
        current, n = self.current_player, self.num_players
        trait = TRAIT_OF[card]
        if trait == REVERSE:
            self.direction = -self.direction
        elif trait == SKIP:
            current = (current + self.direction) % n
        elif trait in (DRAW_2, WILD_DRAW_4):
            count = 2 if trait == DRAW_2 else 4
            if len(self.deck) < count:
                self._replace_deck()
            current = (current + self.direction) % n
            self._deal(current, count)
        self.current_player = (current + self.direction) % n
        self.target = card


# --------------------------------------------------------------------------- encoding
def encode_planes(hand: Iterable[int], target: int) -> npt.NDArray[np.int_]:
    """RLCard's 4x4x15 observation (``encode_hand`` into planes 0-2, ``encode_target``
    into plane 3) from card ids: plane 0 marks the cards not held, plane 1 those held
    once, plane 2 those held twice; a wild kind held marks plane 1 under all four
    colours; plane 3 marks the target card under its printed colour.

    >>> obs = encode_planes([ACTION_SPACE["r-5"], ACTION_SPACE["r-5"], 43], target=7)
    >>> int(obs[2, 0, 5]), int(obs[1, 0, 5]), obs[1, :, 13].tolist(), int(obs[3, 0, 7])
    (1, 0, [1, 1, 1, 1], 1)
    >>> int(obs[0].sum()), int(obs.sum())
    (55, 61)
    """
    obs = np.zeros(STATE_SHAPE, dtype=int)
    obs[0] = 1
    for card, count in Counter(hand).items():
        trait = TRAIT_OF[card]
        if trait >= WILD:
            obs[0, :, trait] = 0
            obs[1, :, trait] = 1
        else:
            color = COLOR_OF[card]
            obs[0, color, trait] = 0
            obs[count, color, trait] = 1
    obs[3, COLOR_OF[target], TRAIT_OF[target]] = 1
    return obs


# ------------------------------------------------------------------------ environment
class Agent(Protocol):
    """What :meth:`RLCardUnoEnv.run` needs of an agent (RLCard's agent interface)."""

    use_raw: bool

    def step(self, state: dict[str, Any]) -> Any: ...

    def eval_step(self, state: dict[str, Any]) -> tuple[Any, Any]: ...


class RLCardUnoEnv:
    """RLCard's ``UnoEnv`` (``rlcard.make("uno", config)``) over :class:`RLCardUnoGame`.

    ``config`` keys: ``seed`` (default 0: a seed is always used), ``allow_step_back``
    (default False), ``game_num_players`` (default 2; RLCard's UNO env ignores it and
    always has 2). The methods and the state dicts are RLCard's: ``reset()``,
    ``step(action, raw_action=False)`` returning ``(state, next_player)``, ``step_back()``,
    ``is_over()``, ``get_player_id()``, ``get_state(p)``, ``get_payoffs()`` (a numpy
    array), ``get_perfect_information()``, ``seed(s)``, ``set_agents``, ``run``. A state
    is ``{"obs": int array 4x4x15, "legal_actions": OrderedDict(id -> None),
    "raw_obs": get_state(p), "raw_legal_actions": names, "action_record": [(p, name)]}``.
    As in RLCard, an action id that is not legal is replaced by a random legal one
    (drawn from a generator of its own, seeded from the env's seed).

    >>> env = RLCardUnoEnv({"seed": 2})
    >>> state, p = env.reset()
    >>> while not env.is_over():
    ...     state, p = env.step(next(iter(state["legal_actions"])))
    >>> env.get_payoffs().tolist() in ([1, -1], [-1, 1])
    True
    """

    name = "uno"

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        cfg = {"seed": 0, "allow_step_back": False, "game_num_players": 2, **(config or {})}
        self.allow_step_back = bool(cfg["allow_step_back"])
        self.num_players = int(cfg["game_num_players"])
        self.num_actions = NUM_ACTIONS
        self.state_shape = [list(STATE_SHAPE) for _ in range(self.num_players)]
        self.action_shape: list[None] = [None for _ in range(self.num_players)]
        self.timestep = 0
        self.action_recorder: list[tuple[int, str]] = []
        self.history: list[RLCardUnoGame] = []
        self.agents: Sequence[Agent] = ()
        self.game = RLCardUnoGame(self.num_players, 0)
        self.seed(cfg["seed"])

    def seed(self, seed: int | None = None) -> int:
        """Reseed (``None`` means 0); the next :meth:`reset` deals from the new seed."""
        value = 0 if seed is None else int(seed)
        self.game.seed = value
        self.game.rng = SplitMix64(value)
        self._fallback = SplitMix64(value ^ 0x5EED_F00D_CAFE_B0B0)
        return value

    def reset(self) -> tuple[dict[str, Any], int]:
        """Deal a new game; return the first player's state and id."""
        player = self.game.init_game()
        self.action_recorder = []
        self.history = []
        return self._extract_state(player), player

    def step(self, action: int | str, raw_action: bool = False) -> tuple[dict[str, Any], int]:
        """Apply the current player's action (an id, or a name with ``raw_action``)."""
        name = action if raw_action and isinstance(action, str) else self._decode_action(action)
        if self.allow_step_back:
            self.history.append(self.game.copy())
        self.timestep += 1
        self.action_recorder.append((self.game.current_player, name))
        player = self.game.step(name)
        return self._extract_state(player), player

    def step_back(self) -> tuple[dict[str, Any], int] | bool:
        """Undo the last step (needs ``allow_step_back``); False at the first state."""
        if not self.allow_step_back:
            raise UnoError("step back is off: pass allow_step_back=True in the config")
        if not self.history:
            return False
        self.game = self.history.pop()
        player = self.game.current_player
        return self._extract_state(player), player

    def is_over(self) -> bool:
        return self.game.is_over()

    def get_player_id(self) -> int:
        return self.game.current_player

    def get_state(self, player_id: int) -> dict[str, Any]:
        return self._extract_state(player_id)

    def get_payoffs(self) -> npt.NDArray[np.int_]:
        return np.array(self.game.payoffs())

    def get_perfect_information(self) -> dict[str, Any]:
        g = self.game
        return {
            "num_players": self.num_players,
            "hand_cards": [[g.card_str(c) for c in hand] for hand in g.hands],
            "played_cards": [g.card_str(c) for c in g.played],
            "target": ACTION_LIST[g.target],
            "current_player": g.current_player,
            "legal_actions": [ACTION_LIST[a] for a in g.raw_legal_actions()],
        }

    def get_action_feature(self, action: int) -> npt.NDArray[np.int8]:
        feature = np.zeros(self.num_actions, dtype=np.int8)
        feature[action] = 1
        return feature

    def set_agents(self, agents: Sequence[Agent]) -> None:
        self.agents = agents

    def run(self, is_training: bool = False) -> tuple[list[list[Any]], npt.NDArray[np.int_]]:
        """Play one game with the agents of :meth:`set_agents` (RLCard's ``Env.run``);
        return the trajectories and the payoffs."""
        trajectories: list[list[Any]] = [[] for _ in range(self.num_players)]
        state, player = self.reset()
        trajectories[player].append(state)
        while not self.is_over():
            agent = self.agents[player]
            action = agent.step(state) if is_training else agent.eval_step(state)[0]
            state, next_player = self.step(action, agent.use_raw)
            trajectories[player].append(action)
            player = next_player
            if not self.game.is_over():
                trajectories[player].append(state)
        for p in range(self.num_players):
            trajectories[p].append(self.get_state(p))
        return trajectories, self.get_payoffs()

    def _decode_action(self, action: int | str) -> str:
        legal = self.game.legal_actions()
        a = action_id(action)
        if a in legal:
            return ACTION_LIST[a]
        return ACTION_LIST[legal[self._fallback.below(len(legal))]]

    def _extract_state(self, player: int) -> dict[str, Any]:
        g = self.game
        raw = g.get_state(player)
        # As in RLCard, the ids are the *current* player's legal actions, whoever's
        # state this is (they differ from raw_legal_actions only for another seat).
        legal: OrderedDict[int, None] = OrderedDict((a, None) for a in g.raw_legal_actions())
        return {
            "obs": encode_planes(g.hands[player], g.target),
            "legal_actions": legal,
            "raw_obs": raw,
            "raw_legal_actions": list(raw["legal_actions"]),
            "action_record": self.action_recorder,
        }


# ------------------------------------------------------------------------ random play
def random_game(game: RLCardUnoGame, choose: Callable[[int], int]) -> tuple[int, int]:
    """Play ``game`` to its end, each action drawn as ``legal[choose(len(legal))]`` from
    the distinct legal ids (RLCard's ``RandomAgent``); return (steps, winner).

    >>> g = RLCardUnoGame(seed=9)
    >>> rng = SplitMix64(1)
    >>> steps, winner = random_game(g, rng.below)
    >>> steps > 0 and winner in (0, 1) and g.is_over()
    True
    """
    steps = 0
    while game.winner is None:
        legal = game.legal_actions()
        game._apply(legal[choose(len(legal))])
        steps += 1
    return steps, game.winner


__all__ = [
    "ACTION_LIST",
    "ACTION_SPACE",
    "COLORS",
    "DRAW",
    "NUM_ACTIONS",
    "STATE_SHAPE",
    "TRAITS",
    "DeckExhaustedError",
    "RLCardUnoEnv",
    "RLCardUnoGame",
    "action_id",
    "encode_planes",
    "init_deck",
    "random_game",
]
