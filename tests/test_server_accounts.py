"""The accounts API driven in process (on SQLite and PostgreSQL where the database
matters): a first visit gets a guest and a session cookie (``HttpOnly; SameSite=Lax``,
``Secure`` over TLS or behind a trusted proxy saying https); a guest claims an account
and keeps its id; login, logout, logout everywhere, password change, deletion and
export; API tokens sign in programs, and a seat taken with one is the account's. The
limits: per address and per account before any hashing, a bounded hashing queue that a
flood cannot fill for an account's owner, and the same answer (after the same work)
for an unknown username as for a wrong password. No body makes it fail."""

from __future__ import annotations

import asyncio
import functools
import json
import threading
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from asgi_driver import Answer, Socket, opened_app, request
from polling import until
from server_harness import server_settings
from unokit.server import protocol as P
from unokit.server.accounts import Exports
from unokit.server.seating import RoomError
from unokit.server.sessions import COOKIE
from unokit.server.settings import Settings
from unokit.store import StoreError
from unokit.store import export as X

pytestmark = pytest.mark.asyncio

PASSWORD = "correct horse battery"


def settings(database_url: str = "sqlite://", **changes: Any) -> Settings:
    values: dict[str, Any] = {"hash_memory_kib": 8, "hash_workers": 1, "login_rate": 0,
                              "guest_rate": 0, "account_rate": 0}
    values.update(changes)
    return server_settings(database_url, **values)


class Browser:
    """One client with a cookie jar of one cookie (the session)."""

    def __init__(self, app: Any, client: tuple[str, int] = ("192.0.2.1", 5000)) -> None:
        self.app = app
        self.client = client
        self.cookie: str | None = None
        self.last: Answer | None = None

    async def call(self, method: str, path: str, body: Any = None, *,
                   headers: tuple[tuple[str, str], ...] = (), query: bytes = b"",
                   app: Any = None) -> Answer:
        sent = [("host", "testserver"), *headers]
        if method == "POST":
            sent.append(("content-type", "application/json"))
        if self.cookie is not None:
            sent.append(("cookie", f"{COOKIE}={self.cookie}"))
        data = [] if body is None else [json.dumps(body).encode()]
        answer = await request(app or self.app, method, path, headers=sent, body=data,
                               query=query, client=self.client)
        given = answer.headers.get("set-cookie")
        if given is not None and given.startswith(f"{COOKIE}="):
            value = given.split(";", 1)[0].split("=", 1)[1]
            self.cookie = value or None
        self.last = answer
        return answer

    async def account(self, name: str, password: str = PASSWORD) -> int:
        """A guest that claims the account ``name``: its id."""
        assert (await self.call("POST", "/api/guest")).status == 201
        answer = await self.call("POST", "/api/account/claim",
                                 {"username": name, "password": password})
        assert answer.status == 200, answer.body
        return int(answer.json()["id"])


class Hasher:
    """A password hasher that calls ``before`` ahead of every hash it makes or checks."""

    def __init__(self, real: Any, before: Any) -> None:
        self.real, self.before = real, before

    def verify(self, hashed: str, password: str) -> Any:
        self.before("verify")
        return self.real.verify(hashed, password)

    def hash(self, password: str) -> Any:
        self.before("hash")
        return self.real.hash(password)

    def check_needs_rehash(self, hashed: str) -> bool:
        return bool(self.real.check_needs_rehash(hashed))


def hashes(app: Any) -> list[str]:
    """Count the hashes the app makes and checks from now on, in a list."""
    calls: list[str] = []
    passwords = app.state.passwords
    passwords.hasher = Hasher(passwords.hasher, calls.append)
    return calls


async def test_a_first_visit_gets_a_guest_and_a_session_cookie(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, _rooms):
        ann = Browser(app)
        made = await ann.call("POST", "/api/guest")
        assert made.status == 201
        cookie = made.headers["set-cookie"]
        attributes = [part.strip() for part in cookie.split(";")]
        assert {"HttpOnly", "SameSite=Lax", "Path=/"} <= set(attributes)
        assert "Secure" not in attributes  # plain http
        assert f"Max-Age={90 * 86400}" in attributes
        me = (await ann.call("GET", "/api/me")).json()
        assert me["id"] == made.json()["id"] and me["guest"] and me["username"] is None
        assert (me["level"], me["xp"], me["matches"], me["next"]) == (1, 0, [], None)
        again = await ann.call("POST", "/api/guest")  # the same player, no new one
        assert again.status == 200 and again.json()["id"] == me["id"]
        assert "set-cookie" not in again.headers
        stranger = Browser(app)
        assert (await stranger.call("GET", "/api/me")).status == 401
        stranger.cookie = "not a session"
        answer = await stranger.call("GET", "/api/me")
        assert answer.status == 401 and answer.json()["error"] == "no_session"


