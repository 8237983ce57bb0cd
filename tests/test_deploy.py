"""The deployment files under deploy/ agree with the software: the systemd unit and the
container run a command and settings that exist, the unit is hardened (and passes
``systemd-analyze verify`` where systemd is installed), the container installs from the
hashed lock, non-root, with a volume, a health check and SIGTERM, and the reverse-proxy
examples upgrade WebSockets, pass the client's address and keep /metrics private.
Nothing here needs docker, nginx or caddy."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from unokit.cli import app
from unokit.server.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
SETTINGS = {f"UNOKIT_{f.name.upper()}" for f in dataclasses.fields(Settings)
            if f.name != "extra"}


def read(name: str) -> str:
    return (DEPLOY / name).read_text(encoding="utf-8")


def unit() -> dict[str, list[str]]:
    """The unit's keys (several values where a key comes more than once)."""
    keys: dict[str, list[str]] = {}
    for line in read("unokit.service").splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            keys.setdefault(key.strip(), []).append(value.strip())
    return keys


def command_params(words: list[str]) -> set[str]:
    """The options of the ``unokit`` command ``words`` names (it must exist)."""
    group = typer.main.get_command(app)
    command = getattr(group, "commands", {}).get(words[0])
    assert command is not None, f"unokit has no command {words[0]!r}"
    return {opt for param in command.params for opt in param.opts}


def check_command(argv: list[str]) -> None:
    """``argv`` is ``unokit COMMAND [--options]`` with a command and options that exist."""
    assert Path(argv[0]).name == "unokit", argv
    known = command_params(argv[1:])
    for word in argv[2:]:
        if word.startswith("--"):
            assert word.split("=")[0] in known, word


def test_the_deployment_files_are_there() -> None:
    names = {path.name for path in DEPLOY.iterdir()}
    assert {"unokit.service", "unokit.env", "nginx.conf", "Caddyfile", "Containerfile",
            "requirements.py"} <= names
    guide = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    for name in ("unokit.service", "unokit.env", "nginx.conf", "Caddyfile", "Containerfile"):
        assert f"deploy/{name}" in guide, name


def test_the_systemd_unit_runs_the_server_hardened() -> None:
    keys = unit()
    [start] = keys["ExecStart"]
    check_command(start.split())
    assert start.split()[1] == "serve"
    environment = dict(value.split("=", 1) for value in keys["Environment"])
    assert set(environment) <= SETTINGS
    Settings.from_env(environment)  # values the server takes
    [state] = keys["StateDirectory"]
    assert environment["UNOKIT_DATA_DIR"] == f"/var/lib/{state}"
    assert keys["StateDirectoryMode"] == ["0700"] and keys["UMask"] == ["0077"]
    assert keys["DynamicUser"] == ["yes"] or "User" in keys
    for key, value in {"NoNewPrivileges": "yes", "ProtectSystem": "strict",
                       "ProtectHome": "yes", "PrivateTmp": "yes", "Restart": "on-failure",
                       "KillSignal": "SIGTERM"}.items():
        assert keys[key] == [value], key
    # the graceful stop (uvicorn's 10 s for connections, then the rooms) fits
    assert int(keys["TimeoutStopSec"][0]) >= 20
    assert environment["UNOKIT_HOST"] == "127.0.0.1"  # behind the reverse proxy


def test_the_systemd_unit_passes_systemd_analyze_where_there_is_one(
        tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:  # nothing to run it with here: the checks above still hold
        assert "ExecStart=" in read("unokit.service")
        return
    program = Path(sys.executable).with_name("unokit")
    assert program.exists()
    text = read("unokit.service").replace("/opt/unokit/.venv/bin/unokit", str(program))
    copy = tmp_path / "unokit.service"
    copy.write_text(text, encoding="utf-8")
    done = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True,
                          timeout=120)
    problems = [line for line in (done.stdout + done.stderr).splitlines()
                if "unokit.service" in line]
    assert done.returncode == 0 and not problems, done.stdout + done.stderr


def test_the_environment_file_names_only_settings() -> None:
    named = re.findall(r"^#?(UNOKIT_[A-Z_]+)=", read("unokit.env"), flags=re.M)
    assert named and set(named) <= SETTINGS
    given = dict(line.split("=", 1) for line in read("unokit.env").splitlines()
                 if line.startswith("UNOKIT_"))
    Settings.from_env(given)


