"""The server's settings are checked: NaN, infinities and values out of range are
refused naming their variable, and so is any ``UNOKIT_*`` variable that is not a
setting (a misspelt one would otherwise be ignored)."""

from __future__ import annotations

from pathlib import Path

import pytest

from unokit.server.settings import OTHER_VARIABLES, Settings, SettingsError


@pytest.mark.parametrize(("env", "named"), [
    ({"UNOKIT_RATE": "nan"}, "UNOKIT_RATE: a finite number"),
    ({"UNOKIT_RATE": "inf"}, "UNOKIT_RATE: a finite number"),
    ({"UNOKIT_BURST": "0"}, "UNOKIT_BURST:"),
    ({"UNOKIT_SEAT_TIMEOUT": "nan"}, "UNOKIT_SEAT_TIMEOUT:"),
    ({"UNOKIT_MAX_BODY": "10"}, "UNOKIT_MAX_BODY: 1024..67108864 bytes, not 10"),
    ({"UNOKIT_MAX_JSON_DEPTH": "100000"}, "UNOKIT_MAX_JSON_DEPTH:"),
    ({"UNOKIT_HEAD_TIMEOUT": "0"}, "UNOKIT_HEAD_TIMEOUT:"),
    ({"UNOKIT_ROOM_RATE": "-1"}, "UNOKIT_ROOM_RATE:"),
    ({"UNOKIT_MAX_ROOMS": "1.5"}, "UNOKIT_MAX_ROOMS: expected an integer"),
    ({"UNOKIT_ALLOWED_ORIGINS": "evil.example"}, "UNOKIT_ALLOWED_ORIGINS:"),
    ({"UNOKIT_WS_PING_INTERVAL": "-1"}, "UNOKIT_WS_PING_INTERVAL:"),
    ({"UNOKIT_WS_PING_TIMEOUT": "0"}, "UNOKIT_WS_PING_TIMEOUT:"),
    ({"UNOKIT_BOT_CPUS": "1-x"}, "UNOKIT_BOT_CPUS: '1-x': not a CPU number or range"),
    ({"UNOKIT_BOT_CPUS": "3-1"}, "UNOKIT_BOT_CPUS: '3-1': a range runs upwards"),
    ({"UNOKIT_DATABSE_URL": "postgresql://x"},
     "UNOKIT_DATABSE_URL: not a setting (did you mean UNOKIT_DATABASE_URL?)"),
])
def test_bad_settings_are_refused_naming_their_variable(env: dict[str, str],
                                                        named: str) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env)
    assert named in str(caught.value)


def test_every_unknown_variable_is_named_and_others_used_elsewhere_pass() -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({"UNOKIT_PROT": "9000", "UNOKIT_ZZZZZZ": "1"})
    assert "UNOKIT_PROT: not a setting (did you mean UNOKIT_PORT?)" in str(caught.value)
    assert "UNOKIT_ZZZZZZ: not a setting" in str(caught.value)
    settings = Settings.from_env({name: "x" for name in OTHER_VARIABLES}
                                 | {"UNOKIT_MAX_ROOMS": "50", "UNOKIT_ROOM_RATE": "0"})
    assert settings.max_rooms == 50 and settings.room_rate == 0


def test_the_default_limits_are_valid_and_named_in_the_docs() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "server.md").read_text()
    section = doc.split("## Limits", 1)[1]
    for name in ("max_body", "max_json_depth", "max_frame", "handshake_rate",
                 "handshake_burst", "conns_per_address", "max_conns", "room_rate",
                 "room_burst", "lobbies_per_address", "max_rooms", "head_timeout",
                 "idle_timeout", "room_list_max", "room_list_ttl", "presence_interval",
                 "allowed_origins", "ws_ping_interval", "ws_ping_timeout"):
        assert f"UNOKIT_{name.upper()}" in section, name


def test_bot_cpus_is_a_cpu_list() -> None:
    assert Settings.from_env({"UNOKIT_BOT_CPUS": "1-2,4"}).bot_cpus == "1-2,4"
    assert Settings.from_env({}).bot_cpus == ""


def test_the_websocket_pings_are_a_setting_that_reaches_uvicorn() -> None:
    from unokit.server.serve import uvicorn_config
    config = uvicorn_config(Settings.from_env({}), app=None)
    assert (config.ws_ping_interval, config.ws_ping_timeout) == (60.0, 30.0)
    config = uvicorn_config(Settings.from_env({"UNOKIT_WS_PING_INTERVAL": "15",
                                               "UNOKIT_WS_PING_TIMEOUT": "5"}), app=None)
    assert (config.ws_ping_interval, config.ws_ping_timeout) == (15.0, 5.0)
    off = uvicorn_config(Settings.from_env({"UNOKIT_WS_PING_INTERVAL": "0"}), app=None)
    assert off.ws_ping_interval is None  # no pings at all
