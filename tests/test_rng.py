"""SplitMix64 against an independent implementation of the algorithm in its docstring."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unokit.engine.rng import MASK64, SplitMix64

M64 = 2**64


class Reference:
    """A straightforward SplitMix64, written from the specification only."""

    def __init__(self, seed: int) -> None:
        self.state = seed % M64

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) % M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % M64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        m = self.next_u64() * n
        low = m % M64
        if low < n:
            t = (M64 - n) % n
            while low < t:
                m = self.next_u64() * n
                low = m % M64
        return m // M64

    def shuffle(self, xs: list[int]) -> None:
        for i in range(len(xs) - 1, 0, -1):
            j = self.below(i + 1)
            xs[i], xs[j] = xs[j], xs[i]

    def random(self) -> float:
        return (self.next_u64() >> 11) / 2**53


@pytest.mark.parametrize("seed", [0, 1, 2, 42, 2**63, 2**64 - 1])
def test_first_outputs_match_the_reference(seed: int) -> None:
    rng, ref = SplitMix64(seed), Reference(seed)
    assert [rng.next_u64() for _ in range(50)] == [ref.next_u64() for _ in range(50)]


# Pinned literal values (the standard SplitMix64 test vectors).
PINNED = {
    0: [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F],
    1: [0x910A2DEC89025CC1, 0xBEEB8DA1658EEC67, 0xF893A2EEFB32555E],
    2**64 - 1: [0xE4D971771B652C20, 0xE99FF867DBF682C9, 0x382FF84CB27281E9],
    1234567: [6457827717110365317, 3203168211198807973, 9817491932198370423],
}


@pytest.mark.parametrize("seed", sorted(PINNED))
def test_pinned_values(seed: int) -> None:
    rng = SplitMix64(seed)
    assert [rng.next_u64() for _ in range(3)] == PINNED[seed]
    ref = Reference(seed)
    assert [ref.next_u64() for _ in range(3)] == PINNED[seed]


def test_seed_is_taken_modulo_2_64() -> None:
    assert SplitMix64(2**64 + 5).next_u64() == SplitMix64(5).next_u64()
    assert SplitMix64(-1).next_u64() == SplitMix64(2**64 - 1).next_u64()
    assert SplitMix64(3).state == 3


@given(seed=st.integers(0, MASK64))
def test_outputs_are_64_bit_and_match_reference(seed: int) -> None:
    rng, ref = SplitMix64(seed), Reference(seed)
    for _ in range(5):
        value = rng.next_u64()
        assert 0 <= value <= MASK64
        assert value == ref.next_u64()
    assert rng.state == ref.state


@given(seed=st.integers(0, MASK64),
       bounds=st.lists(st.one_of(st.integers(1, 200), st.integers(1, 2**64)), max_size=20))
def test_below_matches_reference_and_stays_in_range(seed: int, bounds: list[int]) -> None:
    rng, ref = SplitMix64(seed), Reference(seed)
    for n in bounds:
        value = rng.below(n)
        assert 0 <= value < n
        assert value == ref.below(n)
    assert rng.state == ref.state


def test_below_rejection_path() -> None:
    """With n close to 2**64 the rejection loop runs; results still match the reference."""
    n = 2**64 - 1
    for seed in range(200):
        rng, ref = SplitMix64(seed), Reference(seed)
        assert rng.below(n) == ref.below(n)
        assert rng.state == ref.state


def test_below_one_is_zero_and_bad_bounds_raise() -> None:
    rng = SplitMix64(9)
    assert all(rng.below(1) == 0 for _ in range(20))
    for bad in (0, -3):
        with pytest.raises(ValueError):
            rng.below(bad)


@pytest.mark.parametrize("n", [2, 3, 7, 10])
def test_below_is_roughly_uniform(n: int) -> None:
    rng = SplitMix64(2024 + n)
    draws = 20000
    counts = Counter(rng.below(n) for _ in range(draws))
    assert set(counts) == set(range(n))
    expected = draws / n
    chi2 = sum((counts[k] - expected) ** 2 / expected for k in range(n))
    # far above the 99.9% quantile of chi-square with n - 1 <= 9 degrees of freedom (27.9)
    assert chi2 < 40, counts


def test_random_is_in_unit_interval_and_matches_reference() -> None:
    rng, ref = SplitMix64(77), Reference(77)
    values = [rng.random() for _ in range(2000)]
    assert values == [ref.random() for _ in range(2000)]
    assert all(0.0 <= v < 1.0 for v in values)
    assert 0.45 < sum(values) / len(values) < 0.55


@given(seed=st.integers(0, MASK64), size=st.integers(0, 120))
def test_shuffle_is_a_permutation_matching_fisher_yates(seed: int, size: int) -> None:
    items = list(range(size))
    expected = list(range(size))
    SplitMix64(seed).shuffle(items)
    Reference(seed).shuffle(expected)
    assert items == expected
    assert sorted(items) == list(range(size))


def test_shuffle_state_advances_like_the_reference() -> None:
    rng, ref = SplitMix64(5), Reference(5)
    deck = list(range(108))
    rng.shuffle(deck)
    ref.shuffle(list(range(108)))
    assert rng.state == ref.state
    assert rng.next_u64() == ref.next_u64()


def test_shuffle_of_tiny_lists_draws_nothing() -> None:
    for items in ([], [4]):
        rng = SplitMix64(3)
        rng.shuffle(items)
        assert rng.state == 3


def test_shuffle_with_duplicates_keeps_the_multiset() -> None:
    items = [1, 1, 2, 3, 3, 3]
    SplitMix64(11).shuffle(items)
    assert Counter(items) == Counter([1, 1, 2, 3, 3, 3])


def test_shuffle_positions_are_roughly_uniform() -> None:
    rng = SplitMix64(99)
    first = Counter()
    for _ in range(6000):
        xs = [0, 1, 2, 3, 4, 5]
        rng.shuffle(xs)
        first[xs[0]] += 1
    assert all(800 < first[k] < 1200 for k in range(6)), first


def test_shuffle_rejection_path_matches_reference() -> None:
    # Seeds whose draw t gives output 0: rejected unless its bound is a power of two, so the
    # batched shuffle must fall back to drawing one number at a time, like the reference.
    for t in range(9):
        seed = (-(t + 1) * 0x9E3779B97F4A7C15) % 2**64
        xs, ys = list(range(10)), list(range(10))
        rng, ref = SplitMix64(seed), Reference(seed)
        rng.shuffle(xs)
        ref.shuffle(ys)
        assert xs == ys and rng.state == ref.state
