"""What a seat can learn from the observations it is shown, for the bots that count cards.

A :class:`Tracker` is told every observation its bot is asked about and the turn actions
the bot chose. From that alone (never from the game) it keeps, for the current round:

- the cards the seat has not seen (:meth:`Tracker.unseen`): the deck less its hand, the
  discard pile and a visible partner hand;
- a model of every other hand as *slots*, one per card, each with the features its card
  cannot have. A seat that drew on its turn had nothing that matched: every card it held
  then lacks the colour in force, the rank of the top card and wildness; a card drawn
  later is unconstrained, and a card played leaves the hand (a slot bound to its colour,
  else the most constrained slot it fits). A seat that named a colour with a wild holds
  a card of it (one slot is bound to that colour). :meth:`Tracker.has_chance` turns the
  slots into the chance that a seat holds a colour, and :meth:`Tracker.slots` lets a
  search deal hidden cards that respect them;
- the colour each seat last named with a wild (:meth:`Tracker.named`);
- the colour in force under the top card (:meth:`Tracker.color_under_top`), which judges
  a Wild Draw Four.

Between two turns of the seat, the cards that joined the discard pile and the changes
of the hand sizes are walked through in turn order; where they do not add up to one
plain course of play (hand swaps, penalties out of turn, a reshuffle), nothing is
concluded and the slots only follow the hand sizes. A new round (or game) clears
everything.

>>> from unokit import Game, Rules
>>> game = Game(Rules.preset("official", players=2, rounds=1), seed=1)
>>> tracker = Tracker(game.rules)
>>> seat = game.current_player
>>> tracker.update(game.observation(seat))
>>> sum(tracker.unseen(game.observation(seat)).values()) == 108 - 7 - len(game.discard)
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from unokit.engine import actions as A
from unokit.engine.cards import (
    COLOR_OF,
    DRAW_TWO,
    NUM_KINDS,
    RANK_OF,
    REVERSE,
    SKIP,
    WILD,
    WILD_DRAW_FOUR,
    WILD_SHUFFLE_HANDS,
    WILD_SWAP_HANDS,
    build_deck,
)
from unokit.engine.observation import Observation
from unokit.engine.rules import Rules

WILD_BIT = 1 << 20
"""The feature bit of wild cards (bits 0-3: colours, 4-19: ranks)."""
FEATURES = [WILD_BIT if k >= WILD else (1 << COLOR_OF[k]) | (1 << (4 + RANK_OF[k]))
            for k in range(NUM_KINDS)]
"""``FEATURES[card]``: its feature bits; a card fits a slot if they share none."""


def failed_mask(top: int, color: int) -> int:
    """The features a hand lacks that could not match ``top`` with ``color`` in force
    (0 when the colour is unknown)."""
    if color < 0:
        return 0
    mask = (1 << color) | WILD_BIT
    if 0 <= top < WILD:
        mask |= 1 << (4 + RANK_OF[top])
    return mask


def plain_rules(rules: Rules | None) -> bool:
    """Whether the rules keep hands apart and every turn simple enough for the walk of
    :class:`Tracker` (unknown rules count as plain: the walk checks itself)."""
    if rules is None:
        return True
    return not (rules.seven_swap or rules.zero_rotate or rules.five_exchange
                or rules.jump_in or rules.skip_on_skip != "none" or rules.multi_play != "off"
                or rules.deck == "attack" or rules.draw != "one" or rules.progressive_refill
                or rules.wild_color != "chosen" or rules.blank_card_effect == "transparent"
                or rules.draw_two_on_draw_two != "none" or rules.draw_four_on_draw_four != "none"
                or rules.draw_two_on_draw_four != "none" or rules.draw_four_on_draw_two != "none"
                or rules.reverse_deflects_draw
                or WILD_SWAP_HANDS in rules.deck_cards()
                or WILD_SHUFFLE_HANDS in rules.deck_cards())


def next_seat(seat: int, direction: int, active: Sequence[bool]) -> int:
    """The next active seat from ``seat`` in ``direction``."""
    n = len(active)
    nxt = (seat + direction) % n
    for _ in range(n):
        if active[nxt]:
            return nxt
        nxt = (nxt + direction) % n
    return seat


# An event of the walk: (seat, kind, value) with kind "fail" (value: mask), "gain" (value:
# cards), "play" (value: card) or "name" (value: the colour a wild of the seat named).
Event = tuple[int, str, int]


class Tracker:
    """The memory of one seat for one round. See the module docstring."""

    def __init__(self, rules: Rules | None = None, *, strict: bool = False) -> None:
        self.rules = rules
        self.strict = strict
        """Whether only what the rules guarantee is concluded: a card drawn and kept is
        then taken to have matched nothing only where a playable drawn card must be
        played (``play_drawn`` ``must``), a colour named with a wild binds no slot, and
        a stretch of play the walk cannot follow frees every slot.
        Otherwise (the default) both are concluded, as of a player who plays whatever
        it can and names the colour it holds most."""
        self.plain = plain_rules(rules)
        self.deck: Counter[int] = Counter(rules.deck_cards() if rules else build_deck("classic"))
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new round or game)."""
        self.key: tuple[object, ...] | None = None
        self.hands: list[list[int]] = []
        """Per seat, the masks of its slots (one per card)."""
        self.named_colors: list[int] = []
        self.anchor: tuple[Observation, int] | None = None
        self.colors_seen: dict[int, int] = {}
        """Discard pile length -> the colour in force when it was that long."""
        self.last: Observation | None = None

    # ------------------------------------------------------------------ updates
    def _round_key(self, obs: Observation) -> tuple[object, ...]:
        return (obs.seat, obs.round, obs.dealer, obs.scores, obs.in_match)

    def _starts_again(self, obs: Observation) -> bool:
        """Whether ``obs`` belongs to another round than the observations before."""
        last = self.last
        if self.key != self._round_key(obs) or last is None:
            return True
        if last.phase in ("round_over", "match_over") and obs.phase not in ("round_over",
                                                                              "match_over"):
            return True
        # A fresh deal of a new game with the same round number, dealer and scores.
        return (len(obs.discard) == 1 and len(set(obs.hand_sizes)) == 1
                and sum(obs.hand_sizes) >= sum(last.hand_sizes) + 2 * len(obs.hand_sizes))

    def update(self, obs: Observation) -> None:
        """Take in the observation a bot is asked about (call it before deciding)."""
        if self._starts_again(obs):
            self.reset()
            self.key = self._round_key(obs)
            n = len(obs.hand_sizes)
            self.hands = [[0] * size for size in obs.hand_sizes]
            self.named_colors = [-1] * n
        if (self.strict and self.anchor is None and obs.phase == "play"
                and obs.current_player == obs.seat and self.last is not None
                and obs != self.last):
            self._forget()  # a stretch of play with no turn action to walk from
        if self.anchor is not None and obs.phase == "play" and obs.current_player == obs.seat:
            anchor, action = self.anchor
            self.anchor = None
            events = self._walk(anchor, action, obs)
            if events is None:
                # Strict: cards may have come and gone unseen, so no slot holds.
                if self.strict or not self._kept_hand(anchor, action, obs):
                    self._forget()
            else:
                for event in events:
                    self._apply(event)
        self._sync(obs)
        if self.last is not None and len(obs.discard) < len(self.last.discard):
            self.colors_seen.clear()  # a reshuffle: the lengths start again
        if obs.color >= 0:
            self.colors_seen[len(obs.discard)] = obs.color
        self.last = obs

    def chose(self, obs: Observation, action: int | None) -> None:
        """Note the action the bot chose on ``obs`` (turn actions start a walk)."""
        if action is None or obs.current_player != obs.seat:
            return
        kind = A.action_type(action)
        if obs.phase in ("play", "drawn") and kind in (A.PLAY, A.DRAW, A.PASS):
            self.anchor = (obs, action)
            if kind == A.PLAY and A.action_card(action) >= WILD \
                    and A.action_color(action) < 4 and not A.action_extra(action):
                # The colour it names: the seat may next see its wild only under a card
                # played onto it (a Wild Draw Four to challenge).
                self.colors_seen[len(obs.discard) + 1] = A.action_color(action)
        elif obs.phase in ("challenge", "respond") and kind in (A.DRAW, A.CHALLENGE):
            # A penalty accepted, or a Wild Draw Four challenged: the turn passes as after
            # a draw (the cards either side draws are counted as plain gains).
            self.anchor = (obs, action)
        elif kind != A.UNO and kind != A.CATCH:
            self.anchor = None

    def _forget(self) -> None:
        """Cards changed hands: every slot is unconstrained again."""
        for hand in self.hands:
            hand[:] = [0] * len(hand)

    def _sync(self, obs: Observation) -> None:
        """Make the slots as many as the cards (new cards are unconstrained; cards gone
        take the most constrained slots with them)."""
        for seat, size in enumerate(obs.hand_sizes):
            if seat >= len(self.hands):
                break
            hand = self.hands[seat]
            if seat == obs.seat:
                hand[:] = [0] * size
                continue
            if len(hand) < size:
                hand.extend([0] * (size - len(hand)))
            elif len(hand) > size:
                hand.sort(key=_popcount)
                del hand[size:]

    def _apply(self, event: Event) -> None:
        seat, kind, value = event
        hand = self.hands[seat]
        if kind == "gain":
            hand.extend([0] * value)
        elif kind == "fail":
            for i, mask in enumerate(hand):
                # A slot bound to a colour it now lacks was bound wrongly: unbind it.
                hand[i] = value if _bound(mask) & value else mask | value
        elif kind == "name":
            if self.strict:  # a likelihood, not a fact (the expert weighs it)
                return
            # It named the colour it holds most of: one card at least is of that colour.
            bit = 1 << value
            fits = [i for i, mask in enumerate(hand) if not mask & bit]
            if fits:
                i = min(fits, key=lambda i: _popcount(hand[i]))
                hand[i] |= (0b1111 & ~bit) | WILD_BIT
        elif hand:
            features = FEATURES[value]
            fits = [i for i, mask in enumerate(hand) if not mask & features]
            bound = [i for i in fits if _bound(hand[i])]
            if bound:  # the card of the colour it was known to hold
                del hand[bound[0]]
            elif fits:
                del hand[max(fits, key=lambda i: _popcount(hand[i]))]
            else:  # it held what it was thought to lack: trust nothing about it
                hand.pop()
                hand[:] = [0] * len(hand)

    def _kept_hand(self, anchor: Observation, action: int, obs: Observation) -> bool:
        """Whether the seat's hand holds every card it kept since ``anchor`` (else cards
        changed hands)."""
        before = Counter(anchor.hand)
        if A.action_type(action) == A.PLAY:
            before -= Counter((A.action_card(action), *A.action_extra(action)))
        return not before - Counter(obs.hand)

    # -------------------------------------------------------------------- walk
    def _walk(self, anchor: Observation, action: int, obs: Observation) -> list[Event] | None:
        """The events since the seat's last turn action (see the module docstring), or
        ``None`` if they do not add up to one plain course of play."""
        if not self.plain or not self._kept_hand(anchor, action, obs):
            return None
        me = obs.seat
        n = len(obs.hand_sizes)
        base = list(anchor.discard)
        top, color = anchor.top, anchor.color
        mine: int | None = None
        if A.action_type(action) == A.PLAY:
            if A.action_target(action) != 15 or A.action_give(action) >= 0 \
                    or A.action_extra(action):
                return None
            mine = A.action_card(action)
            base.append(mine)
            top = mine
            color = A.action_color(action) if mine >= WILD else COLOR_OF[mine]
            if color == 7 or (mine >= WILD and mine not in (WILD, WILD_DRAW_FOUR)):
                return None
        if tuple(obs.discard[:len(base)]) != tuple(base):
            return None
        new = list(obs.discard[len(base):])
        rem = [obs.hand_sizes[s] - anchor.hand_sizes[s] for s in range(n)]
        if any(card >= WILD and card not in (WILD, WILD_DRAW_FOUR) for card in new):
            return None
        if sum(obs.active) == 2:
            return self._walk_two(me, mine, top, color, new, rem, obs)
        return self._walk_many(me, mine, anchor.direction, top, color, new, rem, obs)

    def _walk_many(self, me: int, mine: int | None, direction: int, top: int, color: int,
                   new: list[int], rem: list[int], obs: Observation) -> list[Event] | None:
        """Three or more players: each other seat has at most one turn before the seat's
        next one; its hand size tells whether it played (-1), drew and played (0) or drew
        and kept the card (+1)."""
        active = obs.active
        n = len(active)
        events: list[Event] = []
        named: list[tuple[int, int]] = []
        wild_by = -1

        def effect(card: int | None, player: int) -> int:
            nonlocal direction
            if card is None or (card < WILD and RANK_OF[card] <= 9) or card == WILD:
                return next_seat(player, direction, active)
            if card < WILD and RANK_OF[card] == SKIP:
                return next_seat(next_seat(player, direction, active), direction, active)
            if card < WILD and RANK_OF[card] == REVERSE:
                direction = -direction
                return next_seat(player, direction, active)
            victim = next_seat(player, direction, active)
            count = 4 if card == WILD_DRAW_FOUR else 2
            rem[victim] -= count
            events.append((victim, "gain", count))
            return next_seat(victim, direction, active)

        cur = effect(mine, me)
        index = 0
        turned: set[int] = set()
        for _ in range(2 * n + 2):
            if cur == me:
                break
            if cur in turned:
                # A second turn of a seat (the seat itself skipped by a penalty): its hand
                # size no longer tells what it did on each turn.
                return None
            turned.add(cur)
            if index < len(new) and rem[cur] in (0, -1):
                card = new[index]
                index += 1
                if color < 0 and card < WILD and wild_by >= 0:
                    named.append((wild_by, COLOR_OF[card]))
                    events.append((wild_by, "name", COLOR_OF[card]))
                    color = COLOR_OF[card]
                if not _fits(card, top, color):
                    return None
                if rem[cur] == 0:  # nothing matched before the draw
                    events.append((cur, "fail", failed_mask(top, color)))
                    events.append((cur, "gain", 1))
                events.append((cur, "play", card))
                rem[cur] = 0
                top = card
                wild_by = cur if card >= WILD else -1
                color = -1 if card >= WILD else COLOR_OF[card]
                cur = effect(card, cur)
            elif rem[cur] == 1:
                events.extend(self._kept_draw(cur, failed_mask(top, color)))
                rem[cur] = 0
                cur = next_seat(cur, direction, active)
            else:
                return None
        else:
            return None
        if index != len(new) or any(rem[s] for s in range(n) if s != me):
            return None
        if wild_by >= 0 and obs.color >= 0:
            named.append((wild_by, obs.color))
            events.append((wild_by, "name", obs.color))
        for seat, named_color in named:
            self.named_colors[seat] = named_color
        return events

    def _walk_two(self, me: int, mine: int | None, top: int, color: int, new: list[int],
                  rem: list[int], obs: Observation) -> list[Event] | None:
        """Two players: every new card is the other player's, played in one run of turns
        (an action card gives the player another turn); a last action card, or none,
        means the other player drew last and kept the card."""
        other = next(s for s in range(len(obs.active)) if s != me and obs.active[s])
        again = mine is not None and (mine == WILD_DRAW_FOUR or (
            mine < WILD and RANK_OF[mine] in (SKIP, REVERSE, DRAW_TWO)))
        penalty = 0
        if mine == WILD_DRAW_FOUR:
            penalty = 4
        elif mine is not None and mine < WILD and RANK_OF[mine] == DRAW_TWO:
            penalty = 2
        if again and not new:
            if rem[other] != penalty:
                return None
            return [(other, "gain", penalty)] if penalty else []
        for card in new[:-1]:
            if card < WILD and RANK_OF[card] not in (SKIP, REVERSE, DRAW_TWO):
                return None  # the turn would have passed back
            if card == WILD:
                return None
        last = new[-1] if new else None
        final = last is None or last == WILD_DRAW_FOUR or (
            last < WILD and RANK_OF[last] in (SKIP, REVERSE, DRAW_TWO))
        gained = rem[other] + len(new)
        before = gained - penalty - (1 if final else 0)
        if before < 0:
            return None
        events: list[Event] = []
        if penalty:
            events.append((other, "gain", penalty))
        if before == 1 and len(new) == 1:  # drew first, then played
            events.append((other, "fail", failed_mask(top, color)))
        if before:
            events.append((other, "gain", before))
        for index, card in enumerate(new):
            events.append((other, "play", card))
            if card >= WILD:
                named = obs.color if index + 1 == len(new) else COLOR_OF[new[index + 1]]
                if named >= 0:
                    self.named_colors[other] = named
                    events.append((other, "name", named))
        if final:
            events.extend(self._kept_draw(other, failed_mask(obs.top, obs.color)))
        return events

    def _kept_draw(self, seat: int, mask: int) -> list[Event]:
        """The events of a turn on which ``seat`` drew one card and kept it, ``mask``
        being what could have been played (see :attr:`strict`)."""
        if self.strict and (self.rules is None or self.rules.play_drawn != "must"):
            return [(seat, "fail", mask), (seat, "gain", 1)]
        return [(seat, "gain", 1), (seat, "fail", mask)]

    # ------------------------------------------------------------------ queries
    def slots(self, seat: int) -> list[int]:
        """The masks of ``seat``'s slots (see the module docstring)."""
        if not 0 <= seat < len(self.hands):
            return []
        return list(self.hands[seat])

    def has_chance(self, seat: int, color: int, unseen: Counter[int]) -> float:
        """The chance that ``seat`` holds a card of ``color``, given its slots and the
        cards ``unseen``."""
        hand = self.hands[seat] if 0 <= seat < len(self.hands) else []
        if not hand:
            return 0.0
        bit = 1 << color
        cache: dict[int, float] = {}
        none = 1.0
        for mask in hand:
            if mask & bit:
                continue
            share = cache.get(mask)
            if share is None:
                fitting = of_color = 0
                for card, count in unseen.items():
                    if not FEATURES[card] & mask:
                        fitting += count
                        if FEATURES[card] & bit:
                            of_color += count
                share = cache[mask] = of_color / fitting if fitting else 0.0
            none *= 1.0 - share
        return 1.0 - none

    def lack(self, seat: int, color: int) -> float:
        """The share of ``seat``'s slots known not to hold ``color`` (0 to 1)."""
        hand = self.hands[seat] if 0 <= seat < len(self.hands) else []
        if not hand or not 0 <= color < 4:
            return 0.0
        return sum(1 for mask in hand if mask & (1 << color)) / len(hand)

    def named(self, seat: int) -> int:
        """The colour ``seat`` last named with a wild this round (-1: none seen)."""
        if not 0 <= seat < len(self.named_colors):
            return -1
        return self.named_colors[seat]

    def unseen(self, obs: Observation) -> Counter[int]:
        """The cards ``obs``'s seat cannot see: the deck less its hand, the discard pile
        and a visible partner hand (the other hands and the draw pile hold them)."""
        seen = Counter(obs.hand)
        seen.update(obs.discard)
        if obs.partner_hand:
            seen.update(obs.partner_hand)
        return self.deck - seen

    def color_under_top(self, obs: Observation) -> int:
        """The colour in force before the top card was played (-1 if unknown)."""
        if len(obs.discard) < 2:
            return -1
        below = obs.discard[-2]
        if below < WILD:
            return COLOR_OF[below]
        return self.colors_seen.get(len(obs.discard) - 1, -1)


def _popcount(mask: int) -> int:
    return bin(mask).count("1")


def _bound(mask: int) -> int:
    """The colour bit a slot is bound to (all other colours and wilds ruled out), or 0."""
    if not mask & WILD_BIT:
        return 0
    free = ~mask & 0b1111
    return free if free and not free & (free - 1) else 0


def _fits(card: int, top: int, color: int) -> bool:
    """Whether ``card`` may go on ``top`` with ``color`` (-1: the colour is unknown)."""
    if card >= WILD or top < 0 or color < 0:
        return True
    return COLOR_OF[card] == color or (top < WILD and RANK_OF[card] == RANK_OF[top])
