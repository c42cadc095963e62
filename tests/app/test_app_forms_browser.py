"""Issue 21 item 5 in a browser (headless Debian chromium): the pages at 390x844 (a phone) cut no
field (each input, select and text area inside the screen and wide enough to read), the map is
skipped by the keyboard (the skip link before it moves the focus past it), and a reload after a
submission sends nothing again.  Screenshots: build/screenshots/forms-390-*.png."""

from __future__ import annotations

from pathlib import Path

import pytest

from bellica.app.background import running
from bellica.app.server import create_app
from tests.app.fixtures import field_campaign
from tests.web_maps.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium

pytestmark = pytest.mark.browser
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
PHONE = {"width": 390, "height": 844}


def _fields_fit(page, name: str, *, some: bool = True) -> None:
    """Every visible field lies within the phone's width, a text field at least 120 px wide (a place name fits)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"forms-390-{name}.png"), full_page=True)
    boxes = page.eval_on_selector_all(
        "input:not([type=hidden]):not([type=checkbox]), select, textarea",
        "els => els.filter(e => e.offsetParent !== null).map(e => {const r = e.getBoundingClientRect();"
        " return [e.id || e.name, e.tagName, r.left, r.right, r.width];})")
    assert boxes or not some, name
    for field, tag, left, right, width in boxes:
        assert left >= 0 and right <= PHONE["width"] + 0.5, (name, field, left, right)
        assert width >= 120 or tag == "SELECT", (name, field, width)  # a select is as wide as its options
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"] + 1, name


def test_the_pages_fit_a_phone_and_the_map_is_skipped(tmp_path, shared_playwright):
    require_chromium()
    from playwright.sync_api import expect

    path, early = tmp_path / "field.duckdb", tmp_path / "init.duckdb"
    tokens, first = field_campaign(path), field_campaign(early, publish=False)
    with running(create_app(path)) as url, running(create_app(early)) as url0, shared_playwright as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            init = browser.new_page(viewport=PHONE)
            init.goto(f"{url0}/?token={first['roma']}")
            _fields_fit(init, "initiative")
            page = browser.new_page(viewport=PHONE)
            page.goto(f"{url}/?token={tokens['roma']}")
            page.fill("#orders-sea-9", "Mare Sardoum:Caralis")
            _fields_fit(page, "orders")
            page.focus("#skip-map")
            page.keyboard.press("Enter")
            assert page.evaluate("document.activeElement.id") == "log-heading"
            page.fill("#orders-sea-9", "")
            page.fill("#orders-moves-9", "3")
            page.click("#orders-button")
            expect(page.locator("#message")).to_contain_text("orders stored (sealed)")
            assert "said=" in page.url
            posts: list[str] = []
            page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
            page.reload()
            expect(page.locator("#message")).to_contain_text("orders stored (sealed)")
            # the reload asked for the page, it sent no orders (the map's script asks the preview where the armies stand)
            assert [u for u in posts if "/preview/" not in u] == []
            umpire = browser.new_page(viewport=PHONE)
            umpire.goto(f"{url}/?token={tokens['umpire']}")
            _fields_fit(umpire, "umpire")
        finally:
            browser.close()
