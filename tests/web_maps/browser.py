"""Headless Debian chromium for the browser tests: network blocked, console errors and requests recorded.

Playwright drives the system ``/usr/bin/chromium`` (``make chromium`` installs
it); it never downloads a browser.  Every request that is not ``file:`` or
``data:`` is aborted *and* recorded, so a test can assert none was attempted.
Also a PNG decoder (zlib + numpy; Pillow is not a dependency) for checking
that a screenshot shows a map rather than a blank page.

One Playwright driver (a node process) and one chromium serve every browser test of a test
process (:func:`shared_session`; each xdist worker has its own): starting them costs about 1.5 s
of CPU, more than most of the pages the tests open.  Every test still gets contexts and pages of
its own (their own cookies, routes and listeners), closed after it; a browser that has died (a
crash) is launched again for the next test.

Playwright's sync API marks its event loop as the thread's running loop while it is started; the
loop is marked only while a browser test uses it (:func:`loop_marked`), so that the tests around
it see no running loop (``asyncio.run`` keeps working in the main thread).
"""

from __future__ import annotations

import asyncio
import struct
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")


def require_chromium() -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent: install Debian chromium with `make chromium` to run browser tests")


@dataclass
class PageRun:
    page: object  # playwright.sync_api.Page
    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    blocked: list[str] = field(default_factory=list)  # the non-local ones, aborted
    errors: list[str] = field(default_factory=list)  # console errors and uncaught exceptions


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
    def __init__(self, session: "Session"):
        self._session = session

    def launch(self, *, executable_path=None, args=None, headless=True, **options):
        """A :class:`BrowserView` of the process's chromium (launched as the tests launched theirs)."""
        assert executable_path in (None, str(CHROMIUM)) and headless and not options, (executable_path, options)
        assert args is None or list(args) == CHROMIUM_ARGS, args
        view = BrowserView(self._session.browser())
        self._session.views.append(view)
        return view


class Session:
    """Playwright started once for the process, and its chromium.  Stands in for what
    ``sync_playwright()`` gives: ``with session as p: p.chromium.launch(...)`` is a
    :class:`BrowserView` (closed by :meth:`close_views`, after the test)."""

    def __init__(self):
        from playwright.sync_api import sync_playwright

        self._manager = sync_playwright()
        self.playwright = self._manager.start()
        self.loop = asyncio._get_running_loop()
        asyncio._set_running_loop(None)  # marked again while a test uses it (loop_marked)
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

    def close_views(self) -> None:
        for view in self.views:
            view.close()
        self.views.clear()

    def stop(self) -> None:
        with loop_marked(self):
            if self._browser is not None:
                try:
                    self._browser.close()
                except Exception:  # noqa: BLE001  (it has died)
                    pass
            self._manager.__exit__()


_SESSION: list[Session] = []  # the process's one, once started


def shared_session() -> Session:
    """The test process's :class:`Session`, started the first time a test asks (stopped by
    :func:`stop_shared_session`, which tests/conftest.py calls when the run ends)."""
    require_chromium()
    if not _SESSION:
        _SESSION.append(Session())
    return _SESSION[0]


def stop_shared_session() -> None:
    while _SESSION:
        _SESSION.pop().stop()


@contextmanager
def loop_marked(session: Session):
    """Playwright's loop marked as the thread's running loop while the block runs (as
    ``sync_playwright()`` leaves it), and what was marked before marked again after."""
    before = asyncio._get_running_loop()
    asyncio._set_running_loop(session.loop)
    try:
        yield session
    finally:
        asyncio._set_running_loop(before)


@contextmanager
def offline_page(html: Path, *, width: int = 1000, height: int = 750):
    """Open ``html`` in headless chromium (the process's one: :func:`shared_session`) with all
    non-local requests aborted; yields a :class:`PageRun`.  The page's context is closed after."""
    session = shared_session()
    with loop_marked(session):
        context = session.browser().new_context(viewport={"width": width, "height": height}, offline=True)
        try:
            run = PageRun(page=None)

            def route(r):
                url = r.request.url
                if url.startswith(LOCAL_SCHEMES):
                    r.continue_()
                else:
                    run.blocked.append(url)
                    r.abort()

            context.route("**/*", route)
            page = context.new_page()
            run.page = page
            page.on("request", lambda req: run.requests.append(req.url))
            page.on("console", lambda msg: run.errors.append(msg.text) if msg.type == "error" else None)
            page.on("pageerror", lambda exc: run.errors.append(str(exc)))
            page.goto(html.resolve().as_uri(), wait_until="load")
            yield run
        finally:
            try:
                context.close()
            except Exception:  # noqa: BLE001  (the browser has died: the next test launches another)
                pass


def decode_png(data: bytes) -> np.ndarray:
    """An 8-bit RGB/RGBA PNG (as chromium writes screenshots) as a (height, width, channels) uint8 array."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8).reshape(height, 1 + width * bpp)
    out = np.zeros((height, width * bpp), dtype=np.uint8)
    prev = np.zeros(width * bpp, dtype=np.uint8)
    for y in range(height):
        f, line = raw[y, 0], raw[y, 1:]
        if f == 0:
            cur = line.copy()
        elif f == 1:  # Sub: a running sum per channel, mod 256
            cur = np.cumsum(line.reshape(width, bpp).astype(np.uint32), axis=0).astype(np.uint8).ravel()
        elif f == 2:  # Up
            cur = line + prev
        else:  # Average / Paeth depend on the pixel just decoded: byte loop
            cur = np.zeros_like(line)
            lp, pl = line.tolist(), prev.tolist()
            c = [0] * len(lp)
            for i in range(len(lp)):
                a = c[i - bpp] if i >= bpp else 0
                b = pl[i]
                if f == 3:
                    c[i] = (lp[i] + ((a + b) >> 1)) & 0xFF
                else:
                    cc = pl[i - bpp] if i >= bpp else 0
                    p = a + b - cc
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - cc)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
                    c[i] = (lp[i] + pred) & 0xFF
            cur = np.array(c, dtype=np.uint8)
        out[y] = cur
        prev = cur
    return out.reshape(height, width, bpp)


def colour_census(png: bytes) -> dict[tuple[int, int, int], int]:
    """{(r, g, b): pixel count} of a screenshot."""
    pixels = decode_png(png)[:, :, :3].reshape(-1, 3)
    colours, counts = np.unique(pixels, axis=0, return_counts=True)
    return {tuple(int(v) for v in c): int(n) for c, n in zip(colours, counts)}
