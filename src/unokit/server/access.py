"""Who may read what an operator reads: ``/metrics`` by address, the admin API by a
bearer token.

``/metrics`` answers the addresses of the setting ``metrics_allow`` (addresses or
networks, comma-separated; empty: everyone, so a public server should block the path at
its reverse proxy or set the list). The admin API (``/admin/...``) wants
``Authorization: Bearer TOKEN``, compared in constant time with the setting
``admin_token`` or, when that is empty, the token in the file ``admin-token`` of the
data directory, written owner-only (0600) at the first start.

>>> nets = parse_networks("127.0.0.1, 10.0.0.0/8")
>>> allowed("10.1.2.3", nets), allowed("192.0.2.1", nets), allowed("x", nets)
(True, False, False)
>>> allowed("192.0.2.1", parse_networks(""))
True
>>> bearer_matches("Bearer s3cret-token-0123456789", "s3cret-token-0123456789")
True
>>> bearer_matches("Bearer wrong", "s3cret-token-0123456789"), bearer_matches(None, "")
(False, False)
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
from pathlib import Path

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

TOKEN_FILE = "admin-token"
"""The file of the data directory that holds the admin token."""


def parse_networks(text: str) -> list[Network]:
    """The networks of a comma-separated list of addresses and networks.

    Raises:
        ValueError: an entry that is neither.
    """
    out: list[Network] = []
    for part in text.split(","):
        part = part.strip()
        if part:
            try:
                out.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"not an address or network: {part!r}") from None
    return out


def allowed(address: str, networks: list[Network]) -> bool:
    """Whether ``address`` is in one of ``networks`` (an empty list allows every
    address)."""
    if not networks:
        return True
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in networks)


def bearer_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (constant-time)."""
    if not header or not token:
        return False
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


def read_token(setting: str, data_dir: str | Path) -> str:
    """The admin token: the setting, else the one in ``data_dir/admin-token`` if that
    file is there and readable, else ``""`` (the admin API is off)."""
    if setting:
        return setting
    try:
        return (Path(data_dir) / TOKEN_FILE).read_text().strip()
    except OSError:
        return ""


def admin_token(setting: str, data_dir: str | Path) -> str:
    """The admin token: the setting, else the one in ``data_dir/admin-token``, made
    (random, owner-only) if there is none yet.

    Raises:
        OSError: the file cannot be read or written.
    """
    if setting:
        return setting
    path = Path(data_dir) / TOKEN_FILE
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")
    return token