def test_the_container_installs_from_the_hashed_lock_and_runs_as_a_user() -> None:
    text = read("Containerfile")
    lines = [line.strip() for line in text.replace("\\\n", " ").splitlines()
             if line.strip() and not line.strip().startswith("#")]
    froms = [line.split()[1] for line in lines if line.startswith("FROM ")]
    assert froms and all(image == "python:3.11-slim" for image in froms)
    assert "COPY requirements/lock.txt requirements/lock.txt" in lines
    installs = [line for line in lines if "pip install" in line and "-r " in line]
    assert installs and all("--require-hashes" in line for line in installs)
    assert "deploy/requirements.py server" in text
    [user] = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert user not in ("root", "0")
    env = dict(re.findall(r"(UNOKIT_[A-Z_]+)=(\S+)", text))
    assert set(env) <= SETTINGS
    Settings.from_env(env)
    [volume] = [json.loads(line.split(None, 1)[1]) for line in lines
                if line.startswith("VOLUME ")]
    assert volume == [env["UNOKIT_DATA_DIR"]]
    [health] = [line for line in lines if line.startswith("HEALTHCHECK ")]
    assert "/healthz" in health
    assert "STOPSIGNAL SIGTERM" in lines
    [cmd] = [json.loads(line.split(None, 1)[1]) for line in lines if line.startswith("CMD ")]
    check_command(cmd)
    assert cmd[1] == "serve"


def test_the_server_part_of_the_lock_holds_the_server_and_no_tools() -> None:
    sys.path.insert(0, str(DEPLOY))
    try:
        import requirements as subset  # deploy/requirements.py
    finally:
        sys.path.remove(str(DEPLOY))
    lock = (ROOT / "requirements" / "lock.txt").read_text(encoding="utf-8")
    chosen = subset.needed(["server", "numba", "hatchling"], lock)
    names = {subset.requirement_name(entry) for entry in chosen}
    for needed in ("starlette", "uvicorn", "sqlalchemy", "alembic", "psycopg",
                   "psycopg-binary", "msgspec", "websockets", "typer", "rich", "numba",
                   "numpy", "llvmlite", "hatchling", "prometheus-client", "anyio",
                   "redis"):
        assert needed in names, needed
    for tool in ("pytest", "ray", "playwright", "mypy", "ruff", "textual", "gymnasium"):
        assert tool not in names, tool
    assert all("--hash=sha256:" in entry for entry in chosen)
    # a package locked twice (one version per Python) comes with both entries
    assert sum(entry.startswith("numpy==") for entry in chosen) == 2
    with pytest.raises(SystemExit, match="no-such-package"):
        subset.needed(["no-such-package"], lock)


def test_the_reverse_proxies_upgrade_websockets_and_keep_metrics_private() -> None:
    nginx = read("nginx.conf")
    port = dict(value.split("=", 1) for value in unit()["Environment"])["UNOKIT_PORT"]
    assert f"server 127.0.0.1:{port};" in nginx
    socket = nginx[nginx.index("location = /ws"):]
    socket = socket[:socket.index("}")]
    for needed in ("proxy_http_version 1.1;", "proxy_set_header Upgrade $http_upgrade;",
                   "proxy_set_header Connection $connection_upgrade;"):
        assert needed in socket, needed
    read_timeout = int(re.search(r"proxy_read_timeout (\d+)s;", socket).group(1))  # type: ignore[union-attr]
    # longer than the server's pings, so that a quiet table is not cut
    assert read_timeout > Settings(database_url="sqlite://").ws_ping_interval
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in nginx
    metrics = nginx[nginx.index("location = /metrics"):]
    assert re.match(r"location = /metrics \{\s*(return 404|deny all);", metrics)
    caddy = read("Caddyfile")
    assert re.search(r"@private path /metrics\b", caddy)
    assert "respond @private 404" in caddy
    assert f"reverse_proxy 127.0.0.1:{port}" in caddy


def test_the_websocket_path_of_the_proxy_is_the_servers() -> None:
    from unokit.server.app import create_app
    paths = {getattr(route, "path", "") for route in
             create_app(Settings(database_url="sqlite://")).routes}
    assert {"/ws", "/ws/{code}", "/healthz"} <= paths
    nginx = read("nginx.conf")
    coded = nginx[nginx.index("location /ws/ {"):]
    coded = coded[:coded.index("}")]
    for needed in ("proxy_http_version 1.1;", "proxy_set_header Upgrade $http_upgrade;",
                   "proxy_set_header Connection $connection_upgrade;"):
        assert needed in coded, needed
