"""The server's tables, as SQLAlchemy 2 models: rooms, their seats, their actions, the
players' contributions to a fair deal, the lines of the table chat, the answers to
the host's and the lobby's commands, which server process owns each room (its lease),
and the players (guests and accounts), their sessions and API tokens, who held each
seat of a match (its seatings) and the XP each match gave (revision 0008); the
players' challenge progress and rewards, their coins and cosmetics (revision 0009); the
ratings, every rated match's entrants and the leaderboards (revision 0010); every
finished match's play statistics and the anti-farming checks' verdict (revision 0011);
the turn clocks of rooms handed over by a process that stopped (revision 0012); the
numbers that stand for deleted players in the rating and anti-farming history
(revision 0013).

Everything a room needs to come back after a restart is here: its rule set, its seats,
and every action of its match in order, so that ``(rules, seed, actions)`` rebuilds the
game. The Alembic migrations in ``unokit/store/migrations`` create these tables; a test
checks that the migrated schema and these models agree.

>>> sorted(Base.metadata.tables)  # doctest: +NORMALIZE_WHITESPACE
['actions', 'answers', 'api_tokens', 'bans', 'board_counts', 'board_entries',
 'challenge_progress', 'challenge_rewards', 'chat', 'coin_lines', 'contributions',
 'cosmetic_choices', 'cosmetics_owned', 'erased_players', 'match_play', 'match_play_seats',
 'player_matches', 'players', 'rating_results', 'ratings', 'room_leases', 'rooms',
 'seatings', 'seats', 'sessions', 'turn_clocks', 'wallets', 'xp_lines']
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """The declarative base of the server's tables."""


class RoomRow(Base):
    """One room: its code, its rules and where its match stands."""

    __tablename__ = "rooms"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(16), unique=True, index=True)
    """The short code players type or find in the invite link."""
    rules: Mapped[str] = mapped_column(Text)
    """The rule set, as the JSON of ``Rules.to_dict()``."""
    status: Mapped[str] = mapped_column(String(16), index=True)
    """``lobby``, ``playing``, ``finished``, ``abandoned`` (every seated person stayed
    away too long mid-match) or ``closed`` (an idle lobby)."""
    turn_timer: Mapped[int] = mapped_column(Integer, default=0)
    """Seconds per turn: 0 (off), 15, 30 or 60."""
    public: Mapped[bool] = mapped_column(Boolean, default=True)
    """Whether the room is in the list of open rooms."""
    server_seed: Mapped[str] = mapped_column(String(64))
    """The secret server seed (hex), revealed when the match ends."""
    commitment: Mapped[str] = mapped_column(String(64))
    """SHA-256 of the server seed (hex), published before the match."""
    seed: Mapped[str | None] = mapped_column(String(24), nullable=True)
    """The match seed (decimal text: it may exceed a signed 64-bit column), set at start."""
    created_at: Mapped[float] = mapped_column(Float)
    started_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    ended_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    last_seen: Mapped[float | None] = mapped_column(Float, nullable=True)
    """When a seated person was last known to be connected (seconds since the epoch; the
    creation time at first): what the lobby timeout and the abandonment of a match count
    from, written when the last one goes and, while one stays, at most once a minute
    (revision 0004)."""
    rated: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    """Whether its matches are rated (when every person seated is an account; revision
    0010)."""


class SeatRow(Base):
    """One seat of a room: empty, a person (with a hashed token) or a bot."""

    __tablename__ = "seats"

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``empty``, ``human`` or ``bot``."""
    name: Mapped[str] = mapped_column(String(64), default="")
    bot: Mapped[str] = mapped_column(String(64), default="")
    """The bot spec of a bot seat (``normal``, ``hard``, ...)."""
    token_hash: Mapped[str] = mapped_column(String(64), default="")
    """SHA-256 of the seat token (hex); the token itself is never stored."""
    host: Mapped[bool] = mapped_column(Boolean, default=False)
    occupant: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Who holds the seat: a number that grows each time someone new takes it (a player
    joins, a bot is seated), so that answers kept for one holder are never given to the
    next (revision 0004)."""
    player_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    """The player (:class:`PlayerRow`) who holds a person's seat; ``None`` for a bot, an
    empty seat, or a person who came without a session (revision 0008; indexed since
    revision 0013, for a deletion to find a player's seats)."""


