"""``/metrics``: Prometheus's text format from a private registry per server; its values
move with a match (rooms, connections, actions, commits, bot decisions, errors, HTTP
requests); the event loop's lag with an injected clock; the settings ``metrics`` and
``metrics_allow``."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from polling import until
from server_harness import running_server, server_settings
from test_server_match import play
from unokit.client import GameClient
from unokit.client.client import ActionRefused
from unokit.server import protocol as P
from unokit.server.app import create_app
from unokit.server.metrics import FAST, Metrics
from unokit.server.settings import Settings, SettingsError


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape, by name and labels."""
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)


def test_two_servers_keep_their_own_counts() -> None:
    one, two = Metrics(), Metrics()
    one.action("player", 0.001)
    assert value(one.render().decode(), "unokit_actions_total", origin="player") == 1
    assert value(two.render().decode(), "unokit_actions_total", origin="player") == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["player", "bot", "timeout"]),
                          st.floats(-1.0, 10.0, allow_nan=False)), max_size=40))
def test_actions_and_commits_read_as_prometheus_clients_own_would(
        actions: list[tuple[str, float]]) -> None:
    # counted on the loop without a lock, read out as prometheus_client's own Counter
    # and Histogram (with the same buckets) would give them
    metrics = Metrics()
    registry = CollectorRegistry()
    counter = Counter("unokit_actions", "", ["origin"], registry=registry)
    histogram = Histogram("unokit_commit_seconds", "", buckets=FAST, registry=registry)
    for origin, seconds in actions:
        metrics.action(origin, seconds)
        counter.labels(origin).inc()
        histogram.observe(max(0.0, seconds))
    ours = {k: v for k, v in samples(metrics.render().decode()).items()
            if k[0].startswith(("unokit_actions", "unokit_commit"))}
    theirs = {k: v for k, v in samples(generate_latest(registry).decode()).items()
              if not k[0].endswith("_created")}
    assert ours.keys() == theirs.keys()
    for key, expected in theirs.items():
        assert ours[key] == pytest.approx(expected), key


def test_errors_are_counted_by_their_code_and_nothing_else_is() -> None:
    metrics = Metrics()
    metrics.sent(P.encode(P.Error(code="illegal", message="no", id="a")))
    metrics.sent(P.encode(P.Error(code="illegal", message="no")))
    metrics.sent(P.encode(P.Pong(id="p")))
    metrics.sent(b'{"type":"error","code":"' + b"x" * 100 + b'","message":""}')
    text = metrics.render().decode()
    assert value(text, "unokit_errors_total", code="illegal") == 2
    assert value(text, "unokit_errors_total", code="other") == 1
    assert "pong" not in text


def test_the_loop_lag_is_the_oversleep() -> None:
    metrics = Metrics()
    times = iter([10.0, 10.7, 20.0, 20.5])  # asked 0.5 s: 0.2 s late, then on time

    async def nap(seconds: float) -> None:
        return None
    asyncio.run(metrics.measure_lag(0.5, clock=lambda: next(times), sleep=nap, times=2))
    text = metrics.render().decode()
    assert value(text, "unokit_event_loop_lag_seconds_count") == 2
    assert value(text, "unokit_event_loop_lag_seconds_sum") == pytest.approx(0.2)
    assert value(text, "unokit_event_loop_lag_seconds_bucket", le="0.1") == 1


def test_a_bot_decision_is_timed() -> None:
    metrics = Metrics()
    assert metrics.timed(max, 3, 4) == 4
    assert value(metrics.render().decode(), "unokit_bot_decision_seconds_count") == 1


@pytest.mark.asyncio
async def test_metrics_follow_a_match(database_url: str) -> None:
    settings = server_settings(database_url)
    async with running_server(settings) as server, httpx.AsyncClient() as http:
        before = (await http.get(server.url + "/metrics")).text
        assert value(before, "unokit_actions_total", origin="player") == 0
        made = (await http.post(server.url + "/api/rooms", json={
            "rules": "official,players=2,rounds=1", "bots": ["easy"]})).json()
        assert (await http.post(server.url + "/api/rooms", json={"seats": "x"})
                ).status_code == 400
        ann = await GameClient.join(server.url, made["code"], name="Ann")
        watcher = await GameClient.join(server.url, made["code"], spectate=True)
        lobby = (await http.get(server.url + "/metrics")).text
        assert value(lobby, "unokit_rooms", status="lobby") == 1
        assert value(lobby, "unokit_connections", kind="player") == 1
        assert value(lobby, "unokit_connections", kind="spectator") == 1
        with pytest.raises(ActionRefused):
            await ann.act("draw")  # before the start: not_started
        await ann.command(P.Start)
        await play(ann)
        after = (await http.get(server.url + "/metrics")).text
        await ann.close()
        await watcher.close()
        metrics = server.rooms.oversight.metrics
        await until(lambda: not metrics.open_sockets, "the server noticed both sockets went",
                    timeout=30)
        gone = (await http.get(server.url + "/metrics")).text
    assert value(gone, "unokit_connections", kind="player") == 0
    assert value(gone, "unokit_connections", kind="pending") == 0
    assert value(after, "unokit_rooms", status="finished") == 1
    assert value(after, "unokit_rooms", status="lobby") == 0
    player = value(after, "unokit_actions_total", origin="player")
    bot = value(after, "unokit_actions_total", origin="bot")
    assert player > 0 and bot > 0
    assert value(after, "unokit_commit_seconds_count") == player + bot
    assert value(after, "unokit_bot_decision_seconds_count") >= bot
    assert value(after, "unokit_errors_total", code="not_started") == 1
    assert value(after, "unokit_errors_total", code="bad_request") == 1  # over HTTP
    assert value(after, "unokit_http_requests_total", route="/api/rooms",
                 status="400") == 1
    assert value(after, "unokit_http_requests_total", route="/api/rooms",
                 status="201") == 1
    assert value(after, "unokit_http_requests_total", route="/metrics", status="200") == 2
    assert value(after, "unokit_event_loop_lag_seconds_count") >= 0


def test_metrics_can_be_turned_off_or_kept_to_some_addresses() -> None:
    with TestClient(create_app(Settings(database_url="sqlite://", metrics=False))) as client:
        assert client.get("/metrics").status_code == 404
    # the test client's address is "testclient", which no network holds
    kept = Settings(database_url="sqlite://", metrics_allow="127.0.0.1, 10.0.0.0/8")
    with TestClient(create_app(kept)) as client:
        assert client.get("/metrics").status_code == 403
    with TestClient(create_app(kept), client=("10.2.3.4", 5000)) as client:
        answer = client.get("/metrics")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert Settings.from_env({"UNOKIT_METRICS": "off"}).metrics is False
    with pytest.raises(SettingsError, match="UNOKIT_METRICS_ALLOW"):
        Settings.from_env({"UNOKIT_METRICS_ALLOW": "10.0.0.0/8, nowhere"})
    with pytest.raises(SettingsError, match="UNOKIT_METRICS: expected on or off"):
        Settings.from_env({"UNOKIT_METRICS": "maybe"})
