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

import struct
from collections.abc import Callable
from functools import lru_cache
from itertools import repeat
from operator import and_, mul, rshift
from typing import Any

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
"""SplitMix64's increment of the state (the compiled twins import the three constants)."""
MIX1 = 0xBF58476D1CE4E5B9
"""The first multiplier of SplitMix64's output mix."""
MIX2 = 0x94D049BB133111EB
"""The second multiplier of SplitMix64's output mix."""


class SplitMix64:
    """SplitMix64 with unbiased bounded integers and Fisher-Yates shuffles."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next_u64(self) -> int:
        """The next 64-bit output."""
        self.state = z = (self.state + GOLDEN) & MASK64
        z = ((z ^ (z >> 30)) * MIX1) & MASK64
        z = ((z ^ (z >> 27)) * MIX2) & MASK64
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

        The same numbers as calling :meth:`below` for each position; the generator's
        outputs are computed together (see :func:`_outputs`)."""
        size = len(items)
        if not _BATCH_MIN <= size <= _BATCH_MAX:
            self._shuffle_from(items, size - 1)
            return
        state = self.state
        products = list(map(mul, _outputs(state, size - 1), range(size, 1, -1)))
        if min(map(and_, products, repeat(MASK64))) < size:
            # A draw may be rejected (a chance of about size**2 in 2**64): check each one.
            self._shuffle_checked(items, products)
            return
        self.state = (state + (size - 1) * GOLDEN) & MASK64
        for i, j in zip(range(size - 1, 0, -1), map(rshift, products, repeat(64)), strict=True):
            items[i], items[j] = items[j], items[i]

    def _shuffle_checked(self, items: list[Any], products: list[int]) -> None:
        """:meth:`shuffle` with each draw checked for a rejection, after which the rest
        draws one number at a time. ``products``: each output times its bound."""
        state = self.state
        for i, m in zip(range(len(items) - 1, 0, -1), products, strict=True):
            n = i + 1
            state = (state + GOLDEN) & MASK64
            if m & MASK64 < n and m & MASK64 < ((1 << 64) - n) % n:
                self.state = state
                self._shuffle_from(items, i)
                return
            j = m >> 64
            items[i], items[j] = items[j], items[i]
        self.state = state

    def _shuffle_from(self, items: list[Any], top: int) -> None:
        """The Fisher-Yates steps for positions ``top`` down to 1, with the generator
        inlined."""
        state = self.state
        for i in range(top, 0, -1):
            n = i + 1
            while True:
                state = z = (state + GOLDEN) & MASK64
                z = ((z ^ (z >> 30)) * MIX1) & MASK64
                z = ((z ^ (z >> 27)) * MIX2) & MASK64
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


_BATCH_MIN = 8
"""Shorter lists are shuffled one number at a time (a batch costs more to set up)."""
_BATCH_MAX = 1024
"""Longer ones too (they are rare, and a batch's constants grow with its size)."""


@lru_cache(maxsize=128)
def _batch(count: int) -> tuple[int, int, int, Callable[[bytes], tuple[int, ...]]]:
    """For ``count`` outputs at once: ``1``, ``(t + 1) * golden`` and ``2**64 - 1`` in lane
    ``t`` of ``count`` lanes of 128 bits, and the function that reads the lanes back."""
    ones = int.from_bytes((b"\x01" + bytes(15)) * count, "little")
    ramp = int.from_bytes(
        b"".join(((t + 1) * GOLDEN).to_bytes(16, "little") for t in range(count)), "little")
    lanes = int.from_bytes((b"\xff" * 8 + bytes(8)) * count, "little")
    return ones, ramp, lanes, struct.Struct("<" + "Q8x" * count).unpack


def _outputs(state: int, count: int) -> tuple[int, ...]:
    """The next ``count`` outputs of a generator in ``state``, computed together: the
    states lie in one integer, 128 bits apart, so that each step of the mix is one operation
    on all of them (a 64-bit value times a 64-bit constant still fits in its 128 bits)."""
    ones, ramp, lanes, unpack = _batch(count)
    z = (state * ones + ramp) & lanes  # lane t: the state after t + 1 steps
    z = (((z ^ (z >> 30)) & lanes) * MIX1) & lanes
    z = (((z ^ (z >> 27)) & lanes) * MIX2) & lanes
    z = (z ^ (z >> 31)) & lanes
    return unpack(z.to_bytes(16 * count, "little"))