class ActionRow(Base):
    """One accepted action of a room's match, in the order it was applied."""

    __tablename__ = "actions"

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    """0, 1, 2, ...: the action's place in ``game.history``."""
    action: Mapped[str] = mapped_column(String(64))
    """The action's text form (``"2:R5"``)."""
    seat: Mapped[int] = mapped_column(Integer)
    origin: Mapped[str] = mapped_column(String(8))
    """Who chose it: ``player``, ``bot``, ``timeout`` (a bot for a player who ran out of
    time) or ``auto`` (a bot for a player away after two timeouts)."""
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The client action id a player sent with it, for answering a resent action."""
    seq: Mapped[int] = mapped_column(BigInteger)
    """The sequence number of the last event it caused (what its ack carried)."""
    at: Mapped[float] = mapped_column(Float)
    """Server time (seconds since the epoch) of the commit."""
    occupant: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The seat's occupant (:attr:`SeatRow.occupant`) that sent it: its ``client_id``
    is that occupant's (revision 0004)."""


class ContributionRow(Base):
    """A seated player's random value for the match seed (see docs/fairness.md)."""

    __tablename__ = "contributions"

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class ChatRow(Base):
    """One line of a room's table chat, in the order the room took them (revision 0002)."""

    __tablename__ = "chat"

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    """0, 1, 2, ...: the line's place in the room's chat."""
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    """The writer's name when the line was written."""
    text: Mapped[str] = mapped_column(Text)
    """The line as the room took it (1-200 characters)."""
    at: Mapped[int] = mapped_column(BigInteger)
    """Server time of the line, in milliseconds since the epoch (rising within a room)."""
    client_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The client message id it came with, for answering a resent line."""
    seq: Mapped[int] = mapped_column(BigInteger)
    """The sequence number its ack carried."""
    occupant: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The writer's seat occupant (:attr:`SeatRow.occupant`; revision 0004)."""
    player_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    """The writer's player, when their seat had one (revision 0014): a deletion takes
    the player's lines with it (:mod:`unokit.store.erasure`)."""


class AnswerRow(Base):
    """A room's answer to a host or lobby command that carried a client id (``start``,
    ``add_bot``, ``remove_bot``, ``kick``, ``set_timer``, ``contribute``, ``leave``),
    committed in the transaction of the command's own change, so that the id sent again
    after a restart gets the same answer and changes nothing (revision 0003)."""

    __tablename__ = "answers"

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    """0, 1, 2, ...: the answer's place among the room's command answers."""
    seat: Mapped[int] = mapped_column(Integer)
    """The seat that sent the command (ids are per seat occupant)."""
    client_id: Mapped[str] = mapped_column(String(64))
    answer: Mapped[str] = mapped_column(Text)
    """The message the room answered with, as sent (its JSON text)."""
    at: Mapped[float] = mapped_column(Float)
    """Server time (seconds since the epoch) of the commit."""
    occupant: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The seat's occupant that sent the command (:attr:`SeatRow.occupant`; revision
    0004)."""


class LeaseRow(Base):
    """Which server process owns a room, and until when (revision 0006). Every write for
    the room checks, in its own statement or transaction, that the writer still holds
    this lease with this token (see :mod:`unokit.store.leases`)."""

    __tablename__ = "room_leases"

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    owner: Mapped[str] = mapped_column(String(128), default="")
    """The process that holds the room (``host/pid-namespace/pid/nonce``); empty: free."""
    token: Mapped[int] = mapped_column(BigInteger, default=0)
    """The fencing token: one more at every claim, so that a write of an earlier holder
    never passes for the present one."""
    lease_until: Mapped[float] = mapped_column(Float, default=0.0)
    """When the lease runs out, in seconds since the epoch by the database's clock (0:
    released). A lease that ran out may be claimed by any process."""


class BanRow(Base):
    """An address or a name the server refuses (``unokit admin ban``; revision 0007):
    checked when a connection says hello and when a room is created."""

    __tablename__ = "bans"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``address`` (a client's IP address) or ``name`` (a player name)."""
    value: Mapped[str] = mapped_column(String(64))
    """The address, or the name folded (NFKC, case-folded) as names are compared."""
    reason: Mapped[str] = mapped_column(String(200), default="")
    """Why, for the operators (never shown to the banned client)."""
    created_at: Mapped[float] = mapped_column(Float)


