"""Players, sessions and API tokens as stored, on SQLite and PostgreSQL: a guest claims
an account and keeps its id; usernames are unique without case; sessions end when
idle, one at a time or all at once, and a player keeps at most a bounded number; API
tokens are stored hashed, bounded and revocable; a deleted player leaves nothing behind
and its id is never given again; the export holds no secret; revision 0008 goes up from
every earlier revision (and down again)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Connection, text

from store_kit import migrate_to
from unokit.store import Store, StoreError
from unokit.store import accounts as A
from unokit.store import export as X
from unokit.store.db import HEAD, current_revision, open_engine

pytestmark = pytest.mark.asyncio

S1, S2, S3 = "a" * 43, "b" * 43, "c" * 43


async def rows(store: Store, sql: str) -> list[tuple[Any, ...]]:
    def read(connection: Connection) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in connection.execute(text(sql))]
    return await store.run(read)


async def test_a_guest_claims_an_account_and_keeps_its_id(database_url: str) -> None:
    store = Store(database_url)
    try:
        guest = await A.create_guest(store, S1, now=10.0, address="192.0.2.1", agent="ua")
        player = await A.session_player(store, S1, now=11.0, idle=100)
        assert player is not None and player.id == guest and player.guest
        await A.claim(store, guest, "Ann_1", "$argon2id$hash", now=12.0)
        player = await A.session_player(store, S1, now=13.0, idle=100)
        assert player is not None and (player.id, player.username) == (guest, "Ann_1")
        assert not player.guest and player.claimed_at == 12.0
        assert await A.find_login(store, "ann_1") == (guest, "$argon2id$hash")
        assert await A.find_login(store, "nobody") is None
        other = await A.create_guest(store, S2, now=14.0)
        with pytest.raises(A.NameTaken):  # the same name in other letters' case
            await A.claim(store, other, "ANN_1", "$argon2id$x", now=15.0)
        with pytest.raises(StoreError):  # an account claims no second time
            await A.claim(store, guest, "Bea", "$argon2id$x", now=15.0)
        assert (await A.get_player(store, other)).guest  # type: ignore[union-attr]
    finally:
        await store.close()


async def test_sessions_end_when_idle_one_or_all(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, S1, now=0.0)
        await A.new_session(store, ann, S2, now=0.0)
        await A.new_session(store, ann, S3, now=0.0)
        assert await A.session_player(store, S1, now=50.0, idle=100) is not None
        # used at 50 s: written only every SEEN_EVERY seconds, so still 0 in the row
        assert await A.session_player(store, S1, now=150.0, idle=100) is None  # idle
        assert await rows(store, f"SELECT 1 FROM sessions WHERE player_id = {ann}") \
            == [(1,), (1,)]
        await A.end_session(store, S2)
        assert await A.session_player(store, S2, now=1.0, idle=100) is None
        assert await A.end_sessions(store, ann, keep=S3) == 0
        assert await A.session_player(store, S3, now=1.0, idle=100) is not None
        assert await A.end_sessions(store, ann) == 1
        assert await A.session_player(store, S3, now=1.0, idle=100) is None
    finally:
        await store.close()


async def test_a_player_keeps_a_bounded_number_of_sessions(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, S1, now=0.0)
        for n in range(A.SESSIONS_PER_PLAYER + 5):
            await A.new_session(store, ann, f"{n:043d}", now=1.0 + n)
        [(count,)] = await rows(store, f"SELECT count(*) FROM sessions WHERE player_id = {ann}")
        assert count == A.SESSIONS_PER_PLAYER
        assert await A.session_player(store, S1, now=2.0, idle=1e9) is None  # the oldest
        newest = f"{A.SESSIONS_PER_PLAYER + 4:043d}"
        assert await A.session_player(store, newest, now=100.0, idle=1e9) is not None
    finally:
        await store.close()


async def test_a_new_session_replaces_the_old_one_at_once(database_url: str) -> None:
    store = Store(database_url)
    try:
        guest = await A.create_guest(store, S1, now=0.0)
        await A.new_session(store, guest, S2, now=1.0, replaces=S1)
        assert await A.session_player(store, S1, now=2.0, idle=100) is None
        assert await A.session_player(store, S2, now=2.0, idle=100) is not None
    finally:
        await store.close()


async def test_api_tokens_are_hashed_bounded_and_revocable(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, S1, now=0.0)
        token = "t" * 43
        made = await A.create_token(store, ann, token, "my bot", now=5.0)
        found = await A.token_player(store, token, now=6.0)
        assert found is not None and found.id == ann
        assert await A.token_player(store, "u" * 43, now=6.0) is None
        stored_hashes = await rows(store, "SELECT token_hash FROM api_tokens")
        assert stored_hashes == [(A.secret_hash(token),)]  # never the token itself
        [listed] = await A.list_tokens(store, ann)
        assert (listed.id, listed.label, listed.used_at) == (made, "my bot", 6.0)
        for n in range(A.TOKENS_PER_PLAYER - 1):
            await A.create_token(store, ann, f"{n:043d}", "", now=7.0)
        with pytest.raises(A.TooMany):
            await A.create_token(store, ann, "v" * 43, "", now=8.0)
        other = await A.create_guest(store, S2, now=0.0)
        assert not await A.revoke_token(store, other, made)  # not theirs
        assert await A.revoke_token(store, ann, made)
        assert await A.token_player(store, token, now=9.0) is None
    finally:
        await store.close()


async def test_a_deleted_player_leaves_nothing_and_its_id_is_not_reused(
        database_url: str) -> None:
    store = Store(database_url)
    try:
        first = await A.create_guest(store, S1, now=0.0)
        last = await A.create_guest(store, S2, now=0.0)
        await A.create_token(store, last, "t" * 43, "", now=1.0)

        def ledger(connection: Connection) -> None:
            connection.execute(text(
                "INSERT INTO player_matches (player_id, match_id, code, seat, ended_at, "
                f"won, \"left\", xp) VALUES ({last}, 7, 'ABCD', 0, 3.0, true, false, 28)"))
            connection.execute(text(
                "INSERT INTO xp_lines (player_id, match_id, reason, count, xp) "
                f"VALUES ({last}, 7, 'played', 1, 10)"))
        await store.run(ledger)
        await A.delete_player(store, last)
        for table in ("sessions", "api_tokens", "player_matches", "xp_lines", "players"):
            assert await rows(store, f"SELECT 1 FROM {table} WHERE player_id = {last}"
                              if table != "players" else
                              f"SELECT 1 FROM players WHERE id = {last}") == [], table
        again = await A.create_guest(store, S3, now=2.0)
        assert again > last > first  # the highest id was deleted: still not given again
        assert await X.export(store, last) == {}
    finally:
        await store.close()


async def test_the_export_holds_the_players_data_and_no_secret(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, S1, now=1.0, address="198.51.100.7",
                                   agent="Firefox")
        await A.claim(store, ann, "Ann", "$argon2id$secret-hash", now=2.0)
        await A.create_token(store, ann, "t" * 43, "bot", now=3.0)
        data = await X.export(store, ann)
        assert data["player"]["username"] == "Ann" and not data["player"]["guest"]
        assert data["sessions"] == [{"created_at": 1.0, "seen_at": 1.0,
                                     "address": "198.51.100.7", "agent": "Firefox"}]
        assert [t["label"] for t in data["api_tokens"]] == ["bot"]
        flat = repr(data)
        for secret in ("secret-hash", S1, A.secret_hash(S1), "t" * 43,
                       A.secret_hash("t" * 43)):
            assert secret not in flat
    finally:
        await store.close()


@pytest.mark.parametrize("revision", ["0001", "0002", "0003", "0004", "0005", "0006",
                                      "0007"])
async def test_revision_0008_goes_up_from_every_earlier_one(database_url: str,
                                                            revision: str) -> None:
    migrate_to(database_url, revision)
    engine = open_engine(database_url)
    with engine.begin() as connection:  # a room of that revision, seated
        connection.execute(text(
            "INSERT INTO rooms (code, rules, status, turn_timer, public, server_seed, "
            "commitment, created_at) VALUES ('OLD1', '{}', 'lobby', 0, true, 'aa', 'bb', 1.0)"))
        connection.execute(text(
            "INSERT INTO seats (room_id, seat, kind, name, bot, token_hash, host) "
            "SELECT id, 0, 'human', 'Ann', '', 'h', true FROM rooms"))
    engine.dispose()
    store = Store(database_url)  # migrates to the newest revision
    try:
        assert current_revision(store.engine) == HEAD
        [room] = await store.load_rooms(code="OLD1")
        assert room.seats[0].name == "Ann" and room.seats[0].player_id is None
        guest = await A.create_guest(store, S1, now=0.0)
        assert (await A.get_player(store, guest)).xp == 0  # type: ignore[union-attr]
    finally:
        await store.close()
    migrate_to(database_url, "0007", down=True)  # and back down
    engine = open_engine(database_url)
    assert current_revision(engine) == "0007"
    with engine.connect() as connection:
        assert connection.execute(text("SELECT name FROM seats")).scalars().all() == ["Ann"]
    engine.dispose()


async def test_guests_whose_sessions_all_ran_out_are_deleted(database_url: str) -> None:
    store = Store(database_url)
    try:
        lost = [await A.create_guest(store, f"{n:043d}", now=10.0) for n in range(5)]
        kept = await A.create_guest(store, S1, now=500.0)
        account = await A.create_guest(store, S2, now=10.0)
        await A.claim(store, account, "Ann", "$argon2id$x", now=11.0)
        assert await A.delete_lost_guests(store, 100.0, batch=2) == 5
        for player in lost:
            assert await A.get_player(store, player) is None
        assert await A.get_player(store, kept) is not None
        assert await A.get_player(store, account) is not None  # accounts stay
        assert await rows(store, "SELECT count(*) FROM sessions") == [(2,)]
    finally:
        await store.close()


async def test_the_export_reads_each_list_a_bounded_page_per_transaction(
        database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(database_url)
    try:
        ann = await A.create_guest(store, S1, now=1.0)
        for n in range(5):
            await store.run(lambda c, n=n: c.execute(X.XP_LINES.insert().values(
                player_id=ann, match_id=n, reason="played", count=1, xp=10)))
        read: list[tuple[str, int]] = []
        real = X.read_page

        def counted(connection: Any, listed: X.Listed, player_id: int,
                    after: Any, limit: int = X.PAGE) -> Any:
            rows, last = real(connection, listed, player_id, after, limit)
            read.append((listed.name, len(rows)))
            return rows, last
        monkeypatch.setattr(X, "read_page", counted)
        data = await X.export(store, ann, page=2)
        assert [line["match"] for line in data["xp_lines"]] == [0, 1, 2, 3, 4]
        assert [n for name, n in read if name == "xp_lines"] == [2, 2, 1]
        assert all(n <= 2 for _, n in read)
        assert {name for name, _ in read} == {listed.name for listed in X.LISTED}
    finally:
        await store.close()
