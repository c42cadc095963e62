"""One headless Debian chromium per test process for the app's browser tests.

Each browser test used to start Playwright's driver (a node process) and a chromium of its own:
about 1.5 s of CPU a test before its first page.  Here the process's one driver and chromium
(tests/web_maps/browser.py, :func:`~tests.web_maps.browser.shared_session`, which the map pages'
tests share too) serve every browser test, and every test still gets pages of its own:
:func:`shared_playwright` hands a test a stand-in for ``sync_playwright()`` whose
``chromium.launch(...)`` gives a :class:`~tests.web_maps.browser.BrowserView` of the shared
browser; its pages and contexts are new ones (its own cookies, routes and listeners), and its
``close()`` closes those, not the browser.
"""

from __future__ import annotations

import pytest

from tests.web_maps.browser import loop_marked, shared_session


@pytest.fixture
def shared_playwright():
    """Use as ``sync_playwright()`` was used: ``with shared_playwright as p: browser =
    p.chromium.launch(...)`` gives a :class:`~tests.web_maps.browser.BrowserView` of the process's
    one chromium; whatever the test opened in it is closed after the test."""
    session = shared_session()
    with loop_marked(session):
        try:
            yield session
        finally:
            session.close_views()
