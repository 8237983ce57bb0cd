"""Generated input for the server's fuzz tests (tests/test_server_fuzz.py): WebSocket
frames and HTTP requests, from a seeded ``random.Random`` so that a failure can be
replayed. Most are mutations of valid protocol messages and API requests (a field
dropped, added, retyped or replaced by a hostile value; the text cut, spliced or
doubled); the rest are random JSON, deep nesting, huge numbers, odd unicode, binary
frames, and bad paths, methods and headers."""

from __future__ import annotations

import json
import random
import string
from dataclasses import dataclass, field
from typing import Any

HOSTILE_STRINGS = [
    "", " ", "\u0000", "\u202e", "\u200b" * 10, "\ufeff", "e\u0301", "\U0001f0cf" * 50,
    "\ud800", "\udfff", "x" * 5000, "€" * 1400, "%00", "../../etc/passwd", "<script>",
    "'; DROP TABLE rooms; --", "NaN", "Infinity", "-0", "1e999", "0x10", "\uff19", "\u00b2",
    "search:²", "search:" + "9" * 5000, "normal", "hard", "R5", "W+4>B!", "catch 2",
]
HOSTILE_NUMBERS: list[Any] = [
    0, -1, 1, 2**31, 2**63, -(2**63) - 1, 10**400, -(10**400), 1e308, -1e308, 5e-324,
    0.5, -0.0, True, False, None,
]


