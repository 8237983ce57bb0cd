"""The parts of the limits on their own: the JSON depth scan against a real decoder,
and the per-address buckets, which forget addresses rather than grow without bound."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from unokit.server.jsondepth import json_depth, too_deep
from unokit.server.limits import AddressBuckets

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet="[]{}\"\\ab,:\u00e9"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(alphabet="[]{}\"\\ab", max_size=4), inner, max_size=3),
    max_leaves=30)


def depth_of(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    return 0


@given(JSON_VALUES)
def test_the_scan_finds_the_depth_a_decoder_finds(value: Any) -> None:
    text = json.dumps(value)
    assert json_depth(text) == depth_of(value)
    assert json_depth(text.encode()) == depth_of(value)
    assert too_deep(text, depth_of(value)) is False
    if depth_of(value) > 0:
        assert too_deep(text, depth_of(value) - 1) is True


def test_brackets_inside_strings_do_not_count_and_the_scan_stops_early() -> None:
    assert json_depth('["[[[[", "\\"[[[", {"]]": "{{"}]') == 2
    assert json_depth(b"[" * 100_000, stop=40) == 41


def test_buckets_refill_and_forget_addresses_within_their_bound() -> None:
    now = [0.0]
    buckets = AddressBuckets(rate=2.0, burst=2, clock=lambda: now[0], max_addresses=100)
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.5]
    now[0] = 0.5
    assert buckets.take("a") == 0.0
    for i in range(10_000):
        buckets.take(f"10.0.{i // 256}.{i % 256}")
        assert len(buckets) <= 101
    assert AddressBuckets(rate=0, burst=1).take("x") == 0.0


def test_the_lobby_table_forgets_rooms_that_left_the_lobby() -> None:
    from unokit.server.limits import PRUNE_AT, Limits
    from unokit.server.settings import Settings

    class Lobby:
        status = "lobby"
    limits = Limits(Settings(database_url="sqlite://"))
    rooms = []
    for i in range(PRUNE_AT * 3):
        room = Lobby()
        limits.created(f"10.{i // 65536}.{i // 256 % 256}.{i % 256}", room)
        room.status = "closed"  # it started or closed: it no longer counts
        rooms.append(room)
    assert len(limits.lobbies) <= PRUNE_AT + 1
    limits.prune()
    assert limits.lobbies == {}
