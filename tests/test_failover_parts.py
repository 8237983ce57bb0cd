"""Parts of failover, without processes: an owner that lets go of the clients of a
relay it no longer hears from (the relay stalled, or died) tells that relay to close
them with ``bye`` (``reconnect: true``): a relay that only stalled reads it when it is
back, and its clients reconnect and resume, rather than wait for the owner's broadcasts,
which stopped when it let them go."""

from __future__ import annotations

import json
import time
from typing import Any

from test_cluster_parts import Bus, Room, remote
from unokit.server.cluster import SILENT_RENEWALS, Cluster
from unokit.server.settings import Settings


def closes(bus: Bus) -> list[tuple[str, str, dict[str, Any]]]:
    """The ``c`` entries sent: (stream, conn id, the message before the close)."""
    out = []
    for stream, fields in bus.sent:
        if fields.get("kind", fields.get(b"kind")) in ("c", b"c"):
            data = fields.get("data", fields.get(b"data"))
            conn = fields.get("conn", fields.get(b"conn"))
            out.append((stream, str(conn.decode() if isinstance(conn, bytes) else conn),
                        json.loads(data) if data else {}))
    return out


def test_clients_of_a_silent_relay_are_told_to_reconnect_when_let_go() -> None:
    settings = Settings(database_url="sqlite://", redis_url="redis://127.0.0.1:9/0",
                        lease=4, lease_renew=1)
    cluster = Cluster(settings)  # nothing is connected until it starts
    bus = Bus()
    room = Room()
    for stream, conn_id in (("s:b", "1"), ("s:b", "2"), ("s:c", "1")):
        conn = remote(bus, cluster.fanout, stream, 0)
        conn.conn_id = conn_id
        cluster.remote[stream, conn_id] = conn
        cluster._rooms_of[conn] = room  # type: ignore[assignment]
    # the client that said it went (g) is not told anything more
    cluster._entry({b"kind": b"g", b"reply": b"s:b", b"conn": b"2", b"room": b"R"})
    assert closes(bus) == []
    now = time.monotonic()
    cluster.sweep(now)
    cluster._heard["s:c"] = now + SILENT_RENEWALS * settings.lease_renew + 1  # s:c speaks
    cluster.sweep(now + SILENT_RENEWALS * settings.lease_renew + 1)  # s:b is silent
    assert set(cluster.remote) == {("s:c", "1")}
    [(stream, conn_id, bye)] = closes(bus)
    assert (stream, conn_id) == ("s:b", "1")
    assert bye["type"] == "bye" and bye.get("reconnect", True) is True  # its default