def random_json(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, small, with hostile leaves."""
    pick = rng.random()
    if depth > 3 or pick < 0.35:
        return rng.choice(HOSTILE_NUMBERS)
    if pick < 0.7:
        return rng.choice(HOSTILE_STRINGS) if rng.random() < 0.7 else "".join(
            rng.choice(string.printable) for _ in range(rng.randrange(20)))
    if pick < 0.85:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["type", "id", "room", "x", "rules", "bots", ""]) + str(i):
            random_json(rng, depth + 1) for i in range(rng.randrange(4))}


def nested(rng: random.Random) -> str:
    """JSON nested deep (a bound-checker's case: up to 20,000 levels)."""
    depth = rng.choice([31, 32, 33, 100, 1000, 5000, 20000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    inner = opener * depth + "1" + closer * depth
    if opener == "[":
        inner = opener * depth + closer * depth
    return inner


def dumps(value: Any) -> str:
    """``value`` as JSON text (numbers beyond floats written as they are)."""
    return json.dumps(value, ensure_ascii=rng_ascii(value), allow_nan=True)


def rng_ascii(value: Any) -> bool:
    return isinstance(value, dict) and len(value) % 2 == 0


def mutate_text(rng: random.Random, text: str) -> str:
    """``text`` cut, spliced, doubled, or with a character changed."""
    how = rng.randrange(6)
    if how == 0 and text:
        return text[:rng.randrange(len(text))]
    if how == 1:
        at = rng.randrange(len(text) + 1)
        return text[:at] + rng.choice(["{", "}", "[", "]", '"', "\\", ",", ":", "\x00",
                                       "\ud800", "\u202e", "1e9999"]) + text[at:]
    if how == 2:
        return text + text
    if how == 3 and text:
        at = rng.randrange(len(text))
        return text[:at] + chr(rng.randrange(0x20, 0x2FFF)) + text[at + 1:]
    if how == 4:
        return text.replace('"', "'", 1)
    return text.replace(":", ": " + nested(rng) + ",", 1) if ":" in text else text


def mutate_object(rng: random.Random, message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with a field dropped, added, or given a hostile value."""
    out = dict(message)
    keys = list(out)
    how = rng.randrange(4)
    if how == 0 and keys:
        del out[rng.choice(keys)]
    elif how == 1:
        out[rng.choice(["extra", "v", "seat", "token", "last_seq", "lang", "id", "type"])] = (
            random_json(rng))
    elif keys:
        out[rng.choice(keys)] = random_json(rng)
    return out


@dataclass
class FrameMaker:
    """WebSocket frames for a room: valid messages of every type, mutated."""

    rng: random.Random
    rooms: list[str]
    made: int = 0

    def valid(self) -> dict[str, Any]:
        r, n = self.rng, self.made
        kinds: list[dict[str, Any]] = [
            {"type": "ping", "id": f"p{n}"},
            {"type": "act", "id": f"a{n}", "action": r.choice(["R5", "draw", "pass", "uno",
                                                                "catch 1", "challenge",
                                                                "next", "W+4>B!"])},
            {"type": "contribute", "id": f"c{n}", "value": "abc"},
            {"type": "start", "id": f"s{n}"},
            {"type": "add_bot", "id": f"b{n}", "bot": r.choice(["easy", "normal", "hard"]),
             "seat": r.randrange(4)},
            {"type": "remove_bot", "id": f"r{n}", "seat": 1},
            {"type": "kick", "id": f"k{n}", "seat": 0},
            {"type": "set_timer", "id": f"t{n}", "seconds": 30},
            {"type": "leave", "id": f"l{n}"},
            {"type": "snapshot", "id": f"q{n}"},
            {"type": "chat", "id": f"m{n}", "text": "hi"},
            {"type": "hello", "room": r.choice(self.rooms), "spectate": True},
        ]
        return r.choice(kinds)

    def frame(self) -> str | bytes:
        """One frame: text, or (rarely) binary."""
        self.made += 1
        r = self.rng
        pick = r.random()
        if pick < 0.03:
            return dumps(self.valid()).encode() if r.random() < 0.5 else r.randbytes(
                r.randrange(1, 64))
        if pick < 0.08:
            return nested(r)
        if pick < 0.12:
            return dumps(random_json(r))
        if pick < 0.14:
            return '{"type": "chat", "id": "big", "text": "' + "x" * 5000 + '"}'
        message = mutate_object(r, self.valid()) if pick < 0.7 else self.valid()
        text = dumps(message)
        return mutate_text(r, text) if r.random() < 0.4 else text

    def hello(self) -> str | bytes:
        """The first frame of a connection: a hello (mutated or not), or anything."""
        r = self.rng
        base: dict[str, Any] = {"type": "hello", "room": r.choice(self.rooms)}
        pick = r.random()
        if pick < 0.5:
            return dumps({**base, "spectate": True})
        if pick < 0.6:
            return dumps({**base, "name": r.choice(HOSTILE_STRINGS[:12])})
        if pick < 0.7:
            return dumps({**base, "token": "t" * r.randrange(80)})
        if pick < 0.8:
            return dumps({**base, "room": r.choice(HOSTILE_STRINGS), "spectate": True})
        if pick < 0.9:
            return dumps(mutate_object(r, {**base, "spectate": True, "v": 1,
                                           "last_seq": 5}))
        return self.frame()


@dataclass
class Request:
    """One HTTP request."""

    method: str
    path: str
    query: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: list[bytes] = field(default_factory=list)


@dataclass
class RequestMaker:
    """HTTP requests: the API's routes with mutated bodies, queries, headers, methods
    and paths."""

    rng: random.Random
    codes: list[str]

    def body(self) -> bytes:
        r = self.rng
        valid: list[dict[str, Any]] = [
            {"rules": r.choice(["official", "online", "official,players=3", "house"]),
             "seats": r.randrange(2, 5), "turn_timer": r.choice([0, 15]), "public": True,
             "bots": ["easy"]},
            {"rules": {"preset": "official", "target_score": 200}},
            {"rules": "official,players=2", "bot": r.choice(["easy", "normal"])},
        ]
        pick = r.random()
        if pick < 0.1:
            return nested(r).encode("utf-8", "surrogatepass")
        if pick < 0.2:
            return r.randbytes(r.randrange(1, 200))
        if pick < 0.3:
            return dumps(random_json(r)).encode("utf-8", "surrogatepass")
        text = dumps(mutate_object(r, r.choice(valid)))
        if r.random() < 0.3:
            text = mutate_text(r, text)
        return text.encode("utf-8", "surrogatepass")

    def path(self) -> str:
        r = self.rng
        code = r.choice([*self.codes, "NOSUCH", "", "a" * 300, "ÄÖÜ", "%2e%2e", "\u202e",
                         "1" * 17, "abc def"])
        return r.choice([
            "/healthz", "/readyz", "/api/presets", "/api/rooms", "/api/play-now",
            f"/api/rooms/{code}", f"/api/rooms/{code}/record", f"/api/rooms/{code}/verify",
            f"/r/{code}", "/", "/static/app.js", "/static/" + code, "/i18n/xx.json",
            "/i18n/ru.json", "/ws", "//api//rooms", "/api/rooms/" + code + "/x/y",
            "/" + "".join(r.choice(string.printable) for _ in range(r.randrange(30)))])

    def request(self) -> Request:
        r = self.rng
        method = r.choice(["GET"] * 5 + ["POST"] * 6 + ["PUT", "DELETE", "PATCH", "HEAD",
                                                        "OPTIONS", "BREW"])
        path = r.choice(["/api/rooms", "/api/play-now"]) if (
            method == "POST" and r.random() < 0.8) else self.path()
        headers: list[tuple[str, str]] = []
        if r.random() < 0.8:
            headers.append(("content-type", r.choice([
                "application/json", "application/json; charset=utf-8", "text/plain",
                "application/x-www-form-urlencoded", "multipart/form-data", "",
                "APPLICATION/JSON", "application/json;;;"])))
        if r.random() < 0.3:
            headers.append(("origin", r.choice([
                "http://127.0.0.1:8000", "https://evil.example", "null", "", "http://",
                "http://testserver"])))
        if r.random() < 0.2:
            headers.append(("content-length", r.choice([
                "0", "-1", "10", "99999999999999999999", "abc", "1e3", "٣"])))
        if r.random() < 0.2:
            headers.append(("accept-language", r.choice([
                "ru", "da-DK,da;q=0.9", "*", ";q=x", "x" * 500, "ka;q=1e999"])))
        if r.random() < 0.1:
            headers.append(("accept", r.choice(["text/html", "*/*", "application/json"])))
        if r.random() < 0.05:
            headers.append((r.choice(["x-" + "a" * 100, "host", "connection"]), "\x7f"))
        query = b""
        if r.random() < 0.3:
            query = r.choice([b"limit=5", b"offset=2&limit=1", b"limit=-1", b"limit=" +
                              b"9" * 40, b"offset=x", b"limit=%00", b"a=b&&&", b"limit=101",
                              b"offset=99999999999&limit=1"])
        body: list[bytes] = []
        if method in ("POST", "PUT", "PATCH") or r.random() < 0.05:
            data = self.body()
            cut = r.randrange(len(data) + 1) if r.random() < 0.3 else len(data)
            body = [data[:cut], data[cut:]] if 0 < cut < len(data) else [data]
        return Request(method, path, query, headers, body)