class PlayerRow(Base):
    """A player: a guest (no username) or an account (a username and a password hash).
    A guest who claims an account keeps its id, so its matches and XP stay its own
    (revision 0008). Ids are never reused (SQLite ``AUTOINCREMENT``)."""

    __tablename__ = "players"
    __table_args__ = {"sqlite_autoincrement": True}  # noqa: RUF012 (SQLAlchemy's)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """The name as its owner wrote it; ``None``: a guest."""
    username_key: Mapped[str | None] = mapped_column(String(32), nullable=True, unique=True)
    """The username folded (lower case), unique: what a login looks up."""
    password_hash: Mapped[str] = mapped_column(String(255), default="")
    """The argon2id hash (PHC string) of the password; empty for a guest."""
    created_at: Mapped[float] = mapped_column(Float)
    claimed_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    """When the guest claimed its account."""
    seen_at: Mapped[float] = mapped_column(Float)
    """When a session of the player was last used (written at most once an hour)."""
    xp: Mapped[int] = mapped_column(BigInteger, default=0)
    """The sum of the player's lines in ``xp_lines``, kept in the same transactions."""


class SessionRow(Base):
    """A signed-in browser: the SHA-256 of the random id in its cookie (revision 0008)."""

    __tablename__ = "sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           index=True)
    created_at: Mapped[float] = mapped_column(Float)
    seen_at: Mapped[float] = mapped_column(Float)
    address: Mapped[str] = mapped_column(String(64), default="")
    """The client address that opened it (shown in the owner's export)."""
    agent: Mapped[str] = mapped_column(String(128), default="")
    """The first 128 characters of its ``User-Agent``."""


class TokenRow(Base):
    """An API token of an account, for ``unokit play --server`` and ``unokit bot``
    (``Authorization: Bearer``): only its SHA-256 is stored (revision 0008)."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(64), default="")
    created_at: Mapped[float] = mapped_column(Float)
    used_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class SeatingRow(Base):
    """Who held a seat of a match, from which action to which (revision 0008): part of
    the match record the XP is derived from. A row opens when the match starts (every
    seat) or when someone takes a seat between rounds, and closes (``left_action``) when
    its holder leaves, is sent away or loses the seat's token."""

    __tablename__ = "seatings"

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    occupant: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    kind: Mapped[str] = mapped_column(String(8))
    """``human`` or ``bot``."""
    from_action: Mapped[int] = mapped_column(Integer)
    """How many actions the match had when the holder took the seat (0: at the start)."""
    left_action: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """How many actions the match had when the holder went; ``None``: held to the end."""


class PlayerMatchRow(Base):
    """A finished match of a player: its seat, whether it won or left, and the XP it
    earned (revision 0008). Written with the match's last action; it names the match by
    its room id but is kept when retention deletes the room."""

    __tablename__ = "player_matches"
    __table_args__ = (Index("ix_player_matches_recent", "player_id", "ended_at",
                            "match_id"),)

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           primary_key=True)
    match_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    """The room id of the match (no foreign key: the line outlives the room)."""
    code: Mapped[str] = mapped_column(String(16))
    seat: Mapped[int] = mapped_column(Integer)
    ended_at: Mapped[float] = mapped_column(Float)
    won: Mapped[bool] = mapped_column(Boolean)
    left: Mapped[bool] = mapped_column(Boolean)
    """The player left (or was sent away) before the end and was not back: 0 XP."""
    xp: Mapped[int] = mapped_column(Integer)


class XpLineRow(Base):
    """One line of the XP ledger: what a player earned in a match for one reason
    (``played``, ``won_match``, ``won_round``, ``draw_two``, ``wild_draw_four``), how
    many times, and the XP (revision 0008; see docs/accounts.md)."""

    __tablename__ = "xp_lines"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           primary_key=True)
    match_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reason: Mapped[str] = mapped_column(String(16), primary_key=True)
    count: Mapped[int] = mapped_column(Integer)
    xp: Mapped[int] = mapped_column(Integer)


