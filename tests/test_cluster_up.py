"""The cluster a host starts (``scripts/cluster.sh``, ``make cluster``): PostgreSQL, Redis,
3 ``unokit serve`` and nginx in front. Started through the same script, it plays a match
through the proxy with two clients that land on different servers (one by the room's code
in ``/ws/CODE``, the other by ``/ws`` and its hello), then stops, every process gone.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import unokit.client.client as client_module
from redis_kit import free_port
from test_cluster import events_received, join, new_room, play
from unokit.client import GameClient

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "cluster.sh"
RULES = "official,players=2,rounds=1,hand_size=5"
HOW = "install it with scripts/install_nginx.sh (make test and .ci/run do)"


class Cluster:
    """A started cluster in a folder of its own: :attr:`url` (the proxy), :attr:`dir`."""

    def __init__(self) -> None:
        if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
            pytest.fail(f"nginx is not installed: {HOW}", pytrace=False)
        self.dir = Path(tempfile.mkdtemp(prefix="unokit-cluster-"))
        self.dir.chmod(0o755)  # PostgreSQL's server user (when run as root) goes in
        self.ports = [free_port() for _ in range(4)]
        self.env = {
            **os.environ, "UNOKIT_CLUSTER_DIR": str(self.dir / "cluster"),
            "UNOKIT_CLUSTER_PORT": str(self.ports[0]),
            "UNOKIT_CLUSTER_SERVER_PORTS": " ".join(map(str, self.ports[1:])),
            "UNOKIT": str(Path(sys.executable).parent / "unokit"),
            "UNOKIT_BOT_WORKERS": "0", "UNOKIT_RATE": "10000", "UNOKIT_BURST": "10000"}
        started = self.script("start")
        assert started.returncode == 0, started.stderr
        self.url = started.stdout.strip().splitlines()[-1]
        self.pids = [int((self.dir / "cluster" / f"server{n}" / "pid").read_text())
                     for n in (1, 2, 3)]
        self.pids.append(int((self.dir / "cluster" / "nginx.pid").read_text()))

    def script(self, command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", str(SCRIPT), command], env=self.env, check=False,
                              capture_output=True, text=True, timeout=300)

    def remove(self) -> None:
        self.script("stop")
        shutil.rmtree(self.dir, ignore_errors=True)


@contextlib.contextmanager
def cluster() -> Iterator[Cluster]:
    started = Cluster()
    try:
        yield started
    finally:
        started.remove()


def upstream(client: GameClient) -> str:
    """The server the proxy sent the client's connection to (its header)."""
    ws = client._ws
    assert ws is not None and ws.response is not None
    return str(ws.response.headers["X-Unokit-Upstream"])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in (
        Path(f"/proc/{pid}/status").read_text().lower())


async def test_the_cluster_starts_plays_through_the_proxy_and_stops(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with cluster() as up:
        status = up.script("status")
        assert status.returncode == 0, status.stdout + status.stderr
        assert status.stdout.count("running:") == 4
        code = await new_room(up.url, rules=RULES)
        ann = await join(up.url, code, name="Ann")  # /ws/CODE: the room's server
        # Bob names the room in his hello only (/ws): any server; until it is another
        real_url = client_module.ws_url
        with monkeypatch.context() as patch:
            patch.setattr(client_module, "ws_url", lambda base, room=None: real_url(base))
            bob = await join(up.url, code, name="Bob")
            for _ in range(3):
                if upstream(bob) != upstream(ann):
                    break
                await bob.close()
                await bob.connect()  # with his seat's token: the same seat
        assert upstream(bob) != upstream(ann), "the proxy sent Bob to Ann's server"
        assert (ann.seat, bob.seat) == (0, 1)
        # the room's connections always land on one server
        again = await join(up.url, code, spectate=True)
        assert upstream(again) == upstream(ann)
        await again.close()

        await ann.start()
        assert await play([ann, bob]) > 0
        assert ann.reveal is not None and ann.reveal == bob.reveal
        seqs = [event["seq"] for event in events_received(ann)]
        assert seqs == sorted(set(seqs))
        async with httpx.AsyncClient() as http:
            info = (await http.get(f"{up.url}/api/rooms/{code}")).json()
            assert info["status"] == "finished"
            hidden = await http.get(f"{up.url}/metrics")
            assert hidden.status_code == 404  # scraped on each server's own port
        await ann.close()
        await bob.close()

        stopped = up.script("stop")
        assert stopped.returncode == 0, stopped.stderr
        assert not any(alive(pid) for pid in up.pids)
        assert not (up.dir / "cluster").exists()
