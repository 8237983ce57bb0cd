"""Hypothesis profiles for the test suite.

``ci`` (the default) keeps the whole suite to a few minutes on two cores; ``dev`` is a
quick smoke run; ``thorough`` runs many more examples for a long local search. Choose
one with ``HYPOTHESIS_PROFILE=thorough`` or ``pytest --hypothesis-profile=thorough``.

The fixture ``instant_buttons`` takes Textual's press effect off buttons, and
``table_timers`` replaces the table screen's timers by a list the test fires by hand
(see there). ``database_url`` runs a test on SQLite and on PostgreSQL (``tests/dbs.py``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# The shared strategies live beside the tests (tests/strategies.py).
sys.path.insert(0, str(Path(__file__).parent))

import dbs  # beside the tests, on the path just set

# The tests read English: the terminal's language does not reach them (the tests of the
# languages set their own, tests/test_i18n_cli.py).
os.environ["UNOKIT_LANG"] = "en"

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=_SLOW_OK,
                          print_blob=True)
settings.register_profile("dev", max_examples=10, deadline=None, suppress_health_check=_SLOW_OK)
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=_SLOW_OK, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(params=dbs.DATABASES)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The SQLAlchemy URL of an empty database of the test's own, once on SQLite and once
    on PostgreSQL (``test_x[sqlite]``, ``test_x[postgresql]``). The PostgreSQL one is
    created on the server of ``UNOKIT_TEST_POSTGRES_URL`` and dropped afterwards; without
    that variable the test fails, saying how to start a server. See ``tests/dbs.py``."""
    with dbs.database(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def postgres_url(tmp_path: Path) -> Iterator[str]:
    """The URL of an empty PostgreSQL database of the test's own (for the tests of
    several processes, PgBouncer and outages, which need a server), dropped afterwards."""
    with dbs.database("postgresql", tmp_path) as url:
        yield url


@pytest.fixture
def instant_buttons(monkeypatch: pytest.MonkeyPatch) -> None:
    """Buttons without their press effect (``active_effect_duration = 0``).

    Textual's ``Button`` ignores a click while it shows its press effect (0.2 s after the
    last press), so a second click on the same button in a test would count or not
    depending on how fast the machine is. The terminal-game tests use this fixture
    (``pytestmark``), which makes every click count, whatever the timing.
    """
    from textual.widgets import Button

    original = Button.__init__

    def init(self: Button, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self.active_effect_duration = 0

    monkeypatch.setattr(Button, "__init__", init)


class _StoppedTimer:
    """What the fake ``set_timer`` of :func:`table_timers` returns."""

    def stop(self) -> None:
        pass


@pytest.fixture
def table_timers(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, Any]]:
    """The terminal game's table screen without real timers: every ``set_timer`` call is
    kept in the returned list as ``(delay, callback)``, and the test calls the callback
    when it wants the time to have passed, so nothing waits on the clock."""
    from unokit.tui.table_screen import TableScreen

    timers: list[tuple[float, Any]] = []

    def fake_timer(self: Any, delay: float, callback: Any = None,
                   *args: Any, **kwargs: Any) -> _StoppedTimer:
        timers.append((delay, callback))
        return _StoppedTimer()

    monkeypatch.setattr(TableScreen, "set_timer", fake_timer)
    return timers


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    """Every test starts, and leaves, the current language (``unokit.i18n._``) English."""
    from unokit import i18n

    i18n.set_language("en")
    yield
    i18n.set_language("en")