class ChallengeProgressRow(Base):
    """How far a player got in one challenge in one period (revision 0009): the sum of
    the challenge's metric over the player's matches that ended in the period, raised
    in the transaction of each match's last action. A period is named by its end
    (seconds since the epoch, UTC), so that a new period is a new row and a reset
    deletes nothing."""

    __tablename__ = "challenge_progress"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           primary_key=True)
    period_end: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    challenge: Mapped[str] = mapped_column(String(40), primary_key=True)
    progress: Mapped[int] = mapped_column(Integer)


class ChallengeRewardRow(Base):
    """A challenge's reward, paid (revision 0009): its key is the challenge and period,
    so that a reward is paid once however many claims come at once."""

    __tablename__ = "challenge_rewards"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           primary_key=True)
    period_end: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    challenge: Mapped[str] = mapped_column(String(40), primary_key=True)
    xp: Mapped[int] = mapped_column(Integer)
    coins: Mapped[int] = mapped_column(Integer)
    claimed_at: Mapped[float] = mapped_column(Float)


class WalletRow(Base):
    """A player's coins (revision 0009): the sum of its ``coin_lines``, never below 0
    (a spend is a conditional update, and the database checks it too)."""

    __tablename__ = "wallets"
    __table_args__ = (CheckConstraint("coins >= 0", name="ck_wallets_coins"),)

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           primary_key=True)
    coins: Mapped[int] = mapped_column(BigInteger)


class CoinLineRow(Base):
    """One change of a player's coins (revision 0009): ``delta``, ``reason``
    (``challenge``, ``buy``) and a ``reference`` unique per player (the challenge and
    period paid, the cosmetic bought)."""

    __tablename__ = "coin_lines"
    __table_args__ = (UniqueConstraint("player_id", "reference",
                                       name="uq_coin_lines_reference"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    delta: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(String(16))
    reference: Mapped[str] = mapped_column(String(80))
    at: Mapped[float] = mapped_column(Float)


class CosmeticOwnedRow(Base):
    """A cosmetic a player bought (revision 0009)."""

    __tablename__ = "cosmetics_owned"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           primary_key=True)
    cosmetic: Mapped[str] = mapped_column(String(40), primary_key=True)
    bought_at: Mapped[float] = mapped_column(Float)


class CosmeticChoiceRow(Base):
    """The cosmetic a player chose for a slot (revision 0009); none: the slot's free
    default."""

    __tablename__ = "cosmetic_choices"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           primary_key=True)
    slot: Mapped[str] = mapped_column(String(16), primary_key=True)
    cosmetic: Mapped[str] = mapped_column(String(40))


class RatingRow(Base):
    """A player's current rating (openskill's mu and sigma) and how many rated matches it
    rests on (revision 0010; see :mod:`unokit.store.ratings`)."""

    __tablename__ = "ratings"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    matches: Mapped[int] = mapped_column(Integer)
    """Rated matches played."""
    change: Mapped[int] = mapped_column(Integer)
    """How the rating shown moved in the last rated match."""
    updated_at: Mapped[float] = mapped_column(Float)
    active_until: Mapped[float] = mapped_column(Float, index=True)
    """When the player stops being eligible for the leaderboards unless they play
    again (0: not on them)."""


class RatingResultRow(Base):
    """One entrant of a rated match: the player (or the bot), their team and place, and
    their rating before and after (revision 0010). Rows are kept when a player or the
    room is deleted: the full re-rate replays them all. A deleted player's rows name
    them no more: their ``player_id`` becomes the negative number of an
    :class:`ErasedPlayerRow` (see :mod:`unokit.store.erasure`)."""

    __tablename__ = "rating_results"
    __table_args__ = (Index("ix_rating_results_player", "player_id", "ended_at"),)

    match_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slot: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The player; ``None`` for a bot."""
    bot: Mapped[str] = mapped_column(String(40), default="")
    team: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
    """The team's place: 0 first, equal places tied, a leaver last."""
    n: Mapped[int] = mapped_column(Integer)
    """How many rated matches the player had played before this one (-1 for a bot)."""
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    ended_at: Mapped[float] = mapped_column(Float)