async def test_the_cookie_is_secure_over_tls_and_behind_a_trusted_proxy() -> None:
    async with opened_app(settings(base_path="/uno")) as (app, _rooms):
        proxied = ProxyHeadersMiddleware(app, trusted_hosts="127.0.0.1")
        behind = Browser(app, client=("127.0.0.1", 4000))
        answer = await behind.call("POST", "/uno/api/guest", app=proxied,
                                   headers=(("x-forwarded-proto", "https"),))
        assert answer.status == 201
        parts = answer.headers["set-cookie"].split("; ")
        assert "Secure" in parts and "Path=/uno" in parts
        # a client that is no trusted proxy cannot say it came over https
        liar = Browser(app, client=("203.0.113.5", 4000))
        answer = await liar.call("POST", "/uno/api/guest", app=proxied,
                                 headers=(("x-forwarded-proto", "https"),))
        assert "Secure" not in answer.headers["set-cookie"].split("; ")


async def test_a_guest_claims_an_account_and_keeps_its_id(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, _rooms):
        ann = Browser(app)
        guest = (await ann.call("POST", "/api/guest")).json()["id"]
        old_cookie = ann.cookie
        bad = await ann.call("POST", "/api/account/claim", {"username": "a", "password": PASSWORD})
        assert bad.status == 400
        short = await ann.call("POST", "/api/account/claim", {"username": "Ann", "password": "x"})
        assert short.status == 400
        claimed = await ann.call("POST", "/api/account/claim",
                                 {"username": "Ann", "password": PASSWORD})
        assert claimed.status == 200, claimed.body
        assert claimed.json()["id"] == guest and claimed.json()["username"] == "Ann"
        assert ann.cookie != old_cookie  # a new session id after the claim
        thief = Browser(app)
        thief.cookie = old_cookie
        assert (await thief.call("GET", "/api/me")).status == 401
        me = (await ann.call("GET", "/api/me")).json()
        assert (me["id"], me["guest"]) == (guest, False)
        again = await ann.call("POST", "/api/account/claim",
                               {"username": "Other", "password": PASSWORD})
        assert again.status == 409 and again.json()["error"] == "not_guest"
        bea = Browser(app)
        await bea.call("POST", "/api/guest")
        taken = await bea.call("POST", "/api/account/claim",
                               {"username": "aNN", "password": PASSWORD})
        assert taken.status == 409 and taken.json()["error"] == "name_taken"
        public = await bea.call("GET", "/api/players/ann")
        assert public.status == 200 and public.json()["id"] == guest
        assert (await bea.call("GET", "/api/players/nobody")).status == 404


async def test_login_logout_and_logout_everywhere(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, _rooms):
        ann = Browser(app)
        ann_id = await ann.account("Ann")
        phone = Browser(app, client=("192.0.2.2", 5000))
        answer = await phone.call("POST", "/api/account/login",
                                  {"username": "ANN", "password": PASSWORD})
        assert answer.status == 200 and answer.json()["id"] == ann_id
        assert "HttpOnly" in answer.headers["set-cookie"]
        out = await phone.call("POST", "/api/account/logout")
        assert out.status == 200 and "Max-Age=0" in out.headers["set-cookie"]
        assert phone.cookie is None
        assert (await ann.call("GET", "/api/me")).status == 200  # the other one stays
        await phone.call("POST", "/api/account/login",
                         {"username": "ann", "password": PASSWORD})
        everywhere = await phone.call("POST", "/api/account/logout-all")
        assert everywhere.json() == {"ended": 2}
        assert (await ann.call("GET", "/api/me")).status == 401
        assert (await phone.call("GET", "/api/me")).status == 401


