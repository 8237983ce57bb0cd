"""Passwords: argon2id hashes made and checked in a bounded pool of threads, never on
the event loop, under limits that a flood of wrong passwords cannot get around.

- :class:`Passwords` hashes with argon2-cffi (argon2id, one lane, the memory cost of
  the setting ``hash_memory_kib``) in ``hash_workers`` threads. At most ``hash_queue``
  checks wait or run at once; past half of them only *trusted* checks are taken (a login
  from an address its account signed in from before), so that a flood from elsewhere
  never keeps an account's owner out. A check refused is :class:`Refused` ``busy``
  (503, ``Retry-After``) before any hashing.
- An unknown username is checked against a dummy hash of the same cost, so that it
  costs as much and answers as a wrong password does (no user enumeration).
- :class:`LoginLimits` holds the token buckets checked before any hashing: per address
  (every login, signup and password check), and per account for failed logins from
  addresses the account never signed in from.

>>> import asyncio
>>> async def demo():
...     passwords = Passwords(workers=1, queue=4, memory_kib=8)
...     hashed = await passwords.hash("correct horse")
...     good = await passwords.verify(hashed, "correct horse")
...     bad = await passwords.verify(hashed, "wrong")
...     passwords.close()
...     return hashed.startswith("$argon2id$"), good, bad
>>> asyncio.run(demo())
(True, True, False)
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from unokit.i18n import N_
from unokit.server.limits import AddressBuckets, Refused
from unokit.server.settings import Settings

T = TypeVar("T")

PASSWORD_MIN = 8
"""The fewest characters a password has."""
PASSWORD_MAX = 256
"""The most characters a password has (a longer one is refused before hashing)."""
RETRY_HASH = 5
"""Seconds a client is told to wait when the hashing queue is full."""
KNOWN_LIMIT = 65536
"""(account, address) pairs of good logins remembered (the oldest forgotten first)."""

BUSY = N_("the server is checking too many passwords: try again in a few seconds")
TOO_FAST = N_("too many attempts: try again in {seconds} seconds")


class Passwords:
    """argon2id hashing in a bounded pool of threads (see the module)."""

    def __init__(self, *, workers: int = 2, queue: int = 32,
                 memory_kib: int = 65536) -> None:
        self.hasher = PasswordHasher(time_cost=3, memory_cost=memory_kib, parallelism=1)
        self.queue = queue
        self.waiting = 0
        """Checks admitted and not done (waiting for a thread or hashing)."""
        self.refused = 0
        """Checks refused because the queue was full."""
        self._pool = ThreadPoolExecutor(max_workers=workers,
                                        thread_name_prefix="unokit-hash")
        self._dummy: str | None = None
        """The dummy hash unknown usernames are checked against, made in the pool the
        first time one is needed (a server that never sees one never pays for it)."""

    def _dummy_hash(self) -> str:
        """The dummy hash (in a pool thread)."""
        if self._dummy is None:
            self._dummy = self.hasher.hash("unokit dummy password")
        return self._dummy

    @classmethod
    def of(cls, settings: Settings) -> Passwords:
        """The pool of ``settings``."""
        return cls(workers=settings.hash_workers, queue=settings.hash_queue,
                   memory_kib=settings.hash_memory_kib)

    async def _run(self, work: Callable[[], T], *, trusted: bool) -> T:
        """Run ``work`` in the pool if there is room: all of the queue for a trusted
        check, half of it for the rest.

        Raises:
            Refused: ``busy`` (503) with ``Retry-After``.
        """
        room = self.queue if trusted else self.queue // 2
        if self.waiting >= room:
            self.refused += 1
            raise Refused("busy", 503, BUSY, retry_after=RETRY_HASH)
        self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, work)
        except RuntimeError:  # the pool was shut down: the server is stopping
            raise Refused("busy", 503, BUSY, retry_after=RETRY_HASH) from None
        finally:
            self.waiting -= 1

    async def hash(self, password: str, *, trusted: bool = False) -> str:
        """The argon2id hash of ``password`` (a PHC string)."""
        return await self._run(lambda: self.hasher.hash(password), trusted=trusted)

    async def verify(self, hashed: str | None, password: str, *,
                     trusted: bool = False) -> bool:
        """Whether ``password`` is the one of ``hashed``; ``None`` (no such account)
        is checked against a dummy hash, as long, and is never right."""
        def check() -> bool:
            target = hashed or self._dummy_hash()
            try:
                return bool(self.hasher.verify(target, password))
            except (VerificationError, InvalidHashError):
                return False
        right = await self._run(check, trusted=trusted)
        return right and bool(hashed)

    def outdated(self, hashed: str) -> bool:
        """Whether ``hashed`` was made with other parameters than this pool's (the
        settings changed since): a good login hashes the password again."""
        try:
            return bool(self.hasher.check_needs_rehash(hashed))
        except (InvalidHashError, ValueError):
            return True

    def close(self) -> None:
        """Stop the threads (checks under way finish)."""
        self._pool.shutdown(wait=False, cancel_futures=True)


class FailureBuckets(AddressBuckets):
    """Token buckets that can be looked at without taking a token.

    >>> buckets = FailureBuckets(rate=1.0, burst=1, clock=lambda: 0.0)
    >>> buckets.peek("ann"), buckets.take("ann"), buckets.peek("ann")
    (0.0, 0.0, 1.0)
    """

    def peek(self, key: str) -> float:
        """0.0 if ``key`` has a token left, else the seconds until it will."""
        if self.rate <= 0:
            return 0.0
        now = self.clock()
        tokens, stamp = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.rate)
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate


class LoginLimits:
    """The buckets checked before any hashing (see the module)."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.addresses = AddressBuckets(settings.login_rate, settings.login_burst, clock)
        self.accounts = FailureBuckets(settings.account_rate, settings.account_burst, clock)
        self.guests = AddressBuckets(settings.guest_rate, settings.guest_burst, clock)
        self._known: OrderedDict[tuple[str, str], None] = OrderedDict()

    @staticmethod
    def _refuse(wait: float) -> None:
        if wait > 0:
            seconds = max(1, int(wait + 0.999))
            raise Refused("rate_limited", 429, TOO_FAST, retry_after=seconds,
                          seconds=seconds)

    def attempt(self, address: str) -> None:
        """Count a login, signup or password check of ``address``.

        Raises:
            Refused: ``rate_limited`` (429) with ``Retry-After``.
        """
        self._refuse(self.addresses.take(address))

    def guest(self, address: str) -> None:
        """Count a guest made for ``address``.

        Raises:
            Refused: ``rate_limited`` (429) with ``Retry-After``.
        """
        self._refuse(self.guests.take(address))

    def trusted(self, account: str, address: str) -> bool:
        """Whether ``account`` signed in from ``address`` before, as this process
        remembers (the server also looks at the account's sessions' addresses)."""
        return (account, address) in self._known

    def may_try(self, account: str, *, trusted: bool) -> None:
        """Before hashing a login for ``account`` (a folded username, known or not):
        refused while the account's failures from untrusted addresses are spent
        (``trusted``: the account signed in from this address before).

        Raises:
            Refused: ``rate_limited`` (429) with ``Retry-After``.
        """
        if not trusted:
            self._refuse(self.accounts.peek(account))

    def failed(self, account: str, *, trusted: bool) -> None:
        """Count a failed login for ``account`` (not from a trusted address)."""
        if not trusted:
            self.accounts.take(account)

    def succeeded(self, account: str, address: str) -> None:
        """Remember that ``account`` signed in from ``address``."""
        self._known[(account, address)] = None
        self._known.move_to_end((account, address))
        while len(self._known) > KNOWN_LIMIT:
            self._known.popitem(last=False)