class BoardEntryRow(Base):
    """A player's place on a leaderboard (revision 0010): ``sort_key`` is its order
    (lower first; ties by player id) and gives the score shown (``2**41 - sort_key``);
    ``name`` is the player's username, so that a page is read from the index alone."""

    __tablename__ = "board_entries"
    __table_args__ = (Index("ix_board_entries_order", "board", "sort_key", "player_id",
                            "name"),)

    board: Mapped[str] = mapped_column(String(24), primary_key=True)
    player_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sort_key: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(32))


class BoardCountRow(Base):
    """How many entries of a leaderboard have sort keys in one range: level ``L``, key
    ``k`` counts the keys ``x`` with ``x >> (6 * L) == k`` (revision 0010; see
    :mod:`unokit.store.boards`)."""

    __tablename__ = "board_counts"

    board: Mapped[str] = mapped_column(String(24), primary_key=True)
    level: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    n: Mapped[int] = mapped_column(BigInteger)


class MatchPlayRow(Base):
    """A finished match as the anti-farming checks read it (revision 0011; see
    :mod:`unokit.store.match_play`): ``seq`` numbers the matches in the order they were
    judged (each after every match of its players committed before it), which the
    re-rate follows. Kept when the room or a player is deleted, like the entrants (a
    deleted player's :class:`MatchPlaySeatRow` rows then name nobody)."""

    __tablename__ = "match_play"
    __table_args__ = (Index("ix_match_play_flagged", "flagged", "seq"),
                      Index("ix_match_play_deal", "deal"),
                      {"sqlite_autoincrement": True})

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(Integer, unique=True)
    deal: Mapped[str] = mapped_column(String(64))
    """The SHA-256 of the deal's key (its canonical rules and seed)."""
    ended_at: Mapped[float] = mapped_column(Float)
    rated: Mapped[bool] = mapped_column(Boolean)
    """Whether the match was to be rated before the checks (a rated room, accounts)."""
    flagged: Mapped[bool] = mapped_column(Boolean)
    """Whether a check voided the rating of a participant."""


class MatchPlaySeatRow(Base):
    """One participant of a finished match (revision 0011): a seat's holder at the end
    or a leaver, their team and place, how they played (from the match record), what
    the checks read of their account then, and the checks' reasons (empty: none)."""

    __tablename__ = "match_play_seats"
    __table_args__ = (Index("ix_match_play_seats_player", "player_id", "match_id"),)

    match_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slot: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    bot: Mapped[str] = mapped_column(String(40))
    team: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
    left: Mapped[bool] = mapped_column(Boolean)
    turns: Mapped[int] = mapped_column(Integer)
    playable_turns: Mapped[int] = mapped_column(Integer)
    voluntary_draws: Mapped[int] = mapped_column(Integer)
    actions: Mapped[int] = mapped_column(Integer)
    played_for: Mapped[int] = mapped_column(Integer)
    address: Mapped[str] = mapped_column(String(32))
    """A digest of the player's network address group ('' unknown)."""
    account_days: Mapped[float] = mapped_column(Float)
    rated_matches: Mapped[int] = mapped_column(Integer)
    reasons: Mapped[str] = mapped_column(String(120))
    """The checks that voided this participant's rating, comma-separated."""


class ErasedPlayerRow(Base):
    """A deleted player who had a place in the rating or anti-farming history
    (revision 0013): ``-id`` stands for them in ``rating_results`` and
    ``match_play_seats``, so that the full re-rate still finds every match and every
    verdict while no row names the player (:mod:`unokit.store.erasure`). Nothing links
    the number to the player's id; ids are never reused."""

    __tablename__ = "erased_players"
    __table_args__ = {"sqlite_autoincrement": True}  # noqa: RUF012 (SQLAlchemy's)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    erased_at: Mapped[float] = mapped_column(Float)


class TurnClockRow(Base):
    """The turn timer of a room handed over by a process that stopped (revision 0012):
    the seconds of the turn under way already used when the room had ``actions``
    actions. The next process counts the turn on from there (not from the last action),
    so a restart costs the player none of their time; once the match moves on, the row
    no longer applies (see :mod:`unokit.store.turn_clocks`)."""

    __tablename__ = "turn_clocks"

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"),
                                         primary_key=True)
    actions: Mapped[int] = mapped_column(Integer)
    used: Mapped[float] = mapped_column(Float)