async def test_an_unknown_user_and_a_wrong_password_look_the_same() -> None:
    async with opened_app(settings()) as (app, _rooms):
        await Browser(app).account("Ann")
        eve = Browser(app, client=("198.51.100.9", 1))
        # the first unknown name also makes the dummy hash, once for the process
        await eve.call("POST", "/api/account/login", {"username": "X0", "password": "x" * 8})
        calls = hashes(app)
        wrong = await eve.call("POST", "/api/account/login",
                               {"username": "Ann", "password": "not the password"})
        assert calls == ["verify"]
        unknown = await eve.call("POST", "/api/account/login",
                                 {"username": "Nobody", "password": "not the password"})
        assert calls == ["verify", "verify"]  # a dummy hash: the same work
        assert (wrong.status, wrong.body) == (unknown.status, unknown.body) == (
            401, unknown.body)
        assert unknown.json()["error"] == "bad_login"
        assert "set-cookie" not in wrong.headers and "set-cookie" not in unknown.headers


async def test_a_password_change_ends_the_other_sessions(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, _rooms):
        ann = Browser(app)
        await ann.account("Ann")
        laptop = Browser(app)
        await laptop.call("POST", "/api/account/login", {"username": "Ann", "password": PASSWORD})
        wrong = await ann.call("POST", "/api/account/password",
                               {"password": "guess guess", "new_password": "new password!"})
        assert wrong.status == 403 and wrong.json()["error"] == "forbidden"
        before = ann.cookie
        changed = await ann.call("POST", "/api/account/password",
                                 {"password": PASSWORD, "new_password": "new password!"})
        assert changed.status == 200 and ann.cookie not in (None, before)
        assert (await ann.call("GET", "/api/me")).status == 200
        assert (await laptop.call("GET", "/api/me")).status == 401
        old = await laptop.call("POST", "/api/account/login",
                                {"username": "Ann", "password": PASSWORD})
        assert old.status == 401
        new = await laptop.call("POST", "/api/account/login",
                                {"username": "Ann", "password": "new password!"})
        assert new.status == 200


async def test_logging_out_everywhere_wins_over_a_password_change_in_flight(
        database_url: str) -> None:
    """A password change whose session ends while its new password is hashed (the
    same player pressed "log out everywhere") changes nothing and signs nobody in."""
    async with opened_app(settings(database_url)) as (app, _rooms):
        ann = Browser(app)
        await ann.account("Ann")
        passwords = app.state.passwords
        hashing, gate = threading.Event(), threading.Event()

        def before(kind: str) -> None:
            if kind == "hash":
                hashing.set()
                gate.wait(60)
        passwords.hasher = Hasher(passwords.hasher, before)
        change = asyncio.create_task(ann.call("POST", "/api/account/password", {
            "password": PASSWORD, "new_password": "new password!"}))
        await until(hashing.is_set, "the new password being hashed")
        tab = Browser(app)
        tab.cookie = ann.cookie
        assert (await tab.call("POST", "/api/account/logout-all")).json() == {"ended": 1}
        gate.set()
        changed = await change
        assert changed.status == 401 and changed.json()["error"] == "no_session"
        assert "set-cookie" not in changed.headers
        assert (await ann.call("GET", "/api/me")).status == 401
        again = await Browser(app).call("POST", "/api/account/login",
                                        {"username": "Ann", "password": PASSWORD})
        assert again.status == 200  # the old password still holds


async def test_deletion_and_export(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, rooms):
        ann = Browser(app)
        ann_id = await ann.account("Ann")
        exported = await ann.call("GET", "/api/account/export")
        assert exported.status == 200
        assert "attachment" in exported.headers["content-disposition"]
        data = exported.json()
        assert data["player"]["id"] == ann_id and data["player"]["username"] == "Ann"
        assert "argon2" not in exported.body.decode() and (ann.cookie or "-") not in \
            exported.body.decode()
        assert data == await X.export(rooms.store, ann_id)  # streamed: the same document
        refused = await ann.call("POST", "/api/account/delete", {"password": "wrong one"})
        assert refused.status == 403
        gone = await ann.call("POST", "/api/account/delete", {"password": PASSWORD})
        assert gone.status == 200 and ann.cookie is None
        other = Browser(app)
        assert (await other.call("POST", "/api/account/login",
                                 {"username": "Ann", "password": PASSWORD})).status == 401
        assert (await other.call("GET", "/api/players/Ann")).status == 404
        guest = Browser(app)
        await guest.call("POST", "/api/guest")
        assert (await guest.call("POST", "/api/account/delete")).status == 200
        assert (await guest.call("GET", "/api/me")).status == 401


