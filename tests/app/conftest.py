"""One headless Debian chromium per test process for the app's browser tests.

Each browser test used to start Playwright's driver (a node process) and a chromium of its own:
about 1.5 s of CPU a test before its first page.  Here one driver and one chromium serve every
browser test of the process (each xdist worker has its own), and every test still gets pages of
its own: :func:`shared_playwright` hands a test a stand-in for ``sync_playwright()`` whose
``chromium.launch(...)`` gives a :class:`BrowserView` of the shared browser; its pages and contexts
are new ones (its own cookies, routes and listeners), and its ``close()`` closes those, not the
browser.  A browser that has died (a crash) is launched again for the next test.

Playwright's sync API marks its event loop as the thread's running loop while it is started; the
loop is marked only while a browser test runs, so that the tests around it see no running loop
(``asyncio.run`` keeps working in the main thread).
"""

from __future__ import annotations

import asyncio

import pytest

from tests.web_maps.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium


class BrowserView:
    """The shared browser as one test sees it: what it opens is its own, and closed with it."""

    def __init__(self, browser):
        self._browser = browser
        self._contexts: list = []

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        self._contexts.append(context)
        return context

    def new_page(self, **options):
        """A page in a context of its own, as ``Browser.new_page`` makes it (closed with the view)."""
        return self.new_context(**options).new_page()

    @property
    def contexts(self) -> list:
        return [c for c in self._contexts if c in self._browser.contexts]

    def close(self) -> None:
        for context in self._contexts:
            try:
                context.close()
            except Exception:  # noqa: BLE001  (already closed, or the browser has died)
                pass
        self._contexts.clear()

    def __getattr__(self, name):  # version, is_connected ...
        return getattr(self._browser, name)


class _Chromium:
    def __init__(self, session: "_Session"):
        self._session = session

    def launch(self, *, executable_path=None, args=None, headless=True, **options):
        """A :class:`BrowserView` of the process's chromium (launched as the tests launched theirs)."""
        assert executable_path in (None, str(CHROMIUM)) and headless and not options, (executable_path, options)
        assert args is None or list(args) == CHROMIUM_ARGS, args
        view = BrowserView(self._session.browser())
        self._session.views.append(view)
        return view


class _Session:
    """Playwright started once for the process, and its chromium."""

    def __init__(self):
        from playwright.sync_api import sync_playwright

        self._manager = sync_playwright()
        self.playwright = self._manager.start()
        self.loop = asyncio._get_running_loop()
        self._browser = None
        self.views: list[BrowserView] = []
        self.chromium = _Chromium(self)

    def browser(self):
        if self._browser is None or not self._browser.is_connected():
            self._browser = self.playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                                            headless=True)
        return self._browser

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def stop(self) -> None:
        if self._browser is not None:
            try:
                self._browser.close()
            except Exception:  # noqa: BLE001  (it has died)
                pass
        self._manager.__exit__()


@pytest.fixture(scope="session")
def _playwright_session():
    require_chromium()
    session = _Session()
    asyncio._set_running_loop(None)  # marked again while a browser test runs (shared_playwright)
    try:
        yield session
    finally:
        asyncio._set_running_loop(session.loop)
        session.stop()
        asyncio._set_running_loop(None)


@pytest.fixture
def shared_playwright(_playwright_session):
    """Use as ``sync_playwright()`` was used: ``with shared_playwright as p: browser =
    p.chromium.launch(...)`` gives a :class:`BrowserView` of the process's one chromium; whatever the
    test opened in it is closed after the test."""
    session = _playwright_session
    asyncio._set_running_loop(session.loop)
    try:
        yield session
    finally:
        for view in session.views:
            view.close()
        session.views.clear()
        asyncio._set_running_loop(None)
