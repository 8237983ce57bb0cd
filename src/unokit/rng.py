"""The game's random number generator: SplitMix64, specified bit for bit.

Every random event of a game (the dealer draw, every shuffle, a random dealer, the
Attack launcher) takes its numbers from one :class:`SplitMix64` seeded with the game's
seed, in the order the events happen, so that another implementation can replay a game
exactly. The algorithm:

* state: one unsigned 64-bit integer, initially ``seed mod 2**64``;
* ``next_u64()``: ``state += 0x9E3779B97F4A7C15``; ``z = state``;
  ``z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9``; ``z = (z ^ (z >> 27)) * 0x94D049BB133111EB``;
  return ``z ^ (z >> 31)`` (all arithmetic modulo 2**64);
* ``below(n)`` for ``n >= 1``: Lemire's unbiased multiply-shift. ``m = next_u64() * n``
  (a 128-bit product); ``low = m mod 2**64``; if ``low < n``, let
  ``t = (2**64 - n) mod n`` and while ``low < t`` draw again; return ``m >> 64``;
* ``shuffle(xs)``: Fisher-Yates from the end: for ``i`` from ``len(xs) - 1`` down to 1,
  ``j = below(i + 1)``, swap ``xs[i]`` and ``xs[j]``;
* ``random()``: ``(next_u64() >> 11) / 2**53``, a float in [0, 1).

>>> rng = SplitMix64(0)
>>> hex(rng.next_u64())
'0xe220a8397b1dcdaf'
>>> rng.below(10) < 10
True
>>> xs = list(range(5)); SplitMix64(7).shuffle(xs); sorted(xs) == list(range(5))
True
"""

from __future__ import annotations

from typing import Any

MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


class SplitMix64:
    """SplitMix64 with unbiased bounded integers and Fisher-Yates shuffles."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next_u64(self) -> int:
        """The next 64-bit output."""
        self.state = z = (self.state + _GOLDEN) & MASK64
        z = ((z ^ (z >> 30)) * _MIX1) & MASK64
        z = ((z ^ (z >> 27)) * _MIX2) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n < 1:
            raise ValueError("below(n) needs n >= 1")
        m = self.next_u64() * n
        low = m & MASK64
        if low < n:
            threshold = ((1 << 64) - n) % n
            while low < threshold:
                m = self.next_u64() * n
                low = m & MASK64
        return m >> 64

    def shuffle(self, items: list[Any]) -> None:
        """Shuffle a list in place (Fisher-Yates, from the end).

        The same numbers as calling :meth:`below` for each position, with the generator
        inlined for speed."""
        state = self.state
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            while True:
                state = z = (state + _GOLDEN) & MASK64
                z = ((z ^ (z >> 30)) * _MIX1) & MASK64
                z = ((z ^ (z >> 27)) * _MIX2) & MASK64
                m = (z ^ (z >> 31)) * n
                low = m & MASK64
                if low >= n or low >= ((1 << 64) - n) % n:
                    break
            j = m >> 64
            items[i], items[j] = items[j], items[i]
        self.state = state

    def random(self) -> float:
        """A float in ``[0, 1)`` with 53 random bits."""
        return (self.next_u64() >> 11) / 9007199254740992.0