async def test_api_tokens_sign_in_programs_and_their_seats(database_url: str) -> None:
    async with opened_app(settings(database_url)) as (app, rooms):
        guest = Browser(app)
        await guest.call("POST", "/api/guest")
        refused = await guest.call("POST", "/api/account/tokens", {"label": "bot"})
        assert refused.status == 409  # a guest has no tokens
        ann = Browser(app)
        ann_id = await ann.account("Ann")
        made = await ann.call("POST", "/api/account/tokens", {"label": "my bot"})
        assert made.status == 201
        token = made.json()["token"]
        program = Browser(app)
        bearer = (("authorization", f"Bearer {token}"),)
        me = await program.call("GET", "/api/me", headers=bearer)
        assert me.status == 200 and me.json()["id"] == ann_id
        # a token does not manage the account, nor read its export
        assert (await program.call("POST", "/api/account/tokens", {"label": "x"},
                                   headers=bearer)).status == 401
        assert (await program.call("GET", "/api/account/export",
                                   headers=bearer)).status == 401
        listed = (await ann.call("GET", "/api/account/tokens")).json()
        assert [t["label"] for t in listed] == ["my bot"] and "token" not in listed[0]
        # the token's seat is the account's
        room = await rooms.create({"preset": "official", "players": 2})
        socket = Socket(app, headers=[("host", "testserver"),
                                      ("authorization", f"Bearer {token}")])
        socket.start()
        assert (await socket.next())["type"] == "websocket.accept"
        socket.text(msgspec.json.encode(P.Hello(room=room.code, name="Ann bot")).decode())
        welcome = json.loads((await socket.next())["text"])
        assert welcome["type"] == "welcome"
        assert room.seats[welcome["seat"]].player == ann_id
        second = Socket(app, headers=[("host", "testserver"),
                                      ("authorization", f"Bearer {token}")])
        second.start()
        await second.next()
        second.text(msgspec.json.encode(P.Hello(room=room.code, name="again")).decode())
        refusal = json.loads((await second.next())["text"])
        assert refusal["type"] == "error" and refusal["code"] == "room_full"
        await second.close()
        await socket.close()
        revoked = await ann.call("DELETE", f"/api/account/tokens/{listed[0]['id']}")
        assert revoked.status == 200
        assert (await program.call("GET", "/api/me", headers=bearer)).status == 401
        assert (await ann.call("DELETE", "/api/account/tokens/999")).status == 404


async def test_attempts_per_address_are_limited_before_any_hashing() -> None:
    async with opened_app(settings(login_rate=0.001, login_burst=3)) as (app, _rooms):
        calls = hashes(app)
        eve = Browser(app, client=("198.51.100.1", 1))
        for _ in range(3):
            answer = await eve.call("POST", "/api/account/login",
                                    {"username": "Ann", "password": "guess guess"})
            assert answer.status == 401
        assert calls.count("verify") == 3
        hashed = len(calls)
        limited = await eve.call("POST", "/api/account/login",
                                 {"username": "Ann", "password": "guess guess"})
        assert limited.status == 429 and int(limited.headers["retry-after"]) >= 1
        assert limited.json()["error"] == "rate_limited"
        assert len(calls) == hashed  # the refused attempt hashed nothing
        other = Browser(app, client=("198.51.100.2", 1))  # another address is not held
        assert (await other.call("POST", "/api/account/login",
                                 {"username": "Ann", "password": "guess guess"})).status == 401


async def test_failures_per_account_spare_the_owners_address() -> None:
    async with opened_app(settings(account_rate=0.001, account_burst=2)) as (app, _rooms):
        owner = Browser(app, client=("192.0.2.10", 1))
        await owner.account("Ann")  # the owner's address is known to the account now
        calls = hashes(app)
        for n in range(2):
            eve = Browser(app, client=(f"198.51.100.{n}", 1))
            assert (await eve.call("POST", "/api/account/login",
                                   {"username": "Ann", "password": "guess guess"})).status == 401
        late = Browser(app, client=("198.51.100.77", 1))
        limited = await late.call("POST", "/api/account/login",
                                  {"username": "Ann", "password": PASSWORD})
        assert limited.status == 429 and len(calls) == 2  # refused unhashed
        again = Browser(app, client=("192.0.2.10", 2))
        answer = await again.call("POST", "/api/account/login",
                                  {"username": "Ann", "password": PASSWORD})
        assert answer.status == 200  # the owner still signs in


