"""Fixtures of the browser tests: Debian's Chromium driven by Playwright, and a real
``unokit serve`` process for each test.

The browser is ``/usr/bin/chromium`` (``UNOKIT_CHROMIUM`` overrides it;
``scripts/install_browser.sh`` installs it). Without it the tests fail, saying so:
they never skip. Each test module is marked ``xdist_group("browser")``, so that under
``--dist loadgroup`` one worker runs them all, one browser at a time. Screenshots go to
``test-artifacts/browser/`` (git-ignored).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_server import ROOT, ServerProcess
from browser_table import WIRE_JS

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
EXPECT_TIMEOUT_MS = 20_000


def chromium_path() -> str:
    return os.environ.get("UNOKIT_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture
def browser() -> Iterator[Any]:
    """A Chromium for the test (which makes its own contexts in it). Playwright's sync
    API runs an event loop in this thread while it is started, so it is started and
    stopped with each test: the asyncio tests that run after it in the same worker
    need the thread without a running loop."""
    path = chromium_path()
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail(f"the browser tests need Chromium at {path}: run "
                    "scripts/install_browser.sh (make test does), or set UNOKIT_CHROMIUM "
                    "to a Chromium binary", pytrace=False)
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError as exc:  # pragma: no cover - the dev extra has it
        pytest.fail(f"the browser tests need Playwright for Python (the dev extra): {exc}",
                    pytrace=False)
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        except Exception as exc:
            pytest.fail(f"Chromium at {path} did not start: {exc}", pytrace=False)
        yield chromium
        chromium.close()


@pytest.fixture
def contexts(browser: Any) -> Iterator[Callable[..., Any]]:
    """``contexts(**options)``: a new browser context (closed after the test)."""
    made: list[Any] = []

    def make(**options: Any) -> Any:
        options.setdefault("locale", "en-US")
        options.setdefault("viewport", {"width": 1280, "height": 800})
        context = browser.new_context(**options)
        context.set_default_timeout(EXPECT_TIMEOUT_MS)
        context.add_init_script(WIRE_JS)
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """``server_factory(**UNOKIT_settings)``: a started ``unokit serve`` of the test's own
    (stopped after the test). ``server_factory(UNOKIT_TURN_TIMER="60")``..."""
    started: list[ServerProcess] = []

    def make(**settings: str) -> ServerProcess:
        server = ServerProcess(tmp_path / f"server{len(started)}", settings=settings)
        started.append(server)
        return server.start()

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def server(server_factory: Callable[..., ServerProcess]) -> ServerProcess:
    """A ``unokit serve`` with the test settings (``browser_server.TEST_SETTINGS``)."""
    return server_factory()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go (``test-artifacts/browser/``, git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
