"""docs/protocol.md's examples are real messages.

Every ```` ```json ```` block of the page is fenced as ```` ```json client ```` or
```` ```json server ````; each decodes with the models of :mod:`unokit.server.protocol`
for its direction, encodes back to the same message, and together they show every
message type of both directions. Every error code of :class:`protocol.Error` is
documented on the page.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from unokit.server import protocol as P

PAGE = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
FENCE = re.compile(r"^```json(?P<info>[^\n]*)\n(?P<body>.*?)^```\s*$", re.M | re.S)
DIRECTIONS = ("client", "server")


def examples(text: str) -> list[tuple[str, str]]:
    """The ``(direction, json)`` of every json block of ``text``.

    >>> examples('```json client\\n{"type": "ping"}\\n```\\n')
    [('client', '{"type": "ping"}\\n')]

    Raises:
        ValueError: a json block that names no direction.
    """
    found = []
    for match in FENCE.finditer(text):
        direction = match["info"].strip()
        if direction not in DIRECTIONS:
            line = text.count("\n", 0, match.start()) + 1
            raise ValueError(f"line {line}: a json block is fenced ```json client or "
                             f"```json server, not {match['info'].strip()!r}")
        found.append((direction, match["body"]))
    return found


def tags(union: Any) -> set[str]:
    """The ``type`` tags of the message classes of a union."""
    kinds = msgspec.inspect.type_info(union)
    assert isinstance(kinds, msgspec.inspect.UnionType)
    out = set()
    for kind in kinds.types:
        assert isinstance(kind, msgspec.inspect.StructType)
        assert isinstance(kind.tag, str)
        out.add(kind.tag)
    return out


def error_codes() -> list[str]:
    """The codes listed in :class:`protocol.Error`'s docstring."""
    doc = P.Error.__doc__ or ""
    listed = doc.split("Codes:", 1)[1]
    return re.findall(r"``(\w+)``", listed)


EXAMPLES = examples(PAGE.read_text(encoding="utf-8"))


def decode(direction: str, text: str | bytes) -> Any:
    return P.decode_client(text) if direction == "client" else P.decode_server(text)


@pytest.mark.parametrize(("direction", "text"), EXAMPLES,
                         ids=[f"{d}-{i}" for i, (d, _) in enumerate(EXAMPLES)])
def test_an_example_is_a_message_of_its_direction(direction: str, text: str) -> None:
    message = decode(direction, text)
    again = decode(direction, P.encode(message))
    assert again == message
    assert msgspec.json.decode(P.encode(message))["type"] == msgspec.json.decode(text)["type"]


def test_the_examples_show_every_message_type() -> None:
    shown = {d: {msgspec.json.decode(t)["type"] for dd, t in EXAMPLES if dd == d}
             for d in DIRECTIONS}
    assert tags(P.ClientMessage) - shown["client"] == set()
    assert tags(P.ServerMessage) - shown["server"] == set()


def test_the_page_documents_every_error_code() -> None:
    codes = error_codes()
    assert len(codes) >= 15 and "rate_limited" in codes and "closing" in codes
    text = PAGE.read_text(encoding="utf-8")
    assert [code for code in codes if f"`{code}`" not in text] == []


def test_the_page_states_the_limits_of_the_code() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert f"{P.MAX_MESSAGE_BYTES} bytes" in text
    assert f"now {P.VERSION}" in text


def test_a_block_without_a_direction_is_refused() -> None:
    with pytest.raises(ValueError, match="line 2"):
        examples('text\n```json\n{"type": "ping"}\n```\n')


def test_a_wrong_example_fails() -> None:
    with pytest.raises(P.ProtocolError):
        decode("client", '{"type": "act", "id": "a1"}')
    with pytest.raises(msgspec.ValidationError):
        decode("server", '{"type": "ack", "id": "a1"}')
    assert tags(P.ClientMessage) >= {"hello", "act", "snapshot"}
    assert "snapshot" in tags(P.ServerMessage)


LINK = re.compile(r"\]\((?P<file>[\w.-]*\.md)?(?:#(?P<anchor>[\w-]+))?\)")
WRITTEN_ELSEWHERE: set[str] = set()
"""Pages the page links to that are written on another branch (the merge brings them)."""


def slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it.

    >>> slug("### 1. Commit"), slug("## Coming back: resume")
    ('1-commit', 'coming-back-resume')
    """
    text = heading.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {slug(line) for line in text.splitlines() if line.startswith("#")}


def test_the_links_of_the_page_lead_somewhere() -> None:
    text = PAGE.read_text(encoding="utf-8")
    broken, missing = [], set()
    for match in LINK.finditer(text):
        target = PAGE.parent / (match["file"] or PAGE.name)
        if not target.exists():
            missing.add(target.name)
        elif match["anchor"] and match["anchor"] not in anchors(target):
            broken.append(match.group(0))
    assert broken == []
    assert missing <= WRITTEN_ELSEWHERE
    assert slug("## Why") in anchors(PAGE) and "fairness.md" in text


def test_a_broken_anchor_is_found() -> None:
    assert "no-such-heading" not in anchors(PAGE)
    match = LINK.search("[x](fairness.md#the-grace)")
    assert match is not None and match["anchor"] == "the-grace"
    assert "the-grace" in anchors(PAGE.parent / "fairness.md")