async def test_a_flood_fills_only_half_the_hashing_queue() -> None:
    async with opened_app(settings(hash_queue=4, hash_workers=1)) as (app, _rooms):
        owner = Browser(app, client=("192.0.2.10", 1))
        await owner.account("Ann")
        passwords = app.state.passwords
        gate = threading.Event()
        passwords.hasher = Hasher(passwords.hasher, lambda _kind: gate.wait(60))
        flood = [asyncio.create_task(Browser(app, client=(f"198.51.100.{n}", 1)).call(
            "POST", "/api/account/login", {"username": "Ann", "password": "guess guess"}))
            for n in range(2)]
        await until(lambda: passwords.waiting == 2, "the flood's checks admitted")
        busy = await Browser(app, client=("198.51.100.50", 1)).call(
            "POST", "/api/account/login", {"username": "Ann", "password": "guess guess"})
        assert busy.status == 503 and busy.json()["error"] == "busy"
        assert int(busy.headers["retry-after"]) >= 1
        mine = asyncio.create_task(Browser(app, client=("192.0.2.10", 9)).call(
            "POST", "/api/account/login", {"username": "Ann", "password": PASSWORD}))
        await until(lambda: passwords.waiting == 3, "the owner's check admitted")
        gate.set()
        assert (await mine).status == 200
        assert [(await task).status for task in flood] == [401, 401]
        assert passwords.refused == 1


async def test_bad_bodies_get_typed_errors() -> None:
    async with opened_app(settings()) as (app, _rooms):
        ann = Browser(app)
        for body in ({"username": 5, "password": PASSWORD}, {"username": "Ann"}, [1, 2]):
            answer = await ann.call("POST", "/api/account/login", body)
            assert answer.status == 400 and answer.json()["error"] == "bad_request"
        huge = await ann.call("POST", "/api/account/login",
                              {"username": "Ann", "password": "x" * 10_000})
        assert huge.status == 401  # never hashed: no password is that long
        plain = await request(app, "POST", "/api/guest", headers=[("host", "testserver")])
        assert plain.status == 415
        await ann.call("POST", "/api/guest")
        for query in (b"before=nonsense", b"limit=0", b"limit=abc", b"before=nan:1"):
            answer = await ann.call("GET", "/api/me", query=query)
            assert answer.status == 400, query


async def test_a_banned_address_makes_no_guest_and_does_not_log_in() -> None:
    async with opened_app(settings()) as (app, rooms):
        await Browser(app).account("Ann")
        rooms.oversight.set_bans([("address", "198.51.100.66")])
        banned = Browser(app, client=("198.51.100.66", 1))
        for path, body in (("/api/guest", {}),
                           ("/api/account/login", {"username": "Ann", "password": PASSWORD})):
            answer = await banned.call("POST", path, body)
            assert answer.status == 403 and answer.json()["error"] == "banned", path
        assert banned.cookie is None


async def test_a_login_hashes_again_after_the_hashing_settings_changed(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    async with opened_app(settings(url, hash_memory_kib=8)) as (app, _rooms):
        await Browser(app).account("Ann")
    async with opened_app(settings(url, hash_memory_kib=16)) as (app, rooms):
        assert rooms.store is not None
        before = (await rooms.store.run(lambda c: c.exec_driver_sql(
            "SELECT password_hash FROM players").scalar()))
        assert "m=8," in before
        answer = await Browser(app).call("POST", "/api/account/login",
                                         {"username": "Ann", "password": PASSWORD})
        assert answer.status == 200
        after = (await rooms.store.run(lambda c: c.exec_driver_sql(
            "SELECT password_hash FROM players").scalar()))
        assert "m=16," in after and not app.state.passwords.outdated(after)


async def test_an_address_with_a_session_is_trusted_by_another_process(
        tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    async with opened_app(settings(url)) as (app, _rooms):
        await Browser(app, client=("192.0.2.10", 1)).account("Ann")
    # a second process (nothing in memory) with a tight per-account limit
    async with opened_app(settings(url, account_rate=0.001, account_burst=1)) as (app, _):
        eve = Browser(app, client=("198.51.100.3", 1))
        assert (await eve.call("POST", "/api/account/login",
                               {"username": "Ann", "password": "guess guess"})).status == 401
        stranger = Browser(app, client=("198.51.100.4", 1))
        assert (await stranger.call("POST", "/api/account/login",
                                    {"username": "Ann", "password": PASSWORD})).status == 429
        owner = Browser(app, client=("192.0.2.10", 2))  # Ann's session's address
        assert (await owner.call("POST", "/api/account/login",
                                 {"username": "Ann", "password": PASSWORD})).status == 200


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["username", "password", "new_password", "label", "x"]), inner,
        max_size=4), max_leaves=8)
