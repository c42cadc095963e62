"""Headless Debian chromium for the browser tests: network blocked, console errors and requests recorded.

Playwright drives the system ``/usr/bin/chromium`` (``make chromium`` installs
it); it never downloads a browser.  Every request that is not ``file:`` or
``data:`` is aborted *and* recorded, so a test can assert none was attempted.
Also a PNG decoder (zlib + numpy; Pillow is not a dependency) for checking
that a screenshot shows a map rather than a blank page.
"""

from __future__ import annotations

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


@contextmanager
def offline_page(html: Path, *, width: int = 1000, height: int = 750):
    """Open ``html`` in headless chromium with all non-local requests aborted; yields a :class:`PageRun`."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": width, "height": height}, offline=True)
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
            browser.close()


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