PATHS = ["/api/guest", "/api/account/claim", "/api/account/login", "/api/account/logout",
         "/api/account/logout-all", "/api/account/password", "/api/account/delete",
         "/api/account/tokens"]


async def test_no_body_makes_the_accounts_api_fail() -> None:
    async with opened_app(settings()) as (app, _rooms):
        ann = Browser(app)
        await ann.account("Ann")
        seen: set[int] = set()

        @given(path=st.sampled_from(PATHS), body=JSONISH, query=st.text(max_size=20))
        @hyp_settings(max_examples=150, deadline=None)
        def examples(path: str, body: Any, query: str) -> None:
            # each example's requests run on this test's loop, one after the other
            answers.append((path, body, query))

        answers: list[tuple[str, Any, str]] = []
        examples()
        for path, body, query in answers:
            who = ann if ann.cookie is not None else Browser(app)
            answer = await who.call("POST", path, body)
            seen.add(answer.status)
            assert answer.status < 500 or answer.json()["error"] in ("busy", "unavailable")
            got = await who.call("GET", "/api/me",
                                 query=("before=" + query).encode("utf-8", "replace"))
            assert got.status < 500
            if ann.cookie is None:  # a body that logged Ann out or deleted her
                ann = Browser(app)
                await ann.call("POST", "/api/guest")
        assert {400, 401} & seen


async def test_a_check_after_the_pool_stopped_is_busy_not_a_failure() -> None:
    async with opened_app(settings()) as (app, _rooms):
        app.state.passwords.close()
        answer = await Browser(app).call("POST", "/api/account/login",
                                         {"username": "Ann", "password": PASSWORD})
        assert answer.status == 503 and answer.json()["error"] == "busy"


async def test_exports_are_one_per_player_and_few_at_once(database_url: str) -> None:
    exports = Exports(limit=2)
    exports.begin(1)
    with pytest.raises(RoomError) as own:
        exports.begin(1)  # the player's own export is under way
    assert own.value.code == "busy"
    exports.begin(2)
    with pytest.raises(RoomError):
        exports.begin(3)  # two are under way
    exports.end(1)
    exports.begin(3)
    async with opened_app(settings(database_url)) as (app, rooms):
        ann = Browser(app)
        ann_id = await ann.account("Ann")
        app.state.exports.players.add(ann_id)  # one of hers is being streamed
        busy = await ann.call("GET", "/api/account/export")
        assert busy.status == 429 and busy.json()["error"] == "busy"
        assert int(busy.headers["retry-after"]) > 0
        app.state.exports.players.clear()

        # the database stops answering after the head: the document is cut short (it
        # does not parse), and the export no longer counts
        real = rooms.store.run

        async def failing(fn: Any) -> Any:
            if isinstance(fn, functools.partial) and fn.func is X.read_page:
                raise StoreError("the database went away")  # a page of a list
            return await real(fn)
        rooms.store.run = failing  # type: ignore[method-assign]
        try:
            cut = await ann.call("GET", "/api/account/export")
        finally:
            rooms.store.run = real  # type: ignore[method-assign]
        assert cut.status == 200 and cut.body.startswith(b'{"player":')
        with pytest.raises(json.JSONDecodeError):
            json.loads(cut.body)
        assert app.state.exports.players == set()
        assert (await ann.call("GET", "/api/account/export")).json()["player"]["id"] == ann_id
